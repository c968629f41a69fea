"""The rendered configs are loaded by the real slurmctld of each Debian release, and what slurmctld
reports (scontrol show nodes/partitions/topology) is what the inventory designed."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml
from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import Cluster
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import expand, natural_key
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_pods

from bench.gen_inventory import write_inventory
from lab.slurmctld_check import SUITE_RELEASE, Readback, load_configs
from tests.helpers import ibnet
from tests.helpers.inventory import load_inventory

from .conftest import ROOT, render_inventory

pytestmark = pytest.mark.slurmctld

# (inventory, suite, compute nodes, GPUs): the numbers are the design, written out, not derived.
MATRIX = [
    ("pilot", "bookworm", 16, 128),
    ("pilot", "trixie", 16, 128),
    ("pilot", "sid", 16, 128),
    ("production", "trixie", 136, 1024),
    ("production", "sid", 136, 1024),
    # Federations: every pod's configs, each loaded by its own slurmctld (totals over the pods).
    ("federation", "trixie", 1280, 10240),
    ("federation", "sid", 1280, 10240),
    ("federation-100k", "trixie", 12800, 102400),
    ("federation-100k", "sid", 12800, 102400),
    # The production cluster with its switch tree read from an ibnetdiscover dump (3 tiers, 2 rails).
    ("ibnetdiscover", "trixie", 136, 1024),
    ("nvl72", "trixie", 36, 144),
    ("nvl72", "sid", 36, 144),
    ("scale12800", "bookworm", 12800, 102400),
    ("scale12800", "trixie", 12800, 102400),
    ("scale12800", "sid", 12800, 102400),
]


DUMP = "ibnetdiscover.txt"  # .txt: Ansible does not read it as an inventory source


def _ibnetdiscover_inventory(root: Path) -> Path:
    """The production inventory whose cluster_fabric reads a dump of its fabric through a file lookup."""
    if root.exists():
        return root
    shutil.copytree(ROOT / "inventories" / "production", root)
    _, groups = load_inventory(root)
    compute = sorted(groups["compute"], key=natural_key)
    fabric = ibnet.fat_tree(compute, nodes_per_leaf=17, leaves_per_pod=4, rails=2, spines=4)
    storage = fabric.switch("storage01")
    for host in groups["storage"]:
        fabric.cable(fabric.hca(host, "mlx5_0"), storage)
    (root / DUMP).write_text(fabric.text())
    cluster_yml = root / "group_vars" / "all" / "cluster.yml"
    variables = yaml.safe_load(cluster_yml.read_text())
    lookup = f"{{{{ lookup('ansible.builtin.file', ansible_inventory_sources[0] ~ '/{DUMP}') }}}}"
    variables["cluster_fabric"] = {"topology": "tree", "ibnetdiscover": lookup}
    cluster_yml.write_text(yaml.safe_dump(variables))
    return root


def dashboard_series(prefix: str) -> set[str]:
    """The series named ``prefix...`` that the Grafana dashboards' queries read."""
    dashboards = (ROOT / "roles" / "monitoring" / "files" / "dashboards").glob("*.json")
    text = "\n".join(path.read_text(encoding="utf-8") for path in dashboards)
    return set(re.findall(rf"\b{prefix}\w+", text))


def inventory_path(name: str, tmp_root: Path) -> Path:
    if name == "ibnetdiscover":
        return _ibnetdiscover_inventory(tmp_root / "ibnetdiscover")
    if name == "scale12800":
        return write_inventory(tmp_root / "scale12800", 12800)
    if name == "nvl72":
        return ROOT / "tests" / "inventories" / "nvl72"
    return ROOT / "inventories" / name


@pytest.fixture(scope="module")
def tmp_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("inventories")


def _load(name: str, suite: str, tmp_root: Path, out: Path) -> list[tuple[Cluster, Readback, Path]]:
    """Render the inventory for the suite's release and load every cluster (each pod of a federation, from
    its own directory) in the real slurmctld."""
    inventory = inventory_path(name, tmp_root)
    release = SUITE_RELEASE[suite]
    result = render_inventory(inventory, out, release)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    spec, groups = load_inventory(inventory)
    spec["slurm_release"] = release
    if (inventory / DUMP).exists():  # the lookup, as Ansible resolved it for the render
        spec["fabric"]["ibnetdiscover"] = (inventory / DUMP).read_text()
    loaded = []
    for pod, cluster in build_pods(spec, groups).items():
        directory = out / pod if pod else out
        topologies = ("fabric", "nvlink") if cluster.release.topology_yaml else ()
        loaded.append(
            (cluster, load_configs(suite, directory, groups["all"], cluster.controllers[0], topologies), directory)
        )
    return loaded


