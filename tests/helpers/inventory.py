"""Load an inventory directory the way the playbooks see it: groups from Ansible, cluster_* vars."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from ansible.inventory.manager import InventoryManager
from ansible.parsing.dataloader import DataLoader


def load_inventory(path: Path) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """(spec, groups): the cluster_* variables of group_vars/all without their prefix, and the groups."""
    manager = InventoryManager(loader=DataLoader(), sources=[str(path)])
    groups = {name: [host.name for host in group.get_hosts()] for name, group in manager.groups.items()}
    spec: dict[str, Any] = {}
    for file in sorted((path / "group_vars" / "all").glob("*.yml")):
        for key, value in (yaml.safe_load(file.read_text()) or {}).items():
            if key.startswith("cluster_"):
                spec[key.removeprefix("cluster_")] = value
    return spec, groups
