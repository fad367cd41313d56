"""Key continuity on the LAN: an impostor after the observer restarts."""

import time

from .common import Failure, wait_until
from .node import Node


class KeyScenarios:
    """Mixed into the harness; each method returns its figure or raises Failure."""

    def scenario_impostor(self):
        """An observer verifies alice's key, stops and starts again on its
        data directory; then another node with its own key takes the
        nickname alice. The observer's --json says `keyChanged` (naming the
        verified key), the peer's trust is `changed`, and a DM to it is held,
        not sent. On a discovery port of its own: the mesh never sees it."""
        port = self.private_port()
        extra = ["--discovery-port", str(port)]
        hosts = self.lan.hosts
        observer = Node(self.lan, self.work, 1, "ksobserver", extra=extra)
        alice = Node(self.lan, self.work, 2, "ksalice", extra=extra, nick="alice")
        impostor = Node(self.lan, self.work, hosts, "ksimpostor", extra=extra, nick="alice")
        self.extras += [observer, alice, impostor]
        t0 = time.monotonic()
        for node in (observer, alice):
            node.start(self.binary)
        for node in (observer, alice):
            node.wait_ready()
        wait_until("the observer to link to alice", 20, lambda: alice.number in observer.proc.present)
        verified = observer.proc.call({"cmd": "verify", "name": "alice", "confirm": True})
        if verified.get("trust") != "verified":
            raise Failure(f"verify did not mark alice verified: {verified}")
        alice.stop()
        observer.stop()
        self.restart(observer)
        restarted = time.monotonic()
        impostor.start(self.binary)
        impostor.wait_ready()
        if impostor.number == alice.number:
            raise Failure("the impostor has alice's node number: it should have its own key")

        def key_changed():
            with observer.proc.cond:
                return next((e for _, e in observer.proc.events if e.get("event") == "keyChanged"), None)
        change = wait_until("the observer's keyChanged about the impostor", 20, key_changed)
        flagged = time.monotonic() - restarted
        if change.get("nickname") != "alice" or change["peer"].get("number") != impostor.number:
            raise Failure(f"keyChanged names the wrong peer: {change}")
        if not change.get("previousVerified") or not change.get("dmsHeld"):
            raise Failure(f"keyChanged does not say the name's key was verified: {change}")
        if change["peer"].get("trust") != "changed":
            raise Failure(f"the impostor's trust is {change['peer'].get('trust')}, not changed")
        held = observer.proc.reply(observer.proc.send({"cmd": "dm", "to": impostor.number, "text": "for alice only"}))
        if held.get("event") != "error" or held.get("held") != 1:
            raise Failure(f"a DM to the impostor was not held: {held}")
        with impostor.proc.cond:
            leaked = [e for _, e in impostor.proc.events if e.get("event") in ("dmRequest", "message") and "for alice" in str(e)]
        if leaked:
            raise Failure(f"the impostor received the held DM: {leaked[0]}")
        return (f"observer restarted, impostor 'alice' flagged as keyChanged {flagged:.2f} s after it started "
                f"(verified key named, trust changed); a DM to it held; {time.monotonic() - t0:.1f} s in all")
