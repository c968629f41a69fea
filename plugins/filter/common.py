"""Filters of the common role: its tier-1 check."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def _whole(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = str(value).strip()
    return int(text) if text.isdigit() else None


def common_settings_errors(uids: Mapping[str, Any], tls_days: Any, tls_renew_days: Any) -> list[str]:
    """What the common role could not do, by variable: a service user's uid (``uids``: variable -> uid) that is not
    a whole number above 0 or that another service user has too (one account would own the other's files, the MUNGE
    key among them); a certificate lifetime that is not a whole number of days, or that leaves no time before its
    renewal (every run would sign a new certificate and restart the services that use it)."""
    errors: list[str] = []
    seen: dict[int, str] = {}
    for name, value in uids.items():
        uid = _whole(value)
        if uid is None or not 0 < uid < 4294967295:
            errors.append(f"{name}: {value!r} is not a uid; give a whole number above 0 (Debian's slurm is 64030)")
        elif uid in seen:
            errors.append(f"{name}: {uid} is {seen[uid]} too; each service user needs its own uid and gid")
        else:
            seen[uid] = name
    days, renew = _whole(tls_days), _whole(tls_renew_days)
    if days is None or days < 1:
        errors.append(f"common_tls_days: {tls_days!r} is not a number of days a certificate lasts (825 by default)")
    elif renew is None or renew >= days:
        errors.append(
            f"common_tls_renew_days: {tls_renew_days!r} is not a number of days below common_tls_days ({days}); "
            "a certificate is renewed that many days before it ends, so every run would sign a new one"
        )
    return errors


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {"common_settings_errors": common_settings_errors}
