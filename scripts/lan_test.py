#!/usr/bin/env python3
"""Scenario driver for scripts/lan-test.sh (run that, not this).

Builds a virtual LAN of network namespaces (one switch namespace with a
bridge, one namespace per host with a veth to it), starts real `lanchat`
processes in the hosts with the default discovery scope, runs the scenarios
and prints a table: scenario | result | figure. Every wait polls with a
deadline; no sleep is an assertion. Every namespace is removed on exit.

Each host runs one `lanchat --json` node (nickname nodeN, data directory in
the work directory). The last host also runs an echo bot; the fan-out
scenario adds a chatter bot on host 2 for the length of its burst. Beacons
every BEACON seconds, so a silent peer is dropped after 3 x BEACON.
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid

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
BEACON = 1.0                 # --beacon-interval; dead-peer timeout = 3 x this
DEAD = max(1.0, 3 * BEACON)
LOSS_ONE_IN = 5              # loss scenario: drop one packet in 5 (20%) each way in
DIRECT_TYPES = ("dmRequest", "directMessage", "dmAccept", "dmDecline", "ack")
ALL_SCENARIOS = ["discovery", "fanout", "dm-privacy", "leave-crash", "durability",
                 "partition", "loss", "slow-consumer"]
QUICK_SCENARIOS = ["discovery", "fanout", "dm-privacy", "leave-crash", "durability", "partition"]


class Failure(Exception):
    """A scenario's pass criterion did not hold; the message says how."""


def sh(*args, check=True, quiet=False):
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


# --------------------------------------------------------------------------
# The virtual LAN


