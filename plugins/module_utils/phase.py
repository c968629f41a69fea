"""Gates of a phase upgrade of a live cluster (pilot -> production), decided before any host is changed.

From what the hosts report: where systemd or Pacemaker runs slurmctld, each Galera host's state and
databases (the galera_node module), and whether the MUNGE key host holds the key. The move puts the pilot's
running slurmctld under Pacemaker and its accounting database at the bottom of a new Galera cluster; this
says which controller and which database host those are, or why the move cannot start.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .galera import NodeReport


@dataclass(frozen=True)
class ProductionMove:
    """``controller``: the pilot's slurmctld that Pacemaker takes over (None when Pacemaker already runs it);
    ``database_host``: the standalone server whose database becomes the Galera cluster's (None when Galera
    already runs)."""

    controller: str | None
    database_host: str | None
    errors: tuple[str, ...] = ()


def production_move(
    *,
    controllers: Sequence[str],
    systemd_active: Mapping[str, bool],
    pacemaker_running: bool,
    galera: Mapping[str, NodeReport],
    dbd: Sequence[str],
    database: str,
    munge_key_present: bool,
    munge_key_host: str,
) -> ProductionMove:
    errors: list[str] = []
    controller = None
    if not pacemaker_running:
        live = [host for host in controllers if systemd_active.get(host)]
        if not live:
            errors.append(
                f"slurmctld runs on none of {', '.join(controllers)}, neither under systemd nor Pacemaker: "
                "upgrade-production.yml moves a running pilot. Start the pilot's slurmctld, or build a new "
                "production cluster with site.yml"
            )
        elif len(live) > 1:
            errors.append(
                f"systemd runs slurmctld on {' and '.join(live)}: a pilot has one controller. Stop the one that "
                "is not the pilot's (its state is not the cluster's)"
            )
        else:
            controller = live[0]
    database_host = None
    if not any(report.active and report.wsrep_on for report in galera.values()):
        holders = [host for host, report in galera.items() if database in report.databases]
        primary = dbd[0] if dbd else ""
        if not holders:
            errors.append(
                f"no host of the galera group ({', '.join(galera)}) holds the accounting database {database}: "
                f"the pilot's database host must be one of them, first in the dbd group (slurmdbd's primary "
                "stays beside its database)"
            )
        elif len(holders) > 1:
            errors.append(
                f"{' and '.join(holders)} each hold {database}: keep the pilot's copy on one host only (the "
                "others would be replaced by state transfers)"
            )
        elif holders[0] != primary:
            errors.append(
                f"{holders[0]} holds {database} but {primary or 'no host'} is the first of the dbd group: put "
                f"{holders[0]} first there (slurmdbd's primary stays beside its database)"
            )
        elif not galera[holders[0]].active:
            errors.append(
                f"MariaDB is stopped on {holders[0]}: start it; the move dumps {database} before it changes anything"
            )
        else:
            database_host = holders[0]
    if not munge_key_present:
        errors.append(
            f"munge_key_host {munge_key_host} holds no /etc/munge/munge.key: it must be a host of the pilot "
            "(the key is copied from it to the new hosts; a new key would lock out every running daemon)"
        )
    return ProductionMove(controller, database_host, tuple(errors))
