#!/usr/bin/env bash
# Multi-peer test on a virtual LAN made of Linux network namespaces: one
# namespace holds a bridge (the switch), one namespace per host holds a veth
# to it with an address in 10.231.0.0/24. Real `lanchat` processes run in
# the hosts with the DEFAULT discovery scope, and scripts/lantest (run as
# `python3 -m lantest` with scripts/ on the path) drives
# the scenarios and prints a table. Nothing is ever added to the machine's
# own namespace, so no packet can leave the machine.
#
#   scripts/lan-test.sh [--hosts N] [--quick] [--only A,B] [--overlay] [--keep-logs DIR]
#   scripts/lan-test.sh --cleanup      remove namespaces left by earlier runs
#   scripts/lan-test.sh --help
#
# Needs root and `ip netns`; without them it prints "skipped: ..." and exits
# 0 (so CI passes on machines that cannot run it). Exit status 1 when a
# scenario fails, 64 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

# Every namespace this script makes is named lct<run id>-<sw|hN>; the run id
# is 4 hex digits, fresh per run. Live runs keep their pid under STATE.
PREFIX=lct
STATE=/run/lanchat-lan-test

usage() {
    cat <<'EOF'
OVERVIEW: run lanchat nodes on a virtual LAN of network namespaces and
check discovery, fan-out, DM privacy, leave/crash, durability, partition,
packet loss, a stopped consumer, two private groups, clocks an hour apart,
a sender killed again and again, a full disk, a flooding peer, an
impostor taking a verified nickname after the observer restarts, a
flood of fresh identities, and files across a cut link and under loss.

USAGE: scripts/lan-test.sh [options]

OPTIONS:
  --hosts N         hosts on the virtual LAN (default 5; 3 with --quick; max 250)
  --quick           3 hosts, every scenario but file-loss, smaller bursts (what CI runs)
  --only LIST       comma-separated scenarios: discovery, fanout, dm-privacy,
                    leave-crash, durability, partition, loss, slow-consumer,
                    two-groups, clock-skew, killed-sender, disk-full, flood,
                    impostor, sybil, file-cut, file-loss (not with --quick: a
                    minute or more), and backlog (opt-in: 2500 missed messages to catch up)
                    (discovery always runs: it builds the mesh the others use)
  --overlay[=N]     force the overlay on (bounded links, gossip) at this small
                    size: every node gets LANCHAT_OVERLAY_THRESHOLD=N (default
                    2; a test-only switch), and "linked up" means every node
                    in the overlay with a non-empty view and the links
                    connected, not a full mesh; every other check is as strict
  --beacon-interval S
                    the nodes' beacon interval (default 1, so a silent peer
                    is dropped after 3 s); lanchat's own default is 2
  --keep-logs DIR   copy node logs, event logs and data directories to DIR
  --cleanup         remove namespaces and processes left by earlier runs
  -h, --help        show this help

Needs root, iproute2 (ip netns), nftables, sqlite3, python3 and a C compiler
(clock-skew builds a small LD_PRELOAD library that shifts wall clocks);
installs the missing ones with apt-get when it can. Prints "skipped: ..." and exits 0
when this machine cannot create network namespaces.
EOF
}

skip() { echo "lan-test.sh: skipped: $*"; exit 0; }
say() { echo "lan-test.sh: $*" >&2; }

ns_of_run() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${PREFIX}$1-(sw|h[0-9]+)\$" || true; }

# Kills what runs inside a namespace of ours (only lanchat processes this
# script started live there) and deletes it.
remove_ns() {
    local ns=$1 pid
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
}

