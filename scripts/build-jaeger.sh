#!/usr/bin/env bash
# Builds the Jaeger v2 all-in-one (module versions v1.x carry the v2 binary under cmd/jaeger) for the tracing tests
# and benchmark, once per version (see build-go-tool.sh). A cold build compiles the collector core and every storage
# backend: about 20 minutes on 2 cores.
exec "$(dirname "$0")/build-go-tool.sh" jaeger github.com/jaegertracing/jaeger github.com/jaegertracing/jaeger/cmd/jaeger
