"""Constants and helpers every part of the harness shares."""

import os
import subprocess
import time

SUBNET = "10.231.0"          # exists only inside the namespaces we create
# The kernel keeps ONE neighbour (ARP) table for all namespaces, 1024 entries
# by default (net.ipv4.neigh.default.gc_thresh3, settable only from the
# machine's own namespace). A flat LAN of N hosts in full mesh needs about
# N*(N-1) entries: at 50 hosts the table overflows and the kernel drops
# packets. So hosts send unicast through a router in the switch namespace
# (one entry per host there, one per host for the router), while broadcast
# still floods the bridge as on a real LAN. Source addresses are kept (no
# NAT), so nodes see each other's real addresses.
ROUTER = f"{SUBNET}.254"
BEACON = float(os.environ.get("LAN_TEST_BEACON", "1"))   # --beacon-interval of every node
DEAD = max(1.0, 3 * BEACON)  # the nodes' dead-peer timeout
# --overlay: every node gets LANCHAT_OVERLAY_THRESHOLD (test only), so the
# overlay's bounded views and gossip run at a handful of hosts; 0 = off.
OVERLAY = int(os.environ.get("LAN_TEST_OVERLAY_THRESHOLD", "0") or 0)
# A cable pulled on a quiet overlay link shows after 6 dead-peer timeouts,
# not 1 (quiet links, PROTOCOL.md 5.1: the overlay repairs around it
# meanwhile); a crash or a quit still shows at once.
SILENT_CUT = 6 * DEAD if OVERLAY else DEAD
LOSS_ONE_IN = 5              # loss scenario: drop one packet in 5 (20%) each way in
DIRECT_TYPES = ("dmRequest", "directMessage", "dmAccept", "dmDecline", "ack")
ALL_SCENARIOS = ["discovery", "fanout", "dm-privacy", "leave-crash", "durability",
                 "partition", "loss", "slow-consumer",
                 "two-groups", "clock-skew", "killed-sender", "disk-full", "flood", "impostor", "sybil",
                 "file-cut", "file-loss"]
# With 3 hosts and smaller bursts they take ~25 s; file-loss moves 20 MiB
# at the ~0.3 MB/s TCP keeps under 20% loss: a minute or more, full runs only.
QUICK_SCENARIOS = [s for s in ALL_SCENARIOS if s != "file-loss"]
EXTRA_SCENARIOS = ["backlog"]       # only with --only: known to fail (see the scenario)


class Failure(Exception):
    """A scenario's pass criterion did not hold; the message says how."""


def sh(*args, check=True):
    """Runs a command (argv), returns stdout; raises on failure when check."""
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout


def wait_until(what, timeout, fn, interval=0.02):
    """Polls fn() until it returns something truthy; Failure after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failure(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def norm(message_id):
    """Event ids are UUID strings, the store keeps 16 bytes: compare as hex."""
    return message_id.replace("-", "").lower()


def neighbour_table():
    """(entries, table_fulls) of the kernel's shared IPv4 neighbour table."""
    try:
        lines = open("/proc/net/stat/arp_cache").read().split("\n")
    except OSError:
        return None
    head = lines[0].split()
    rows = [dict(zip(head, (int(v, 16) for v in line.split()))) for line in lines[1:] if line.strip()]
    return rows[0]["entries"], sum(r["table_fulls"] for r in rows)


LOG_FILES = []                # the harness log is also written here (--keep-logs)


def log(text):
    line = f"[{time.strftime('%H:%M:%S')}] {text}"
    print(line, flush=True)
    for f in LOG_FILES:
        f.write(line + "\n")
        f.flush()


def load_average():
    """The 1-minute load average and the CPU count, as text."""
    try:
        return f"load {open('/proc/loadavg').read().split()[0]} on {os.cpu_count()} CPUs"
    except OSError:
        return "load unknown"


def skew_clock_library(work):
    """Builds skewclock.c (beside this file) into WORK/skewclock.so once:
    an LD_PRELOAD library that shifts only the wall clock. Failure if no
    C compiler is there."""
    out = os.path.join(work, "skewclock.so")
    if os.path.exists(out):
        return out
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "skewclock.c")
    for compiler in ("cc", "gcc", "clang"):
        try:
            r = subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-Wall", "-o", out, source, "-ldl"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        except FileNotFoundError:
            continue
        if r.returncode == 0:
            return out
        raise Failure(f"{compiler} could not build skewclock.c: {r.stdout.strip()[:300]}")
    raise Failure("no C compiler (cc, gcc, clang) to build skewclock.c for the skewed clocks")
