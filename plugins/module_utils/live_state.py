"""What a running cluster's controllers hold that the inventory must agree with, read before any host changes.

slurmctld writes its ClusterName into StateSaveLocation (the ``clustername`` file: ``name`` up to 23.02,
``name|cluster id`` since) and stops at its next start on state of another name ("fatal: CLUSTER NAME MISMATCH",
checked on 22.05, 24.11 and 26.05): a changed ``cluster_name`` (a pod's name in a federation) would take the
controller down at the deploy's restart, with every queued job in the state it refuses to read.

A StateSaveLocation moved in the inventory while slurmctld runs from the old one is the other way to lose the jobs:
restarted on a directory without its state, slurmctld starts empty ("Could not open job state file ... Jobs may be
lost"), every queued and running job gone from it.

Nodes a run's slurm.conf leaves out while jobs run on them (hosts deleted from the inventory, or from their node type's
group, instead of taken out with remove-node.yml): slurmctld restarted or reconfigured without them ends those jobs.
"""

from __future__ import annotations

import base64
import binascii
import posixpath
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .hostlist import HostlistError, expand, fold
from .releases import Release


def held_cluster_name(text: str) -> str:
    """The ClusterName a ``clustername`` file holds ("" for none): its text before the cluster id."""
    return text.split("|", 1)[0].strip()


def slurped_text(content: str) -> str:
    """The text of a file as ansible.builtin.slurp reads it (base64; "" for none or for content that is not base64)."""
    try:
        return base64.b64decode(content).decode(errors="replace") if content else ""
    except binascii.Error:
        return ""


def slurp_result_text(result: object) -> str:
    """The text of the file a registered ansible.builtin.slurp result holds ("" for none: no file, a failed read)."""
    return slurped_text(str(result.get("content") or "") if isinstance(result, Mapping) else "")


def command_stdout(result: object) -> str:
    """What a registered command printed, where it ran and succeeded ("" where it failed, was skipped, or no daemon
    answered it)."""
    answered = isinstance(result, Mapping) and result.get("rc") == 0
    return str(result.get("stdout") or "") if answered and isinstance(result, Mapping) else ""


def slurped_cluster_name(content: str) -> str:
    """The ClusterName of a ``clustername`` file as ansible.builtin.slurp reads it ("" for none)."""
    return held_cluster_name(slurped_text(content))


def state_cluster_error(
    host: str, state_save_location: str, held: str, cluster: str, pod: str = "", *, pods: Iterable[str] = ()
) -> str:
    """The refusal of a run whose ClusterName for ``host`` (``pod`` in a federation, else ``cluster``) is not the
    one its StateSaveLocation holds (``held``, "" where there is no state yet); "" when they agree. ``pods``: the
    federation's pods - where the state is another pod's, the pods share one state directory (not a rename)."""
    expected = pod or cluster
    if not held or held.lower() == expected.lower():  # slurmctld writes the name in lower case
        return ""
    if pod and held.lower() in {str(name).lower() for name in pods}:
        return (
            f"{host}: StateSaveLocation {state_save_location} holds the state of pod '{held}' of the federation, not "
            f"of its own pod '{pod}': the two pods' controllers share one state directory, where one slurmctld "
            "stops on the other's state (CLUSTER NAME MISMATCH) or writes over it. Give each pod a directory of its "
            f"own (cluster_federation.pods.{pod}.slurm_config.StateSaveLocation, or a share of its own mounted "
            f"there) and leave pod '{held}''s state where it is"
        )
    setting = (
        f"its pod is '{pod}' in cluster_federation.pods (a pod's name is its ClusterName)"
        if pod
        else f"cluster_name is '{cluster}'"
    )
    return (
        f"{host}: StateSaveLocation {state_save_location} holds the state of the running cluster '{held}', but "
        f"{setting}: slurmctld refuses to start on another cluster's state (CLUSTER NAME MISMATCH), so this run's "
        f"restart would stop the controller with every queued job. Keep the name '{held}'; a rename is a migration "
        "(drain the cluster, a new StateSaveLocation; its accounting records stay under the old name)"
    )


