"""playbooks/new-inventory.yml: a first inventory from a few answers, which validates and renders; bad answers
and a directory that is not empty are refused, naming what is wrong, and nothing is written."""

from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

from .conftest import ROOT
from .test_validate_playbook import playbook

ANSWERS = {
    "new_inventory_cluster_name": "llm",
    "new_inventory_nodes": "24",
    "new_inventory_gpu_type": "a100",
    "new_inventory_gpus_per_node": "4",
    "new_inventory_sockets": "2",
    "new_inventory_cores_per_socket": "32",
    "new_inventory_threads_per_core": "1",
    "new_inventory_memory_mb": "500000",
    "new_inventory_network": "10.2.0.0/24",
    "new_inventory_admin_networks": "10.2.0.0/28, 192.0.2.7",
}


def new_inventory(directory: Path, **answers: str) -> subprocess.CompletedProcess[str]:
    values = {**ANSWERS, **answers, "new_inventory_dir": str(directory)}
    return playbook(
        ROOT / "inventories" / "pilot", "new-inventory.yml", "-e", " ".join(f"{k}='{v}'" for k, v in values.items())
    )


def test_the_answers_make_an_inventory_that_validates_and_renders(tmp_path: Path) -> None:
    site = tmp_path / "site"
    result = new_inventory(site)
    assert result.returncode == 0, result.stdout[-4000:]
    hosts = yaml.safe_load((site / "hosts.yml").read_text())["all"]["children"]
    nodes = hosts["compute"]["children"]["compute_a100"]["hosts"]
    assert len(nodes) == 24 and nodes["llm-gpu01"] == {"ansible_host": "10.2.0.101"}
    assert hosts["controllers"]["hosts"] == {"llm-ctl01": {"ansible_host": "10.2.0.10"}}
    assert (site / "group_vars" / "all" / "vault.yml.example").exists()
    # the host firewall on, with the administrators' networks of the answer
    firewall = yaml.safe_load((site / "group_vars" / "all" / "firewall.yml").read_text())
    assert firewall == {"firewall_enabled": True, "firewall_admin_networks": ["10.2.0.0/28", "192.0.2.7"]}
    # the same validation and rendering every playbook runs, on the written inventory
    assert playbook(site, "validate.yml").returncode == 0
    out = tmp_path / "rendered"
    rendered = playbook(site, "render.yml", "-e", f"cluster_config_dir={out}")
    assert rendered.returncode == 0, rendered.stdout[-4000:]
    conf = (out / "slurm.conf").read_text()
    assert "ClusterName=llm" in conf
    assert "NodeName=llm-gpu[01-24]" in conf and "Gres=gpu:a100:4" in conf and "CoresPerSocket=32" in conf
    assert "PartitionName=gpu" in conf


def test_without_a_network_the_nodes_are_one_range_reached_by_name(tmp_path: Path) -> None:
    result = new_inventory(
        tmp_path / "site", new_inventory_network="", new_inventory_nodes="128", new_inventory_admin_networks=""
    )
    assert result.returncode == 0, result.stdout[-4000:]
    firewall = yaml.safe_load((tmp_path / "site" / "group_vars" / "all" / "firewall.yml").read_text())
    assert firewall == {"firewall_enabled": False, "firewall_admin_networks": []}
    hosts = (tmp_path / "site" / "hosts.yml").read_text()
    assert "llm-gpu[001:128]:" in hosts and "ansible_host" not in hosts


def test_bad_answers_are_refused_by_name_and_nothing_is_written(tmp_path: Path) -> None:
    site = tmp_path / "site"
    result = new_inventory(
        site, new_inventory_nodes="0", new_inventory_cluster_name="Big Cluster", new_inventory_admin_networks="admins"
    )
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "new_inventory_admin_networks: 'admins' is not an address or a network" in out
    assert "new_inventory_nodes: '0' is not a whole number of 1 or more" in out
    assert "new_inventory_cluster_name: give lower-case letters" in out
    assert not site.exists()
    result = new_inventory(site, new_inventory_nodes="200")
    assert result.returncode != 0 and "new_inventory_network: 10.2.0.0/24 has 256 addresses" in " ".join(
        result.stdout.split()
    )
    assert not site.exists()


def test_an_inventory_that_does_not_validate_is_removed_again_and_can_be_written_anew(tmp_path: Path) -> None:
    """Answers the first check takes and the validation refuses (65 GPUs a node): what was written is removed, so a run
    with other answers writes the directory instead of finding it not empty; an upper-case model is written lower."""
    site = tmp_path / "site"
    result = new_inventory(site, new_inventory_gpus_per_node="65")
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "does not validate, and was removed again" in out and "gpu.count: 65 is out of range 1..64" in out, out[
        -3000:
    ]
    assert "The inventory has" not in out  # (the problems themselves, without the nested run's heading)
    assert not (site / "hosts.yml").exists() and not (site / "group_vars").exists()
    result = new_inventory(site, new_inventory_gpu_type="A100")
    assert result.returncode == 0, result.stdout[-4000:]
    cluster = yaml.safe_load((site / "group_vars" / "all" / "cluster.yml").read_text())
    assert (
        list(cluster["cluster_node_types"]) == ["a100"]
        and cluster["cluster_node_types"]["a100"]["gpu"]["type"] == "a100"
    )


def test_an_existing_inventory_is_never_overwritten(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "hosts.yml").write_text("mine\n")
    result = new_inventory(site)
    assert result.returncode != 0
    assert "is not empty (hosts.yml): an existing inventory is never overwritten" in " ".join(result.stdout.split())
    assert (site / "hosts.yml").read_text() == "mine\n"
