"""Filter over the phase upgrade's probes: which controller and database move, or why the move cannot start."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.galera import NodeReport
from ansible_collections.gpucluster.cluster.plugins.module_utils.phase import production_move


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


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {"phase_production_move": phase_production_move}
