"""IP math for the roles, with netaddr."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import netaddr


def cidr(network: str, netmask: str) -> str:
    """'10.0.0.0', '255.255.0.0' -> '10.0.0.0/16'."""
    return str(netaddr.IPNetwork(f"{network}/{netmask}").cidr)


class FilterModule:
    """gpucluster.cluster network filters."""

    def filters(self) -> dict[str, Callable[..., Any]]:
        return {"cidr": cidr}
