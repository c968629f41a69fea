"""The filters that gather what each host reported or holds (plugins/filter/hosts.py)."""

from __future__ import annotations

from typing import Any

from ansible_collections.gpucluster.cluster.plugins.filter.hosts import (
    etc_hosts,
    host_address,
    host_addresses,
    host_values,
    validation_host,
)


def test_the_validation_runs_in_the_name_of_the_limits_first_host_or_localhost() -> None:
    assert validation_host(["pilot-gpu02", "pilot-ctl01"]) == "pilot-gpu02"
    assert validation_host([]) == "localhost"
    assert validation_host(None) == "localhost"


def test_host_values_reads_each_hosts_variable_or_result() -> None:
    hostvars = {
        "a": {"unit": {"stdout": "masked", "rc": 0}, "version": "24.11.5"},
        "b": {"unit": {"skipped": True}},
        "c": {"unit": "not a result"},
    }
    assert host_values(["a", "b", "c"], hostvars, "unit", "stdout") == {"a": "masked", "b": "", "c": ""}
    assert host_values(["a", "b"], hostvars, "version") == {"a": "24.11.5", "b": ""}


def test_host_addresses_prefer_the_override_then_facts_then_ansible_host() -> None:
    hostvars: dict[str, dict[str, Any]] = {
        "ctl1": {"pacemaker_node_address": "10.1.0.1", "ansible_facts": {"default_ipv4": {"address": "10.0.0.1"}}},
        # facts injected as top-level variables too (Ansible's inject_facts_as_vars, which the project turns off)
        "ctl2": {"ansible_default_ipv4": {"address": "10.0.0.2"}, "ansible_host": "192.0.2.2"},
        "ctl3": {"ansible_host": "192.0.2.3"},
        "ctl4": {"pacemaker_node_address": "", "ansible_facts": {"default_ipv4": {}}},
    }
    assert host_addresses(list(hostvars), hostvars, "pacemaker_node_address") == {
        "ctl1": "10.1.0.1",
        "ctl2": "10.0.0.2",
        "ctl3": "192.0.2.3",
        "ctl4": "ctl4",
    }
    assert host_addresses(["ctl1"], hostvars)["ctl1"] == "10.0.0.1"
    assert host_values(["ctl3"], hostvars, "slurm_ctld_manager", default="systemd") == {"ctl3": "systemd"}


def test_etc_hosts_lists_every_host_by_name_and_names_those_without_an_address() -> None:
    hostvars: dict[str, dict[str, Any]] = {
        "c2": {"ansible_facts": {"default_ipv4": {"address": "10.0.0.2"}}},
        "a1": {"ansible_facts": {"default_ipv4": {"address": "10.0.0.1"}}, "ansible_host": "192.0.2.1"},
        "b1": {"ansible_host": "192.0.2.9"},
        "d4": {},
    }
    assert etc_hosts(list(hostvars), hostvars, ["a1", "c2", "d4"]) == {
        "block": "10.0.0.1 a1\n192.0.2.9 b1\n10.0.0.2 c2\n",
        "missing": ["d4"],
        "shared": [],
    }


def test_two_slurm_nodes_on_one_address_are_named_other_hosts_may_share_one() -> None:
    """A line copied in the inventory: gpu02's ansible_host is gpu01's. The facts win over ansible_host, so two names
    that reach one machine are caught however they reach it; a host outside Slurm (monitoring beside the dbd host
    under another name) may share its address."""
    facts = {"ansible_facts": {"default_ipv4": {"address": "10.0.0.11"}}}
    hostvars: dict[str, dict[str, Any]] = {
        "gpu01": facts,
        "gpu02": {**facts, "ansible_host": "10.0.0.12"},
        "gpu03": {"ansible_host": "10.0.0.11"},
        "gpu04": {"ansible_facts": {"default_ipv4": {"address": "10.0.0.14"}}},
        "dbd01": {"ansible_facts": {"default_ipv4": {"address": "10.0.0.2"}}},
        "mon01": {"ansible_facts": {"default_ipv4": {"address": "10.0.0.2"}}},
    }
    shared = etc_hosts(list(hostvars), hostvars, ["gpu01", "gpu02", "gpu03", "gpu04", "gpu01"])["shared"]
    assert shared == [
        "gpu01, gpu02, gpu03 are one machine (address 10.0.0.11, from its facts or ansible_host): slurmctld would send "
        "each one's jobs to it, and the roles configure it as each of them in turn. Give each host its own address (a "
        "line copied in the inventory?), or one inventory name"
    ]
    assert etc_hosts(list(hostvars), hostvars)["shared"] == []


def test_one_hosts_address_prefers_the_override_then_facts_then_ansible_host_then_its_name() -> None:
    hostvars: dict[str, Any] = {
        "a": {"exporter_address": "10.1.0.1", "ansible_facts": {"default_ipv4": {"address": "10.0.0.1"}}},
        "b": {"ansible_facts": {"default_ipv4": {"address": "10.0.0.2"}}, "ansible_host": "192.0.2.2"},
        "c": {"ansible_host": "192.0.2.3"},
        "d": {},
    }
    found = {host: host_address(host, hostvars, "exporter_address") for host in hostvars}
    assert found == {"a": "10.1.0.1", "b": "10.0.0.2", "c": "192.0.2.3", "d": "d"}
