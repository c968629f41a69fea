"""Filters of the containers role: its oci.conf, enroot.conf and apptainer.conf settings checked before any host is
touched, and apptainer.conf written with the inventory's settings."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.containers import apptainer_conf, containers_errors


def containers_settings_errors(settings: Mapping[str, Any]) -> list[str]:
    """What would break the lines the role writes into oci.conf and enroot.conf: a name neither reads, a value
    that is not one line (a line break, a quote); empty when the settings hold."""
    return containers_errors(settings)


def containers_apptainer_conf(text: str, config: Mapping[str, Any]) -> str:
    """apptainer.conf as the host has it (text) with the keys of containers_apptainer_config set in place: a key's
    lines in force give way to the inventory's, comments and every other line are kept."""
    return apptainer_conf(text, config)


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "containers_settings_errors": containers_settings_errors,
            "containers_apptainer_conf": containers_apptainer_conf,
        }
