"""Filters that turn the inventory's QOS, accounts and users into sacctmgr settings."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils import associations
from ansible_collections.gpucluster.cluster.plugins.module_utils import galera as galera_rules
from ansible_collections.gpucluster.cluster.plugins.module_utils.live_state import (
    database_move_error,
    db_clusters,
    lost_clusters_error,
    purge_loss_error,
    storage_loc,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.releases import (
    DEFAULT_RELEASE,
    KNOWN_RELEASES,
    Release,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.secret_text import (
    short_secret_errors,
    slurm_conf_secret_errors,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.slurm_keys import purge_errors


def qos_settings(qos: Mapping[str, Any]) -> dict[str, Any]:
    """cluster_qos.<name> -> sacctmgr QOS settings."""
    settings: dict[str, Any] = {"Priority": qos.get("priority", 0)}
    if qos.get("preempt"):
        settings["Preempt"] = list(qos["preempt"])
    if qos.get("preempt_mode"):
        settings["PreemptMode"] = qos["preempt_mode"]
    if qos.get("max_wall"):
        settings["MaxWall"] = qos["max_wall"]
    if qos.get("flags"):
        settings["Flags"] = list(qos["flags"])
    settings.update(
        {
            key: associations.tres_text(value) if isinstance(value, Mapping) else value
            for key, value in (qos.get("limits") or {}).items()
        }
    )
    return settings


def qos_in_order(qos: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """cluster_qos as dict2items, each QOS after the QOS it preempts (sacctmgr refuses unknown ones)."""
    done: dict[str, None] = {}

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in done or name in path or name not in qos:
            return
        for target in qos[name].get("preempt") or []:
            visit(str(target), (*path, name))
        done[name] = None

    for name in qos:
        visit(str(name), ())
    return [{"key": name, "value": qos[name]} for name in done]


def account_settings(account: Mapping[str, Any]) -> dict[str, Any]:
    """accounting_accounts.<name> -> sacctmgr account settings (its limits included; coordinators apart)."""
    return associations.account_settings(account)


def accounting_coordinators(accounts: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The accounts whose inventory entry names coordinators, as dict2items (value: the users, the exact list)."""
    return [{"key": name, "value": users} for name, users in associations.account_coordinators(accounts or {})]


def user_settings(user: Mapping[str, Any]) -> dict[str, Any]:
    """accounting_users.<name> -> sacctmgr user settings (Partitions and limits included)."""
    return associations.user_settings(user)


def accounting_errors(
    accounts: Mapping[str, Any],
    users: Mapping[str, Any],
    qos: Any,
    partitions: Sequence[Any],
    *,
    node_types: Mapping[str, Any] | None = None,
    accounting: Mapping[str, Any] | None = None,
    release: str | None = None,
) -> list[str]:
    """Everything wrong with accounting_accounts and accounting_users (unknown settings, a parent, account, QOS or
    partition that does not exist, a loop of parents, a limit that is not one, a coordinator who is no user) and,
    given cluster_node_types and cluster_accounting (and cluster_slurm_release), a limit on a TRES the cluster does
    not track."""
    names = [str(p.get("name")) for p in partitions or () if isinstance(p, Mapping)]
    tracked = None
    if node_types is not None and isinstance(accounting or {}, Mapping):
        gpus = any(isinstance(body, Mapping) and body.get("gpu") for body in (node_types or {}).values())
        extra = (accounting or {}).get("tres") or []
        text = str(release or DEFAULT_RELEASE)
        # (a release the model does not know is refused by the model's own check)
        usage = text not in KNOWN_RELEASES or Release.parse(text).has("gpu_usage_tres")
        tracked = associations.known_tres(gpus, extra if isinstance(extra, (list, tuple)) else [extra], usage)
    allowed = {
        str(p.get("name")): [str(name) for name in p.get("allow_accounts") or ()]
        for p in partitions or ()
        if isinstance(p, Mapping) and isinstance(p.get("allow_accounts") or (), (list, tuple))
    }
    found = associations.association_errors(accounts or {}, users or {}, associations.qos_names(qos), names, tracked)
    return found + associations.allow_accounts_errors(accounts if isinstance(accounts, Mapping) else {}, allowed)


