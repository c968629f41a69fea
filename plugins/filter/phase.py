"""Filters over the phase upgrades' probes: what moves, or why the move cannot start."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.federation import read_federation
from ansible_collections.gpucluster.cluster.plugins.module_utils.galera import NodeReport
from ansible_collections.gpucluster.cluster.plugins.module_utils.live_state import (
    config_value,
    held_cluster_name,
    slurped_cluster_name,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.phase import (
    RunningCluster,
    federation_move,
    production_move,
)


def phase_production_move(probes: Mapping[str, Any]) -> dict[str, Any]:
    """probes: controllers, systemd (host -> `systemctl is-active slurmctld` output), pacemaker (host ->
    `crm_resource --locate` output), galera (host -> galera_node result), dbd, database, munge_key_host,
    munge_key (bool) -> {controller, database_host, errors}."""
    pacemaker = probes.get("pacemaker") or {}
    move = production_move(
        controllers=list(probes["controllers"]),
        systemd_active={host: str(out).strip() == "active" for host, out in (probes.get("systemd") or {}).items()},
        pacemaker_running=any("is running on" in str(out) for out in pacemaker.values()),
        galera={host: NodeReport.from_result(result) for host, result in (probes.get("galera") or {}).items()},
        dbd=list(probes.get("dbd") or []),
        database=str(probes.get("database") or "slurm_acct_db"),
        munge_key_present=bool(probes.get("munge_key")),
        munge_key_host=str(probes.get("munge_key_host") or ""),
    )
    return {"controller": move.controller, "database_host": move.database_host, "errors": list(move.errors)}


def _running_cluster(host: str, probes: Mapping[str, Any]) -> RunningCluster:
    """What a controller where slurmctld runs reported, with what the inventory says of it."""
    config = str((probes.get("configs") or {}).get(host) or "")
    return RunningCluster(
        host=host,
        cluster_name=config_value(config, "ClusterName"),
        state_save_location=config_value(config, "StateSaveLocation"),
        max_job_id=int(config_value(config, "MaxJobId") or 0),
        pacemaker="is running on" in str((probes.get("pacemaker") or {}).get(host) or ""),
        inventory_manager=str((probes.get("managers") or {}).get(host) or "systemd"),
        inventory_state_save_location=str((probes.get("state_save") or {}).get(host) or ""),
    )


def _clusternames(probes: Mapping[str, Any]) -> dict[str, str]:
    """controller -> the ClusterName its StateSaveLocation's clustername file holds ("" without one)."""
    names = {str(host): held_cluster_name(str(name or "")) for host, name in (probes.get("clustername") or {}).items()}
    for host, content in (probes.get("clustername_b64") or {}).items():
        names[str(host)] = slurped_cluster_name(str(content or ""))
    return names


def phase_live_controllers(systemd: Mapping[str, Any]) -> list[str]:
    """The controllers (controller -> `systemctl is-active slurmctld` output) where slurmctld runs, in order."""
    return [str(host) for host, state in systemd.items() if str(state or "").strip() == "active"]


def phase_federation_summary(move: Mapping[str, Any]) -> str:
    """What the federation preflight found (phase_federation_move's result), in one line."""
    running = ", ".join(f"{pod} (slurmctld on {host})" for pod, host in (move.get("running") or {}).items())
    new = list(move.get("new") or [])
    return f"running: {running}; " + (f"new: {', '.join(new)}" if new else "every pod runs: converge and gate only")


def phase_job_counts(results: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """The looped `SELECT COUNT(*) AS n` (mysql_query, item: the pod) -> pod -> its job records."""
    counts = {}
    for result in results:
        rows = (result.get("query_result") or [[]])[0]
        counts[str(result.get("item"))] = int(rows[0]["n"]) if rows else 0
    return counts


def phase_federation_move(probes: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """probes: federation (cluster_federation), cluster_name (its default name), systemd (controller ->
    `systemctl is-active slurmctld`), pacemaker (controller -> `crm_resource --locate`), configs (controller
    where slurmctld runs -> `scontrol show config`), managers (controller -> slurm_ctld_manager), state_save
    (controller -> its StateSaveLocation in the inventory), clusters (`sacctmgr show cluster` names),
    federations (`Federation|Cluster` lines of `sacctmgr show federation`), clustername (controller -> its
    StateSaveLocation's clustername file, where one exists; or clustername_b64, the same as slurp reads it, base64)
    -> {running: {pod: controller}, new: [pods], state_save:
    {running controller: its StateSaveLocation}, errors}."""
    federation, _ = read_federation({"federation": probes.get("federation") or {}, "name": probes.get("cluster_name")})
    if federation is None:
        return {
            "running": {},
            "new": [],
            "errors": ["cluster_federation is empty: the inventory describes no federation"],
        }
    controllers = set(groups.get("controllers", ()))
    pods = {pod.name: [host for host in groups.get(pod.group, ()) if host in controllers] for pod in federation.pods}
    running = [
        _running_cluster(host, probes)
        for host, state in sorted((probes.get("systemd") or {}).items())
        if str(state).strip() == "active"
    ]
    memberships = {}
    for line in probes.get("federations") or []:
        name, _, cluster = str(line).strip().rstrip("|").partition("|")
        if name and cluster:
            memberships[cluster] = name
    move = federation_move(
        federation=federation.name,
        pods=pods,
        running=running,
        registered=[str(name).strip() for name in probes.get("clusters") or [] if str(name).strip()],
        memberships=memberships,
        foreign_state=_clusternames(probes),
    )
    state_save = {report.host: report.state_save_location for report in running if report.host in move.running.values()}
    return {"running": dict(move.running), "new": list(move.new), "state_save": state_save, "errors": list(move.errors)}


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "phase_production_move": phase_production_move,
            "phase_federation_move": phase_federation_move,
            "phase_live_controllers": phase_live_controllers,
            "phase_federation_summary": phase_federation_summary,
            "phase_job_counts": phase_job_counts,
        }
