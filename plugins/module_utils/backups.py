"""Backups on a timer (the accounting database's dumps, StateSaveLocation's archives): their settings, checked before
any host is touched, and which backup a restore takes: the newest archive of a controller pair, or the one the
operator named."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .mount_points import within
from .values import whole_in_range

# systemd's shorthands for OnCalendar=
CALENDAR_WORDS = ("minutely", "hourly", "daily", "weekly", "monthly", "yearly", "annually", "quarterly", "semiannually")
_WEEKDAYS = r"(mon|tue|wed|thu|fri|sat|sun)[a-z]*"
_WEEKDAY_SPEC = re.compile(rf"^{_WEEKDAYS}([,.]{{1,2}}{_WEEKDAYS})*$", re.IGNORECASE)
_DATE_OR_TIME = re.compile(r"^[0-9*][0-9*,./~:-]*$")
_TIMEZONE = re.compile(r"^[A-Za-z][A-Za-z0-9_+/-]*$")


def calendar_error(spec: str) -> str:
    """Why systemd would not read ``spec`` as an OnCalendar= expression ('' when it looks like one): a shorthand
    (daily), or [weekdays] [date] [time] [timezone] (Mon..Fri *-*-* 02:00:00 UTC). A timer it cannot read never
    fires: no backup is made, and nothing says so."""
    text = spec.strip()
    if text.lower() in CALENDAR_WORDS:
        return ""
    tokens = text.split()
    if tokens and _WEEKDAY_SPEC.match(tokens[0]):
        tokens = tokens[1:]
    if len(tokens) > 1 and _TIMEZONE.match(tokens[-1]) and not _DATE_OR_TIME.match(tokens[-1]):
        tokens = tokens[:-1]
    if 1 <= len(tokens) <= 2 and all(_DATE_OR_TIME.match(token) for token in tokens):
        return ""
    return (
        f"{spec!r} is not a systemd calendar expression; write one of {', '.join(CALENDAR_WORDS[:5])} or "
        "[weekdays] [date] time, e.g. '*-*-* 02:30:00' or 'Mon..Fri 03:00'"
    )


# Directories the system empties, and how (Debian's tmpfiles.d: /tmp emptied at boot, /var/tmp of files older than 30
# days; /run and /dev/shm are memory).
VOLATILE_DIRS = {
    "/tmp": "emptied at every boot",
    "/var/tmp": "rid of files older than 30 days by systemd-tmpfiles",
    "/run": "memory, gone at every reboot",
    "/dev/shm": "memory, gone at every reboot",
}


def settings_errors(
    calendar: tuple[str, Any], directory: tuple[str, Any], keep: tuple[str, Any], kept_from: Mapping[str, Any] = {}
) -> list[str]:
    """A backup timer's settings, each (variable, value): a calendar systemd reads, an absolute directory and a
    number of backups to keep of at least 1 (0 would delete each backup as soon as it is made). ``kept_from``: what
    the backups are of -> its directory, which the backup directory may not be in (a state restore empties
    StateSaveLocation, a Galera state transfer replaces the MariaDB data directory: the backups would go with it)."""
    errors = []
    if problem := calendar_error(str(calendar[1])):
        errors.append(f"{calendar[0]}: {problem}")
    if not re.fullmatch(r"/[^\s]*", str(directory[1])):
        errors.append(f"{directory[0]}: {directory[1]!r} is not an absolute path")
    path = str(directory[1]).rstrip("/")
    volatile = next((top for top in VOLATILE_DIRS if within(path, top)), "")
    if volatile:
        errors.append(
            f"{directory[0]}: {directory[1]} is in {volatile}, which the system empties ({VOLATILE_DIRS[volatile]}); "
            "the backups would be gone when they are needed - keep them on the host's persistent disk (the default "
            "is under /var/backups)"
        )
    for what, source in kept_from.items():
        inside = str(source or "").rstrip("/")
        if inside and within(path, inside):
            errors.append(
                f"{directory[0]}: {directory[1]} is inside {what} ({source}), which the backups are of; a restore or "
                "state transfer that replaces it would take the backups with it - keep them beside it (the default)"
            )
    count = keep[1]
    if not whole_in_range(count, 1):
        errors.append(
            f"{keep[0]}: {count!r} is not a number of backups to keep of 1 or more; 0 would delete each one as soon "
            "as it is made"
        )
    return errors


def newest_archive(found: Mapping[str, Sequence[Mapping[str, Any]]], named: str = "") -> dict[str, str]:
    """``found``: controller -> the archives `find` listed there (path, mtime). The archive to restore and the
    controller that holds it - the one named (``named``, a path on one of them) or the newest of them all - or
    an error saying what is missing."""
    candidates = [
        (float(archive.get("mtime") or 0), host, str(archive.get("path") or ""))
        for host, archives in found.items()
        for archive in archives or ()
    ]
    if named:
        holders = sorted(host for _, host, path in candidates if path == named)
        if not holders:
            return {"error": f"no archive {named} on {' or '.join(sorted(found))}"}
        return {"host": holders[0], "path": named}
    if not candidates:
        return {"error": f"no archive of StateSaveLocation on {' or '.join(sorted(found))}"}
    _, host, path = max(candidates)
    return {"host": host, "path": path}
