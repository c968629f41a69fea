"""A federation of pods: each pod's model scoped from the one inventory, and the rules across pods."""

from __future__ import annotations

from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.cluster import (
    cluster_node_gpu,
    cluster_plan,
    cluster_pod,
    cluster_pod_hosts,
    cluster_pod_leaders,
    cluster_pod_setting,
    cluster_state_save_location,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_pods
from ansible_collections.gpucluster.cluster.plugins.module_utils.monitoring import prometheus_config
from ansible_collections.gpucluster.cluster.plugins.module_utils.releases import Release, accepts, upgrade_path
from ansible_collections.gpucluster.cluster.plugins.module_utils.slurmconf import settings_lines

from .factory import valid_spec


def fed_spec(**pods: Any) -> dict[str, Any]:
    spec = valid_spec()
    spec["federation"] = {"name": "fed", "pods": pods or {"pod1": {}, "pod2": {}}}
    # pod2 has GPU nodes only (one partition): partition_prio preemption would have nothing to preempt there.
    spec["scheduling"] = {}
    return spec


def fed_groups() -> dict[str, list[str]]:
    pod1 = ["p1-ctl01", "p1-ctl02", "p1-login01", "p1-gpu01", "p1-gpu02", "p1-cpu01"]
    pod2 = ["p2-ctl01", "p2-ctl02", "p2-login01", "p2-gpu01", "p2-gpu02"]
    groups = {
        "controllers": ["p1-ctl01", "p1-ctl02", "p2-ctl01", "p2-ctl02"],
        "dbd": ["db01", "db02"],
        "galera": ["db01", "db02", "db03"],
        "login": ["p1-login01", "p2-login01"],
        "storage": [],
        "monitoring": ["mon01"],
        "compute_h100": ["p1-gpu01", "p1-gpu02", "p2-gpu01", "p2-gpu02"],
        "compute_cpu": ["p1-cpu01"],
        "compute": ["p1-gpu01", "p1-gpu02", "p2-gpu01", "p2-gpu02", "p1-cpu01"],
        "pod1": pod1,
        "pod2": pod2,
    }
    groups["all"] = sorted({h for members in groups.values() for h in members})
    return groups


def errors_of(spec: dict[str, Any], groups: dict[str, list[str]]) -> list[str]:
    with pytest.raises(InventoryError) as caught:
        build_pods(spec, groups)
    return caught.value.errors


def test_each_pod_is_a_cluster_of_its_own_hosts() -> None:
    pods = build_pods(fed_spec(), fed_groups())
    assert list(pods) == ["pod1", "pod2"]
    pod1, pod2 = pods["pod1"], pods["pod2"]
    assert (pod1.name, pod1.federation) == ("pod1", "fed")
    assert pod1.controllers == ("p1-ctl01", "p1-ctl02")
    assert pod2.controllers == ("p2-ctl01", "p2-ctl02")
    assert set(pod1.compute) == {"p1-gpu01", "p1-gpu02", "p1-cpu01"}
    assert set(pod2.compute) == {"p2-gpu01", "p2-gpu02"}
    # The shared tier is every pod's.
    assert pod1.dbd == pod2.dbd == ("db01", "db02")
    # pod2 has no CPU nodes: the node type and its partition are not part of pod2's slurm.conf.
    assert [nt.name for nt in pod2.node_types] == ["h100"]
    assert [p.name for p in pod2.partitions] == ["gpu"]
    lines = settings_lines(pod1)
    assert "ClusterName=pod1" in lines
    assert "FederationParameters=fed_display" in lines


def test_one_cluster_has_no_federation_settings() -> None:
    spec = valid_spec()
    groups = fed_groups()
    del groups["pod2"]
    pods = build_pods(
        spec,
        {
            **groups,
            "controllers": ["p1-ctl01"],
            "login": [],
            "compute_h100": ["p1-gpu01"],
            "compute_cpu": ["p1-cpu01"],
            "compute": ["p1-gpu01", "p1-cpu01"],
        },
    )
    assert list(pods) == [""]
    assert not any(line.startswith("FederationParameters") for line in settings_lines(pods[""]))


def test_pod_settings_override_the_shared_ones() -> None:
    spec = fed_spec(
        pod1={"controller_vip": "10.0.1.10"},
        pod2={
            "slurm_release": "24.05",
            "fabric": {"topology": "tree", "dragonfly": {"nodes_per_leaf": 1, "leaves_per_group": 2}},
        },
    )
    pods = build_pods(spec, fed_groups())
    assert pods["pod1"].controller_vip == "10.0.1.10"
    assert pods["pod2"].controller_vip == ""
    assert str(pods["pod2"].release) == "24.05"
    assert pods["pod2"].fabric.dragonfly and not pods["pod1"].fabric.dragonfly


def test_the_inventory_wide_vip_never_reaches_a_pod_and_addresses_stay_in_their_pod() -> None:
    spec = fed_spec()
    spec["controller_vip"] = "10.0.0.10"
    spec["controller_addresses"] = {"p1-ctl01": "10.0.1.1", "p1-ctl02": "10.0.1.2", "p2-ctl01": "10.0.2.1"}
    pods = build_pods(spec, fed_groups())
    assert {pod.controller_vip for pod in pods.values()} == {""}
    assert dict(pods["pod2"].controller_addresses) == {"p2-ctl01": "10.0.2.1"}


def test_cross_pod_rules_are_all_reported() -> None:
    groups = fed_groups()
    groups["pod2"] = [*groups["pod2"], "p1-gpu01"]  # a node in two pods
    groups["login"] = [*groups["login"], "stray-login"]  # a login node in no pod
    groups["all"].append("stray-login")
    spec = fed_spec(
        pod1={"qos": {"x": {}}},
        pod2={
            "slurm_release": "22.05",
            "slurm_config": {"AccountingStorageHost": "elsewhere"},
            "controller_vip": "10.0.0.9",
        },
        Pod3={"group": "nowhere", "controller_vip": "10.0.0.9"},
    )
    errors = "\n".join(errors_of(spec, groups))
    assert "cluster_federation.pods.pod1: unknown key 'qos'" in errors
    assert "QOS live in the one accounting database" in errors
    assert "inventory: host p1-gpu01 in pods pod1, pod2; a node belongs to one cluster" in errors
    assert "login hosts stray-login are in no pod" in errors
    assert "pods.pod2.slurm_release: 22.05 is outside the window of the shared slurmdbd (24.11" in errors
    assert "pods.pod2.slurm_config.AccountingStorageHost: every pod uses the one slurmdbd" in errors
    assert "'Pod3' is not a valid Slurm ClusterName" in errors
    assert "inventory group 'nowhere' does not exist" in errors
    assert "10.0.0.9 is also pod 'pod2''s" in errors


def test_a_federation_needs_slurmdbd_and_at_most_63_pods() -> None:
    groups = fed_groups()
    groups["dbd"] = []
    pods = {f"pod{i}": {"group": "pod1" if i == 1 else "pod2"} for i in range(1, 65)}
    errors = "\n".join(errors_of(fed_spec(**pods), groups))
    assert "group 'dbd' is empty; a federation lives in slurmdbd" in errors
    assert "64 pods; a Slurm federation holds at most 63 clusters" in errors


def test_a_pod_without_controllers_is_refused() -> None:
    groups = fed_groups()
    groups["pod2"] = ["p2-gpu01", "p2-gpu02", "p2-login01"]
    groups["controllers"] = ["p1-ctl01", "p1-ctl02"]
    errors = "\n".join(errors_of(fed_spec(), groups))
    assert "pod 'pod2' has no controllers hosts" in errors


def test_each_pods_own_errors_name_the_pod() -> None:
    groups = fed_groups()
    groups["pod2"] = [h for h in groups["pod2"] if not h.startswith("p2-gpu")]
    groups["compute_h100"] = ["p1-gpu01", "p1-gpu02"]
    groups["compute"] = ["p1-gpu01", "p1-gpu02", "p1-cpu01"]
    errors = errors_of(fed_spec(), groups)
    assert any(e.startswith("pod pod2: ") or "pod 'pod2' has no compute hosts" in e for e in errors), errors


def test_filters_give_each_host_its_pod() -> None:
    spec, groups = fed_spec(), fed_groups()
    plan = cluster_plan(spec, groups)
    configs = plan["configs"]
    assert set(configs) == {"pod1", "pod2"}
    assert configs["pod2"]["name"] == "pod2"
    federation = spec["federation"]
    assert cluster_pod(federation, ["controllers", "pod2"]) == "pod2"
    assert cluster_pod(federation, ["dbd"]) == ""
    assert cluster_pod({}, ["pod1"]) == ""
    assert cluster_pod_hosts(groups["controllers"], groups, federation, "p2-gpu01") == ["p2-ctl01", "p2-ctl02"]
    assert cluster_pod_hosts(groups["controllers"], groups, federation, "db01") == groups["controllers"]
    assert cluster_pod_hosts(groups["controllers"], groups, {}, "p2-gpu01") == groups["controllers"]
    assert cluster_pod_leaders(groups["controllers"], groups, federation) == ["p1-ctl01", "p2-ctl01"]
    assert cluster_pod_leaders(groups["controllers"], groups, {}) == ["p1-ctl01"]
    gpus = {host for host in groups["all"] if cluster_node_gpu(plan, host)}
    assert gpus == {"p1-gpu01", "p1-gpu02", "p2-gpu01", "p2-gpu02"}
    views = plan["user_views"]
    assert views["pod1"]["federation"] == {"name": "fed", "clusters": ["pod1", "pod2"]}


@pytest.mark.parametrize(
    ("shared", "pod2", "expected"),
    [
        ({}, {}, {"pod1": "/var/spool/slurmctld", "pod2": "/var/spool/slurmctld"}),
        ({"statesavelocation": "/ha/state"}, {}, {"pod1": "/ha/state", "pod2": "/ha/state"}),
        # A pod's slurm_config replaces the shared one for that pod.
        (
            {"StateSaveLocation": "/ha/state"},
            {"slurm_config": {"StateSaveLocation": "/p2/state"}},
            {"pod1": "/ha/state", "pod2": "/p2/state"},
        ),
        (
            {"StateSaveLocation": "/ha/state"},
            {"slurm_config": {"MaxJobCount": 20000}},
            {"pod1": "/ha/state", "pod2": "/var/spool/slurmctld"},
        ),
    ],
)
def test_the_roles_state_save_location_is_the_one_in_each_pods_slurm_conf(
    shared: dict[str, Any], pod2: dict[str, Any], expected: dict[str, str]
) -> None:
    """pacemaker, slurm and slurm_upgrade read StateSaveLocation through the filter: it must match slurm.conf."""
    spec, groups = fed_spec(pod1={}, pod2=pod2), fed_groups()
    spec["slurm_config"] = shared
    for pod, cluster in build_pods(spec, groups).items():
        line = next(line for line in settings_lines(cluster) if line.lower().startswith("statesavelocation="))
        found = cluster_state_save_location(shared, spec["federation"], ["controllers", pod])
        assert (line.split("=", 1)[1], found) == (expected[pod], expected[pod])
    assert cluster_state_save_location(shared, {}, ["controllers"]) == expected["pod1"]


def test_a_pods_pair_takes_the_pods_controller_vip_and_others_the_shared_value() -> None:
    """pacemaker_vip's default: a host of pod1 sees pod1's controller_vip; a host of a pod without one, and a host
    outside any pod or federation, the shared value."""
    federation = {"name": "fed", "pods": {"pod1": {"controller_vip": "10.0.1.10"}, "pod2": {"controller_vip": None}}}
    assert cluster_pod_setting(federation, ["controllers", "pod1"], "controller_vip") == "10.0.1.10"
    assert cluster_pod_setting(federation, ["controllers", "pod2"], "controller_vip") == ""
    assert cluster_pod_setting(federation, ["login"], "controller_vip", "10.0.0.10") == "10.0.0.10"
    assert cluster_pod_setting({}, ["controllers"], "controller_vip") == ""


def test_one_prometheus_scrapes_every_pod_once() -> None:
    pods = build_pods(fed_spec(), fed_groups())
    config = prometheus_config(next(iter(pods.values())), ["mon01"], pods=pods)
    assert config["global"]["external_labels"] == {"cluster": "fed"}
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    node_targets = [t for group in jobs["node"]["static_configs"] for t in group["targets"]]
    assert len(node_targets) == len(set(node_targets))
    assert {"db01:9100", "p1-gpu01:9100", "p2-gpu01:9100", "mon01:9100"} <= set(node_targets)
    slurm = {group["labels"]["slurm_cluster"]: group["targets"] for group in jobs["slurm"]["static_configs"]}
    assert slurm == {"pod1": ["p1-ctl01:9341", "p1-ctl02:9341"], "pod2": ["p2-ctl01:9341", "p2-ctl02:9341"]}


@pytest.mark.parametrize(
    ("newer", "older", "ok"),
    [
        ("24.11", "24.11", True),
        ("24.11", "23.02", True),
        ("24.11", "22.05", False),
        ("23.11", "22.05", True),
        ("24.05", "23.02", True),
        ("24.05", "22.05", False),
        ("26.05", "24.11", True),
        ("24.11", "25.05", False),
    ],
)
def test_compatibility_window(newer: str, older: str, ok: bool) -> None:
    assert accepts(Release.parse(newer), Release.parse(older)) is ok


def test_upgrade_path_names_the_releases_to_go_through() -> None:
    path = upgrade_path(Release.parse("22.05"), Release.parse("24.11"))
    assert [str(r) for r in path] == ["23.11", "24.11"]
    assert [str(r) for r in upgrade_path(Release.parse("24.11"), Release.parse("26.05"))] == ["26.05"]
    assert upgrade_path(Release.parse("24.11"), Release.parse("24.11")) == []


def test_a_group_put_in_two_pods_is_one_problem_with_its_hosts_folded() -> None:
    """The whole compute group of pod1 listed under pod2 as well: one line, not one per node."""
    groups = fed_groups()
    groups["pod2"] = [*groups["pod2"], "p1-gpu01", "p1-gpu02"]
    found = [error for error in errors_of(fed_spec(), groups) if "in pods" in error]
    assert found == ["inventory: hosts p1-gpu[01-02] in pods pod1, pod2; a node belongs to one cluster, keep it in one"]
