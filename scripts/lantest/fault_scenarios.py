"""Scenarios with faults: durability, partition, loss, slow consumer."""

import signal
import time

from .common import LOSS_ONE_IN, OVERLAY, SILENT_CUT, Failure, norm, wait_until
from .node import id_counts, integrity, public_ids


class FaultScenarios:
    """Mixed into the harness; each method returns its figure or raises Failure."""

    def scenario_durability(self):
        """kill -9 a receiver mid-burst; every DM seen delivered is stored once; integrity ok."""
        sender, receiver = self.nodes[0], self.nodes[1]
        self.wait_mesh()
        if OVERLAY:
            sender, receiver = self.linked_pairs()[0]
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
        at_crash = received()
        crash_check = integrity(receiver)
        if crash_check != "ok":
            raise Failure(f"integrity_check right after kill -9: {crash_check[:200]}")
        # The crash image itself holds every DM acknowledged before the kill
        # (acks still in the sender's pipe came from the dead process too).
        acked = set(delivered())
        image = id_counts(receiver, f"dm:{sender.number}")
        lost = [m for m in acked if image.get(m, 0) != 1]
        if lost:
            raise Failure(f"{len(lost)} DMs acknowledged before the kill are not in the store after it")
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
        return (f"{total} DMs; receiver killed after showing {at_crash} ({len(acked)} acked, all in the crash "
                f"image); all {total} "
                f"delivered {took:.2f} s after restart, each stored once, none shown twice "
                f"({unshown} stored at the kill, not shown live); integrity ok")

    def scenario_partition(self):
        """Cut a host off, talk on both sides, heal: every store holds the same public ids."""
        self.wait_mesh()
        cut = self.nodes[-1]           # shares its host with the echo bot: both go
        main = [n for n in self.live() if n.host != cut.host]
        mark = {n.name: len(n.proc.left) for n in self.nodes}
        t0 = time.monotonic()
        self.lan.cut(cut.host)
        try:
            self.wait_left([n for n in main if n.kind == "json"], cut, mark, timeout=SILENT_CUT + 6)
            main_numbers = {n.number for n in main}
            # Overlay mode: it also stops listing those it heard of only.
            wait_until(f"{cut.name} to see everyone else leave", SILENT_CUT + 6,
                       lambda: not (set(cut.proc.present) & main_numbers) and not (
                           OVERLAY and set(self.listed(cut)) & main_numbers), interval=0.1)
            detect = time.monotonic() - t0
            # Full runs send more than one catch-up page (200) across the cut.
            per_sender = 10 if self.args.quick else 120
            rids = [(s, s.proc.send({"cmd": "send", "text": f"partitioned {i} from {s.name}"}))
                    for i in range(per_sender) for s in (self.nodes[0], self.nodes[1], cut)]
            sent = {norm(s.proc.reply(rid)["id"]) for s, rid in rids}
            t1 = time.monotonic()
        finally:
            # Healed whatever happened: a host left cut off fails every later scenario.
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
        if OVERLAY:
            pairs = self.linked_pairs()[:3]
        for a, b in pairs:
            self.ensure_dm_open(a, b)
        before = {n.name: n.stats() for n in self.nodes}
        lefts = sum(len(n.proc.left) for n in self.nodes)
        for i in range(1, self.lan.hosts + 1):
            self.lan.add_loss(i, LOSS_ONE_IN)
        per_pair = 40 if self.args.quick else 100
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
        stopped = self.nodes[-1]       # its host's echo bot keeps running
        senders = [self.nodes[0], self.nodes[1]]
        rest = [n for n in self.nodes if n is not stopped]
        burst = 300

        def blast(tag, receivers):
            t0 = time.monotonic()
            rids = [(s, s.proc.send({"cmd": "send", "text": f"{tag} {i} from {s.name} " + "x" * 180}))
                    for i in range(burst // len(senders)) for s in senders]
            ids = {norm(s.proc.reply(rid)["id"]) for s, rid in rids}
            try:
                wait_until(f"the {tag} burst everywhere", 60, lambda: all(
                    ids <= set(n.proc.messages) for n in receivers))
            except Failure:
                short = {n.name: len(ids - set(n.proc.messages)) for n in receivers}
                raise Failure(f"the {tag} burst ({len(ids)} msgs) not everywhere after 60 s; missing per node: "
                              + ", ".join(f"{k} {v}" for k, v in short.items() if v))
            last = max(n.proc.messages[m][0][0] for n in receivers for m in ids)
            return ids, len(ids) / (last - t0)

        _, base_rate = blast("baseline", self.nodes)
        mark = {n.name: len(n.proc.left) for n in rest}
        t0 = time.monotonic()
        stopped.signal(signal.SIGSTOP)
        try:
            during, stop_rate = blast("while-stopped", rest)
            seen = self.wait_left(rest, stopped, mark, timeout=SILENT_CUT + 10)
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

    def scenario_backlog(self):
        """Opt-in (--only backlog): a stopped node misses 2500 long public
        messages, then must catch up on all of them. Fails on lanchat as of
        this writing: catch-up stops after about eight pages per peer."""
        self.wait_mesh()
        stopped, sender = self.nodes[-1], self.nodes[0]
        rest = [n for n in self.nodes if n is not stopped]
        total = 2500
        mark = {n.name: len(n.proc.left) for n in rest}
        stopped.signal(signal.SIGSTOP)
        try:
            rids = [sender.proc.send({"cmd": "send", "text": f"backlog {i} " + "y" * 220}) for i in range(total)]
            ids = {norm(sender.proc.reply(rid, timeout=60)["id"]) for rid in rids}
            wait_until("the backlog everywhere else", 60, lambda: all(ids <= set(n.proc.messages) for n in rest))
            self.wait_left(rest, stopped, mark, timeout=SILENT_CUT + 10)
        finally:
            stopped.signal(signal.SIGCONT)
        t0 = time.monotonic()
        self.wait_mesh()

        def held():
            with stopped.proc.cond:
                return len(ids & set(stopped.proc.messages))
        progress = [0, time.monotonic()]

        def done_or_stuck():
            count = held()
            if count != progress[0]:
                progress[:] = [count, time.monotonic()]
            return count == total or time.monotonic() - progress[1] > 10
        wait_until(f"{stopped.name} to catch up", 120, done_or_stuck, interval=0.2)
        if held() != total:
            refused = sum(n.stats()["catchUpRefused"] for n in rest)
            raise Failure(f"{stopped.name} caught up {held()} of {total} missed messages and stopped gaining for "
                          f"10 s ({refused} catch-up requests refused by peers' rate limits)")
        return f"{stopped.name} caught up all {total} missed messages in {time.monotonic() - t0:.1f} s"

