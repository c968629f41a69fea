"""The names slurmctld and slurmd find themselves by, as the real daemons of 22.05, 24.11 and 26.05 do, beside the
common role's check of each host's inventory name (module_utils/hardware.name_problems): slurm.conf names the Slurm
hosts by their inventory names, and a daemon that does not find its host there stops - after a deploy had changed
the host. Each case is one throw-away container: its hostname, its /etc/hosts, slurm.conf's SlurmctldHost and
NodeName; the facts are read inside it as Ansible's setup module reads them."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import cache

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.hardware import name_problems

from lab.slurmctld_check import SUITE_RELEASE, OwnNames, own_names

pytestmark = pytest.mark.slurmctld

FQDN = "gpu01.hpc.example.org"
# (hostname of the container, SlurmctldHost and NodeName - the inventory name, /etc/hosts)
CASES = {
    "the short hostname": ("gpu01", "gpu01", "127.0.0.2 gpu01\n"),
    "a full hostname, the inventory's short name": (FQDN, "gpu01", f"127.0.0.2 {FQDN} gpu01\n"),
    "a full hostname, the inventory's full name": (FQDN, FQDN, f"127.0.0.2 {FQDN} gpu01\n"),
    # slurmd takes the name its hostname resolves to; slurmctld only its own hostname
    "a short hostname, the inventory's full name": ("gpu01", FQDN, f"127.0.0.2 {FQDN} gpu01\n"),
    "another host's name": ("node17", "gpu01", "127.0.0.2 gpu01\n127.0.0.3 node17\n"),
    # the inventory name is the host's address's first name, its hostname an alias: slurmd takes it
    "the hostname an alias of the inventory name": ("node17", "gpu01", "127.0.0.2 gpu01 node17\n"),
    # names are compared as written; only the resolver ignores case
    "the inventory's name in capitals": ("gpu01", "GPU01", "127.0.0.2 gpu01\n"),
    "the hostname in capitals": ("GPU01", "gpu01", "127.0.0.2 gpu01\n"),
}


@cache
def daemons_of(suite: str) -> dict[str, OwnNames]:
    """Every case's containers of one release at once (each waits seconds on its daemons)."""
    with ThreadPoolExecutor(len(CASES)) as pool:
        seen = {
            case: pool.submit(own_names, suite, hostname, name, name, hosts)
            for case, (hostname, name, hosts) in CASES.items()
        }
        return {case: future.result() for case, future in seen.items()}


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_check_refuses_the_names_the_daemons_do_not_take(suite: str, case: str) -> None:
    _, name, _ = CASES[case]
    seen = daemons_of(suite)[case]
    as_controller = name_problems({"controllers": name}, {name: seen.facts})
    as_node = name_problems({"nodes": name}, {name: seen.facts})
    assert (as_controller == []) == seen.controller_up, (seen, as_controller)
    assert (as_node == []) == seen.node_found, (seen, as_node)