# MariaDB's own accounts: the roles set a user's password and grants, which for these would lock out the database's
# administration (root over the unix socket, which the roles themselves log in with) or its internals.
DATABASE_SYSTEM_USERS = frozenset({"root", "mysql", "mariadb.sys", "debian-sys-maint", "public"})


def database_user_errors(users: Mapping[str, Any]) -> list[str]:
    """The MariaDB users the roles create (``users``: variable -> name: slurmdbd's, Galera's state transfer user,
    mysqld_exporter's): each its own, none of MariaDB's own accounts - a role that sets one's password and grants
    would take it over (the exporter's least grants replacing slurmdbd's, root's socket login replaced)."""
    errors = []
    seen: dict[str, str] = {}
    for variable, value in users.items():
        name = str(value or "")
        if name.lower() in DATABASE_SYSTEM_USERS:
            errors.append(
                f"{variable}: {name!r} is one of MariaDB's own accounts; the role would set its password and grants "
                "(root: the socket login the roles and the admins use) - give the service a user of its own"
            )
        elif name in seen:
            errors.append(
                f"{variable}: {name!r} is also {seen[name]}; each service needs its own database user (the roles set "
                "each one's password and grants, and the later would replace the earlier's)"
            )
        elif name:
            seen[name] = variable
    return errors


def accounting_settings_errors(
    purge: Any,
    sizes: Mapping[str, Any],
    release: Any = None,
    db_password: Any = "",
    db_users: Mapping[str, Any] | None = None,
) -> list[str]:
    """What slurmdbd or MariaDB would not start with: accounting_purge's keys and retentions (slurmdbd.conf of the
    release; default: the model's default release), MariaDB sizes (``sizes``: variable -> value) that are no
    number with an optional K, M, G or T, a database password (``db_password``) slurmdbd.conf cannot carry, and the
    database users of the roles (``db_users``: database_user_errors)."""
    errors = purge_errors(purge, str(release or DEFAULT_RELEASE)) + database_user_errors(db_users or {})
    password = str(db_password or "")
    errors += short_secret_errors("accounting_db_password", password)
    errors += slurm_conf_secret_errors("accounting_db_password", password, "slurmdbd.conf (StoragePass)")
    for name, value in sizes.items():
        if isinstance(value, bool) or not re.fullmatch(r"\d+[KMGTPE]?", str(value).strip(), re.IGNORECASE):
            errors.append(f"{name}: {value!r} is not a size MariaDB reads; write a number with K, M, G or T (4G)")
    return errors


def accounting_dbd_errors(dbd: Sequence[str], galera: Sequence[str]) -> list[str]:
    """Two or more slurmdbd hosts (group dbd) without a Galera cluster (group galera): each would write to a
    database of its own."""
    return galera_rules.standalone_dbd_errors(list(dbd or ()), list(galera or ()))


def accounting_accounts_in_order(accounts: Mapping[str, Any]) -> list[dict[str, Any]]:
    """accounting_accounts as dict2items, each account after its parent (sacctmgr adds a child under its parent)."""
    return [{"key": name, "value": account} for name, account in associations.accounts_in_order(accounts or {})]


def accounting_users_with_operators(users: Mapping[str, Any], operators: Sequence[Any]) -> dict[str, Any]:
    """accounting_users, plus an association in the root account for each operator account the inventory does not
    list itself: with AccountingStorageEnforce=associations a user without one cannot run a job, a step or a
    reservation - the slurm user and root included (Slurm's own test suite runs as such accounts)."""
    found: dict[str, Any] = dict(users or {})
    for name in operators or ():
        found.setdefault(str(name), {"account": "root"})
    return found