class Lan:
    """Namespaces <prefix><run>-sw (bridge br0) and <prefix><run>-h1..hN."""

    def __init__(self, prefix, run_id, hosts):
        self.base = f"{prefix}{run_id}"
        self.switch = f"{self.base}-sw"
        self.hosts = hosts

    def host(self, i):
        return f"{self.base}-h{i}"

    def address(self, i):
        return f"{SUBNET}.{i}"

    def create(self):
        before = sh("ip", "-o", "link", "show")
        sh("ip", "netns", "add", self.switch)
        sh("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", self.switch, "link", "set", "br0", "up")
        # The switch also routes unicast between the hosts (see ROUTER).
        sh("ip", "-n", self.switch, "addr", "add", f"{ROUTER}/24", "brd", "+", "dev", "br0")
        self.sysctl(self.switch, "net.ipv4.ip_forward=1", "net.ipv4.conf.all.send_redirects=0",
                    "net.ipv4.conf.default.send_redirects=0", "net.ipv4.conf.br0.send_redirects=0")
        for i in range(1, self.hosts + 1):
            ns = self.host(i)
            sh("ip", "netns", "add", ns)
            # Both ends are created straight inside their namespaces: nothing
            # appears in the machine's own namespace, not even for a moment.
            sh("ip", "link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", f"p{i}", "netns", self.switch)
            sh("ip", "-n", self.switch, "link", "set", f"p{i}", "master", "br0", "up")
            sh("ip", "-n", ns, "addr", "add", f"{self.address(i)}/24", "brd", "+", "dev", "eth0")
            sh("ip", "-n", ns, "link", "set", "eth0", "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            # Unicast to the other hosts goes through the switch's router, so
            # a host needs one neighbour entry, not one per peer (see ROUTER);
            # broadcast (10.231.0.255) still floods the bridge. The default
            # route also ends at the router, which has nowhere else to send.
            for half in ("0/25", "128/25"):
                sh("ip", "-n", ns, "route", "add", f"{SUBNET}.{half}", "via", ROUTER, "dev", "eth0")
            sh("ip", "-n", ns, "route", "add", "default", "via", ROUTER, "dev", "eth0")
            self.sysctl(ns, "net.ipv4.conf.all.accept_redirects=0", "net.ipv4.conf.eth0.accept_redirects=0")
        after = sh("ip", "-o", "link", "show")
        if len(before.splitlines()) != len(after.splitlines()):
            raise RuntimeError("the machine's own namespace gained a link; refusing to go on")

    @staticmethod
    def sysctl(ns, *settings):
        sh("ip", "netns", "exec", ns, "sysctl", "-q", "-w", *settings)

    def cut(self, i):
        sh("ip", "-n", self.switch, "link", "set", f"p{i}", "down")

    def heal(self, i):
        sh("ip", "-n", self.switch, "link", "set", f"p{i}", "up")

    def add_loss(self, i, one_in):
        """Drops one in `one_in` TCP and UDP packets arriving on the host's eth0."""
        rules = (f"table inet lanloss {{\n  chain input {{\n"
                 f"    type filter hook input priority 0; policy accept;\n"
                 f"    iifname \"eth0\" meta l4proto tcp numgen random mod {one_in} 0 counter drop\n"
                 f"    iifname \"eth0\" meta l4proto udp numgen random mod {one_in} 0 counter drop\n"
                 f"  }}\n}}\n")
        subprocess.run(["ip", "netns", "exec", self.host(i), "nft", "-f", "-"], input=rules, text=True, check=True)

    def loss_drops(self, i):
        out = sh("ip", "netns", "exec", self.host(i), "nft", "list", "table", "inet", "lanloss", check=False)
        return sum(int(n) for n in re.findall(r"packets (\d+)", out))

    def remove_loss(self, i):
        sh("ip", "netns", "exec", self.host(i), "nft", "delete", "table", "inet", "lanloss", check=False)

    def destroy(self):
        names = [self.host(i) for i in range(1, self.hosts + 1)] + [self.switch]
        existing = set(sh("ip", "netns", "list", check=False).split())
        for ns in names:
            if ns not in existing:
                continue
            for pid in sh("ip", "netns", "pids", ns, check=False).split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            sh("ip", "netns", "del", ns, check=False)


# --------------------------------------------------------------------------
# Processes


class Proc:
    """One running lanchat process and what it said (for --json nodes)."""

    def __init__(self, node, argv, log_dir, generation):
        self.node = node
        tag = f"{node.name}.{generation}"
        self.err = open(os.path.join(log_dir, f"{tag}.stderr"), "w")
        self.log = open(os.path.join(log_dir, f"{tag}.events"), "w")
        self.cond = threading.Condition()
        self.events = []          # (monotonic time, event object)
        self.replies = {}         # request id -> reply
        self.present = {}         # peer number -> peer object, by join/leave events
        self.joined = []          # (t, number, instanceId)
        self.left = []            # (t, number, reason)
        self.messages = {}        # normalized id -> [(t, event)]
        self.delivery = {}        # normalized id -> (t, state) of the latest
        self.ready = None
        self.seq = 0
        self.started_at = time.monotonic()
        json_mode = node.kind == "json"
        self.popen = subprocess.Popen(
            argv, stdin=subprocess.PIPE if json_mode else subprocess.DEVNULL,
            stdout=subprocess.PIPE if json_mode else self.log, stderr=self.err,
            text=True, bufsize=1)
        self.pid = self.popen.pid
        if json_mode:
            self.reader = threading.Thread(target=self._read, daemon=True)
            self.reader.start()

    def _read(self):
        for line in self.popen.stdout:
            t = time.monotonic()
            self.log.write(f"{t:.3f} {line}")
            try:
                event = json.loads(line)
            except ValueError:
                continue
            with self.cond:
                self.events.append((t, event))
                kind = event.get("event")
                if kind == "ready":
                    self.ready = (t, event)
                elif kind == "peerJoined":
                    peer = event["peer"]
                    self.present[peer["number"]] = peer
                    self.joined.append((t, peer["number"], peer["instanceId"]))
                elif kind == "peerUpdated":
                    self.present[event["peer"]["number"]] = event["peer"]
                elif kind == "peerLeft":
                    self.present.pop(event["peer"]["number"], None)
                    self.left.append((t, event["peer"]["number"], event.get("reason")))
                elif kind == "message":
                    self.messages.setdefault(norm(event["id"]), []).append((t, event))
                elif kind == "delivery":
                    self.delivery[norm(event["id"])] = (t, event["state"])
                if "re" in event:
                    self.replies[str(event["re"])] = event
                self.cond.notify_all()
        self.log.flush()

    def send(self, command):
        """Writes one command; returns its request id (echoed as "re")."""
        self.seq += 1
        rid = f"r{self.seq}"
        command = dict(command, id=rid)
        self.popen.stdin.write(json.dumps(command) + "\n")
        self.popen.stdin.flush()
        return rid

    def reply(self, rid, timeout=10):
        with self.cond:
            if not self.cond.wait_for(lambda: rid in self.replies or self.popen.poll() is not None, timeout):
                raise Failure(f"{self.node.name}: no reply to {rid} within {timeout} s")
            if rid not in self.replies:
                raise Failure(f"{self.node.name}: exited before replying to {rid}")
            return self.replies[rid]

    def call(self, command, timeout=10):
        event = self.reply(self.send(command), timeout)
        if event.get("event") == "error":
            raise Failure(f"{self.node.name}: {command['cmd']} failed: {event.get('message')}")
        return event

    def alive(self):
        return self.popen.poll() is None

    def close_files(self):
        for f in (self.err, self.log):
            try:
                f.close()
            except OSError:
                pass


class Node:
    """A lanchat node on a host: its data directory outlives its processes."""

    def __init__(self, lan, work, host, name, kind="json", extra=()):
        self.lan, self.host, self.name, self.kind, self.extra = lan, host, name, kind, list(extra)
        self.data = os.path.join(work, "data", name)
        self.logs = os.path.join(work, "logs")
        os.makedirs(self.logs, exist_ok=True)
        self.procs = []
        self.number = None

    @property
    def proc(self):
        return self.procs[-1]

    @property
    def db(self):
        return os.path.join(self.data, "history.sqlite")

    def start(self, binary):
        mode = ["--json"] if self.kind == "json" else ["bot", self.kind]
        argv = (["ip", "netns", "exec", self.lan.host(self.host), binary] + mode + self.extra +
                ["--nick", self.name, "--data-dir", self.data, "--beacon-interval", f"{BEACON:g}",
                 "--log-level", "notice"])
        self.procs.append(Proc(self, argv, self.logs, len(self.procs) + 1))
        return self.proc

    def wait_ready(self, timeout=30):
        if self.kind == "json":
            wait_until(f"{self.name} ready", timeout, lambda: self.proc.ready or not self.proc.alive())
            if not self.proc.ready:
                raise Failure(f"{self.name} exited at start (see {self.name}.*.stderr)")
            number = self.proc.ready[1]["number"]
        else:
            path = os.path.join(self.data, "node-number")
            wait_until(f"{self.name} node number", timeout, lambda: os.path.exists(path) or not self.proc.alive())
            number = int(open(path).read().strip())
        if self.number is not None and number != self.number:
            raise Failure(f"{self.name} came back as node {number}, was {self.number}")
        self.number = number
        return number

    def signal(self, sig):
        os.kill(self.proc.pid, sig)

    def crash(self):
        """kill -9, then reap it."""
        self.signal(signal.SIGKILL)
        self.proc.popen.wait(timeout=10)

    def stats(self):
        return self.proc.call({"cmd": "stats"})


# --------------------------------------------------------------------------
# Reading the stores


def sqlite(db, query):
    r = subprocess.run(["sqlite3", "-batch", "-cmd", ".timeout 5000", db, query],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise Failure(f"sqlite3 {os.path.basename(os.path.dirname(db))}: {r.stderr.strip()}")
    return r.stdout


def public_ids(node):
    out = sqlite(node.db, "SELECT lower(hex(id)) FROM messages WHERE room = 'public';")
    return set(out.split())


def id_counts(node, room):
    out = sqlite(node.db, f"SELECT lower(hex(id)), count(*) FROM messages WHERE room = '{room}' GROUP BY id;")
    return {line.split("|")[0]: int(line.split("|")[1]) for line in out.split()}


def integrity(node):
    return sqlite(node.db, "PRAGMA integrity_check;").strip()


# --------------------------------------------------------------------------
# The harness


class Harness:
    def __init__(self, args):
        self.args = args
        self.binary = args.bin
        self.work = args.workdir
        self.lan = Lan(args.prefix, args.run_id, args.hosts)
        self.nodes = []           # the --json nodes, one per host
        self.bots = []            # bots that are running
        self.results = []         # (scenario, ok, figure, detail)

    # ---- setup ----------------------------------------------------------

    def setup(self):
        t0 = time.monotonic()
        self.lan.create()
        log(f"virtual LAN {self.lan.base}: {self.lan.hosts} hosts on {SUBNET}.0/24 "
            f"(bridge in {self.lan.switch}), {time.monotonic() - t0:.1f} s")
        self.nodes = [Node(self.lan, self.work, i, f"node{i}") for i in range(1, self.lan.hosts + 1)]
        self.echo = Node(self.lan, self.work, self.lan.hosts, "echo", kind="echo")

    def live(self):
        """Every running node and bot."""
        return [n for n in self.nodes + self.bots if n.procs and n.proc.alive()]

    def mesh_gaps(self, among=None):
        """Pairs not yet linked, as 'nodeA misses nodeB' strings."""
        among = among or self.live()
        gaps = []
        for node in among:
            if node.kind != "json":
                continue
            with node.proc.cond:
                present = set(node.proc.present)
            for other in among:
                if other is not node and other.number not in present:
                    gaps.append(f"{node.name} misses {other.name}")
        return gaps

    def wait_mesh(self, timeout=None, among=None):
        timeout = timeout or (15 + 0.5 * len(self.nodes))
        try:
            wait_until("full mesh", timeout, lambda: not self.mesh_gaps(among), interval=0.05)
        except Failure:
            gaps = self.mesh_gaps(among)
            self.log_counters()
            self.dump_network()
            raise Failure(f"no full mesh after {timeout:g} s: {len(gaps)} missing, e.g. {', '.join(gaps[:4])}")

    def log_counters(self):
        """Logs each live node's nonzero transport counters (for a failure)."""
        for node in self.live():
            if node.kind != "json":
                continue
            try:
                counters = node.stats()["transport"]
            except Failure as failure:
                log(f"  {node.name}: {failure}")
                continue
            log(f"  {node.name} transport: " + ", ".join(f"{k}={v}" for k, v in sorted(counters.items()) if v))

    def dump_network(self):
        """Writes the LAN's state (links, counters, sockets, routes) to logs/network.txt."""
        path = os.path.join(self.work, "logs", "network.txt")
        with open(path, "a") as out:
            def section(title, *argv):
                out.write(f"\n## {title}\n")
                out.write(subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout)
            out.write(f"# {time.strftime('%H:%M:%S')}\n")
            section("switch links", "ip", "-n", self.lan.switch, "-s", "-d", "link")
            section("switch fdb", "bridge", "-n", self.lan.switch, "fdb", "show")
            for i in range(1, min(self.lan.hosts, 3) + 1):
                ns = self.lan.host(i)
                section(f"{ns} addresses", "ip", "-n", ns, "-s", "addr")
                section(f"{ns} routes", "ip", "-n", ns, "route", "show", "table", "all")
                section(f"{ns} sockets", "ip", "netns", "exec", ns, "ss", "-uatnp")
                section(f"{ns} nft", "ip", "netns", "exec", ns, "nft", "list", "ruleset")
                section(f"{ns} snmp", "ip", "netns", "exec", ns, "cat", "/proc/net/snmp")
        log(f"  network state written to logs/network.txt")

    def restart(self, node):
        node.start(self.binary)
        return node.wait_ready()

    def ensure_dm_open(self, a, b):
        """a and b have an accepted conversation (a asks, b accepts)."""
        state = self.dm_state(a, b)
        if state == "accepted":
            return
        rid = a.proc.send({"cmd": "dm", "to": b.number, "text": f"hello {b.name}, from {a.name}"})
        a.proc.reply(rid)
        wait_until(f"{b.name} to see {a.name}'s request", 10, lambda: self.dm_state(b, a) == "incomingRequest")
        b.proc.call({"cmd": "accept", "peer": a.number})
        wait_until(f"{a.name} to see the accept", 10, lambda: self.dm_state(a, b) == "accepted")

    @staticmethod
    def dm_state(a, b):
        with a.proc.cond:
            for _, e in reversed(a.proc.events):
                if e.get("event") == "dmState" and e.get("peer") == b.number:
                    return e["state"]
        return None

    def record(self, scenario, ok, figure, detail=""):
        self.results.append((scenario, ok, figure, detail))
        mark = "PASS" if ok else "FAIL"
        log(f"{scenario}: {mark}  {figure}{('  -- ' + detail) if detail else ''}")

    def run(self, scenarios):
        for name in scenarios:
            fn = getattr(self, "scenario_" + name.replace("-", "_"))
            log(f"--- {name}")
            started = time.monotonic()
            try:
                figure = fn()
                self.record(name, True, figure)
            except Failure as failure:
                self.record(name, False, "", str(failure))
            except Exception as error:  # a harness error fails the scenario, not the run
                self.record(name, False, "", f"harness error: {error!r}")
            log(f"    ({time.monotonic() - started:.1f} s)")
            if name == "discovery" and not self.results[-1][1]:
                log("no mesh: the other scenarios cannot run")
                break

    # ---- scenarios ------------------------------------------------------

    def scenario_discovery(self):
        """Every node sees every other. Figure: last start -> last peerJoined."""
        for node in self.nodes:
            node.start(self.binary)
        self.echo.start(self.binary)
        self.bots.append(self.echo)
        for node in self.nodes + [self.echo]:
            node.wait_ready(timeout=60)
        first_launch = min(n.procs[0].started_at for n in self.nodes)
        last_start = max(n.proc.ready[0] for n in self.nodes)
        self.wait_mesh(timeout=30 + len(self.nodes))
        # The last join that completed the mesh, per node: when it first saw
        # each peer it still sees.
        last_join = 0.0
        for node in self.nodes:
            with node.proc.cond:
                firsts = {}
                for t, number, _ in node.proc.joined:
                    firsts.setdefault(number, t)
                last_join = max(last_join, max(firsts[n] for n in node.proc.present))
        # Cross-check the event bookkeeping with each node's own peer list.
        for node in self.nodes:
            listed = {p["number"] for p in node.proc.call({"cmd": "peers"})["peers"]}
            expected = {n.number for n in self.live() if n is not node}
            if listed != expected:
                raise Failure(f"{node.name}'s peers command lists {len(listed)} peers, expected {len(expected)}")
        n = len(self.live())
        leftovers = sum(1 for node in self.nodes for _, _, r in node.proc.left)
        if leftovers:
            raise Failure(f"{leftovers} peerLeft events while the mesh formed (links flapped)")
        return (f"{n} nodes, {n * (n - 1) // 2} links; full mesh {last_join - last_start:.2f} s after the last "
                f"node was up ({last_join - first_launch:.2f} s after the first launch)")

    def scenario_fanout(self):
        """A burst from several hosts plus a chatter bot reaches every node, each once."""
        senders = self.nodes[:3]
        per_sender = 40
        bot_count, bot_rate = 60, 20
        chatter = Node(self.lan, self.work, 2, "chatter", kind="chatter",
                       extra=["--rate", str(bot_rate), "--count", str(bot_count)])
        chatter.start(self.binary)
        self.bots.append(chatter)
        chatter.wait_ready()
        self.wait_mesh()
        t0 = time.monotonic()
        rids = {s: [s.proc.send({"cmd": "send", "text": f"fanout {k} from {s.name}"}) for k in range(per_sender)]
                for s in senders}
        ids = set()
        for s, list_ in rids.items():
            for rid in list_:
                ids.add(norm(s.proc.reply(rid)["id"]))
        expected_texts = {f"chatter {k} from chatter" for k in range(1, bot_count + 1)}

        def complete(node):
            with node.proc.cond:
                have = set(node.proc.messages)
                bot_texts = {evs[0][1]["text"] for evs in node.proc.messages.values()
                             if evs[0][1]["from"] == chatter.number}
            return ids <= have and expected_texts <= bot_texts

        wait_until("every node to hold every burst message", 60, lambda: all(complete(n) for n in self.nodes))
        last = 0.0
        dups = []
        for node in self.nodes:
            with node.proc.cond:
                for mid in ids:
                    times = node.proc.messages[mid]
                    last = max(last, times[0][0])
                    if len(times) != 1:
                        dups.append(f"{node.name} showed {mid[:8]} {len(times)} times")
                for mid, evs in node.proc.messages.items():
                    if evs[0][1]["from"] == chatter.number and len(evs) != 1:
                        dups.append(f"{node.name} showed bot message {mid[:8]} {len(evs)} times")
                bot_ids = [m for m, evs in node.proc.messages.items() if evs[0][1]["from"] == chatter.number]
                if len(bot_ids) != bot_count:
                    dups.append(f"{node.name} holds {len(bot_ids)} chatter messages, expected {bot_count}")
        if dups:
            raise Failure("; ".join(dups[:5]))
        # The bot quits after its count: everyone sees it leave.
        wait_until("the chatter bot to leave", 30, lambda: not chatter.proc.alive())
        self.bots.remove(chatter)
        wait_until("everyone to see the chatter bot leave", 10,
                   lambda: all(chatter.number not in n.proc.present for n in self.nodes))
        burst = len(ids)
        took = last - t0
        return (f"{burst} msgs from {len(senders)} hosts + {bot_count} from a bot, each once on all {len(self.nodes)}; "
                f"burst delivered everywhere in {took:.2f} s ({burst * len(self.nodes) / took:.0f} deliveries/s)")

    def scenario_dm_privacy(self):
        """DMs reach only their two hosts: direct-frame counters elsewhere stay put."""
        a, b = self.nodes[0], self.nodes[1]
        self.wait_mesh()
        before = {n.name: n.stats()["receivedByType"] for n in self.nodes}
        self.ensure_dm_open(a, b)
        k = 10
        for i in range(k):
            a.proc.call({"cmd": "dm", "to": b.number, "text": f"secret {i} for {b.name}"})
            b.proc.call({"cmd": "dm", "to": a.number, "text": f"secret {i} for {a.name}"})
        # And a DM round trip with the echo bot on the last host, whose json
        # neighbour on the same host must not see it either.
        rid = a.proc.send({"cmd": "dm", "to": self.echo.number, "text": "ping the echo bot"})
        a.proc.reply(rid)
        wait_until("the echo bot's answer", 15, lambda: any(
            evs[0][1]["text"] == "echo: ping the echo bot" for evs in list(a.proc.messages.values())))
        sent_by_a = [m for m, evs in a.proc.messages.items() if evs[0][1]["mine"] and evs[0][1]["room"] == f"dm:{b.number}"]
        sent_by_b = [m for m, evs in b.proc.messages.items() if evs[0][1]["mine"] and evs[0][1]["room"] == f"dm:{a.number}"]
        wait_until("every DM acknowledged", 15, lambda: all(
            a.proc.delivery.get(m, (0, ""))[1] == "delivered" for m in sent_by_a) and all(
            b.proc.delivery.get(m, (0, ""))[1] == "delivered" for m in sent_by_b))
        after = {n.name: n.stats()["receivedByType"] for n in self.nodes}
        leaks = []
        for n in self.nodes:
            delta = {t: after[n.name].get(t, 0) - before[n.name].get(t, 0) for t in DIRECT_TYPES}
            if n in (a, b):
                got = delta["dmRequest"] + delta["directMessage"]
                if got < k:
                    leaks.append(f"{n.name} received only {got} DMs")
            elif any(delta.values()):
                leaks.append(f"{n.name} received direct frames {delta}")
        if leaks:
            raise Failure("; ".join(leaks))
        bystanders = len(self.nodes) - 2
        return (f"{2 * k} DMs {a.name}<->{b.name} + echo-bot round trip; 0 direct frames on {bystanders} other nodes "
                f"(incl. {self.nodes[-1].name}, same host as the bot)")

    def scenario_leave_crash(self):
        """Clean quit seen at once; kill -9 within the dead-peer timeout; restart = same node."""
        self.wait_mesh()
        quitter, victim = self.nodes[2], self.nodes[1]
        others = [n for n in self.nodes if n is not quitter]
        # Clean quit.
        mark = {n.name: len(n.proc.left) for n in others}
        t0 = time.monotonic()
        quitter.proc.send({"cmd": "quit"})
        seen = self._wait_left(others, quitter, mark, timeout=5)
        reasons = {r for _, r in seen.values()}
        if reasons != {"left"}:
            raise Failure(f"quit reported as {reasons}, expected left")
        quit_ms = max(t for t, _ in seen.values()) - t0
        if quit_ms > 1.0:
            raise Failure(f"clean quit took {quit_ms * 1000:.0f} ms to be seen (want < 1 s)")
        quitter.proc.popen.wait(timeout=10)
        self.restart(quitter)
        self.wait_mesh()
        # Crash.
        others = [n for n in self.nodes if n is not victim]
        mark = {n.name: len(n.proc.left) for n in others}
        old_instance = victim.proc.ready[1]["instanceId"]
        t0 = time.monotonic()
        victim.crash()
        seen = self._wait_left(others, victim, mark, timeout=DEAD + 5)
        reasons = {r for _, r in seen.values()}
        crash_s = max(t for t, _ in seen.values()) - t0
        if reasons != {"timedOut"}:
            raise Failure(f"kill -9 reported as {reasons}, expected timedOut")
        if crash_s > DEAD:
            raise Failure(f"kill -9 seen after {crash_s:.2f} s, over the {DEAD:g} s dead-peer timeout")
        # Restart with the same data directory: same number, new instance.
        t0 = time.monotonic()
        number = self.restart(victim)
        new_instance = victim.proc.ready[1]["instanceId"]
        if new_instance == old_instance:
            raise Failure("restart kept the instance id")
        wait_until("everyone to see the restarted node", 20, lambda: all(
            any(num == number and inst == new_instance for _, num, inst in n.proc.joined) for n in others))
        rejoin = max(next(t for t, num, inst in n.proc.joined if num == number and inst == new_instance)
                     for n in others) - t0
        self.wait_mesh()
        return (f"quit seen in {quit_ms * 1000:.0f} ms (left); kill -9 seen in {crash_s * 1000:.0f} ms (timedOut, "
                f"limit {DEAD:g} s); restart rejoined as the same node in {rejoin:.2f} s")

    def _wait_left(self, observers, gone, marks, timeout):
        """Waits for a peerLeft about `gone` on every observer after its mark."""
        def check():
            seen = {}
            for n in observers:
                with n.proc.cond:
                    for t, number, reason in n.proc.left[marks[n.name]:]:
                        if number == gone.number:
                            seen[n.name] = (t, reason)
                            break
            return seen if len(seen) == len(observers) else None
        try:
            return wait_until(f"everyone to see {gone.name} leave", timeout, check)
        except Failure:
            raise Failure(f"not every node saw {gone.name} leave within {timeout:g} s")

    def scenario_durability(self):
        """kill -9 a receiver mid-burst; every DM seen delivered is stored once; integrity ok."""
        sender, receiver = self.nodes[0], self.nodes[1]
        self.wait_mesh()
        self.ensure_dm_open(sender, receiver)
        total = 150 if self.args.quick else 300
        rids = [sender.proc.send({"cmd": "dm", "to": receiver.number, "text": f"durable {i}"}) for i in range(total)]
        texts = {f"durable {i}" for i in range(total)}

        def delivered():
            with sender.proc.cond:
                return [m for m in ids if sender.proc.delivery.get(m, (0, ""))[1] == "delivered"]

        def received():
            with receiver.proc.cond:
                return sum(1 for evs in receiver.proc.messages.values() if evs[0][1]["text"] in texts)
        # The kill lands while the DMs stream in: a third of them shown.
        wait_until("a third of the burst at the receiver", 30, lambda: received() >= total // 3, interval=0.002)
        receiver.crash()
        ids = [norm(sender.proc.reply(rid)["id"]) for rid in rids]
        at_crash, acked_at_crash = received(), len(delivered())
        crash_check = integrity(receiver)
        if crash_check != "ok":
            raise Failure(f"integrity_check right after kill -9: {crash_check[:200]}")
        t0 = time.monotonic()
        self.restart(receiver)
        wait_until("every DM delivered after the restart", 60, lambda: len(delivered()) == total)
        took = time.monotonic() - t0
        counts = id_counts(receiver, f"dm:{sender.number}")
        missing = [m for m in ids if counts.get(m, 0) == 0]
        doubled = [m for m in ids if counts.get(m, 0) > 1]
        if missing or doubled:
            raise Failure(f"{len(missing)} delivered DMs missing from the receiver's store, {len(doubled)} stored twice")
        shown = {}
        for proc in receiver.procs[-2:]:
            with proc.cond:
                for m in ids:
                    shown[m] = shown.get(m, 0) + len(proc.messages.get(m, []))
        reshown = sum(1 for m in ids if shown[m] > 1)
        # Stored in the instant between the insert and the event line: in
        # history, never announced live. Allowed (a crash can do that).
        unshown = sum(1 for m in ids if shown[m] == 0)
        if reshown:
            raise Failure(f"receiver showed {reshown} DMs twice across the crash")
        check = integrity(receiver)
        if check != "ok":
            raise Failure(f"integrity_check after the restart: {check[:200]}")
        return (f"{total} DMs; receiver killed after showing {at_crash} ({acked_at_crash} acked); all {total} "
                f"delivered {took:.2f} s after restart, each stored once, none shown twice "
                f"({unshown} stored at the kill, not shown live); integrity ok")

    def scenario_partition(self):
        """Cut a host off, talk on both sides, heal: every store holds the same public ids."""
        self.wait_mesh()
        cut = self.nodes[-1]           # shares its host with the echo bot: both go
        island = [n for n in self.live() if n.host == cut.host]
        main = [n for n in self.live() if n.host != cut.host]
        mark = {n.name: len(n.proc.left) for n in self.nodes}
        t0 = time.monotonic()
        self.lan.cut(cut.host)
        self._wait_left([n for n in main if n.kind == "json"], cut, mark, timeout=DEAD + 6)
        wait_until(f"{cut.name} to see everyone else leave", DEAD + 6,
                   lambda: not (set(cut.proc.present) & {n.number for n in main}))
        detect = time.monotonic() - t0
        sent = set()
        for i in range(10):
            for s in (self.nodes[0], self.nodes[1], cut):
                sent.add(norm(s.proc.call({"cmd": "send", "text": f"partitioned {i} from {s.name}"})["id"]))
        t1 = time.monotonic()
        self.lan.heal(cut.host)
        self.wait_mesh()
        rejoined = time.monotonic() - t1
        stores = [n for n in self.live() if n.kind in ("json", "echo")]

        def converged():
            sets = [public_ids(n) for n in stores]
            return sets if all(s == sets[0] for s in sets) and sent <= sets[0] else None
        try:
            sets = wait_until("every store to hold the same public ids", 30, converged, interval=0.25)
        except Failure:
            sets = {n.name: public_ids(n) for n in stores}
            union = set().union(*sets.values())
            short = {name: len(union - s) for name, s in sets.items() if union - s}
            raise Failure(f"stores differ after heal: missing per store {short}")
        took = time.monotonic() - t1
        for n in self.nodes:
            dups = [m for m in sent if len(n.proc.messages.get(m, [])) > 1]
            if dups:
                raise Failure(f"{n.name} showed {len(dups)} partition messages twice")
        return (f"{cut.name}+echo cut off (seen in {detect:.2f} s); {len(sent)} msgs on both sides; "
                f"healed: mesh in {rejoined:.2f} s, {len(stores)} stores identical ({len(sets[0])} ids) in {took:.2f} s")

    def scenario_loss(self):
        """Random TCP and UDP loss in every host: DMs still arrive exactly once."""
        self.wait_mesh()
        n1, n2, n3 = self.nodes[:3]
        pairs = [(n1, n2), (n3, n1), (n2, n3)]
        for a, b in pairs:
            self.ensure_dm_open(a, b)
        before = {n.name: n.stats() for n in self.nodes}
        lefts = sum(len(n.proc.left) for n in self.nodes)
        for i in range(1, self.lan.hosts + 1):
            self.lan.add_loss(i, LOSS_ONE_IN)
        per_pair = 100
        pending = []
        t0 = time.monotonic()
        try:
            # Paced over several seconds (load shaping, not a wait), so the
            # loss hits links long enough to stall them and force retries.
            for i in range(per_pair):
                for a, b in pairs:
                    pending.append((a, b, a.proc.send({"cmd": "dm", "to": b.number, "text": f"lossy {i} {a.name}->{b.name}"})))
                time.sleep(0.05)
            sent = [(a, b, norm(a.proc.reply(rid, timeout=30)["id"])) for a, b, rid in pending]
            wait_until("every DM delivered under loss", 120, lambda: all(
                a.proc.delivery.get(m, (0, ""))[1] == "delivered" for a, _, m in sent), interval=0.1)
            took = time.monotonic() - t0
            drops = sum(self.lan.loss_drops(i) for i in range(1, self.lan.hosts + 1))
        finally:
            for i in range(1, self.lan.hosts + 1):
                self.lan.remove_loss(i)
        problems = []
        for a, b, m in sent:
            shown = len(b.proc.messages.get(m, []))
            if shown != 1:
                problems.append(f"{b.name} showed {m[:8]} {shown} times")
        for a, b in pairs:
            counts = id_counts(b, f"dm:{a.number}")
            bad = [m for x, y, m in sent if x is a and y is b and counts.get(m) != 1]
            if bad:
                problems.append(f"{len(bad)} DMs {a.name}->{b.name} not stored exactly once")
        if problems:
            raise Failure("; ".join(problems[:5]))
        self.wait_mesh()
        after = {n.name: n.stats() for n in self.nodes}
        retries = sum(after[n.name]["dmRetries"] - before[n.name]["dmRetries"] for n in self.nodes)
        dups = sum(after[n.name]["duplicates"] - before[n.name]["duplicates"] for n in self.nodes)
        flaps = sum(len(n.proc.left) for n in self.nodes) - lefts
        return (f"{len(sent)} DMs over 3 pairs under {100 // LOSS_ONE_IN}% loss ({drops} packets dropped): all "
                f"delivered, each once, in {took:.1f} s; {retries} resends, {dups} duplicates dropped, "
                f"{flaps} link drops")

    def scenario_slow_consumer(self):
        """kill -STOP one node: the rest keep their pace, drop it, and it catches up after CONT."""
        self.wait_mesh()
        stopped = self.nodes[-2]
        senders = [self.nodes[0], self.nodes[1]]
        rest = [n for n in self.nodes if n is not stopped]
        burst = 300

        def blast(tag, receivers):
            t0 = time.monotonic()
            rids = [(s, s.proc.send({"cmd": "send", "text": f"{tag} {i} from {s.name} " + "x" * 180}))
                    for i in range(burst // len(senders)) for s in senders]
            ids = {norm(s.proc.reply(rid)["id"]) for s, rid in rids}
            wait_until(f"the {tag} burst everywhere", 60, lambda: all(
                ids <= set(n.proc.messages) for n in receivers))
            last = max(n.proc.messages[m][0][0] for n in receivers for m in ids)
            return ids, len(ids) / (last - t0)

        _, base_rate = blast("baseline", self.nodes)
        mark = {n.name: len(n.proc.left) for n in rest}
        t0 = time.monotonic()
        stopped.signal(signal.SIGSTOP)
        try:
            during, stop_rate = blast("while-stopped", rest)
            seen = self._wait_left(rest, stopped, mark, timeout=DEAD + 10)
            cut_after = max(t for t, _ in seen.values()) - t0
            missed = set(during)
            for i in range(20):
                s = senders[i % 2]
                missed.add(norm(s.proc.call({"cmd": "send", "text": f"after the cut {i} from {s.name}"})["id"]))
        finally:
            stopped.signal(signal.SIGCONT)
        t1 = time.monotonic()
        self.wait_mesh()
        rejoin = time.monotonic() - t1
        wait_until(f"{stopped.name} to catch up", 30, lambda: missed <= set(stopped.proc.messages), interval=0.1)
        caught = time.monotonic() - t1
        twice = [m for m in missed if len(stopped.proc.messages[m]) > 1]
        if twice:
            raise Failure(f"{stopped.name} showed {len(twice)} caught-up messages twice")
        if stop_rate < 0.5 * base_rate:
            raise Failure(f"others slowed to {stop_rate:.0f} msg/s while a node was stopped (baseline {base_rate:.0f})")
        return (f"burst {stop_rate:.0f} msg/s with {stopped.name} stopped vs {base_rate:.0f} before; "
                f"cut off after {cut_after:.2f} s; after CONT rejoined in {rejoin:.2f} s, "
                f"caught up {len(missed)} msgs in {caught:.2f} s, each once")

    # ---- teardown -------------------------------------------------------

    def shutdown(self):
        for node in self.nodes + self.bots + [getattr(self, "echo", None)]:
            if node is None:
                continue
            for proc in node.procs:
                if proc.alive():
                    try:
                        os.kill(proc.pid, signal.SIGCONT)
                        proc.popen.terminate()   # SIGTERM: leave cleanly
                    except ProcessLookupError:
                        pass
        deadline = time.monotonic() + 5
        for node in self.nodes + self.bots + [getattr(self, "echo", None)]:
            if node is None:
                continue
            for proc in node.procs:
                try:
                    proc.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    proc.popen.kill()
                    proc.popen.wait()
                proc.close_files()
        self.lan.destroy()


def neighbour_table():
    """(entries, table_fulls) of the kernel's shared IPv4 neighbour table."""
    try:
        lines = open("/proc/net/stat/arp_cache").read().split("\n")
    except OSError:
        return None
    head = lines[0].split()
    rows = [dict(zip(head, (int(v, 16) for v in line.split()))) for line in lines[1:] if line.strip()]
    return rows[0]["entries"], sum(r["table_fulls"] for r in rows)


def log(text):
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def table(results):
    rows = [("scenario", "result", "figure")] + [
        (name, "PASS" if ok else "FAIL", figure if ok else detail) for name, ok, figure, detail in results]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    lines = [f"| {r[0]:<{w0}} | {r[1]:<{w1}} | {r[2]} |" for r in rows]
    lines.insert(1, f"|{'-' * (w0 + 2)}|{'-' * (w1 + 2)}|---|")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
        unknown = [s for s in wanted if s not in ALL_SCENARIOS]
        if unknown:
            print(f"lan-test.sh: unknown scenario {', '.join(unknown)}; known: {', '.join(ALL_SCENARIOS)}", file=sys.stderr)
            return 64
        scenarios = ["discovery"] + [s for s in ALL_SCENARIOS if s in wanted and s != "discovery"]

    def stop(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)

    harness = Harness(args)
    started = time.monotonic()
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
    print()
    print(f"lanchat on a virtual LAN: {args.hosts} hosts, beacon {BEACON:g} s "
          f"(dead-peer timeout {DEAD:g} s), {time.monotonic() - started:.0f} s")
    print(table(harness.results))
    neighbours_after = neighbour_table()
    if neighbours_before and neighbours_after and neighbours_after[1] > neighbours_before[1]:
        print(f"warning: the kernel's neighbour table (shared by every namespace on this machine, "
              f"{neighbours_after[0]} entries now) overflowed {neighbours_after[1] - neighbours_before[1]} times "
              f"during this run and dropped packets: is another namespace test running?")
    failed = [r for r in harness.results if not r[1]]
    if interrupted:
        return 130
    if failed or len(harness.results) < len(scenarios):
        print(f"{len(failed)} scenario(s) failed" + ("" if len(harness.results) == len(scenarios) else
              f", {len(scenarios) - len(harness.results)} not run"))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
