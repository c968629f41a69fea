"""The schema is what the reader checks and what docs/inventory.md shows: every section refuses a key it does
not list, the top-level keys are the cluster role's variables, and the reference has not drifted."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_pods
from ansible_collections.gpucluster.cluster.plugins.module_utils.schema import SECTIONS

from .factory import valid_groups, valid_spec

ROOT = Path(__file__).resolve().parents[2]

# Where each section's mapping sits in a valid spec (made when the valid spec has none).
PLACES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "cluster_*": lambda spec: spec,
    "cluster_node_types.<type>": lambda spec: spec["node_types"]["cpu"],
    "cluster_node_types.<type>.gpu": lambda spec: spec["node_types"]["h100"]["gpu"],
    "cluster_partitions[]": lambda spec: spec["partitions"][1],
    "cluster_qos.<name>": lambda spec: spec["qos"]["normal"],
    "cluster_scheduling": lambda spec: spec["scheduling"],
    "cluster_scheduling.priority": lambda spec: spec["scheduling"].setdefault("priority", {}),
    "cluster_scheduling.preempt": lambda spec: spec["scheduling"]["preempt"],
    "cluster_accounting": lambda spec: spec["accounting"],
    "cluster_job_scripts": lambda spec: spec.setdefault("job_scripts", {}),
    "cluster_job_submit": lambda spec: spec.setdefault("job_submit", {"script": "gpu-policy"}),
    "cluster_job_tmpfs": lambda spec: spec.setdefault("job_tmpfs", {}),
    "cluster_health_check": lambda spec: spec.setdefault("health_check", {}),
    "cluster_health_check.mounts[]": lambda spec: spec.setdefault("health_check", {"mounts": [{"path": "/home"}]})[
        "mounts"
    ][0],
    "cluster_mail": lambda spec: spec.setdefault("mail", {"relay": "smtp.example.org"}),
    "cluster_rest_api": lambda spec: spec.setdefault("rest_api", {}),
    "cluster_fabric": lambda spec: spec["fabric"],
    "cluster_fabric.switches.<name>": lambda spec: spec.setdefault(
        "fabric", {"topology": "tree", "switches": {"leaf": {"nodes": "gpu[01-04],cpu[01-02]"}}}
    )["switches"]["leaf"],
    "cluster_fabric.fat_tree": lambda spec: spec["fabric"]["fat_tree"],
    "cluster_fabric.dragonfly": lambda spec: spec.setdefault(
        "fabric", {"topology": "tree", "dragonfly": {"nodes_per_leaf": 2, "leaves_per_group": 3}}
    )["dragonfly"],
    "cluster_fabric.blocks": lambda spec: spec["fabric"].setdefault("blocks", {"nodes_per_block": 2}),
    "cluster_federation": lambda spec: spec.setdefault("federation", {"pods": {"pod1": {}}}),
    "cluster_federation.pods.<pod>": lambda spec: spec.setdefault("federation", {"pods": {"pod1": {}}})["pods"]["pod1"],
}
# Sections that replace a part of the valid spec before the key is placed.
REPLACED = {
    "cluster_health_check.mounts[]": "health_check",
    "cluster_fabric.switches.<name>": "fabric",
    "cluster_fabric.dragonfly": "fabric",
}


def test_every_section_has_a_place() -> None:
    assert set(PLACES) == {section.path for section in SECTIONS}


@pytest.mark.parametrize("path", [section.path for section in SECTIONS])
def test_each_section_refuses_a_key_it_does_not_list(path: str) -> None:
    spec = valid_spec()
    spec.pop(REPLACED.get(path, ""), None)
    PLACES[path](spec)["bogus_key"] = 1
    with pytest.raises(InventoryError) as raised:
        build_pods(spec, valid_groups())
    assert any("unknown key 'bogus_key'" in error for error in raised.value.errors), raised.value.errors


@pytest.mark.parametrize("path", [section.path for section in SECTIONS])
def test_each_section_accepts_every_key_it_lists(path: str) -> None:
    """No key of a section is refused as unknown (its value may still be refused)."""
    section = next(s for s in SECTIONS if s.path == path)
    spec = valid_spec()
    spec.pop(REPLACED.get(path, ""), None)
    place = PLACES[path](spec)
    for key in section.keys:
        place.setdefault(key.name, None)
    try:
        build_pods(spec, valid_groups())
    except InventoryError as error:
        assert not [e for e in error.errors if "unknown key" in e], error.errors


def test_top_level_keys_are_the_cluster_roles_variables() -> None:
    specs = yaml.safe_load((ROOT / "roles" / "cluster" / "meta" / "argument_specs.yml").read_text())
    declared = set(specs["argument_specs"]["main"]["options"])
    top = next(s for s in SECTIONS if s.path == "cluster_*")
    model = {f"cluster_{key.name}" for key in top.keys if not key.internal}
    assert model <= declared, sorted(model - declared)
    role_only = {"cluster_config_dir", "cluster_config_mode", "cluster_install_dir"}
    assert declared - model <= role_only, sorted(declared - model - role_only)


def test_the_reference_in_docs_inventory_md_is_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "inventory_docs.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
