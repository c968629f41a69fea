"""Filters for the Lustre client role: validation, the lnet module options, mount sources."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.lustre import (
    lnet_networks,
    lustre_errors,
    mount_source,
)


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "lustre_errors": lustre_errors,
            "lustre_lnet_networks": lnet_networks,
            "lustre_mount_source": mount_source,
        }
