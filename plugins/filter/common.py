"""Filters of the common role: its tier-1 check."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.live_state import (
    command_stdout,
    moved_account_error,
    moved_account_ids,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.values import whole_in_range


def common_settings_errors(uids: Mapping[str, Any], tls_days: Any, tls_renew_days: Any) -> list[str]:
    """What the common role could not do, by variable: a service user's uid (``uids``: variable -> uid) that is not
    a whole number above 0 or that another service user has too (one account would own the other's files, the MUNGE
    key among them); a certificate lifetime that is not a whole number of days, or that leaves no time before its
    renewal (every run would sign a new certificate and restart the services that use it)."""
    errors: list[str] = []
    seen: dict[int, str] = {}
    for name, value in uids.items():
        text = _text(value)
        if not whole_in_range(text, 1, 4294967294):
            errors.append(f"{name}: {value!r} is not a uid; give a whole number above 0 (Debian's slurm is 64030)")
        elif int(text) in seen:
            errors.append(f"{name}: {text} is {seen[int(text)]} too; each service user needs its own uid and gid")
        else:
            seen[int(text)] = name
    days = _text(tls_days)
    if not whole_in_range(days, 1):
        errors.append(f"common_tls_days: {tls_days!r} is not a number of days a certificate lasts (825 by default)")
    elif not whole_in_range(_text(tls_renew_days), 0, int(days) - 1):
        errors.append(
            f"common_tls_renew_days: {tls_renew_days!r} is not a number of days below common_tls_days ({int(days)}); "
            "a certificate is renewed that many days before it ends, so every run would sign a new one"
        )
    return errors


def _text(value: Any) -> Any:
    """A number as the inventory gives it, or its text without surrounding blanks (-e passes text)."""
    return value if isinstance(value, (bool, int)) else str(value).strip()


def common_moved_account_error(listed: Any, host: str, uids: Mapping[str, Any]) -> str:
    """The refusal of a run that would give the slurm or munge account another id while its daemons run on ``host``;
    "" where the ids agree, the accounts do not exist yet or none of their processes runs. ``listed``: the registered
    result of the role's account listing (getent, pgrep); ``uids``: account -> (the variable, the id it gives)."""
    wanted = {str(account): (str(pair[0]), int(_text(pair[1]))) for account, pair in uids.items()}
    return moved_account_error(str(host), command_stdout(listed), wanted)


def common_moved_account_ids(listed: Any, uids: Mapping[str, Any], state_save_location: Any) -> list[dict[str, Any]]:
    """The ids the run moves (an account or group of another id than ``uids`` gives it), each with the directories
    whose files of the old id take the new one; ``listed`` and ``uids`` as common_moved_account_error's."""
    wanted = {str(account): (str(pair[0]), int(_text(pair[1]))) for account, pair in uids.items()}
    return moved_account_ids(command_stdout(listed), wanted, str(state_save_location or ""))


def positive_settings_errors(settings: Mapping[str, Any], unit: str = "seconds") -> list[str]:
    """Timeouts and counts (``settings``: variable -> value) that must be whole numbers of 1 or more: 0 or less makes
    a wait give up at once (a drain that never waits for a job, a gate that fails the healthy), a word stops the task
    mid-run."""
    return [
        f"{name}: {value!r} is not a whole number of {unit} of 1 or more; a wait of 0 gives up at once"
        for name, value in settings.items()
        if not whole_in_range(value, 1)
    ]


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "common_settings_errors": common_settings_errors,
            "positive_settings_errors": positive_settings_errors,
            "common_moved_account_error": common_moved_account_error,
            "common_moved_account_ids": common_moved_account_ids,
        }
