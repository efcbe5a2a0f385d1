#!/bin/sh
# The one test command (npm test): static checks, then every unit and integration test.
# Integration tests start the servers they need themselves.
set -eu
cd "$(dirname "$0")/.."
# The clients' code generators and Python venv (cached outside the repo; instant once installed), so that a fresh
# machine needs nothing but `npm ci` first. The control plane and Jaeger are built on first use by the tests.
scripts/setup-clients.sh
npm run --silent check
# node --test on Node 20 does not expand globs, so the shell lists the files. The clients' suites are here too:
# clients/ts directly, Go and Python through test/clients/*.test.ts (each starts its own server).
files=$(find test clients/ts/test -name '*.test.ts' | sort)
# --test-force-exit: a test file whose tests are done exits even if a failed test left a timer or a child's pipe
# open (the harness kills its children on exit), so a failure is reported as one instead of hanging the run.
exec node --import tsx --test --test-concurrency=2 --test-force-exit $files