def config_value(config: str, key: str) -> str:
    """A value of `scontrol show config` output ("Key = value"); "" where the key is not there."""
    match = re.search(rf"(?m)^{key}\s*=\s*(.*?)\s*$", config)
    return match.group(1) if match else ""


def state_move_error(host: str, running_config: str, state_save_location: str, imported_from: str = "") -> str:
    """The refusal of a run that gives slurmctld another StateSaveLocation than the one it runs with
    (``running_config``: `scontrol show config` on the controller, "" where no slurmctld answered); "" when they
    agree, when none runs, or when the run itself moves the state from there (``imported_from``: a phase upgrade's
    pacemaker_state_import_from)."""
    running = config_value(running_config, "StateSaveLocation")
    if not running or not state_save_location:
        return ""
    kept = {posixpath.normpath(path) for path in (state_save_location, imported_from) if path}
    if posixpath.normpath(running) in kept:
        return ""
    cluster = config_value(running_config, "ClusterName")
    return (
        f"{host}: slurmctld of the cluster '{cluster}' runs with its state in {running}, but the inventory gives it "
        f"StateSaveLocation {state_save_location} (cluster_slurm_config, or the pod's slurm_config): restarted there, "
        "slurmctld would start without its state, every queued and running job gone from it. Move the state first - "
        f"stop slurmctld, copy {running} to {state_save_location} (cp -a, as its owner), then run again - or keep "
        f"StateSaveLocation: {running}"
    )


def config_nodes(lines: Iterable[str]) -> set[str]:
    """The node names of slurm.conf's NodeName lines (NodeName=DEFAULT is none)."""
    names: set[str] = set()
    for line in lines:
        value = line.split(None, 1)[0].removeprefix("NodeName=") if line.startswith("NodeName=") else ""
        if value and value.upper() != "DEFAULT":
            names.update(expand(value))
    return names


def vanishing_jobs_error(host: str, job_nodes: str, node_lines: Iterable[str], removed: Iterable[str] = ()) -> str:
    """The refusal of a run whose slurm.conf (``node_lines``) leaves out nodes where jobs run (``job_nodes``: squeue's
    node list of each running, suspended or completing job, one per line); "" when every such node stays, or is one
    the run itself takes out (``removed``: remove-node.yml's cluster_removed_nodes, drained before they go)."""
    busy: set[str] = set()
    for line in job_nodes.splitlines():
        try:
            busy.update(expand(line.strip()) if line.strip() else [])
        except HostlistError:
            continue
    gone = busy - config_nodes(node_lines) - set(removed)
    if not gone:
        return ""
    nodes = fold(sorted(gone))
    return (
        f"{host}: jobs run on {nodes}, which this run's slurm.conf leaves out (hosts taken out of the inventory or of "
        "their node type's group): slurmctld restarted without them ends those jobs. Take nodes out with "
        f"playbooks/remove-node.yml -e cluster_removed_nodes={nodes} (it drains them and waits for their jobs), or "
        "put the hosts back"
    )


def config_partitions(lines: Iterable[str]) -> set[str]:
    """The partition names of slurm.conf's PartitionName lines (PartitionName=DEFAULT is none)."""
    names = set()
    for line in lines:
        value = line.split(None, 1)[0].removeprefix("PartitionName=") if line.startswith("PartitionName=") else ""
        if value and value.upper() != "DEFAULT":
            names.add(value)
    return names


