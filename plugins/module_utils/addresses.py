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
