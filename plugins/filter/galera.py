"""Filters over the galera_node module's reports: the bring-up plan and the slurmdbd preflight."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.galera import (
    GIB,
    MIB,
    NodeReport,
    PreflightLimits,
    plan,
    preflight_errors,
    rename_errors,
    rolling_restarts,
    settings_errors,
    tls_change,
)


def galera_plan(
    results: Mapping[str, Mapping[str, Any]], order: Sequence[str], bootstrap_from: str = ""
) -> dict[str, Any]:
    """host -> galera_node result (the hosts that reported), the galera group in inventory order, the operator's
    choice of bootstrap node (galera_bootstrap_from) -> {stop, bootstrap, join, new_cluster, errors}."""
    chosen = plan(
        {host: NodeReport.from_result(result) for host, result in results.items()},
        list(order),
        str(bootstrap_from or ""),
    )
    return {
        "stop": list(chosen.stop),
        "bootstrap": chosen.bootstrap,
        "join": list(chosen.join),
        "new_cluster": chosen.new_cluster,
        "errors": list(chosen.errors),
    }


def galera_preflight_errors(variables: Mapping[str, Mapping[str, str]], limits: Mapping[str, Any]) -> list[str]:
    """host -> server variables and status, limits {min_buffer_pool_mb, min_lock_wait_timeout,
    min_max_allowed_packet_mb, min_ws_size_gb} -> what stops slurmdbd from running on this Galera."""
    return preflight_errors(
        variables,
        PreflightLimits(
            min_buffer_pool=int(limits.get("min_buffer_pool_mb", 4096)) * MIB,
            min_lock_wait_timeout=int(limits.get("min_lock_wait_timeout", 900)),
            min_max_allowed_packet=int(limits.get("min_max_allowed_packet_mb", 16)) * MIB,
            min_ws_size=int(limits.get("min_ws_size_gb", 1)) * GIB,
        ),
    )


def galera_errors(groups: Mapping[str, Sequence[str]], settings: Mapping[str, Any]) -> list[str]:
    """What is wrong with the Galera group, its dbd hosts and settings (galera role's validate)."""
    return settings_errors(list(groups.get("galera") or []), list(groups.get("dbd") or []), settings)


def galera_rename_errors(results: Sequence[Mapping[str, Any]], name: Any) -> list[str]:
    """The results of the galera_node module read on each node (item: the node; unreachable and stopped nodes and
    standalone servers have no name to keep), the inventory's galera_cluster_name -> the refusal, if the running
    nodes' wsrep_cluster_name differs."""
    running = {
        str(result.get("item")): str((result.get("variables") or {}).get("wsrep_cluster_name") or "")
        for result in results
        if not result.get("unreachable") and result.get("active") and result.get("wsrep_on")
    }
    return rename_errors(running, str(name))


def galera_rolling_restart(changed: Mapping[str, Any], active: Mapping[str, Any]) -> list[str]:
    """host -> whether its settings changed, host -> whether its MariaDB runs -> the nodes to restart one at a
    time."""
    return rolling_restarts(changed, active)


def galera_tls_plan(running: Mapping[str, Any], wanted: Any) -> dict[str, list[str]]:
    """host -> whether the node runs Galera over TLS (galera_node's replication_tls; None when it does not run as
    a Galera node), galera_tls -> {moving: the nodes running without TLS that a move to it passes with
    socket.dynamic on, errors: the refusal of a move back from TLS on a running cluster}."""
    moving, errors = tls_change(running, bool(wanted))
    return {"moving": moving, "errors": errors}


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "galera_plan": galera_plan,
            "galera_preflight_errors": galera_preflight_errors,
            "galera_errors": galera_errors,
            "galera_rename_errors": galera_rename_errors,
            "galera_rolling_restart": galera_rolling_restart,
            "galera_tls_plan": galera_tls_plan,
        }