def vanishing_partitions_error(host: str, job_partitions: str, partition_lines: Iterable[str], release: Release) -> str:
    """The refusal of a run whose slurm.conf (``partition_lines``) leaves out a partition that holds jobs
    (``job_partitions``: squeue's `%i|%T|%P` of every job not yet finished, one per line): slurmctld restarted or
    reconfigured without it ends every job naming it, running and pending ("Invalid partition (old) for JobId=2", then
    NODE_FAIL), before ``release`` 26.05 those that name another partition too (the real slurmctld of 22.05, 24.11 and
    26.05: tests/integration/test_cluster_name_state.py)."""
    kept = config_partitions(partition_lines)
    held: dict[str, list[tuple[str, str]]] = {}
    for line in job_partitions.splitlines():
        job, _, rest = line.strip().partition("|")
        state, _, listed = rest.partition("|")
        partitions = {partition.strip() for partition in listed.split(",") if partition.strip()}
        if not job or partitions <= kept or (release.has("keeps_jobs_of_other_partitions") and partitions & kept):
            continue
        for partition in sorted(partitions - kept):
            held.setdefault(partition, []).append((job, state.lower()))
    if not held:
        return ""
    described = "; ".join(
        f"{partition}: {len(jobs)} job(s) ({', '.join(sorted({state for _, state in jobs}))}; "
        f"{','.join(job for job, _ in jobs[:10])}{' ...' if len(jobs) > 10 else ''})"
        for partition, jobs in sorted(held.items())
    )
    return (
        f"{host}: this run's slurm.conf leaves out partitions that hold jobs - {described}. slurmctld restarted or "
        "reconfigured without a partition ends its jobs, pending ones included (NODE_FAIL). Keep the "
        "partition in cluster_partitions with state: DRAIN until its jobs are done (no new job starts there), move or "
        "cancel its pending jobs (scontrol update jobid=<id> partition=<another>), then take it out"
    )


def storage_loc(conf: str) -> str:
    """The database a slurmdbd.conf names (its StorageLoc; slurmdbd's default, slurm_acct_db, where none is set); ""
    for no file."""
    return _conf_keys(conf).get("storageloc", "slurm_acct_db") if conf.strip() else ""


# A retention of slurmdbd.conf in hours (N alone is months; a month taken as 730 hours): Purge*After values.
_RETENTION = re.compile(r"^(\d+)\s*(hours?|days?|months?)?$", re.IGNORECASE)
_HOURS = {"hour": 1, "day": 24, "month": 730}
# The Archive key that writes a Purge key's records to files before they are purged (slurmdbd.conf).
ARCHIVES = {
    "purgeeventafter": "ArchiveEvents",
    "purgejobafter": "ArchiveJobs",
    "purgeresvafter": "ArchiveResvs",
    "purgestepafter": "ArchiveSteps",
    "purgesuspendafter": "ArchiveSuspend",
    "purgetxnafter": "ArchiveTXN",
    "purgeusageafter": "ArchiveUsage",
}


def retention_hours(value: object) -> int | None:
    """A Purge*After value in hours; None where it is unset or not one (slurmdbd keeps those records for ever)."""
    found = _RETENTION.match(str(value or "").strip())
    if not found:
        return None
    unit = (found.group(2) or "month").lower().rstrip("s")
    return int(found.group(1)) * _HOURS[unit]


def _conf_keys(conf: str) -> dict[str, str]:
    """slurmdbd.conf's keys with a value, as slurmdbd reads them: in any case (lower-cased here), comments after #;
    the last line of a key counts."""
    keys: dict[str, str] = {}
    for line in conf.splitlines():
        key, _, value = line.split("#", 1)[0].partition("=")
        if key.strip() and value.strip():
            keys[key.strip().lower()] = value.strip()
    return keys


