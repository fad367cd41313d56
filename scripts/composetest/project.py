"""The compose project under test, seen through the daemon the script started.

Everything goes to that daemon's socket (DOCKER_HOST), never to a system
daemon. Node events are read from `docker logs` (JSON lines on stdout,
log lines on stderr); commands reach a node's stdin through the attach
endpoint, the way `docker attach` writes to it.
"""

import datetime
import json
import os
import socket
import subprocess
import time

from ..lantest import common
from ..lantest.common import Failure

DOCKER = os.environ.get("COMPOSE_TEST_DOCKER", "/usr/bin/docker")
COMPOSE = os.environ.get("COMPOSE_TEST_COMPOSE", "docker-compose")


def run(*args, check=True, timeout=120):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise Failure(f"{' '.join(args)} failed ({r.returncode}): {r.stderr.strip()[-800:]}")
    return r.stdout


def wait_until(what, timeout, fn):
    """lantest's deadline poll, at 0.2 s: each poll here asks the daemon."""
    return common.wait_until(what, timeout, fn, interval=0.2)


def timestamp(text):
    """RFC 3339 with nanoseconds, as docker writes it, to a datetime."""
    whole, _, rest = text.rstrip("Z").partition(".")
    return datetime.datetime.fromisoformat(f"{whole}.{(rest + '000000')[:6]}")


class Project:
    def __init__(self, name, files, socket_path):
        self.name = name
        self.files = files
        self.socket_path = socket_path
        self.ids = {}

    def compose(self, *args, timeout=120):
        argv = [COMPOSE, "-p", self.name]
        for f in self.files:
            argv += ["-f", f]
        return run(*argv, *args, timeout=timeout)

    def docker(self, *args, check=True):
        return run(DOCKER, *args, check=check)

    def container(self, service):
        if service not in self.ids:
            cid = self.compose("ps", "-q", service).strip()
            if not cid:
                raise Failure(f"no container for service {service}")
            self.ids[service] = cid
        return self.ids[service]

    def inspect(self, service, template):
        return self.docker("inspect", "-f", template, self.container(service)).strip()

    def logs(self, service):
        """(stdout lines, stderr lines) of every run of the service's container."""
        r = subprocess.run([DOCKER, "logs", self.container(service)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
        return r.stdout.splitlines(), r.stderr.splitlines()

    def exit_latency(self, service):
        """Seconds from the node logging SIGTERM ("signal 15") to its exit, by
        the daemon's clock (log timestamps and State.FinishedAt)."""
        r = subprocess.run([DOCKER, "logs", "--timestamps", self.container(service)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
        marks = [line.split(" ", 1)[0] for line in r.stderr.splitlines() if "signal 15" in line]
        if not marks:
            raise Failure(f"{service} never logged SIGTERM (signal 15)")
        finished = self.inspect(service, "{{.State.FinishedAt}}")
        return (timestamp(finished) - timestamp(marks[-1])).total_seconds()

    def events(self, service, since=0):
        """JSON events on stdout, from the `since`-th line on."""
        out = []
        for line in self.logs(service)[0][since:]:
            try:
                out.append(json.loads(line))
            except ValueError:
                raise Failure(f"{service} wrote a line that is not JSON: {line[:200]!r}")
        return out

    def send(self, service, command):
        """Writes one JSON command line to the node's stdin."""
        self.type(service, (json.dumps(command) + "\n").encode())

    def type(self, service, data):
        """Writes bytes to the container's stdin (attach, stdin only), as
        `docker attach` would. The container keeps stdin open (stdin_open,
        StdinOnce false), so closing this connection does not close the
        node's input."""
        cid = self.container(service)
        line = data
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        try:
            s.connect(self.socket_path)
            s.sendall((f"POST /containers/{cid}/attach?stream=1&stdin=1 HTTP/1.1\r\n"
                       "Host: docker\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n").encode())
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = s.recv(4096)
                if not chunk:
                    raise Failure(f"attach to {service}: connection closed in the header")
                head += chunk
            status = head.split(b"\r\n", 1)[0].decode(errors="replace")
            if " 101 " not in status and " 200 " not in status:
                raise Failure(f"attach to {service}: {status}")
            s.sendall(line)
            s.shutdown(socket.SHUT_WR)
        finally:
            s.close()
