"""IP math of the network filters (netaddr)."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.gpucluster.cluster.plugins.filter.network import (
    listen_address,
    listen_address_errors,
    same_host_in,
)


def test_fabric_address_keeps_the_host_part() -> None:
    assert same_host_in("192.168.1.23", "10.20.0.0/16") == "10.20.1.23/16"
    assert same_host_in("172.17.0.2", "10.20.0.0/16") == "10.20.0.2/16"
    assert same_host_in("10.1.7.200", "10.30.4.0/22") == "10.30.7.200/22"


def test_network_or_broadcast_address_is_refused() -> None:
    with pytest.raises(AnsibleFilterError, match="network or broadcast"):
        same_host_in("192.168.1.0", "10.20.0.0/24")
    with pytest.raises(AnsibleFilterError, match="network or broadcast"):
        same_host_in("192.168.1.255", "10.20.0.0/24")


def test_bad_input_names_the_filter() -> None:
    with pytest.raises(AnsibleFilterError, match="same_host_in"):
        same_host_in("not-an-ip", "10.20.0.0/16")


def test_listen_address_brackets_ipv6_and_keeps_names() -> None:
    assert listen_address("10.0.0.5", 9100) == "10.0.0.5:9100"
    assert listen_address("fd00::5", "9100") == "[fd00::5]:9100"
    assert listen_address("", 9100) == ":9100"
    assert listen_address("*", 9100) == ":9100"
    assert listen_address("gpu01", 9100) == "gpu01:9100"


@pytest.mark.parametrize("address", ["10.0.0.5\nExecStartPre=/bin/sh", "gpu01 # mine", "host name", "-gpu01"])
def test_listen_address_refuses_what_is_no_address_or_name(address: str) -> None:
    with pytest.raises(AnsibleFilterError, match="neither an IP address nor a host name"):
        listen_address(address, 9100)


def test_listen_address_errors_name_each_host_and_the_variable_before_any_host_is_touched() -> None:
    """Tier-1: the values listen_address would refuse at the host (a port, a space, a line break), each named
    with its host and the variable; addresses, names, '' and '*' pass."""
    values = {
        "gpu01": "10.0.0.5:9100",
        "gpu02": "10.0.0.6",
        "gpu03": "",
        "gpu04": "*",
        "gpu05": "fd00::5",
        "gpu06": "gpu06.example.org",
        "gpu07": "gpu07 # mine",
    }
    assert listen_address_errors(values, "monitoring_exporter_address") == [
        "gpu01: monitoring_exporter_address '10.0.0.5:9100' is neither an IP address nor a host name; give the "
        "host's address, or '*' for every address",
        "gpu07: monitoring_exporter_address 'gpu07 # mine' is neither an IP address nor a host name; give the "
        "host's address, or '*' for every address",
    ]
    assert listen_address_errors({}, "gpu_dcgm_exporter_address") == []
