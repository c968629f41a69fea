"""Everything the config templates lay out, computed once from the model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .cluster_types import Cluster, InventoryError
from .model import build_cluster, build_pods
from .slurmconf import (
    gres_lines,
    health_check_config,
    job_container_lines,
    job_script_files,
    job_submit_config,
    mail_config,
    rest_api_config,
    slurm_conf_sections,
)
from .topology import topology_conf, topology_yaml
from .values import unsafe_lines

TOPOLOGY_FILES = ("topology.conf", "topology.yaml")
# Files a setting of the model may drop: one left over would be read again (a stale topology.conf is overridden by
# topology.yaml from 25.05; a stale job_container.conf is only read with the plugin, but is removed all the same).
OPTIONAL_FILES = (*TOPOLOGY_FILES, "job_container.conf")


def cluster_config(cluster: Cluster) -> dict[str, Any]:
    """The data behind slurm.conf, gres.conf and topology.conf/topology.yaml."""
    gres: list[str] = []
    for node_type in cluster.node_types:
        gres += gres_lines(node_type, cluster.release.folds_suffixed_names)
    uses_yaml = cluster.release.topology_yaml
    topology_conf_lines = [] if uses_yaml else topology_conf(cluster)
    topology_yaml_data = topology_yaml(cluster) if uses_yaml else []
    sections = dict(slurm_conf_sections(cluster))
    job_container = job_container_lines(cluster)
    unsafe = unsafe_lines("slurm.conf", (line for lines in sections.values() for line in lines))
    unsafe += unsafe_lines("gres.conf", gres) + unsafe_lines("topology.conf", topology_conf_lines)
    unsafe += unsafe_lines("job_container.conf", job_container)
    if unsafe:
        raise InventoryError(unsafe)
    files = ["slurm.conf", "gres.conf"]
    files += ["topology.conf"] if topology_conf_lines else []
    files += ["topology.yaml"] if topology_yaml_data else []
    files += ["job_container.conf"] if job_container else []
    return {
        "name": cluster.name,
        "federation": cluster.federation,
        "release": str(cluster.release),
        "slurm_conf": sections,
        "gres_conf": gres,
        "topology_conf": topology_conf_lines,
        "topology_yaml": topology_yaml_data,
        "job_scripts": job_script_files(cluster),
        "pam_adopt": cluster.pam_adopt,
        # the user-dirs prolog's directories (one per line in its configuration) and their root-owned parents
        "job_user_dirs": user_dirs_config(cluster),
        "job_submit": job_submit_config(cluster),
        "health_check": health_check_config(cluster),
        "mail": mail_config(cluster),
        "rest_api": rest_api_config(cluster),
        # The files this release reads, and the topology file it must not find (topology.yaml wins over
        # topology.conf from 25.05, so a stale one would override the new one).
        "files": files,
        "job_container_conf": job_container,
        "stale_files": [name for name in OPTIONAL_FILES if name not in files],
        "summary": {
            "nodes": len(cluster.compute),
            "gpus": sum(len(nt.hosts) * nt.gpu.count for nt in cluster.gpu_node_types if nt.gpu),
            "node_types": len(cluster.node_types),
            "partitions": len(cluster.partitions),
            "switches": len(cluster.fabric.switches),
            "blocks": len(cluster.fabric.blocks),
        },
    }


# What the user-dirs prolog reads: its list of directories, one pattern a line ({user}, {uid}: the job's user).
USER_DIRS_LIST = "/etc/gpucluster/user-dirs"
# The boot entries that make the prolog's parent directories again after a reboot (/run is a tmpfs).
USER_DIRS_TMPFILES = "/etc/tmpfiles.d/gpucluster-user-dirs.conf"


def user_dirs_config(cluster: Cluster) -> dict[str, Any]:
    """The user-dirs prolog's directories (one pattern a line in its list) and their parents - root's own, 0711, made
    now and at every boot - with the directories and files a compute node gets for it (the files action's entries)."""
    parents, patterns = user_dir_parents(cluster), list(cluster.job_scripts.user_dirs)
    tmpfiles = [f"d {parent} 0711 root root -" for parent in parents]
    header = "# Managed by gpucluster (Ansible): parents of the directories the user-dirs prolog makes"
    return {
        "patterns": patterns,
        "directories": [{"path": parent, "mode": "0711"} for parent in parents]
        + [{"path": USER_DIRS_LIST.rsplit("/", 1)[0], "mode": "0755"}],
        "files": [
            {"dest": USER_DIRS_TMPFILES, "content": "\n".join([header, *tmpfiles]) + "\n", "mode": "0644"},
            {"dest": USER_DIRS_LIST, "content": "".join(f"{line}\n" for line in patterns), "mode": "0644"},
        ],
        "stale": [USER_DIRS_LIST, USER_DIRS_TMPFILES],
    }


def user_dir_parents(cluster: Cluster) -> list[str]:
    """The parents of the user-dirs prolog's directories: root's own, mode 0711 (made by the cluster role)."""
    return sorted({pattern.rsplit("/", 1)[0] for pattern in cluster.job_scripts.user_dirs})


def config_from_inventory(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """Validate and render in one step; raises InventoryError listing every problem."""
    return cluster_config(build_cluster(spec, groups))


def inventory_errors(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> list[str]:
    """Every validation error of an inventory, every pod and the rules across pods (empty when valid)."""
    try:
        build_pods(spec, groups)
    except InventoryError as exc:
        return exc.errors
    return []
