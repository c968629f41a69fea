"""gpu_fabric_interfaces and gpu_fabric_addresses: every compute host's checked before any host is touched."""

from __future__ import annotations

from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.gpu import gpu_driver_version_errors, gpu_nccl_errors
from ansible_collections.gpucluster.cluster.plugins.module_utils.gpu_fabric import (
    address_errors,
    fabric_errors,
    interface_errors,
)

IB0 = {"name": "ib0", "network": "10.20.0.0/16", "type": "ipoib", "mode": "connected", "mtu": 65520}


def test_a_good_fabric_passes() -> None:
    roce = {"name": "ens1f0", "network": "fd00:20::/64", "type": "ethernet", "mtu": 9000}
    assert interface_errors([IB0, roce]) == []
    assert interface_errors([]) == [] and interface_errors("") == [] and interface_errors(None) == []
    assert address_errors({"ib0": "10.20.1.23/16"}, [IB0]) == []


@pytest.mark.parametrize(
    ("interfaces", "problem"),
    [
        ({"name": "ib0"}, "gpu_fabric_interfaces must be a list of interfaces"),
        (["ib0"], "gpu_fabric_interfaces[0] is not an interface such as"),
        ([{"network": "10.20.0.0/16"}], "gpu_fabric_interfaces[0] has no name"),
        ([{"name": "ib0"}], "gpu_fabric_interfaces[0] (ib0) has no network"),
        ([{**IB0, "network": "10.20.0.0"}], "gpu_fabric_interfaces[0] (ib0): network '10.20.0.0' is not a network"),
        ([{**IB0, "network": "10.20.0.0/33"}], "network '10.20.0.0/33' is not a network with its prefix"),
        ([{**IB0, "type": "infiniband"}], "gpu_fabric_interfaces[0] (ib0): type 'infiniband' is not one of ipoib"),
        ([{**IB0, "mode": "cm"}], "gpu_fabric_interfaces[0] (ib0): IPoIB mode 'cm' is not one of connected"),
        ([{**IB0, "mode": "datagram"}], "carries at most MTU 4092 (65520 needs mode connected)"),
        ([{**IB0, "mtu": "9k"}], "gpu_fabric_interfaces[0] (ib0): mtu '9k' is not a number from 68 to 65520"),
        ([{**IB0, "mtu": True}], "mtu True is not a number"),
        ([{**IB0, "mtu": 70000}], "mtu 70000 is not a number from 68 to 65520"),
        ([{**IB0, "netmask": "255.255.0.0"}], "gpu_fabric_interfaces[0] (ib0): unknown key(s) netmask"),
        ([IB0, {**IB0, "network": "10.21.0.0/16"}], "gpu_fabric_interfaces names ib0 more than once"),
    ],
)
def test_each_interface_problem_is_named(interfaces: Any, problem: str) -> None:
    found = interface_errors(interfaces)
    assert len(found) == 1 and problem in found[0], found


def test_datagram_mode_within_its_mtu_and_ethernet_with_jumbo_frames_pass() -> None:
    assert interface_errors([{**IB0, "mode": "datagram", "mtu": 4092}]) == []
    assert interface_errors([{"name": "eth2", "network": "10.30.0.0/16", "type": "ethernet", "mtu": 9000}]) == []


@pytest.mark.parametrize(
    ("addresses", "problem"),
    [
        (["10.20.1.23/16"], "gpu_fabric_addresses must map an interface's name to its address"),
        ({"ib1": "10.20.1.23/16"}, "gpu_fabric_addresses names ib1, which is not in gpu_fabric_interfaces"),
        ({"ib0": "10.20.1.23"}, "gpu_fabric_addresses.ib0: '10.20.1.23' is not an address with its prefix"),
    ],
)
def test_each_address_problem_is_named(addresses: Any, problem: str) -> None:
    found = address_errors(addresses, [IB0])
    assert len(found) == 1 and problem in found[0], found


def test_hosts_that_share_a_problem_are_folded_into_one_message() -> None:
    bad = [{**IB0, "mode": "datagram"}]
    interfaces = {"gpu01": bad, "gpu02": bad, "gpu03": [IB0], "gpu04": bad, "cpu01": ""}
    addresses = {"gpu03": {"ib0": "10.20.0.3"}}
    assert fabric_errors(interfaces, addresses) == [
        "gpu[01-02,04]: gpu_fabric_interfaces[0] (ib0): an IPoIB interface in datagram mode carries at most MTU 4092 "
        "(65520 needs mode connected)",
        "gpu03: gpu_fabric_addresses.ib0: '10.20.0.3' is not an address with its prefix (10.20.1.23/16)",
    ]


def test_a_driver_branch_alone_is_no_package_version() -> None:
    """apt finds no nvidia-driver of version "550": the install would stop on every GPU node, after the other roles."""
    assert gpu_driver_version_errors("") == []
    assert gpu_driver_version_errors("550.*") == []
    assert gpu_driver_version_errors("550.163.01-2") == []
    assert gpu_driver_version_errors(550) == [
        "gpu_driver_version: '550' is a driver branch, not a package version - no package has version 550; write "
        "550.* for the branch's newest, or the full version (e.g. 550.163.01-*)"
    ]
    assert gpu_driver_version_errors("latest") == [
        "gpu_driver_version: 'latest' is not a package version or a glob of one, e.g. 550.* or 550.163.01-*"
    ]


def test_nccl_device_lists_are_read_as_nccl_reads_them() -> None:
    """NCCL reads "mlx5_0 mlx5_1" as one name that matches no HCA and runs over TCP sockets without a word."""
    taken = {"gpu_nccl_ib_hca": "=mlx5_0:1,mlx5_1:1", "gpu_nccl_socket_ifname": "^lo,docker"}
    assert gpu_nccl_errors(taken) == []
    assert gpu_nccl_errors({"gpu_nccl_ib_hca": "", "gpu_nccl_socket_ifname": None}) == []
    assert gpu_nccl_errors({"gpu_nccl_ib_hca": "mlx5", "gpu_nccl_socket_ifname": "=ib0"}) == []
    assert gpu_nccl_errors({"gpu_nccl_ib_hca": "mlx5_0 mlx5_1", "gpu_nccl_socket_ifname": "ib0;ib1"}) == [
        "gpu_nccl_ib_hca: 'mlx5_0 mlx5_1' is not a list NCCL reads; write e.g. =mlx5_0,mlx5_1 or ^mlx5_4 "
        "(comma-separated), without spaces",
        "gpu_nccl_socket_ifname: 'ib0;ib1' is not a list NCCL reads; write e.g. =ib0, ib or ^lo,docker "
        "(comma-separated), without spaces",
    ]
    assert gpu_nccl_errors({"gpu_nccl_ib_hca": "mlx5_0,,mlx5_1"}) != []


def test_the_nccl_and_ucx_environment_names_are_ones_the_libraries_read() -> None:
    assert gpu_nccl_errors({"gpu_nccl_env": {"NCCL_DEBUG": "INFO"}, "gpu_ucx_env": {"UCX_TLS": "rc,sm"}}) == []
    (lower,) = gpu_nccl_errors({"gpu_nccl_env": {"nccl_debug": "INFO"}})
    assert "gpu_nccl_env: 'nccl_debug' is not an environment variable" in lower
    (broken,) = gpu_nccl_errors({"gpu_ucx_env": {"UCX_TLS": "rc\nUCX_X=1"}})
    assert "gpu_ucx_env.UCX_TLS: the value holds a line break" in broken
