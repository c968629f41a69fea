"""MariaDB Galera under slurmdbd: the preflight that must pass before slurmdbd starts, and the choice of
the node that bootstraps a fully stopped cluster.

Both work on what the nodes report (SHOW GLOBAL VARIABLES / STATUS, grastate.dat, `mysqld --wsrep-recover`),
so that a module can gather it and the decision stays a pure, tested function.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .secret_text import OPTION_FILE, plain_secret_errors
from .values import whole_in_range

GIB = 1024**3
MIB = 1024**2
# Galera refuses write sets above 2 GiB; slurmdbd's schema conversion streams fragments of
# min(wsrep_max_ws_size, 128 MiB), and purges/archives in 50,000-row transactions.
MAX_WS_SIZE = 2 * GIB - 1
MIN_WS_SIZE = 1 * GIB


@dataclass(frozen=True)
class PreflightLimits:
    """SchedMD's accounting.shtml figures; the lab lowers the buffer pool."""

    min_buffer_pool: int = 4 * GIB
    min_lock_wait_timeout: int = 900
    min_max_allowed_packet: int = 16 * MIB
    min_ws_size: int = MIN_WS_SIZE


def _int(value: str | None) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def galera_major(version: str) -> int:
    """Galera's major version from wsrep_provider_version: '26.4.20(r7c2a4e4)' (MariaDB's packages, with the
    wsrep API version 25/26 first) or '4.23(rXXXX)' (Debian's)."""
    numbers = [int(n) for n in re.findall(r"\d+", version.split("(", maxsplit=1)[0])[:2]]
    if len(numbers) < 2:
        return 0
    return numbers[1] if numbers[0] >= 25 else numbers[0]


def node_errors(host: str, variables: Mapping[str, str], limits: PreflightLimits) -> list[str]:
    """What is wrong with one node's settings for slurmdbd, each naming the setting and the fix."""
    v = {key.lower(): str(value) for key, value in variables.items()}
    errors = []
    if v.get("wsrep_on", "").upper() != "ON":
        errors.append(f"{host}: wsrep_on is {v.get('wsrep_on', 'unset')}; this is not a Galera node")
        return errors
    if galera_major(v.get("wsrep_provider_version", "")) < 4:
        errors.append(
            f"{host}: wsrep_provider_version {v.get('wsrep_provider_version', 'unset')} is not Galera 4; "
            "slurmdbd's schema conversion needs Galera 4 streaming replication"
        )
    ws = _int(v.get("wsrep_max_ws_size"))
    if ws is None or ws < limits.min_ws_size:
        errors.append(
            f"{host}: wsrep_max_ws_size {ws} is below {limits.min_ws_size}; large slurmdbd transactions "
            f"(purge, archive, conversion) would be refused - set it to {MAX_WS_SIZE}"
        )
    elif ws > MAX_WS_SIZE:
        errors.append(f"{host}: wsrep_max_ws_size {ws} is above Galera's limit {MAX_WS_SIZE}")
    if v.get("innodb_snapshot_isolation", "OFF").upper() == "ON":
        errors.append(
            f"{host}: innodb_snapshot_isolation is ON (MariaDB 11.6.2+ default) and slurmdbd stops on it; "
            "set innodb_snapshot_isolation=OFF"
        )
    checks = (
        ("innodb_buffer_pool_size", limits.min_buffer_pool),
        ("innodb_lock_wait_timeout", limits.min_lock_wait_timeout),
        ("max_allowed_packet", limits.min_max_allowed_packet),
    )
    for name, minimum in checks:
        value = _int(v.get(name))
        if value is None or value < minimum:
            errors.append(f"{host}: {name} is {value}, SchedMD asks for at least {minimum}")
    if v.get("binlog_format", "ROW").upper() != "ROW":
        errors.append(f"{host}: binlog_format is {v['binlog_format']}; Galera replicates ROW only")
    if v.get("innodb_autoinc_lock_mode", "2") != "2":
        errors.append(f"{host}: innodb_autoinc_lock_mode is {v['innodb_autoinc_lock_mode']}; Galera needs 2")
    return errors


