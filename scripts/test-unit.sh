#!/usr/bin/env bash
# Runs the unit suite alone: every test outside the Integration/ folders
# (pure tests on the manual clock; issue 28 asks for under 30 s), and
# prints the time it took.
#
#   scripts/test-unit.sh [swift test options]
set -euo pipefail
cd "$(dirname "$0")/.."
# Integration suites are top-level `@Suite(.realTime)` types in Integration/
# folders (scripts/check-test-layout.py holds them to that); skip them by name.
SKIP="$(python3 - <<'PY'
import pathlib, re
names = set()
for path in pathlib.Path("Tests").rglob("*.swift"):
    if "Integration" in path.parts:
        names.update(re.findall(r"^@Suite\([^\n]*\)\s*(?:final\s+)?(?:struct|class|enum)\s+(\w+)", path.read_text(encoding="utf-8"), re.M))
print(r"\.(" + "|".join(sorted(names)) + r")(/|$)")
PY
)"
swift build --build-tests "$@"
started=$(date +%s.%N)
swift test --skip-build --skip "$SKIP" "$@"
echo "unit suite: $(python3 -c "print(f'{$(date +%s.%N) - $started:.1f}')") s (load: $(cut -d' ' -f1-3 /proc/loadavg))"