def _assert_switches(model_switches, reported: list[dict[str, str]]) -> None:
    by_name = {line["SwitchName"]: line for line in reported if "SwitchName" in line}
    assert set(by_name) == {s.name for s in model_switches}
    for switch in model_switches:
        line = by_name[switch.name]
        if switch.switches:
            assert set(expand(line["Switches"])) == set(switch.switches), switch.name
        if switch.nodes and not switch.switches:
            assert set(expand(line["Nodes"])) == set(switch.nodes), switch.name


def _assert_blocks(cluster: Cluster, reported: list[dict[str, str]]) -> None:
    by_name = {line["BlockName"]: line for line in reported if "BlockName" in line}
    assert set(by_name) == {b.name for b in cluster.fabric.blocks}
    for block in cluster.fabric.blocks:
        assert set(expand(by_name[block.name]["Nodes"])) == set(block.nodes), block.name
        assert int(by_name[block.name]["BlockSize"]) == cluster.fabric.block_sizes[0]


@pytest.mark.parametrize(("name", "suite", "nodes", "gpus"), MATRIX, ids=[f"{m[0]}-{m[1]}" for m in MATRIX])
def test_slurmctld_reports_the_designed_cluster(
    docker_lab: None, tmp_root: Path, tmp_path: Path, name: str, suite: str, nodes: int, gpus: int
) -> None:
    loaded = _load(name, suite, tmp_root, tmp_path / "etc-slurm")
    assert sum(len(cluster.compute) for cluster, _, _ in loaded) == nodes
    reported_gpus = 0
    for cluster, readback, directory in loaded:
        reported_gpus += _check_cluster(cluster, readback, directory)
    assert reported_gpus == gpus