def preflight_errors(nodes: Mapping[str, Mapping[str, str]], limits: PreflightLimits = PreflightLimits()) -> list[str]:
    """Every node's problems, then the cluster's: the same write-set limit everywhere, every node in the
    primary component and synced."""
    errors = [error for host, variables in nodes.items() for error in node_errors(host, variables, limits)]
    sizes = {
        host: {k.lower(): v for k, v in variables.items()}.get("wsrep_max_ws_size") for host, variables in nodes.items()
    }
    if len(set(sizes.values())) > 1:
        listed = ", ".join(f"{host}={size}" for host, size in sizes.items())
        errors.append(
            f"wsrep_max_ws_size differs between nodes ({listed}); a write set one node accepts another refuses"
        )
    for host, variables in nodes.items():
        v = {k.lower(): str(val) for k, val in variables.items()}
        if v.get("wsrep_on", "").upper() != "ON":
            continue
        if v.get("wsrep_cluster_status", "Primary") != "Primary":
            errors.append(f"{host}: wsrep_cluster_status is {v['wsrep_cluster_status']}, not Primary (no quorum)")
        if v.get("wsrep_local_state_comment", "Synced") != "Synced":
            errors.append(f"{host}: wsrep_local_state_comment is {v['wsrep_local_state_comment']}, not Synced")
        size = _int(v.get("wsrep_cluster_size"))
        if size is not None and size != len(nodes):
            errors.append(f"{host}: wsrep_cluster_size is {size}, the inventory has {len(nodes)} Galera nodes")
    return errors


@dataclass(frozen=True)
class NodeState:
    """A stopped node's replication position: grastate.dat, and `mysqld --wsrep-recover` when its seqno is -1."""

    uuid: str
    seqno: int
    safe_to_bootstrap: bool


def parse_grastate(text: str) -> NodeState:
    fields = dict(re.findall(r"^(\w+):\s*(\S*)\s*$", text, re.MULTILINE))
    seqno = _int(fields.get("seqno"))
    return NodeState(
        uuid=fields.get("uuid", ""),
        seqno=-1 if seqno is None else seqno,
        safe_to_bootstrap=fields.get("safe_to_bootstrap") == "1",
    )


def recovered_position(log: str) -> tuple[str, int] | None:
    """'WSREP: Recovered position: <uuid>:<seqno>' from `mysqld --wsrep-recover`'s log."""
    found = re.findall(r"Recovered position:\s*([0-9a-f-]{36}):(-?\d+)", log)
    return (found[-1][0], int(found[-1][1])) if found else None


def bootstrap_node(states: Mapping[str, NodeState], order: Sequence[str]) -> tuple[str | None, list[str]]:
    """The node to bootstrap a fully stopped cluster from: the one marked safe_to_bootstrap, else the one
    with the highest seqno (the inventory's order breaks ties). Refuses nodes of different clusters and
    a cluster whose positions are unknown."""
    errors = []
    uuids = {
        state.uuid for state in states.values() if state.uuid and state.uuid != "00000000-0000-0000-0000-000000000000"
    }
    if len(uuids) > 1:
        listed = ", ".join(f"{host}={state.uuid}" for host, state in states.items())
        errors.append(f"the nodes belong to different Galera clusters ({listed}); fix the inventory or the data")
        return None, errors
    safe = [host for host in order if host in states and states[host].safe_to_bootstrap]
    if safe:
        # Normally one node (the last to leave). Nodes stopped at the same moment can each mark themselves:
        # they left one component, and the highest seqno among them is the most recent.
        return max(safe, key=lambda host: states[host].seqno), []
    known = {host: state.seqno for host, state in states.items() if state.seqno >= 0}
    if not known:
        errors.append(
            "no node knows its position (seqno -1 everywhere and no recovered position); run mysqld --wsrep-recover"
        )
        return None, errors
    unknown = [host for host in order if host in states and host not in known]
    if unknown:
        # The node whose position is unknown may hold the newest writes: bootstrapping from another would have
        # its state transfer overwrite them when it joins.
        errors.append(
            f"{', '.join(unknown)} {'does' if len(unknown) == 1 else 'do'} not know its position (seqno -1 in "
            "grastate.dat and galera_recovery found none): it may hold the newest writes, which a bootstrap from "
            "another node would overwrite. Find its position (mysqld --wsrep-recover, its error log), or choose the "
            "node yourself: -e galera_bootstrap_from=<host> -e galera_bootstrap_confirm=<host>"
        )
        return None, errors
    best = max(known.values())
    return next(host for host in order if known.get(host) == best), []


