"""The ibnetdiscover dump reader: the tree it draws from 2- and 3-tier fat-trees (rail-optimised, with
storage on the fabric) and from a dragonfly matches what the generators lay out, and bad dumps are
refused with the reason."""

from __future__ import annotations

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils import ibnetdiscover
from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_cluster
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import cluster_config
from ansible_collections.gpucluster.cluster.plugins.module_utils.topology import fat_tree_switches

from ..helpers import ibnet
from .factory import valid_groups, valid_spec

HOSTS = [f"gpu{index:03d}" for index in range(1, 33)]


def _shape(switches: object) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    return {name: (nodes, children) for name, nodes, children in switches}  # type: ignore[attr-defined]


def test_two_tier_fat_tree_leaves_under_one_spine() -> None:
    dump = ibnet.fat_tree(HOSTS, nodes_per_leaf=8).text()
    tree = ibnetdiscover.tree(dump, HOSTS)
    shape = _shape(tree.switches)
    assert shape["leaf001"] == (tuple(HOSTS[:8]), ())
    assert shape["spine01"] == ((), ("leaf001", "leaf002", "leaf003", "leaf004"))
    assert set(shape) == {"leaf001", "leaf002", "leaf003", "leaf004", "spine01"}
    assert not tree.dragonfly
    generated = [s.nodes for s in fat_tree_switches([HOSTS], 8, None) if s.nodes]
    assert [shape[f"leaf{i:03d}"][0] for i in range(1, 5)] == generated


def test_three_tier_rail_optimised_fat_tree_with_storage() -> None:
    fabric = ibnet.fat_tree(HOSTS, nodes_per_leaf=4, leaves_per_pod=2, rails=2)
    storage_leaf = fabric.switch("stor01")
    for host in ("lustre-oss01", "lustre-oss02"):
        fabric.cable(fabric.hca(host, "mlx5_0"), storage_leaf)
    fabric.cable(storage_leaf, next(g for g, d in fabric.descriptions.items() if "core01" in d))
    shape = _shape(ibnetdiscover.tree(fabric.text(), HOSTS).switches)
    # Rail 0's leaves carry the hosts (leaf001, leaf003, ... : rail 1's are leaf002, leaf004, ...).
    leaves = {name: nodes for name, (nodes, _) in shape.items() if nodes}
    assert sorted(leaves) == [f"leaf{i:03d}" for i in range(1, 17, 2)]
    assert leaves["leaf001"] == tuple(HOSTS[:4])
    assert shape["spine011"] == ((), ("leaf001", "leaf003"))
    assert shape["spine041"] == ((), ("leaf013", "leaf015"))
    assert shape["core01"] == ((), tuple(f"spine0{p}1" for p in range(1, 5)))
    assert "stor01" not in shape and "leaf002" not in shape
    assert not any("lustre" in host for nodes, _ in shape.values() for host in nodes)


def test_dragonfly_groups_and_global_root() -> None:
    dump = ibnet.dragonfly(HOSTS, nodes_per_leaf=4, leaves_per_group=4).text()
    tree = ibnetdiscover.tree(dump, HOSTS)
    shape = _shape(tree.switches)
    assert tree.dragonfly
    assert shape["dfgroup01"] == ((), ("r001", "r002", "r003", "r004"))
    assert shape["dfgroup02"] == ((), ("r005", "r006", "r007", "r008"))
    assert shape["global"] == ((), ("dfgroup01", "dfgroup02"))


def test_switch_names_fall_back_to_guid_when_descriptions_repeat() -> None:
    fabric = ibnet.Fabric()
    leaves = [fabric.switch("", "MellanoxQuantum Mellanox Technologies") for _ in range(2)]
    spine = fabric.switch("spine")
    for leaf, host in zip(leaves, ("gpu001", "gpu002"), strict=True):
        fabric.cable(fabric.hca(host, "mlx5_0"), leaf)
        fabric.cable(leaf, spine)
    shape = _shape(ibnetdiscover.tree(fabric.text(), ["gpu001", "gpu002"]).switches)
    assert shape[f"sw-{leaves[0][-12:]}"] == (("gpu001",), ())
    assert shape["spine"] == ((), tuple(sorted(f"sw-{leaf[-12:]}" for leaf in leaves)))


