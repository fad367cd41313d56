"""Resources: a full disk, a flooding peer."""

import errno
import os
import subprocess
import time

from .common import Failure, load_average, log, norm, wait_until
from .node import id_counts, integrity, public_ids


class ResourceScenarios:
    """Mixed into the harness; each method returns its figure or raises Failure."""

    DISK_MIB = 4           # the receiver's tmpfs
    STUCK_SECONDS = 20     # disk-full fails once the receiver gains nothing for this long (DM retry backoff: 1, 2, 4, 8, 16 s)
    FLOOD_SECONDS = 10     # 30 in a full run
    ROUND_TRIP_LIMIT = 10  # seconds, for each DM round trip during the flood
    RSS_MARGIN_MIB = 32    # flood bound: peak RSS < 2 x the start + this

    def scenario_disk_full(self):
        """The receiver's data dir is a small tmpfs. Fill it; two peers send
        public messages and DMs it cannot store; free the space: without a
        restart it ends up holding every one exactly once, integrity ok."""
        secret = self.secret_file("diskfull")
        port = self.private_port()
        receiver = self.group_node(1, "dfr", secret, port=port)
        os.makedirs(receiver.data, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.DISK_MIB}m,mode=0700", "lanchat-lan-test",
                        receiver.data], check=True)
        filler = os.path.join(receiver.data, "filler")
        try:
            return self.disk_full_with(receiver, filler, secret, port)
        finally:
            receiver.stop()
            subprocess.run(["umount", "-l", receiver.data], check=False)

    def disk_full_with(self, receiver, filler, secret, port):
        senders = [self.group_node(2, "dfa", secret, port=port), self.group_node(self.lan.hosts, "dfb", secret, port=port)]
        group = [receiver] + senders
        for node in group:
            node.start(self.binary)
        for node in group:
            node.wait_ready()
        self.wait_mesh(timeout=20, among=group)
        for s in senders:
            self.ensure_dm_open(s, receiver)
        filled = fill(filler)
        before = receiver.stats()
        storage_mark = len(receiver.proc.events)
        k = 20
        public, dms = set(), {}
        for i in range(k):
            for s in senders:
                public.add(norm(s.proc.call({"cmd": "send", "text": f"to a full disk {i} from {s.name}"})["id"]))
                dms[norm(s.proc.call({"cmd": "dm", "to": receiver.number, "text": f"dm to a full disk {i} from {s.name}"})["id"])] = s

        def arrived():
            counts = receiver.stats()["receivedByType"]
            return all(counts.get(t, 0) - before["receivedByType"].get(t, 0) >= len(public if t == "publicMessage" else dms)
                       for t in ("publicMessage", "directMessage"))
        wait_until("every message to reach the receiver (stored or not)", 15, arrived, interval=0.1)

        def held():
            stored = public_ids(receiver)
            rooms = {s.name: id_counts(receiver, f"dm:{s.number}") for s in senders}
            return len(public & stored), sum(1 for m, s in dms.items() if m in rooms[s.name])
        full_public, full_dms = held()

        def storage_events():
            with receiver.proc.cond:
                return [e for _, e in receiver.proc.events[storage_mark:] if e.get("event") == "storage"]
        refused = [e for e in storage_events() if e.get("ok") is False]
        if not refused or (full_public, full_dms) == (len(public), len(dms)):
            raise Failure(f"the disk never refused a write (filler {filled // 1024} KiB; {full_public} public, "
                          f"{full_dms} DMs stored): the scenario tests nothing")
        os.unlink(filler)
        t0 = time.monotonic()
        progress = [None, t0]

        def done_or_stuck():
            now = held()
            if now != progress[0]:
                progress[:] = [now, time.monotonic()]
            return now == (len(public), len(dms)) or time.monotonic() - progress[1] > self.STUCK_SECONDS
        wait_until(f"{receiver.name} to hold every message once space is back", 60, done_or_stuck, interval=0.25)
        got_public, got_dms = held()
        if (got_public, got_dms) != (len(public), len(dms)):
            raise Failure(f"after freeing the disk {receiver.name} holds {got_public} of {len(public)} public messages "
                          f"and {got_dms} of {len(dms)} DMs, and gained none for {self.STUCK_SECONDS} s "
                          f"({full_public} and {full_dms} stored while full; storage events: "
                          f"{', '.join('ok' if e['ok'] else 'failed' for e in storage_events())}); no restart")
        took = time.monotonic() - t0
        problems = []
        stored_public = id_counts(receiver, "public")
        twice = sum(1 for m in public if stored_public[m] != 1)
        if twice:
            problems.append(f"{twice} public messages stored twice")
        for s in senders:
            counts = id_counts(receiver, f"dm:{s.number}")
            twice = sum(1 for m, x in dms.items() if x is s and counts[m] != 1)
            if twice:
                problems.append(f"{twice} DMs from {s.name} stored twice")
        shown = sum(1 for m in list(public) + list(dms) if len(receiver.proc.messages.get(m, [])) > 1)
        if shown:
            problems.append(f"{shown} messages shown twice")
        if len(receiver.procs) != 1:
            problems.append(f"{receiver.name} restarted")
        storage = storage_events()
        if storage[-1].get("ok") is not True:
            problems.append(f"storage events {storage[:3]}: no 'ok' after the space came back")
        check = integrity(receiver)
        if check != "ok":
            problems.append(f"integrity_check: {check[:200]}")
        if problems:
            raise Failure("; ".join(problems))
        return (f"{self.DISK_MIB} MiB tmpfs filled; {len(public)} public + {len(dms)} DMs sent: {full_public} + "
                f"{full_dms} stored while full (storage events: {', '.join('ok' if e['ok'] else 'failed' for e in storage)}); space "
                f"freed: all stored once {took:.2f} s later, no restart; integrity ok")

    def scenario_flood(self):
        """A chatter bot floods public messages at its top rate for ~10 s at
        an --in-memory node, while that node DMs an echo bot: its RSS stays under 2 x the start + RSS_MARGIN_MIB, and every
        DM round trip during the flood completes within ROUND_TRIP_LIMIT."""
        secret = self.secret_file("flood")
        port = self.private_port()
        receiver = self.group_node(1, "flr", secret, extra=["--in-memory"],
                                   skip=('"text":"chatter ', '"event":"unread"'), port=port)
        echo = self.group_node(2, "fle", secret, kind="echo", extra=["--in-memory"], port=port)
        for node in (receiver, echo):
            node.start(self.binary)
            node.wait_ready()
        self.wait_mesh(timeout=20, among=[receiver, echo])
        rtts, samples, t0, before = [], [], None, 0

        lags = []   # how late the node's own event for a DM came after the command's answer

        def round_trip(i, limit):
            t = time.monotonic()
            mid = norm(receiver.proc.call({"cmd": "dm", "to": echo.number, "text": f"ping {i}"}, timeout=limit)["id"])
            answered_at = time.monotonic()

            def answered():
                with receiver.proc.cond:
                    return any(evs[0][1]["text"] == f"echo: ping {i}" for evs in receiver.proc.messages.values())
            try:
                wait_until(f"the echo of ping {i}", max(0.1, limit - (time.monotonic() - t)), answered, interval=0.01)
            except Failure:
                raise Failure(f"DM round trip {i} to the echo bot not done within {limit:g} s" + flood_state(mid, answered_at))
            rtts.append(time.monotonic() - t)
            lags.append(receiver.proc.messages[mid][0][0] - answered_at)

        def flood_state(mid, answered_at):
            """What the receiver read and said, for a failure."""
            text = f", {time.monotonic() - t0:.1f} s into the flood" if t0 else ""
            try:
                got = receiver.proc.call({"cmd": "stats"}, timeout=5)["receivedByType"].get("publicMessage", 0)
                text += f"; it read {got - before} flood msgs, its event stream carried {receiver.proc.skipped} of them"
            except Failure:
                pass
            with receiver.proc.cond:
                own = receiver.proc.messages.get(mid)
                delivered = receiver.proc.delivery.get(mid)
            text += (f"; the event for the ping itself came {own[0][0] - answered_at:.1f} s after the command's answer"
                     if own else f"; no event for the ping itself {time.monotonic() - answered_at:.1f} s after the command's answer")
            if delivered:
                text += f", last delivery state {delivered[1]}"
            return (text + f" (earlier round trips {', '.join(f'{r * 1000:.0f}' for r in rtts)} ms; RSS "
                    f"{', '.join(f'{k / 1024:.0f}' for k in samples)} MiB)")
        round_trip(0, 10)
        start_kib = max(receiver.rss_kib() for _ in range(3))
        before = receiver.stats()["receivedByType"].get("publicMessage", 0)
        # One flooder: every member processes every flood message (3 nodes
        # here), and the link's frame budget (PeerLimits: 1,000 frames/s)
        # caps one peer anyway; more flooders only share the two cores.
        flooder = self.group_node(self.lan.hosts, "flf", secret, kind="chatter",
                                  extra=["--in-memory", "--rate", "10000"], port=port)
        flooder.start(self.binary)
        flooder.wait_ready()
        t0 = time.monotonic()
        samples.append(start_kib)
        i = 0
        try:
            while time.monotonic() - t0 < (self.FLOOD_SECONDS if self.args.quick else 3 * self.FLOOD_SECONDS):
                i += 1
                round_trip(i, self.ROUND_TRIP_LIMIT)
                samples.append(receiver.rss_kib())
        finally:
            flooder.stop()
        flood_s = time.monotonic() - t0
        got = receiver.stats()["receivedByType"].get("publicMessage", 0) - before
        end_kib = receiver.rss_kib()
        peak = max(samples + [end_kib])
        bound = 2 * start_kib + self.RSS_MARGIN_MIB * 1024
        figure = (f"a chatter bot flooding: {got} msgs reached an --in-memory node in {flood_s:.1f} s "
                  f"({got / flood_s:.0f}/s): its RSS {start_kib / 1024:.0f} MiB at start, peak {peak / 1024:.0f}, end "
                  f"{end_kib / 1024:.0f} (bound {bound / 1024:.0f} = 2x start + {self.RSS_MARGIN_MIB}); "
                  f"{len(rtts) - 1} DM round trips meanwhile, max {max(rtts[1:]) * 1000:.0f} ms (event stream up to "
                  f"{max(lags):.2f} s behind the command answers)")
        log(f"  receiver's flood lines (message events) {receiver.proc.skipped}")
        if got < 1000:
            raise Failure(f"the flood was too thin to test anything ({load_average()}): {figure}")
        if peak > bound:
            raise Failure(f"RSS over the bound: {figure}")
        return figure


def fill(path):
    """Writes zeros to `path` until the file system is full; returns the bytes written."""
    written = 0
    chunk = b"\0" * 65536
    with open(path, "wb", buffering=0) as f:
        while True:
            try:
                written += f.write(chunk)
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
                if len(chunk) == 1:
                    break
                chunk = chunk[: len(chunk) // 2]
    return written