@dataclass(frozen=True)
class NodeReport:
    """What the galera_node module reports of one node: whether MariaDB runs, its component when it does,
    whether it runs as a Galera node at all (wsrep_on; a pilot's accounting server does not), its position on
    disk (grastate.dat, with `galera_recovery`'s seqno when grastate says -1) and the databases it holds
    besides MariaDB's own."""

    active: bool
    cluster_status: str = ""
    state: NodeState = NodeState("", -1, False)
    wsrep_on: bool = True
    databases: tuple[str, ...] = ()

    @property
    def standalone(self) -> bool:
        """Runs, but not as a Galera node: it is stopped, then bootstraps or joins like a stopped node."""
        return self.active and not self.wsrep_on

    @classmethod
    def from_result(cls, result: Mapping[str, object]) -> NodeReport:
        grastate = result.get("grastate") or {}
        assert isinstance(grastate, Mapping)
        seqno = _int(str(grastate.get("seqno", -1)))
        recovered = _int(str(result.get("recovered_seqno", "")))
        if (seqno is None or seqno < 0) and recovered is not None:
            seqno = recovered
        databases = result.get("databases") or ()
        assert isinstance(databases, (list, tuple))
        return cls(
            active=bool(result.get("active")),
            cluster_status=str(result.get("cluster_status") or ""),
            state=NodeState(
                uuid=str(grastate.get("uuid") or ""),
                seqno=-1 if seqno is None else seqno,
                safe_to_bootstrap=bool(grastate.get("safe_to_bootstrap")),
            ),
            wsrep_on=bool(result.get("wsrep_on", True)),
            databases=tuple(str(name) for name in databases),
        )


NO_UUID = ("", "00000000-0000-0000-0000-000000000000")


@dataclass(frozen=True)
class Plan:
    """How to bring the Galera nodes up: `stop` the standalone servers first, then `bootstrap` starts a new
    Primary component (galera_new_cluster), then `join` start one at a time. `new_cluster` when no node ever
    ran (no cluster UUID anywhere)."""

    bootstrap: str | None
    join: tuple[str, ...]
    new_cluster: bool
    errors: tuple[str, ...] = ()
    stop: tuple[str, ...] = ()


def _data_errors(reports: Mapping[str, NodeReport], down: Sequence[str], bootstrap: str | None) -> list[str]:
    """A node that never ran in the cluster (no UUID) but holds databases would have them replaced by the
    state transfer of its join: only the bootstrap node may hold data of its own."""
    errors = []
    for host in down:
        report = reports[host]
        if host != bootstrap and report.state.uuid in NO_UUID and report.databases:
            errors.append(
                f"{host} holds databases ({', '.join(report.databases)}) but never ran in this Galera cluster: "
                "its join would replace them by a copy of the cluster's. Keep them by making it the only node "
                "with data (it then bootstraps the cluster), or move them out first (mariadb-dump)"
            )
    return errors


def _chosen_plan(reports: Mapping[str, NodeReport], order: Sequence[str], chosen: str, stop: tuple[str, ...]) -> Plan:
    """The operator's own choice of the bootstrap node (galera_bootstrap_from): every other reachable node joins
    it and takes its state, whatever the positions say."""
    if chosen not in order:
        return Plan(
            None, (), False, (f"galera_bootstrap_from: {chosen} is not in group 'galera' ({', '.join(order)})",)
        )
    if chosen not in reports:
        return Plan(
            None,
            (),
            False,
            (f"galera_bootstrap_from: {chosen} did not report (unreachable, or left out by --limit); bring it back",),
        )
    running = [host for host in order if host in reports and reports[host].active and host not in stop]
    if running:
        return Plan(
            None,
            (),
            False,
            (
                f"galera_bootstrap_from: MariaDB runs on {', '.join(running)}; a bootstrap beside a running node "
                "would split the cluster. Stop it there first, or drop galera_bootstrap_from to let the nodes join",
            ),
        )
    down = tuple(host for host in order if host in reports)
    return Plan(chosen, tuple(host for host in down if host != chosen), False, (), stop)


