"""Filters of the slurm role: its own files (plugstack.conf), how slurmctld takes a changed node set."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible.errors import AnsibleFilterError
from ansible_collections.gpucluster.cluster.plugins.module_utils.federation import federation_of, pod_of
from ansible_collections.gpucluster.cluster.plugins.module_utils.ha import backup_controller_errors
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import expand
from ansible_collections.gpucluster.cluster.plugins.module_utils.live_state import (
    command_stdout,
    held_cluster_name,
    orphan_jobs_error,
    slurp_result_text,
    state_cluster_error,
    state_move_error,
    stateless_controllers,
    unasked_nodes_error,
    vanishing_jobs_error,
    vanishing_partitions_error,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.pam_adopt import access_lines, exempt_errors
from ansible_collections.gpucluster.cluster.plugins.module_utils.plugstack import plugstack_errors, plugstack_lines
from ansible_collections.gpucluster.cluster.plugins.module_utils.releases import (
    DEFAULT_RELEASE,
    KNOWN_RELEASES,
    Release,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.reservations import guide_rows, reservation_errors
from ansible_collections.gpucluster.cluster.plugins.module_utils.secret_text import slurm_conf_value
from ansible_collections.gpucluster.cluster.plugins.module_utils.slurm_keys import cgroup_errors


def slurm_plugstack_errors(plugins: Any) -> list[str]:
    """What is wrong with slurm_spank_plugins (checked before any host is touched)."""
    return plugstack_errors(plugins)


def slurm_plugstack_lines(plugins: Any) -> list[str]:
    """plugstack.conf's lines; an invalid list (validation bypassed) is refused, never written."""
    errors = plugstack_errors(plugins)
    if errors:
        raise AnsibleFilterError("; ".join(errors))
    return plugstack_lines(plugins)


def slurm_pam_adopt_errors(users: Any, groups: Any) -> list[str]:
    """What is wrong with slurm_pam_adopt_exempt_users and _groups (checked before any host is touched)."""
    return exempt_errors(users, groups)


def slurm_pam_access_lines(users: Any, groups: Any) -> list[str]:
    """pam_access's table before pam_slurm_adopt: root, the users and the groups' members log in without a job;
    an invalid name (validation bypassed) is refused, never written."""
    try:
        return access_lines(users, groups)
    except ValueError as exc:
        raise AnsibleFilterError(str(exc)) from exc


def slurm_node_changes(release: Any) -> str:
    """How slurmctld of ``release`` takes an added or removed node or partition: "reconfigure" (from 23.11) or
    "restart"; an unknown release (refused by the validation) is restarted, which every release accepts."""
    text = str(release)
    return Release.parse(text).node_changes if text in KNOWN_RELEASES else "restart"


def slurm_reservation_errors(
    reservations: Any,
    *,
    compute_hosts: Sequence[str],
    partitions: Sequence[Any],
    accounts: Mapping[str, Any],
    users: Mapping[str, Any],
    operators: Sequence[str],
) -> list[str]:
    """Everything wrong with slurm_reservations (checked before any host is touched), each problem naming the
    reservation: its nodes (compute hosts of the inventory), partition, users and accounts (of the accounting
    role's lists), start, duration and flags."""
    names = [str(p.get("name")) for p in partitions or () if isinstance(p, Mapping)]
    known_users = [*(users or {}), *(operators or ())]
    return reservation_errors(
        reservations,
        compute_hosts=compute_hosts or (),
        partitions=names,
        accounts=list(accounts or {}),
        users=known_users,
        expand=expand,
    )


def slurm_reservation_rows(reservations: Any) -> list[dict[str, str]]:
    """slurm_reservations as the users' guide lists them (name, nodes, for, start, minutes, flags)."""
    return guide_rows(reservations)


def slurm_ctld_manager_errors(
    managers: Mapping[str, Any],
    *,
    groups: Mapping[str, Sequence[str]] | None = None,
    federation: Mapping[str, Any] | None = None,
    slurm_config: Mapping[str, Any] | None = None,
) -> list[str]:
    """controller -> its slurm_ctld_manager -> why they cannot run together: the slurm role's handlers act on each
    cluster (each pod) with one manager, so every controller of the inventory has the same one. Given ``groups``,
    also each cluster's (each pod's) controllers under systemd without a StateSaveLocation set in the inventory
    (cluster_slurm_config, a pod's slurm_config): Slurm's backup would take over from a directory of its own."""
    if len({str(manager) for manager in managers.values()}) > 1:
        each = ", ".join(f"{host}: {manager}" for host, manager in managers.items())
        return [
            f"slurm_ctld_manager differs between the controllers ({each}): every controller of the inventory (every "
            "pod of a federation) is run by one manager; set it once (group_vars/all)"
        ]
    if groups is None or not managers:
        return []
    manager = str(next(iter(managers.values())))
    parsed = federation_of(federation)
    clusters: dict[str, list[str]] = {}
    for host in managers:
        clusters.setdefault(pod_of(host, groups, parsed) if parsed else "", []).append(host)
    errors: list[str] = []
    for pod, controllers in clusters.items():
        found = parsed.pod(pod) if parsed else None
        config = found.settings({"slurm_config": slurm_config})["slurm_config"] if found else slurm_config
        given = next((str(v) for k, v in (config or {}).items() if str(k).lower() == "statesavelocation" and v), None)
        where = f"cluster_federation.pods.{pod}" if pod else "controllers"
        errors += backup_controller_errors(where, controllers, manager, given)
    return errors


