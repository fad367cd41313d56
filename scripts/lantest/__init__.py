"""The virtual-LAN test of lanchat, driven by scripts/lan-test.sh.

__main__   the entry point (`python3 -m lantest`): arguments, run, table

common     constants, Failure, polling waits, small helpers
lan        the namespaces: switch, hosts, cuts, packet loss
node       lanchat processes and what they print; reading their stores
harness    setup, full-mesh waits, running scenarios, teardown
mesh_scenarios, fault_scenarios   the scenarios, one method each
group_scenarios      two private groups (secrets) beside the shared mesh, same port
recovery_scenarios   wall clocks an hour apart (skewclock.c), a sender killed again and again
resource_scenarios   a full disk (tmpfs data dir)
flood_scenario       a flooding peer (RSS, DM round trips)
                     (these four run nodes of their own, stopped when the scenario
                     ends; all but two-groups also use a discovery port
                     of their own, so they never meet the shared mesh)
"""
