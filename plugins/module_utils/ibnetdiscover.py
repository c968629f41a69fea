"""An ``ibnetdiscover`` dump read into the model's switch tree.

``ibnetdiscover`` (infiniband-diags) prints every node of the fabric: a header line per switch or HCA
(``Switch 40 "S-<guid>"  # "<node description>" ...`` or ``Ca 2 "H-<guid>"  # "<description>"``), then
one line per connected port (``[1] "S-<guid>"[17] ...``). The tree Slurm wants is read from it as an
experienced admin would draw it by hand:

- a host is the first word of its HCA's node description (``gpu001 mlx5_0``); with several HCAs (one per
  rail) the host hangs off the leaf of its first HCA in name order, so every host is under one leaf;
- a leaf is a switch with compute hosts; switches are named from their description (``MF0;leaf01:MQM9700/U1``
  gives ``leaf01``, a plain description its first word), or ``sw-<guid>`` when that is missing or not unique;
- above the leaves, switches are ranked by their distance from the nearest leaf. Leaves that reach the
  same set of switches one rank up share a parent (a fat-tree pod's leaves all reach the pod's spines), and
  so on up, so a 2-tier fat-tree becomes leaves under one spine switch and a 3-tier one leaves under pods
  under one core. Each such parent is named after the first switch of its set;
- leaves with no switch above them but links to each other are a dragonfly: each all-to-all group of
  leaves is one parent (``dfgroup``), and the groups hang off one ``global`` root.

Hosts that are not compute nodes (storage, controllers, the subnet manager) are left out, and a switch
left with nothing under it is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .hostlist import natural_key

_HEADER = re.compile(r'^(Switch|Ca|Rt)\s+\d+\s+"([SHR])-([0-9a-fA-F]+)"\s*(?:#\s*"([^"]*)")?')
_PORT = re.compile(r'^\[(\d+)\][^"]*"([SHR])-([0-9a-fA-F]+)"')
_SWITCH_NAME = re.compile(r";([^:;\s]+):")
_VALID = re.compile(r"[^A-Za-z0-9_.-]")


class DumpError(ValueError):
    """The text is not an ibnetdiscover dump the tree can be read from."""


@dataclass(slots=True)
class _Node:
    kind: str
    guid: str
    description: str
    peers: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class Tree:
    """The switch tree read from a dump: (name, hosts, child switches) per switch, and its shape."""

    switches: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]
    dragonfly: bool


def parse(text: str) -> dict[str, _Node]:
    """Nodes by GUID with the GUIDs they link to."""
    nodes: dict[str, _Node] = {}
    current: _Node | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header = _HEADER.match(line)
        if header:
            kind, _, guid, description = header.groups()
            current = nodes.setdefault(guid.lower(), _Node(kind, guid.lower(), description or ""))
            current.kind, current.description = kind, description or current.description
            continue
        port = _PORT.match(line)
        if port:
            if current is None:
                raise DumpError(f"line {number}: a port line before any Switch or Ca line")
            peer = port.group(3).lower()
            current.peers.add(peer)
            nodes.setdefault(peer, _Node("Switch" if port.group(2) == "S" else "Ca", peer, "")).peers.add(current.guid)
    if not any(node.kind == "Switch" for node in nodes.values()):
        raise DumpError("no Switch in it; give the output of `ibnetdiscover` run on a host of the fabric")
    return nodes


def _switch_names(switches: Sequence[_Node]) -> dict[str, str]:
    wanted: dict[str, str] = {}
    for node in switches:
        match = _SWITCH_NAME.search(node.description)
        word = match.group(1) if match else (node.description.split() or [""])[0]
        wanted[node.guid] = _VALID.sub("-", word)
    counts: dict[str, int] = {}
    for name in wanted.values():
        counts[name] = counts.get(name, 0) + 1
    return {guid: name if name and counts[name] == 1 else f"sw-{guid[-12:]}" for guid, name in wanted.items()}


def _leaves(nodes: dict[str, _Node], compute: set[str]) -> dict[str, list[str]]:
    """Hosts per leaf switch GUID: each compute host under the switch of its first HCA."""
    first_hca: dict[str, tuple[str, str]] = {}
    for node in nodes.values():
        if node.kind != "Ca" or not node.description.split():
            continue
        host, *rest = node.description.split()
        if host not in compute:
            continue
        hca = rest[0] if rest else ""
        switches = sorted(peer for peer in node.peers if nodes[peer].kind == "Switch")
        if switches and (host not in first_hca or natural_key(hca) < natural_key(first_hca[host][0])):
            first_hca[host] = (hca, switches[0])
    leaves: dict[str, list[str]] = {}
    for host, (_, switch) in first_hca.items():
        leaves.setdefault(switch, []).append(host)
    return leaves


def _ranks(nodes: dict[str, _Node], leaves: Iterable[str]) -> dict[str, int]:
    """Each switch's distance from the nearest compute leaf over switch-to-switch links, through switches
    with no HCA (the other rails' leaves and storage leaves are not part of the compute tree)."""
    inner = {
        guid
        for guid, node in nodes.items()
        if node.kind == "Switch" and not any(nodes[peer].kind == "Ca" for peer in node.peers)
    }
    rank = dict.fromkeys(leaves, 0)
    frontier = list(rank)
    while frontier:
        following = []
        for guid in frontier:
            for peer in nodes[guid].peers:
                if peer in inner and peer not in rank:
                    rank[peer] = rank[guid] + 1
                    following.append(peer)
        frontier = following
    return rank


def _cliques(leaves: Sequence[str], nodes: dict[str, _Node]) -> list[list[str]]:
    """Dragonfly groups: all-to-all sets of leaves, the tightest first (global links join few)."""
    members = set(leaves)
    linked = {guid: nodes[guid].peers & members for guid in leaves}
    free = set(leaves)
    groups = []
    for guid in leaves:
        if guid not in free:
            continue
        candidates = sorted(linked[guid] & free, key=lambda p: (-len(linked[p] & linked[guid]), p))
        group = [guid]
        for peer in candidates:
            if all(peer in linked[member] for member in group):
                group.append(peer)
        free.difference_update(group)
        groups.append(group)
    return groups


def tree(text: str, compute_hosts: Iterable[str]) -> Tree:
    """The switch tree over ``compute_hosts`` in an ibnetdiscover dump."""
    nodes = parse(text)
    compute = set(compute_hosts)
    leaf_hosts = _leaves(nodes, compute)
    if not leaf_hosts:
        raise DumpError("no compute host in it: HCA node descriptions must start with the host's name")
    names = _switch_names([node for node in nodes.values() if node.kind == "Switch"])
    rank = _ranks(nodes, leaf_hosts)
    result: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = [
        (names[guid], tuple(sorted(hosts, key=natural_key)), ()) for guid, hosts in leaf_hosts.items()
    ]
    # Each level: (logical switch name, the physical switches it stands for); a switch reaching nothing
    # one rank up stays a top-level switch (the validation then asks for allow_disconnected).
    level = [(names[guid], {guid}) for guid in leaf_hosts]
    used = {name for name, _, _ in result}
    depth = 0
    while True:
        groups: dict[frozenset[str], list[str]] = {}
        for name, members in level:
            up = frozenset(peer for guid in members for peer in nodes[guid].peers if rank.get(peer) == depth + 1)
            if up:
                groups.setdefault(up, []).append(name)
        if not groups:
            break
        depth += 1
        level = []
        for up, children in sorted(groups.items(), key=lambda item: natural_key(item[1][0])):
            name = _unique(names[min(up, key=lambda guid: natural_key(names[guid]))], used)
            result.append((name, (), tuple(sorted(children, key=natural_key))))
            level.append((name, set(up)))
    dragonfly = False
    if depth == 0 and len(leaf_hosts) > 1:
        cliques = _cliques(sorted(leaf_hosts, key=lambda g: natural_key(names[g])), nodes)
        if any(len(group) > 1 for group in cliques):
            dragonfly = True
            width = max(2, len(str(len(cliques))))
            parents = [_unique(f"dfgroup{index:0{width}d}", used) for index in range(1, len(cliques) + 1)]
            for parent, group in zip(parents, cliques, strict=True):
                result.append((parent, (), tuple(sorted((names[g] for g in group), key=natural_key))))
            result.append((_unique("global", used), (), tuple(parents)))
    return Tree(tuple(result), dragonfly)


def _unique(name: str, used: set[str]) -> str:
    candidate, index = name, 1
    while candidate in used:
        index += 1
        candidate = f"{name}-{index}"
    used.add(candidate)
    return candidate
