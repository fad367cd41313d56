#!/usr/bin/env bash
# The docker-compose demo, run for real and checked (issue #16): builds the
# offline image from the host's release binary, starts docker-compose.yml
# (with scripts/docker/compose-test.yml so the people speak --json), checks mesh,
# public messages, the echo bot, a --peer-only node, health, clean stop,
# kept identities and history, then `down -v`.
#
# Isolation: the script starts its OWN dockerd inside a network namespace
# it creates (loopback only; no iptables, forwarding or masquerading), with
# every path in a temporary directory. The containers' bridges exist only
# in that namespace, so no beacon can leave it. The trap stops that daemon
# by its PID and removes the namespace and temp dirs, also on failure; a
# failed check prints the logs of every container first.
#
#   scripts/compose-test.sh      needs root (CI is); installs docker.io and
#                                docker-compose with apt when missing
#   COMPOSE_TEST_FORCE_FAIL=1    adds a check that cannot pass (tests the trap)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
say() { echo "compose-test $(date +%T): $*"; }

if [ "$(id -u)" != 0 ]; then
    why="needs root, to create a network namespace and run a private dockerd in it
    (and to apt-get install docker.io and docker-compose when missing); run it as root"
    # CI runs as root: a skip there would hide the test.
    if [ -n "${CI:-}" ]; then say "FAILED: $why"; exit 1; fi
    say "skipped: $why"
    exit 0
fi
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

# --- tools --------------------------------------------------------------
if ! command -v dockerd >/dev/null || ! command -v docker-compose >/dev/null || [ ! -x /usr/bin/docker ]; then
    say "installing docker.io and docker-compose (apt)"
    # Never let the package start a system dockerd in the machine's namespace.
    policy_added=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && policy_added=1
    fi
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io docker-compose iproute2 >/dev/null
    [ -n "$policy_added" ] && rm -f /usr/sbin/policy-rc.d
fi
# Debian's client matches Debian's daemon (another docker may sit in /usr/local/bin).
docker=/usr/bin/docker
export COMPOSE_TEST_DOCKER=$docker

say "building the release binary"
swift build -c release --product lanchat >/dev/null
binary="$(swift build -c release --show-bin-path)/lanchat"
started=$(date +%s.%N)

# --- private daemon -----------------------------------------------------
work=$(mktemp -d /tmp/lanchat-compose.XXXXXX)
netns="lanchat-compose-$$"
project="lanchatci$$"
daemon_pid=
status=1
export DOCKER_HOST="unix://$work/docker.sock" DOCKER_CONFIG="$work/cli" DOCKER_BUILDKIT=0
unset DOCKER_CONTEXT DOCKER_TLS_VERIFY DOCKER_CERT_PATH
files=(-f "$repo/docker-compose.yml" -f "$repo/scripts/docker/compose-test.yml")
compose() { docker-compose -p "$project" "${files[@]}" "$@"; }

cleanup() {
    set +e
    trap '' PIPE INT TERM   # a closed stdout or a second Ctrl-C must not cut the cleanup short
    if [ "$status" != 0 ] && [ -S "$work/docker.sock" ]; then
        say "FAILED; logs of every container follow"
        for id in $($docker ps -aq); do
            echo "----- $($docker inspect -f '{{.Name}} {{.State.Status}} exit={{.State.ExitCode}}' "$id") -----"
            $docker logs --timestamps "$id" 2>&1 | tail -n 200
        done
    fi
    if [ -S "$work/docker.sock" ]; then compose down -v --timeout 5 >/dev/null 2>&1; fi
    if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
        kill -TERM "$daemon_pid"
        for _ in $(seq 100); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$daemon_pid" 2>/dev/null && { say "dockerd $daemon_pid ignored SIGTERM; killing it"; kill -KILL "$daemon_pid"; }
        wait "$daemon_pid" 2>/dev/null
    fi
    # Mounts a killed daemon may leave behind (overlay, shm, netns files).
    grep -o " $work[^ ]*" /proc/mounts | sort -r | while read -r mount; do umount -l "$mount"; done
    ip netns delete "$netns" 2>/dev/null
    rm -rf "$work"
    [ "$status" != 0 ] && [ -s "$work.dockerd.log" ] && { say "dockerd log tail:"; tail -n 30 "$work.dockerd.log"; }
    rm -f "$work.dockerd.log"
    if [ "$status" = 0 ]; then say "cleaned up: daemon stopped, namespace and $work removed"; fi
}
trap 'status=$?; cleanup; exit $status' EXIT
trap 'exit 130' INT TERM

ip netns add "$netns"
ip -n "$netns" link set lo up
mkdir -p "$work/cli"
echo '{}' > "$work/daemon.json"
# nsenter (not `ip netns exec`, which remounts /sys and hides the cgroups)
# execs dockerd in place, so $! is the daemon's own PID.
nsenter --net="/run/netns/$netns" dockerd --config-file "$work/daemon.json" \
    --data-root "$work/root" --exec-root "$work/exec" --pidfile "$work/docker.pid" \
    -H "unix://$work/docker.sock" --iptables=false --ip-forward=false --ip-masq=false \
    --bridge=none >"$work.dockerd.log" 2>&1 &
daemon_pid=$!
deadline=$(( $(date +%s) + 30 ))
until $docker version >/dev/null 2>&1; do
    kill -0 "$daemon_pid" 2>/dev/null || { say "dockerd exited"; exit 1; }
    [ "$(date +%s)" -lt "$deadline" ] || { say "dockerd not ready within 30 s"; exit 1; }
    sleep 0.1
done
say "dockerd $daemon_pid ready in namespace $netns ($($docker version -f '{{.Server.Version}}'))"

# --- image, up, checks --------------------------------------------------
scripts/docker/stage-offline.sh "$binary" "$work/stage"
$docker build -q -t lanchat:local "$work/stage" >/dev/null
say "image lanchat:local built offline ($(du -sh "$work/stage/rootfs" | cut -f1) staged)"
compose up -d --no-build 2>&1 | sed 's/^/  /'
PYTHONDONTWRITEBYTECODE=1 python3 -m scripts.composetest.checks "$project" "$work/docker.sock" "$repo/docker-compose.yml" "$repo/scripts/docker/compose-test.yml"

compose down -v --timeout 5 2>&1 | sed 's/^/  /'
# The file as people use it (no override): a line typed at alice's
# terminal (attach, tty) shows on bob's.
files=(-f "$repo/docker-compose.yml")
compose up -d --no-build alice bob 2>&1 | sed 's/^/  /'
PYTHONDONTWRITEBYTECODE=1 python3 -m scripts.composetest.terminal "$project" "$work/docker.sock" "$repo/docker-compose.yml"
compose down -v --timeout 5 2>&1 | sed 's/^/  /'
left="$($docker ps -aq) $($docker volume ls -q) $($docker network ls -q --filter type=custom)"
if [ -n "${left// /}" ]; then say "FAILED: down -v left: $left"; exit 1; fi
say "down -v: no container, volume or custom network left"
took=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $started }")
if awk "BEGIN { exit !($took > 180) }"; then say "FAILED: took $took s, over the 3 minutes allowed"; exit 1; fi
say "passed in $took s (not counting the release build)"
