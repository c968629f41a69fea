"""Gates of a phase upgrade of a live cluster, decided before any host is changed.

Pilot -> production (``production_move``), from what the hosts report: where systemd or Pacemaker runs
slurmctld, each Galera host's state and databases (the galera_node module), and whether the MUNGE key host
holds the key. The move puts the pilot's running slurmctld under Pacemaker and its accounting database at
the bottom of a new Galera cluster; this says which controller and which database host those are, or why the
move cannot start.

Production -> federation (``federation_move``): the running cluster becomes a pod named after its ClusterName
and new pods join it. This says which pods run (and where), which are new, or why the move cannot start.
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


# Federated job ids keep the local id in their low 26 bits (the cluster's id above them).
MAX_FEDERATED_JOB_ID = (1 << 26) - 1


@dataclass(frozen=True)
class RunningCluster:
    """What a controller where slurmctld runs reports (``scontrol show config``), with what the inventory says."""

    host: str
    cluster_name: str
    state_save_location: str
    max_job_id: int
    pacemaker: bool
    inventory_manager: str
    inventory_state_save_location: str


@dataclass(frozen=True)
class FederationMove:
    """``running``: pod -> the controller where its slurmctld runs (the pods that keep running: the cluster that
    becomes a pod, and on a second run every pod); ``new``: the pods deployed by the move."""

    running: Mapping[str, str]
    new: tuple[str, ...]
    errors: tuple[str, ...] = ()


def federation_move(
    *,
    federation: str,
    pods: Mapping[str, Sequence[str]],
    running: Sequence[RunningCluster],
    registered: Sequence[str],
    memberships: Mapping[str, str],
    foreign_state: Mapping[str, str],
) -> FederationMove:
    """pods: pod -> its controllers; running: the controllers where slurmctld runs; registered: the clusters
    slurmdbd knows; memberships: cluster -> its federation in slurmdbd; foreign_state: new pod's controller ->
    the ClusterName its StateSaveLocation already holds (its `clustername` file), where there is one."""
    errors: list[str] = []
    pod_of = {host: pod for pod, hosts in pods.items() for host in hosts}
    live: dict[str, str] = {}
    for report in running:
        pod = pod_of.get(report.host, "")
        errors += _running_errors(report, pod, registered)
        if pod and pod not in live:
            live[pod] = report.host
    if not running:
        errors.append(
            f"slurmctld runs on none of the pods' controllers ({', '.join(pod_of) or 'none'}): upgrade-federation.yml "
            "makes a running cluster the first pod of a federation. Start its slurmctld, or deploy a new federation "
            "with site.yml"
        )
    for cluster, member_of in sorted(memberships.items()):
        if member_of != federation and cluster in pods:
            errors.append(
                f"cluster {cluster} belongs to the federation {member_of} in slurmdbd, and a cluster belongs to one "
                f"federation only: take it out first (sacctmgr modify federation {member_of} set clusters-={cluster}) "
                f"or name the federation {member_of} (cluster_federation.name)"
            )
        elif member_of == federation and cluster not in pods:
            errors.append(
                f"the federation {federation} in slurmdbd also holds the cluster {cluster}, which "
                "cluster_federation.pods does not list: add its pod to the inventory (the run would take it out "
                "of the federation)"
            )
    new = tuple(pod for pod in pods if pod not in live)
    for host, name in sorted(foreign_state.items()):
        pod = pod_of.get(host, "")
        if pod in new and name and name != pod:
            errors.append(
                f"{host}: the StateSaveLocation of the new pod {pod} already holds the state of the cluster {name} "
                "(its clustername file): give the pod a directory of its own "
                f"(cluster_federation.pods.{pod}.slurm_config.StateSaveLocation; never the running pod's)"
            )
    return FederationMove(live, new, tuple(errors))


def _running_errors(report: RunningCluster, pod: str, registered: Sequence[str]) -> list[str]:
    host, name = report.host, report.cluster_name
    if not pod:
        return [f"{host} runs slurmctld but is a controller of no pod: put it in its pod's group"]
    errors = []
    if name != pod:
        errors.append(
            f"{host} runs the cluster '{name}' (its ClusterName), which the inventory makes the pod '{pod}': name "
            f"the pod after the cluster (cluster_federation.pods.{name}; its `group:` names the hosts' inventory "
            "group). slurmctld refuses a StateSaveLocation written under another ClusterName, and the accounting "
            f"records are kept under {name}"
        )
    if registered and name not in registered:
        errors.append(
            f"{host} runs the cluster '{name}', which the slurmdbd of the inventory does not know: its jobs are "
            "recorded in another accounting database. Move its accounting first (one slurmdbd serves a federation)"
        )
    manager = "pacemaker" if report.pacemaker else "systemd"
    if report.inventory_manager != manager:
        errors.append(
            f"{host}: {manager} runs slurmctld of the cluster '{name}', the inventory says slurm_ctld_manager: "
            f"{report.inventory_manager}; the pod keeps its controllers as they run (upgrade-production.yml puts a "
            "cluster under Pacemaker)"
        )
    if report.state_save_location != report.inventory_state_save_location:
        errors.append(
            f"{host}: slurmctld of the cluster '{name}' keeps its state in {report.state_save_location}, the "
            f"inventory gives its pod {report.inventory_state_save_location}: set "
            f"cluster_federation.pods.{pod}.slurm_config.StateSaveLocation (or cluster_slurm_config's) to "
            f"{report.state_save_location}; the state does not move"
        )
    if report.max_job_id > MAX_FEDERATED_JOB_ID:
        errors.append(
            f"{host}: the cluster '{name}' has MaxJobId={report.max_job_id}; a federated job id keeps the local id "
            f"in 26 bits: set MaxJobId to {MAX_FEDERATED_JOB_ID} or less (slurm_config) before it joins"
        )
    return errors
