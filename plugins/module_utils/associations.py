"""Accounts, users and their limits (accounting_accounts, accounting_users): checked before any host is touched,
and turned into sacctmgr settings.

An account tree: each account's parent is root or another account of the inventory. Limits live on the
association (account, or user in an account, per partition where the user names partitions):
- group limits, for the account's (or the user's) jobs together: grp_tres (e.g. {gres/gpu: 16}), grp_tres_mins
  (GPU-minutes and the like, which decay with PriorityDecayHalfLife), grp_jobs, grp_submit_jobs;
- per-job and per-user limits: max_tres_per_job, max_jobs, max_submit_jobs (an account's Max* are inherited by
  its users' associations unless a user sets their own).
A per-user limit across all of a user's jobs in a QOS is the QOS's (cluster_qos: MaxTRESPerUser). A limit given
as -1 clears one set before; a limit left out of the inventory is left as it is.
Coordinators of an account (users of the inventory) may hold, release, modify and cancel its members' jobs.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# inventory key -> sacctmgr setting, for the limits of an association
LIMITS = {
    "grp_tres": "GrpTRES",
    "grp_tres_mins": "GrpTRESMins",
    "grp_jobs": "GrpJobs",
    "grp_submit_jobs": "GrpSubmitJobs",
    "max_jobs": "MaxJobs",
    "max_submit_jobs": "MaxSubmitJobs",
    "max_tres_per_job": "MaxTRESPerJob",
}
TRES_LIMITS = frozenset({"grp_tres", "grp_tres_mins", "max_tres_per_job"})
ACCOUNT_FIELDS = {
    "description": "Description",
    "organization": "Organization",
    "parent": "Parent",
    "qos": "QOS",
    "default_qos": "DefaultQOS",
    "fairshare": "Fairshare",
}
ACCOUNT_KEYS = frozenset({*ACCOUNT_FIELDS, *LIMITS, "coordinators"})
USER_KEYS = frozenset({"account", "accounts", "qos", "partitions", *LIMITS})
TRES_NAME = re.compile(r"^(cpu|mem|node|billing|energy|fs/disk|vmem|pages|gres/[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)?)$")
# The TRES every cluster tracks; AccountingStorageTRES adds to them (tracked_tres).
BUILTIN_TRES = ("cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages")
ACCOUNT_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
# A login name as sacctmgr takes it on its command line (directory users too: bob@ad.example.org); a space, comma,
# quote or '=' would split it into other words.
USER_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.@$-]*$")


# sacctmgr's QOS limits (its `set` options, any case) that cluster_qos.<name>.limits gives: each name as sacctmgr's
# manual writes it (the refusal of an unknown one lists these), the kind of value it takes and the short forms
# sacctmgr takes as well.
QOS_LIMIT_OPTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "GraceTime": ("count", ()),
    "GrpJobs": ("count", ()),
    "GrpJobsAccrue": ("count", ()),
    "GrpSubmitJobs": ("count", ("GrpSubmit",)),
    "GrpTRES": ("tres", ()),
    "GrpTRESMins": ("tres", ()),
    "GrpTRESRunMins": ("tres", ()),
    "GrpWall": ("time", ()),
    "LimitFactor": ("number", ()),
    "MaxJobsAccruePerAccount": ("count", ("MaxJobsAccruePA",)),
    "MaxJobsAccruePerUser": ("count", ("MaxJobsAccruePU",)),
    "MaxJobsPerAccount": ("count", ("MaxJobsPA",)),
    "MaxJobsPerUser": ("count", ("MaxJobsPU",)),
    "MaxSubmitJobsPerAccount": ("count", ("MaxSubmitJobsPA", "MaxSubmitPA")),
    "MaxSubmitJobsPerUser": ("count", ("MaxSubmitJobsPU", "MaxSubmitPU")),
    "MaxTRESMinsPerJob": ("tres", ("MaxTRESMins", "MaxTRESMinsPJ")),
    "MaxTRESPerAccount": ("tres", ("MaxTRESPA",)),
    "MaxTRESPerJob": ("tres", ("MaxTRES", "MaxTRESPJ")),
    "MaxTRESPerNode": ("tres", ("MaxTRESPN",)),
    "MaxTRESPerUser": ("tres", ("MaxTRESPU",)),
    "MaxTRESRunMinsPerAccount": ("tres", ("MaxTRESRunMinsPA",)),
    "MaxTRESRunMinsPerUser": ("tres", ("MaxTRESRunMinsPU",)),
    "MinPrioThreshold": ("count", ()),
    "MinTRESPerJob": ("tres", ("MinTRES",)),
    "PreemptExemptTime": ("time", ()),
    "UsageFactor": ("number", ()),
    "UsageThreshold": ("number", ()),
    "Description": ("text", ()),
}
# every name sacctmgr takes, any case -> the kind of value
QOS_LIMITS = {
    name.lower(): kind for canonical, (kind, short) in QOS_LIMIT_OPTIONS.items() for name in (canonical, *short)
}
# sacctmgr QOS settings that cluster_qos.<name> has keys of its own for
QOS_OWN_KEYS = {
    "priority": "priority",
    "preempt": "preempt",
    "preemptmode": "preempt_mode",
    "maxwall": "max_wall",
    "maxwalldurationperjob": "max_wall",
    "flags": "flags",
}
_SLURM_TIME = re.compile(r"^(-1|unlimited|infinite|\d+(-\d+)?(:\d+){0,2})$", re.IGNORECASE)


def qos_limit_errors(where: str, limits: Iterable[tuple[str, Any]], tracked: Sequence[str]) -> list[str]:
    """What is wrong with a QOS's verbatim sacctmgr limits (cluster_qos.<name>.limits): an option sacctmgr does not
    have (it stops the QOS task, after the hosts were set up), one with a key of its own, a value of the wrong kind,
    a TRES the cluster does not track."""
    errors: list[str] = []
    for key, value in limits:
        kind = QOS_LIMITS.get(str(key).lower())
        own = QOS_OWN_KEYS.get(str(key).lower())
        text = str(value).strip()
        if own:
            errors.append(f"{where}: give {key} as {where.removesuffix('.limits')}.{own}, not among the limits")
        elif kind is None:
            names = [name for canonical, (_, short) in QOS_LIMIT_OPTIONS.items() for name in (canonical, *short)]
            close = difflib.get_close_matches(str(key), names, n=1, cutoff=0.75)
            errors.append(
                f"{where}: {key} is not a QOS limit of sacctmgr"
                + (f" - did you mean {close[0]}?" if close else f"; use one of {', '.join(QOS_LIMIT_OPTIONS)}")
            )
        elif kind == "tres":
            errors += tres_errors(where, str(key), text, tracked)
        elif kind == "count" and not re.fullmatch(r"-1|\d+", text):
            errors.append(f"{where}: {key} {text!r} is not a count; give a whole number (-1 clears it)")
        elif kind == "time" and not _SLURM_TIME.match(text):
            errors.append(f"{where}: {key} {text!r} is not a Slurm time (minutes, [days-]hours:minutes:seconds)")
        elif kind == "number" and not re.fullmatch(r"-1|\d+(\.\d+)?", text):
            errors.append(f"{where}: {key} {text!r} is not a number")
    return errors


def tracked_tres(gpus: bool, extra: Iterable[str]) -> tuple[str, ...]:
    """AccountingStorageTRES: gres/gpu where the cluster has GPU nodes, then cluster_accounting.tres. A limit or a
    priority weight on a TRES outside these, BUILTIN_TRES and GPU_USAGE_TRES is never enforced: sacctmgr refuses a
    TRES its database does not know, and slurmctld stops at start on a PriorityWeightTRES it does not track."""
    return tuple(dict.fromkeys([*(["gres/gpu"] if gpus else []), *(str(name) for name in extra)]))


# What slurmctld tracks with gres/gpu by itself from the release with the feature gpu_usage_tres on.
GPU_USAGE_TRES = ("gres/gpumem", "gres/gpuutil")


def known_tres(gpus: bool, extra: Iterable[str], gpu_usage: bool) -> tuple[str, ...]:
    """The TRES a limit or a priority weight may name, beside BUILTIN_TRES: tracked_tres, and GPU_USAGE_TRES where
    gres/gpu is tracked and the release adds them (releases.FEATURES gpu_usage_tres)."""
    tracked = tracked_tres(gpus, extra)
    usage = GPU_USAGE_TRES if gpu_usage and any(name.lower() == "gres/gpu" for name in tracked) else ()
    return tuple(dict.fromkeys((*tracked, *usage)))


def untracked(name: str, tracked: Iterable[str]) -> bool:
    """Whether TRES ``name`` (any case: Slurm compares them so) is neither built in nor tracked."""
    return name.lower() not in {tres.lower() for tres in (*BUILTIN_TRES, *tracked)}


def untracked_hint(tracked: Sequence[str]) -> str:
    """What the refusal of an untracked TRES says: which are tracked and how to track another."""
    listed = ", ".join((*BUILTIN_TRES, *tracked))
    return f"TRES tracked here: {listed}; track another by adding it to cluster_accounting.tres"


def tres_text(value: Any) -> str:
    """A TRES limit as sacctmgr takes it: {gres/gpu: 16, cpu: 512} or "cpu=512,gres/gpu=16" -> sorted text."""
    if isinstance(value, Mapping):
        parts = [f"{name}={amount}" for name, amount in value.items()]
    else:
        parts = [part.strip() for part in str(value).split(",") if part.strip()]
    return ",".join(sorted(parts))


def _count_error(where: str, key: str, value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < -1:
        return f"{where}: {key} {value!r} is not a count; give a whole number (0 or more; -1 clears the limit)"
    return None


def tres_errors(where: str, key: str, value: Any, tracked: Sequence[str] | None = None) -> list[str]:
    """What is wrong with a TRES limit (``{gres/gpu: 16}`` or ``"cpu=512,gres/gpu=16"``): a name that is no TRES, an
    amount that is no whole number and, given the TRES the cluster tracks, a TRES it does not track."""
    errors = []
    parts = (
        [(str(name), amount) for name, amount in value.items()]
        if isinstance(value, Mapping)
        else [tuple(part.strip().partition("=")[::2]) for part in str(value).split(",") if part.strip()]
    )
    if not parts:
        return [f"{where}: {key} is empty; give TRES and amounts, e.g. {{gres/gpu: 16}}"]
    for name, amount in parts:
        if not TRES_NAME.match(str(name)):
            errors.append(
                f"{where}: {key} names {name!r}, which is not a TRES (cpu, mem, node, billing, gres/gpu, "
                "gres/gpu:<type>...)"
            )
        elif not re.fullmatch(r"-1|\d+[KMGT]?", str(amount).strip()):
            errors.append(f"{where}: {key} gives {name} {amount!r}; give a whole number (-1 clears it)")
        elif tracked is not None and untracked(str(name), tracked):
            errors.append(
                f"{where}: {key} limits {name}, which this cluster does not track (sacctmgr refuses it, and a limit "
                f"on an untracked TRES is never enforced); {untracked_hint(tracked)}"
            )
    return errors


def _limit_errors(where: str, settings: Mapping[str, Any], tracked: Sequence[str] | None) -> list[str]:
    errors: list[str] = []
    for key in LIMITS:
        if key not in settings or settings[key] is None:
            continue
        if key in TRES_LIMITS:
            errors += tres_errors(where, key, settings[key], tracked)
        else:
            error = _count_error(where, key, settings[key])
            errors += [error] if error else []
    return errors


def _names(value: Any) -> list[str]:
    if value in (None, ""):
        return []
    return [str(item) for item in value] if isinstance(value, (list, tuple)) else [str(value)]


def association_errors(
    accounts: Mapping[str, Any],
    users: Mapping[str, Any],
    qos: Iterable[str],
    partitions: Iterable[str],
    tracked: Sequence[str] | None = None,
) -> list[str]:
    """Everything wrong with accounting_accounts and accounting_users, each problem naming the account or user
    (given the TRES the cluster tracks, tracked_tres, also a limit on another)."""
    errors: list[str] = []
    if not isinstance(accounts, Mapping) or not isinstance(users, Mapping):
        return ["accounting_accounts and accounting_users are mappings: name -> settings"]
    known_qos, known_partitions = set(qos), set(partitions)
    for name, account in accounts.items():
        where = f"accounting_accounts.{name}"
        if not ACCOUNT_NAME.match(str(name)) or str(name) == "root":
            errors.append(f"{where}: {name!r} is not an account name (lower case, digits, '_', '.', '-'; not root)")
        if not isinstance(account, Mapping):
            errors.append(f"{where} is {account!r}; give a mapping of its settings ({{}} for none)")
            continue
        unknown = sorted(set(account) - ACCOUNT_KEYS)
        if unknown:
            errors.append(f"{where}: unknown setting {', '.join(unknown)}; known: {', '.join(sorted(ACCOUNT_KEYS))}")
        parent = str(account.get("parent") or "root")
        if parent != "root" and parent not in accounts:
            errors.append(f"{where}: parent {parent!r} is not an account of accounting_accounts (nor root)")
        errors += [
            f"{where}: QOS {item!r} is not in cluster_qos (nor normal)"
            for item in _names(account.get("qos")) + _names(account.get("default_qos"))
            if item not in known_qos
        ]
        errors += _limit_errors(where, account, tracked)
        errors += _fairshare_errors(where, account.get("fairshare"))
        errors += [
            f"{where}: coordinator {user!r} is not a user of accounting_users; add the user first"
            for user in _names(account.get("coordinators"))
            if user not in users
        ]
    errors += _cycle_errors(accounts)
    errors += _default_qos_errors(accounts, users)
    for name, user in users.items():
        where = f"accounting_users.{name}"
        if not USER_NAME.match(str(name)):
            errors.append(
                f"{where}: {name!r} is not a login name sacctmgr takes (letters, digits, '_', '.', '@', '$', '-'; no "
                "space, comma or quote)"
            )
        elif str(name) != str(name).lower():
            # the real sacctmgr of 22.05, 24.11 and 26.05: "add user Alice" adds alice (tests/integration/
            # test_qos_words_sacctmgr_takes.py)
            errors.append(
                f"{where}: slurmdbd keeps user names in lower case (without Parameters=PreserveCaseUser, which this "
                f"toolkit does not set): sacctmgr would add {str(name).lower()!r}, an association the login {name!r} "
                f"does not have. Write the login name as the hosts know it in lower case ({str(name).lower()!r})"
            )
        if not isinstance(user, Mapping) or not user.get("account"):
            errors.append(f"{where}: give its default account (account: <name>)")
            continue
        unknown = sorted(set(user) - USER_KEYS)
        if unknown:
            errors.append(f"{where}: unknown setting {', '.join(unknown)}; known: {', '.join(sorted(USER_KEYS))}")
        for account in [str(user["account"]), *_names(user.get("accounts"))]:
            if account != "root" and account not in accounts:
                errors.append(f"{where}: account {account!r} is not in accounting_accounts (nor root)")
        errors += [
            f"{where}: QOS {item!r} is not in cluster_qos (nor normal)"
            for item in _names(user.get("qos"))
            if item not in known_qos
        ]
        errors += [
            f"{where}: partition {item!r} is not in cluster_partitions"
            for item in _names(user.get("partitions"))
            if item not in known_partitions
        ]
        errors += _limit_errors(where, user, tracked)
    return errors


def allow_accounts_errors(accounts: Mapping[str, Any], allowed: Mapping[str, Sequence[str]]) -> list[str]:
    """A partition's AllowAccounts (``allowed``: partition -> accounts) names accounts of accounting_accounts, where
    the toolkit keeps them (an account slurmdbd does not have lets nobody submit there); with no accounts declared,
    the site keeps them itself and nothing is checked."""
    if not accounts:
        return []
    return [
        f"cluster_partitions[{partition}].allow_accounts: {name!r} is not in accounting_accounts (nor root); no one "
        "could submit through it - declare the account or fix the name"
        for partition, names in allowed.items()
        for name in names
        if name not in accounts and name != "root"
    ]


def _fairshare_errors(where: str, fairshare: Any) -> list[str]:
    """Fairshare as sacctmgr takes it: a whole number (-1 clears it) or the word parent ("Invalid value for
    FairShare" stopped the accounting role after the daemons were set up)."""
    if fairshare is None or str(fairshare).strip().lower() == "parent":
        return []
    if isinstance(fairshare, bool) or not re.fullmatch(r"-1|\d+", str(fairshare).strip()):
        return [f"{where}: fairshare {fairshare!r} is not a share; give a whole number (e.g. 100) or parent"]
    return []


def _inherited(accounts: Mapping[str, Any], name: str, key: str) -> tuple[list[str], str]:
    """An account's ``key`` (qos, default_qos) as its association gets it: its own, else its nearest ancestor's, else
    root's (QOS normal, as slurmdbd gives the root association of a cluster the toolkit adds; no default QOS), and
    where it comes from."""
    seen: set[str] = set()
    current = name
    while current in accounts and current not in seen:
        seen.add(current)
        account = accounts[current] if isinstance(accounts[current], Mapping) else {}
        if _names(account.get(key)):
            return _names(account.get(key)), current
        current = str(account.get("parent") or "root")
    return (["normal"] if key == "qos" else []), "root"


def _default_qos_errors(accounts: Mapping[str, Any], users: Mapping[str, Any]) -> list[str]:
    """An association's default QOS is one of its QOS, each as it inherits them. sacctmgr adds an account whose
    default is not, and then refuses every user under it ("This request would make it so some associations would
    not have access to their default qos", 24.11 and 26.05; 22.05 adds the user without the default): the accounting
    role would stop halfway through the users. Named where the two part: the account or user that sets either."""
    errors: list[str] = []

    def check(where: str, default: tuple[list[str], str], qos: tuple[list[str], str]) -> None:
        if not default[0] or any(item.startswith(("+", "-")) for item in qos[0]) or default[0][0] in qos[0]:
            return
        errors.append(
            f"{where}: its default QOS {default[0][0]!r} ({_origin(default[1], where)}) is not one of its QOS "
            f"({', '.join(qos[0])}: {_origin(qos[1], where)}); sacctmgr would refuse "
            f"{'the user' if where.startswith('accounting_users') else 'every user association under it'} "
            f'("would not have access to their default qos"). Add {default[0][0]} to its qos, or pick a default '
            "among them"
        )

    for name, account in accounts.items():
        if isinstance(account, Mapping) and (account.get("qos") or account.get("default_qos")):
            check(
                f"accounting_accounts.{name}",
                _inherited(accounts, str(name), "default_qos"),
                _inherited(accounts, str(name), "qos"),
            )
    for name, user in users.items():
        if isinstance(user, Mapping) and _names(user.get("qos")):
            for account in dict.fromkeys([str(user.get("account") or ""), *_names(user.get("accounts"))]):
                if account in accounts:
                    check(
                        f"accounting_users.{name} (account {account})",
                        _inherited(accounts, account, "default_qos"),
                        (_names(user["qos"]), "its own"),
                    )
    return errors


def _origin(source: str, where: str) -> str:
    if source in ("its own", where.removeprefix("accounting_accounts.")):
        return "its own"
    return "root's" if source == "root" else f"from account {source}"


def _cycle_errors(accounts: Mapping[str, Any]) -> list[str]:
    errors = []
    for name in accounts:
        seen, current = [str(name)], str(name)
        while True:
            account = accounts.get(current)
            parent = str(account.get("parent") or "root") if isinstance(account, Mapping) else "root"
            if parent == "root" or parent not in accounts:
                break
            if parent in seen:
                if parent == str(name):
                    errors.append(
                        f"accounting_accounts.{name}: its parents loop back to it ({' -> '.join([*seen, parent])}); "
                        "an account tree ends at root"
                    )
                break
            seen.append(parent)
            current = parent
    return errors


def accounts_in_order(accounts: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The accounts, each after its parent (sacctmgr adds a child only under an existing parent)."""
    done: list[tuple[str, Mapping[str, Any]]] = []
    placed: set[str] = set()
    pending = [(str(name), account if isinstance(account, Mapping) else {}) for name, account in accounts.items()]
    while pending:
        ready = [(n, a) for n, a in pending if str(a.get("parent") or "root") in placed | {"root"}]
        ready = ready or pending[:1]  # a loop (refused by the validation): keep going rather than spin
        for item in ready:
            done.append(item)
            placed.add(item[0])
        pending = [item for item in pending if item[0] not in placed]
    return done


def limit_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    return {
        LIMITS[key]: tres_text(value) if key in TRES_LIMITS else value
        for key, value in settings.items()
        if key in LIMITS and value is not None
    }


def account_settings(account: Mapping[str, Any]) -> dict[str, Any]:
    """accounting_accounts.<name> -> sacctmgr account settings (its coordinators apart: they are users, made
    after the accounts: account_coordinators)."""
    settings = {ACCOUNT_FIELDS[k]: v for k, v in account.items() if k in ACCOUNT_FIELDS and v not in (None, "", [])}
    settings.update(limit_settings(account))
    return settings


def account_coordinators(accounts: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """(account, its coordinators) for each account whose inventory entry has the key (an empty list removes
    them all; an account without the key keeps those it has)."""
    return [
        (str(name), _names(account.get("coordinators")))
        for name, account in accounts.items()
        if isinstance(account, Mapping) and "coordinators" in account
    ]


def user_settings(user: Mapping[str, Any]) -> dict[str, Any]:
    """accounting_users.<name> -> sacctmgr user settings."""
    settings: dict[str, Any] = {"DefaultAccount": user["account"]}
    if user.get("accounts"):
        settings["Accounts"] = list(user["accounts"])
    if user.get("qos"):
        settings["QOS"] = list(user["qos"])
    if user.get("partitions"):
        settings["Partitions"] = list(user["partitions"])
    settings.update(limit_settings(user))
    return settings


def qos_names(cluster_qos: Mapping[str, Any] | Sequence[Any] | None) -> list[str]:
    """The QOS an association may name: cluster_qos's and Slurm's own normal."""
    names = list(cluster_qos) if isinstance(cluster_qos, Mapping) else [str(q) for q in cluster_qos or ()]
    return ["normal", *names]
