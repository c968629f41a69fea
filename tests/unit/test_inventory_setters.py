"""Which hosts a tier-1 check reads a per-host variable of: every host where the inventory's files may set it, one
where they cannot (the run then gives every host the same value)."""

from __future__ import annotations

from pathlib import Path

from ansible_collections.gpucluster.cluster.plugins.filter.hosts import inventory_setters

HOSTS = ["ctl01", "gpu001", "gpu002"]
NAME = "monitoring_exporter_address"


def inventory(root: Path) -> Path:
    (root / "group_vars" / "all").mkdir(parents=True)
    (root / "hosts.yml").write_text("all:\n  children:\n    compute:\n      hosts:\n        gpu[001:002]:\n")
    (root / "group_vars" / "all" / "cluster.yml").write_text("cluster_name: lab\n")
    return root


def test_a_variable_no_file_names_is_read_on_one_host(tmp_path: Path) -> None:
    assert inventory_setters(HOSTS, NAME, [str(inventory(tmp_path / "inv"))]) == ["ctl01"]
    assert inventory_setters([], NAME, [str(inventory(tmp_path / "empty"))]) == []
    # a host list on the command line holds no variables
    assert inventory_setters(HOSTS, NAME, ["ctl01,gpu001,"]) == ["ctl01"]


def test_a_variable_set_anywhere_in_the_inventory_is_read_on_every_host(tmp_path: Path) -> None:
    places = {
        "host_vars": Path("host_vars") / "gpu001.yml",
        "group_vars of a group": Path("group_vars") / "compute" / "exporters.yml",
        "the hosts file": Path("hosts.ini"),
    }
    for number, relative in enumerate(places.values()):
        root = inventory(tmp_path / f"inv{number}")
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(f"{NAME}: 10.0.0.1\n")
        assert inventory_setters(HOSTS, NAME, [str(root)]) == HOSTS, relative


def test_a_hosts_file_source_counts_its_neighbours_and_the_playbooks_group_vars(tmp_path: Path) -> None:
    root = inventory(tmp_path / "inv")
    source = [str(root / "hosts.yml")]
    assert inventory_setters(HOSTS, NAME, source) == ["ctl01"]
    (root / "host_vars").mkdir()
    (root / "host_vars" / "ctl01.yml").write_text(f"{NAME}: 10.0.0.1\n")
    assert inventory_setters(HOSTS, NAME, source) == HOSTS
    playbooks = tmp_path / "playbooks"
    (playbooks / "group_vars").mkdir(parents=True)
    (playbooks / "group_vars" / "compute.yml").write_text(f"{NAME}: 10.0.0.2\n")
    other = inventory(tmp_path / "other")
    assert inventory_setters(HOSTS, NAME, [str(other)], str(playbooks)) == HOSTS
    assert inventory_setters(HOSTS, NAME, [str(other)], str(tmp_path / "elsewhere")) == ["ctl01"]


def test_what_cannot_be_read_as_text_counts_as_setting_it(tmp_path: Path) -> None:
    """An inventory script, a vault-encrypted file: the variable may be in them."""
    root = inventory(tmp_path / "vault")
    (root / "group_vars" / "all" / "vault.yml").write_text("$ANSIBLE_VAULT;1.1;AES256\n6162636465\n")
    assert inventory_setters(HOSTS, NAME, [str(root)]) == HOSTS
    root = inventory(tmp_path / "script")
    script = root / "cloud.py"
    script.write_text("#!/usr/bin/env python3\nprint('{}')\n")
    script.chmod(0o755)
    assert inventory_setters(HOSTS, NAME, [str(root)]) == HOSTS
