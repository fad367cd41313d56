"""lanchat processes in the hosts, what they print, and their stores."""

import json
import os
import re
import signal
import subprocess
import threading
import time

from .common import BEACON, OVERLAY, Failure, norm, wait_until


class Proc:
    """One running lanchat process and what it said (for --json nodes)."""

    def __init__(self, node, argv, log_dir, generation):
        self.node = node
        tag = f"{node.name}.{generation}"
        self.err = open(os.path.join(log_dir, f"{tag}.stderr"), "w")
        self.log = open(os.path.join(log_dir, f"{tag}.events"), "w")
        self.cond = threading.Condition()
        self.events = []          # (monotonic time, event object)
        self.replies = {}         # request id -> reply
        self.present = {}         # peer number -> peer object, by join/leave events
        self.joined = []          # (t, number, instanceId)
        self.left = []            # (t, number, reason)
        self.messages = {}        # normalized id -> [(t, event)]
        self.delivery = {}        # normalized id -> (t, state) of the latest
        self.ready = None
        self.skipped = 0          # lines matching node.skip
        self.seq = 0
        self.started_at = time.monotonic()
        json_mode = node.kind == "json"
        self.popen = subprocess.Popen(
            argv, stdin=subprocess.PIPE if json_mode else subprocess.DEVNULL,
            stdout=subprocess.PIPE if json_mode else self.log, stderr=self.err,
            text=True, bufsize=1)
        self.pid = self.popen.pid
        if json_mode:
            self.reader = threading.Thread(target=self._read, daemon=True)
            self.reader.start()

    def _read(self):
        skip = self.node.skip
        for line in self.popen.stdout:
            if skip and any(marker in line for marker in skip):
                self.skipped += 1     # a flood: counted, not kept
                continue
            t = time.monotonic()
            self.log.write(f"{t:.3f} {line}")
            try:
                event = json.loads(line)
            except ValueError:
                continue
            with self.cond:
                self.events.append((t, event))
                kind = event.get("event")
                if kind == "ready":
                    self.ready = (t, event)
                elif kind == "peerJoined":
                    peer = event["peer"]
                    self.present[peer["number"]] = peer
                    self.joined.append((t, peer["number"], peer["instanceId"]))
                elif kind == "peerUpdated":
                    self.present[event["peer"]["number"]] = event["peer"]
                elif kind == "peerLeft":
                    self.present.pop(event["peer"]["number"], None)
                    self.left.append((t, event["peer"]["number"], event.get("reason")))
                elif kind == "message":
                    self.messages.setdefault(norm(event["id"]), []).append((t, event))
                elif kind == "delivery":
                    self.delivery[norm(event["id"])] = (t, event["state"])
                if "re" in event:
                    self.replies[str(event["re"])] = event
                self.cond.notify_all()
        self.log.flush()

    def send(self, command):
        """Writes one command; returns its request id (echoed as "re")."""
        self.seq += 1
        rid = f"r{self.seq}"
        command = dict(command, id=rid)
        self.popen.stdin.write(json.dumps(command) + "\n")
        self.popen.stdin.flush()
        return rid

    def reply(self, rid, timeout=10):
        with self.cond:
            if not self.cond.wait_for(lambda: rid in self.replies or self.popen.poll() is not None, timeout):
                raise Failure(f"{self.node.name}: no reply to {rid} within {timeout} s")
            if rid not in self.replies:
                raise Failure(f"{self.node.name}: exited before replying to {rid}")
            return self.replies[rid]

    def call(self, command, timeout=10):
        event = self.reply(self.send(command), timeout)
        if event.get("event") == "error":
            raise Failure(f"{self.node.name}: {command['cmd']} failed: {event.get('message')}")
        return event

    def alive(self):
        return self.popen.poll() is None

    def close_files(self):
        """After the process ended: lets the reader drain, then closes the logs."""
        if hasattr(self, "reader"):
            self.reader.join(timeout=5)
        for f in (self.err, self.log):
            try:
                f.close()
            except OSError:
                pass


