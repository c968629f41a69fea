"""Name rules decided by the real daemons: what slurmctld of 22.05, 24.11 and 26.05 (and slurmdbd of 22.05)
take is accepted by the validation, and rendered as they take it.

'-' in ClusterName, partition names, node features and GRES types, GRES types outside the catalogue and in
capitals, node lines with CPUs alone, and host names of mixed width (gpu-node[01-02],gpu-node100). slurmdbd runs
only on Debian 12's 22.05 here: MariaDB 11's client library fails slurmdbd's first query in a bare container
("_check_mysql_concat_is_sane", error 5027), which the systemd lab does not show; the lab's slurmdbd of 24.11
and 26.05 serve the pilot cluster every run."""

from __future__ import annotations

import re

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import config_from_inventory

from lab.slurmctld_check import SUITE_RELEASE, small_files, small_slurmctld
from tests.unit.factory import valid_groups, valid_spec

pytestmark = pytest.mark.slurmctld


def named_config(release: str) -> tuple[str, str, tuple[str, ...]]:
    """slurm.conf and gres.conf rendered by the model from an inventory using every name form above."""
    spec, groups = valid_spec(), valid_groups()
    spec.update(name="llm-training", slurm_release=release)
    spec.pop("fabric")
    spec["partitions"][0].update(name="high-mem", qos="")
    spec["partitions"][1]["name"] = "cpu-only"
    spec["qos"] = {}
    spec["scheduling"] = {}
    spec["accounting"] = {}
    gpu = ["gpu-node01", "gpu-node02", "gpu-node100"]
    groups.update(compute_h100=gpu, compute=gpu + groups["compute_cpu"], dbd=[])  # accounting: see below
    spec["node_types"]["h100"].update(features=["gpu-a100"], gpu={"type": "A100-SXM", "count": 1})
    spec["node_types"]["h100"].update(host_features={"gpu-node100": ["rack-2"]}, host_weights={"gpu-node100": 50})
    spec["node_types"]["cpu"] = {"group": "compute_cpu", "cpus": 6, "real_memory_mb": 8000}
    slurm_conf, gres, _ = small_files(config_from_inventory(spec, groups))
    return slurm_conf, gres, tuple(groups["compute"])


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_slurmctld_takes_the_names_the_validation_accepts(docker_lab: None, suite: str) -> None:
    slurm_conf, gres_conf, hosts = named_config(SUITE_RELEASE[suite])
    assert "ClusterName=llm-training" in slurm_conf and "PartitionName=high-mem" in slurm_conf
    started, output = small_slurmctld(suite, slurm_conf, gres_conf, hosts)
    assert started, output
    assert "PartitionName=high-mem" in output and "PartitionName=cpu-only" in output
    assert "AvailableFeatures=h100,gpu-a100" in output and "Gres=gpu:A100-SXM:1" in output
    assert "NodeName=gpu-node100 " in output and "NodeName=cpu01 " in output
    assert "CPUTot=6" in output
    assert re.search(r"NodeName=gpu-node100 .*AvailableFeatures=h100,gpu-a100,rack-2 .*Weight=50 ", output), output


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_slurmdbd_registers_a_cluster_whose_name_holds_a_hyphen(docker_lab: None, suite: str) -> None:
    slurm_conf, gres_conf, hosts = named_config(SUITE_RELEASE[suite])
    accounting = "AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=localhost\n"
    started, output = small_slurmctld(suite, accounting + slurm_conf, gres_conf, hosts, accounting=True)
    assert started, output
    assert "\nllm-training\n" in output and "llm-training_job_table" in output, output
    assert "fatal" not in output.lower(), output


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_names_with_text_after_their_number_load_in_every_release(docker_lab: None, suite: str) -> None:
    """gpu01-ib, gpu02.ib: 22.05 stops on NodeName=gpu[01-02]-ib (it cannot build the NodeAddr list), so its node
    lines list such names; the partition (by group), gres.conf and topology.conf lines keep their folds."""
    spec, groups = valid_spec(), valid_groups()
    spec.update(slurm_release=SUITE_RELEASE[suite], qos={}, scheduling={}, accounting={})
    gpu = ["gpu01-ib", "gpu02-ib", "gpu03.ib", "gpu04.ib"]
    groups.update(compute_h100=gpu, compute=gpu + groups["compute_cpu"], dbd=[])
    spec["node_types"]["h100"]["gpu"] = {"type": "h100", "count": 1}
    spec["partitions"] = [
        {"name": "gpu", "groups": ["compute_h100"], "default": True},
        {"name": "cpu", "node_types": ["cpu"]},
    ]
    slurm_conf, gres, files = small_files(config_from_inventory(spec, groups))
    started, output = small_slurmctld(suite, slurm_conf, gres, tuple(groups["compute"]), files=files)
    assert started, f"{slurm_conf}\n{gres}\n{files}\n{output[-2000:]}"
    for host in gpu:
        assert f"NodeName={host} " in output, output[-2000:]