def plan(reports: Mapping[str, NodeReport], order: Sequence[str], chosen: str = "") -> Plan:
    """Bootstrap a new cluster from the node holding the data (a pilot's accounting database migrating to
    Galera), else from the first node; let stopped nodes join a running Primary component, and recover a
    fully stopped cluster from the node bootstrap_node() picks. A node running MariaDB without Galera is
    stopped first and counts as stopped. A running cluster without a Primary component (lost quorum) is
    refused: bootstrapping beside it would split the data.

    Without a running Primary component every node of ``order`` (the galera group) must have reported: one
    that is unreachable or left out by --limit may hold the newest writes (or data of its own), and a bootstrap
    without it would have them overwritten when it joins. The only way past is ``chosen``, the operator's
    explicit choice of the bootstrap node."""
    stop = tuple(host for host in order if host in reports and reports[host].standalone)
    down = tuple(host for host in order if host in reports and (not reports[host].active or host in stop))
    if chosen:
        return _chosen_plan(reports, order, chosen, stop)
    running = [host for host in order if host in reports and reports[host].active and host not in stop]
    if running:
        primary = [host for host in running if reports[host].cluster_status == "Primary"]
        if primary:
            errors = _data_errors(reports, down, None)
            return Plan(None, () if errors else down, False, tuple(errors), () if errors else stop)
        listed = ", ".join(f"{host}={reports[host].cluster_status or 'unknown'}" for host in running)
        return Plan(
            None,
            (),
            False,
            (
                f"MariaDB runs on {', '.join(running)} without a Primary component ({listed}): the cluster lost "
                "quorum. Stop MariaDB on those nodes (systemctl stop mariadb) and re-run: the playbook then "
                "bootstraps from the most advanced node",
            ),
        )
    missing = [host for host in order if host not in reports]
    if missing:
        return Plan(
            None,
            (),
            False,
            (
                f"{', '.join(missing)} of group 'galera' did not report (unreachable, or left out by --limit) and no "
                "node runs a Primary component: the missing node may hold the newest writes, which a bootstrap "
                "without it would overwrite when it joins. Bring it back and re-run without --limit, or choose the "
                "node yourself: -e galera_bootstrap_from=<host> -e galera_bootstrap_confirm=<host>",
            ),
        )
    if all(reports[host].state.uuid in NO_UUID for host in down):
        holders = [host for host in down if reports[host].databases]
        if len(holders) > 1:
            listed = "; ".join(f"{host}: {', '.join(reports[host].databases)}" for host in holders)
            return Plan(
                None,
                (),
                True,
                (
                    f"several nodes of a new Galera cluster hold databases ({listed}): the cluster would keep one "
                    "node's and replace the others' by state transfers. Keep the data on one node only",
                ),
            )
        first = holders[0] if holders else (down[0] if down else None)
        return Plan(first, tuple(host for host in down if host != first), True, (), stop)
    newest, errors = bootstrap_node({host: reports[host].state for host in down}, down)
    if newest is None:
        return Plan(None, (), False, tuple(errors))
    errors = _data_errors(reports, down, newest)
    if errors:
        return Plan(None, (), False, tuple(errors))
    return Plan(newest, tuple(host for host in down if host != newest), False, (), stop)


def standalone_dbd_errors(dbd: Sequence[str], galera: Sequence[str]) -> list[str]:
    """Two or more slurmdbd hosts without a Galera cluster: each writes to the MariaDB on its own host
    (StorageHost=localhost), so the backup slurmdbd would write to a second database the first never saw - job
    records, associations and limits split between them. Refused before any host is touched."""
    if len(dbd) < 2 or galera:
        return []
    return [
        f"group 'dbd' has {len(dbd)} hosts ({', '.join(dbd)}) and there is no 'galera' group: each slurmdbd writes to "
        f"the MariaDB on its own host, so {', '.join(dbd[1:])} would take over with a database of its own and the "
        "accounting would split. Put the dbd hosts on a Galera cluster (a 'galera' group of 3 or more; "
        "docs/production.md), or keep one host in 'dbd'"
    ]


