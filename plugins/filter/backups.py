"""Filters of the backups on a timer (their settings) and of the restore playbook (which archive of StateSaveLocation
is put back)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.backups import newest_archive, settings_errors


def slurm_state_archive(found: Mapping[str, Any], named: Any = "") -> dict[str, str]:
    """controller -> its `find` result (files) -> {host, path} of the archive to restore, or {error}."""
    files = {
        str(host): list(result.get("files") or []) if isinstance(result, Mapping) else []
        for host, result in (found or {}).items()
    }
    return newest_archive(files, str(named or ""))


def backup_settings_errors(
    prefix: str, calendar: Any, directory: Any, keep: Any, kept_from: Mapping[str, Any] | None = None
) -> list[str]:
    """What is wrong with a backup timer's settings, named <prefix>_calendar, <prefix>_dir and <prefix>_keep: a
    calendar systemd cannot read (the timer never fires), a relative directory, fewer than 1 backup kept (each
    deleted as soon as it is made), a directory inside what the backups are of (``kept_from``: its name -> its
    directory)."""
    return settings_errors(
        (f"{prefix}_calendar", calendar), (f"{prefix}_dir", directory), (f"{prefix}_keep", keep), kept_from or {}
    )


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {"slurm_state_archive": slurm_state_archive, "backup_settings_errors": backup_settings_errors}
