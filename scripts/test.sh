#!/bin/sh
# The one test command (npm test): static checks, then every unit and integration test.
# Integration tests start the servers they need themselves.
set -eu
cd "$(dirname "$0")/.."
npm run --silent check
# node --test on Node 20 does not expand globs, so the shell lists the files.
files=$(find test -name '*.test.ts' | sort)
exec node --import tsx --test --test-concurrency=2 $files