def purge_loss_error(host: str, conf: str, wanted: Mapping[str, object], database: str, confirm: str) -> str:
    """The refusal of a run that would have the running slurmdbd delete records it keeps now: a Purge*After of
    accounting_purge (``wanted``) set where slurmdbd.conf (``conf``: its Purge and Archive lines, "" where there is
    none yet) has none, or shorter than there, without the Archive* key that writes the records to files first
    (ArchiveJobs for PurgeJobAfter...). slurmdbd deletes them at its next purge - within the hour, day or month of the
    unit - and no dump brings back fair-share usage without the records since. "" where nothing is purged sooner,
    the records are archived, there is no slurmdbd.conf yet (nothing kept), or ``confirm`` names ``database``."""
    if not conf.strip() or confirmed(confirm, database):
        return ""
    running = _conf_keys(conf)
    settings = {str(key).lower(): value for key, value in wanted.items()}
    sooner = []
    for key, value in sorted(wanted.items()):
        name = str(key)
        new = retention_hours(value)
        if not name.lower().startswith("purge") or new is None:
            continue
        old = retention_hours(running.get(name.lower()))
        archive = ARCHIVES.get(name.lower(), "")
        archived = str(settings.get(archive.lower(), "")).strip().lower() in ("yes", "true", "1", "up")
        if (old is None or new < old) and not archived:
            sooner.append(
                f"{name} {running.get(name.lower()) or 'unset (kept for ever)'} -> {value} ({archive} not set)"
            )
    if not sooner:
        return ""
    return (
        f"{host}: accounting_purge would have the running slurmdbd delete records it keeps now - {'; '.join(sooner)}. "
        "slurmdbd deletes the records older than that at its next purge, without writing them to files first, and "
        "they cannot be brought back (a dump restored is purged again). Set the Archive key beside each (e.g. "
        f"ArchiveJobs: 'yes', with ArchiveDir) to keep them in files, or, to delete them, confirm with "
        f"accounting_purge_confirm={database}. Nothing was changed"
    )


def database_move_error(host: str, conf: str, wanted: str, tables: dict[str, int] | None) -> str:
    """The refusal of a run that would point slurmdbd at another database than the one it writes to (``conf``: the
    host's slurmdbd.conf, "" where there is none yet; ``wanted``: accounting_db_name; ``tables``: how many tables each
    of the two databases holds, None where MariaDB could not be asked). slurmdbd restarted on an empty database makes
    a new one: every job record, association and fair-share usage of the old one out of its view (not lost, but no
    longer backed up: the scheduled dumps follow the new name). "" when the names agree, when there is no slurmdbd.conf
    yet, when the old database holds nothing, and when the new one holds tables already (moved by the admin)."""
    running = storage_loc(conf)
    if not running or running == wanted:
        return ""
    counts = tables or {}
    if tables is not None and (not counts.get(running) or counts.get(wanted)):
        return ""
    held = (
        f"holds {counts[running]} tables"
        if tables is not None
        else "could not be counted (MariaDB did not answer on its socket)"
    )
    return (
        f"{host}: slurmdbd writes the cluster's accounting to the database '{running}' (StorageLoc of "
        f"/etc/slurm/slurmdbd.conf), which {held}, but accounting_db_name is '{wanted}', "
        f"{'which holds no table' if tables is not None else 'not checked either'}: restarted on it, slurmdbd would "
        "start an empty accounting database - every job record, association and fair-share usage out of its view, "
        f"and the scheduled dumps would follow the new name. Keep accounting_db_name: {running}, or move the database "
        f"first (stop slurmdbd, dump '{running}' and load the dump into '{wanted}'), then run again"
    )


def stateless_controllers(state_files: Mapping[str, object]) -> set[str]:
    """The controllers that hold no jobs' state where no slurmctld answered (``state_files``: controller -> the stat
    of StateSaveLocation/job_state, or anything else where it was not asked - slurmctld answered, so it holds its
    state)."""
    return {
        host
        for host, stat in state_files.items()
        if isinstance(stat, Mapping) and "exists" in stat and not stat.get("exists")
    }


def confirmed(confirm: str, cluster: str) -> bool:
    """Whether a confirmation (names typed again, comma- or space-separated: several pods at once) names ``cluster``."""
    return cluster in confirm.replace(",", " ").split()


