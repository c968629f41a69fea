"""Filters that turn the inventory into Slurm configuration, through the one cluster model."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.federation import Pod, federation_of, pod_of
from ansible_collections.gpucluster.cluster.plugins.module_utils.hardware import (
    CHECKED,
    NAME_FACTS,
    name_problems,
    shortfalls,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import HostlistError, expand, fold
from ansible_collections.gpucluster.cluster.plugins.module_utils.plan import node_gpu, plan_for
from ansible_collections.gpucluster.cluster.plugins.module_utils.slurmconf import host_job_scripts, state_save_location
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.cluster import inventory_error


def _host_pod(federation: Mapping[str, Any] | None, group_names: Sequence[str]) -> Pod | None:
    """The pod of cluster_federation whose group is one of a host's groups; None outside any pod or federation."""
    parsed = federation_of(federation)
    return parsed.pod_of_groups(group_names) if parsed else None


def cluster_pod(federation: Mapping[str, Any] | None, group_names: Sequence[str]) -> str:
    """The pod of a host (from its group_names) in cluster_federation; "" outside any pod or federation."""
    pod = _host_pod(federation, group_names)
    return pod.name if pod else ""


def cluster_pod_setting(
    federation: Mapping[str, Any] | None, group_names: Sequence[str], key: str, default: Any = ""
) -> Any:
    """A host's value of a setting a pod may replace (fabric, slurm_release, controller_vip, slurm_config): its
    pod's in cluster_federation, else ``default`` (the shared value; outside any pod or federation, too)."""
    pod = _host_pod(federation, group_names)
    value = pod.settings({key: default})[key] if pod is not None else default
    return default if value is None else value


def cluster_state_save_location(
    slurm_config: Mapping[str, Any] | None, federation: Mapping[str, Any] | None, group_names: Sequence[str]
) -> str:
    """The StateSaveLocation in a host's slurm.conf: its pod's slurm_config in cluster_federation (which replaces
    cluster_slurm_config for that pod), else cluster_slurm_config's, else the model's default."""
    pod = _host_pod(federation, group_names)
    if pod is not None:
        slurm_config = pod.settings({"slurm_config": slurm_config})["slurm_config"]
    return state_save_location(slurm_config)


def cluster_pod_hosts(
    hosts: Sequence[str], groups: Mapping[str, Sequence[str]], federation: Mapping[str, Any] | None, host: str
) -> list[str]:
    """The hosts of ``hosts`` in the same pod as ``host`` (all of them outside a federation or any pod):
    e.g. a pod's own controllers, from groups['controllers']."""
    parsed = federation_of(federation)
    if parsed is None:
        return list(hosts)
    pod = pod_of(host, groups, parsed)
    if not pod:
        return list(hosts)
    return [member for member in hosts if pod_of(member, groups, parsed) == pod]


def cluster_pod_leaders(
    hosts: Sequence[str], groups: Mapping[str, Sequence[str]], federation: Mapping[str, Any] | None
) -> list[str]:
    """The first of ``hosts`` in every pod (e.g. each pod's first controller); outside a federation, the first."""
    parsed = federation_of(federation)
    if parsed is None:
        return list(hosts[:1])
    leaders: dict[str, str] = {}
    for host in hosts:
        leaders.setdefault(pod_of(host, groups, parsed), host)
    return [leaders[pod.name] for pod in parsed.pods if pod.name in leaders]


def cluster_host_job_scripts(
    kinds: Sequence[Mapping[str, Any]], group_names: Sequence[str], sample_dir: str
) -> dict[str, list[Any]]:
    """The script directories and {src, dest} files of one host, from cluster_config's job_scripts."""
    return host_job_scripts(kinds, group_names, sample_dir)


def cluster_plan(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]], held: Any = None) -> dict[str, Any]:
    """The run's plan of the cluster: what the roles read of the model. ``held`` where it stands for this inventory,
    else a plan built here from the model: each pod's Slurm files (``configs``), the users' view (``user_views``),
    each GPU host's GPUs (``node_gpus``), the firewall's ports (``firewall``)."""
    try:
        return plan_for(spec, groups, held)[0]
    except InventoryError as exc:
        raise inventory_error(exc) from exc


def cluster_host_facts_check(
    plan: Any, hostvars: Mapping[str, Any], hosts: Sequence[str], names_checked: bool = True
) -> dict[str, list[str]]:
    """The facts of ``hosts`` beside the run's plan (module_utils/hardware.py): {problems: node types all of whose
    hosts have less memory or fewer CPUs than declared, and - unless ``names_checked`` is false - controllers and
    compute nodes whose daemon would not take their inventory name as its own; notes: single hosts that fall short}.
    Nothing without the run's plan (a role run alone)."""
    if not isinstance(plan, Mapping):
        return {"problems": [], "notes": []}
    facts = {}
    for host in hosts:
        own = hostvars[host].get("ansible_facts") if host in hostvars else None
        if isinstance(own, Mapping):
            facts[str(host)] = {fact: own.get(fact) for fact in (*CHECKED, *NAME_FACTS)}
    with_hardware = {host: own for host, own in facts.items() if own.get("memtotal_mb") is not None}
    problems, notes = shortfalls(plan.get("node_hardware") or [], with_hardware)
    if names_checked:
        problems += name_problems(plan.get("slurm_hosts") or {}, facts)
    return {"problems": problems, "notes": notes}


def cluster_node_gpu(plan: Mapping[str, Any], host: str) -> dict[str, Any]:
    """The GPUs the inventory declares for one host (node type, GRES type, count, devices, Slurm's index order of
    the device files, detection), from the run's plan; empty when it is not a GPU compute node."""
    return node_gpu(plan, host)


def hostlist_fold(names: Sequence[str]) -> str:
    """Fold host names into a Slurm hostlist expression."""
    return fold(names)


def hostlist_expand(expression: str, strict: bool = True) -> list[str]:
    """Expand a Slurm hostlist expression into host names; ``strict=false``: an expression that cannot be read gives
    no names (where the validation says what is wrong with it, as for remove-node.yml's --limit check)."""
    try:
        return expand(expression)
    except HostlistError:
        if strict:
            raise
        return []


class FilterModule:
    """gpucluster.cluster filters."""

    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "cluster_pod": cluster_pod,
            "cluster_pod_hosts": cluster_pod_hosts,
            "cluster_pod_setting": cluster_pod_setting,
            "cluster_pod_leaders": cluster_pod_leaders,
            "cluster_state_save_location": cluster_state_save_location,
            "cluster_plan": cluster_plan,
            "cluster_node_gpu": cluster_node_gpu,
            "cluster_host_facts_check": cluster_host_facts_check,
            "cluster_host_job_scripts": cluster_host_job_scripts,
            "hostlist_fold": hostlist_fold,
            "hostlist_expand": hostlist_expand,
        }
