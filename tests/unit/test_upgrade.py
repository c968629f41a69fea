"""The upgrade's gates: SchedMD's window decides which jumps go through, a refused jump names the release to
install first, no downgrade, and only hosts off the target are upgraded."""

from __future__ import annotations

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.releases import Release
from ansible_collections.gpucluster.cluster.plugins.module_utils.upgrade import (
    hosts_to_upgrade,
    release_of,
    upgrade_errors,
)


@pytest.mark.parametrize(
    ("version", "release"),
    [("24.11.5-4+deb13u1", Release(24, 11)), ("22.05.8-4+deb12u3", Release(22, 5)), ("1:26.05.5-1", Release(26, 5))],
)
def test_release_of_a_package_version(version: str, release: Release) -> None:
    assert release_of(version) == release
    assert release_of("garbage") is None


def test_supported_jumps_pass() -> None:
    installed = {"ctl01": "24.11.5-4+deb13u1", "gpu01": "24.11.5-4+deb13u1", "nfs01": ""}
    assert upgrade_errors(installed, "26.05") == []
    assert hosts_to_upgrade(installed, "26.05") == ["ctl01", "gpu01"]
    assert hosts_to_upgrade({"ctl01": "26.05.5-1"}, "26.05") == []
    # 23.11's window is two releases: 22.05 (23.02, 23.11) is still within it.
    assert upgrade_errors({"ctl01": "22.05.8-4+deb12u3"}, "23.11") == []


def test_a_jump_slurm_does_not_support_names_the_release_to_go_through() -> None:
    (error,) = upgrade_errors({"ctl01": "22.05.8-4+deb12u3", "gpu01": "22.05.8-4+deb12u3"}, "24.11")
    assert error.startswith("ctl01, gpu01 run Slurm 22.05; 24.11 accepts only the three releases before it")
    assert "Upgrade through 23.11 first (cluster_slurm_release: '23.11'" in error
    assert "22.05 -> 23.11 -> 24.11" in error


def test_downgrade_and_unknown_releases_are_refused() -> None:
    errors = upgrade_errors({"ctl01": "26.05.5-1", "gpu01": "19.05.1-1"}, "24.11")
    assert errors[0].startswith("gpu01: Slurm 19.05.1-1 is not a release this project knows")
    assert "ctl01 run Slurm 26.05, newer than cluster_slurm_release 24.11: Slurm cannot be downgraded" in errors[1]
    assert upgrade_errors({}, "27.05") == [
        "cluster_slurm_release: '27.05' is not a Slurm release this project knows "
        "(22.05, 23.02, 23.11, 24.05, 24.11, 25.05, 25.11, 26.05)"
    ]


# A federation whose pod2 stays on 24.11 while slurmdbd and pod1 go to 26.05 (pod by pod).
FED_GROUPS = {"dbd": ["db1"], "controllers": ["p1c", "p2c"], "pod1": ["p1c", "p1n", "db1"], "pod2": ["p2c", "p2n"]}
HOSTS = ["db1", "p1c", "p1n", "p2c", "p2n"]


def test_a_pod_with_its_own_release_keeps_it_and_the_shared_hosts_go_to_the_newest() -> None:
    from plugins.filter.upgrade import slurm_upgrade_errors, slurm_upgrade_hosts, slurm_upgrade_targets

    federation = {"pods": {"pod1": {}, "pod2": {"slurm_release": "24.11"}}}
    plan = slurm_upgrade_targets(HOSTS, "26.05", federation, FED_GROUPS)
    assert plan["errors"] == []
    assert {host: target["release"] for host, target in plan["targets"].items()} == {
        "db1": "26.05",
        "p1c": "26.05",
        "p1n": "26.05",
        "p2c": "24.11",
        "p2n": "24.11",
    }
    installed = dict.fromkeys(HOSTS, "24.11.5-4+deb13u1")
    assert slurm_upgrade_errors(installed, plan["targets"]) == []
    assert slurm_upgrade_hosts(installed, plan["targets"]) == ["db1", "p1c", "p1n"]
    # pod2 set to a release its hosts have passed: the refusal names the pod's variable.
    plan = slurm_upgrade_targets(HOSTS, "26.05", {"pods": {"pod1": {}, "pod2": {"slurm_release": "24.05"}}}, FED_GROUPS)
    (error,) = slurm_upgrade_errors(installed, plan["targets"])
    assert error.startswith("p2c, p2n run Slurm 24.11, newer than cluster_federation.pods.pod2.slurm_release 24.05")


def test_a_shared_host_inside_a_pod_of_another_release_is_refused() -> None:
    from plugins.filter.upgrade import slurm_upgrade_targets

    plan = slurm_upgrade_targets(HOSTS, "26.05", {"pods": {"pod1": {"slurm_release": "24.11"}, "pod2": {}}}, FED_GROUPS)
    (error,) = plan["errors"]
    assert error.startswith(
        "db1: a host of the shared tier (dbd, galera, storage, monitoring) runs cluster_slurm_release"
    )
    assert "cluster_federation.pods.pod1.slurm_release 24.11" in error