STEP = re.compile(r"\[(\d+)(?:_\d+)?\.")


def orphan_jobs_error(steps: Mapping[str, str], cluster: str, confirm: str, unreached: Iterable[str] = ()) -> str:
    """The refusal of a run that would start slurmctld without its jobs' state (a re-installed controller, a state
    directory lost or not mounted) while nodes run jobs (``steps``: node -> `pgrep -a -x slurmstepd`, whose lines
    name each step, "123 slurmstepd: [45.batch]"): slurmctld started on an empty StateSaveLocation takes the jobs the
    nodes report as orphans and ends them ("Orphan StepId=45.batch reported on node"; the real slurmctld of 24.11 in
    the pilot lab), and gives job ids from 1 again. ``unreached``: nodes that could not be asked - one
    that runs jobs would lose them too. "" where no node runs a step and every node answered, or ``confirm`` names
    ``cluster``."""
    jobs = {node: sorted({match for match in STEP.findall(text)}, key=int) for node, text in steps.items()}
    running = {node: ids for node, ids in sorted(jobs.items()) if ids}
    silent = sorted(set(unreached))
    if not (running or silent) or confirmed(confirm, cluster):
        return ""
    found = []
    if running:
        named = "; ".join(f"{node}: job(s) {', '.join(ids[:5])}" for node, ids in list(running.items())[:5])
        more = f" and {len(running) - 5} more node(s)" if len(running) > 5 else ""
        found.append(f"its nodes run jobs - {named}{more}")
    if silent:
        found.append(
            f"the nodes {fold(silent)} could not be asked (unreachable, or the command failed there: a node that is "
            "down runs nothing, one that runs jobs and cannot be asked would lose them)"
        )
    return (
        f"no controller of {cluster} holds its jobs' state (StateSaveLocation has no job_state and no slurmctld "
        f"answers), while {', and '.join(found)}. slurmctld started without that state ends their jobs as "
        "orphans and numbers new jobs from 1 again. Put the state back first: playbooks/restore.yml -e "
        "restore=controller-state (the newest archive of slurm_state_backup), or mount the shared StateSaveLocation; "
        f"to start {cluster} without those jobs, set slurm_state_empty_confirm={cluster}. Nothing was changed"
    )


def unasked_nodes_error(nodes: Iterable[str], limited: Iterable[str] | None, cluster: str, confirm: str) -> str:
    """The refusal of a run limited with --limit (``limited``: the hosts the limit holds; None without one) that would
    start slurmctld without its jobs' state while the nodes to ask for running jobs (``nodes``: slurm_stateless_nodes)
    are outside the limit, where no play can ask them - a re-installed controller deployed alone is the usual case.
    "" where every such node is in the limit (the node check asks it), or ``confirm`` names ``cluster``."""
    outside = sorted(set(nodes) - set(limited)) if limited is not None else []
    if not outside or confirmed(confirm, cluster):
        return ""
    return (
        f"no controller of {cluster} holds its jobs' state (StateSaveLocation has no job_state and no slurmctld "
        f"answers), and this run's --limit leaves out the nodes that could be running its jobs ({fold(outside)}), so "
        "they cannot be asked: slurmctld started without that state would end their running jobs as orphans and number "
        "new jobs from 1 again. Put the state back first (playbooks/restore.yml -e restore=controller-state, or mount "
        "the shared StateSaveLocation), or put those nodes in the limit (--limit <controller>,compute) so that they "
        f"are asked; for a new cluster, or to start {cluster} without those jobs, set "
        f"slurm_state_empty_confirm={cluster}. Nothing was changed"
    )


