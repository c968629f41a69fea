"""cluster_node_gpu: what the gpu role checks a host against comes from the run's plan, the same model as gres.conf."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.gpucluster.cluster.plugins.filter.cluster import cluster_node_gpu, cluster_plan

from tests.unit.factory import valid_groups, valid_spec


def test_gpu_host_gets_its_node_types_gpus() -> None:
    gpu = cluster_node_gpu(cluster_plan(valid_spec(), valid_groups()), "gpu03")
    assert gpu == {
        "node_type": "h100",
        "type": "h100",
        "count": 4,
        "devices": ["/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3"],
        "index_order": ["/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3"],
        "autodetect": "off",
        "nvml_name": "NVIDIA H100",
        "mig": False,
    }


def test_cpu_node_and_controller_get_nothing() -> None:
    assert cluster_node_gpu(cluster_plan(valid_spec(), valid_groups()), "cpu01") == {}
    assert cluster_node_gpu(cluster_plan(valid_spec(), valid_groups()), "ctl01") == {}


def test_invalid_inventory_is_refused_with_its_errors() -> None:
    spec = valid_spec()
    spec["node_types"]["h100"]["gpu"]["count"] = 0
    with pytest.raises(AnsibleFilterError, match="invalid cluster inventory"):
        cluster_plan(spec, valid_groups())
