#!/bin/sh
# The one test command (npm test): static checks, then every unit and integration test.
# Integration tests start the servers they need themselves.
set -eu
cd "$(dirname "$0")/.."
npm run --silent check
# node --test on Node 20 does not expand globs, so the shell lists the files. The clients' suites are here too:
# clients/ts directly, Go and Python through test/clients/*.test.ts (each starts its own server).
files=$(find test clients/ts/test -name '*.test.ts' | sort)
exec node --import tsx --test --test-concurrency=2 $files
