"""Scenario driver for scripts/lan-test.sh (run that, not this: it checks
root, installs tools, builds lanchat, picks a run id and cleans up).

Builds a virtual LAN of network namespaces (one switch namespace with a
bridge, one namespace per host with a veth to it), starts real `lanchat`
processes in the hosts with the default discovery scope, runs the scenarios
and prints a table: scenario | result | figure. Every wait polls with a
deadline; no sleep is an assertion. Every namespace is removed on exit.

Each host runs one `lanchat --json` node (nickname nodeN, data directory in
the work directory). The last host also runs an echo bot; the fan-out
scenario adds a chatter bot on host 2 for the length of its burst. Beacons
go every BEACON seconds, so a silent peer is dropped after 3 x BEACON.
The parts live beside this file in scripts/lantest/; this is the package's
entry point: `PYTHONPATH=scripts python3 -m lantest ...` (or
`cd scripts && python3 -m lantest ...`).
"""

import argparse
import os
import signal
import sys
import time

from lantest.common import ALL_SCENARIOS, BEACON, DEAD, OVERLAY, EXTRA_SCENARIOS, LOG_FILES, QUICK_SCENARIOS, load_average, log, neighbour_table
from lantest.fault_scenarios import FaultScenarios
from lantest.file_scenarios import FileScenarios
from lantest.flood_scenario import FloodScenario
from lantest.sybil_scenario import SybilScenario
from lantest.group_scenarios import GroupScenarios
from lantest.key_scenarios import KeyScenarios
from lantest.recovery_scenarios import RecoveryScenarios
from lantest.resource_scenarios import ResourceScenarios
from lantest.harness import Harness
from lantest.mesh_scenarios import MeshScenarios


class Suite(MeshScenarios, FaultScenarios, GroupScenarios, KeyScenarios, RecoveryScenarios, ResourceScenarios, FloodScenario,
            SybilScenario, FileScenarios, Harness):
    """The harness with every scenario."""


def table(results):
    rows = [("scenario", "result", "figure")] + [
        (name, "PASS" if ok else "FAIL", figure if ok else detail) for name, ok, figure, detail in results]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    lines = [f"| {r[0]:<{w0}} | {r[1]:<{w1}} | {r[2]} |" for r in rows]
    lines.insert(1, f"|{'-' * (w0 + 2)}|{'-' * (w1 + 2)}|---|")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(prog="python3 -m lantest", description=__doc__.splitlines()[0])
    parser.add_argument("--run-id", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--hosts", type=int)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only")
    args = parser.parse_args()
    if args.hosts is None:
        args.hosts = 3 if args.quick else 5
    scenarios = QUICK_SCENARIOS if args.quick else ALL_SCENARIOS
    if args.only:
        wanted = [s.strip() for s in args.only.split(",") if s.strip()]
        known = ALL_SCENARIOS + EXTRA_SCENARIOS
        unknown = [s for s in wanted if s not in known]
        if unknown:
            print(f"lan-test.sh: unknown scenario {', '.join(unknown)}; known: {', '.join(known)}", file=sys.stderr)
            return 64
        scenarios = ["discovery"] + [s for s in known if s in wanted and s != "discovery"]

    def stop(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)

    os.makedirs(os.path.join(args.workdir, "logs"), exist_ok=True)
    LOG_FILES.append(open(os.path.join(args.workdir, "logs", "run.log"), "a"))
    harness = Suite(args)
    started = time.monotonic()
    load_before = load_average()
    neighbours_before = neighbour_table()
    interrupted = False
    try:
        harness.setup()
        harness.run(scenarios)
    except KeyboardInterrupt:
        interrupted = True
        log("interrupted: cleaning up")
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        harness.shutdown()
    overlay = f", overlay forced on (LANCHAT_OVERLAY_THRESHOLD={OVERLAY})" if OVERLAY else ""
    report = ["", f"lanchat on a virtual LAN: {args.hosts} hosts{overlay}, beacon {BEACON:g} s "
              f"(dead-peer timeout {DEAD:g} s), {time.monotonic() - started:.0f} s; "
              f"machine {load_before} before, {load_average()} after",
              table(harness.results)]
    neighbours_after = neighbour_table()
    if neighbours_before and neighbours_after and neighbours_after[1] > neighbours_before[1]:
        report.append(f"warning: the kernel's neighbour table (shared by every namespace on this machine, "
                      f"{neighbours_after[0]} entries now) overflowed {neighbours_after[1] - neighbours_before[1]} "
                      f"times during this run and dropped packets: is another namespace test running?")
    failed = [r for r in harness.results if not r[1]]
    status = 0
    if interrupted:
        status = 130
    elif failed or len(harness.results) < len(scenarios):
        report.append(f"{len(failed)} scenario(s) failed" + ("" if len(harness.results) == len(scenarios) else
                      f", {len(scenarios) - len(harness.results)} not run"))
        status = 1
    print("\n".join(report))
    for f in LOG_FILES:
        f.write("\n".join(report) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
