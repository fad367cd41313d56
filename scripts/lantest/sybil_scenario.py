"""Resources: fresh identities flood; honest newcomers and the user are still stored and shown."""

import os
import time

from .common import OVERLAY, Failure, load_average, norm, wait_until
from .node import integrity


class SybilScenario:
    """Mixed into the harness; each method returns its figure or raises Failure."""

    CAP_MIB = 2            # the receiver's --max-history
    MARGIN_MIB = 1         # WALBound.margin for a cap under 4 MiB (docs/OPERATIONS.md)
    FLOODERS = 6           # chatter bots, each a fresh identity (--in-memory)
    SYBIL_FLOOD_SECONDS = 12   # (its own name too: FloodScenario has FLOOD_SECONDS)
    # Seconds from an honest message's send to the receiver's message event.
    # (Its own name: the harness mixes in FloodScenario, whose SHOWN_LIMIT
    # of 20 s shadowed this one's 10 s.) With the overlay forced on, the
    # joiners' messages reach the receiver through flooders' relays, whose
    # queues hold the flood: 8-12 s at load 25 (a full mesh: 1-1.6 s).
    SYBIL_SHOWN_LIMIT = 20 if OVERLAY else 10

    def scenario_sybil(self):
        """Chatter bots with fresh keys flood a receiver on disk capped at
        CAP_MIB (--max-history) while two honest nodes join mid-flood and
        chat, and the receiver's user writes. Passes when every honest and
        own message is stored and shown by the receiver within SYBIL_SHOWN_LIMIT,
        the flood is stored too (the pool ages its oldest out: `agedOut`),
        storing never stops (no `storage` ok:false), and the history files
        (database + WAL + SHM) stay within the cap plus its margin."""
        secret = self.secret_file("sybil")
        port = self.private_port()
        receiver = self.group_node(1, "syr", secret, extra=["--max-history", str(self.CAP_MIB)],
                                   skip=('"text":"chatter ', '"event":"unread"'), port=port)
        receiver.start(self.binary)
        receiver.wait_ready()
        cap = (self.CAP_MIB + self.MARGIN_MIB) * 1_048_576
        largest = [0]

        def measure():
            total = sum(os.path.getsize(receiver.db + suffix) for suffix in ("", "-wal", "-shm")
                        if os.path.exists(receiver.db + suffix))
            largest[0] = max(largest[0], total)

        flooders = [self.group_node(2 + i % (self.lan.hosts - 1), f"syf{i}", secret, kind="chatter",
                                    extra=["--in-memory", "--rate", "2000"], port=port) for i in range(self.FLOODERS)]
        for node in flooders:
            node.start(self.binary)
        for node in flooders:
            node.wait_ready()
        before = receiver.stats()["receivedByType"].get("publicMessage", 0)
        t0 = time.monotonic()
        shown = []                 # seconds from send to the receiver's event
        storage_mark = len(receiver.proc.events)

        def wait_shown(mid, what):
            t = time.monotonic()
            def seen():
                measure()
                with receiver.proc.cond:
                    return mid in receiver.proc.messages
            wait_until(f"{what} shown by the receiver", self.SYBIL_SHOWN_LIMIT, seen, interval=0.05)
            shown.append(time.monotonic() - t)

        try:
            while time.monotonic() - t0 < self.SYBIL_FLOOD_SECONDS / 3:
                measure()
                time.sleep(0.2)
            # Two honest nodes join in the middle of the flood and chat.
            joiners = [self.group_node(2 + i % (self.lan.hosts - 1), f"syh{i}", secret, port=port) for i in range(2)]
            for node in joiners:
                node.start(self.binary)
            for node in joiners:
                node.wait_ready()
            if OVERLAY:
                # Bounded views: each linked to someone; gossip (flooders relay too) carries the rest.
                wait_until("the joiners and the receiver each linked", 20,
                           lambda: all(n.proc.present for n in joiners + [receiver]), interval=0.1)
            else:
                wait_until("the joiners linked to the receiver", 20,
                           lambda: all(j.number in receiver.proc.present for j in joiners), interval=0.1)
            i = 0

            def flooding():
                took = time.monotonic() - t0
                # Relays pass the flood on at their links' budgets, so less of
                # it reaches the receiver through the overlay: it goes on (up
                # to twice as long) until the pool has had to age some out.
                return took < self.SYBIL_FLOOD_SECONDS or (
                    OVERLAY and took < 2 * self.SYBIL_FLOOD_SECONDS
                    # (its reply queues behind the flood's events: a long wait)
                    and receiver.proc.call({"cmd": "stats"}, timeout=30).get("agedOut", 0) == 0)
            while flooding():
                i += 1
                for node in joiners:
                    mid = norm(node.proc.call({"cmd": "send", "text": f"honest {node.name} {i}"})["id"])
                    wait_shown(mid, f"{node.name}'s message {i}")
                mine = receiver.proc.call({"cmd": "send", "text": f"the receiver's own {i}"})
                wait_shown(norm(mine["id"]), f"the receiver's own message {i}")
        finally:
            for node in flooders:
                node.stop()
        measure()
        stats = receiver.stats()
        got = stats["receivedByType"].get("publicMessage", 0) - before
        with receiver.proc.cond:
            refused = [e for _, e in receiver.proc.events[storage_mark:] if e.get("event") == "storage" and e.get("ok") is False]
        figure = (f"{self.FLOODERS} fresh identities flooding: {got} msgs reached a receiver capped at {self.CAP_MIB} MiB "
                  f"in {time.monotonic() - t0:.1f} s, {stats.get('agedOut', 0)} aged out; {len(shown)} honest and own "
                  f"messages all shown, slowest {max(shown) * 1000:.0f} ms; files at most {largest[0] / 1_048_576:.2f} MiB "
                  f"(bound {cap / 1_048_576:.0f})")
        if got < 1000:
            raise Failure(f"the flood was too thin to test anything ({load_average()}): {figure}")
        if refused:
            raise Failure(f"storing stopped ({refused[0]}): {figure}")
        if stats.get("agedOut", 0) == 0:
            raise Failure(f"nothing aged out of the pool: {figure}")
        if largest[0] > cap:
            raise Failure(f"the files passed the cap and its margin: {figure}")
        receiver.stop()
        ok = integrity(receiver)
        if ok != "ok":
            raise Failure(f"integrity_check: {ok}: {figure}")
        return figure
