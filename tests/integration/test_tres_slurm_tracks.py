"""TRES rules decided by the real daemons: slurmctld stops at start on a PriorityWeightTRES of a TRES it does not
track ("TRES weight ... is not a configured TRES type"), so the validation refuses such a weight - and a limit on
one, which sacctmgr refuses and Slurm would never enforce - before any host is touched. A TRES is tracked when
built in (cpu, mem, ...), named by AccountingStorageTRES (gres/gpu with GPU nodes, cluster_accounting.tres), or,
from 24.11, tracked by the release itself with gres/gpu (gres/gpumem, gres/gpuutil): 22.05 stops on a weight of
gres/gpumem that 24.11 and 26.05 take. Each case is the model's verdict beside slurmctld's, with slurmdbd beside it
(it registers the TRES)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.releases import Release
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import config_from_inventory, inventory_errors

from lab.slurmctld_check import SUITE_RELEASE, small_files, small_slurmctld
from tests.unit.factory import valid_groups, valid_spec

pytestmark = pytest.mark.slurmctld

UNTRACKED = "is not a configured TRES type"


def weighed(release: str, tracked: list[str], weights: dict[str, str]) -> dict[str, Any]:
    spec = valid_spec()
    spec.update(slurm_release=release)
    spec.pop("fabric")  # (no topology file to carry)
    spec["accounting"] = {"enforce": ["associations", "limits", "qos"], "tres": tracked}
    spec["scheduling"]["priority"] = {"tres_weights": {"CPU": "1.0", "GRES/gpu": "16.0", **weights}}
    return spec


def slurm_files(spec: dict[str, Any]) -> tuple[str, str, tuple[str, ...]]:
    """slurm.conf (its slurmdbd on the container itself) and gres.conf the model renders, and the compute hosts."""
    groups = valid_groups()
    slurm_conf, gres, _ = small_files(config_from_inventory(spec, groups))
    slurm_conf = re.sub(r"^AccountingStorageHost=.*$", "AccountingStorageHost=localhost", slurm_conf, flags=re.M)
    slurm_conf = re.sub(r"^AccountingStorageBackupHost=.*\n", "", slurm_conf, flags=re.M)
    return slurm_conf, gres, tuple(groups["compute"])


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_a_weight_loads_where_the_validation_takes_it_and_stops_slurmctld_where_it_refuses_it(
    docker_lab: None, suite: str
) -> None:
    release = SUITE_RELEASE[suite]
    usage = {"GRES/gpumem": "1.0"} if Release.parse(release).has("gpu_usage_tres") else {}
    taken = weighed(release, ["gres/gpu:h100"], {"GRES/gpu:h100": "2.0", **usage})
    assert inventory_errors(taken, valid_groups()) == []
    slurm_conf, gres, hosts = slurm_files(taken)
    assert re.search(r"^AccountingStorageTRES=gres/gpu,gres/gpu:h100$", slurm_conf, re.M), slurm_conf
    started, output = small_slurmctld(suite, slurm_conf, gres, hosts, accounting=True)
    assert started and UNTRACKED not in output, output[-3000:]

    # the typed GPU TRES no longer tracked (and, on 22.05, a weight of gres/gpumem, which it does not track by itself)
    refused = weighed(release, [], {"GRES/gpu:h100": "2.0", "GRES/gpumem": "1.0"})
    problems = inventory_errors(refused, valid_groups())
    assert any("tres_weights: GRES/gpu:h100 is not a TRES this cluster tracks" in p for p in problems), problems
    assert any("GRES/gpumem" in p for p in problems) == (not usage), problems
    stopped = slurm_conf.replace("AccountingStorageTRES=gres/gpu,gres/gpu:h100", "AccountingStorageTRES=gres/gpu")
    stopped = re.sub(
        r"^PriorityWeightTRES=.*$",
        "PriorityWeightTRES=CPU=1.0,GRES/gpu=16.0,GRES/gpumem=1.0,GRES/gpu:h100=2.0",
        stopped,
        flags=re.M,
    )
    started, output = small_slurmctld(suite, stopped, gres, hosts, accounting=True)
    assert not started and UNTRACKED in output, output[-3000:]
    named = re.findall(r"TRES weight '([^']+)' is not a configured TRES type", output)
    # slurmctld names the first weight it cannot place: gres/gpumem where the release does not track it
    assert named and named[0].lower() == ("gres:gpu:h100" if usage else "gres:gpumem"), named


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_a_weight_that_is_no_number_is_refused_as_slurmctld_refuses_it(docker_lab: None, suite: str) -> None:
    """PriorityWeightTRES reads each weight as a number with an optional K, M, G, T or P: `CPU=one` stops slurmctld at
    start, `Mem=0.25G` loads - the validation's verdict on each beside slurmctld's."""
    release = SUITE_RELEASE[suite]
    taken = weighed(release, [], {"Mem": "0.25G"})
    assert inventory_errors(taken, valid_groups()) == []
    slurm_conf, gres, hosts = slurm_files(taken)
    started, output = small_slurmctld(suite, slurm_conf, gres, hosts, accounting=True)
    assert started, output[-3000:]
    problems = inventory_errors(weighed(release, [], {"CPU": "one"}), valid_groups())
    assert any("tres_weights.CPU: 'one' is not a weight slurmctld reads" in p for p in problems), problems
    stopped = re.sub(r"^PriorityWeightTRES=.*$", "PriorityWeightTRES=CPU=one,GRES/gpu=16.0", slurm_conf, flags=re.M)
    started, output = small_slurmctld(suite, stopped, gres, hosts, accounting=True)
    assert not started and "failed to parse tres weights str" in output, output[-3000:]
