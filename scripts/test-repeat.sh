#!/usr/bin/env bash
# Runs plain `swift test` (parallel) several times in a row, optionally with
# busy loops holding the cores, and reports each run: the check that the
# suite passes every time, not once on a quiet machine.
#
#   scripts/test-repeat.sh [RUNS] [BUSY_LOOPS]     (defaults: 10 runs, 0 loops)
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-10}"
BUSY="${2:-0}"
swift build --build-tests >/dev/null || exit 1
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done; }
trap cleanup EXIT INT TERM
for _ in $(seq 1 "$BUSY"); do
    (while :; do :; done) &
    pids+=("$!")
done
failed=0
LOG="$(mktemp)"
for run in $(seq 1 "$RUNS"); do
    started=$(date +%s)
    if swift test --skip-build >"$LOG" 2>&1; then
        echo "run $run: passed in $(( $(date +%s) - started )) s (busy loops: $BUSY)"
    else
        failed=$((failed + 1))
        echo "run $run: FAILED in $(( $(date +%s) - started )) s (busy loops: $BUSY)"
        grep -E '^✘ Test .*recorded an issue' "$LOG" | head -20
    fi
done
rm -f "$LOG"
echo "$((RUNS - failed)) of $RUNS runs passed"
[ "$failed" = 0 ]