def test_classic_layout_parses() -> None:
    dump = """\
# Topology file: generated on Tue Jun  5 14:15:10 2012
vendid=0x8f1
switchguid=0x8f105001094d2(8f105001094d2)
Switch  24 "S-0008f105001094d2"         # "ISR9024D-M Voltaire" base port 0 lid 1 lmc 0
[1]     "H-0008f10403961354"[1](8f10403961355)   # "node01 HCA-1" lid 4 4xSDR

caguid=0x8f10403961354
Ca      2 "H-0008f10403961354"          # "node01 HCA-1"
[1](8f10403961355)     "S-0008f105001094d2"[1]  # lid 4 lmc 0 "ISR9024D-M Voltaire" lid 1 4xSDR
"""
    assert _shape(ibnetdiscover.tree(dump, ["node01"]).switches) == {"ISR9024D-M": (("node01",), ())}


@pytest.mark.parametrize(
    ("dump", "message"),
    [
        ("hello\n", "no Switch in it"),
        ('[1] "S-01"[2]\n', "line 1: a port line before any Switch or Ca line"),
        ('Switch 4 "S-01" # "MF0;leaf01:X"\n[1] "H-02"[1]\nCa 1 "H-02" # "storage01 mlx5_0"\n', "no compute host"),
    ],
)
def test_bad_dumps(dump: str, message: str) -> None:
    with pytest.raises(ibnetdiscover.DumpError, match=message):
        ibnetdiscover.tree(dump, ["gpu001"])


def _compute_hosts(spec: dict, groups: dict) -> list[str]:
    return sorted(h for nt in spec["node_types"].values() for h in groups[nt["group"]])


def test_model_reads_the_dump_into_topology_conf() -> None:
    spec, groups = valid_spec(), valid_groups()
    hosts = _compute_hosts(spec, groups)
    spec["fabric"] = {"topology": "tree", "ibnetdiscover": ibnet.fat_tree(hosts, nodes_per_leaf=2).text()}
    conf = cluster_config(build_cluster(spec, groups))
    assert conf["topology_conf"] == [
        "SwitchName=leaf001 Nodes=cpu[01-02]",
        "SwitchName=leaf002 Nodes=gpu[01-02]",
        "SwitchName=leaf003 Nodes=gpu[03-04]",
        "SwitchName=spine01 Switches=leaf[001-003]",
    ]
    assert not any(s.startswith("TopologyParam") for s in conf["slurm_conf"]["settings"])


def test_model_reports_a_bad_dump_and_reads_a_dragonfly() -> None:
    spec, groups = valid_spec(), valid_groups()
    spec["fabric"] = {"topology": "tree", "ibnetdiscover": ["not", "text"]}
    with pytest.raises(InventoryError, match=r"cluster_fabric.ibnetdiscover: give the dump's text"):
        build_cluster(spec, groups)
    spec["fabric"] = {"topology": "tree", "ibnetdiscover": "nothing\n"}
    with pytest.raises(InventoryError, match=r"cluster_fabric.ibnetdiscover: no Switch in it"):
        build_cluster(spec, groups)
    spec["fabric"] = {"topology": "tree", "ibnetdiscover": ibnet.dragonfly(_compute_hosts(spec, groups), 2, 3).text()}
    assert "TopologyParam=Dragonfly" in cluster_config(build_cluster(spec, groups))["slurm_conf"]["settings"]


def test_a_pods_dump_places_only_the_pods_hosts() -> None:
    """One dump of a fabric that carries both pods: each pod's tree holds its own compute hosts only."""
    from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_pods

    from .test_federation import fed_groups, fed_spec

    groups = fed_groups()
    dump = ibnet.fat_tree(sorted(groups["compute"]), nodes_per_leaf=2, leaves_per_pod=2).text()
    fabric = {"topology": "tree", "ibnetdiscover": dump}
    pods = build_pods(fed_spec(pod1={"fabric": fabric}, pod2={"fabric": fabric}), groups)
    for pod in ("pod1", "pod2"):
        placed = {host for switch in pods[pod].fabric.switches for host in switch.nodes}
        assert placed == set(pods[pod].compute), pod
