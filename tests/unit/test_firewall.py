"""The host firewall's data (plugins/module_utils/firewall.py): what each role of a host opens, to whom, and the
nftables table written from it. Behaviour on real hosts: tests/lab/test_pilot_lab.py (a connect scan)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import netaddr
import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils import firewall
from ansible_collections.gpucluster.cluster.plugins.module_utils.firewall import Opening, Services
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_cluster

from .factory import valid_groups, valid_spec

ROOT = Path(__file__).resolve().parents[2]


def opened(roles: list[str], services: Services | None = None) -> dict[tuple[str, str], tuple[str, ...]]:
    return {
        (opening.protocol, opening.ports): opening.sources
        for opening in firewall.openings(roles, services or Services())
    }


def test_a_login_node_that_is_also_the_controller_opens_ssh_to_anyone_once() -> None:
    found = opened(["controllers", "login"])
    assert found[("tcp", "22")] == ("anyone",)
    assert found[("tcp", "6817")] == ("cluster",)
    assert found[("tcp", "60001-63000")] == ("cluster",)
    assert found[("tcp", "9100")] == ("monitoring",)
    assert ("tcp", "6818") not in found and ("tcp", "3306") not in found


def test_a_compute_node_takes_every_port_from_compute_nodes_and_ssh_from_login_and_admins() -> None:
    found = opened(["compute"])
    assert found[("any", "")] == ("compute",)
    assert found[("tcp", "22")] == ("admins", "login")
    assert found[("tcp", "6818")] == ("cluster",)
    assert ("tcp", "9400") not in found  # no DCGM exporter
    assert opened(["compute"], Services(dcgm=True))[("tcp", "9400")] == ("monitoring",)


def test_mariadb_answers_slurmdbd_only_and_galera_its_peers() -> None:
    assert opened(["dbd"])[("tcp", "3306")] == ("dbd",)
    found = opened(["dbd", "galera"])
    assert found[("tcp", "3306")] == ("dbd", "galera")
    assert {found[key] for key in [("tcp", "4567"), ("udp", "4567"), ("tcp", "4568"), ("tcp", "4444")]} == {("galera",)}


def test_the_pair_and_the_pool_open_their_peers_only() -> None:
    assert ("udp", "5405") not in opened(["controllers"])
    pair = opened(["controllers"], Services(pacemaker=True))
    assert pair[("udp", "5405")] == pair[("tcp", "2224")] == ("controllers",)
    pool = opened(["login"], Services(login_pool=True, login_pool_ssh_port=2222))
    assert pool[("vrrp", "")] == ("login",) and pool[("tcp", "2222")] == ("anyone",)


def test_ports_come_from_slurm_conf_and_the_rest_api() -> None:
    spec = valid_spec()
    spec["slurm_config"] = {"SlurmctldPort": "6900-6901", "SrunPortRange": "40000-40100"}
    spec["rest_api"] = {"enabled": True, "port": 6999}
    services = firewall.services(firewall.cluster_ports(build_cluster(spec, valid_groups())), {"ports": {"node": 9200}})
    found = opened(["controllers"], services)
    assert found[("tcp", "6900-6901")] == ("cluster",) and found[("tcp", "40000-40100")] == ("cluster",)
    assert found[("tcp", "6999")] == ("cluster", "admins") and found[("tcp", "9200")] == ("monitoring",)


def test_the_table_holds_each_sources_addresses_and_drops_the_rest() -> None:
    groups = valid_groups()
    addresses = {host: f"10.1.0.{number}" for number, host in enumerate(groups["all"], start=1)}
    sources = firewall.source_networks(groups, addresses, ["192.0.2.0/24", "2001:db8::/64"])
    text = firewall.ruleset(firewall.openings(["compute"], Services()), sources)
    assert text.startswith("#!/usr/sbin/nft -f")
    assert "table inet gpucluster\ndelete table inet gpucluster\ntable inet gpucluster {" in text
    assert "type filter hook input priority filter; policy drop;" in text
    assert "set admins6 {" in text and "2001:db8::/64" in text
    # the compute group: gpu01..04 and cpu01..02, folded into as few networks as the addresses allow
    compute = netaddr.IPSet(sources["compute"])
    assert compute == netaddr.IPSet(addresses[host] for host in groups["compute"])
    assert 'ip saddr @compute4 accept comment "jobs:' in text
    assert "ip saddr @cluster4 tcp dport 6818 accept" in text
    assert "ip6 saddr @admins6 tcp dport 22 accept" in text
    assert "ip saddr @login4 tcp dport 22 accept" in text


def test_no_admin_networks_means_anywhere() -> None:
    sources = firewall.source_networks({"all": []}, {}, [])
    assert [str(network) for network in sources["admins"]] == ["0.0.0.0/0", "::/0"]


def test_anyone_takes_no_source_match() -> None:
    rule = firewall.ruleset([Opening("ssh", "tcp", "22", ("anyone",), "users")], {})
    assert '    tcp dport 22 accept comment "ssh: users"' in rule


@pytest.mark.parametrize(
    ("networks", "message"),
    [
        ("10.0.0.0/24", "is not a list"),
        (["10.0.0.0/33"], "'10.0.0.0/33' is not an address or a network"),
        (["admins"], "'admins' is not an address or a network"),
        # an admin's host written with its network's prefix would let the whole network in
        (["10.0.0.5/24"], "'10.0.0.5/24' has host bits set and opens all of 10.0.0.0/24; write 10.0.0.0/24 for the "),
    ],
)
def test_admin_networks_are_cidrs(networks: object, message: str) -> None:
    found = firewall.errors(networks)
    assert len(found) == 1 and message in found[0] and found[0].startswith("firewall_admin_networks")


def test_a_table_that_would_shut_ansibles_ssh_out_is_known() -> None:
    groups = valid_groups()
    addresses = {host: f"10.1.0.{number}" for number, host in enumerate(groups["all"], start=1)}
    sources = firewall.source_networks(groups, addresses, ["192.0.2.0/24"])
    compute, login = firewall.openings(["compute"], Services()), firewall.openings(["login"], Services())
    assert firewall.admits(compute, sources, "192.0.2.9", 22)  # an admin
    assert firewall.admits(compute, sources, addresses["login01"], 22)  # Ansible on the login node
    assert not firewall.admits(compute, sources, "10.9.9.9", 22)  # elsewhere
    assert firewall.admits(login, sources, "10.9.9.9", 22)  # SSH to the login node is anyone's
    assert firewall.admits(compute, sources, addresses["gpu02"], 22)  # another compute node: every port
    assert not firewall.admits(firewall.openings(["dbd"], Services()), sources, addresses["gpu02"], 22)
    assert firewall.admits(compute, sources, "", 22)  # not over SSH (a container, local)


def test_the_port_table_in_the_docs_is_the_data() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "port_table.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout


LNET = {"name": "lnet", "hosts": "compute", "protocol": "tcp", "ports": "988", "sources": ["10.9.0.0/24", "login"]}


def test_the_sites_own_openings_go_to_their_group_with_their_networks() -> None:
    groups = valid_groups()
    extra, networks = firewall.extra_openings("gpu01", groups, [LNET])
    assert extra == [Opening("lnet", "tcp", "988", ("login", "lnet_nets"), "the site's own opening")]
    assert [str(network) for network in networks["lnet_nets"]] == ["10.9.0.0/24"]
    assert firewall.extra_openings("login01", groups, [LNET]) == ([], {})
    text = firewall.ruleset(extra, {"login": [netaddr.IPNetwork("10.1.0.3")], **networks})
    assert "set lnet_nets4 {" in text and "ip saddr @lnet_nets4 tcp dport 988 accept" in text
    assert "ip saddr @login4 tcp dport 988 accept" in text


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"hosts": "gpus"}, "hosts 'gpus' is not a group of the inventory"),
        ({"protocol": "sctp"}, "protocol 'sctp' is neither tcp nor udp"),
        ({"ports": "70000"}, "ports '70000' is outside 1-65535"),
        ({"ports": "900-800"}, "ports '900-800' is outside 1-65535 or a range that ends before it starts"),
        ({"ports": "ssh"}, "ports 'ssh' is not a port or a range"),
        ({"sources": ["servers"]}, "source 'servers' is neither a network (CIDR) nor one of cluster"),
        ({"sources": ["192.0.2.7/24"]}, "source '192.0.2.7/24' has host bits set"),
        ({"sources": []}, "sources must be a list"),
        ({"name": "compute"}, "name 'compute' must be lower-case letters"),
        ({"port": "988"}, "unknown keys port"),
    ],
)
def test_a_wrong_site_opening_is_named(change: dict[str, object], message: str) -> None:
    found = firewall.extra_errors([{**LNET, **change}], valid_groups())
    assert len(found) == 1 and message in found[0] and found[0].startswith("firewall_extra_openings[0]"), found


def test_two_site_openings_need_two_names() -> None:
    found = firewall.extra_errors([LNET, LNET], valid_groups())
    assert found == [
        "firewall_extra_openings[1] (lnet): name 'lnet' must be lower-case letters, digits and _, unique, and not a "
        "source's name"
    ]


def test_the_ruleset_file_is_an_absolute_file_name() -> None:
    from ansible_collections.gpucluster.cluster.plugins.filter.firewall import firewall_errors

    assert firewall_errors(["10.0.0.0/24"], [], {"all": []}, "/etc/gpucluster/firewall.nft") == []
    (relative,) = firewall_errors(["10.0.0.0/24"], [], {"all": []}, "firewall.nft")
    assert relative.startswith("firewall_ruleset_path: 'firewall.nft' is not an absolute file name")
