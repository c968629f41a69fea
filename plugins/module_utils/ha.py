"""Checks of the controller pair's Pacemaker settings (virtual IP, fencing) before any host is touched."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import netaddr

FENCE_AGENTS = {
    # agent -> the parameters a device of that kind cannot work without
    "fence_ipmilan": ("ip", "username", "password"),
    "fence_redfish": ("ip", "username", "password"),
}


def vip_errors(vip: str, prefix: int, addresses: Mapping[str, str]) -> list[str]:
    """The virtual IP must be an address of the controllers' network that no controller already has."""
    try:
        address = netaddr.IPAddress(str(vip))
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return [f"pacemaker_vip {vip!r} is not an IP address; set it to a free address of the controllers' network"]
    network = netaddr.IPNetwork(f"{address}/{prefix}")
    errors = []
    for host, own in addresses.items():
        if not netaddr.valid_ipv4(str(own)) and not netaddr.valid_ipv6(str(own)):
            continue  # a name (before facts are gathered): the network is checked on the hosts
        if str(own) == str(address):
            errors.append(f"pacemaker_vip {vip} is {host}'s own address; pick a free address")
        elif netaddr.IPAddress(str(own)) not in network:
            errors.append(
                f"pacemaker_vip {vip}/{prefix} is not in {host}'s network ({own}); the VIP must be on the "
                "controllers' network (pacemaker_vip_cidr_netmask)"
            )
    return errors


def fencing_errors(controllers: Sequence[str], devices: Mapping[str, Any], lab_without_fencing: bool) -> list[str]:
    """A fence device for every controller (IPMI or Redfish, with address and credentials), unless the lab
    setting turns fencing off."""
    if lab_without_fencing:
        return []
    errors = []
    for host in controllers:
        device = devices.get(host)
        if not isinstance(device, Mapping):
            errors.append(
                f"{host}: no fence device in pacemaker_fence_devices; production controllers need one "
                f"({' or '.join(FENCE_AGENTS)}), or both could run slurmctld after a network split"
            )
            continue
        agent = device.get("agent")
        if agent not in FENCE_AGENTS:
            errors.append(f"{host}: fence agent {agent!r} is not one of {', '.join(FENCE_AGENTS)}")
            continue
        missing = [key for key in FENCE_AGENTS[agent] if not str(device.get(key) or "")]
        if missing:
            errors.append(f"{host}: {agent} device lacks {', '.join(missing)}")
        elif device.get("ip"):
            try:
                netaddr.IPAddress(str(device["ip"]))
            except (netaddr.AddrFormatError, ValueError):
                errors.append(f"{host}: fence device ip {device['ip']!r} is not an IP address (BMC address)")
    for host in devices:
        if host not in controllers:
            errors.append(f"pacemaker_fence_devices names {host}, which is not a controller")
    return errors


def pair_errors(controllers: Sequence[str]) -> list[str]:
    if len(controllers) != 2:
        return [
            f"inventory group 'controllers' has {len(controllers)} hosts ({', '.join(controllers)}); Pacemaker "
            "manages a slurmctld primary and backup: put exactly 2 hosts in it"
        ]
    return []
