"""A small valid cluster (spec + groups) that each malformed-inventory case breaks in one place."""

from __future__ import annotations

import copy
from typing import Any


def valid_spec() -> dict[str, Any]:
    return copy.deepcopy(
        {
            "name": "lab",
            "slurm_release": "24.11",
            "node_types": {
                "h100": {
                    "group": "compute_h100",
                    "sockets": 2,
                    "cores_per_socket": 8,
                    "threads_per_core": 2,
                    "real_memory_mb": 64000,
                    "features": ["ib"],
                    "weight": 10,
                    "gpu": {"type": "h100", "count": 4},
                },
                "cpu": {"group": "compute_cpu", "sockets": 1, "cores_per_socket": 4, "real_memory_mb": 8000},
            },
            "partitions": [
                {
                    "name": "gpu",
                    "node_types": ["h100"],
                    "default": True,
                    "max_time": "1-00:00:00",
                    "qos": "normal",
                    "priority_tier": 10,
                },
                {"name": "cpu", "node_types": ["cpu"], "priority_tier": 1, "preempt_mode": "REQUEUE"},
            ],
            "qos": {"normal": {}, "high": {"priority": 100, "preempt": ["normal"]}},
            "scheduling": {"preempt": {"type": "partition_prio", "mode": ["REQUEUE"]}},
            "accounting": {"enforce": ["associations", "limits", "qos"]},
            "fabric": {"topology": "tree", "fat_tree": {"tiers": 2, "nodes_per_leaf": 2}},
        }
    )


def valid_groups() -> dict[str, list[str]]:
    gpu = [f"gpu{i:02d}" for i in range(1, 5)]
    cpu = ["cpu01", "cpu02"]
    hosts = {
        "controllers": ["ctl01"],
        "dbd": ["dbd01"],
        "login": ["login01"],
        "storage": ["nfs01"],
        "compute_h100": gpu,
        "compute_cpu": cpu,
        "compute": gpu + cpu,
    }
    hosts["all"] = sorted({h for members in hosts.values() for h in members})
    hosts["ungrouped"] = []
    return copy.deepcopy(hosts)


def standalone_spec(release: str) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """valid_spec and valid_groups for ``release`` as a throw-away slurmctld loads them alone (lab.slurmctld_check's
    small_slurmctld): no QOS, scheduling, accounting or fabric, no slurmdbd host."""
    spec, groups = valid_spec(), valid_groups()
    spec.update(slurm_release=release, qos={}, scheduling={}, accounting={})
    spec.pop("fabric")
    spec["partitions"][0]["qos"] = ""
    groups["dbd"] = []
    return spec, groups
