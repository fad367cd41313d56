"""The virtual LAN: namespaces, a bridge, veth cables, faults."""

import os
import re
import signal
import subprocess

from .common import ROUTER, SUBNET, sh


class Lan:
    """Namespaces <prefix><run>-sw (bridge br0) and <prefix><run>-h1..hN."""

    def __init__(self, prefix, run_id, hosts):
        self.base = f"{prefix}{run_id}"
        self.switch = f"{self.base}-sw"
        self.hosts = hosts

    def host(self, i):
        return f"{self.base}-h{i}"

    def address(self, i):
        return f"{SUBNET}.{i}"

    def create(self):
        sh("ip", "netns", "add", self.switch)
        sh("ip", "-n", self.switch, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", self.switch, "link", "set", "br0", "up")
        # The switch also routes unicast between the hosts (see ROUTER).
        sh("ip", "-n", self.switch, "addr", "add", f"{ROUTER}/24", "brd", "+", "dev", "br0")
        self.sysctl(self.switch, "net.ipv4.ip_forward=1", "net.ipv4.conf.all.send_redirects=0",
                    "net.ipv4.conf.default.send_redirects=0", "net.ipv4.conf.br0.send_redirects=0")
        for i in range(1, self.hosts + 1):
            ns = self.host(i)
            sh("ip", "netns", "add", ns)
            # Both ends are created straight inside their namespaces: nothing
            # appears in the machine's own namespace, not even for a moment.
            sh("ip", "link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", f"p{i}", "netns", self.switch)
            sh("ip", "-n", self.switch, "link", "set", f"p{i}", "master", "br0", "up")
            sh("ip", "-n", ns, "addr", "add", f"{self.address(i)}/24", "brd", "+", "dev", "eth0")
            sh("ip", "-n", ns, "link", "set", "eth0", "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            # Unicast to the other hosts goes through the switch's router, so
            # a host needs one neighbour entry, not one per peer (see ROUTER);
            # broadcast (10.231.0.255) still floods the bridge. The default
            # route also ends at the router, which has nowhere else to send.
            for half in ("0/25", "128/25"):
                sh("ip", "-n", ns, "route", "add", f"{SUBNET}.{half}", "via", ROUTER, "dev", "eth0")
            sh("ip", "-n", ns, "route", "add", "default", "via", ROUTER, "dev", "eth0")
            self.sysctl(ns, "net.ipv4.conf.all.accept_redirects=0", "net.ipv4.conf.eth0.accept_redirects=0")
        # Belt and braces: no cable of ours may end in the machine's namespace.
        stray = [line for line in sh("ip", "-o", "link", "show").splitlines() if f"link-netns {self.base}-" in line]
        if stray:
            raise RuntimeError(f"a link of this run appeared in the machine's own namespace: {stray[0]}")

    @staticmethod
    def sysctl(ns, *settings):
        sh("ip", "netns", "exec", ns, "sysctl", "-q", "-w", *settings)

    def cut(self, i):
        sh("ip", "-n", self.switch, "link", "set", f"p{i}", "down")

    def heal(self, i):
        sh("ip", "-n", self.switch, "link", "set", f"p{i}", "up")

    def add_loss(self, i, one_in):
        """Drops one in `one_in` TCP and UDP packets arriving on the host's eth0."""
        rules = (f"table inet lanloss {{\n  chain input {{\n"
                 f"    type filter hook input priority 0; policy accept;\n"
                 f"    iifname \"eth0\" meta l4proto tcp numgen random mod {one_in} 0 counter drop\n"
                 f"    iifname \"eth0\" meta l4proto udp numgen random mod {one_in} 0 counter drop\n"
                 f"  }}\n}}\n")
        subprocess.run(["ip", "netns", "exec", self.host(i), "nft", "-f", "-"], input=rules, text=True, check=True)

    def loss_drops(self, i):
        out = sh("ip", "netns", "exec", self.host(i), "nft", "list", "table", "inet", "lanloss", check=False)
        return sum(int(n) for n in re.findall(r"packets (\d+)", out))

    def remove_loss(self, i):
        sh("ip", "netns", "exec", self.host(i), "nft", "delete", "table", "inet", "lanloss", check=False)

    def destroy(self):
        names = [self.host(i) for i in range(1, self.hosts + 1)] + [self.switch]
        existing = set(sh("ip", "netns", "list", check=False).split())
        for ns in names:
            if ns not in existing:
                continue
            for pid in sh("ip", "netns", "pids", ns, check=False).split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            sh("ip", "netns", "del", ns, check=False)
