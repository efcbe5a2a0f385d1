#!/bin/sh
# Fails when proto/ breaks compatibility (buf's FILE rules, buf.yaml) with the contract of an earlier commit:
# by default the previous commit, i.e. what main had before the change under test. Offline: buf reads .git.
set -eu
cd "$(dirname "$0")/.."
against="${1:-HEAD~1}"
if ! git rev-parse --verify -q "$against^{commit}" >/dev/null; then
  # A shallow CI clone lacks the parent; deepen it once rather than skip the check.
  git fetch -q --deepen=1 2>/dev/null || true
fi
if ! git rev-parse --verify -q "$against^{commit}" >/dev/null; then
  echo "check-breaking: $against is not available (first commit or detached shallow clone); nothing to compare" >&2
  exit 0
fi
npx buf breaking --against ".git#ref=$against"
echo "proto/ is compatible with $against"
