"""Addresses and networks as the inventory writes them, read by netaddr.

A module of its own because netaddr is a controller-side library: modules that run on the managed hosts (the
sacctmgr and reservation modules through ``values``) must not import it, since a host has no reason to have it.
"""

from __future__ import annotations

import netaddr


def is_network(text: str) -> bool:
    """Whether text is an IPv4 or IPv6 address or network (CIDR), as netaddr reads it."""
    try:
        netaddr.IPNetwork(text)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return False
    return True


def host_bits_error(text: str) -> str | None:
    """For a network written with host bits set (10.0.0.5/24): what it opens and the two ways to write what was meant;
    None for an address, a proper network or what is no network at all."""
    try:
        network = netaddr.IPNetwork(text)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return None
    if "/" not in text or network.ip == network.network:
        return None
    return (
        f"{text!r} has host bits set and opens all of {network.cidr}; write {network.cidr} for the network, or "
        f"{network.ip}/{32 if network.version == 4 else 128} for the one host"
    )
