"""docker-compose.yml as people use it, without the --json override:
alice and bob run the interactive console on a tty. A line typed at
alice's terminal (through attach, like `docker-compose attach alice`)
must show on bob's.

    python3 -m scripts.composetest.terminal PROJECT SOCKET FILE...
"""

import secrets
import sys
import time

from .project import Failure, Project, wait_until


def output(p, service):
    return "\n".join(p.logs(service)[0])   # with a tty, everything is on stdout


def main():
    name, socket_path, *files = sys.argv[1:]
    p = Project(name, files, socket_path)
    text = f"typed at alice's terminal {secrets.token_hex(4)}"
    try:
        wait_until("alice and bob linked (their consoles say so)", 30, lambda:
                   "linked to bob#" in output(p, "alice") and "linked to alice#" in output(p, "bob"))
        p.type("alice", (text + "\r").encode())   # Enter on a tty is a carriage return
        wait_until("the typed line on bob's console", 20, lambda: text in output(p, "bob"))
    except Failure as failure:
        print(f"compose-test: FAILED: {failure}", file=sys.stderr, flush=True)
        sys.exit(1)
    print(f"compose-test {time.strftime('%H:%M:%S')}: terminal: a line typed at alice's console (attach, tty) showed on bob's", flush=True)


if __name__ == "__main__":
    main()
