"""Filters of the nfs role: its settings checked before any host is touched, and each client's mounts."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.nfs import client_mounts, nfs_errors


def nfs_settings_errors(settings: Mapping[str, Any], storage_hosts: Sequence[str]) -> list[str]:
    """What stops the shared paths (/home, /apps, /data) from being set up: a filer mount that cannot be written
    to fstab, a storage host beside filer mounts, or neither; empty when the settings hold."""
    return nfs_errors(settings, storage_hosts)


def nfs_client_mounts(settings: Mapping[str, Any], server: str) -> list[dict[str, str]]:
    """{path, src, opts} of every NFS mount of a client: the site's filer mounts (nfs_filer_mounts), or the
    storage host's exports."""
    return client_mounts(settings, server)


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {"nfs_settings_errors": nfs_settings_errors, "nfs_client_mounts": nfs_client_mounts}