def slurm_cgroup_errors(config: Any, release: Any = None) -> list[str]:
    """What slurmctld and slurmd would stop on in cgroup.conf (slurm_cgroup_config): a key the release (default: the
    model's default release) does not know, a word where a number or yes/no belongs."""
    return cgroup_errors(config, str(release or DEFAULT_RELEASE))


def slurm_state_name_error(
    slurped: Any, host: str, state_save_location: str, cluster: str, pod: str = "", *, federation: Any = None
) -> str:
    """The refusal of a run that would give a running cluster another ClusterName, or whose pod's state directory
    holds another pod's state; "" when the names agree or there is no state yet. ``slurped``: the controller's
    StateSaveLocation/clustername as ansible.builtin.slurp read it (no content where there is no file); ``cluster``:
    cluster_name; ``pod``: the host's pod ("" outside a federation); ``federation``: cluster_federation."""
    held = held_cluster_name(slurp_result_text(slurped))
    parsed = federation_of(federation if isinstance(federation, Mapping) else None)
    pods = [known.name for known in parsed.pods] if parsed is not None else []
    return state_cluster_error(str(host), str(state_save_location), held, str(cluster or ""), str(pod or ""), pods=pods)


def slurm_state_move_error(shown: Any, host: str, state_save_location: str, imported_from: str = "") -> str:
    """The refusal of a run that would restart slurmctld on another StateSaveLocation than the one it runs with (it
    would start without its jobs); "" when they agree, when no slurmctld answered, or when the run moves the state
    itself. ``shown``: the registered result of `scontrol show config` on the controller; ``imported_from``: where a
    phase upgrade moves the state from (pacemaker_state_import_from)."""
    config = command_stdout(shown)
    return state_move_error(str(host), config, str(state_save_location or ""), str(imported_from or ""))


def slurm_vanishing_jobs_error(listed: Any, host: str, node_lines: Any, removed: Any = None) -> str:
    """The refusal of a run whose slurm.conf (``node_lines``: the plan's NodeName lines of the host's cluster) leaves
    out nodes where jobs run; "" when none does or no slurmctld answered. ``listed``: the registered result of
    `squeue --local --noheader --states=RUNNING,SUSPENDED,COMPLETING,CONFIGURING --format=%N`; ``removed``:
    cluster_removed_nodes (remove-node.yml drains them before they go)."""
    listing = command_stdout(listed)
    lines = [str(line) for line in node_lines] if isinstance(node_lines, list) else []
    pieces = [removed] if isinstance(removed, str) else list(removed) if isinstance(removed, list) else []
    taken = expand([str(piece) for piece in pieces if str(piece).strip()]) if pieces else []
    return vanishing_jobs_error(str(host), listing, lines, taken)


def slurm_vanishing_partitions_error(listed: Any, host: str, partition_lines: Any, release: str) -> str:
    """The refusal of a run whose slurm.conf (``partition_lines``: the plan's PartitionName lines of the host's cluster,
    of its Slurm ``release``) leaves out partitions that hold jobs; "" when none does or no slurmctld answered.
    ``listed``: the registered result of `squeue --local --noheader --format=%i|%T|%P` (every job not yet finished)."""
    listing = command_stdout(listed)
    lines = [str(line) for line in partition_lines] if isinstance(partition_lines, list) else []
    return vanishing_partitions_error(str(host), listing, lines, Release.parse(str(release)))


def slurm_stateless_nodes(
    state_files: Mapping[str, Any], groups: Mapping[str, Sequence[str]], federation: Mapping[str, Any] | None = None
) -> list[str]:
    """The compute nodes to ask for running jobs before slurmctld starts: those of each cluster (each pod, in a
    federation) none of whose controllers holds its jobs' state while no slurmctld answers - a re-installed
    controller, a lost or unmounted state directory, or a new cluster. ``state_files``: controller -> the registered
    stat of StateSaveLocation/job_state (C(host_values) over the controllers of the play; "" where it was not asked).
    Empty where every cluster has a controller with its state, or one that answers."""
    stateless = stateless_controllers(state_files)
    controllers = [str(host) for host in groups.get("controllers") or []]
    compute = [str(host) for host in groups.get("compute") or []]
    parsed = federation_of(federation)
    if parsed is None:
        return compute if controllers and set(controllers) <= stateless else []
    nodes: list[str] = []
    for pod in parsed.pods:
        members = {str(host) for host in groups.get(pod.group) or []}
        pod_controllers = [host for host in controllers if host in members]
        if pod_controllers and set(pod_controllers) <= stateless:
            nodes += [host for host in compute if host in members]
    return nodes


