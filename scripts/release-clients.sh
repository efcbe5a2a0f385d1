#!/bin/sh
# Builds the three clients' release artifacts, each as its ecosystem installs it, and their SHA256SUMS:
#   npm/syncworker-client-V.tgz                 npm install ./syncworker-client-V.tgz
#   python/syncworker_client-V-py3-none-any.whl pip install ./syncworker_client-V-py3-none-any.whl
#   python/syncworker_client-V.tar.gz           the sdist
#   go/                                         a module proxy tree (GOPROXY=file://…/go) holding
#                                               github.com/syncworker/syncworker/clients/go@vV, what the tag
#                                               clients/go/vV serves once pushed
# V is clients/ts/package.json's version; clients/python/pyproject.toml must carry the same (checked below).
# Usage: scripts/release-clients.sh [OUT]   (default: release/clients; not dist/, which `npm run build` empties)
# Needs node/npm, go and the Python venv with `build` from scripts/setup-clients.sh.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/plugins/tools.sh"
out=$(realpath -m "${1:-$root/release/clients}")
version=$(node -p 'require(process.argv[1]).version' "$root/clients/ts/package.json")
"$SYNCWORKER_PYTHON" -m build --version >/dev/null 2>&1 || missing "$SYNCWORKER_PYTHON -m build"

# Each client is built from a clean copy of its directory: nothing stale (an old dist/, build/, *.egg-info) can
# ship, and the checkout is not written to while tests or other builds read it.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
copy() {
  mkdir -p "$stage/$1"
  tar -C "$root/clients/$1" --exclude=./dist --exclude=./build --exclude=./node_modules --exclude='*.egg-info' \
    --exclude=__pycache__ --exclude=.pytest_cache -cf - . | tar -C "$stage/$1" -xf -
}
# A build step's output goes to a log, shown only when the step fails (npm prints a failed build's errors to stdout).
quiet() {
  log="$stage/$1.log"
  shift
  "$@" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
}
rm -rf "$out"
mkdir -p "$out/npm" "$out/python" "$out/go"

copy ts
# The copy finds the repository's TypeScript and type packages where npm run and tsc look: an ancestor's node_modules.
ln -s "$root/node_modules" "$stage/node_modules"
# npm pack runs the package's `prepare`, which builds dist/.
(cd "$stage/ts" && quiet npm npm pack --pack-destination "$out/npm")

copy python
# An isolated build, as PyPI's tooling does it: the build backend comes from pyproject.toml's build-system.
quiet python "$SYNCWORKER_PYTHON" -m build --outdir "$out/python" "$stage/python"
for artifact in "syncworker_client-$version-py3-none-any.whl" "syncworker_client-$version.tar.gz"; do
  [ -f "$out/python/$artifact" ] || {
    echo "no python/$artifact: clients/python/pyproject.toml's version must be $version, as clients/ts/package.json's" >&2
    exit 1
  }
done

# The version's time is the release commit's, so the same commit always gives the same .info.
(cd "$root/scripts/goproxy" && go run -buildvcs=false . -module-dir "$root/clients/go" -version "v$version" \
  -time "$(git -C "$root" log -1 --format=%cI)" -out "$out/go")

(cd "$out" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
echo "clients $version released into $out (tag the release commit clients/go/v$version for go get)"
