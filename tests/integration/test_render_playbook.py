"""playbooks/render.yml end to end: renders offline, is idempotent, works in check mode, and stops a bad
inventory before anything is written."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import yaml

from .conftest import ROOT, render_inventory


def _recap(output: str) -> dict[str, int]:
    match = re.search(r"localhost\s*:\s*(.*)", output)
    assert match, output
    return {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", match.group(1))}


def test_render_is_idempotent_and_check_mode_clean(tmp_path: Path) -> None:
    out = tmp_path / "pilot"
    first = render_inventory(ROOT / "inventories" / "pilot", out)
    assert first.returncode == 0, first.stdout + first.stderr
    assert sorted(p.name for p in out.iterdir()) == ["gres.conf", "slurm.conf", "topology.conf"]
    assert _recap(first.stdout)["changed"] >= 1
    second = render_inventory(ROOT / "inventories" / "pilot", out)
    assert _recap(second.stdout)["changed"] == 0, second.stdout


def test_switching_to_a_yaml_release_removes_topology_conf(tmp_path: Path) -> None:
    out = tmp_path / "pilot"
    assert render_inventory(ROOT / "inventories" / "pilot", out).returncode == 0
    result = render_inventory(ROOT / "inventories" / "pilot", out, release="26.05")
    assert result.returncode == 0, result.stdout
    assert sorted(p.name for p in out.iterdir()) == ["gres.conf", "slurm.conf", "topology.yaml"]
    topologies = yaml.safe_load((out / "topology.yaml").read_text())
    assert [t["topology"] for t in topologies] == ["fabric"]


def test_bad_inventory_stops_before_anything_is_written(tmp_path: Path) -> None:
    inventory = tmp_path / "broken"
    shutil.copytree(ROOT / "inventories" / "pilot", inventory)
    model = inventory / "group_vars" / "all" / "cluster.yml"
    data = yaml.safe_load(model.read_text())
    data["cluster_node_types"]["h100"]["gpu"]["type"] = "h100 sxm"
    data["cluster_partitions"][0]["max_time"] = "two days"
    model.write_text(yaml.safe_dump(data))
    out = tmp_path / "out"
    result = render_inventory(inventory, out)
    assert result.returncode != 0
    assert "2 problems" in result.stdout
    assert "cluster_node_types.h100.gpu.type: 'h100 sxm' may hold letters, digits" in result.stdout
    assert "cluster_partitions[gpu].max_time: 'two days' is not a Slurm time" in result.stdout
    assert not out.exists()
