"""Resources: one peer floods; memory stays flat and the others keep chatting."""

import time

from .common import OVERLAY, Failure, load_average, norm, wait_until


class FloodScenario:
    """Mixed into the harness; each method returns its figure or raises Failure."""

    FLOOD_SECONDS = 10     # 30 in a full run
    ROUND_TRIP_LIMIT = 10  # seconds: each DM round trip during the flood, in the node (the echo stored)
    SHOWN_LIMIT = 20       # seconds: the same, until the JSON client has the echo's event; the
                           # event stream lags the node under a flood (6-10 s measured here)
    RSS_MARGIN_MIB = 32    # bound: peak RSS < 2 x the start + this
    # The overlay's per-author budget for gossiped public messages
    # (OverlayConfig.authorBurst, authorPerSecond): on the overlay the flood
    # reaches the receiver only by gossip, so at most this much of it.
    AUTHOR_BURST = 1000
    AUTHOR_PER_SECOND = 100
    # On the overlay the flooder, pushing past its budget, is soon scored
    # down and held off by its neighbours, so little more than the burst
    # arrives: fewer than half of it means the flood never reached the receiver.
    OVERLAY_THIN = AUTHOR_BURST // 2

    def scenario_flood(self):
        """A chatter bot floods public messages at its top rate for ~10 s at
        an --in-memory node, which meanwhile DMs an echo bot again and again;
        a full run floods for 30 s, then does the same to a node on disk.
        Passes when the node's RSS stays under 2 x the start + RSS_MARGIN_MIB,
        and each DM round trip completes within ROUND_TRIP_LIMIT in the node
        (the echo is stored: `rooms`) and within SHOWN_LIMIT for its JSON
        client (the echo's message event). On the overlay the flood reaches
        the receiver by gossip only, so it must also stay within the
        per-author budget (AUTHOR_BURST + AUTHOR_PER_SECOND a second), however
        many neighbours relay it; a link's frame budget alone would let k
        relays carry k times as much."""
        figures = [self.flood_into("--in-memory")]
        if not self.args.quick:
            self.retire()
            figures.append(self.flood_into("on disk"))
        return "; ".join(figures)

    def flood_into(self, store):
        """One flood at a receiver with `store` ("--in-memory" or "on disk");
        returns the figure."""
        secret = self.secret_file("flood")
        port = self.private_port()
        memory = store == "--in-memory"
        prefix = "fl" if memory else "fd"
        receiver = self.group_node(1, prefix + "r", secret, extra=["--in-memory"] if memory else [],
                                   skip=('"text":"chatter ', '"event":"unread"'), port=port)
        echo = self.group_node(2, prefix + "e", secret, kind="echo", extra=["--in-memory"], port=port)
        for node in (receiver, echo):
            node.start(self.binary)
            node.wait_ready()
        self.wait_mesh(timeout=20, among=[receiver, echo])
        trips = []                       # (stored after, shown after) in seconds
        state = {"t0": None, "before": 0, "samples": []}

        def round_trip(i, limit, shown_limit):
            t = time.monotonic()
            text = f"ping {i}"
            mid = norm(receiver.proc.call({"cmd": "dm", "to": echo.number, "text": text}, timeout=limit)["id"])
            room = f"dm:{echo.number}"

            def stored():
                groups = receiver.proc.call({"cmd": "rooms"}, timeout=limit)["groups"]
                return any(r["room"] == room and r.get("lastText") == f"echo: {text}"
                           for g in groups for r in g["rooms"])

            def shown():
                with receiver.proc.cond:
                    return any(evs[0][1]["text"] == f"echo: {text}" for evs in receiver.proc.messages.values())
            try:
                wait_until(f"the echo of {text} stored", max(0.1, limit - (time.monotonic() - t)),
                           lambda: shown() or stored(), interval=0.05)
                stored_after = time.monotonic() - t
                wait_until(f"the echo of {text} shown", max(0.1, shown_limit - stored_after), shown, interval=0.01)
            except Failure as failure:
                raise Failure(f"DM round trip {i} to the echo bot: {failure}" + flood_state(mid, t))
            trips.append((stored_after, time.monotonic() - t))

        def flood_state(mid, t):
            """Where the receiver is, for a failure."""
            text = f", {time.monotonic() - state['t0']:.1f} s into the flood" if state["t0"] else ""
            try:
                got = receiver.proc.call({"cmd": "stats"}, timeout=5)["receivedByType"].get("publicMessage", 0)
                text += (f"; the node read {got - state['before']} flood msgs, its event stream carried "
                         f"{receiver.proc.skipped} of them")
            except Failure:
                pass
            with receiver.proc.cond:
                own = receiver.proc.messages.get(mid)
            text += (f"; the ping's own event came {own[0][0] - t:.1f} s after the command" if own else
                     f"; no event for the ping itself {time.monotonic() - t:.1f} s after the command")
            return (text + f" (earlier round trips stored/shown: "
                    f"{', '.join(f'{a * 1000:.0f}/{b * 1000:.0f}' for a, b in trips)} ms; RSS "
                    f"{', '.join(f'{k / 1024:.0f}' for k in state['samples'])} MiB)")

        round_trip(0, 10, 10)
        start_kib = max(receiver.rss_kib() for _ in range(3))
        state["samples"].append(start_kib)
        state["before"] = receiver.stats()["receivedByType"].get("publicMessage", 0)
        # One flooder: every member processes every flood message (3 nodes
        # here), and a link's frame budget (PeerLimits: 1,000 frames/s) caps
        # one peer anyway; more flooders would only share the two cores.
        flooder = self.group_node(self.lan.hosts, prefix + "f", secret, kind="chatter",
                                  extra=["--in-memory", "--rate", "10000"], port=port)
        flooder.start(self.binary)
        flooder.wait_ready()
        state["t0"] = t0 = time.monotonic()
        length = self.FLOOD_SECONDS if self.args.quick else 3 * self.FLOOD_SECONDS
        i = 0
        try:
            while time.monotonic() - t0 < length:
                i += 1
                round_trip(i, self.ROUND_TRIP_LIMIT, self.SHOWN_LIMIT)
                state["samples"].append(receiver.rss_kib())
        finally:
            flooder.stop()
        flood_s = time.monotonic() - t0
        got = receiver.stats()["receivedByType"].get("publicMessage", 0) - state["before"]
        end_kib = receiver.rss_kib()
        peak = max(state["samples"] + [end_kib])
        bound = 2 * start_kib + self.RSS_MARGIN_MIB * 1024
        during = trips[1:]
        target = "an --in-memory node" if memory else "a node on disk"
        figure = (f"a chatter bot flooding: {got} msgs reached {target} in {flood_s:.1f} s "
                  f"({got / flood_s:.0f}/s): its RSS {start_kib / 1024:.0f} MiB at start, peak {peak / 1024:.0f}, end "
                  f"{end_kib / 1024:.0f} (bound {bound / 1024:.0f} = 2x start + {self.RSS_MARGIN_MIB}); "
                  f"{len(during)} DM round trips meanwhile, max {max(a for a, _ in during) * 1000:.0f} ms stored, "
                  f"{max(b for _, b in during) * 1000:.0f} ms shown to the JSON client")
        if OVERLAY:
            budget = self.AUTHOR_BURST + self.AUTHOR_PER_SECOND * flood_s
            over = receiver.stats()["transport"].get("gossipOverBudget", 0)
            figure += f"; per-author budget {budget:.0f} in {flood_s:.0f} s, {over} flood msgs dropped over it"
            if got < self.OVERLAY_THIN:
                raise Failure(f"the flood was too thin to test anything ({load_average()}): {figure}")
            if got > budget:
                raise Failure(f"the flood passed the per-author budget: {figure}")
        elif got < 1000:
            raise Failure(f"the flood was too thin to test anything ({load_average()}): {figure}")
        if peak > bound:
            raise Failure(f"RSS over the bound: {figure}")
        return figure
