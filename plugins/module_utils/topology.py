"""topology.conf / topology.yaml from the model's fabric, and the generated tree and block layouts.

Slurm's tree plugin wants every node under a leaf switch and the switches joined under one root; its
block plugin wants NVLink domains of at least the base block size. Releases before 25.05 read one
topology from topology.conf; 25.05 and later read topology.yaml, which carries the switch tree and the
NVLink blocks side by side (partitions choose with Topology=).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .cluster_types import Block, Cluster, Switch
from .hostlist import fold, natural_slices

TREE_TOPOLOGY = "fabric"
BLOCK_TOPOLOGY = "nvlink"


def _chunks(items: Sequence[str], size: int) -> list[Sequence[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _names(prefix: str, count: int) -> list[str]:
    width = max(2, len(str(count)))
    return [f"{prefix}{index:0{width}d}" for index in range(1, count + 1)]


def _tree(
    host_sets: Sequence[Sequence[str]],
    nodes_per_leaf: int,
    leaf_prefix: str,
    levels: Sequence[tuple[str, int | None]],
) -> list[Switch]:
    """Leaves of ``nodes_per_leaf`` hosts in natural name order, then each level groups the one below
    (None: one root over all of them)."""
    leaves = natural_slices(host_sets, nodes_per_leaf)
    leaf_names = _names(leaf_prefix, len(leaves))
    switches = [
        Switch(name, members, folded_nodes=folded) for name, (folded, members) in zip(leaf_names, leaves, strict=True)
    ]
    below = leaf_names
    for prefix, per_group in levels:
        if per_group is None:
            switches.append(Switch(prefix, (), tuple(below)))
            break
        groups = _chunks(below, per_group)
        names = _names(prefix, len(groups))
        switches.extend(Switch(name, (), tuple(members)) for name, members in zip(names, groups, strict=True))
        below = names
    return switches


def fat_tree_switches(
    host_sets: Sequence[Sequence[str]], nodes_per_leaf: int, leaves_per_pod: int | None
) -> list[Switch]:
    """A 2-tier (leaves under one spine layer) or 3-tier (leaves, pods, core) fat-tree."""
    if leaves_per_pod is None:
        return _tree(host_sets, nodes_per_leaf, "leaf", [("spine", None)])
    return _tree(host_sets, nodes_per_leaf, "leaf", [("pod", leaves_per_pod), ("core", None)])


def dragonfly_switches(host_sets: Sequence[Sequence[str]], nodes_per_leaf: int, leaves_per_group: int) -> list[Switch]:
    """Dragonfly groups as tree switches: leaves in all-to-all groups, groups joined by global links."""
    return _tree(host_sets, nodes_per_leaf, "leaf", [("dfgroup", leaves_per_group), ("global", None)])


def block_layout(host_sets: Sequence[Sequence[str]], nodes_per_block: int) -> list[Block]:
    """Consecutive NVLink domains of ``nodes_per_block`` hosts in natural name order."""
    slices = natural_slices(host_sets, nodes_per_block)
    names = _names("nvl", len(slices))
    return [Block(name, members, folded) for name, (folded, members) in zip(names, slices, strict=True)]


def _switch_lines(switches: Sequence[Switch], suffix_ranges: bool = True) -> list[str]:
    lines: list[str] = []
    for switch in switches:
        parts = [f"SwitchName={switch.name}"]
        if switch.switches:
            parts.append(f"Switches={fold(switch.switches, suffix_ranges=suffix_ranges)}")
        if switch.nodes:
            nodes = switch.folded_nodes if suffix_ranges else ""
            parts.append(f"Nodes={nodes or fold(switch.nodes, suffix_ranges=suffix_ranges)}")
        lines.append(" ".join(parts))
    return lines


def _block_lines(blocks: Sequence[Block], sizes: Sequence[int], suffix_ranges: bool = True) -> list[str]:
    lines = [
        f"BlockName={block.name} Nodes="
        + ((block.folded_nodes if suffix_ranges else "") or fold(block.nodes, suffix_ranges=suffix_ranges))
        for block in blocks
    ]
    if sizes:
        lines.append("BlockSizes=" + ",".join(str(size) for size in sizes))
    return lines


def topology_plugin(cluster: Cluster) -> str:
    """The slurm.conf TopologyPlugin, or "" when topology.yaml (or nothing) decides."""
    if cluster.fabric.topology == "none" or cluster.release.topology_yaml:
        return ""
    return f"topology/{cluster.fabric.topology}"


def topology_conf(cluster: Cluster) -> list[str]:
    """topology.conf lines for releases before 25.05 (one topology: the primary one)."""
    fabric = cluster.fabric
    suffix_ranges = cluster.release.folds_suffixed_names
    if fabric.topology == "tree":
        return _switch_lines(fabric.switches, suffix_ranges)
    if fabric.topology == "block":
        return _block_lines(fabric.blocks, fabric.block_sizes, suffix_ranges)
    return []


def topology_yaml(cluster: Cluster) -> list[dict[str, Any]]:
    """topology.yaml data for 25.05+: the tree and the NVLink blocks, the primary one cluster default."""
    fabric = cluster.fabric
    if fabric.topology == "none":
        return []
    result: list[dict[str, Any]] = []
    if fabric.switches:
        switches: list[dict[str, Any]] = []
        for switch in fabric.switches:
            entry: dict[str, Any] = {"switch": switch.name}
            if switch.switches:
                entry["children"] = fold(switch.switches)
            if switch.nodes:
                entry["nodes"] = switch.folded_nodes or fold(switch.nodes)
            switches.append(entry)
        result.append(
            {"topology": TREE_TOPOLOGY, "cluster_default": fabric.topology == "tree", "tree": {"switches": switches}}
        )
    if fabric.blocks:
        block: dict[str, Any] = {
            "blocks": [{"block": b.name, "nodes": b.folded_nodes or fold(b.nodes)} for b in fabric.blocks],
        }
        if fabric.block_sizes:
            block["block_sizes"] = list(fabric.block_sizes)
        result.append({"topology": BLOCK_TOPOLOGY, "cluster_default": fabric.topology == "block", "block": block})
    return result


def topology_names(cluster: Cluster) -> tuple[str, ...]:
    """Names a partition's ``topology`` may take (25.05+)."""
    names = []
    if cluster.fabric.switches:
        names.append(TREE_TOPOLOGY)
    if cluster.fabric.blocks:
        names.append(BLOCK_TOPOLOGY)
    return tuple(names)