def _check_cluster(cluster: Cluster, readback: Readback, directory: Path) -> int:
    """What slurmctld reports is the cluster the model designed; returns the GPUs it reported."""
    # Release: the daemon that loaded the files is the one the inventory targets.
    assert re.search(rf"^SLURM_VERSION\s+= {re.escape(str(cluster.release))}\.", readback.config, re.M)
    # A Pacemaker pair's VIP is SlurmctldAddr (the harness points it at the loopback): the daemon read it.
    if "SlurmctldAddr=" in (directory / "slurm.conf").read_text():
        assert re.search(r"^SlurmctldAddr\s+= 127\.0\.0\.1$", readback.config, re.M), readback.config

    # A pod of a federation: its own ClusterName, federation display on.
    assert re.search(rf"^ClusterName\s+= {cluster.name}$", readback.config, re.M)
    if cluster.federation:
        assert re.search(r"^FederationParameters\s+= fed_display$", readback.config, re.M), readback.config

    # Accounting and priority as rendered (a slurmdbd runs beside it): slurmctld registered with it under the
    # pod's name, and reports the enforcement, the TRES tracked and their priority weights it was given.
    rendered = _settings((directory / "slurm.conf").read_text())
    reported = _settings(readback.config, separator=" = ")
    assert readback.registered.split("|")[0] == cluster.name and readback.registered.strip().split("|")[1]
    for key in ("AccountingStorageType", "AccountingStorageEnforce", "PriorityType", "PriorityWeightTRES"):
        if key in rendered:
            assert reported.get(key) == rendered[key], (key, reported.get(key))
    # slurmctld's own OpenMetrics endpoints (26.05): each answers, and the node metrics are the designed nodes.
    if "MetricsType" in rendered:
        assert reported.get("MetricsType") == "metrics/openmetrics", reported.get("MetricsType")
        assert "# FAILED" not in readback.metrics, readback.metrics[-3000:]
        cpus = dict(re.findall(r'^slurm_node_cpus\{node="([^"]+)"\} (\d+)$', readback.metrics, re.M))
        gpus = dict(re.findall(r'^slurm_node_gpus\{node="([^"]+)"\} (\d+)$', readback.metrics, re.M))
        designed = {host: nt for nt in cluster.node_types for host in nt.hosts}
        assert {h: int(c) for h, c in cpus.items()} == {h: nt.cpus for h, nt in designed.items()}
        assert sum(int(g) for g in gpus.values()) == sum(nt.gpu.count for nt in designed.values() if nt.gpu)
        assert re.search(r"^slurm_schedule_cycle_cnt \d+$", readback.metrics, re.M), readback.metrics[-2000:]
        # the dashboards read slurmctld's series where it serves them (renamed slurmctld_* by Prometheus)
        served = {f"slurmctld_{name}" for name in re.findall(r"^slurm_(\w+)[{ ]", readback.metrics, re.M)}
        assert dashboard_series("slurmctld_") - served == set()
    else:
        assert not (cluster.release.has("openmetrics") and cluster.slurm_metrics), "MetricsType missing"
    tracked = reported["AccountingStorageTRES"].split(",")
    assert set(rendered.get("AccountingStorageTRES", "").split(",")) - {""} <= set(tracked), tracked

    # Nodes: every compute node, each with its type's CPUs, memory, typed GRES and features.
    assert len(readback.nodes) == len(cluster.compute)
    reported_gpus = 0
    for node_type in cluster.node_types:
        for host in node_type.hosts:
            node = readback.nodes[host]
            assert int(node["CPUTot"]) == node_type.cpus, host
            assert int(node["RealMemory"]) == node_type.real_memory_mb, host
            assert set(node["AvailableFeatures"].split(",")) == {node_type.name, *node_type.features}, host
            if node_type.gpu:
                assert node["Gres"] == f"gpu:{node_type.gpu.type}:{node_type.gpu.count}", host
                reported_gpus += int(node["Gres"].rsplit(":", 1)[1])
            expected_partitions = {p.name for p in cluster.partitions if host in p.hosts}
            assert set(node["Partitions"].split(",")) == expected_partitions, host

    # Partitions: membership as designed, and their QOS (looked up in slurmdbd by 26.05).
    assert set(readback.partitions) == {p.name for p in cluster.partitions}
    for partition in cluster.partitions:
        line = readback.partitions[partition.name]
        assert set(expand(line["Nodes"])) == set(partition.hosts), partition.name
        assert int(line["TotalNodes"]) == len(partition.hosts)
        assert (line["Default"] == "YES") == partition.default
        assert line["QoS"] == (partition.qos or "N/A"), (partition.name, line["QoS"])
        assert line["AllowQos"] == (",".join(partition.allow_qos) or "ALL"), (partition.name, line["AllowQos"])
        # What a job that asks for no memory or CPUs gets (derived from the node types unless given).
        defaults = dict(pair.split("=") for pair in line.get("JobDefaults", "(null)").split(",") if "=" in pair)
        assert defaults.get("DefMemPerGPU") == (str(partition.def_mem_per_gpu_mb or "") or None), line
        assert defaults.get("DefCpuPerGPU") == (str(partition.def_cpu_per_gpu or "") or None), line
        if partition.def_mem_per_cpu_mb:
            assert line["DefMemPerCPU"] == str(partition.def_mem_per_cpu_mb), line

    # Topology: switch membership (tree) and NVLink blocks, through the file this release reads.
    if cluster.release.topology_yaml:
        if cluster.fabric.switches:
            _assert_switches(cluster.fabric.switches, readback.named_topologies["fabric"])
        if cluster.fabric.blocks:
            _assert_blocks(cluster, readback.named_topologies["nvlink"])
    elif cluster.fabric.topology == "tree":
        _assert_switches(cluster.fabric.switches, readback.topology)
    elif cluster.fabric.topology == "block":
        _assert_blocks(cluster, readback.topology)
    return reported_gpus


def _settings(text: str, separator: str = "=") -> dict[str, str]:
    """Key and value of each ``key<separator>value`` line (slurm.conf, or scontrol show config)."""
    pairs = (line.split(separator, 1) for line in text.splitlines() if separator in line)
    return {key.strip(): value.strip() for key, value in pairs}


@pytest.mark.parametrize("suite", ["bookworm", "trixie", "sid"])
def test_slurm_expands_our_folds_like_clustershell(docker_lab: None, suite: str) -> None:
    folds = ["gpu[001-128]", "r[1-2]-n[01-16]", "a-gpu[1-2],b-gpu1", "n[0001-0003,0010]"]
    from lab.slurmctld_check import expand_hostlist

    assert expand_hostlist(suite, folds) == [expand(expression) for expression in folds]
