#!/bin/sh
# Builds lanchat-bench in release mode, then runs it: every figure beside a
# baseline measured in the same run (see docs/BENCHMARKS.md).
#   scripts/bench.sh [--quick] [--json FILE] [--only ROW[,ROW...]]
# Needs a C compiler (cc) and the SQLite headers for the baselines. As root it
# builds a virtual LAN of network namespaces (lcb-*) for the discovery row and
# removes it afterwards; otherwise that row runs on loopback.
set -eu
cd "$(dirname "$0")/.."
SCRATCH=${LANCHAT_BENCH_SCRATCH:-.build-bench-release}
swift build -c release --scratch-path "$SCRATCH" --product lanchat-bench
exec "$SCRATCH/release/lanchat-bench" "$@"
