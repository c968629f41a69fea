"""cluster_removed_nodes: the configuration playbooks/remove-node.yml writes, without the nodes it takes out."""

from __future__ import annotations

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import config_from_inventory

from .factory import valid_groups, valid_spec


def _text(config: dict[str, object]) -> str:
    conf = config["slurm_conf"]
    assert isinstance(conf, dict)
    return "\n".join(line for lines in conf.values() for line in lines)


def test_removed_nodes_leave_slurm_conf_and_the_topology() -> None:
    before = config_from_inventory(valid_spec(), valid_groups())
    after = config_from_inventory({**valid_spec(), "removed_nodes": "gpu[03-04]"}, valid_groups())
    assert "NodeName=gpu[01-04]" in _text(before)
    assert "NodeName=gpu[01-02]" in _text(after) and "gpu03" not in _text(after) and "gpu04" not in _text(after)
    assert not any("gpu03" in line or "gpu04" in line for line in after["topology_conf"])
    assert after["summary"]["nodes"] == before["summary"]["nodes"] - 2
    assert after["summary"]["gpus"] == before["summary"]["gpus"] - 8


def test_a_list_is_read_like_a_hostlist() -> None:
    assert (
        config_from_inventory({**valid_spec(), "removed_nodes": ["gpu04", "cpu02"]}, valid_groups())["summary"]["nodes"]
        == len(valid_groups()["compute"]) - 2
    )


def test_a_host_outside_the_compute_group_is_refused_by_name() -> None:
    with pytest.raises(InventoryError) as raised:
        config_from_inventory({**valid_spec(), "removed_nodes": "gpu[04-05],login01"}, valid_groups())
    assert any(
        error.startswith("cluster_removed_nodes: gpu05,login01 are not in the inventory's compute group")
        for error in raised.value.errors
    ), raised.value.errors


def test_removing_every_node_of_a_type_is_refused() -> None:
    with pytest.raises(InventoryError) as raised:
        config_from_inventory({**valid_spec(), "removed_nodes": "cpu[01-02]"}, valid_groups())
    assert any("group 'compute_cpu' has no hosts" in error for error in raised.value.errors), raised.value.errors


def test_a_bad_expression_is_refused() -> None:
    with pytest.raises(InventoryError) as raised:
        config_from_inventory({**valid_spec(), "removed_nodes": "gpu[04"}, valid_groups())
    assert any(error.startswith("cluster_removed_nodes: cannot parse hostlist") for error in raised.value.errors)
