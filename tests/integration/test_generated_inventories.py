"""A sample of generated valid inventories (tests/helpers/generated.py; new ones each run) loaded by the real
slurmctld of their release: it starts and reports every node and partition the inventory designed. The larger
sweep is bench/property_sweep.py."""

from __future__ import annotations

from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import config_from_inventory
from hypothesis import HealthCheck, given, settings

from lab.slurmctld_check import SUITE_RELEASE, small_files, small_slurmctld
from tests.helpers.generated import inventory

pytestmark = pytest.mark.slurmctld
SUITE = {release: suite for suite, release in SUITE_RELEASE.items()}


def loadable(spec: dict[str, Any], groups: dict[str, list[str]]) -> tuple[str, str, dict[str, str]]:
    """slurm.conf and gres.conf for a controller without slurmdbd (its accounting is drilled in the labs) whose
    own name is ctl; GPU device files stand in as /dev/null."""
    groups = {**groups, "dbd": []}
    spec = {**spec, "accounting": {}, "qos": {}, "partitions": [{**p, "qos": ""} for p in spec["partitions"]]}
    return small_files(config_from_inventory(spec, groups))


@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(case=inventory())
def test_generated_inventories_load_in_the_real_slurmctld(
    docker_lab: None, case: tuple[dict[str, Any], dict[str, list[str]]]
) -> None:
    spec, groups = case
    slurm_conf, gres_conf, files = loadable(spec, groups)
    suite = SUITE[spec["slurm_release"]]
    started, output = small_slurmctld(suite, slurm_conf, gres_conf, tuple(groups["compute"]), files=files)
    assert started, f"{suite}:\n{slurm_conf}\n{gres_conf}\n{output[-3000:]}"
    assert output.count("\nNodeName=") == len(groups["compute"]), output[-3000:]
    assert output.count("\nPartitionName=") == len(spec["partitions"]), output[-3000:]