def settings_errors(galera: Sequence[str], dbd: Sequence[str], settings: Mapping[str, Any]) -> list[str]:
    """The Galera group, the slurmdbd hosts on it and the state transfer settings, before any host is touched;
    each problem on its own, naming the group or variable and the fix. settings: sst_method, sst_password,
    bootstrap_from, bootstrap_confirm."""
    errors: list[str] = []
    hosts = ", ".join(galera) or "none"
    if len(galera) < 3 or len(galera) % 2 == 0:
        errors.append(
            f"inventory group 'galera' has {len(galera)} hosts ({hosts}): a Galera cluster needs an odd number of at "
            "least 3 nodes, so that a majority survives the loss of one; add or remove a node"
        )
    off = [host for host in dbd if host not in galera]
    if off:
        errors.append(
            f"{', '.join(off)} of group 'dbd' is not in group 'galera': slurmdbd writes to its local Galera node; "
            "put every dbd host in galera"
        )
    method = str(settings.get("sst_method") or "")
    if method not in ("mariabackup", "rsync"):
        errors.append(f"galera_sst_method is {method!r}; set it to mariabackup or rsync")
    elif method == "mariabackup" and len(str(settings.get("sst_password") or "")) < 12:
        errors.append(
            "galera_sst_password (Ansible Vault, 12+ characters) is required for galera_sst_method mariabackup"
        )
    elif method == "mariabackup":
        errors += plain_secret_errors(
            "galera_sst_password",
            str(settings.get("sst_password")),
            "MariaDB's option file (wsrep_sst_auth)",
            OPTION_FILE,
        )
    chosen = str(settings.get("bootstrap_from") or "")
    if chosen and chosen not in galera:
        errors.append(f"galera_bootstrap_from is {chosen}: it is not in group galera ({hosts}); name one of its hosts")
    elif chosen and str(settings.get("bootstrap_confirm") or "") != chosen:
        errors.append(
            f"galera_bootstrap_from is {chosen}: every other Galera node would take that node's state and lose writes "
            f"newer than its own. Confirm by typing the host again: -e galera_bootstrap_confirm={chosen}"
        )
    return errors + _server_errors(settings)


_SIZE = re.compile(r"^(\d+)([KMGTPE]?)$", re.IGNORECASE)
_UNITS = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "p": 2**50, "e": 2**60}


def size_bytes(value: object) -> int | None:
    """A MariaDB size (4G, 256M, 1073741824) in bytes; None when MariaDB would not read it."""
    found = _SIZE.match(str(value).strip()) if not isinstance(value, bool) else None
    return int(found.group(1)) * _UNITS[found.group(2).lower()] if found else None


def _server_errors(settings: Mapping[str, Any]) -> list[str]:
    """The Galera nodes' MariaDB settings, where given: sizes MariaDB reads (``sizes``: variable -> value), a
    buffer pool and a write-set size the slurmdbd preflight will accept (it runs after the nodes are set up),
    applier threads and a wait for Synced of at least 1."""
    errors = []
    sizes: Mapping[str, Any] = settings.get("sizes") or {}
    for name, value in sizes.items():
        if size_bytes(value) is None:
            errors.append(f"{name}: {value!r} is not a size MariaDB reads; write a number with K, M, G or T (4G)")
    errors += _size_floor_errors(
        sizes,
        "galera_innodb_buffer_pool_size",
        "buffer_pool",
        settings.get("min_buffer_pool_mb"),
        "(or, in a lab only, lower the preflight's floor)",
    )
    ws_size, ws_floor = settings.get("max_ws_size"), settings.get("min_ws_size_gb")
    if (
        str(ws_size or "").isdigit()
        and str(ws_floor or "").isdigit()
        and int(str(ws_size)) < int(str(ws_floor)) * 2**30
    ):
        errors.append(
            f"galera_max_ws_size: {ws_size} bytes is below what the slurmdbd preflight accepts "
            f"(galera_preflight_min_ws_size_gb: {ws_floor}): slurmdbd's large transactions (purges, archives) would "
            "fail; raise it (2147483647 is Galera's most)"
        )
    errors += _preflight_floor_errors(settings, sizes)
    for name in ("galera_slave_threads", "galera_sync_timeout"):
        value = settings.get(name.removeprefix("galera_"))
        if value is not None and not whole_in_range(value, 1):
            errors.append(f"{name}: {value!r} is not a whole number of 1 or more")
    return errors


