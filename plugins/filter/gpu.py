"""Filters of the gpu role's checks (plugins/module_utils/gpu_fabric.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.gpu_fabric import (
    address_errors,
    fabric_errors,
    interface_errors,
)


def gpu_fabric_errors(interfaces: Mapping[str, Any], addresses: Mapping[str, Any] | None = None) -> list[str]:
    """Every host's problems with its fabric interfaces (host -> gpu_fabric_interfaces) and their addresses (host
    -> gpu_fabric_addresses), each problem once with the hosts that have it folded."""
    return fabric_errors(interfaces, addresses or {})


def gpu_fabric_host_errors(interfaces: Any, addresses: Any = None) -> list[str]:
    """This host's problems with its gpu_fabric_interfaces and gpu_fabric_addresses."""
    return interface_errors(interfaces) + address_errors(addresses, interfaces)


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {"gpu_fabric_errors": gpu_fabric_errors, "gpu_fabric_host_errors": gpu_fabric_host_errors}
