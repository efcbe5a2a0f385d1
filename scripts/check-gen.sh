#!/bin/sh
# Fails when src/gen differs from what buf generates from proto/ (stale or hand-edited code).
set -eu
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
npx buf generate -o "$out"
if ! diff -r "$out/src/gen" src/gen >/dev/null; then
  diff -r "$out/src/gen" src/gen | head -20 >&2
  echo "src/gen is stale: run 'npm run gen' and commit the result" >&2
  exit 1
fi
