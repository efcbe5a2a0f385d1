#!/usr/bin/env bash
# Installs or builds everything the tests need, one tier per need, before `npm test` runs them (scripts/test.sh
# calls this first; so does nothing else). Idempotent and cached: each tier checks for what it installs and returns
# at once when it is there, so a second run starts testing immediately.
#
# A tier that cannot be set up (not root, no apt-get, no network, a failed build) prints one line naming the tier
# and why, and the run fails unless the user opted out of that tier: SYNCWORKER_SKIP_TIERS=kube,jaeger,… (comma-
# separated, see README "Requirements"). The tests of an opted-out tier are reported as skipped
# (test/harness/tiers.ts reads the same variable).
#
# Tiers: tls (openssl), terminal (tmux, zsh), browser (chromium), metrics (promtool), registry (docker-registry, skopeo), signatures (gpg,
# gpg-agent), image (buildah, debootstrap), disk (root, to mount a small tmpfs), go (the Go toolchain), clients (code generators, Python venv, buf
# breaking), kube (kube-apiserver + etcd), jaeger, grpcurl. The last four need the go tier.
set -uo pipefail
cd "$(dirname "$0")/.."
tiers=(tls terminal browser metrics registry signatures image disk go clients kube jaeger grpcurl)
# Blanks are dropped, as test/harness/tiers.ts drops them; a misspelt tier would otherwise opt out of nothing.
skip=",$(printf %s "${SYNCWORKER_SKIP_TIERS:-}" | tr -d '[:space:]'),"
for t in ${skip//,/ }; do
  [[ " ${tiers[*]} " == *" $t "* ]] || { echo "setup: SYNCWORKER_SKIP_TIERS names no tier $t (tiers: ${tiers[*]})" >&2; exit 1; }
done
failed=()

skipped() { [[ "$skip" == *",$1,"* ]]; }
# fail TIER REASON: one line per tier that could not be set up.
fail() {
  echo "setup: tier $1 not set up: $2" >&2
  failed+=("$1")
}

# apt_tier TIER COMMAND… -- PACKAGE…: installs the Debian packages when one of the commands is missing.
apt_updated=""
apt_tier() {
  local tier="$1" cmds=() pkgs=() missing=()
  shift
  while [ "$1" != "--" ]; do cmds+=("$1"); shift; done
  shift
  pkgs=("$@")
  skipped "$tier" && return 0
  for c in "${cmds[@]}"; do command -v "$c" >/dev/null || missing+=("$c"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then fail "$tier" "${missing[*]} missing and not root (apt-get install ${pkgs[*]})"; return 0; fi
  if ! command -v apt-get >/dev/null; then fail "$tier" "${missing[*]} missing and no apt-get (install ${pkgs[*]})"; return 0; fi
  echo "setup: installing ${pkgs[*]} for tier $tier" >&2
  if [ -z "$apt_updated" ]; then apt-get update -qq >/dev/null 2>&1 && apt_updated=1; fi
  local log
  if ! log=$(DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" 2>&1); then
    fail "$tier" "apt-get install ${pkgs[*]} failed: $(echo "$log" | tail -1)"
    return 0
  fi
  for c in "${cmds[@]}"; do command -v "$c" >/dev/null || fail "$tier" "$c still missing after apt-get install ${pkgs[*]}"; done
}

started=$(date +%s%N)
# The TLS tests' certificates (test/harness/tls-pki.sh).
apt_tier tls openssl -- openssl
# syncworker watch's live area and the shell completions are checked in a real terminal, bash's and zsh's
# (test/integration/cli-watch-tty.test.ts, cli-completion.test.ts).
apt_tier terminal tmux zsh -- tmux zsh
# The live update page is tested in a real headless browser, Debian's chromium driven by puppeteer-core.
apt_tier browser chromium -- chromium
# promtool (Debian's prometheus package) checks the /metrics exposition and the PrometheusRule's alerts.
apt_tier metrics promtool -- prometheus
# The release-image tests pull from a real OCI registry (the CNCF distribution registry) and push with skopeo.
apt_tier registry docker-registry skopeo -- docker-registry skopeo
# The signature tests sign and verify with gpg and skopeo's standalone-sign/-verify (gpg-agent holds the key).
apt_tier signatures gpg gpg-agent -- gpg gpg-agent
# The image test builds its own base with debootstrap and the image with buildah.
apt_tier image buildah debootstrap -- buildah debootstrap
# The full-disk tests mount a 2 MiB tmpfs as the state directory (test/integration/state-disk.test.ts).
skipped disk || [ "$(id -u)" = 0 ] || fail disk "mounting a small tmpfs to fill needs root"

# Go >= 1.26 builds the clients' generators and the Go-built test servers. Debian's golang-go is older, so a
# missing or old Go is replaced by the official toolchain, which the Go module proxy serves as the module
# golang.org/toolchain, cached outside the repository.
GO_VERSION=1.26.8
go_ok() { go version 2>/dev/null | grep -qE 'go1\.(2[6-9]|[3-9][0-9])'; }
go_tier() {
  go_ok && return 0
  local goroot="${XDG_CACHE_HOME:-$HOME/.cache}/syncworker/go$GO_VERSION"
  export PATH="$goroot/bin:$PATH"
  go_ok && return 0
  local proxy="${GOPROXY:-https://proxy.golang.org}" arch tmp
  proxy="${proxy%%,*}"
  arch=$(uname -m); case "$arch" in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; esac
  command -v unzip >/dev/null || apt_tier go unzip -- unzip
  command -v unzip >/dev/null || return 1
  echo "setup: installing go$GO_VERSION from $proxy" >&2
  tmp=$(mktemp -d)
  if ! curl -fsSL "$proxy/golang.org/toolchain/@v/v0.0.1-go$GO_VERSION.linux-$arch.zip" -o "$tmp/go.zip"; then
    rm -rf "$tmp"; fail go "cannot download go$GO_VERSION from $proxy"; return 1
  fi
  unzip -q "$tmp/go.zip" -d "$tmp" && mkdir -p "$(dirname "$goroot")" &&
    mv "$tmp/golang.org/toolchain@v0.0.1-go$GO_VERSION.linux-$arch" "$goroot"
  chmod +x "$goroot/bin/"* "$goroot/pkg/tool/"*/* 2>/dev/null
  rm -rf "$tmp"
  go_ok || { fail go "go$GO_VERSION did not install into $goroot"; return 1; }
}
have_go=""
if ! skipped go && go_tier; then have_go=1; fi
[ -n "$have_go" ] || skipped go || [[ " ${failed[*]} " == *" go "* ]] || fail go "no Go >= 1.26"

# go_step TIER COMMAND…: a tier built with Go; its output is shown only when it fails.
go_step() {
  local tier="$1" log
  shift
  skipped "$tier" && return 0
  if [ -z "$have_go" ]; then fail "$tier" "needs the go tier"; return 0; fi
  log=$("$@" 2>&1) || fail "$tier" "$* failed: $(echo "$log" | tail -1)"
}
# The clients' code generators and Python venv (buf generate, the Go and Python suites), then buf breaking
# against the previous commit, remembered by what it compared (buf takes seconds even when nothing changed).
clients() {
  scripts/setup-clients.sh || return 1
  local key stamp
  key=$( { git rev-parse -q --verify 'HEAD~1:proto' || true; cat buf.yaml; find proto -type f | sort | xargs cat; } | sha256sum | cut -c1-16)
  stamp="${XDG_CACHE_HOME:-$HOME/.cache}/syncworker/breaking/$key"
  [ -e "$stamp" ] && return 0
  scripts/check-breaking.sh && mkdir -p "$(dirname "$stamp")" && touch "$stamp"
}
go_step clients clients
# The real kube-apiserver and etcd, Jaeger and grpcurl, each built from its Go module once per version.
go_step kube scripts/build-control-plane.sh
go_step jaeger scripts/build-jaeger.sh
go_step grpcurl scripts/build-grpcurl.sh

ms=$(( ($(date +%s%N) - started) / 1000000 ))
if [ ${#failed[@]} -gt 0 ]; then
  echo "setup: failed tiers: ${failed[*]}; fix them or opt out with SYNCWORKER_SKIP_TIERS=$(IFS=,; echo "${failed[*]}")" >&2
  exit 1
fi
echo "setup: ready in $(( ms / 1000 )).$(printf %03d $(( ms % 1000 )))s${SYNCWORKER_SKIP_TIERS:+ (skipped tiers: $SYNCWORKER_SKIP_TIERS)}" >&2
# Everything else went to stderr: stdout is the folder of the Go this chose, which the tests need on PATH too
# (the clients' suites run `go test`).
[ -z "$have_go" ] || dirname "$(command -v go)"