def db_clusters(result: object) -> set[str] | None:
    """The cluster names of the accounting database's cluster_table as a registered community.mysql.mysql_query read
    them (set() where the database or the table does not exist: an empty or lost database), or None where MariaDB
    could not be asked (not answering, a check run on a host without it): nothing to judge."""
    if not isinstance(result, Mapping) or result.get("skipped"):
        return None
    if result.get("failed") or "query_result" not in result:
        said = str(result.get("msg") or "")
        return set() if re.search(r"doesn't exist|Unknown database", said) else None
    rows = [row for query in result.get("query_result") or [] for row in query or []]
    return {str(row.get("name")) for row in rows if isinstance(row, Mapping) and row.get("name")}


def lost_clusters_error(host: str, database: str, held: Iterable[str], found: set[str] | None, confirm: str) -> str:
    """The refusal of a run that would start slurmdbd on an accounting database without the clusters the controllers'
    StateSaveLocation holds (``held``: their ClusterNames; ``found``: db_clusters): a re-installed database host or a
    dropped database. slurmdbd registers the cluster anew under another ClusterID, and slurmctld of 24.11 and 26.05
    stops at its next start ("CLUSTER ID MISMATCH"; 22.05 starts, its accounting gone: tests/integration/
    test_cluster_name_state.py); the run itself stopped at the QOS (no gres/gpu TRES in the new database). "" where
    nothing is missing, nothing could be read, or ``confirm`` names every missing cluster."""
    missing = sorted(set(held) - found) if found is not None else []
    if not missing or all(confirmed(confirm, name) for name in missing):
        return ""
    names = ", ".join(missing)
    return (
        f"{host}: the accounting database '{database}' holds no cluster {names}, while the controllers' "
        f"StateSaveLocation holds {names} (a re-installed database host, a dropped database): slurmdbd started on it "
        "would register the cluster anew under another ClusterID, slurmctld from 24.11 on would stop at its next start "
        "(CLUSTER ID MISMATCH), and the cluster's associations, QOS, fair-share usage and job records would be out of "
        "its view. MariaDB is "
        f"set up and slurmdbd left stopped: restore the database from a dump (playbooks/restore.yml -e "
        f"restore=accounting -e accounting_restore_dump=<a dump on {host}>), then run again. To start the accounting "
        f"afresh instead, set accounting_db_empty_confirm={names} and remove each controller's "
        "StateSaveLocation/clustername before slurmctld starts again"
    )


# Where the slurm and munge daemons keep their files (StateSaveLocation, wherever the inventory puts it, is added): a
# moved account's files there are given its new ids, or its daemons could no longer read them.
SERVICE_DIRS = {
    "slurm": ("/etc/slurm", "/var/spool", "/var/log/slurm", "/var/lib/slurm", "/var/backups/gpucluster"),
    "munge": ("/etc/munge", "/var/lib/munge", "/var/log/munge"),
}


def _accounts(
    listing: str, wanted: Mapping[str, tuple[str, int]]
) -> tuple[dict[str, dict[str, int]], dict[str, list[str]], dict[str, set[str]]]:
    """The listing's ids of the wanted accounts (account -> {"uid", "gid"} as the host has them), their running
    processes, and the names other accounts and groups of the wanted ids have ("uid 100" -> {"systemd-network"})."""
    ids: dict[str, dict[str, int]] = {}
    running: dict[str, list[str]] = {}
    taken: dict[str, set[str]] = {}
    for line in listing.splitlines():
        fields = line.split(":")
        words = line.split()
        if len(words) >= 4 and words[0] == "running" and words[1] in wanted:
            running.setdefault(words[1], []).append(words[3])
            continue
        kind = "uid" if len(fields) == 7 else "gid" if len(fields) == 4 else ""
        if not kind or not fields[2].isdigit():
            continue
        if fields[0] in wanted:
            ids.setdefault(fields[0], {})[kind] = int(fields[2])
        elif int(fields[2]) in {new for _, new in wanted.values()}:
            taken.setdefault(f"{kind} {fields[2]}", set()).add(fields[0])
    return ids, running, taken


