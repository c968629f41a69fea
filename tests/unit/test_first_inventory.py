"""The answers of playbooks/new-inventory.yml, checked before anything is written."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.first_inventory import (
    answers_errors,
    validation_problems,
)

GOOD = {
    "new_inventory_dir": "inventories/site",
    "new_inventory_cluster_name": "llm",
    "new_inventory_nodes": "32",
    "new_inventory_gpu_type": "h100",
    "new_inventory_gpus_per_node": "8",
    "new_inventory_sockets": "2",
    "new_inventory_cores_per_socket": "56",
    "new_inventory_threads_per_core": "2",
    "new_inventory_memory_mb": "2000000",
    "new_inventory_network": "10.1.0.0/24",
}


def test_good_answers_pass() -> None:
    assert answers_errors(GOOD) == []
    assert answers_errors(GOOD | {"new_inventory_network": ""}) == []
    for model in ("A100", "a100-80gb", "l40s", "gh200", "rtx6000", "b200"):  # (upper case is written lower)
        assert answers_errors(GOOD | {"new_inventory_gpu_type": model}) == [], model


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"new_inventory_nodes": "0"}, "new_inventory_nodes: '0' is not a whole number of 1 or more"),
        ({"new_inventory_memory_mb": "2 TB"}, "new_inventory_memory_mb: '2 TB' is not a whole number of 1 or more"),
        ({"new_inventory_cluster_name": "My Cluster"}, "new_inventory_cluster_name: give lower-case letters"),
        ({"new_inventory_dir": " "}, "new_inventory_dir: give the directory to write"),
        ({"new_inventory_network": "10.1.0.0/33"}, "new_inventory_network: '10.1.0.0/33' is not a network"),
        ({"new_inventory_nodes": "200"}, "new_inventory_network: 10.1.0.0/24 has 256 addresses"),
        ({"new_inventory_gpu_type": "MI300X"}, "new_inventory_gpu_type: mi300x is an AMD accelerator"),
        ({"new_inventory_gpu_type": "gaudi3"}, "new_inventory_gpu_type: gaudi3 is an Intel accelerator"),
        ({"new_inventory_gpu_type": "h100 sxm"}, "new_inventory_gpu_type: give the GPU model as one word"),
        ({"new_inventory_memory_mb": "512"}, "new_inventory_memory_mb: 512 MB is less than a GPU node has"),
    ],
)
def test_each_bad_answer_is_named(change: dict[str, Any], expected: str) -> None:
    errors = answers_errors(GOOD | change)
    assert any(error.startswith(expected) for error in errors), errors


def test_the_network_holds_every_node_up_to_its_broadcast_address() -> None:
    assert answers_errors(GOOD | {"new_inventory_nodes": "154"}) == []  # .101 to .254
    assert answers_errors(GOOD | {"new_inventory_nodes": "155"}) != []  # .255 is the broadcast address


def test_an_admin_network_with_host_bits_is_named_before_anything_is_written() -> None:
    (error,) = answers_errors(GOOD | {"new_inventory_admin_networks": "10.0.0.0/24,10.0.0.7/24"})
    assert error.startswith("new_inventory_admin_networks: '10.0.0.7/24' has host bits set and opens all of 10.0.0.0")
    assert answers_errors(GOOD | {"new_inventory_admin_networks": "10.0.0.0/24,192.0.2.7,192.0.2.8/32"}) == []


def test_the_validations_problems_are_read_whole_from_its_json_result() -> None:
    problem = "firewall_admin_networks: '10.0.0.7/24' has host bits set and opens all of 10.0.0.0/24; " + "x" * 200
    output = "\n".join(
        [
            "TASK [Check the Ansible version, the cluster model and every role's settings] ***",
            "[ERROR]: Task failed: Action failed: [...]",
            'fatal: [localhost]: FAILED! => {"changed": false, "msg": ["The inventory has 1 problem; nothing was '
            'changed:", ' + json.dumps(problem) + "]}",
            "PLAY RECAP ***",
        ]
    )
    assert validation_problems(output) == [problem]
    assert validation_problems('fatal: [localhost]: FAILED! => {"msg": "Ansible 2.14 is too old"}') == [
        "Ansible 2.14 is too old"
    ]
    missing = "ERROR! the playbook could not be found"
    assert validation_problems(f"{missing}\n\n") == [missing]
