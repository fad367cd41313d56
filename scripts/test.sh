#!/usr/bin/env bash
# Runs the whole test suite. Installs the one system library it needs
# (libsqlite3-dev) when it is missing and we are root.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! pkg-config --exists sqlite3 2>/dev/null && [ ! -f /usr/include/sqlite3.h ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "test.sh: installing libsqlite3-dev" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsqlite3-dev libssl-dev pkg-config >/dev/null
    else
        echo "test.sh: SQLite headers missing; install libsqlite3-dev (Debian/Ubuntu) or sqlite (Homebrew)" >&2
        exit 1
    fi
fi
# Package.swift's dependencies must be exactly what each target imports.
python3 scripts/check-manifest.py --self-test
python3 scripts/check-manifest.py
# Tests on the wall clock sit in Integration/ and take .realTime (parallel-safe).
python3 scripts/check-test-layout.py
swift build --build-tests "$@"
# Parallel, as plain `swift test` runs it: tests on the wall clock with
# real sockets or processes take the .realTime trait (TestSupport's
# RealTimeGate) and run one at a time beside the pure tests.
swift test --skip-build "$@"
