#!/usr/bin/env bash
# Builds the Jaeger v2 all-in-one (module versions v1.x carry the v2 binary under cmd/jaeger) from the Go module
# proxy for the tracing tests and benchmark, once per version. The binary goes to a cache outside the repository,
# keyed by version, so a clean clone, CI and every test run share it; a second run finds it and returns at once.
# Prints the binary path last on stdout; progress (packages compiled out of the total) goes to stderr because a cold
# build compiles the collector core and every storage backend and takes minutes on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mod="$root/test/harness/jaeger"
pkg=github.com/jaegertracing/jaeger/cmd/jaeger
export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0

# The version comes from the wrapper module itself, so the cache key cannot drift from what is built.
ver="$(awk '$1 == "require" { $1 = ""; $0 = $0 } $1 == "github.com/jaegertracing/jaeger" && $2 ~ /^v/ { print $2; exit }' "$mod/go.mod")"
[ -n "$ver" ] || { echo "cannot read the jaeger version from $mod/go.mod" >&2; exit 1; }
out="${SYNCWORKER_JAEGER_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/syncworker/jaeger/$ver}"

if [ -x "$out/jaeger" ]; then echo "$out/jaeger"; exit 0; fi
command -v go >/dev/null || { echo "go is not on PATH: install Go >= 1.26 (see .ci/run)" >&2; exit 1; }
mkdir -p "$out"
# Test files run in parallel and may all ask for the binary: one builds, the others wait and reuse it.
exec 9>"$out/.lock"
flock 9
if [ -x "$out/jaeger" ]; then echo "$out/jaeger"; exit 0; fi
start=$(date +%s)
(cd "$mod" && go mod download)
total=$(cd "$mod" && go list -deps "$pkg" | wc -l)
echo "building jaeger $ver ($total packages) into $out" >&2
# go build -v names each package as it compiles it; errors pass through, the rest becomes a progress count.
(cd "$mod" && go build -v -trimpath -ldflags "-s -w" -o "$out/jaeger.tmp" "$pkg") 2>&1 |
  awk -v t="$total" '
    /^go: |^#|: / { print > "/dev/stderr"; next }
    { c++; if (c % 100 == 0 || c == t) printf "[jaeger] %d/%d packages\n", c, t > "/dev/stderr" }'
[ "${PIPESTATUS[0]}" -eq 0 ] && [ -f "$out/jaeger.tmp" ] || { echo "building jaeger failed" >&2; exit 1; }
mv "$out/jaeger.tmp" "$out/jaeger"
echo "built jaeger $ver in $(( $(date +%s) - start ))s" >&2
echo "$out/jaeger"
