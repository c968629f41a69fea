"""Filters of the containers role: its oci.conf and enroot.conf settings checked before any host is touched."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.containers import containers_errors


def containers_settings_errors(settings: Mapping[str, Any]) -> list[str]:
    """What would break the lines the role writes into oci.conf and enroot.conf: a name neither reads, a value
    that is not one line (a line break, a quote); empty when the settings hold."""
    return containers_errors(settings)


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {"containers_settings_errors": containers_settings_errors}