class Node:
    """A lanchat node on a host: its data directory outlives its processes."""

    def __init__(self, lan, work, host, name, kind="json", extra=(), env=None, clock=None, skip=(), nick=None):
        self.lan, self.host, self.name, self.kind, self.extra = lan, host, name, kind, list(extra)
        self.nick = nick or name     # the nickname it uses (an impostor's is another node's)
        self.skip = tuple(skip)      # output lines containing one of these are only counted
        self.env = dict(env or {})   # added to the process's environment
        self.clock = clock           # (skewclock.so, seconds its wall clock is off), or None
        self.data = os.path.join(work, "data", name)
        self.logs = os.path.join(work, "logs")
        os.makedirs(self.logs, exist_ok=True)
        self.procs = []
        self.number = None

    @property
    def proc(self):
        return self.procs[-1]

    @property
    def db(self):
        return os.path.join(self.data, "history.sqlite")

    def start(self, binary):
        mode = ["--json"] if self.kind == "json" else ["bot", self.kind]
        # LAN_TEST_LOG_LEVEL=debug (in the environment) for a closer look.
        argv = (["ip", "netns", "exec", self.lan.host(self.host)] + self.launcher() + [binary] + mode + self.extra +
                ["--nick", self.nick, "--beacon-interval", f"{BEACON:g}", "--log-level", os.environ.get("LAN_TEST_LOG_LEVEL", "notice")] +
                ([] if "--in-memory" in self.extra else ["--data-dir", self.data]))
        self.procs.append(Proc(self, argv, self.logs, len(self.procs) + 1))
        return self.proc

    def launcher(self):
        """What runs before the binary: `env` with this node's variables,
        the overlay threshold in overlay mode (every node, bots too) and,
        for a skewed clock, skewclock.so (common.skew_clock_library)."""
        env = dict(self.env)
        if OVERLAY:
            env["LANCHAT_OVERLAY_THRESHOLD"] = str(OVERLAY)
        if self.clock is not None:
            library, offset = self.clock
            env.update(LD_PRELOAD=library, LANTEST_CLOCK_OFFSET_S=str(offset))
        return ["env"] + [f"{k}={v}" for k, v in env.items()] if env else []

    def rss_kib(self):
        """The running process's resident set (VmRSS), in KiB."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise Failure(f"{self.name}: no VmRSS in /proc/{self.proc.pid}/status")

    def stop(self, timeout=10):
        """Asks the process to quit (SIGTERM: a clean leave) and reaps it."""
        if self.procs and self.proc.alive():
            try:
                os.kill(self.proc.pid, signal.SIGCONT)
                self.proc.popen.terminate()
                self.proc.popen.wait(timeout=timeout)
            except ProcessLookupError:
                pass
            except subprocess.TimeoutExpired:
                self.proc.popen.kill()
                self.proc.popen.wait()
        if self.procs:
            self.proc.close_files()

    def wait_ready(self, timeout=30):
        if self.kind == "json":
            wait_until(f"{self.name} ready", timeout, lambda: self.proc.ready or not self.proc.alive())
            if not self.proc.ready:
                raise Failure(f"{self.name} exited at start (see {self.name}.*.stderr)")
            number = self.proc.ready[1]["number"]
        else:
            # A bot says its key-derived number when it is up (stderr).
            pattern = re.compile(r"bot up on TCP port \d+, node (\d+)")
            def said():
                with open(self.proc.err.name) as f:
                    return pattern.search(f.read())
            wait_until(f"{self.name} node number", timeout, lambda: said() or not self.proc.alive())
            found = said()
            if not found:
                raise Failure(f"{self.name} exited at start (see {self.name}.*.stderr)")
            number = int(found.group(1))
        if self.number is not None and number != self.number:
            raise Failure(f"{self.name} came back as node {number}, was {self.number}")
        self.number = number
        return number

    def signal(self, sig):
        os.kill(self.proc.pid, sig)

    def crash(self):
        """kill -9, then reap it."""
        self.signal(signal.SIGKILL)
        self.proc.popen.wait(timeout=10)

    def stats(self):
        return self.proc.call({"cmd": "stats"})


def sqlite(db, query):
    r = subprocess.run(["sqlite3", "-batch", "-cmd", ".timeout 5000", db, query],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise Failure(f"sqlite3 {os.path.basename(os.path.dirname(db))}: {r.stderr.strip()}")
    return r.stdout


def public_ids(node):
    out = sqlite(node.db, "SELECT lower(hex(id)) FROM messages WHERE room = 'public';")
    return set(out.split())


def id_counts(node, room):
    out = sqlite(node.db, f"SELECT lower(hex(id)), count(*) FROM messages WHERE room = '{room}' GROUP BY id;")
    return {line.split("|")[0]: int(line.split("|")[1]) for line in out.split()}


def integrity(node):
    return sqlite(node.db, "PRAGMA integrity_check;").strip()
