"""Scenarios on a healthy LAN: discovery, fan-out, DM privacy, leave and crash."""

import time

from .common import DEAD, DIRECT_TYPES, OVERLAY, Failure, norm, wait_until
from .node import Node


class MeshScenarios:
    """Mixed into the harness; each method returns its figure or raises Failure."""

    def scenario_discovery(self):
        """Every node sees every other, steadily. Figure: last start -> the
        peerJoined that completed the mesh (a re-join after a drop counts).
        Overlay mode: every node in the overlay with a non-empty view and
        the links connected, steadily; each node's peers command lists
        every other node (linked or heard) and says which it is linked to."""
        for node in self.nodes:
            node.start(self.binary)
        self.echo.start(self.binary)
        self.bots.append(self.echo)
        for node in self.nodes + [self.echo]:
            node.wait_ready(timeout=60)
        first_launch = min(n.procs[0].started_at for n in self.nodes)
        last_start = max(n.proc.ready[0] for n in self.nodes)
        self.wait_mesh(timeout=30 + len(self.nodes))
        linked_up = time.monotonic()
        # Steady: the mesh stays whole for a keepalive period and more, and
        # every node's own peer list (the peers command) says the same.
        settle = DEAD + 1
        whole_since = [time.monotonic()]

        def steady():
            if self.mesh_gaps():
                whole_since[0] = time.monotonic()
                return False
            return time.monotonic() - whole_since[0] >= settle
        wait_until("the mesh to stay whole", settle + 30, steady, interval=0.2 if OVERLAY else 0.1)

        listed = {}

        def lists_agree():
            for node in self.nodes:
                peers = node.proc.call({"cmd": "peers"})["peers"]
                listed[node.name] = peers
                if {p["number"] for p in peers} != {n.number for n in self.live() if n is not node}:
                    return False
                with node.proc.cond:
                    present = set(node.proc.present)
                if {p["number"] for p in peers if p.get("linked", True)} != present:
                    return False
            return True
        try:
            wait_until("every peers command to list every other node, linked as its events say", 10, lists_agree,
                       interval=0.2)
        except Failure:
            names = {n.number: n.name for n in self.live()}
            raise Failure("peers lists disagree: " + "; ".join(
                f"{name} lists {sorted(names.get(p['number'], p['number']) for p in peers)} "
                f"(linked {sorted(names.get(p['number'], p['number']) for p in peers if p.get('linked', True))})"
                for name, peers in list(listed.items())[:3]))
        n = len(self.live())
        drops = sum(len(node.proc.left) for node in self.nodes)
        flaps = f"; {drops} transient link drops (re-linked)" if drops else ""
        if OVERLAY:
            links = self.links(self.live())
            views = [len(p) for p in (node.proc.present for node in self.nodes)]
            return (f"{n} nodes in the overlay, {len(links)} links (a full mesh has {n * (n - 1) // 2}), "
                    f"{min(views)}-{max(views)} per node; connected {linked_up - last_start:.2f} s after the last node "
                    f"was up ({linked_up - first_launch:.2f} s after the first launch); every peers list names all "
                    f"{n - 1} others{flaps}")
        last_join = 0.0
        for node in self.nodes:
            with node.proc.cond:
                latest = {}
                for t, number, _ in node.proc.joined:
                    latest[number] = t
                last_join = max(last_join, max(latest[n] for n in node.proc.present))
        return (f"{n} nodes, {n * (n - 1) // 2} links; full mesh {last_join - last_start:.2f} s after the last "
                f"node was up ({last_join - first_launch:.2f} s after the first launch){flaps}")

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

        def missing(node):
            with node.proc.cond:
                have = set(node.proc.messages)
                bot_texts = {evs[0][1]["text"] for evs in node.proc.messages.values()
                             if evs[0][1]["from"] == chatter.number}
            return len(ids - have), len(expected_texts - bot_texts)

        try:
            wait_until("every node to hold every burst message", 60,
                       lambda: all(missing(n) == (0, 0) for n in self.nodes))
        except Failure:
            short = {n.name: missing(n) for n in self.nodes if missing(n) != (0, 0)}
            raise Failure(f"after 60 s {len(short)} node(s) lack messages (burst, bot): "
                          + ", ".join(f"{k} {v}" for k, v in list(short.items())[:6]))
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
        pinger = a
        if OVERLAY:
            # The overlay's case: DMs between peers that are not linked
            # (outside each other's view), if the views leave such a pair.
            a, b = next(((x, y) for x in self.nodes for y in self.nodes
                         if x.number < y.number and y.number not in x.proc.present), (a, b))
            pinger = next((n for n in (a, b) if self.echo.number not in n.proc.present), a)
        linked = b.number in a.proc.present
        before = {n.name: n.stats()["receivedByType"] for n in self.nodes}
        self.ensure_dm_open(a, b)
        k = 10
        for i in range(k):
            a.proc.call({"cmd": "dm", "to": b.number, "text": f"secret {i} for {b.name}"})
            b.proc.call({"cmd": "dm", "to": a.number, "text": f"secret {i} for {a.name}"})
        # And a DM round trip with the echo bot on the last host, whose json
        # neighbour on the same host must not see it either.
        echo_linked = self.echo.number in pinger.proc.present
        rid = pinger.proc.send({"cmd": "dm", "to": self.echo.number, "text": "ping the echo bot"})
        pinger.proc.reply(rid)
        wait_until("the echo bot's answer", 15, lambda: any(
            evs[0][1]["text"] == "echo: ping the echo bot" for evs in list(pinger.proc.messages.values())))
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
        views = ""
        if OVERLAY:
            views = (f" ({a.name} and {b.name} {'linked' if linked else 'not linked'}, {pinger.name} and the bot "
                     f"{'linked' if echo_linked else 'not linked'} when they started)")
        return (f"{2 * k} DMs {a.name}<->{b.name} + echo-bot round trip{views}; 0 direct frames on the {bystanders} other "
                f"node(s) (incl. {self.nodes[-1].name}, same host as the bot)")

    def scenario_leave_crash(self):
        """Clean quit seen at once; kill -9 within the dead-peer timeout;
        restart = same node. Overlay mode: the nodes linked to it see it
        (quit at once, kill -9 within the timeout); the others, which know
        it by beacons only, stop listing it within the dead-peer timeout."""
        self.wait_mesh()
        quitter, victim = self.nodes[2], self.nodes[1]
        others = [n for n in self.nodes if n is not quitter]
        # Clean quit.
        mark = {n.name: len(n.proc.left) for n in others}
        t0 = time.monotonic()
        quitter.proc.send({"cmd": "quit"})
        seen = self.wait_left(others, quitter, mark, timeout=DEAD + 3 if OVERLAY else 5)
        reasons = self.linked_reasons(seen)
        if reasons != {"left"}:
            raise Failure(f"quit reported as {reasons}, expected left (no --json node linked to it?)")
        quit_ms = max(t for t, r in seen.values() if r != "unlisted") - t0
        if quit_ms > 1.0:
            raise Failure(f"clean quit took {quit_ms * 1000:.0f} ms to be seen (want < 1 s)")
        quit_unlisted = [t - t0 for t, r in seen.values() if r == "unlisted"]
        quitter.proc.popen.wait(timeout=10)
        self.restart(quitter)
        self.wait_mesh()
        # Crash.
        others = [n for n in self.nodes if n is not victim]
        mark = {n.name: len(n.proc.left) for n in others}
        old_instance = victim.proc.ready[1]["instanceId"]
        t0 = time.monotonic()
        victim.crash()
        seen = self.wait_left(others, victim, mark, timeout=DEAD + 5)
        reasons = self.linked_reasons(seen)
        if reasons != {"timedOut"}:
            raise Failure(f"kill -9 reported as {reasons}, expected timedOut (no --json node linked to it?)")
        crash_s = max(t for t, r in seen.values() if r != "unlisted") - t0
        if crash_s > DEAD:
            raise Failure(f"kill -9 seen after {crash_s:.2f} s, over the {DEAD:g} s dead-peer timeout")
        crash_unlisted = [t - t0 for t, r in seen.values() if r == "unlisted"]
        # Restart with the same data directory: same number, new instance.
        t0 = time.monotonic()
        number = self.restart(victim)
        new_instance = victim.proc.ready[1]["instanceId"]
        if new_instance == old_instance:
            raise Failure("restart kept the instance id")
        if OVERLAY:
            # Linked or heard of: every node lists the new instance.
            back = {}

            def listed_again():
                for n in others:
                    if n.name not in back and self.lists(n, victim, new_instance):
                        back[n.name] = time.monotonic()
                return len(back) == len(others)
            wait_until("everyone to list the restarted node", 20, listed_again, interval=0.1)
            rejoin = max(back.values()) - t0
        else:
            wait_until("everyone to see the restarted node", 20, lambda: all(
                any(num == number and inst == new_instance for _, num, inst in n.proc.joined) for n in others))
            rejoin = max(next(t for t, num, inst in n.proc.joined if num == number and inst == new_instance)
                         for n in others) - t0
        self.wait_mesh()
        if OVERLAY:
            def unlisted(times):
                return f"; {len(times)} not linked to it stopped listing it in {max(times):.2f} s" if times else ""
            return (f"quit seen in {quit_ms * 1000:.0f} ms by the {len(others) - len(quit_unlisted)} linked to it (left)"
                    f"{unlisted(quit_unlisted)}; kill -9 seen in {crash_s * 1000:.0f} ms by the "
                    f"{len(others) - len(crash_unlisted)} linked (timedOut, limit {DEAD:g} s){unlisted(crash_unlisted)}; "
                    f"restart listed by all as the same node in {rejoin:.2f} s, overlay connected again")
        return (f"quit seen in {quit_ms * 1000:.0f} ms (left); kill -9 seen in {crash_s * 1000:.0f} ms (timedOut, "
                f"limit {DEAD:g} s); restart rejoined as the same node in {rejoin:.2f} s")
