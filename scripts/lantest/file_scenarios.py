"""Files across the LAN: a transfer under 20% loss, and one across a cut
cable and a reset of every connection between the two hosts. Each runs
on three nodes of its own (a private discovery port and group secret):
the sender on host 1, the receiver on host 2 (saving to a download
directory in the work directory), a witness on host 3 that chats while
the bytes move."""

import hashlib
import json
import os
import subprocess
import time

from .common import LOSS_ONE_IN, SILENT_CUT, Failure, norm, wait_until


class FileScenarios:
    """Mixed into the harness; each method returns its figure or raises Failure."""

    LOSS_FILE_MIB = 20     # file-loss: 1-2 min at 20% loss each way (0.16-0.36 MB/s measured, with TCP backoff stalls)
    CUT_FILE_MIB = 16      # file-cut: paced by the sender's --file-rate
    CUT_RATE_KIB = 2048    # so the transfer lasts ~8 s, long enough to cut it twice
    STALL_SECONDS = 90     # a transfer that gains nothing for this long fails (TCP backoff under loss: 49 s seen)

    def scenario_file_loss(self):
        """A 20 MiB file under 20% loss of every packet between the two
        hosts (both ways): it arrives byte-exact (SHA-256), and public
        messages sent meanwhile, by the sender and by a third node, arrive."""
        sender, receiver, witness, downloads = self.file_trio("fl")
        source, digest = self.random_file("fl", self.LOSS_FILE_MIB)
        lossy = (sender.host, receiver.host)
        try:
            for host in lossy:
                self.lan.add_loss(host, LOSS_ONE_IN)
            transfer, t0 = self.offer_and_accept(sender, receiver, source)
            self.wait_progress(receiver, transfer, 0.1)
            chat = self.chat_during(transfer, receiver, [sender, witness])
            done = self.wait_done(sender, receiver, transfer)
            drops = sum(self.lan.loss_drops(host) for host in lossy)
        finally:
            for host in lossy:
                self.lan.remove_loss(host)
        took = done["t"] - t0
        self.check_saved(receiver, transfer, done, downloads, source, digest)
        counters = receiver.stats()["transport"]
        rate = self.progress_rate(receiver, transfer, t0, done["t"])
        self.wait_mesh(timeout=30, among=[sender, receiver, witness])
        self.wait_mesh()
        return (f"{self.LOSS_FILE_MIB} MiB under {100 // LOSS_ONE_IN}% loss each way ({drops} packets dropped): "
                f"byte-exact (SHA-256) in {took:.1f} s ({self.LOSS_FILE_MIB * 1048576 / took / 1e6:.2f} MB/s), "
                f"{counters.get('fileLinksDialled', 0)} file link(s) dialled, {rate:.1f} progress events/s; {chat}")

    def scenario_file_cut(self):
        """A 16 MiB file paced at 2 MiB/s: the receiver's cable is pulled
        until both ends drop their chat link, then plugged back; later
        every TCP connection between the two hosts is reset (`ss -K`).
        The transfer resumes from the partial file (the receiver dials
        again, no byte travels twice) and arrives byte-exact; public
        messages sent meanwhile arrive."""
        sender, receiver, witness, downloads = self.file_trio("fc", sender_extra=["--file-rate", str(self.CUT_RATE_KIB)])
        source, digest = self.random_file("fc", self.CUT_FILE_MIB)
        size = self.CUT_FILE_MIB * 1048576
        transfer, t0 = self.offer_and_accept(sender, receiver, source)

        # The cable: out until both sides saw the other leave (their chat
        # link is gone), with a message said on the sender's side meanwhile.
        self.wait_progress(receiver, transfer, 0.2)
        dialled_at_cut = receiver.stats()["transport"].get("fileLinksDialled", 0)
        marks = {n.name: len(n.proc.left) for n in (sender, receiver)}
        cut_at = self.received(receiver, transfer)
        t_cut = time.monotonic()
        self.lan.cut(receiver.host)
        try:
            self.wait_left([sender], receiver, marks, timeout=SILENT_CUT + 6)
            self.wait_left([receiver], sender, marks, timeout=SILENT_CUT + 6)
            during_cut = witness.proc.call({"cmd": "send", "text": "said while fcb's cable is out"})["id"]
        finally:
            self.lan.heal(receiver.host)
        cut_for = time.monotonic() - t_cut
        self.wait_mesh(timeout=20, among=[sender, receiver, witness])
        wait_until("the message said during the cut to reach the receiver (catch-up)", 20,
                   lambda: norm(during_cut) in receiver.proc.messages, interval=0.05)

        # The reset: every TCP connection between the hosts aborted at the
        # receiver's end (the sender's end is answered with RST on its next
        # write); the receiver must dial again and go on from its partial file.
        self.wait_progress(receiver, transfer, max(0.5, (cut_at + 1) / size))
        dialled = receiver.stats()["transport"].get("fileLinksDialled", 0)
        # Over the cut the file link's TCP connection may hold (retransmits)
        # or time out and be dialled again: either way no byte is lost.
        after_cut = "held" if dialled == dialled_at_cut else f"dialled again {dialled - dialled_at_cut} time(s)"
        reset_at = self.received(receiver, transfer)
        subprocess.run(["ip", "netns", "exec", self.lan.host(receiver.host), "ss", "-K", "-t", "dst",
                        self.lan.address(sender.host)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        chat = self.chat_during(transfer, receiver, [sender, witness])
        done = self.wait_done(sender, receiver, transfer)
        took = done["t"] - t0
        self.check_saved(receiver, transfer, done, downloads, source, digest)
        counters = receiver.stats()["transport"]
        rate = self.progress_rate(receiver, transfer, t0, done["t"])
        redials = counters.get("fileLinksDialled", 0) - dialled
        received = counters.get("fileBytesReceived", 0)
        problems = []
        if redials < 1:
            problems.append("the receiver never dialled again after its connections were reset (the reset did not bite)")
        # Started over, it would receive size + reset_at bytes at least.
        if received >= size + reset_at // 2:
            problems.append(f"{received} bytes received for a {size}-byte file: the transfer started over "
                            f"instead of resuming from {reset_at}")
        if problems:
            raise Failure("; ".join(problems))
        self.wait_mesh()
        return (f"{self.CUT_FILE_MIB} MiB at {self.CUT_RATE_KIB} KiB/s: cable out {cut_for:.1f} s at "
                f"{cut_at * 100 // size}% (chat links dropped, the file link {after_cut}), connections reset at {reset_at * 100 // size}%; "
                f"{redials} redial(s) after it, {received} bytes received for {size}; byte-exact (SHA-256) after {took:.1f} s "
                f"(~{size / (self.CUT_RATE_KIB * 1024):.0f} s unhindered), {rate:.1f} progress events/s; {chat}")

    # ---- parts ----------------------------------------------------------

    def file_trio(self, tag, sender_extra=()):
        """Sender (host 1), receiver (host 2) and witness (last host) on a
        discovery port of their own; the sender and receiver have an
        accepted DM conversation (offers from others are held)."""
        secret = self.secret_file(tag)
        port = self.private_port()
        downloads = os.path.join(self.work, "downloads", tag)
        sender = self.group_node(1, f"{tag}a", secret, port=port, extra=list(sender_extra))
        receiver = self.group_node(2, f"{tag}b", secret, port=port, extra=["--download-dir", downloads])
        witness = self.group_node(self.lan.hosts, f"{tag}c", secret, port=port)
        trio = [sender, receiver, witness]
        for node in trio:
            node.start(self.binary)
        for node in trio:
            node.wait_ready()
        self.wait_mesh(timeout=20, among=trio)
        self.ensure_dm_open(sender, receiver)
        return sender, receiver, witness, downloads

    def random_file(self, tag, mib):
        """MIB of random bytes in the work directory; (path, SHA-256 hex)."""
        path = os.path.join(self.work, "files", f"{tag}.bin")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        digest = hashlib.sha256()
        with open(path, "wb") as f:
            for _ in range(mib):
                chunk = os.urandom(1048576)
                digest.update(chunk)
                f.write(chunk)
        return path, digest.hexdigest()

    def offer_and_accept(self, sender, receiver, path):
        """sendFile, the receiver's fileOffer (checked), acceptFile; (id, accept time)."""
        transfer = sender.proc.call({"cmd": "sendFile", "to": receiver.number, "path": path}, timeout=30)["id"]
        offer = self.wait_file_event(receiver, "fileOffer", transfer, 10)
        if offer.get("size") != os.path.getsize(path) or offer.get("name") != os.path.basename(path):
            raise Failure(f"the offer says {offer.get('name')!r}, {offer.get('size')} bytes; "
                          f"the file is {os.path.basename(path)!r}, {os.path.getsize(path)} bytes")
        t0 = time.monotonic()
        self.file_command(receiver, "acceptFile", transfer)
        return transfer, t0

    @staticmethod
    def file_command(node, cmd, transfer, timeout=10):
        """acceptFile, declineFile, cancelFile: their "id" is the transfer's,
        and the request id the reply echoes as "re" (Proc.send would
        replace it with one of its own)."""
        node.proc.popen.stdin.write(json.dumps({"cmd": cmd, "id": transfer}) + "\n")
        node.proc.popen.stdin.flush()
        event = node.proc.reply(transfer, timeout)
        if event.get("event") == "error":
            raise Failure(f"{node.name}: {cmd} failed: {event.get('message')}")
        return event

    @staticmethod
    def file_events(node, kind, transfer):
        with node.proc.cond:
            return [(t, e) for t, e in node.proc.events if e.get("event") == kind and e.get("id") == transfer]

    def wait_file_event(self, node, kind, transfer, timeout):
        def found():
            failed = self.file_events(node, "fileFailed", transfer)
            if failed and kind != "fileFailed":
                raise Failure(f"{node.name}: the transfer failed: {failed[0][1].get('reason')}")
            events = self.file_events(node, kind, transfer)
            return events[0][1] if events else None
        return wait_until(f"{node.name}'s {kind}", timeout, found, interval=0.05)

    def received(self, receiver, transfer):
        """The most bytes the receiver's fileProgress said so far."""
        return max((e.get("bytes", 0) for _, e in self.file_events(receiver, "fileProgress", transfer)), default=0)

    def wait_progress(self, receiver, transfer, fraction):
        size = None

        def reached():
            nonlocal size
            events = self.file_events(receiver, "fileProgress", transfer)
            if self.file_events(receiver, "fileFailed", transfer):
                raise Failure(f"the transfer failed: {self.file_events(receiver, 'fileFailed', transfer)[0][1].get('reason')}")
            if events:
                size = events[-1][1]["size"]
            return size is not None and self.received(receiver, transfer) >= fraction * size
        wait_until(f"{receiver.name} to hold {fraction:.0%} of the file", self.STALL_SECONDS, reached, interval=0.05)

    def wait_done(self, sender, receiver, transfer):
        """fileDone at both ends; fails once the receiver gains nothing for
        STALL_SECONDS. The receiver's event, with its time as "t"."""
        progress = [-1, time.monotonic()]

        def done_or_stuck():
            if self.file_events(receiver, "fileFailed", transfer):
                return True
            if self.file_events(receiver, "fileDone", transfer):
                return True
            now = self.received(receiver, transfer)
            if now != progress[0]:
                progress[:] = [now, time.monotonic()]
            return time.monotonic() - progress[1] > self.STALL_SECONDS
        wait_until("the transfer to finish", 600, done_or_stuck, interval=0.1)
        failed = self.file_events(receiver, "fileFailed", transfer)
        if failed:
            raise Failure(f"the transfer failed at the receiver: {failed[0][1].get('reason')}")
        done = self.file_events(receiver, "fileDone", transfer)
        if not done:
            raise Failure(f"the transfer stalled at {progress[0]} bytes: nothing for {self.STALL_SECONDS} s")
        self.wait_file_event(sender, "fileDone", transfer, 30)
        t, event = done[0]
        return dict(event, t=t)

    def chat_during(self, transfer, receiver, speakers):
        """Each speaker sends a public message while the file moves; each
        must reach the receiver. Says how long each took, and whether it
        came before the file was done."""
        sent = []
        for node in speakers:
            t = time.monotonic()
            sent.append((node, t, norm(node.proc.call({"cmd": "send", "text": f"{node.name} talks during the transfer"})["id"])))
        try:
            wait_until("the messages sent during the transfer to reach the receiver", 60,
                       lambda: all(m in receiver.proc.messages for _, _, m in sent), interval=0.02)
        except Failure:
            missing = [n.name for n, _, m in sent if m not in receiver.proc.messages]
            raise Failure(f"public messages from {', '.join(missing)} sent during the transfer never reached {receiver.name}")
        done = self.file_events(receiver, "fileDone", transfer)
        parts = []
        for node, t, m in sent:
            arrived = receiver.proc.messages[m][0][0]
            before = not done or arrived < done[0][0]
            parts.append(f"{node.name}'s in {arrived - t:.2f} s{'' if before else ' (after the file)'}")
        return "chat meanwhile: " + ", ".join(parts)

    def check_saved(self, receiver, transfer, done, downloads, source, digest):
        """The saved file: where fileDone says, in the download directory,
        the same SHA-256 as the source (hashed here), no partial file left."""
        path = done.get("path", "")
        name = os.path.basename(source)
        problems = []
        if os.path.dirname(path) != downloads:
            problems.append(f"saved at {path!r}, not in {downloads}")
        if done.get("sha256") != digest:
            problems.append(f"fileDone says SHA-256 {done.get('sha256')}, the source is {digest}")
        got = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    got.update(chunk)
        except OSError as error:
            problems.append(f"cannot read the saved file: {error}")
        else:
            if got.hexdigest() != digest:
                problems.append(f"the saved file hashes to {got.hexdigest()}, the source to {digest}")
        left = sorted(set(os.listdir(downloads)) - {name})
        if left:
            problems.append(f"left in the download directory: {left}")
        if problems:
            raise Failure("; ".join(problems))

    def progress_rate(self, receiver, transfer, t0, t1):
        """fileProgress events a second at the receiver (the issue: a few a second at most)."""
        count = len(self.file_events(receiver, "fileProgress", transfer))
        rate = count / max(t1 - t0, 0.001)
        if rate > 10:
            raise Failure(f"{count} fileProgress events in {t1 - t0:.1f} s: more than a few a second")
        return rate
