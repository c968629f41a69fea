"""Filters that turn the inventory's QOS, accounts and users into sacctmgr settings."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any


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
    settings.update(qos.get("limits") or {})
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
    """accounting_accounts.<name> -> sacctmgr account settings."""
    keys = {
        "description": "Description",
        "organization": "Organization",
        "parent": "Parent",
        "qos": "QOS",
        "default_qos": "DefaultQOS",
        "fairshare": "Fairshare",
    }
    return {keys[k]: v for k, v in account.items() if k in keys and v not in (None, "", [])}


def user_settings(user: Mapping[str, Any]) -> dict[str, Any]:
    """accounting_users.<name> -> sacctmgr user settings."""
    settings: dict[str, Any] = {"DefaultAccount": user["account"]}
    if user.get("accounts"):
        settings["Accounts"] = list(user["accounts"])
    if user.get("qos"):
        settings["QOS"] = list(user["qos"])
    return settings


def accounting_users_with_operators(users: Mapping[str, Any], operators: Sequence[Any]) -> dict[str, Any]:
    """accounting_users, plus an association in the root account for each operator account the inventory does not
    list itself: with AccountingStorageEnforce=associations a user without one cannot run a job, a step or a
    reservation - the slurm user and root included (Slurm's own test suite runs as such accounts)."""
    found: dict[str, Any] = dict(users or {})
    for name in operators or ():
        found.setdefault(str(name), {"account": "root"})
    return found


class FilterModule:
    """gpucluster.cluster accounting filters."""

    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "qos_settings": qos_settings,
            "qos_in_order": qos_in_order,
            "account_settings": account_settings,
            "user_settings": user_settings,
            "accounting_users_with_operators": accounting_users_with_operators,
        }
