#!/usr/bin/env bash
# Builds grpcurl for the reflection test (test/integration/grpcurl.test.ts), once per version (see build-go-tool.sh).
exec "$(dirname "$0")/build-go-tool.sh" grpcurl github.com/fullstorydev/grpcurl github.com/fullstorydev/grpcurl/cmd/grpcurl