# A run is live while the lan-test.sh that recorded its pid runs.
run_is_live() {
    local pid
    pid=$(cat "$STATE/$1.pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && grep -q lan-test "/proc/$pid/cmdline" 2>/dev/null
}

# The disk-full scenario mounts a small tmpfs under the work directory and
# unmounts it itself; this catches what an interrupted run left mounted.
unmount_under() {
    local mnt
    for mnt in $(awk -v dir="$1/" 'index($2, dir) == 1 {print $2}' /proc/self/mounts | sort -r); do
        umount -l "$mnt" 2>/dev/null || true
    done
}

cleanup_stale() {
    local ns run dir f removed=0 busy=0
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${PREFIX}[0-9a-f]{4}-(sw|h[0-9]+)\$" || true); do
        run=${ns#"$PREFIX"}; run=${run%%-*}
        if run_is_live "$run"; then busy=$((busy + 1)); continue; fi
        remove_ns "$ns"; removed=$((removed + 1))
    done
    for dir in /tmp/lanchat-lan-????.*; do
        [ -d "$dir" ] || continue
        run=${dir#/tmp/lanchat-lan-}; run=${run%%.*}
        run_is_live "$run" || { unmount_under "$dir"; rm -rf "$dir"; }
    done
    for f in "$STATE"/*.pid; do
        [ -e "$f" ] || continue
        run=$(basename "$f" .pid)
        run_is_live "$run" || rm -f "$f"
    done
    echo "lan-test.sh: removed $removed stale namespace(s)$([ $busy -gt 0 ] && echo ", left $busy of a live run" || true)"
}

HOSTS=""; QUICK=0; ONLY=""; KEEP=""; CLEANUP=0; BEACON=1; OVERLAY=0
while [ $# -gt 0 ]; do
    case $1 in
        --hosts) HOSTS=${2:?--hosts needs N}; shift 2 ;;
        --hosts=*) HOSTS=${1#*=}; shift ;;
        --quick) QUICK=1; shift ;;
        --only) ONLY=${2:?--only needs a list}; shift 2 ;;
        --only=*) ONLY=${1#*=}; shift ;;
        --overlay) OVERLAY=2; shift ;;
        --overlay=*) OVERLAY=${1#*=}; shift ;;
        --beacon-interval) BEACON=${2:?--beacon-interval needs S}; shift 2 ;;
        --beacon-interval=*) BEACON=${1#*=}; shift ;;
        --keep-logs) KEEP=${2:?--keep-logs needs DIR}; shift 2 ;;
        --keep-logs=*) KEEP=${1#*=}; shift ;;
        --cleanup) CLEANUP=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "lan-test.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done
if ! [[ $BEACON =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
    echo "lan-test.sh: --beacon-interval wants seconds, such as 1 or 0.5" >&2; exit 64
fi
if ! [[ $OVERLAY =~ ^[0-9]+$ ]] || [ "$OVERLAY" = 1 ]; then
    echo "lan-test.sh: --overlay=N wants a threshold of 2 or more" >&2; exit 64
fi
if [ -n "$HOSTS" ] && ! [[ $HOSTS =~ ^[0-9]+$ && $HOSTS -ge 3 && $HOSTS -le 250 ]]; then
    echo "lan-test.sh: --hosts wants a number from 3 to 250" >&2; exit 64
fi

# ---- can this machine do it? -------------------------------------------
[ "$(id -u)" = 0 ] || skip "needs root to create network namespaces (run with sudo)"
missing=()
command -v ip >/dev/null || missing+=(iproute2)
command -v nft >/dev/null || missing+=(nftables)
command -v sqlite3 >/dev/null || missing+=(sqlite3)
command -v python3 >/dev/null || missing+=(python3)
command -v cc >/dev/null || command -v gcc >/dev/null || command -v clang >/dev/null || missing+=(gcc)
if [ ${#missing[@]} -gt 0 ] && [ $CLEANUP = 0 ]; then
    if command -v apt-get >/dev/null; then
        say "installing ${missing[*]}"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/dev/null 2>&1 \
            || say "apt-get could not install ${missing[*]}"
    fi
fi
command -v ip >/dev/null || skip "iproute2 (ip) is not installed"
if [ $CLEANUP = 1 ]; then cleanup_stale; exit 0; fi
for tool in nft sqlite3 python3; do command -v $tool >/dev/null || skip "$tool is not installed and apt-get could not install it"; done
probe="${PREFIX}probe$$"
ip netns add "$probe" 2>/dev/null || skip "cannot create network namespaces here (ip netns add failed: a container without CAP_SYS_ADMIN?)"
ip netns del "$probe"

# ---- build ---------------------------------------------------------------
say "building lanchat (swift build)"
swift build --product lanchat >/dev/null || { swift build --product lanchat; exit 1; }
BIN="$(swift build --show-bin-path)/lanchat"
[ -x "$BIN" ] || { echo "lan-test.sh: $BIN was not built" >&2; exit 1; }

# ---- run -----------------------------------------------------------------
RUN=$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n')
while [ -n "$(ns_of_run "$RUN")" ] || [ -e "$STATE/$RUN.pid" ]; do RUN=$(od -An -N2 -tx1 /dev/urandom | tr -d ' \n'); done
WORK=$(mktemp -d "/tmp/lanchat-lan-$RUN.XXXXXX")
mkdir -p "$STATE"; echo $$ > "$STATE/$RUN.pid"

on_exit() {
    local status=$?
    trap - EXIT INT TERM
    for ns in $(ns_of_run "$RUN"); do remove_ns "$ns"; done
    unmount_under "$WORK"
    rm -f "$STATE/$RUN.pid"
    if [ -n "$KEEP" ]; then
        mkdir -p "$KEEP" && cp -a "$WORK/." "$KEEP/" && say "logs kept in $KEEP"
    fi
    rm -rf "$WORK"
    exit $status
}
trap on_exit EXIT

args=(--run-id "$RUN" --prefix "$PREFIX" --workdir "$WORK" --bin "$BIN")
[ $QUICK = 1 ] && args+=(--quick)
[ -n "$HOSTS" ] && args+=(--hosts "$HOSTS")
[ -n "$ONLY" ] && args+=(--only "$ONLY")
# Default discovery: a LANCHAT_BROADCAST from the caller would replace it
# (and a LANCHAT_OVERLAY_THRESHOLD would force the overlay: --overlay sets it).
# The driver runs in the background so a signal to this script is passed on
# at once (bash defers traps while a foreground child runs); the driver
# cleans up after itself, and on_exit removes whatever is left.
env -u LANCHAT_BROADCAST -u LANCHAT_OVERLAY_THRESHOLD PYTHONDONTWRITEBYTECODE=1 LAN_TEST_BEACON="$BEACON" LAN_TEST_OVERLAY_THRESHOLD="$OVERLAY" PYTHONPATH=scripts python3 -u -m lantest "${args[@]}" &
DRIVER=$!
trap 'kill -INT $DRIVER 2>/dev/null || true; wait $DRIVER || true; exit 130' INT
trap 'kill -TERM $DRIVER 2>/dev/null || true; wait $DRIVER || true; exit 143' TERM HUP
wait $DRIVER
