"""The harness: sets the LAN up, starts nodes, waits for the mesh, runs
scenarios (methods named scenario_<name>) and tears everything down."""

import os
import random
import signal
import subprocess
import time

from .common import OVERLAY, SUBNET, Failure, log, wait_until
from .lan import Lan
from .node import Node


class Harness:
    def __init__(self, args):
        self.args = args
        self.binary = args.bin
        self.work = args.workdir
        self.lan = Lan(args.prefix, args.run_id, args.hosts)
        self.nodes = []           # the --json nodes, one per host
        self.bots = []            # bots that are running
        self.extras = []          # a scenario's own nodes (private groups), stopped when it ends
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
        """What keeps the nodes from being linked up, as strings; none when
        they are. Full mesh: the pairs not yet linked ('nodeA misses
        nodeB'). Overlay mode (--overlay): bounded links are not a full
        mesh by design, so see overlay_gaps."""
        among = among or self.live()
        if OVERLAY:
            return self.overlay_gaps(among)
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

    def overlay_gaps(self, among):
        """Overlay mode: every --json node says it runs the overlay above
        its threshold (stats: overlayPartial 1) with a non-empty active
        view, and the graph of links among `among` is connected. A link
        counts when each --json end has the other in its peerJoined/
        peerLeft set (a bot's end cannot be asked; its links show at
        the other end)."""
        gaps = []
        for node in among:
            if node.kind != "json":
                continue
            try:
                transport = node.proc.call({"cmd": "stats"}, timeout=5)["transport"]
            except Failure as failure:
                gaps.append(str(failure))
                continue
            if transport.get("overlayPartial") != 1:
                gaps.append(f"{node.name} is not in overlay mode (overlayPartial {transport.get('overlayPartial')})")
            elif not transport.get("overlayActivePeers"):
                gaps.append(f"{node.name} has an empty active view")
        components = self.link_components(among)
        if len(components) > 1:
            gaps.append(f"links form {len(components)} parts: "
                        + " | ".join(",".join(sorted(n.name for n in part)) for part in components))
        return gaps

    def links(self, among):
        """The links among `among` as (node, node) pairs, each once (see overlay_gaps)."""
        by_number = {n.number: n for n in among}
        present = {}
        for node in among:
            if node.kind == "json":
                with node.proc.cond:
                    present[node.name] = set(node.proc.present)
        pairs = set()
        for node in among:
            for number in present.get(node.name, ()):
                other = by_number.get(number)
                if other is None or other is node:
                    continue
                if other.kind == "json" and node.number not in present[other.name]:
                    continue
                pairs.add(tuple(sorted((node, other), key=lambda n: n.name)))
        return pairs

    def linked_pairs(self):
        """Linked pairs of the suite's --json nodes, in node order (a
        scenario that tests a fault, not reach, uses these in overlay mode)."""
        nodes = [n for n in self.nodes if n.kind == "json"]
        order = {n.name: i for i, n in enumerate(nodes)}
        pairs = sorted(self.links(nodes), key=lambda p: (order[p[0].name], order[p[1].name]))
        if not pairs:
            raise Failure("no linked pair among the nodes")
        return pairs

    def link_components(self, among):
        """The connected parts of the graph of links, largest first."""
        neighbours = {n.name: set() for n in among}
        for a, b in self.links(among):
            neighbours[a.name].add(b.name)
            neighbours[b.name].add(a.name)
        by_name = {n.name: n for n in among}
        seen, parts = set(), []
        for node in among:
            if node.name in seen:
                continue
            part, todo = set(), [node.name]
            while todo:
                name = todo.pop()
                if name in part:
                    continue
                part.add(name)
                todo.extend(neighbours[name] - part)
            seen |= part
            parts.append({by_name[name] for name in part})
        return sorted(parts, key=len, reverse=True)

    def wait_mesh(self, timeout=None, among=None):
        """Waits until the nodes are linked up: a full mesh, or in overlay
        mode every node in the overlay with connected links."""
        timeout = timeout or (15 + 0.5 * len(self.nodes))
        what = "a connected overlay" if OVERLAY else "full mesh"
        try:
            wait_until(what, timeout, lambda: not self.mesh_gaps(among), interval=0.2 if OVERLAY else 0.05)
        except Failure:
            gaps = self.mesh_gaps(among)
            self.log_counters()
            self.dump_network()
            raise Failure(f"no {what} after {timeout:g} s: {len(gaps)} missing, e.g. {', '.join(gaps[:4])}")

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
        log("  network state written to logs/network.txt")

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

    def wait_left(self, observers, gone, marks, timeout):
        """Waits for every observer to see `gone` go: a peerLeft about it
        after the observer's mark. Overlay mode: an observer not linked to
        it (no peerLeft since the mark, not in its peerJoined set) hears of
        it by beacons only, so it must stop listing it in its peers reply
        (the announcement expires); it is reported as (t, "unlisted")."""
        seen = {}

        def check():
            for n in observers:
                if n.name in seen:
                    continue
                with n.proc.cond:
                    for t, number, reason in n.proc.left[marks[n.name]:]:
                        if number == gone.number:
                            seen[n.name] = (t, reason)
                            break
                    linked = gone.number in n.proc.present
                if OVERLAY and n.name not in seen and not linked and not self.lists(n, gone):
                    seen[n.name] = (time.monotonic(), "unlisted")
            return len(seen) == len(observers)
        try:
            wait_until(f"everyone to see {gone.name} leave", timeout, check, interval=0.1 if OVERLAY else 0.02)
            return seen
        except Failure:
            late = [f"{n.name} ({'linked, no peerLeft' if gone.number in n.proc.present else 'still lists it'})"
                    for n in observers if n.name not in seen]
            raise Failure(f"not every node saw {gone.name} leave within {timeout:g} s: {', '.join(late)}")

    @staticmethod
    def listed(node):
        """The node's peers reply, by number (linked and, above the overlay's
        threshold, heard-of peers; each says `linked`)."""
        return {p["number"]: p for p in node.proc.call({"cmd": "peers"})["peers"]}

    def lists(self, node, other, instance=None):
        """Whether node's peers reply names `other` (with that instance id, if given)."""
        entry = self.listed(node).get(other.number)
        return entry is not None and (instance is None or entry.get("instanceId") == instance)

    @staticmethod
    def linked_reasons(seen):
        """The peerLeft reasons in wait_left's answer (not the "unlisted")."""
        return {r for _, r in seen.values() if r != "unlisted"}

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
            finally:
                self.retire()
                if not self.results[-1][1]:
                    self.revive()
            log(f"    ({time.monotonic() - started:.1f} s)")
            if name == "discovery" and not self.results[-1][1]:
                log("no mesh: the other scenarios cannot run")
                break

    def revive(self):
        """After a failed scenario: the mesh's --json nodes it left stopped
        (SIGSTOP) go on, and those it left dead start again, so the next
        scenario finds the LAN it expects."""
        for node in self.nodes:
            if not node.procs:
                continue
            if node.proc.alive():
                os.kill(node.proc.pid, signal.SIGCONT)
                continue
            try:
                self.restart(node)
                log(f"    restarted {node.name}, which the failure left down")
            except Failure as failure:
                log(f"    could not restart {node.name}: {failure}")

    # ---- a scenario's own nodes -----------------------------------------

    def secret_file(self, group):
        """A group secret file (mode 0600) for --secret-file / LANCHAT_SECRET_FILE."""
        path = os.path.join(self.work, "secrets", group)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write(f"{group} {os.urandom(16).hex()}\n")
        return path

    def group_node(self, host, name, secret, kind="json", extra=(), via_env=False, clock=None, skip=(), port=None):
        """A node of a private group (its own secret), stopped by retire()
        (run() calls it when the scenario ends). With `port` (a discovery
        port of the scenario's own, see private_port) it does not even hear
        the shared mesh, so a scenario's faults and counts touch only its
        own nodes whatever the secrets do."""
        extra = list(extra) + (["--discovery-port", str(port)] if port else [])
        if via_env:
            node = Node(self.lan, self.work, host, name, kind=kind, extra=extra,
                        env={"LANCHAT_SECRET_FILE": secret}, clock=clock, skip=skip)
        else:
            node = Node(self.lan, self.work, host, name, kind=kind,
                        extra=extra + ["--secret-file", secret], clock=clock, skip=skip)
        self.extras.append(node)
        return node

    def private_port(self):
        """A discovery port for one scenario's nodes (20000-29999, not the mesh's)."""
        self.ports_used = getattr(self, "ports_used", set())
        port = random.choice([p for p in range(20000, 30000) if p not in self.ports_used])
        self.ports_used.add(port)
        return port

    def retire(self):
        """Stops every node a scenario made for itself."""
        for node in self.extras:
            node.stop()
        self.extras = []

    def shutdown(self):
        self.retire()
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
