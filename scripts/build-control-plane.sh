#!/usr/bin/env bash
# Builds kube-apiserver, etcd and kubectl from the Go module proxy for the test harness, once per version
# (kubectl renders deploy/ with its built-in kustomize and is the bench's contender; no Debian package is recent enough).
# The binaries go to a cache outside the repository, keyed by version, so a clean clone, CI and every
# test run share them; a second run finds them and returns at once. Prints the binary folder last on stdout.
# Progress (packages compiled out of the total) goes to stderr because a cold build takes minutes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mods="$root/test/harness/kube"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0

# The versions come from the wrapper modules themselves, so the cache key cannot drift from what is built.
modver() { awk -v m="$2" '$1 == "require" { $1 = ""; $0 = $0 } $1 == m && $2 ~ /^v/ { print $2; exit }' "$1/go.mod"; }
k8s="$(modver "$mods/apiserver" k8s.io/kubernetes)"
etcd="$(modver "$mods/etcd" go.etcd.io/etcd/server/v3)"
[ -n "$k8s" ] && [ -n "$etcd" ] || { echo "cannot read versions from $mods/*/go.mod" >&2; exit 1; }
out="${SYNCWORKER_CONTROL_PLANE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/syncworker/control-plane/$k8s-etcd$etcd}"

if [ -x "$out/kube-apiserver" ] && [ -x "$out/etcd" ] && [ -x "$out/kubectl" ]; then echo "$out"; exit 0; fi
command -v go >/dev/null || { echo "go is not on PATH: install Go >= 1.26 (see .ci/run)" >&2; exit 1; }
mkdir -p "$out"

# build NAME MODULE_DIR PACKAGE [LDFLAGS]: go build -v names each package as it compiles it.
build() {
  local name="$1" dir="$2" pkg="$3" ldflags="${4:-}" total start
  [ -x "$out/$name" ] && return 0
  start=$(date +%s)
  (cd "$dir" && go mod download)
  total=$(cd "$dir" && go list -deps "$pkg" | wc -l)
  echo "building $name ($total packages) into $out" >&2
  (cd "$dir" && go build -v -trimpath -ldflags "-s -w $ldflags" -o "$out/$name.tmp" "$pkg") 2>&1 |
    awk -v n="$name" -v t="$total" '
      /^go: |^#|: / { print > "/dev/stderr"; next }
      { c++; if (c % 100 == 0 || c == t) printf "[%s] %d/%d packages\n", n, c, t > "/dev/stderr" }'
  [ "${PIPESTATUS[0]}" -eq 0 ] && [ -f "$out/$name.tmp" ] || { echo "building $name failed" >&2; exit 1; }
  mv "$out/$name.tmp" "$out/$name"
  echo "built $name in $(( $(date +%s) - start ))s" >&2
}

minor="${k8s#v1.}"; minor="${minor%%.*}"
vpkg=k8s.io/component-base/version
build etcd "$mods/etcd" . 
versions="-X $vpkg.gitVersion=$k8s -X $vpkg.gitMajor=1 -X $vpkg.gitMinor=$minor -X $vpkg.gitTreeState=clean \
-X $vpkg.buildDate=2026-01-01T00:00:00Z -X k8s.io/client-go/pkg/version.gitVersion=$k8s"
build kube-apiserver "$mods/apiserver" . "$versions"
build kubectl "$mods/apiserver" k8s.io/kubernetes/cmd/kubectl "$versions"
echo "$out"