def moved_account_error(host: str, listing: str, wanted: Mapping[str, tuple[str, int]]) -> str:
    """The refusal of a run that would give a service account another id while its daemons run on ``host``
    (``listing``: `getent passwd` and `getent group` lines of the accounts and of the ids they are to have, then
    "running <account> <pid> <name>" for each of its processes; ``wanted``: account -> (the variable, the id the run
    gives it)). usermod refuses to move a user whose processes run - after the run has moved the group. Refused too:
    an id another account or group of the host has (usermod and groupmod refuse it, half-way). An account of another
    id whose daemons do not run (a site image, the lab's) is moved, its files with it (moved_account_ids), and so is
    a group of another gid; "" where nothing of that kind is found."""
    ids, running, taken = _accounts(listing, wanted)
    errors = [
        f"{variable}: {new} is the {kind} of {', '.join(sorted(taken[f'{kind} {new}']))} here"
        for account, (variable, new) in wanted.items()
        for kind in ("uid", "gid")
        if f"{kind} {new}" in taken and ids.get(account, {}).get(kind) != new
    ]
    if errors:
        return (
            f"{host}: {'; '.join(errors)} - usermod and groupmod refuse an id another account or group has (the run "
            "would stop half-way, the group moved and the user not). Give the service accounts ids no account or "
            "group of the hosts has (the same on every host: NFS and MUNGE need one id cluster-wide)"
        )
    moved = [account for account in wanted if _moved(ids, account, wanted) and account in running]
    if not moved:
        return ""
    said = "; ".join(
        f"{account}: {' and '.join(_other_ids(ids[account], wanted[account][1]))} here, {wanted[account][0]}: "
        f"{wanted[account][1]}, and {', '.join(sorted(set(running[account])))} runs as {account}"
        for account in moved
    )
    return (
        f"{host}: this run would give service accounts other ids under their running daemons - {said}. usermod "
        "refuses to move a user whose processes run (the run would stop after moving the group). Keep the ids the "
        "hosts have (the same on every host: NFS and MUNGE need one id cluster-wide), or stop the daemons on every "
        "host and run again: the accounts are moved with their files (the MUNGE key, StateSaveLocation, the spool "
        "and log directories)"
    )


def _other_ids(ids: Mapping[str, int], new: int) -> list[str]:
    """An account's ids that are not ``new`` ("uid 103", "gid 104")."""
    return [f"{kind} {ids[kind]}" for kind in ("uid", "gid") if kind in ids and ids[kind] != new]


def _moved(ids: Mapping[str, Mapping[str, int]], account: str, wanted: Mapping[str, tuple[str, int]]) -> bool:
    """Whether ``account``'s uid is another than the one wanted (a group's gid alone groupmod moves under running
    processes)."""
    return account in ids and "uid" in ids[account] and ids[account]["uid"] != wanted[account][1]


def moved_account_ids(
    listing: str, wanted: Mapping[str, tuple[str, int]], state_save_location: str
) -> list[dict[str, Any]]:
    """The ids of the service accounts a run moves (an account or group of another id than ``wanted``'s), each with
    the directories whose files of the old id take the new one: find's option (-uid, -gid), the old and the new id,
    the directories (SERVICE_DIRS, and for slurm ``state_save_location``). Without this, slurmctld moved to a new uid
    could not read its StateSaveLocation (owner-only files of the old uid) and starts without its jobs, munged
    refuses a key of another owner."""
    ids, _, _ = _accounts(listing, wanted)
    moves: list[dict[str, Any]] = []
    for account, (_, new) in wanted.items():
        dirs = list(SERVICE_DIRS.get(account, ()))
        if account == "slurm" and state_save_location and state_save_location not in dirs:
            dirs.append(state_save_location)
        for kind in ("uid", "gid"):
            old = ids.get(account, {}).get(kind)
            if old is not None and old != new:
                moves.append({"account": account, "option": f"-{kind}", "old": old, "new": new, "dirs": dirs})
    return moves
