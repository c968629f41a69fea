"""The cluster as its users see it: partitions, GPU types, QOS and the requests that fit a node.

Feeds the site user guide and the example job scripts (the user_env role), so that both follow the
inventory: a partition added, a node type changed or a QOS limit moved shows up in the guide and in the
examples' #SBATCH lines at the next run.
"""

from __future__ import annotations

import json
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import Cluster, NodeType, Partition
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import fold
from ansible_collections.gpucluster.cluster.plugins.module_utils.slurmconf import node_features


def node_request(node_type: NodeType) -> dict[str, Any]:
    """What one node of a type offers, and the per-GPU share of it a job should ask for."""
    gpus = node_type.gpu.count if node_type.gpu else 0
    return {
        "name": node_type.name,
        "nodes": len(node_type.hosts),
        "cpus": node_type.cpus,
        "memory_mb": node_type.real_memory_mb,
        "features": node_features(node_type),
        "gpu_type": node_type.gpu.type if node_type.gpu else "",
        "gpus": gpus,
        # One task per GPU: an equal share of cores and memory each (never zero).
        "cpus_per_gpu": max(1, node_type.cpus // gpus) if gpus else 0,
        "mem_per_gpu_mb": node_type.real_memory_mb // gpus if gpus else 0,
    }


def _partition(cluster: Cluster, partition: Partition) -> dict[str, Any]:
    types = [nt for nt in cluster.node_types if set(nt.hosts) & set(partition.hosts)]
    return {
        "name": partition.name,
        "default": partition.default,
        "nodes": len(partition.hosts),
        "hostlist": fold(partition.hosts),
        "max_time": partition.max_time or "UNLIMITED",
        "default_time": partition.default_time,
        "qos": partition.qos,
        "allow_qos": list(partition.allow_qos),
        "preempt_mode": partition.preempt_mode,
        "priority_tier": partition.priority_tier,
        "gpus": sum(len(set(nt.hosts) & set(partition.hosts)) * (nt.gpu.count if nt.gpu else 0) for nt in types),
        "node_types": [node_request(nt) for nt in types],
    }


def slurm_minutes(text: str) -> int | None:
    """Minutes of a Slurm time (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S); None when unlimited or empty."""
    if not text or text in ("UNLIMITED", "INFINITE"):
        return None
    days, _, clock = text.rpartition("-")
    parts = [int(part) for part in clock.split(":")]
    if days:
        hours, minutes = parts[0], parts[1] if len(parts) > 1 else 0
    elif len(parts) == 3:
        hours, minutes = parts[0], parts[1]
    else:
        hours, minutes = 0, parts[0]
    return (int(days or 0) * 24 + hours) * 60 + minutes


def slurm_time(minutes: int) -> str:
    days, rest = divmod(minutes, 24 * 60)
    clock = f"{rest // 60:02d}:{rest % 60:02d}:00"
    return f"{days}-{clock}" if days else clock


# Time limits of the examples: short steps, a training run, a long self-requeueing run (minutes).
EXAMPLE_MINUTES = {"short": 10, "train": 60, "long": 240}


def example_times(max_time: str) -> dict[str, str]:
    """The examples' time limits, each cut to the partition's MaxTime so that no example pends forever."""
    limit = slurm_minutes(max_time)
    return {name: slurm_time(m if limit is None else min(m, limit)) for name, m in EXAMPLE_MINUTES.items()}


def example_target(partitions: list[dict[str, Any]]) -> dict[str, Any]:
    """Partition and node type the examples are sized for: the default partition's first GPU node type,
    else the first GPU node type of any partition, else the first node type (a CPU-only cluster)."""
    ordered = sorted(partitions, key=lambda p: not p["default"])
    for want_gpus in (True, False):
        for partition in ordered:
            for node_type in partition["node_types"]:
                if bool(node_type["gpus"]) == want_gpus:
                    times = example_times(partition["max_time"])
                    return {"partition": partition["name"], "time": times, **node_type}
    return {}


def everyday_view(cluster: Cluster, example: dict[str, Any]) -> dict[str, Any]:
    """What the guide's everyday commands ask for, from the example's partition: one GPU of its type (or one
    CPU), a short time, a node to name and one to leave out, a feature the nodes have."""
    partition = next((p for p in cluster.partitions if p.name == example.get("partition")), None)
    hosts = sorted(partition.hosts) if partition else []
    gres = f"--gres=gpu:{example['gpu_type']}:1" if example.get("gpus") else "--cpus-per-task=1"
    features = list(example.get("features") or [])
    return {
        "request": gres,
        "minutes": min(10, slurm_minutes(example.get("time", {}).get("short", "")) or 10),
        "node": hosts[0] if hosts else "",
        "feature": features[-1] if features else "",
    }


def user_view(cluster: Cluster) -> dict[str, Any]:
    partitions = [_partition(cluster, p) for p in cluster.partitions]
    gpu_types: dict[str, int] = {}
    for node_type in cluster.gpu_node_types:
        assert node_type.gpu is not None
        gpu_types[node_type.gpu.type] = (
            gpu_types.get(node_type.gpu.type, 0) + len(node_type.hosts) * node_type.gpu.count
        )
    view: dict[str, Any] = {
        "cluster": cluster.name,
        "release": str(cluster.release),
        "login": list(cluster.login),
        "partitions": partitions,
        "gpu_types": dict(sorted(gpu_types.items())),
        "qos": [
            {
                "name": q.name,
                "priority": q.priority,
                "preempt": list(q.preempt),
                "max_wall": q.max_wall,
                "limits": dict(q.limits),
                "flags": list(q.flags),
            }
            for q in cluster.qos
        ],
        "preemption": cluster.scheduling.preempt_type != "none",
        "mail": {"enabled": cluster.mail.enabled, "domain": cluster.mail.domain},
        "rest_api": rest_api_view(cluster),
        "example": example_target(partitions),
    }
    view["everyday"] = everyday_view(cluster, view["example"])
    return view


def rest_api_view(cluster: Cluster) -> dict[str, Any]:
    """Where users reach the REST API (the controllers' VIP, else the first controller) and which version."""
    rest_api = cluster.rest_api
    host = cluster.controller_vip or (cluster.controllers[0] if cluster.controllers else "")
    version = cluster.release.rest_api_version
    # a job's body: up to v0.0.38 (22.05) the script beside the job and the environment as a mapping
    script, directory = "#!/bin/bash\nhostname", "$HOME"
    request: dict[str, Any]
    if version and int(version.rsplit(".", 1)[1]) <= 38:
        job = {"current_working_directory": directory, "environment": {"PATH": "/usr/bin:/bin"}}
        request = {"script": script, "job": job}
    else:
        job = {"script": script, "current_working_directory": directory, "environment": ["PATH=/usr/bin:/bin"]}
        request = {"job": job}
    # for the shell: inside single quotes, $HOME closes and reopens them
    body = json.dumps(request).replace('"$HOME"', "\"'$HOME'\"")
    return {
        "enabled": rest_api.enabled,
        "url": f"http://{host}:{rest_api.port}" if rest_api.enabled else "",
        "version": version,
        "max_token_lifespan": rest_api.max_token_lifespan,
        # the guide's example asks for an hour, or the most the cluster gives
        "token_lifespan": min(3600, rest_api.max_token_lifespan or 3600),
        "submit_body": body,
    }
