"""The virtual-LAN test of lanchat, driven by scripts/lan-test.sh.

__main__   the entry point (`python3 -m lantest`): arguments, run, table

common     constants, Failure, polling waits, small helpers
lan        the namespaces: switch, hosts, cuts, packet loss
node       lanchat processes and what they print; reading their stores
harness    setup, full-mesh waits, running scenarios, teardown
mesh_scenarios, fault_scenarios   the scenarios, one method each
"""
