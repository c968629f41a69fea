"""The running cluster's name, as the real slurmctld of 22.05, 24.11 and 26.05 keeps it: the clustername file it
writes into StateSaveLocation (read by roles/slurm/tasks/state_name.yml and the federation move) and its refusal to
start on the state of another ClusterName, which the toolkit refuses before any host changes."""

from __future__ import annotations

import base64

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.slurm import slurm_state_name_error
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import config_from_inventory

from lab.slurmctld_check import SUITE_RELEASE, restart_with_another_name, small_files
from tests.unit.factory import valid_groups, valid_spec

pytestmark = pytest.mark.slurmctld


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_slurmctld_stops_on_another_clusters_state_as_the_check_judges(suite: str) -> None:
    spec, groups = valid_spec(), valid_groups()
    spec.update(slurm_release=SUITE_RELEASE[suite], qos={}, scheduling={}, accounting={})
    spec.pop("fabric")
    spec["partitions"][0]["qos"] = ""
    groups["dbd"] = []
    conf, _, _ = small_files(config_from_inventory(spec, groups))
    restart = restart_with_another_name(suite, conf, tuple(groups["compute"]), "alpha", "beta")
    assert restart.first_up, restart
    slurped = {"content": base64.b64encode(restart.held.encode()).decode()}
    # the check reads the file as this release writes it: the same name goes on...
    assert slurm_state_name_error(slurped, "ctl", "/var/spool/state", "alpha") == ""
    # ...another is refused, as slurmctld refuses it
    assert "holds the state of the running cluster 'alpha', but cluster_name is 'beta'" in slurm_state_name_error(
        slurped, "ctl", "/var/spool/state", "beta"
    )
    assert not restart.second_up and "CLUSTER NAME MISMATCH" in restart.said, restart