def _dbd_conf_lines(read: Any) -> str:
    """The StorageLoc, Purge and Archive lines of slurmdbd.conf from the registered grep of the accounting role's
    state_db (rc 1: a file without them, read as a comment so that slurmdbd's defaults apply; rc 2, or not run: no
    file)."""
    code = read.get("rc") if isinstance(read, Mapping) and "cmd" in read else None
    return str(read.get("stdout") or "") if code == 0 else "# (none of the keys read)" if code == 1 else ""


def accounting_running_db(read: Any) -> str:
    """The database the host's slurmdbd writes to: StorageLoc of its slurmdbd.conf (slurmdbd's default where unset);
    "" where there is no slurmdbd.conf yet. ``read``: the registered grep of its StorageLoc lines."""
    return storage_loc(_dbd_conf_lines(read))


def accounting_purge_loss_error(read: Any, host: str, purge: Any, database: str, confirm: Any = "") -> str:
    """The refusal of a run that would have the running slurmdbd purge records it keeps now, without archiving them
    (module_utils/live_state.purge_loss_error); ``read``: the registered grep of slurmdbd.conf's StorageLoc, Purge
    and Archive lines; ``purge``: accounting_purge; ``confirm``: accounting_purge_confirm."""
    wanted = {str(key): value for key, value in purge.items()} if isinstance(purge, Mapping) else {}
    return purge_loss_error(str(host), _dbd_conf_lines(read), wanted, str(database), str(confirm or ""))


def accounting_db_move_error(slurped: Any, host: str, wanted: str, counted: Any) -> str:
    """The refusal of a run that would restart slurmdbd on an empty database of another name than the one it writes
    to (accounting_db_name changed); "" when the names agree, there is no slurmdbd.conf yet, the old database holds no
    table or the new one holds tables already. ``slurped``: the registered grep of slurmdbd.conf's StorageLoc lines
    (accounting_running_db); ``counted``: the registered result of community.mysql.mysql_query counting the tables
    of both databases (rows of ``table_schema`` and ``n``; a failed query means MariaDB could not be asked)."""
    tables: dict[str, int] | None = None
    if isinstance(counted, Mapping) and not counted.get("failed"):
        results = counted.get("query_result") or [[]]
        rows = results[0] if isinstance(results, list) and results and isinstance(results[0], list) else []
        tables = {str(row.get("table_schema")): int(row.get("n") or 0) for row in rows if isinstance(row, Mapping)}
    return database_move_error(str(host), _dbd_conf_lines(slurped), str(wanted or ""), tables)


def accounting_lost_clusters_error(queried: Any, held: Any, host: str, database: str, confirm: Any = "") -> str:
    """The refusal of a run that would start slurmdbd on a database without the clusters the controllers' state
    holds (a re-installed database host, a dropped database; slurmctld would stop at its next start, CLUSTER ID
    MISMATCH); "" where nothing is missing, MariaDB could not be asked, or ``confirm`` (accounting_db_empty_confirm)
    names each missing cluster. ``queried``: the registered mysql_query of the database's cluster_table; ``held``:
    the ClusterNames of the controllers' StateSaveLocation (slurm_held_clusters)."""
    names = [str(name) for name in held] if isinstance(held, list) else []
    return lost_clusters_error(str(host), str(database), names, db_clusters(queried), str(confirm or ""))


class FilterModule:
    """gpucluster.cluster accounting filters."""

    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "accounting_lost_clusters_error": accounting_lost_clusters_error,
            "qos_settings": qos_settings,
            "qos_in_order": qos_in_order,
            "account_settings": account_settings,
            "user_settings": user_settings,
            "accounting_errors": accounting_errors,
            "accounting_dbd_errors": accounting_dbd_errors,
            "accounting_settings_errors": accounting_settings_errors,
            "accounting_accounts_in_order": accounting_accounts_in_order,
            "accounting_coordinators": accounting_coordinators,
            "accounting_users_with_operators": accounting_users_with_operators,
            "accounting_running_db": accounting_running_db,
            "accounting_purge_loss_error": accounting_purge_loss_error,
            "accounting_db_move_error": accounting_db_move_error,
        }
