"""sacctmgr plumbing for the sacctmgr module: read an entity, diff wanted settings, build commands.

Kept free of AnsibleModule so that the parsing and diffing are unit-tested without Slurm.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .values import names

# sacctmgr `set` keys whose `show ... format=` column has another name.
SHOW_COLUMN = {
    "maxtresperuser": "MaxTRESPU",
    "maxjobsperuser": "MaxJobsPU",
    "maxsubmitjobsperuser": "MaxSubmitPU",
    "maxtresperjob": "MaxTRES",
    "maxtrespernode": "MaxTRESPerNode",
    "description": "Descr",
    "organization": "Org",
    "defaultqos": "DefaultQOS",
    "defaultaccount": "DefaultAccount",
}
# Limits of an association (an account's, or a user's in an account and partition).
LIMIT_KEYS = frozenset(
    {"grptres", "grptresmins", "grpjobs", "grpsubmitjobs", "maxjobs", "maxsubmitjobs", "maxtresperjob"}
)
# Settings of an account that live on its association, not on the account record.
ASSOCIATION_KEYS = frozenset({"parent", "qos", "defaultqos", "fairshare", *LIMIT_KEYS})
Runner = Callable[[Sequence[str]], str]


def column(key: str) -> str:
    return SHOW_COLUMN.get(key.lower(), key)


def normalise(value: object) -> str:
    """Compare values as sacctmgr prints them: lists sorted and comma-joined, case kept for names."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ",".join(sorted(str(v) for v in value))
    text = str(value).strip()
    if "," in text:
        return ",".join(sorted(part.strip() for part in text.split(",") if part.strip()))
    return text


def parse_rows(output: str, columns: Sequence[str]) -> list[dict[str, str]]:
    """Rows of `sacctmgr --noheader --parsable2` output as dicts keyed by the requested columns."""
    rows = []
    for line in output.splitlines():
        if not line.strip():
            continue
        values = line.split("|")
        # `show federation` ends every member row after the first with a stray '|' (Slurm 24.11): an empty
        # field past the requested columns carries nothing.
        while len(values) > len(columns) and values[-1] == "":
            values.pop()
        rows.append(dict(zip(columns, values + [""] * (len(columns) - len(values)), strict=True)))
    return rows


def cleared(value: str) -> str:
    """A limit as it reads once set: -1 clears a count, `name=-1` one TRES of a TRES limit."""
    if value == "-1":
        return ""
    return ",".join(part for part in value.split(",") if not part.endswith("=-1"))


def differences(current: Mapping[str, str], wanted: Mapping[str, object]) -> dict[str, str]:
    """Settings whose current value differs from the wanted one (wanted values normalised)."""
    changed = {}
    for key, value in wanted.items():
        want = normalise(value)
        have = normalise(current.get(column(key), ""))
        if key.lower() in LIMIT_KEYS and cleared(want) == have:
            continue
        if key.lower() == "flags":
            want, have = want.lower(), have.lower()
        if want != have:
            changed[key] = want
    return changed


def set_args(settings: Mapping[str, object]) -> list[str]:
    return [f"{key}={normalise(value)}" for key, value in settings.items()]


def show(run: Runner, entity: str, where: Mapping[str, str], columns: Sequence[str]) -> list[dict[str, str]]:
    conditions = [f"{key}={value}" for key, value in where.items()]
    output = run(["--noheader", "--parsable2", "show", entity, "where", *conditions, f"format={','.join(columns)}"])
    return parse_rows(output, columns)


def plan_qos(run: Runner, name: str, settings: Mapping[str, object]) -> list[list[str]]:
    columns = ["Name", *[column(key) for key in settings]]
    rows = show(run, "qos", {"name": name}, columns)
    if not rows:
        return [["add", "qos", name, *set_args(settings)]]
    diff = differences(rows[0], settings)
    return [["modify", "qos", "where", f"name={name}", "set", *set_args(diff)]] if diff else []


def plan_cluster(run: Runner, name: str) -> list[list[str]]:
    rows = show(run, "cluster", {"name": name}, ["Cluster"])
    return [] if rows else [["add", "cluster", name]]


def plan_federation(run: Runner, name: str, settings: Mapping[str, object]) -> list[list[str]]:
    """A federation with exactly the clusters in settings["Clusters"] (each already added as a cluster):
    created with them, or members added and removed one by one."""
    raw = settings.get("Clusters") or []
    wanted = [str(c) for c in raw] if isinstance(raw, (list, tuple)) else [c for c in str(raw).split(",") if c]
    rows = show(run, "federation", {"name": name}, ["Federation", "Cluster"])
    if not rows:
        return [["add", "federation", name, *([f"clusters={','.join(wanted)}"] if wanted else [])]]
    have = {row["Cluster"] for row in rows if row.get("Cluster")}
    where = ["modify", "federation", "where", f"name={name}", "set"]
    commands = [[*where, f"clusters+={cluster}"] for cluster in wanted if cluster not in have]
    commands += [[*where, f"clusters-={cluster}"] for cluster in sorted(have - set(wanted))]
    return commands


