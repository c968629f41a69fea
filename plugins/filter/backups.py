"""Filters of the restore playbook: which archive of StateSaveLocation is put back."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.backups import newest_archive


def slurm_state_archive(found: Mapping[str, Any], named: Any = "") -> dict[str, str]:
    """controller -> its `find` result (files) -> {host, path} of the archive to restore, or {error}."""
    files = {
        str(host): list(result.get("files") or []) if isinstance(result, Mapping) else []
        for host, result in (found or {}).items()
    }
    return newest_archive(files, str(named or ""))


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {"slurm_state_archive": slurm_state_archive}
