#!/bin/sh
# The one test command (npm test): set-up, static checks, then every unit and integration test.
# Integration tests start the servers they need themselves.
set -eu
cd "$(dirname "$0")/.."
started=$(date +%s)
# Everything the tests need (Debian packages, Go, the clients' tools, the Go-built servers), installed or built
# when missing and cached outside the repository, so a fresh clone needs only `npm ci` first (scripts/setup.sh).
gobin=$(scripts/setup.sh)
[ -z "$gobin" ] || PATH="$gobin:$PATH"
npm run --silent check
echo "testing after $(( $(date +%s) - started ))s of set-up and checks" >&2
# node --test on Node 20 does not expand globs, so the shell lists the files. The clients' suites are here too:
# clients/ts directly, Go and Python through test/clients/*.test.ts (each starts its own server).
files=$(find test clients/ts/test -name '*.test.ts' | sort)
# --test-force-exit: a test file whose tests are done exits even if a failed test left a timer or a child's pipe
# open (the harness kills its children on exit), so a failure is reported as one instead of hanging the run.
exec node --import tsx --test --test-concurrency=2 --test-force-exit $files
