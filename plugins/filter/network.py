"""IP math for the roles, with netaddr."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import netaddr
from ansible.errors import AnsibleFilterError
from ansible_collections.gpucluster.cluster.plugins.module_utils.validate import HOST_RE


def cidr(network: str, netmask: str) -> str:
    """'10.0.0.0', '255.255.0.0' -> '10.0.0.0/16'."""
    return str(netaddr.IPNetwork(f"{network}/{netmask}").cidr)


def same_host_in(address: str, network: str) -> str:
    """The address with the same host part in another network, as fabric IP plans do:
    '192.168.1.23', '10.20.0.0/16' -> '10.20.1.23/16'."""
    try:
        net = netaddr.IPNetwork(network)
        host_bits = int(netaddr.IPAddress(address)) & int(net.hostmask)
    except (netaddr.AddrFormatError, ValueError, TypeError) as exc:
        raise AnsibleFilterError(f"same_host_in: {exc}") from exc
    result = netaddr.IPAddress(int(net.network) | host_bits, net.version)
    if net.size > 2 and result in (net.network, net.broadcast):
        raise AnsibleFilterError(
            f"same_host_in: {address} maps to {result}, the network or broadcast address of {network}; "
            "use a larger network or set the address explicitly"
        )
    return f"{result}/{net.prefixlen}"


def _listen_problem(address: Any) -> str:
    """Why ``address`` cannot be a daemon's listen address ('' when it can): an IP address, a host name, '' or '*'."""
    if address in ("", "*"):
        return ""
    try:
        netaddr.IPAddress(address)
        return ""
    except (netaddr.AddrFormatError, ValueError, TypeError):
        if isinstance(address, str) and HOST_RE.fullmatch(address):
            return ""
    return f"{address!r} is neither an IP address nor a host name; give the host's address, or '*' for every address"


def listen_address(address: str, port: int | str) -> str:
    """A daemon's ``address:port`` listen setting: '10.0.0.5', 9100 -> '10.0.0.5:9100'; an IPv6 address in
    brackets ('[fd00::5]:9100'); '' or '*' (every address) -> ':9100'; a host name is kept as it is; anything else
    (a space, a newline, '#', a port: it would reach a unit file or an environment file) is refused."""
    problem = _listen_problem(address)
    if problem:
        raise AnsibleFilterError(f"listen_address: {problem}")
    if address in ("", "*"):
        return f":{port}"
    try:
        ip = netaddr.IPAddress(address)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return f"{address}:{port}"
    return f"[{ip}]:{port}" if ip.version == 6 else f"{ip}:{port}"


def listen_address_errors(values: Mapping[str, Any], variable: str) -> list[str]:
    """The hosts whose listen-address variable listen_address would refuse. Tier-1 (before any host is touched),
    over host -> value as host_values gives it: each such host named with the variable and what to give instead."""
    return [f"{host}: {variable} {problem}" for host, value in values.items() if (problem := _listen_problem(value))]


class FilterModule:
    """gpucluster.cluster network filters."""

    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "cidr": cidr,
            "listen_address": listen_address,
            "listen_address_errors": listen_address_errors,
            "same_host_in": same_host_in,
        }
