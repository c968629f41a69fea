"""Filters of the gpu role's checks (plugins/module_utils/gpu_fabric.py)."""

from __future__ import annotations

import re
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


def gpu_driver_version_errors(version: Any) -> list[str]:
    """gpu_driver_version is a version glob of the driver packages ("550.*", "550.163.01-*"): a branch number alone
    names no package version (the install would stop on every GPU node), and a package version holds no spaces or
    shell characters."""
    text = str(version or "")
    if not text:
        return []
    if re.fullmatch(r"\d+", text):
        return [
            f"gpu_driver_version: {text!r} is a driver branch, not a package version - no package has version "
            f"{text}; write {text}.* for the branch's newest, or the full version (e.g. {text}.163.01-*)"
        ]
    if not re.fullmatch(r"\d[A-Za-z0-9.+~:*-]*", text):
        return [f"gpu_driver_version: {text!r} is not a package version or a glob of one, e.g. 550.* or 550.163.01-*"]
    return []


# NCCL_IB_HCA: an optional ^ (leave these out) and = (exact names, not prefixes), then HCAs with an optional port
# (mlx5_0:1); NCCL_SOCKET_IFNAME: the same prefixes over interface names. Comma-separated, nothing else: NCCL reads
# "mlx5_0 mlx5_1" as one name that matches no device and falls back to TCP sockets without a word.
NCCL_LISTS = {
    "gpu_nccl_ib_hca": (re.compile(r"[A-Za-z0-9_.-]+(:\d+)?"), "=mlx5_0,mlx5_1 or ^mlx5_4 (comma-separated)"),
    "gpu_nccl_socket_ifname": (re.compile(r"[A-Za-z0-9_.@:-]+"), "=ib0, ib or ^lo,docker (comma-separated)"),
}


def gpu_nccl_errors(settings: Mapping[str, Any]) -> list[str]:
    """gpu_nccl_ib_hca and gpu_nccl_socket_ifname (``settings``: name -> value) as NCCL reads its lists: an optional
    ^ and =, then comma-separated names (an HCA with an optional :port); a space, a semicolon or an empty item names
    no device, and NCCL falls back to TCP sockets (or to any interface) without a word. gpu_nccl_env and gpu_ucx_env
    (name -> value): names of environment variables (case matters: nccl_debug is never read), one line each."""
    errors = []
    for name, (item, example) in NCCL_LISTS.items():
        text = str(settings.get(name) or "")
        if not text:
            continue
        items = re.sub(r"^\^?=?", "", text).split(",")
        if not all(item.fullmatch(part) for part in items):
            errors.append(f"{name}: {text!r} is not a list NCCL reads; write e.g. {example}, without spaces")
    for name, example in (("gpu_nccl_env", "NCCL_DEBUG"), ("gpu_ucx_env", "UCX_NET_DEVICES")):
        variables = settings.get(name) or {}
        if not isinstance(variables, Mapping):
            continue
        for variable, value in variables.items():
            if not re.fullmatch(r"[A-Z_][A-Z0-9_]*", str(variable)):
                errors.append(
                    f"{name}: {str(variable)!r} is not an environment variable the libraries read (their names are "
                    f"upper case: letters, digits and '_', e.g. {example}); it would be set and never read"
                )
            elif "\n" in str(value) or "\r" in str(value):
                errors.append(f"{name}.{variable}: the value holds a line break; give it on one line")
    return errors


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "gpu_driver_version_errors": gpu_driver_version_errors,
            "gpu_fabric_errors": gpu_fabric_errors,
            "gpu_fabric_host_errors": gpu_fabric_host_errors,
            "gpu_nccl_errors": gpu_nccl_errors,
        }
