"""Filters that turn the inventory into Slurm configuration, through the one cluster model."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.federation import federation_of, pod_of
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import expand, fold
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import (
    config_from_inventory,
    configs_from_inventory,
    inventory_errors,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.slurmconf import (
    gpu_index_order,
    host_job_scripts,
    state_save_location,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.userview import user_view
from ansible_collections.gpucluster.cluster.plugins.module_utils.validate import GPU_CATALOGUE
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.cluster import (
    cluster_or_raise,
    inventory_error,
    pods_or_raise,
)
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.inventory_text import inventory_text_errors
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.variables import (
    boolean_errors,
    boolean_variables,
    known_variables,
    unknown_variables,
)


def cluster_config(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """Validated config data for the slurm.conf, gres.conf and topology templates."""
    try:
        return config_from_inventory(spec, groups)
    except InventoryError as exc:
        raise inventory_error(exc) from exc


def cluster_configs(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> dict[str, dict[str, Any]]:
    """cluster_config of every cluster, once per play: {"": config} for one cluster, {pod: config} for the pods
    of a federation (each host then reads its own pod's, see cluster_pod)."""
    try:
        return configs_from_inventory(spec, groups)
    except InventoryError as exc:
        raise inventory_error(exc) from exc


def cluster_pod(federation: Mapping[str, Any] | None, group_names: Sequence[str]) -> str:
    """The pod of a host (from its group_names) in cluster_federation; "" outside any pod or federation."""
    parsed = federation_of(federation)
    pod = parsed.pod_of_groups(group_names) if parsed else None
    return pod.name if pod else ""


def cluster_state_save_location(
    slurm_config: Mapping[str, Any] | None, federation: Mapping[str, Any] | None, group_names: Sequence[str]
) -> str:
    """The StateSaveLocation in a host's slurm.conf: its pod's slurm_config in cluster_federation (which replaces
    cluster_slurm_config for that pod), else cluster_slurm_config's, else the model's default."""
    parsed = federation_of(federation)
    pod = parsed.pod_of_groups(group_names) if parsed else None
    if pod is not None and "slurm_config" in pod.overrides:
        slurm_config = pod.overrides["slurm_config"]
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


def cluster_user_views(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> dict[str, dict[str, Any]]:
    """cluster_user_view of every cluster ({"": view} or {pod: view}); a pod's view names its federation."""
    pods = pods_or_raise(spec, groups)
    views = {pod: user_view(cluster) for pod, cluster in pods.items()}
    if "" not in pods:
        for view in views.values():
            view["federation"] = {"name": next(iter(pods.values())).federation, "clusters": list(pods)}
    return views


def cluster_user_view(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """Partitions, GPU types, QOS and per-GPU requests as users see them (user guide, example scripts)."""
    return user_view(cluster_or_raise(spec, groups))


def cluster_node_gpus(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> dict[str, dict[str, Any]]:
    """The GPUs the inventory declares, per GPU host (node type, GRES type, count, devices, Slurm's index order
    of the device files, detection): computed once per play, each host reads its own entry."""
    node_types = [nt for cluster in pods_or_raise(spec, groups).values() for nt in cluster.node_types]
    result: dict[str, dict[str, Any]] = {}
    for node_type in node_types:
        gpu = node_type.gpu
        if gpu is None:
            continue
        entry = {
            "node_type": node_type.name,
            "type": gpu.type,
            "count": gpu.count,
            "devices": list(gpu.devices),
            "index_order": gpu_index_order(node_type),
            "autodetect": gpu.autodetect,
            "nvml_name": gpu.nvml_name or GPU_CATALOGUE.get(gpu.type.lower(), ""),
            "mig": gpu.mig,
        }
        result.update(dict.fromkeys(node_type.hosts, entry))
    return result


def cluster_node_gpu(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]], host: str) -> dict[str, Any]:
    """One host's entry of cluster_node_gpus; empty when it is not a GPU compute node."""
    return cluster_node_gpus(spec, groups).get(host, {})


def cluster_host_job_scripts(
    kinds: Sequence[Mapping[str, Any]], group_names: Sequence[str], sample_dir: str
) -> dict[str, list[Any]]:
    """The script directories and {src, dest} files of one host, from cluster_config's job_scripts."""
    return host_job_scripts(kinds, group_names, sample_dir)


def cluster_errors(
    spec: Mapping[str, Any],
    groups: Mapping[str, Sequence[str]],
    variable_names: Sequence[str] = (),
    sources: Sequence[str] = (),
    booleans: Mapping[str, Any] | None = None,
) -> list[str]:
    """Every validation error of the inventory; empty when it is valid. ``variable_names`` (the names the
    validation host sees, query('ansible.builtin.varnames', '.+')) are checked for project variables no role
    reads (a misspelt cluster_schedulling); ``booleans`` (the values of those a role declares bool) for values
    that are not booleans; ``sources`` (ansible_inventory_sources) for what only the files show
    (YAML's coercions, reversed host ranges, model variables outside group_vars/all). Those come first, alone:
    the model's messages about the values YAML changed would only repeat them."""
    errors = unknown_variables(variable_names) + boolean_errors(booleans or {})
    text = inventory_text_errors(sources, known_variables()[1])
    return errors + text if text else errors + inventory_errors(spec, groups)


def cluster_boolean_names(variable_names: Sequence[str]) -> list[str]:
    """Those of ``variable_names`` that a role declares as bool (their values go to cluster_errors)."""
    return sorted(set(map(str, variable_names)) & boolean_variables())


def hostlist_fold(names: Sequence[str]) -> str:
    """Fold host names into a Slurm hostlist expression."""
    return fold(names)


def hostlist_expand(expression: str) -> list[str]:
    """Expand a Slurm hostlist expression into host names."""
    return expand(expression)


class FilterModule:
    """gpucluster.cluster filters."""

    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "cluster_config": cluster_config,
            "cluster_configs": cluster_configs,
            "cluster_pod": cluster_pod,
            "cluster_pod_hosts": cluster_pod_hosts,
            "cluster_boolean_names": cluster_boolean_names,
            "cluster_pod_leaders": cluster_pod_leaders,
            "cluster_state_save_location": cluster_state_save_location,
            "cluster_user_views": cluster_user_views,
            "cluster_errors": cluster_errors,
            "cluster_host_job_scripts": cluster_host_job_scripts,
            "cluster_node_gpu": cluster_node_gpu,
            "cluster_node_gpus": cluster_node_gpus,
            "cluster_user_view": cluster_user_view,
            "hostlist_fold": hostlist_fold,
            "hostlist_expand": hostlist_expand,
        }
