"""Random valid inventories (spec + groups) for the property tests: node types (with or without GPUs, by
sockets/cores or by CPUs alone), hosts of varied naming, partitions over them with consistent times, QOS, an
optional fat-tree, the three Debian releases - everything the model promises to accept."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.validate import GPU_CATALOGUE, RESERVED_NAMES
from hypothesis import strategies as st

RELEASES = ("22.05", "24.11", "26.05")
NAME = st.from_regex(r"[a-z][a-z0-9_-]{0,9}", fullmatch=True).filter(lambda n: n not in RESERVED_NAMES)
TIMES = ("30", "4:00:00", "1-00:00:00", "2-12", "7-00:00:00", "UNLIMITED")
MINUTES = {"30": 30, "4:00:00": 240, "1-00:00:00": 1440, "2-12": 3600, "7-00:00:00": 10080, "UNLIMITED": 10**9}


@st.composite
def node_type(draw: st.DrawFn, index: int) -> tuple[dict[str, Any], list[str]]:
    body: dict[str, Any] = {"group": f"compute_t{index}", "real_memory_mb": draw(st.integers(4096, 2_000_000))}
    if draw(st.booleans()):
        body.update(
            sockets=draw(st.integers(1, 4)),
            cores_per_socket=draw(st.integers(1, 64)),
            threads_per_core=draw(st.sampled_from([1, 2])),
        )
    else:
        body["cpus"] = draw(st.integers(1, 512))
    if draw(st.booleans()):
        gpu: dict[str, Any] = {"count": draw(st.integers(1, 8))}
        if draw(st.booleans()):
            gpu["type"] = draw(st.sampled_from(sorted(GPU_CATALOGUE)))
        else:
            gpu["type"] = draw(st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,11}", fullmatch=True))
        body["gpu"] = gpu
    body["features"] = draw(st.lists(NAME, max_size=3, unique=True))
    width = draw(st.integers(1, 4))
    count = draw(st.integers(1, 40))
    prefix = draw(st.sampled_from(["gpu", "node-", "r1n", "a100-"])) + f"t{index}x"
    hosts = [f"{prefix}{i + 1:0{width}d}" for i in range(count)]
    return body, hosts


@st.composite
def inventory(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, list[str]]]:
    release = draw(st.sampled_from(RELEASES))
    names = draw(st.lists(NAME, min_size=1, max_size=3, unique=True))
    node_types: dict[str, Any] = {}
    groups: dict[str, list[str]] = {"controllers": ["ctl01"], "dbd": ["dbd01"], "login": ["login01"], "storage": []}
    compute: list[str] = []
    for index, name in enumerate(names):
        body, hosts = draw(node_type(index))
        node_types[name] = body
        groups[body["group"]] = hosts
        compute += hosts
    groups["compute"] = compute
    qos_names = draw(st.lists(NAME, max_size=3, unique=True))
    partitions = []
    part_names = draw(st.lists(NAME, min_size=1, max_size=3, unique=True))
    for index, part in enumerate(part_names):
        members = names if index == 0 else draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
        partition: dict[str, Any] = {"name": part, "node_types": members, "priority_tier": index + 1}
        pair = draw(st.lists(st.sampled_from(TIMES), min_size=2, max_size=2))
        shortest, longest = sorted(pair, key=lambda time: MINUTES[time])
        with_times: bool = draw(st.booleans())
        if with_times:
            partition.update(max_time=longest, default_time=shortest)
        with_qos: bool = draw(st.booleans())
        if qos_names and with_qos:
            partition["qos"] = draw(st.sampled_from(qos_names))
        partitions.append(partition)
    partitions[0]["default"] = True
    spec: dict[str, Any] = {
        "name": draw(NAME),
        "slurm_release": release,
        "node_types": node_types,
        "partitions": partitions,
        "qos": {name: {"priority": draw(st.integers(0, 1000))} for name in qos_names},
        "accounting": {"enforce": ["associations", "limits", "qos"]},
    }
    if draw(st.booleans()):
        spec["fabric"] = {"topology": "tree", "fat_tree": {"tiers": 2, "nodes_per_leaf": draw(st.integers(1, 32))}}
    groups["all"] = sorted({host for members in groups.values() for host in members})
    groups["ungrouped"] = []
    return spec, groups


def string_leaves(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path (keys and list indexes) of every string in a spec."""
    if isinstance(node, str):
        yield path
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from string_leaves(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from string_leaves(value, (*path, index))


def rendered_lines(config: dict[str, Any]) -> list[str]:
    """Every line of slurm.conf, gres.conf and topology.conf in a cluster_config."""
    conf = config["slurm_conf"]
    return [*(line for section in conf.values() for line in section), *config["gres_conf"], *config["topology_conf"]]
