"""The filters' shared helper and the run's plan: the model, or one Ansible error listing every inventory problem."""

from __future__ import annotations

from typing import Any

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.gpucluster.cluster.plugins.filter.cluster import cluster_node_gpu, cluster_plan
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.cluster import cluster_or_raise

from .factory import valid_groups, valid_spec


def test_valid_inventory_gives_the_model() -> None:
    assert cluster_or_raise(valid_spec(), valid_groups()).controllers == ("ctl01",)


def test_every_filter_reports_all_problems_at_once() -> None:
    spec = valid_spec()
    spec["name"] = "Bad Name"
    spec["controller_addresses"] = {"ctl01": "not-an-ip"}
    for call in (cluster_or_raise, cluster_plan):
        with pytest.raises(AnsibleFilterError) as caught:
            call(spec, valid_groups())
        message = str(caught.value)
        assert message.startswith("invalid cluster inventory:")
        assert "'not-an-ip' is not an IP address" in message and "cluster_name" in message


def _gpus(spec: dict[str, Any]) -> dict[str, Any]:
    plan = cluster_plan(spec, valid_groups())
    return {host: cluster_node_gpu(plan, host) for host in ("gpu01", "cpu01")}


def test_each_gpu_hosts_index_order_is_the_order_slurmd_expands_gres_conf() -> None:
    """SLURM_STEP_GPUS holds Slurm's indices: the i-th file of gres.conf's File= expansion (numeric, not as
    declared); the containers role's map is that list. AutoDetect nodes have none (slurmd names the files)."""
    spec = valid_spec()
    spec["node_types"]["h100"]["gpu"]["devices"] = "/dev/nvidia10,/dev/nvidia2,/dev/nvidia[0-1]"
    gpus = _gpus(spec)
    assert gpus["gpu01"]["index_order"] == ["/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia10"]
    assert gpus["cpu01"] == {}
    spec["node_types"]["h100"]["gpu"] = {"type": "h100", "count": 4, "autodetect": "nvml"}
    assert _gpus(spec)["gpu01"]["index_order"] == []
