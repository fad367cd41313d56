"""Resources: a full disk (the flood is in flood_scenario.py)."""

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
        # Recovery is said once writes have gone through for
        # storageRecoveryQuiet (5 s) with none refused: wait for it.
        try:
            wait_until("the storage notice to say ok", 20, lambda: storage_events()[-1].get("ok") is True, interval=0.25)
        except Failure:
            pass
        storage = storage_events()
        if storage[-1].get("ok") is not True:
            problems.append(f"storage events {storage[:3]}: no 'ok' after the space came back")
        elif [e.get("ok") for e in storage if "peer" not in e] != [False, True]:
            problems.append(f"storage events flapped: {', '.join('ok' if e['ok'] else 'failed' for e in storage)}")
        check = integrity(receiver)
        if check != "ok":
            problems.append(f"integrity_check: {check[:200]}")
        if problems:
            raise Failure("; ".join(problems))
        return (f"{self.DISK_MIB} MiB tmpfs filled; {len(public)} public + {len(dms)} DMs sent: {full_public} + "
                f"{full_dms} stored while full (storage events: {', '.join('ok' if e['ok'] else 'failed' for e in storage)}); space "
                f"freed: all stored once {took:.2f} s later, no restart; integrity ok")


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
