"""The checks of scripts/compose-test.sh, against a running compose project.

    python3 -m scripts.composetest.checks PROJECT SOCKET FILE...

Every wait has a deadline; no sleep stands in for an event. The people
(alice, bob, carol, dave) run with --json (scripts/docker/compose-test.yml), the
bots log links and leaves at info level on stderr.
"""

import os
import re
import secrets
import sys
import time

from .project import Failure, Project, wait_until

LAN = ["alice", "bob", "carol", "echo", "chatter"]   # network "lan": broadcast finds them
PEOPLE = ["alice", "bob", "carol", "dave"]           # --json nodes
BOTS = ["echo", "chatter"]
ALL = PEOPLE + BOTS
LINKED = re.compile(r"linked to ([^#\s]+)#\S+ \((\d+)\)")
CLOSED = re.compile(r"link to (\S+) closed \((\w+)\)")   # "nick#tag" or the bare number


def expected_links(service):
    if service == "dave":
        return {"carol"}                    # only through LANCHAT_PEERS=carol:47100
    others = set(LAN) - {service}
    return others | {"dave"} if service == "carol" else others


class Checks:
    def __init__(self, project):
        self.p = project
        self.offsets = {s: 0 for s in PEOPLE}   # stdout lines before the current run
        self.bot_offsets = {s: 0 for s in BOTS}
        self.numbers = {}
        self.nonce = secrets.token_hex(4)

    def step(self, text):
        print(f"compose-test {time.strftime('%H:%M:%S')}: {text}", flush=True)

    def events(self, service):
        return self.p.events(service, self.offsets[service])

    def bot_log(self, service):
        return self.p.logs(service)[1][self.bot_offsets[service]:]

    # --- what a node sees -------------------------------------------------
    def linked(self, service):
        """Nicknames the node is linked to now (this run)."""
        peers = set()
        if service in BOTS:
            for nickname, _ in self.bot_links(service):
                peers.add(nickname)
            for nickname, _ in self.bot_closes(service):
                peers.discard(nickname)
            return peers
        for e in self.events(service):
            if e["event"] == "peerJoined":
                peers.add(e["peer"]["nickname"])
            elif e["event"] == "peerLeft":
                peers.discard(e["peer"]["nickname"])
        return peers

    def bot_links(self, service):
        return [(m.group(1), m.group(2)) for line in self.bot_log(service) if (m := LINKED.search(line))]

    def bot_closes(self, service):
        """(nickname, cause) of every closed link in the bot's log, in order."""
        names = {number: nickname for nickname, number in self.bot_links(service)}
        closes = []
        for line in self.bot_log(service):
            if m := CLOSED.search(line):
                peer = m.group(1)
                closes.append((names.get(peer, peer.split("#")[0]), m.group(2)))
        return closes

    def got(self, service, text, room="public", nickname=None):
        return any(e["event"] == "message" and e["text"] == text and e["room"] != "public" if room == "direct"
                   else e["event"] == "message" and e["text"] == text and e["room"] == room
                   for e in self.events(service)
                   if nickname is None or e.get("nickname") == nickname)

    # --- the checks -------------------------------------------------------
    def ready(self):
        def all_ready():
            found = {}
            for s in PEOPLE:
                ready = [e for e in self.events(s) if e["event"] == "ready"]
                if not ready:
                    return None
                found[s] = ready[0]["number"]
            return found
        return wait_until("a ready event from every --json node", 30, all_ready)

    def mesh(self):
        def missing():
            return {s: sorted(expected_links(s) - self.linked(s)) for s in ALL if expected_links(s) - self.linked(s)}
        try:
            wait_until("every node linked to every other", 30, lambda: not missing())
        except Failure as failure:
            raise Failure(f"{failure}; still missing: {missing()}")
        self.step("mesh: every node on lan links to the other four; dave to carol only")

    def public_round(self, label):
        texts = {s: f"{label} from {s} {self.nonce}" for s in PEOPLE}
        for s in PEOPLE:
            self.p.send(s, {"cmd": "send", "text": texts[s]})
        wants = [(r, texts[s]) for r in ["alice", "bob", "carol"] for s in ["alice", "bob", "carol"] if r != s]
        wants += [("carol", texts["dave"]), ("dave", texts["carol"])]
        def missing():
            return [f"{r} lacks {t!r}" for r, t in wants if not self.got(r, t)]
        try:
            wait_until(f"public messages ({label}) at every node", 20, lambda: not missing())
        except Failure as failure:
            raise Failure(f"{failure}; {missing()}")
        wait_until("a chatter bot message at alice, bob and carol", 20, lambda: all(
            any(e["event"] == "message" and e["nickname"] == "chatter" and e["automatic"]
                for e in self.events(r)) for r in ["alice", "bob", "carol"]))
        self.step(f"public ({label}): each person's message reached every linked node; chatter's too")

    def echo_round(self):
        for s in ["alice", "bob", "carol"]:
            self.p.send(s, {"cmd": "dm", "to": "echo", "text": f"ping from {s} {self.nonce}"})
        wait_until("the echo bot's answers to alice, bob and carol", 20, lambda: all(
            self.got(s, f"echo: ping from {s} {self.nonce}", room="direct", nickname="echo")
            for s in ["alice", "bob", "carol"]))
        self.step("dm: the echo bot answered alice, bob and carol")

    def healthy_and_unprivileged(self):
        wait_until("every container healthy", 30, lambda: all(
            self.p.inspect(s, "{{.State.Health.Status}}") == "healthy" for s in ALL))
        for s in ALL:
            user = self.p.inspect(s, "{{.Config.User}}")
            pid = self.p.inspect(s, "{{.State.Pid}}")
            with open(f"/proc/{pid}/status") as status:
                uids = next(l for l in status if l.startswith("Uid:")).split()[1:]
            if user != "10001:10001" or set(uids) != {"10001"}:
                raise Failure(f"{s} runs as {user!r}, uids {uids}, not 10001")
        self.step("health: every container healthy (lanchat --version), every node runs as uid 10001")

    def stop_one(self, service):
        watchers = [s for s in ["alice", "carol"] if s != service]
        # `docker stop -t 3`: SIGTERM, then SIGKILL after 3 s (exit code 137).
        # The timing that counts is the node's own, signal to exit, by the
        # daemon's clock: the CLI round trip grows with the machine's load.
        t0 = time.monotonic()
        self.p.docker("stop", "-t", "3", self.p.container(service))
        took = time.monotonic() - t0
        code = self.p.inspect(service, "{{.State.ExitCode}}")
        if code != "0":
            raise Failure(f"{service} exited {code} on SIGTERM (137 would mean it needed SIGKILL)")
        latency = self.p.exit_latency(service)
        if latency > 1.0:
            raise Failure(f"{service} took {latency:.3f} s from SIGTERM to exit (at most 1 s)")
        wait_until(f"{watchers} and the bots seeing {service} leave", 10, lambda: all(
            any(e["event"] == "peerLeft" and e["peer"]["nickname"] == service and e["reason"] == "left"
                for e in self.events(w)) for w in watchers) and all(
            (service, "left") in self.bot_closes(b) for b in BOTS))
        self.step(f"stop: {service} (PID 1) exited 0 {latency * 1000:.0f} ms after SIGTERM (docker stop: {took:.2f} s); "
                  f"{', '.join(watchers + BOTS)} saw it leave")
        return took

    def stop_all_and_start(self):
        before = {s: self.peer_numbers(s) for s in ["alice", "carol"]}
        t0 = time.monotonic()
        self.p.compose("stop", "-t", "3")
        took = time.monotonic() - t0
        codes = {s: self.p.inspect(s, "{{.State.ExitCode}}") for s in ALL}
        if set(codes.values()) != {"0"}:
            raise Failure(f"exit codes after docker-compose stop: {codes}")
        latencies = {s: self.p.exit_latency(s) for s in ALL}
        if max(latencies.values()) > 1.0:
            raise Failure(f"seconds from SIGTERM to exit: {latencies} (at most 1 s each)")
        self.step(f"stop: all six exited 0, at most {max(latencies.values()) * 1000:.0f} ms after SIGTERM "
                  f"(docker-compose stop: {took:.2f} s)")
        for s in PEOPLE:
            self.offsets[s] = len(self.p.logs(s)[0])
        for s in BOTS:
            self.bot_offsets[s] = len(self.p.logs(s)[1])
        self.p.compose("start")
        numbers = self.ready()
        if numbers != self.numbers:
            raise Failure(f"node numbers changed across stop/start: {self.numbers} then {numbers}")
        self.mesh()
        for s, seen in before.items():
            if self.peer_numbers(s) != seen:
                raise Failure(f"{s} sees other numbers after the restart: {seen} then {self.peer_numbers(s)}")
        self.step("start: every node kept its number (named volumes); the mesh came back")
        return took

    def peer_numbers(self, service):
        return {e["peer"]["nickname"]: e["peer"]["number"] for e in self.events(service) if e["event"] == "peerJoined"}

    def history_kept(self):
        self.p.send("alice", {"cmd": "history", "room": "public", "id": "h"})
        reply = wait_until("alice's history reply", 10, lambda: next(
            (e for e in self.events("alice") if e.get("re") == "h"), None))
        texts = {m["text"] for m in reply.get("messages", [])}
        wanted = {f"first from {s} {self.nonce}" for s in PEOPLE if s != "dave"}
        if not wanted <= texts:
            raise Failure(f"alice's history after the restart lacks {sorted(wanted - texts)}")
        self.step("history: alice's public room still holds the first round after the restart")

    def forced_failure(self):
        # COMPOSE_TEST_FORCE_FAIL=1: a real wait that cannot succeed, to see the failure path.
        wait_until("a message nobody sent (COMPOSE_TEST_FORCE_FAIL)", 2,
                   lambda: self.got("alice", f"never sent {self.nonce}"))

    def run(self):
        self.numbers = self.ready()
        self.step(f"up: every node ready; numbers {self.numbers}")
        self.mesh()
        if os.environ.get("COMPOSE_TEST_FORCE_FAIL"):
            self.forced_failure()
        self.public_round("first")
        self.echo_round()
        self.healthy_and_unprivileged()
        self.stop_one("bob")
        self.stop_all_and_start()
        self.history_kept()
        self.public_round("second")


def main():
    name, socket_path, *files = sys.argv[1:]
    try:
        Checks(Project(name, files, socket_path)).run()
    except Failure as failure:
        print(f"compose-test: FAILED: {failure}", file=sys.stderr, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
