#!/bin/sh
# Fails when any generated file differs from what its generator makes now (stale or hand-edited): the Grafana
# dashboard ConfigMap (deploy/grafana-dashboard.yaml, scripts/gen-dashboard.ts), the live pages' bundles
# (src/page/assets/app.js and fleet.js, scripts/gen-page.ts), then every directory buf generates
# from proto/: the service's reflection descriptors (src/gen, scripts/gen-descriptors.ts) and every client's gen/,
# the TypeScript one of which the service imports too. That list mirrors the `out:` entries of buf.gen.yaml.
set -eu
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
stale=0
# The dashboard needs no tier: only the devDependencies npm ci installs.
node --import tsx scripts/gen-dashboard.ts "$out/grafana-dashboard.yaml"
if ! diff deploy/grafana-dashboard.yaml "$out/grafana-dashboard.yaml" >/dev/null 2>&1; then
  diff deploy/grafana-dashboard.yaml "$out/grafana-dashboard.yaml" 2>&1 | head -20 >&2
  echo "deploy/grafana-dashboard.yaml is stale: run 'node --import tsx scripts/gen-dashboard.ts' and commit the result" >&2
  stale=1
fi
# The live pages' bundles (scripts/gen-page.ts, esbuild from the devDependencies): the update page's and the fleet's.
mkdir -p "$out/page"
node --import tsx scripts/gen-page.ts "$out/page"
for script in app.js fleet.js; do
  if ! cmp -s "src/page/assets/$script" "$out/page/$script"; then
    echo "src/page/assets/$script is stale: run 'node --import tsx scripts/gen-page.ts' and commit the result" >&2
    stale=1
  fi
done
# The Go and Python generators come with the clients tier of scripts/setup.sh; without them buf cannot generate.
case ",$(printf %s "${SYNCWORKER_SKIP_TIERS:-}" | tr -d '[:space:]')," in
*,clients,*) echo "gen:check of buf's output skipped: it needs the clients tier, opted out (SYNCWORKER_SKIP_TIERS)" >&2; exit $stale ;;
esac
npx buf generate -o "$out"
mkdir -p "$out/src/gen"
node --import tsx scripts/gen-descriptors.ts "$out/src/gen"
for dir in src/gen clients/ts/src/gen clients/go/gen clients/python/gen; do
  # Python's bytecode caches are not generated code (tests set PYTHONDONTWRITEBYTECODE, a manual run may not).
  if ! diff -r -x __pycache__ "$out/$dir" "$dir" >/dev/null 2>&1; then
    diff -r -x __pycache__ "$out/$dir" "$dir" 2>&1 | head -20 >&2
    echo "$dir is stale: run 'npm run gen' and commit the result" >&2
    stale=1
  fi
done
exit $stale
