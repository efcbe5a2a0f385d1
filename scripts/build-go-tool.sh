#!/usr/bin/env bash
# build-go-tool.sh NAME MODULE PACKAGE: builds a test tool (Jaeger, grpcurl) from the Go module proxy, once per
# version. test/harness/NAME/go.mod pins MODULE; the binary goes to a cache outside the repository keyed by that
# version (${XDG_CACHE_HOME:-~/.cache}/syncworker/NAME/VERSION/NAME, or $SYNCWORKER_<NAME>_DIR), so a clean clone,
# CI and every test run share it; a second run finds it and returns at once. Prints the binary path last on stdout;
# progress (packages compiled out of the total) goes to stderr because a cold build can take minutes on 2 cores.
set -euo pipefail
name="$1" module="$2" pkg="$3"
root="$(cd "$(dirname "$0")/.." && pwd)"
mod="$root/test/harness/$name"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0

# The version comes from the wrapper module itself, so the cache key cannot drift from what is built.
ver="$(awk -v m="$module" '$1 == "require" { $1 = ""; $0 = $0 } $1 == m && $2 ~ /^v/ { print $2; exit }' "$mod/go.mod")"
[ -n "$ver" ] || { echo "cannot read the $module version from $mod/go.mod" >&2; exit 1; }
override="SYNCWORKER_$(echo "$name" | tr '[:lower:]-' '[:upper:]_')_DIR"
out="${!override:-${XDG_CACHE_HOME:-$HOME/.cache}/syncworker/$name/$ver}"

if [ -x "$out/$name" ]; then echo "$out/$name"; exit 0; fi
command -v go >/dev/null || { echo "go is not on PATH: install Go >= 1.26 (see .ci/run)" >&2; exit 1; }
mkdir -p "$out"
# Test files run in parallel and may all ask for the binary: one builds, the others wait and reuse it.
exec 9>"$out/.lock"
flock 9
if [ -x "$out/$name" ]; then echo "$out/$name"; exit 0; fi
start=$(date +%s)
(cd "$mod" && go mod download)
total=$(cd "$mod" && go list -deps "$pkg" | wc -l)
echo "building $name $ver ($total packages) into $out" >&2
# go build -v names each package as it compiles it; errors pass through, the rest becomes a progress count.
(cd "$mod" && go build -v -trimpath -ldflags "-s -w" -o "$out/$name.tmp" "$pkg") 2>&1 |
  awk -v n="$name" -v t="$total" '
    /^go: |^#|: / { print > "/dev/stderr"; next }
    { c++; if (c % 100 == 0 || c == t) printf "[%s] %d/%d packages\n", n, c, t > "/dev/stderr" }'
[ "${PIPESTATUS[0]}" -eq 0 ] && [ -f "$out/$name.tmp" ] || { echo "building $name failed" >&2; exit 1; }
mv "$out/$name.tmp" "$out/$name"
echo "built $name $ver in $(( $(date +%s) - start ))s" >&2
echo "$out/$name"
