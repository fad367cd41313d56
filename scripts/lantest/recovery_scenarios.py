"""Recovery: clocks an hour apart, a sender killed again and again."""

import random
import time

from .common import DEAD, Failure, norm, skew_clock_library, wait_until
from .node import id_counts, integrity, public_ids, sqlite


class RecoveryScenarios:
    """Mixed into the harness; each method returns its figure or raises Failure."""

    def scenario_clock_skew(self):
        """A private group of three: fast (+1 h), slow (-1 h), plain (wall
        clocks shifted by skewclock.so, as on machines set wrong). The fast
        node goes away while the others send public messages and DMs to it,
        comes back and must get every one; then the slow node does the same.
        Catch-up follows the answerer's arrival order, not timestamps."""
        library = skew_clock_library(self.work)
        secret = self.secret_file("skew")
        port = self.private_port()
        fast = self.group_node(1, "fast", secret, clock=(library, 3600), port=port)
        slow = self.group_node(2, "slow", secret, clock=(library, -3600), port=port)
        plain = self.group_node(self.lan.hosts, "plain", secret, port=port)
        group = [fast, slow, plain]
        for node in group:
            node.start(self.binary)
        for node in group:
            node.wait_ready()
        self.wait_mesh(timeout=20, among=group)
        # The clocks really are skewed: a message's timestamp is its sender's clock.
        skews = {}
        for node, want in ((fast, 3600), (slow, -3600), (plain, 0)):
            event = node.proc.call({"cmd": "send", "text": f"clock check from {node.name}"})
            mid = norm(event["id"])
            stamp = wait_until(f"{node.name}'s own message", 5, lambda: node.proc.messages.get(mid))[0][1]["timestamp"]
            skews[node.name] = stamp / 1000 - time.time()
            if abs(skews[node.name] - want) > 60:
                raise Failure(f"{node.name}'s clock is {skews[node.name]:+.0f} s off, wanted {want:+d} s "
                              f"(does skewclock.so reach Swift's Date here?)")
        # Conversations open while everyone runs (a restarted node's new
        # event log would not show an earlier accept).
        for a, b in ((slow, fast), (plain, fast), (plain, slow)):
            self.ensure_dm_open(a, b)
        per_sender = 10 if self.args.quick else 30
        rounds = []
        for away in (fast, slow):
            senders = [n for n in group if n is not away]
            rounds.append(self.skew_round(away, senders, group, per_sender))
        return ("wall clocks " + ", ".join(f"{k} {v / 3600:+.2f} h" for k, v in skews.items()) + "; "
                + "; ".join(rounds))

    def skew_round(self, away, senders, group, k):
        """`away` leaves; each sender sends k public messages and k DMs to it;
        it comes back and must hold each exactly once."""
        mark = {n.name: len(n.proc.left) for n in senders}
        away.stop()
        self.wait_left(senders, away, mark, timeout=DEAD + 5)
        public, dms = set(), {}
        for i in range(k):
            for s in senders:
                public.add(norm(s.proc.call({"cmd": "send", "text": f"while {away.name} was away {i} from {s.name}"})["id"]))
                dms[norm(s.proc.call({"cmd": "dm", "to": away.number, "text": f"dm {i} to {away.name} from {s.name}"})["id"])] = s
        t0 = time.monotonic()
        self.restart(away)
        self.wait_mesh(timeout=20, among=group)

        def held():
            stored = public_ids(away)
            per_room = {s.name: id_counts(away, f"dm:{s.number}") for s in senders}
            return (len(public & stored), sum(1 for m, s in dms.items() if m in per_room[s.name]))
        try:
            wait_until(f"{away.name} to hold every missed message", 30,
                       lambda: held() == (len(public), len(dms)), interval=0.2)
        except Failure:
            got_public, got_dms = held()
            raise Failure(f"{away.name} ({clock_name(away)}) holds {got_public} of {len(public)} public messages and "
                          f"{got_dms} of {len(dms)} DMs sent while it was away, 30 s after it came back")
        took = time.monotonic() - t0
        wait_until("every DM delivered", 15, lambda: all(
            s.proc.delivery.get(m, (0, ""))[1] == "delivered" for m, s in dms.items()))
        problems = []
        stored_public = id_counts(away, "public")
        twice = [m for m in public if stored_public.get(m, 0) != 1]
        shown = [m for m in list(public) + list(dms) if len(away.proc.messages.get(m, [])) > 1]
        if twice:
            problems.append(f"{len(twice)} public messages not stored exactly once")
        if shown:
            problems.append(f"{len(shown)} messages shown twice")
        if problems:
            raise Failure(f"{away.name}: " + "; ".join(problems))
        return (f"{away.name} ({clock_name(away)}) away: {len(public)}/{len(public)} public + {len(dms)}/{len(dms)} DMs "
                f"from {'+'.join(s.name for s in senders)}, each once, {took:.2f} s after restart")

    def scenario_killed_sender(self):
        """A sender DMs an offline peer (queued) and is killed with SIGKILL at
        random points, again and again (some while it starts). Afterwards every DM its history shows
        as its own reaches the peer exactly once: none stranded."""
        secret = self.secret_file("killed")
        port = self.private_port()
        sender = self.group_node(1, "ks", secret, port=port)
        peer = self.group_node(2, "kp", secret, port=port)
        for node in (sender, peer):
            node.start(self.binary)
            node.wait_ready()
        self.wait_mesh(timeout=20, among=[sender, peer])
        self.ensure_dm_open(sender, peer)
        mark = {sender.name: len(sender.proc.left)}
        peer.stop()
        self.wait_left([sender], peer, mark, timeout=DEAD + 5)
        seed = random.randrange(1 << 30)
        rng = random.Random(seed)
        kills = 20
        commands, answered, while_starting = 0, set(), 0
        for k in range(kills):
            if k and rng.random() < 0.2:
                # Some kills land while it starts (opening the store, loading the outbox).
                sender.start(self.binary)
                time.sleep(rng.uniform(0, 0.2))
                sender.crash()
                while_starting += 1
                continue
            if k:
                self.restart(sender)
            rids = []
            for _ in range(rng.randint(1, 12)):
                rids.append(sender.proc.send({"cmd": "dm", "to": peer.number, "text": f"kill round {k} dm {commands}"}))
                commands += 1
                if rng.random() < 0.5:
                    time.sleep(rng.uniform(0, 0.005))   # load shaping: kills land between and inside commands
            time.sleep(rng.uniform(0, 0.03))
            sender.crash()
            with sender.proc.cond:
                replies = [sender.proc.replies.get(rid) for rid in rids]
            answered |= {norm(r["id"]) for r in replies if r and r.get("event") == "ok"}
        check = integrity(sender)
        if check != "ok":
            raise Failure(f"sender's integrity_check after {kills} kills: {check[:200]}")
        self.restart(sender)
        room = f"dm:{peer.number}"
        history = set(sqlite(sender.db, f"SELECT lower(hex(id)) FROM messages WHERE room = '{room}' "
                                        f"AND sender = {sender.number};").split())
        lost = answered - history
        if lost:
            raise Failure(f"{len(lost)} DMs answered ok before a kill are not in the sender's history")
        t0 = time.monotonic()
        self.restart(peer)
        self.wait_mesh(timeout=20, among=[sender, peer])
        got = {}

        def arrived():
            got.update(id_counts(peer, f"dm:{sender.number}"))
            return history <= set(got)
        try:
            wait_until("every DM in the sender's history at the peer", 40, arrived, interval=0.2)
        except Failure:
            stranded = history - set(got)
            states = sqlite(sender.db, f"SELECT delivery, count(*) FROM messages WHERE room = '{room}' "
                                       f"AND sender = {sender.number} GROUP BY delivery;").split()
            raise Failure(f"{len(stranded)} of {len(history)} DMs in the sender's history stranded (seed {seed}); "
                          f"sender's delivery states {states}")
        took = time.monotonic() - t0
        doubled = [m for m in history if got[m] != 1]
        ghosts = set(got) - history
        if doubled or ghosts:
            raise Failure(f"{len(doubled)} DMs stored twice at the peer, {len(ghosts)} stored there that the "
                          f"sender's history lacks (seed {seed})")
        wait_until("the sender to mark every DM delivered", 15, lambda: sqlite(
            sender.db, f"SELECT count(*) FROM messages WHERE room = '{room}' AND sender = {sender.number} "
                       f"AND delivery IS NOT 'delivered';").strip() == "0", interval=0.2)
        return (f"{kills} kill -9s ({while_starting} while starting) among {commands} DM commands (seed {seed}): "
                f"{len(answered)} answered ok, "
                f"{len(history)} in the sender's history, all {len(history)} delivered once "
                f"{took:.2f} s after the peer came back; 0 stranded")


def clock_name(node):
    return "true clock" if node.clock is None else f"{node.clock[1] / 3600:+g} h"