def plan_coordinators(run: Runner, account: str, wanted: Sequence[str], exists: bool) -> list[list[str]]:
    """The account's coordinators exactly ``wanted``: added and removed one command each."""
    have: set[str] = set()
    if exists:
        output = run(
            [
                "--noheader",
                "--parsable2",
                "show",
                "account",
                "where",
                f"name={account}",
                "withcoord",
                "format=Account,Coordinators",
            ]
        )
        rows = parse_rows(output, ["Account", "Coordinators"])
        have = {user for row in rows for user in names(row.get("Coordinators"))}
    commands = []
    added = sorted(set(wanted) - have)
    removed = sorted(have - set(wanted))
    if added:
        commands.append(["add", "coordinator", f"account={account}", f"names={','.join(added)}"])
    if removed:
        commands.append(["remove", "coordinator", f"account={account}", f"names={','.join(removed)}"])
    return commands


def plan_account(run: Runner, name: str, cluster: str, settings: Mapping[str, object]) -> list[list[str]]:
    coordinators = settings.get("Coordinators")
    settings = {k: v for k, v in settings.items() if k != "Coordinators"}
    commands = _plan_account(run, name, cluster, settings)
    if coordinators is not None:
        commands += plan_coordinators(run, name, names(coordinators), exists=not commands or commands[0][0] != "add")
    return commands


def _plan_account(run: Runner, name: str, cluster: str, settings: Mapping[str, object]) -> list[list[str]]:
    record = {k: v for k, v in settings.items() if k.lower() not in ASSOCIATION_KEYS}
    association = {k: v for k, v in settings.items() if k.lower() in ASSOCIATION_KEYS}
    rows = show(run, "account", {"name": name}, ["Account", *[column(k) for k in record]])
    # Account first: an empty User column alone would print an empty line.
    assoc_columns = ["Account", "User", *[("ParentName" if k.lower() == "parent" else column(k)) for k in association]]
    assocs = [
        r for r in show(run, "association", {"account": name, "cluster": cluster}, assoc_columns) if not r.get("User")
    ]
    if not rows or not assocs:
        return [["add", "account", name, f"cluster={cluster}", *set_args(settings)]]
    commands = []
    record_diff = differences(rows[0], record)
    if record_diff:
        commands.append(["modify", "account", "where", f"name={name}", "set", *set_args(record_diff)])
    current = {("Parent" if k == "ParentName" else k): v for k, v in assocs[0].items()}
    assoc_diff = differences(current, association)
    if assoc_diff:
        commands.append(
            ["modify", "account", "where", f"name={name}", f"cluster={cluster}", "set", *set_args(assoc_diff)]
        )
    return commands


def plan_user(run: Runner, name: str, cluster: str, settings: Mapping[str, object]) -> list[list[str]]:
    """The user's associations: one per account, or per account and partition where Partitions is given (the
    associations in other partitions of those accounts, and the one without a partition, are removed), each with
    the QOS and limits wanted; the default account."""
    default_account = str(settings.get("DefaultAccount", ""))
    accounts = names(settings.get("Accounts"))
    if default_account and default_account not in accounts:
        accounts.insert(0, default_account)
    qos = settings.get("QOS")
    partitions = names(settings.get("Partitions")) or [""]
    limits = {k: v for k, v in settings.items() if k.lower() in LIMIT_KEYS}
    limit_columns = [column(k) for k in limits]
    assocs = show(
        run, "association", {"user": name, "cluster": cluster}, ["Account", "Partition", "QOS", *limit_columns]
    )
    have = {(row["Account"], row["Partition"]): row for row in assocs}
    commands = []
    for account in accounts:
        for partition in partitions:
            where = [f"account={account}", *([f"partition={partition}"] if partition else []), f"cluster={cluster}"]
            wanted = {**({"QOS": qos} if qos else {}), **limits}
            if (account, partition) not in have:
                commands.append(["add", "user", name, *where, *set_args(wanted)])
                continue
            diff = differences(have[account, partition], wanted)
            if diff:
                commands.append(["modify", "user", "where", f"name={name}", *where, "set", *set_args(diff)])
        for account_, partition in sorted(have):
            if account_ == account and partition not in partitions:
                commands.append(
                    [
                        "remove",
                        "user",
                        "where",
                        f"name={name}",
                        f"account={account}",
                        f"partition={partition}",
                        f"cluster={cluster}",
                    ]
                )
    if default_account:
        rows = show(run, "user", {"name": name}, ["User", "DefaultAccount"])
        if rows and rows[0]["DefaultAccount"] != default_account:
            commands.append(["modify", "user", "where", f"name={name}", "set", f"DefaultAccount={default_account}"])
    return commands
