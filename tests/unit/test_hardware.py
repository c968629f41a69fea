"""Each compute host's facts beside its node type (module_utils/hardware.py), compared before the first change of a
deploy: a type none of whose hosts has what it declares is refused; single hosts that fall short are named."""

from __future__ import annotations

from typing import Any

from ansible_collections.gpucluster.cluster.plugins.filter.cluster import cluster_hardware_shortfalls
from ansible_collections.gpucluster.cluster.plugins.module_utils.hardware import shortfalls
from ansible_collections.gpucluster.cluster.plugins.module_utils.plan import build_plan

from tests.unit.factory import valid_groups, valid_spec

HARDWARE = [{"hosts": "gpu[01-04]", "node_type": "h100", "real_memory_mb": 2000000, "cpus": 224}]


def facts(memory: int, cpus: int = 224) -> dict[str, int]:
    return {"memtotal_mb": memory, "processor_vcpus": cpus}


def test_hosts_with_what_their_type_declares_or_more_pass() -> None:
    assert shortfalls(HARDWARE, {f"gpu0{i}": facts(2063000, 256) for i in range(1, 5)}) == ([], [])


def test_a_type_all_of_whose_hosts_fall_short_is_refused_with_the_value_to_write() -> None:
    """The planning document's nominal 2 TB (2,097,152 MiB) where the hosts see 2,063,000; hosts without facts
    (another --limit) do not count."""
    hardware = [{**HARDWARE[0], "real_memory_mb": 2097152}]
    problems, notes = shortfalls(hardware, {"gpu01": facts(2063000), "gpu02": facts(2063100)})
    assert notes == []
    assert problems == [
        "cluster_node_types.h100.real_memory_mb: 2097152, but its hosts have 2063000 (gpu[01-02]; slurmd -C: "
        "RealMemory=2063000) - slurmctld would set every one INVAL ('Low RealMemory') and run no job there. Set "
        "real_memory_mb to at most 2063000 (less what the OS keeps)"
    ]
    (problem,) = shortfalls(HARDWARE, {"gpu01": facts(2063000, 112), "gpu02": facts(2063000, 112)})[0]
    assert problem.startswith("cluster_node_types.h100.cpus: 224, but its hosts have 112")


def test_single_hosts_that_fall_short_are_named_and_left_to_slurmctld() -> None:
    problems, notes = shortfalls(HARDWARE, {"gpu01": facts(2063000), "gpu02": facts(1031000), "gpu03": facts(1031500)})
    assert problems == []
    assert notes == [
        "gpu[02-03] (node type h100): RealMemory 1031000 is below the type's real_memory_mb 2000000; slurmctld will "
        "keep these hosts INVAL ('Low RealMemory') until they are repaired"
    ]


def test_the_plan_carries_the_hardware_unless_slurm_conf_wins() -> None:
    spec, groups = valid_spec(), valid_groups()
    entries = build_plan(spec, groups)["node_hardware"]
    assert {entry["node_type"] for entry in entries} == set(spec["node_types"])
    spec["slurm_config"] = {"SlurmdParameters": "config_overrides"}
    assert build_plan(spec, groups)["node_hardware"] == []


def test_the_filter_reads_the_play_hosts_facts_and_nothing_without_a_plan() -> None:
    hostvars: dict[str, Any] = {
        "gpu01": {"ansible_facts": facts(1000)},
        "gpu02": {"ansible_facts": facts(1000)},
        "ctl01": {"ansible_facts": facts(1000)},
        "gpu03": {},
    }
    plan = {"node_hardware": HARDWARE}
    found = cluster_hardware_shortfalls(plan, hostvars, ["gpu01", "gpu02", "gpu03", "ctl01"])
    assert [problem.split(":")[0] for problem in found["problems"]] == ["cluster_node_types.h100.real_memory_mb"]
    assert cluster_hardware_shortfalls(None, hostvars, ["gpu01"]) == {"problems": [], "notes": []}


def test_one_short_host_of_a_larger_type_is_the_hosts_fault() -> None:
    """A run limited to one new node with a failed DIMM (no facts of the others cached): named, not refused; a type
    of a single host is judged by it."""
    assert shortfalls(HARDWARE, {"gpu04": facts(1000)})[0] == []
    single = [{**HARDWARE[0], "hosts": "gpu01"}]
    assert len(shortfalls(single, {"gpu01": facts(1000)})[0]) == 1
