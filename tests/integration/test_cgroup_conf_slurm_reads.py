"""cgroup.conf (slurm_cgroup_config) as the real slurmctld of 22.05, 24.11 and 26.05 reads it: a key its release
does not know, or a word where it reads a number, stops it ("Could not open/read/parse cgroup.conf file"; slurmd
reads the same file on every node), so the validation refuses both before any host is touched; what the
validation takes, slurmctld starts with."""

from __future__ import annotations

from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.slurm import slurm_cgroup_errors
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import config_from_inventory

from lab.slurmctld_check import SUITE_RELEASE, small_files, small_slurmctld
from tests.unit.factory import standalone_spec

pytestmark = pytest.mark.slurmctld

STOPPED = "Could not open/read/parse cgroup.conf"


def cgroup_conf(config: dict[str, Any]) -> str:
    """cgroup.conf as the slurm role writes it (templates/cgroup.conf.j2: booleans as yes/no, sorted keys)."""
    lines = [
        f"{key}={('yes' if value else 'no') if isinstance(value, bool) else value}" for key, value in config.items()
    ]
    return "\n".join(sorted(lines)) + "\n"


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_slurmctld_stops_on_what_the_validation_refuses_in_cgroup_conf(docker_lab: None, suite: str) -> None:
    release = SUITE_RELEASE[suite]
    spec, groups = standalone_spec(release)
    slurm_conf, gres, _ = small_files(config_from_inventory(spec, groups))
    hosts = tuple(groups["compute"])
    taken = {"ConstrainCores": True, "ConstrainRAMSpace": True, "ConstrainDevices": True, "AllowedRAMSpace": 98}
    assert slurm_cgroup_errors(taken, release) == []
    started, output = small_slurmctld(suite, slurm_conf, gres, hosts, files={"cgroup.conf": cgroup_conf(taken)})
    assert started and STOPPED not in output, output[-3000:]
    for wrong, refusal in (
        ({"ConstrainDevicez": True}, "ConstrainDevicez is not a cgroup.conf key of Slurm"),
        ({"AllowedRAMSpace": "lots"}, "slurm_cgroup_config.AllowedRAMSpace: 'lots' is not a number"),
    ):
        assert any(refusal in problem for problem in slurm_cgroup_errors({**taken, **wrong}, release)), refusal
        started, output = small_slurmctld(
            suite, slurm_conf, gres, hosts, files={"cgroup.conf": cgroup_conf({**taken, **wrong})}
        )
        assert not started and STOPPED in output, output[-3000:]
