#!/usr/bin/env python3
"""Keeps `swift test` passing in parallel (run by scripts/test.sh).

Tests on real sockets, threads, child processes or the wall clock live in
an `Integration/` folder of their target, and each top-level suite there
takes `.realTime` (TestSupport's RealTimeGate: one such test at a time).
Tests elsewhere are pure: they must not start real nodes or processes,
nor sleep. A `.realTime` on a nested suite would wait on itself, so only
top-level suites (no indentation) may carry it.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "Tests"
REAL = re.compile(r"TestNode\.started\(|NodeProcess\(|RawPeer\(connectingTo|RawListener\(|Task\.sleep\(|P2PService\(")
SUITE = re.compile(r"^(\s*)@Suite(\((.*)\))?")

problems = []
for path in sorted(ROOT.rglob("*.swift")):
    parts = path.relative_to(ROOT).parts
    if parts[0] == "TestSupport" or "Fixtures" in parts:
        continue
    text = path.read_text(encoding="utf-8")
    integration = "Integration" in parts
    for number, line in enumerate(text.splitlines(), 1):
        match = SUITE.match(line)
        if not match:
            continue
        nested = match.group(1) != ""
        real_time = ".realTime" in (match.group(3) or "")
        where = f"{path.relative_to(ROOT.parent)}:{number}"
        if nested and real_time:
            problems.append(f"{where}: .realTime on a nested suite waits on itself; put it on the top-level suite")
        if integration and not nested and not real_time:
            problems.append(f"{where}: a suite in Integration/ takes .realTime")
        if not integration and real_time:
            problems.append(f"{where}: a .realTime suite belongs in Integration/")
    if not integration and "@Test" in text and REAL.search(text):
        found = REAL.search(text).group(0)
        problems.append(f"{path.relative_to(ROOT.parent)}: uses {found} outside Integration/")

for problem in problems:
    print(f"check-test-layout: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