def _by_cluster(
    nodes: Sequence[str], cluster: str, groups: Mapping[str, Sequence[str]] | None, federation: Mapping[str, Any] | None
) -> dict[str, list[str]]:
    """``nodes`` by the cluster they belong to: each pod's in a federation (its group in ``groups``), else
    ``cluster``'s - so that several pods that lost their state at once are each named, and each confirmed."""
    parsed = federation_of(federation) if groups else None
    pods = (
        {str(host): pod.name for pod in parsed.pods for host in (groups or {}).get(pod.group) or []} if parsed else {}
    )
    found: dict[str, list[str]] = {}
    for node in nodes:
        found.setdefault(pods.get(node, cluster), []).append(node)
    return found


def slurm_orphan_jobs_error(
    steps: Mapping[str, Any],
    cluster: str,
    confirm: Any = "",
    *,
    groups: Mapping[str, Sequence[str]] | None = None,
    federation: Mapping[str, Any] | None = None,
) -> str:
    """The refusal of a run that would start slurmctld without its jobs' state while nodes run jobs (they would be
    ended as orphans) or could not be asked; "" where none runs a step and every node answered, or ``confirm``
    (slurm_state_empty_confirm: names, comma-separated) names the cluster - each pod's in a federation (``groups``,
    ``federation``: cluster_federation), else ``cluster``. ``steps``: node -> the registered result of `pgrep -a -x
    slurmstepd` there (C(host_values); a node that was unreachable, or where the command could not run, was not
    asked) or its stdout."""
    texts = {str(node): str(seen or "") for node, seen in steps.items() if not isinstance(seen, Mapping)}
    # pgrep ran where the command module reports its command and pgrep's own codes (1: no process)
    asked = {str(node): seen for node, seen in steps.items() if isinstance(seen, Mapping)}
    ran = {node: seen for node, seen in asked.items() if "cmd" in seen and seen.get("rc") in (0, 1)}
    texts.update({node: str(seen.get("stdout") or "") for node, seen in ran.items()})
    unreached = set(asked) - set(ran)
    errors = [
        orphan_jobs_error(
            {node: texts[node] for node in members if node in texts},
            name,
            str(confirm or ""),
            sorted(node for node in members if node in unreached),
        )
        for name, members in _by_cluster([str(node) for node in steps], str(cluster), groups, federation).items()
    ]
    return " ".join(error for error in errors if error)


def slurm_unasked_nodes_error(
    nodes: Sequence[str],
    limited: Any,
    cluster: str,
    confirm: Any = "",
    *,
    groups: Mapping[str, Sequence[str]] | None = None,
    federation: Mapping[str, Any] | None = None,
) -> str:
    """The refusal of a run limited with --limit that would start slurmctld without its jobs' state while the nodes to
    ask for running jobs (``nodes``: slurm_stateless_nodes) are outside the limit; "" where they are in it, the run
    has no limit (``limited`` none: else the hosts the limit holds) or ``confirm`` (slurm_state_empty_confirm) names
    the cluster - each pod's in a federation (``groups``, ``federation``), else ``cluster``."""
    within = [str(host) for host in limited] if isinstance(limited, (list, tuple)) else None
    errors = [
        unasked_nodes_error(members, within, name, str(confirm or ""))
        for name, members in _by_cluster([str(node) for node in nodes or []], str(cluster), groups, federation).items()
    ]
    return " ".join(error for error in errors if error)


def slurm_held_clusters(slurped: Mapping[str, Any] | Sequence[Any]) -> list[str]:
    """The ClusterNames the controllers' StateSaveLocation holds (``slurped``: controller -> the registered slurp of
    its clustername file, C(host_values) over the controllers, or the results of a slurp looped over them; none where
    there is no file or the controller could not be reached): the clusters that ran and that the accounting database
    must hold."""
    results = slurped.values() if isinstance(slurped, Mapping) else slurped
    return sorted({name for result in results if (name := held_cluster_name(slurp_result_text(result)))})


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "slurm_cgroup_errors": slurm_cgroup_errors,
            "slurm_unasked_nodes_error": slurm_unasked_nodes_error,
            "slurm_plugstack_errors": slurm_plugstack_errors,
            "slurm_plugstack_lines": slurm_plugstack_lines,
            "slurm_node_changes": slurm_node_changes,
            "slurm_reservation_errors": slurm_reservation_errors,
            "slurm_reservation_rows": slurm_reservation_rows,
            "slurm_ctld_manager_errors": slurm_ctld_manager_errors,
            "slurm_pam_adopt_errors": slurm_pam_adopt_errors,
            "slurm_pam_access_lines": slurm_pam_access_lines,
            "slurm_state_move_error": slurm_state_move_error,
            "slurm_state_name_error": slurm_state_name_error,
            "slurm_vanishing_jobs_error": slurm_vanishing_jobs_error,
            "slurm_vanishing_partitions_error": slurm_vanishing_partitions_error,
            "slurm_stateless_nodes": slurm_stateless_nodes,
            "slurm_held_clusters": slurm_held_clusters,
            "slurm_orphan_jobs_error": slurm_orphan_jobs_error,
            "slurm_conf_value": slurm_conf_value,
        }
