#!/bin/sh
# Fails when any generated directory differs from what buf generates from proto/ (stale or hand-edited code):
# the service's reflection descriptors (src/gen, scripts/gen-descriptors.ts) and every client's gen/, the TypeScript
# one of which the service imports too. The list mirrors the `out:` entries of buf.gen.yaml.
set -eu
cd "$(dirname "$0")/.."
# The Go and Python generators come with the clients tier of scripts/setup.sh; without them buf cannot generate.
case ",$(printf %s "${SYNCWORKER_SKIP_TIERS:-}" | tr -d '[:space:]')," in
*,clients,*) echo "gen:check skipped: it needs the clients tier, opted out (SYNCWORKER_SKIP_TIERS)" >&2; exit 0 ;;
esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
npx buf generate -o "$out"
mkdir -p "$out/src/gen"
node --import tsx scripts/gen-descriptors.ts "$out/src/gen"
stale=0
for dir in src/gen clients/ts/src/gen clients/go/gen clients/python/gen; do
  # Python's bytecode caches are not generated code (tests set PYTHONDONTWRITEBYTECODE, a manual run may not).
  if ! diff -r -x __pycache__ "$out/$dir" "$dir" >/dev/null 2>&1; then
    diff -r -x __pycache__ "$out/$dir" "$dir" 2>&1 | head -20 >&2
    echo "$dir is stale: run 'npm run gen' and commit the result" >&2
    stale=1
  fi
done
exit $stale
