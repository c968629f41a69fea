"""The GPU nodes' fabric interfaces (gpu_fabric_interfaces, gpu_fabric_addresses): checked for every compute
host before any host is touched, one message per problem with the hosts that share it folded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .addresses import is_network
from .hostlist import fold

TYPES = ("ipoib", "ethernet")
MODES = ("connected", "datagram")
# Linux's limits: IPv4's minimum MTU; IPoIB connected mode's maximum. Datagram mode carries the IB MTU less the
# IPoIB header (4092 on a 4K IB MTU).
MTU_MIN, MTU_MAX, DATAGRAM_MTU_MAX = 68, 65520, 4092
EXAMPLE = "{name: ib0, network: 10.20.0.0/16}"


def _with_prefix(text: Any) -> bool:
    """A network or address written with its prefix (10.20.0.0/16, 10.20.1.23/16)."""
    return isinstance(text, str) and "/" in text and is_network(text)


def _mtu(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(str(value))
    except ValueError:
        return None


def interface_errors(interfaces: Any) -> list[str]:
    """What is wrong with one host's gpu_fabric_interfaces (without the host's name)."""
    if interfaces in (None, ""):
        return []
    if not isinstance(interfaces, list):
        return [f"gpu_fabric_interfaces must be a list of interfaces such as [{EXAMPLE}]"]
    problems: list[str] = []
    names: list[str] = []
    for index, interface in enumerate(interfaces):
        if not isinstance(interface, Mapping):
            problems.append(f"gpu_fabric_interfaces[{index}] is not an interface such as {EXAMPLE}")
            continue
        name = str(interface.get("name") or "")
        label = f"gpu_fabric_interfaces[{index}]" + (f" ({name})" if name else "")
        unknown = sorted(set(interface) - {"name", "network", "type", "mode", "mtu"})
        if unknown:
            problems.append(f"{label}: unknown key(s) {', '.join(map(str, unknown))} (name, network, type, mode, mtu)")
        if not name:
            problems.append(f"{label} has no name: give the interface's name, e.g. {EXAMPLE}")
        names.append(name)
        if "network" not in interface:
            problems.append(f"{label} has no network: give the fabric's network with its prefix, e.g. {EXAMPLE}")
        elif not _with_prefix(interface["network"]):
            problems.append(
                f"{label}: network {interface['network']!r} is not a network with its prefix (10.20.0.0/16)"
            )
        kind = interface.get("type", "ipoib")
        if kind not in TYPES:
            problems.append(f"{label}: type {kind!r} is not one of {', '.join(TYPES)}")
        mode = interface.get("mode", "connected")
        if mode not in MODES:
            problems.append(f"{label}: IPoIB mode {mode!r} is not one of {', '.join(MODES)}")
        if "mtu" in interface:
            mtu = _mtu(interface["mtu"])
            if mtu is None or not MTU_MIN <= mtu <= MTU_MAX:
                problems.append(f"{label}: mtu {interface['mtu']!r} is not a number from {MTU_MIN} to {MTU_MAX}")
            elif mode == "datagram" and kind == "ipoib" and mtu > DATAGRAM_MTU_MAX:
                problems.append(
                    f"{label}: an IPoIB interface in datagram mode carries at most MTU {DATAGRAM_MTU_MAX} "
                    f"({mtu} needs mode connected)"
                )
    repeated = sorted({name for name in names if name and names.count(name) > 1})
    if repeated:
        problems.append(f"gpu_fabric_interfaces names {', '.join(repeated)} more than once")
    return problems


def address_errors(addresses: Any, interfaces: Any) -> list[str]:
    """What is wrong with one host's gpu_fabric_addresses (interface name -> address with its prefix)."""
    if addresses in (None, ""):
        return []
    if not isinstance(addresses, Mapping):
        return ["gpu_fabric_addresses must map an interface's name to its address, e.g. {ib0: 10.20.1.23/16}"]
    declared = (
        {str(i.get("name")) for i in interfaces if isinstance(i, Mapping)} if isinstance(interfaces, list) else set()
    )
    problems = []
    for name, address in addresses.items():
        if name not in declared:
            problems.append(f"gpu_fabric_addresses names {name}, which is not in gpu_fabric_interfaces")
        elif not _with_prefix(address):
            problems.append(
                f"gpu_fabric_addresses.{name}: {address!r} is not an address with its prefix (10.20.1.23/16)"
            )
    return problems


def fabric_errors(interfaces: Mapping[str, Any], addresses: Mapping[str, Any]) -> list[str]:
    """Every host's problems (host -> gpu_fabric_interfaces, host -> gpu_fabric_addresses), each problem once
    with the hosts that have it."""
    hosts_of: dict[str, list[str]] = {}
    for host in interfaces:
        found = interface_errors(interfaces[host]) + address_errors(addresses.get(host), interfaces[host])
        for problem in found:
            hosts_of.setdefault(problem, []).append(str(host))
    return [f"{fold(hosts)}: {problem}" for problem, hosts in hosts_of.items()]
