"""playbooks/user_guide.yml: the site user guide follows the inventory, and docs/sites/ is current."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from .conftest import ANSIBLE_PLAYBOOK, ROOT


def render_guide(inventory: Path, out: Path) -> str:
    result = subprocess.run(
        [str(ANSIBLE_PLAYBOOK), "-i", str(inventory), str(ROOT / "playbooks" / "user_guide.yml"),
         "-e", f"user_env_guide_render_path={out}"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return out.read_text()


@pytest.mark.parametrize("site", ["pilot", "production", "federation"])
def test_committed_site_pages_are_current(site: str, tmp_path: Path) -> None:
    fresh = render_guide(ROOT / "inventories" / site, tmp_path / "guide.md")
    assert fresh == (ROOT / "docs" / "sites" / f"{site}.md").read_text(), (
        f"docs/sites/{site}.md is stale: ansible-playbook -i inventories/{site} playbooks/user_guide.yml "
        f"-e user_env_guide_render_path=$PWD/docs/sites/{site}.md"
    )


def test_the_guide_follows_an_inventory_change(tmp_path: Path) -> None:
    inventory = tmp_path / "site"
    shutil.copytree(ROOT / "inventories" / "production", inventory)
    model = inventory / "group_vars" / "all" / "cluster.yml"
    data = yaml.safe_load(model.read_text())
    gpu = next(p for p in data["cluster_partitions"] if p["name"] == "gpu")
    gpu["max_time"] = "2-00:00:00"
    data["cluster_qos"]["high"]["limits"]["MaxTRESPerUser"] = "gres/gpu=64"
    model.write_text(yaml.safe_dump(data))
    guide = render_guide(inventory, tmp_path / "guide.md")
    assert "| `gpu` (default) | 128 (`prod-gpu[001-128]`) | 1024 | 2-00:00:00 |" in guide
    assert "MaxTRESPerUser=gres/gpu=64" in guide
    assert "#SBATCH --gres=gpu:h100:8" in guide and "#SBATCH --cpus-per-task=28" in guide
