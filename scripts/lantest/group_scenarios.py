"""Private groups: two group secrets on one LAN never mix."""

import re
import time

from .common import DEAD, Failure, norm, wait_until


class GroupScenarios:
    """Mixed into the harness; each method returns its figure or raises Failure."""

    def scenario_two_groups(self):
        """Two groups (2+2 nodes, different secrets, one by --secret-file and
        one by LANCHAT_SECRET_FILE) beside the shared mesh: each group links
        up, no node ever links to a node of another group, messages stay in
        their group, and each group node says it heard a different secret."""
        self.wait_mesh()
        secret_a, secret_b = self.secret_file("group-a"), self.secret_file("group-b")
        hosts = self.lan.hosts
        # Host 3 holds one node of each group: they also meet over loopback.
        a = [self.group_node(1, "ga1", secret_a), self.group_node(hosts, "ga2", secret_a, via_env=True)]
        b = [self.group_node(2, "gb1", secret_b, via_env=True), self.group_node(hosts, "gb2", secret_b)]
        mesh_marks = {n.name: len(n.proc.joined) for n in self.nodes}
        t0 = time.monotonic()
        for node in a + b:
            node.start(self.binary)
        for node in a + b:
            node.wait_ready()
        self.wait_mesh(timeout=20, among=a)
        self.wait_mesh(timeout=20, among=b)
        linked = time.monotonic() - t0
        groups = {"A": a, "B": b, "shared mesh": self.live()}

        def group_of(number):
            return next((g for g, members in groups.items() if any(m.number == number for m in members)), None)

        def crossings():
            """Every join a node saw of a node outside its own group."""
            found = []
            for g, members in groups.items():
                for node in members:
                    if node.kind != "json":
                        continue
                    with node.proc.cond:
                        joins = node.proc.joined[mesh_marks.get(node.name, 0):]
                    found += [f"{node.name} ({g}) linked to {group_of(num)} node {num}"
                              for _, num, _ in joins if group_of(num) not in (g, None)]
            return found

        # Evidence that the groups heard each other (beacons crossed and were
        # refused): each group node logs the other group's secret once.
        pattern = re.compile(r"a node with a different group secret at")

        def heard_other():
            return all(pattern.search(open(n.proc.err.name).read()) for n in a + b)
        wait_until("every group node to log a node with a different group secret", DEAD + 10, heard_other, interval=0.2)
        # A quiet window of several beacon periods: nothing may cross in it.
        settle_until = time.monotonic() + DEAD + 1
        wait_until("the settle window", DEAD + 5, lambda: crossings() or time.monotonic() >= settle_until, interval=0.1)
        found = crossings()
        if found:
            between = [c for c in found if "shared mesh" not in c]
            raise Failure(f"{len(between)} links between groups A and B, {len(found) - len(between)} between a group "
                          f"and the shared mesh (no secret); e.g. " + "; ".join((between + found)[:3]))
        # Peer lists say the same.
        for g, members in (("A", a), ("B", b)):
            for node in members:
                listed = {p["number"] for p in node.proc.call({"cmd": "peers"})["peers"]}
                want = {m.number for m in members if m is not node}
                if listed != want:
                    raise Failure(f"{node.name} ({g}) lists {sorted(listed)}, its group is {sorted(want)}")
        # Public messages and a DM stay inside their group.
        k = 5
        sent = {}
        for node in a + b:
            for i in range(k):
                sent[norm(node.proc.call({"cmd": "send", "text": f"group {i} from {node.name}"})["id"])] = node
        a_ids = {m for m, n in sent.items() if n in a}
        b_ids = {m for m, n in sent.items() if n in b}
        wait_until("each group's messages at its members", 15, lambda: all(
            (a_ids if n in a else b_ids) <= set(n.proc.messages) for n in a + b))
        leaks = []
        for n in a + b + [m for m in self.nodes]:
            with n.proc.cond:
                have = set(n.proc.messages)
            foreign = have & (b_ids if n in a else a_ids if n in b else a_ids | b_ids)
            if foreign:
                leaks.append(f"{n.name} got {len(foreign)} messages of another group")
        refused = a[0].proc.reply(a[0].proc.send({"cmd": "dm", "to": b[0].number, "text": "across"}))
        if refused.get("event") != "error":
            leaks.append(f"a DM from {a[0].name} to {b[0].name} of the other group was accepted: {refused}")
        if crossings():
            leaks += crossings()
        if leaks:
            raise Failure("; ".join(leaks[:4]))
        foreign = sum(n.stats()["transport"].get("foreignBeacons", 0) for n in a + b)
        return (f"groups of 2+2 linked {linked:.2f} s after their start beside the {len(self.live())}-node mesh; 0 cross links over "
                f"{DEAD + 1:g} s quiet + traffic ({foreign} foreign beacons dropped); {len(a_ids)}+{len(b_ids)} msgs "
                f"each only in its group; a DM across refused")
