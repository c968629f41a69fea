"""The run's plan: everything the roles read of the cluster model, as plain data, built once.

The opening play (playbooks/boilerplate.yml) validates the inventory and, when it is valid, builds the plan from
the same model (one build per pod) and leaves it as the fact ``cluster_plan`` of localhost. The roles take it
from there (``cluster_plan`` filter, the cluster role's ``plan`` entry point): each reads its slice - a pod's
Slurm files, the users' view, a host's GPUs, the firewall's ports, Prometheus' targets - instead of building the
model again. The
plan carries the fingerprint of the inventory it was built from (the model's variables and the groups); a play
that sees another inventory (a group added during the run, a role run alone) builds its own, so a stale plan is
never used.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .cluster_types import Cluster, InventoryError
from .federation import host_independent
from .firewall import cluster_ports
from .hardware import node_hardware
from .hostlist import fold, holds
from .model import build_pods
from .monitoring import monitoring_view
from .render import cluster_config
from .slurmconf import gpu_index_order
from .userview import user_view
from .validate import GPU_CATALOGUE

# The shape of the plan: raised whenever a key the roles read changes, so that a plan left in the fact cache by an
# earlier release is never taken (2: job_user_dirs as the files action's entries; 3: node_hardware).
PLAN_FORMAT = 4


def fingerprint(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> str:
    """The inventory a plan stands for: the model's variables as every host sees them (federation.host_independent)
    and every group with its hosts, in their order."""
    data = {
        "spec": host_independent(spec),
        "groups": {str(group): [str(host) for host in hosts] for group, hosts in groups.items()},
    }
    text = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def node_gpus(pods: Mapping[str, Cluster]) -> list[dict[str, Any]]:
    """The GPUs the inventory declares, per GPU node type: its hosts (folded) and what each of them has (node type,
    GRES type, count, devices, Slurm's index order of the device files, detection). Folded, not per host: the plan
    stays small at 12,800 nodes, and node_gpu() finds a host's entry."""
    result: list[dict[str, Any]] = []
    for cluster in pods.values():
        for node_type in cluster.node_types:
            gpu = node_type.gpu
            if gpu is None or not node_type.hosts:
                continue
            result.append(
                {
                    "hosts": fold(node_type.hosts),
                    "node_type": node_type.name,
                    "type": gpu.type,
                    "count": gpu.count,
                    "devices": list(gpu.devices),
                    "index_order": gpu_index_order(node_type),
                    "autodetect": gpu.autodetect,
                    "nvml_name": gpu.nvml_name or GPU_CATALOGUE.get(gpu.type.lower(), ""),
                    "mig": gpu.mig,
                }
            )
    return result


def node_gpu(plan: Mapping[str, Any], host: str) -> dict[str, Any]:
    """One host's GPUs from the plan (node_gpus without the hosts); empty when it is not a GPU compute node."""
    for entry in plan["node_gpus"]:
        if holds(entry["hosts"], host):
            return {key: value for key, value in entry.items() if key != "hosts"}
    return {}


def host_pod(plan: Mapping[str, Any], host: str) -> str | None:
    """The pod whose controllers, compute or login nodes hold the host ("" outside a federation); None: none."""
    return next((pod for pod, hosts in plan["firewall"]["hosts"].items() if holds(hosts, host)), None)


def user_views(pods: Mapping[str, Cluster]) -> dict[str, dict[str, Any]]:
    """The users' view of every cluster ({"": view} or {pod: view}); a pod's view names its federation."""
    views = {pod: user_view(cluster) for pod, cluster in pods.items()}
    if "" not in pods:
        first = next(iter(pods.values()))
        for view in views.values():
            view["federation"] = {"name": first.federation, "clusters": list(pods)}
    return views


def _config_overrides(cluster: Cluster) -> bool:
    """Whether slurmd takes slurm.conf's hardware over what it finds (SlurmdParameters=config_overrides)."""
    return any(
        key.lower() == "slurmdparameters" and "config_overrides" in str(value).lower()
        for key, value in cluster.slurm_config
    )


def plan_of(pods: Mapping[str, Cluster], inventory: str) -> dict[str, Any]:
    """The plan of the clusters built from the inventory whose fingerprint is ``inventory``. Raises InventoryError
    with every pod's problems (a value that would break a Slurm file's line)."""
    configs: dict[str, dict[str, Any]] = {}
    errors: list[str] = []
    for pod, cluster in pods.items():
        try:
            configs[pod] = cluster_config(cluster)
        except InventoryError as exc:
            errors += [f"pod {pod}: {error}" if pod else error for error in exc.errors]
    if errors:
        raise InventoryError(errors)
    return {
        "format": PLAN_FORMAT,
        "fingerprint": inventory,
        "configs": configs,
        "user_views": user_views(pods),
        "node_gpus": node_gpus(pods),
        "node_hardware": [
            entry
            for cluster in pods.values()
            for entry in node_hardware(cluster.node_types, _config_overrides(cluster))
        ],
        # the hosts whose daemons find themselves in slurm.conf by their host's name (hardware.name_problems)
        "slurm_hosts": {
            "controllers": fold([host for cluster in pods.values() for host in cluster.controllers]),
            # each node type's hosts, folded already for its NodeName line (one fold of every compute host costs
            # 34 ms at 12,800 hosts)
            "nodes": ",".join(fold(t.hosts) for cluster in pods.values() for t in cluster.node_types if t.hosts),
        },
        "monitoring": {pod: monitoring_view(cluster) for pod, cluster in pods.items()},
        "firewall": {
            "ports": {pod: cluster_ports(cluster) for pod, cluster in pods.items()},
            # (each role group's fold, joined: a hostlist as holds() reads it; one fold of all three sorted the 12,800
            # compute names once more, 60 ms)
            "hosts": {
                pod: ",".join(filter(None, map(fold, (c.controllers, c.compute, c.login)))) for pod, c in pods.items()
            },
        },
    }


def build_plan(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """Build the model (once per pod) and its plan; raises InventoryError with every problem."""
    return plan_of(build_pods(spec, groups), fingerprint(spec, groups))


def plan_for(
    spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]], held: object = None
) -> tuple[dict[str, Any], bool]:
    """(the plan of this inventory, whether it was built here): ``held`` (the run's plan) where it stands for the
    same inventory, else a new one."""
    if (
        isinstance(held, Mapping)
        and held.get("format") == PLAN_FORMAT
        and held.get("fingerprint") == fingerprint(spec, groups)
    ):
        return dict(held), False
    return build_plan(spec, groups), True


def validated_plan(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> tuple[list[str], dict[str, Any]]:
    """(every problem of the inventory, its plan): the plan is empty when there are problems."""
    try:
        return [], build_plan(spec, groups)
    except InventoryError as exc:
        return exc.errors, {}
