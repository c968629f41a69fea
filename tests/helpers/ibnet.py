"""ibnetdiscover dumps of made-up fabrics, in the layout infiniband-diags prints (switch and HCA blocks,
one line per cabled port), for the parser's tests and the sample inventory's fabric file."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from itertools import count


class Fabric:
    """Switches and HCAs, cabled port by port; ``text()`` is the dump."""

    def __init__(self) -> None:
        self._guids = count(0xB8599F0300FC0000)
        self.descriptions: dict[str, str] = {}
        self.kinds: dict[str, str] = {}
        self.ports: dict[str, dict[int, tuple[str, int]]] = defaultdict(dict)

    def switch(self, name: str, description: str | None = None) -> str:
        guid = f"{next(self._guids):016x}"
        self.kinds[guid] = "Switch"
        self.descriptions[guid] = f"MF0;{name}:MQM9700/U1" if description is None else description
        return guid

    def hca(self, host: str, device: str) -> str:
        guid = f"{next(self._guids):016x}"
        self.kinds[guid] = "Ca"
        self.descriptions[guid] = f"{host} {device}"
        return guid

    def cable(self, a: str, b: str) -> None:
        port_a = len(self.ports[a]) + 1
        port_b = len(self.ports[b]) + 1
        self.ports[a][port_a] = (b, port_b)
        self.ports[b][port_b] = (a, port_a)

    def _ref(self, guid: str) -> str:
        return ("S-" if self.kinds[guid] == "Switch" else "H-") + guid

    def text(self) -> str:
        lines = ["#", "# Topology file: generated on Mon Nov 23 10:00:00 2026", "#", ""]
        for guid in self.kinds:
            description = self.descriptions[guid]
            if self.kinds[guid] == "Switch":
                lines += ["vendid=0x2c9", "devid=0xd2f2", f"sysimgguid=0x{guid}", f"switchguid=0x{guid}({guid})"]
                lines.append(f'Switch\t64 "S-{guid}"\t\t# "{description}" enhanced port 0 lid 1 lmc 0')
                for port, (peer, peer_port) in sorted(self.ports[guid].items()):
                    suffix = f"({peer})" if self.kinds[peer] == "Ca" else ""
                    remote = f'"{self._ref(peer)}"[{peer_port}]{suffix}'
                    lines.append(f'[{port}]\t{remote}\t\t# "{self.descriptions[peer]}" lid 2 4xNDR')
            else:
                lines += ["vendid=0x2c9", "devid=0x1021", f"sysimgguid=0x{guid}", f"caguid=0x{guid}"]
                lines.append(f'Ca\t1 "H-{guid}"\t\t# "{description}"')
                for port, (peer, peer_port) in sorted(self.ports[guid].items()):
                    lines.append(
                        f'[{port}]({guid})\t"{self._ref(peer)}"[{peer_port}]\t\t# lid 3 lmc 0 '
                        f'"{self.descriptions[peer]}" lid 1 4xNDR'
                    )
            lines.append("")
        return "\n".join(lines)


def fat_tree(
    hosts: Sequence[str],
    nodes_per_leaf: int,
    leaves_per_pod: int | None = None,
    rails: int = 1,
    spines: int = 2,
    cores: int = 2,
) -> Fabric:
    """A fat-tree with one leaf per rail per group of hosts (rail-optimised), ``spines`` spines per pod
    cabled to every leaf of the pod, and (3 tiers) ``cores`` core switches cabled to every spine."""
    fabric = Fabric()
    groups = [hosts[i : i + nodes_per_leaf] for i in range(0, len(hosts), nodes_per_leaf)]
    per_pod = leaves_per_pod or len(groups)
    core_guids = [fabric.switch(f"core{c:02d}") for c in range(1, cores + 1)] if leaves_per_pod else []
    leaf_number = 0
    for pod_index, start in enumerate(range(0, len(groups), per_pod), start=1):
        spine_names = [f"spine{pod_index:02d}{s}" if leaves_per_pod else f"spine{s:02d}" for s in range(1, spines + 1)]
        spine_guids = [fabric.switch(name) for name in spine_names]
        for spine in spine_guids:
            for core in core_guids:
                fabric.cable(spine, core)
        for group in groups[start : start + per_pod]:
            rail_leaves = []
            for rail in range(rails):
                leaf_number += 1
                leaf = fabric.switch(f"leaf{leaf_number:03d}")
                rail_leaves.append(leaf)
                for spine in spine_guids:
                    fabric.cable(leaf, spine)
                for host in group:
                    fabric.cable(fabric.hca(host, f"mlx5_{rail}"), leaf)
    return fabric


def dragonfly(hosts: Sequence[str], nodes_per_leaf: int, leaves_per_group: int) -> Fabric:
    """Leaves all-to-all within a group; group i's leaf j cabled to group (i + j + 1)'s leaf j."""
    fabric = Fabric()
    groups = [hosts[i : i + nodes_per_leaf] for i in range(0, len(hosts), nodes_per_leaf)]
    leaves = []
    for number, group in enumerate(groups, start=1):
        leaf = fabric.switch(f"r{number:03d}")
        leaves.append(leaf)
        for host in group:
            fabric.cable(fabric.hca(host, "mlx5_0"), leaf)
    dfgroups = [leaves[i : i + leaves_per_group] for i in range(0, len(leaves), leaves_per_group)]
    for members in dfgroups:
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                fabric.cable(a, b)
    for index, members in enumerate(dfgroups):
        for j, leaf in enumerate(members):
            other = dfgroups[(index + j + 1) % len(dfgroups)]
            if other is not members and j < len(other):
                fabric.cable(leaf, other[j])
    return fabric