def _preflight_floor_errors(settings: Mapping[str, Any], sizes: Mapping[str, Any]) -> list[str]:
    """innodb_lock_wait_timeout and max_allowed_packet below the floors the slurmdbd preflight asks for (it runs
    after the Galera nodes are set up, and stops the run there)."""
    errors = []
    wait, wait_floor = settings.get("lock_wait_timeout"), settings.get("min_lock_wait_timeout")
    if str(wait or "").isdigit() and str(wait_floor or "").isdigit() and int(str(wait)) < int(str(wait_floor)):
        errors.append(
            f"galera_innodb_lock_wait_timeout: {wait} s is below what the slurmdbd preflight accepts "
            f"(galera_preflight_min_lock_wait_timeout: {wait_floor}; SchedMD asks for 900), which would stop the run "
            "after the Galera nodes were set up; raise it"
        )
    return errors + _size_floor_errors(
        sizes, "galera_max_allowed_packet", "max_allowed_packet", settings.get("min_max_allowed_packet_mb"), "(64M)"
    )


def _size_floor_errors(sizes: Mapping[str, Any], variable: str, floor_name: str, floor: Any, fix: str) -> list[str]:
    """A size of ``sizes`` (``variable``) below the slurmdbd preflight's floor of it (galera_preflight_min_<floor_name>
    _mb, ``floor`` MiB): the preflight reads it on the running nodes and stops the run there."""
    size = size_bytes(sizes.get(variable, "")) if sizes else None
    if size is None or not str(floor or "").isdigit() or size >= int(str(floor)) * 2**20:
        return []
    return [
        f"{variable}: {sizes[variable]} is below what the slurmdbd preflight accepts (galera_preflight_min_{floor_name}"
        f"_mb: {floor} MiB), which would stop the run after the Galera nodes were set up; raise it {fix}"
    ]


def rename_errors(running: Mapping[str, str], name: str) -> list[str]:
    """The refusal when the nodes that run as a Galera cluster (host -> its wsrep_cluster_name) run under another
    name than the inventory's ``name``: a node restarted under another name does not rejoin its cluster."""
    names = list(dict.fromkeys(running.values()))
    if all(running_name == name for running_name in names):
        return []
    hosts = ", ".join(f"{host}: {running_name}" for host, running_name in running.items())
    quoted = "', '".join(names)
    return [
        f"{hosts} run the Galera cluster '{quoted}' and the inventory makes it '{name}' (galera_cluster_name, by "
        "default cluster_name + '-accounting'): a node does not rejoin its cluster under another name. Set "
        f"galera_cluster_name: {names[0]} in group_vars/all"
    ]


def provider_options(text: str) -> dict[str, str]:
    """wsrep_provider_options as the server shows it ("name = value; name = value") -> name -> value."""
    pairs = (item.split("=", 1) for item in text.split(";") if "=" in item)
    return {name.strip(): value.strip() for name, value in pairs}


def replication_tls(text: str) -> bool:
    """Whether a running node's wsrep_provider_options have TLS on its replication socket (socket.ssl, or a
    certificate, which turns it on)."""
    options = provider_options(text)
    switched = options.get("socket.ssl", "").upper() in ("YES", "TRUE", "ON", "1")
    return switched or bool(options.get("socket.ssl_cert"))


def tls_change(running: Mapping[str, Any], wanted: bool) -> tuple[list[str], list[str]]:
    """host -> whether the node runs Galera over TLS (the galera_node module's replication_tls: true, false, or
    None when it does not run as a Galera node), whether the settings want TLS (galera_tls) -> the nodes a move
    to TLS has to pass (they run without it: while any does, socket.dynamic stays on until every node restarted
    with TLS), and the refusal of a move back (a node restarted without TLS cannot rejoin the ones with it)."""
    moving = [host for host, tls in running.items() if tls is False] if wanted else []
    keeping = [host for host, tls in running.items() if tls is True]
    errors = []
    if not wanted and keeping:
        errors.append(
            f"galera_tls is false, and {', '.join(keeping)} run Galera with TLS: a node restarted without it cannot "
            "rejoin the others, so the run stops before any restart. Keep galera_tls: true, or stop MariaDB on every "
            "Galera node and run playbooks/galera-recover.yml -e galera_tls=false (the cluster starts again "
            "without TLS)"
        )
    return moving, errors


def rolling_restarts(changed: Mapping[str, Any], active: Mapping[str, Any]) -> list[str]:
    """The nodes (in the order given) whose settings changed while they run: restarted one at a time."""
    return [host for host in changed if changed[host] and active.get(host)]
