#!/usr/bin/env bash
# End-to-end test of the full-screen client: two nodes on loopback, each in
# a tmux pane, driven with send-keys and read with capture-pane. Every check
# polls the screen until the text appears or a deadline passes; nothing
# sleeps in place of an assertion.
#
#   scripts/tui-test.sh            (builds first; LANCHAT_BIN=path skips that)
#
# Checks: a typed message appears on both screens; a room with unread
# messages opens at the unread line; resizing keeps the layout; Ctrl-C quits
# with status 0.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v tmux >/dev/null; then echo "tui-test: tmux not installed; skipped" >&2; exit 0; fi
if [ -z "${LANCHAT_BIN:-}" ]; then
    swift build --product lanchat >/dev/null
    LANCHAT_BIN="$(swift build --show-bin-path)/lanchat"
fi
SOCKET="lanchat-tui-$$"
PORT=$((20000 + RANDOM % 10000))
LOGS="$(mktemp -d)"
T() { tmux -L "$SOCKET" "$@"; }
cleanup() {
    T kill-server 2>/dev/null || true  # ends both clients with their panes
    rm -rf "$LOGS"
}
trap cleanup EXIT INT TERM

fail() {
    echo "tui-test: FAIL: $*" >&2
    for pane in alice bob; do
        echo "---- $pane's screen ----" >&2
        T capture-pane -p -t "$pane" >&2 || true
        echo "---- $pane's stderr ----" >&2
        tail -5 "$LOGS/$pane.err" >&2 || true
    done
    exit 1
}

screen() { T capture-pane -p -t "$1"; }

# wait_for PANE SECONDS PATTERN: poll the screen until grep -E finds PATTERN.
wait_for() {
    local pane=$1 seconds=$2 pattern=$3
    local deadline=$((SECONDS + seconds))
    while [ $SECONDS -lt $deadline ]; do
        screen "$pane" | grep -qE -- "$pattern" && return 0
        sleep 0.1
    done
    fail "$pane: no /$pattern/ within ${seconds}s"
}

start() {
    local name=$1
    T new-session -d -s "$name" -x 100 -y 30 \
        "TERM=xterm-256color LANG=C.UTF-8 '$LANCHAT_BIN' --nick $name --in-memory -b 127.255.255.255 \
         --discovery-port $PORT --beacon-interval 0.5 2>'$LOGS/$name.err'; echo \$? >'$LOGS/$name.rc'"
    T set-option -t "$name" remain-on-exit on >/dev/null
}

start alice
start bob
wait_for alice 20 "1 linked"
wait_for bob 20 "1 linked"
echo "tui-test: two clients linked (discovery port $PORT)"

# 1. A typed message appears on both screens, wide characters intact.
T send-keys -t alice "hello from alice 안녕 😀" Enter
wait_for alice 10 "alice: hello from alice 안녕 😀"
wait_for bob 10 "alice: hello from alice 안녕 😀"
echo "tui-test: typed message shown on both screens"

# 2. Alice looks at bob's conversation while bob writes 40 public messages;
#    the public room's badge counts them, and opening it shows the unread line.
T send-keys -t alice Tab
wait_for alice 10 "^ Chats.*│ @bob"
for i in $(seq -w 1 40); do T send-keys -t bob "msg $i" Enter; done
wait_for bob 20 "bob: msg 40"
wait_for alice 20 "# public +40 "
T send-keys -t alice Tab
wait_for alice 10 "^ Chats.*│ #public"
wait_for alice 10 "── unread ──"
after_line=$(screen alice | grep -A1 -- "── unread ──" | tail -1)
echo "$after_line" | grep -q "bob: msg 01" || fail "the unread line is not right above msg 01: '$after_line'"
screen alice | grep -q "bob: msg 40" && fail "opened at the bottom, not at the unread line"
echo "tui-test: unread room opened at the unread line"

# 3. Resize keeps the layout: list header on top, status and input at the
#    bottom, the unread line still in view.
check_layout() {
    local rows=$1 text
    text=$(screen alice)
    [ "$(echo "$text" | wc -l)" -eq "$rows" ] || fail "expected $rows rows after resize"
    echo "$text" | head -1 | grep -q "│ #public" || fail "header row lost after resize to $rows rows"
    echo "$text" | tail -2 | head -1 | grep -q "alice#" || fail "status line lost after resize to $rows rows"
    echo "$text" | tail -1 | grep -q "^\[#public\]" || fail "input line lost after resize to $rows rows"
}
T resize-window -t alice -x 140 -y 40
wait_for alice 10 "^\[#public\] {120,}[0-9]+/240$"
check_layout 40
wait_for alice 5 "── unread ──"
T resize-window -t alice -x 80 -y 20
wait_for alice 10 "^\[#public\] {60,70}[0-9]+/240$"
check_layout 20
wait_for alice 5 "── unread ──"
echo "tui-test: layout kept across resizes"

# 4. Scrolling down reaches the newest message and clears the badge.
for _ in 1 2 3 4 5; do T send-keys -t alice NPage; done
wait_for alice 10 "bob: msg 40"
wait_for alice 10 "# public *│"
echo "tui-test: paged to the newest message; badge cleared"

# 5. Ctrl-C quits cleanly.
T send-keys -t alice C-c
deadline=$((SECONDS + 15))
until [ -s "$LOGS/alice.rc" ]; do
    [ $SECONDS -lt $deadline ] || fail "alice did not quit on Ctrl-C"
    sleep 0.1
done
status=$(cat "$LOGS/alice.rc")
[ "$status" = 0 ] || fail "alice exited with status $status"
echo "tui-test: Ctrl-C quit with status 0"
echo "tui-test: passed"
