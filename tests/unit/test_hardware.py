"""Each host's facts beside the run's plan (module_utils/hardware.py), compared before the first change of a deploy: a
node type none of whose hosts has what it declares is refused, single hosts that fall short are named; a controller
or compute node whose inventory name its daemon would not take as its own is refused
(tests/integration/test_node_names.py asks the real daemons)."""

from __future__ import annotations

from typing import Any

from ansible_collections.gpucluster.cluster.plugins.filter.cluster import cluster_host_facts_check
from ansible_collections.gpucluster.cluster.plugins.module_utils.hardware import name_problems, shortfalls
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import expand
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
    hosts = build_plan(spec, groups)["slurm_hosts"]
    assert expand(hosts["controllers"]) == groups["controllers"]
    assert expand(hosts["nodes"]) == sorted(groups["compute"])


def test_the_filter_reads_the_play_hosts_facts_and_nothing_without_a_plan() -> None:
    hostvars: dict[str, Any] = {
        "gpu01": {"ansible_facts": facts(1000)},
        "gpu02": {"ansible_facts": facts(1000)},
        "ctl01": {"ansible_facts": facts(1000)},
        "gpu03": {},
    }
    plan = {"node_hardware": HARDWARE}
    found = cluster_host_facts_check(plan, hostvars, ["gpu01", "gpu02", "gpu03", "ctl01"])
    assert [problem.split(":")[0] for problem in found["problems"]] == ["cluster_node_types.h100.real_memory_mb"]
    assert cluster_host_facts_check(None, hostvars, ["gpu01"]) == {"problems": [], "notes": []}


def test_one_short_host_of_a_larger_type_is_the_hosts_fault() -> None:
    """A run limited to one new node with a failed DIMM (no facts of the others cached): named, not refused; a type
    of a single host is judged by it."""
    assert shortfalls(HARDWARE, {"gpu04": facts(1000)})[0] == []
    single = [{**HARDWARE[0], "hosts": "gpu01"}]
    assert len(shortfalls(single, {"gpu01": facts(1000)})[0]) == 1


def names(hostname: str, nodename: str = "", fqdn: str = "") -> dict[str, str]:
    return {"hostname": hostname, "nodename": nodename or hostname, "fqdn": fqdn or nodename or hostname}


def test_a_controller_is_its_hosts_short_or_full_hostname() -> None:
    slurm_hosts = {"controllers": "ctl[01-02]", "nodes": "gpu[01-04]"}
    assert name_problems(slurm_hosts, {"ctl01": names("ctl01"), "ctl02": names("ctl02", "ctl02.example.org")}) == []
    full = {"controllers": "ctl01.example.org"}
    assert name_problems(full, {"ctl01.example.org": names("ctl01", "ctl01.example.org")}) == []
    # the name the short hostname resolves to is not enough for slurmctld
    (problem,) = name_problems(full, {"ctl01.example.org": names("ctl01", "ctl01", "ctl01.example.org")})
    assert problem.startswith(
        "controllers whose inventory name is not the host's own name: ctl01.example.org (hostname -s: ctl01, "
        "hostname: ctl01)."
    )
    assert (
        "slurmctld finds itself by its host's name: it would stop ('This host (...) not a valid controller')" in problem
    )
    assert "hostnamectl set-hostname ctl01.example.org on ctl01.example.org" in problem


def test_a_node_is_also_the_name_its_hostname_resolves_to() -> None:
    slurm_hosts = {"controllers": "ctl01", "nodes": "gpu[01-02].example.org,gpu03"}
    facts = {
        "gpu01.example.org": names("gpu01", "gpu01", "gpu01.example.org"),
        "gpu02.example.org": names("gpu02", "gpu02.example.org"),
        "gpu03": names("node17", "node17", "gpu03"),
    }
    assert name_problems(slurm_hosts, facts) == []
    (problem,) = name_problems(slurm_hosts, {**facts, "gpu03": names("node17")})
    assert problem.startswith(
        "compute nodes whose inventory name is not the host's own name: gpu03 (hostname -s: node17"
    )
    assert "'Unable to determine this slurmd's NodeName'" in problem


def test_many_misnamed_hosts_are_one_problem_naming_five() -> None:
    facts = {f"gpu{i:02}": names(f"node{i:02}") for i in range(1, 13)}
    (problem,) = name_problems({"nodes": "gpu[01-12]"}, {**facts, "login01": names("other")})
    assert "gpu05 (hostname -s: node05, hostname: node05) and 7 more." in problem
    assert "gpu06" not in problem


def test_the_filter_checks_names_unless_told_not_to() -> None:
    plan = {"node_hardware": [], "slurm_hosts": {"controllers": "ctl01", "nodes": "gpu01"}}
    hostvars: dict[str, Any] = {"ctl01": {"ansible_facts": names("head")}, "gpu01": {"ansible_facts": names("gpu01")}}
    assert len(cluster_host_facts_check(plan, hostvars, ["ctl01", "gpu01"])["problems"]) == 1
    assert cluster_host_facts_check(plan, hostvars, ["ctl01", "gpu01"], False)["problems"] == []
