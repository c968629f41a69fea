"""Tier-1 validation: rules across the model, checked on the controller before any host is touched.

Each rule is a function returning error lines; every line names the variable, group or host, says what
is wrong and how to fix it. All offenders are listed at once (host lists folded).
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable

import netaddr

from .associations import known_tres, qos_limit_errors, untracked, untracked_hint
from .cluster_types import Cluster, JobTmpfs, NodeType, Switch
from .hostlist import fold, padding_collisions
from .mount_points import within
from .releases import AUTODETECT_FEATURES, Release, autodetect_allowed
from .slurm_keys import key_error, option_errors, partition_value_error, plugin_errors, value_error
from .topology import topology_names

# GPU models and the NVML device-name fragment Slurm matches the GRES type against (the type must be a
# substring of the lower-cased NVML name, e.g. "NVIDIA H100 80GB HBM3" for h100).
GPU_CATALOGUE: dict[str, str] = {
    "a10": "NVIDIA A10",
    "a100": "NVIDIA A100",
    "a30": "NVIDIA A30",
    "a40": "NVIDIA A40",
    "a800": "NVIDIA A800",
    "b200": "NVIDIA B200",
    "b300": "NVIDIA B300",
    "gb200": "NVIDIA GB200",
    "gh200": "NVIDIA GH200",
    "h100": "NVIDIA H100",
    "h200": "NVIDIA H200",
    "h20": "NVIDIA H20",
    "h800": "NVIDIA H800",
    "l4": "NVIDIA L4",
    "l40": "NVIDIA L40",
    "l40s": "NVIDIA L40S",
    "rtx6000": "NVIDIA RTX 6000",
    "t4": "Tesla T4",
    "v100": "Tesla V100",
}
RESERVED_NAMES = frozenset({"all", "default", "none", "unlimited", "infinite", "localhost"})
# Names as the real daemons take them (tests/integration/test_names_slurm_accepts.py: slurmctld of 22.05, 24.11 and
# 26.05, slurmdbd of 22.05): '-' included (llm-training, high-mem, gpu-a100).
NAME_RE = re.compile(r"^[a-z][a-z0-9_-]*$")
HOST_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?$")
CLUSTER_NAME_RE = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
DEVICE_RE = re.compile(r"^/dev/nvidia\d+$")
# ASCII digits only: \d would let Unicode digits through, which Slurm does not read.
TIME_RE = re.compile(
    r"^(UNLIMITED|INFINITE|[0-9]+|[0-9]+:[0-9]{1,2}|[0-9]+:[0-9]{1,2}:[0-9]{1,2}|[0-9]+-[0-9]{1,2}"
    r"|[0-9]+-[0-9]{1,2}:[0-9]{1,2}|[0-9]+-[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2})$",
    re.ASCII,
)
PREEMPT_MODES = frozenset({"OFF", "CANCEL", "GANG", "REQUEUE", "SUSPEND", "WITHIN"})
OVERSUBSCRIBE_RE = re.compile(r"^(NO|EXCLUSIVE|YES(:\d+)?|FORCE(:\d+)?)$")
ENFORCE_CHOICES = frozenset({"all", "associations", "limits", "nojobs", "nosteps", "qos", "safe", "wckeys"})
USAGE_RESET_PERIODS = ("NONE", "NOW", "DAILY", "WEEKLY", "MONTHLY", "QUARTERLY", "YEARLY")
# SelectTypeParameters (any case): exactly one of the consumable resources, any of the options; an option a release
# does not know, two resources or none stop slurmctld ("Bad SelectTypeParameter", "You need at least CR_(CPU|CORE|
# SOCKET)*"), seen with the real slurmctld of 22.05, 24.11 and 26.05. Option -> its release feature ("" = all;
# "no_..." = up to the release that removed it).
SELECT_RESOURCES = ("CR_CPU", "CR_CPU_Memory", "CR_Core", "CR_Core_Memory", "CR_Socket", "CR_Socket_Memory")
SELECT_OPTIONS: dict[str, str] = {
    "CR_CORE_DEFAULT_DIST_BLOCK": "",
    "CR_LLN": "",
    "CR_ONE_TASK_PER_CORE": "",
    "CR_PACK_NODES": "",
    "CR_ALLOCATE_FULL_SOCKET": "no_allocate_full_socket",
    "ENFORCE_BINDING_GRES": "select_sharing_gres",
    "LL_SHARED_GRES": "select_sharing_gres",
    "MULTIPLE_SHARING_GRES_PJ": "select_sharing_gres",
    "ONE_TASK_PER_SHARING_GRES": "select_sharing_gres",
    "CR_NO_DIST_TOPO_BLOCK": "select_no_dist_topo_block",
}
# QOS Flags (any case) as sacctmgr takes them ("Unknown QOS flag used in: ..." stops the accounting role halfway):
# the flag -> the release feature that brought it ("" = every release here); a QOS's PreemptMode words.
QOS_FLAGS: dict[str, str] = {
    "DenyOnLimit": "",
    "EnforceUsageThreshold": "",
    "NoDecay": "",
    "NoReserve": "",
    "OverPartQOS": "",
    "PartitionMaxNodes": "",
    "PartitionMinNodes": "",
    "PartitionTimeLimit": "",
    "RequiresReservation": "",
    "UsageFactorSafe": "",
    "Relative": "qos_relative",
}
QOS_PREEMPT_MODES = ("CLUSTER", "OFF", "CANCEL", "REQUEUE", "SUSPEND", "GANG", "WITHIN")
PRIORITY_WEIGHTS = frozenset({"age", "assoc", "fairshare", "job_size", "partition", "qos"})
# Keys the model writes itself: setting them through cluster_slurm_config would fight the generators.
MODEL_OWNED_KEYS: dict[str, str] = {
    "clustername": "cluster_name",
    "slurmuser": "common_slurm_uid (the roles make the slurm user and give it the daemons' directories)",
    "authtype": "the munge role (auth/munge: the roles distribute a MUNGE key, no slurm.key)",
    "slurmctldhost": "the controllers group",
    "nodename": "cluster_node_types",
    "partitionname": "cluster_partitions",
    "nodeset": "cluster_node_types",
    "grestypes": "cluster_node_types.*.gpu (GresTypes is derived)",
    "topologyplugin": "cluster_fabric.topology",
    "accountingstoragehost": "the dbd group",
    "accountingstorageenforce": "cluster_accounting.enforce",
    "accountingstoragetres": "cluster_accounting.tres (the model tracks gres/gpu and what QOS limits and weights need)",
    "preempttype": "cluster_scheduling.preempt.type",
    "preemptmode": "cluster_scheduling.preempt.mode",
    # (without the model's job_container.conf, which it writes only with cluster_job_tmpfs, slurmd would not start
    # the plugin)
    "jobcontainertype": "cluster_job_tmpfs.enabled",
    "namespacetype": "cluster_job_tmpfs.enabled",
    "healthcheckprogram": "cluster_health_check (the program is the project's node health check)",
    "healthcheckinterval": "cluster_health_check.interval",
    "healthchecknodestate": "cluster_health_check.node_state",
}
# HealthCheckNodeState words; START_ONLY and NONDRAINED_IDLE arrived in 23.02.
HEALTH_NODE_STATES = frozenset({"ALLOC", "ANY", "CYCLE", "IDLE", "MIXED", "NONDRAINED_IDLE", "START_ONLY"})
HEALTH_STATE_FEATURES = {"START_ONLY": "health_start_only", "NONDRAINED_IDLE": "health_nondrained_idle"}
# PrologFlags as slurmctld reads them (any case): the flag -> the release feature that brought it ("" = every
# release here). An unknown flag stops slurmctld ("PrologFlags invalid"), as NoHold beside Contain or X11 does.
PROLOG_FLAGS: dict[str, str] = {
    "Alloc": "",
    "Contain": "",
    "DeferBatch": "",
    "NoHold": "",
    "Serial": "",
    "X11": "",
    "ForceRequeueOnFail": "prolog_force_requeue",
    "RunInJob": "prolog_run_in_job",
}
PROLOG_SPELLED = {flag.lower(): flag for flag in PROLOG_FLAGS}
MAX_FOLDED_LIST = 200

Rule = Callable[[Cluster], list[str]]


def _hosts(names: Iterable[str]) -> str:
    folded = fold(sorted(set(names)))
    return folded if len(folded) <= MAX_FOLDED_LIST else folded[:MAX_FOLDED_LIST] + "..."


def check_cluster_name(cluster: Cluster) -> list[str]:
    if not cluster.name:
        return ["cluster_name: not set; name the cluster (lowercase letters, digits, '_', at most 40)"]
    if not CLUSTER_NAME_RE.match(cluster.name):
        return [
            f"cluster_name: '{cluster.name}' is not a valid Slurm ClusterName; use lowercase letters, "
            "digits, '-' and '_', starting with a letter, at most 40 characters (it names database tables)"
        ]
    return []


def check_role_groups(cluster: Cluster) -> list[str]:
    errors = []
    if not cluster.controllers:
        errors.append("inventory: group 'controllers' is empty; put the slurmctld host (and its backup) in it")
    if len(cluster.dbd) > 2:
        errors.append(
            f"inventory: group 'dbd' has {len(cluster.dbd)} hosts ({_hosts(cluster.dbd)}); slurmdbd "
            "runs as a primary and at most one backup, so keep at most 2"
        )
    if not cluster.dbd and cluster.accounting_enforce:
        errors.append(
            "cluster_accounting.enforce: set, but group 'dbd' is empty; add a slurmdbd host or clear the enforce list"
        )
    if not cluster.compute:
        errors.append("inventory: group 'compute' is empty; a cluster needs compute nodes")
    return errors


def check_host_names(cluster: Cluster) -> list[str]:
    every = {host for members in cluster.groups.values() for host in members}
    bad = sorted(host for host in every if not HOST_RE.match(host))
    errors = []
    if bad:
        errors.append(
            f"inventory: host names {', '.join(bad[:20])} are not valid node names; use letters, "
            "digits, '-', '_' and '.' only (Slurm's hostlist syntax reserves [ ] , and spaces)"
        )
    for first, second in padding_collisions(sorted(every)):
        errors.append(
            f"inventory: hosts '{first}' and '{second}' collide after folding (they differ only in "
            "letter case or zero padding); rename one so that every host has one spelling"
        )
    reserved = sorted(host for host in every if host.lower() in RESERVED_NAMES - {"localhost"})
    if reserved:
        errors.append(f"inventory: host names {', '.join(reserved)} are Slurm reserved words; rename them")
    return errors


def check_controllers(cluster: Cluster) -> list[str]:
    errors = []
    both = sorted(set(cluster.controllers) & set(cluster.compute))
    if both and not cluster.controllers_run_jobs:
        errors.append(
            f"inventory: hosts {_hosts(both)} are in both 'controllers' and 'compute'; jobs would compete "
            "with slurmctld. Move them out of one group, or set cluster_controllers_run_jobs: true to "
            "accept it (small labs only)"
        )
    # (a controller in both is an all-in-one host, which cluster_controllers_run_jobs keeps to small labs)
    logins = sorted((set(cluster.login) & set(cluster.compute)) - set(cluster.controllers))
    if logins and cluster.pam_adopt:
        errors.append(
            f"inventory: hosts {_hosts(logins)} are in both 'login' and 'compute' with cluster_pam_adopt: true; "
            "pam_slurm_adopt lets a user's ssh into a compute node only while she has a job there, so no user could "
            "log in to them. Move them out of one group, or leave cluster_pam_adopt off"
        )
    for host, address in cluster.controller_addresses.items():
        if host not in cluster.controllers:
            errors.append(f"cluster_controller_addresses: {host} is not in group 'controllers'")
        elif not netaddr.valid_ipv4(address) and not netaddr.valid_ipv6(address):
            errors.append(f"cluster_controller_addresses.{host}: '{address}' is not an IP address")
    holders: dict[str, list[str]] = {}
    for host, address in cluster.controller_addresses.items():
        holders.setdefault(str(address).strip().lower(), []).append(host)
    for address, hosts in holders.items():
        if len(hosts) > 1:
            errors.append(
                f"cluster_controller_addresses: {', '.join(hosts)} are all given {address}; slurm.conf names each "
                "controller by its own address (SlurmctldHost=name(address)), and with one address for both every "
                "daemon would reach the same host and none could take over from it - give each its own address"
            )
    vip = cluster.controller_vip
    if vip and not netaddr.valid_ipv4(vip) and not netaddr.valid_ipv6(vip):
        errors.append(
            f"cluster_controller_vip: '{vip}' is not an IP address; set it to the controllers' virtual IP "
            "(pacemaker_vip) or leave it empty"
        )
    elif vip and len(cluster.controllers) < 2:
        errors.append(
            f"cluster_controller_vip: {vip} is set for a single controller; a virtual IP follows the controller "
            "in charge of a pair - leave it empty"
        )
    return errors + _ipv6_errors(cluster)


def _ipv6_errors(cluster: Cluster) -> list[str]:
    """An IPv6 controller address in slurm.conf (SlurmctldAddr, SlurmctldHost=name(address)) without
    CommunicationParameters=EnableIPv6: every daemon and command resolves it as IPv4 only ("Address family for
    hostname not supported"; the real scontrol of 22.05, 24.11 and 26.05) and reaches no controller."""
    settings = {str(key).lower(): str(value) for key, value in cluster.slurm_config}
    words = {word.strip().lower() for word in settings.get("communicationparameters", "").split(",")}
    if "enableipv6" in words:
        return []
    used = [("cluster_controller_vip (pacemaker_vip, or the pod's controller_vip)", cluster.controller_vip)]
    used += [
        (f"cluster_controller_addresses.{host}", str(address)) for host, address in cluster.controller_addresses.items()
    ]
    return [
        f"{where}: {address} is an IPv6 address, which slurm.conf gives every daemon and command as the controllers' "
        "address; Slurm reads only IPv4 addresses without CommunicationParameters=EnableIPv6 ('Address family for "
        "hostname not supported') and nothing would reach slurmctld. Add EnableIPv6 to cluster_slurm_config's "
        "CommunicationParameters (the hosts then talk over IPv6), or use an IPv4 address"
        for where, address in used
        if address and netaddr.valid_ipv6(address)
    ]


def _check_name(kind: str, where: str, name: str) -> list[str]:
    if name.lower() in RESERVED_NAMES:
        return [f"{where}: '{name}' is a Slurm reserved word; choose another {kind} name"]
    if not NAME_RE.match(name):
        return [f"{where}: {kind} name '{name}' must be lowercase letters, digits, '-' and '_', starting with a letter"]
    return []


def check_node_types(cluster: Cluster) -> list[str]:
    errors: list[str] = []
    if not cluster.node_types:
        return ["cluster_node_types: empty; declare at least one node type (its group, CPUs, memory, GPUs)"]
    compute = set(cluster.compute)
    for node_type in cluster.node_types:
        where = f"cluster_node_types.{node_type.name}"
        errors += _check_name("node type", where, node_type.name)
        if not node_type.hosts and node_type.group in cluster.groups:
            errors.append(f"{where}: group '{node_type.group}' has no hosts; add hosts or remove the node type")
        outside = [h for h in node_type.hosts if h not in compute]
        if outside:
            errors.append(
                f"{where}: hosts {_hosts(outside)} of group '{node_type.group}' are not in group "
                f"'compute'; make '{node_type.group}' a child of 'compute'"
            )
        errors += _check_hardware(cluster, node_type, where)
        errors += _check_gpu(cluster, node_type, where)
        every = (*node_type.features, *(f for fs in node_type.host_features.values() for f in fs))
        for feature in dict.fromkeys(every):
            if not re.match(r"^[A-Za-z0-9_.-]+$", feature):
                errors.append(
                    f"{where}.features: '{feature}' may hold letters, digits, '-', '_' and '.' only "
                    "(Slurm reads & | , [ ] * as constraint operators)"
                )
    return errors


def _check_hardware(cluster: Cluster, node_type: NodeType, where: str) -> list[str]:
    errors = []
    physical = node_type.sockets * node_type.cores_per_socket
    if physical and node_type.cpus not in (physical, physical * node_type.threads_per_core):
        errors.append(
            f"{where}.cpus: {node_type.cpus} matches neither sockets x cores_per_socket ({physical}) "
            f"nor that x threads_per_core ({physical * node_type.threads_per_core}); fix the "
            "count or drop cpus to derive it"
        )
    if node_type.real_memory_mb < cluster.min_node_memory_mb:
        mib = node_type.real_memory_mb * 1000**3 // 2**20
        errors.append(
            f"{where}.real_memory_mb: {node_type.real_memory_mb} MiB is below the floor of "
            f"{cluster.min_node_memory_mb} MiB (cluster_min_node_memory_mb); give the memory "
            "slurmd may hand to jobs in MiB, as `slurmd -C` reports it"
            + (f" (written in GB? {node_type.real_memory_mb} GB is about {mib} MiB)" if mib <= 4096 * 954 else "")
        )
    if node_type.mem_spec_limit_mb and node_type.mem_spec_limit_mb >= node_type.real_memory_mb:
        errors.append(
            f"{where}.mem_spec_limit_mb: {node_type.mem_spec_limit_mb} leaves no memory for jobs "
            f"out of real_memory_mb {node_type.real_memory_mb}"
        )
    return errors


# Accelerators of other makers than NVIDIA, by the names planning documents give them: AMD Instinct (MI50 ... MI355X,
# Radeon), Intel (Gaudi, Data Center GPU Max 1100/1550 - Ponte Vecchio -, Flex).
_OTHER_VENDORS = (
    (
        re.compile(r"^(amd[-_]?)?(instinct[-_]?)?mi\d{2,3}[a-z]?([-_].*)?$|^(amd|radeon|instinct)([-_].*)?$", re.I),
        "an AMD",
    ),
    (
        re.compile(
            r"^(intel[-_]?)?(gaudi\d?|max[-_]?1[0-9]{3}|pvc|ponte[-_]?vecchio|flex[-_]?\d+)([-_].*)?$|^intel([-_].*)?$",
            re.I,
        ),
        "an Intel",
    ),
)


def other_vendor(gpu_type: str) -> str:
    """'an AMD' or 'an Intel' where ``gpu_type`` names such an accelerator, else ''."""
    return next((maker for pattern, maker in _OTHER_VENDORS if pattern.match(gpu_type or "")), "")


def _check_gpu(cluster: Cluster, node_type: NodeType, where: str) -> list[str]:
    gpu = node_type.gpu
    if gpu is None:
        return []
    where = f"{where}.gpu"
    errors = []
    # Any GRES type name Slurm takes (a100-sxm, A40); with AutoDetect Slurm matches it against the NVML device
    # name, so it must then be a catalogue model or come with the NVML name it is part of.
    known = gpu.type.lower() in GPU_CATALOGUE
    if gpu.type and gpu.autodetect != "off" and not known and not gpu.nvml_name:
        close = difflib.get_close_matches(gpu.type.lower(), GPU_CATALOGUE, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        errors.append(
            f"{where}.type: '{gpu.type}' is not a GPU model of the catalogue{hint}"
            f", and autodetect {gpu.autodetect} matches the type against the NVML device name; set nvml_name to "
            "the name nvidia-smi prints, or use autodetect: off with devices"
        )
    if gpu.nvml_name and gpu.type and gpu.type.lower() not in gpu.nvml_name.lower().replace(" ", "_"):
        errors.append(
            f"{where}.type: '{gpu.type}' is not a substring of the NVML name '{gpu.nvml_name}'; "
            "Slurm matches GRES types that way and would ignore the detected GPUs"
        )
    if gpu.type and not re.match(r"^[A-Za-z0-9_.-]+$", gpu.type):
        errors.append(f"{where}.type: '{gpu.type}' may hold letters, digits, '-', '_' and '.' only")
    if maker := other_vendor(gpu.type):
        errors.append(
            f"{where}.type: '{gpu.type}' is {maker} accelerator; this toolkit deploys NVIDIA's driver, CUDA, NCCL and "
            "the /dev/nvidiaN device files (gres.conf, cgroup confinement, the GPU checks), which such a node does not "
            "have - give the node type's NVIDIA GPU model, or leave these nodes out of the inventory"
        )
    if gpu.autodetect == "off":
        if len(gpu.devices) != gpu.count:
            errors.append(
                f"{where}.devices: {len(gpu.devices)} device files for count {gpu.count}; list exactly "
                f"one /dev/nvidiaN per GPU (e.g. /dev/nvidia[0-{gpu.count - 1}])"
            )
        bad = [d for d in gpu.devices if not DEVICE_RE.match(d)]
        if bad:
            errors.append(f"{where}.devices: {', '.join(bad)} are not GPU device files (/dev/nvidiaN)")
        if gpu.mig:
            errors.append(f"{where}.mig: MIG instances need autodetect: nvml (device files alone cannot describe them)")
    elif not autodetect_allowed(cluster.release, gpu.autodetect):
        need = Release.introducing(AUTODETECT_FEATURES[gpu.autodetect])
        errors.append(
            f"{where}.autodetect: '{gpu.autodetect}' needs Slurm >= {need}, but cluster_slurm_release "
            f"is {cluster.release}; use nvml or upgrade"
        )
    elif gpu.mig and gpu.autodetect == "nvidia":
        errors.append(f"{where}.mig: AutoDetect=nvidia does not see MIG instances; use autodetect: nvml")
    return errors


def check_node_type_overlap(cluster: Cluster) -> list[str]:
    owners: dict[str, list[str]] = {}
    for node_type in cluster.node_types:
        for host in node_type.hosts:
            owners.setdefault(host, []).append(node_type.name)
    errors = []
    clashes: dict[tuple[str, ...], list[str]] = {}
    for host, names in owners.items():
        if len(names) > 1:
            clashes.setdefault(tuple(names), []).append(host)
    for type_names, hosts in clashes.items():
        errors.append(
            f"cluster_node_types: hosts {_hosts(hosts)} belong to node types {', '.join(type_names)}; a node "
            "has one hardware description, so keep each host in one node-type group"
        )
    untyped = sorted(set(cluster.compute) - set(owners))
    if untyped:
        errors.append(
            f"inventory: compute hosts {_hosts(untyped)} are in no node type; add them to a group "
            "named by cluster_node_types.<type>.group"
        )
    return errors


def check_partitions(cluster: Cluster) -> list[str]:
    errors: list[str] = []
    if not cluster.partitions:
        return ["cluster_partitions: empty; declare at least one partition"]
    names = Counter(p.name for p in cluster.partitions)
    errors += [
        f"cluster_partitions: partition '{name}' is declared {n} times; names must be unique"
        for name, n in names.items()
        if n > 1 and name
    ]
    defaults = [p.name for p in cluster.partitions if p.default]
    if len(defaults) > 1:
        errors.append(
            f"cluster_partitions: {', '.join(defaults)} are all default: true; only one partition can be the default"
        )
    qos_names = {q.name for q in cluster.qos}
    topologies = topology_names(cluster)
    compute = set(cluster.compute)
    for partition in cluster.partitions:
        where = f"cluster_partitions[{partition.name}]"
        if partition.name:
            errors += _check_name("partition", where, partition.name)
        for label, value in (("max_time", partition.max_time), ("default_time", partition.default_time)):
            if value and not TIME_RE.match(value):
                errors.append(
                    f"{where}.{label}: '{value}' is not a Slurm time; use minutes, HH:MM:SS, "
                    "D-HH[:MM[:SS]] or UNLIMITED"
                )
        if partition.preempt_mode:
            modes = {m.strip().upper() for m in partition.preempt_mode.split(",")}
            if not modes <= PREEMPT_MODES:
                errors.append(
                    f"{where}.preempt_mode: '{partition.preempt_mode}' is not one of {', '.join(sorted(PREEMPT_MODES))}"
                )
        if partition.oversubscribe and not OVERSUBSCRIBE_RE.match(partition.oversubscribe.upper()):
            errors.append(
                f"{where}.oversubscribe: '{partition.oversubscribe}' must be NO, EXCLUSIVE, YES[:N] or FORCE[:N]"
            )
        elif least := _oversubscribe_too_few(partition.oversubscribe):
            errors.append(
                f"{where}.oversubscribe: '{partition.oversubscribe}' shares a resource among fewer than {least} jobs; "
                "slurmctld ignores it ('Ignoring bad OverSubscribe value') and the partition does not oversubscribe. "
                f"Give N of {least} or more, or NO"
            )
        for qos in (partition.qos, *partition.allow_qos):
            if qos and qos not in qos_names and qos.upper() != "ALL":
                errors.append(f"{where}: QOS '{qos}' is not declared in cluster_qos")
        not_compute = [h for h in partition.hosts if h not in compute]
        if not_compute:
            errors.append(
                f"{where}.groups: hosts {_hosts(not_compute)} are not compute nodes; partitions hold compute nodes only"
            )
        if partition.topology:
            if not cluster.release.topology_yaml:
                errors.append(
                    f"{where}.topology: per-partition topologies need Slurm >= 25.05 "
                    f"(cluster_slurm_release is {cluster.release})"
                )
            elif partition.topology not in topologies:
                errors.append(
                    f"{where}.topology: '{partition.topology}' is not a topology of this fabric "
                    f"({', '.join(topologies) or 'none defined'})"
                )
    in_partition = {host for partition in cluster.partitions for host in partition.hosts}
    orphans = sorted(compute - in_partition)
    if orphans:
        errors.append(
            f"cluster_partitions: compute hosts {_hosts(orphans)} are in no partition and could never "
            "run a job; add their node type to a partition"
        )
    return errors


def time_minutes(value: str) -> float | None:
    """A Slurm time in minutes (inf for UNLIMITED/INFINITE); None when it is not a Slurm time."""
    if not TIME_RE.match(value):
        return None
    if value in ("UNLIMITED", "INFINITE"):
        return float("inf")
    days, _, clock = value.rpartition("-") if "-" in value else ("0", "", value)
    parts = [int(p) for p in clock.split(":")]
    if "-" in value:  # D-HH[:MM[:SS]]
        hours, minutes, seconds = [*parts, 0, 0][:3]
    elif len(parts) == 3:  # HH:MM:SS
        hours, minutes, seconds = parts
    elif len(parts) == 2:  # MM:SS
        hours, minutes, seconds = 0, parts[0], parts[1]
    else:  # minutes
        hours, minutes, seconds = 0, parts[0], 0
    return int(days) * 1440 + hours * 60 + minutes + seconds / 60


# Partition keys the model writes itself; options must not set them (the key they belong to instead).
PARTITION_MODEL_KEYS: dict[str, str] = {
    "partitionname": "name",
    "nodes": "node_types, groups or features",
    "default": "default",
    "state": "state",
    "maxtime": "max_time",
    "defaulttime": "default_time",
    "maxnodes": "max_nodes",
    "prioritytier": "priority_tier",
    "preemptmode": "preempt_mode",
    "oversubscribe": "oversubscribe",
    "qos": "qos",
    "allowqos": "allow_qos",
    "allowaccounts": "allow_accounts",
    "defmempergpu": "def_mem_per_gpu_mb",
    "defcpupergpu": "def_cpu_per_gpu",
    "topology": "topology",
}


def check_partition_limits(cluster: Cluster) -> list[str]:
    """What Slurm or the hardware imposes across a partition's settings and its nodes."""
    errors: list[str] = []
    global_modes = {m.upper() for m in cluster.scheduling.preempt_mode}
    for partition in cluster.partitions:
        where = f"cluster_partitions[{partition.name}]"
        longest = time_minutes(partition.max_time) if partition.max_time else None
        default = time_minutes(partition.default_time) if partition.default_time else None
        if longest is not None and default is not None and default > longest:
            errors.append(
                f"{where}.default_time: {partition.default_time} is longer than max_time {partition.max_time}; "
                "Slurm would refuse every job that asks for no time. Lower default_time"
            )
        for key, value in partition.options:
            owner = PARTITION_MODEL_KEYS.get(key.lower())
            if owner:
                errors.append(f"{where}.options.{key}: written by the model; set the partition's {owner} instead")
            else:
                unknown = key_error(f"{where}.options.{key}", key, "partition", str(cluster.release))
                wrong = "" if unknown else partition_value_error(key, value, str(cluster.release))
                errors += [unknown] if unknown else [f"{where}.options.{key}: {wrong}"] if wrong else []
        modes = {m.strip().upper() for m in partition.preempt_mode.split(",") if m.strip()}
        if "SUSPEND" in modes and "GANG" not in global_modes:
            errors.append(
                f"{where}.preempt_mode: SUSPEND needs GANG in cluster_scheduling.preempt.mode (Slurm resumes "
                "suspended jobs through the gang scheduler); add GANG there"
            )
        for type_name in partition.whole_types:
            node_type = cluster.node_type(type_name)
            if node_type is None or node_type.gpu is None or not node_type.gpu.count:
                continue
            gpus = node_type.gpu.count
            memory = node_type.real_memory_mb - node_type.mem_spec_limit_mb
            # (no memory left for jobs at all is the node type's own refusal, not this one's)
            if memory > 0 and partition.def_mem_per_gpu_mb and partition.def_mem_per_gpu_mb * gpus > memory:
                errors.append(
                    f"{where}.def_mem_per_gpu_mb: {partition.def_mem_per_gpu_mb} MiB x {gpus} GPUs of node type "
                    f"{type_name} is more than its {memory} MiB for jobs; a job taking every GPU could never "
                    f"start. Use at most {memory // gpus}"
                )
            if partition.def_cpu_per_gpu and partition.def_cpu_per_gpu * gpus > node_type.cpus:
                errors.append(
                    f"{where}.def_cpu_per_gpu: {partition.def_cpu_per_gpu} CPUs x {gpus} GPUs of node type "
                    f"{type_name} is more than its {node_type.cpus} CPUs; a job taking every GPU could never "
                    f"start. Use at most {node_type.cpus // gpus}"
                )
    return errors


def check_qos(cluster: Cluster) -> list[str]:
    errors: list[str] = []
    names = {q.name for q in cluster.qos}
    for qos in cluster.qos:
        where = f"cluster_qos.{qos.name}"
        errors += _check_name("QOS", where, qos.name)
        unknown = [p for p in qos.preempt if p not in names]
        if unknown:
            errors.append(f"{where}.preempt: QOS {', '.join(unknown)} not declared in cluster_qos")
        if qos.name in qos.preempt:
            errors.append(f"{where}.preempt: a QOS cannot preempt itself")
        if _preempts(qos.name, cluster, set()) and qos.name not in qos.preempt:
            errors.append(
                f"{where}.preempt: preemption cycle through {qos.name}; a QOS cannot (indirectly) preempt "
                "a QOS that preempts it"
            )
        if qos.max_wall and not TIME_RE.match(qos.max_wall):
            errors.append(f"{where}.max_wall: '{qos.max_wall}' is not a Slurm time")
        errors += _qos_word_errors(cluster, where, qos.flags, qos.preempt_mode)
        errors += qos_limit_errors(f"{where}.limits", qos.limits, cluster_tracked_tres(cluster))
    return errors


def _did_you_mean(word: str, names: Iterable[str]) -> str:
    """ "; did you mean X?" with the closest of ``names`` (compared in any case, as Slurm reads its words; written as
    ``names`` spell it), or ""."""
    spelled = {name.lower(): name for name in names}
    close = difflib.get_close_matches(word.lower(), spelled, n=1)
    return f"; did you mean {spelled[close[0]]}?" if close else ""


def _qos_word_errors(cluster: Cluster, where: str, flags: Iterable[str], preempt_mode: str) -> list[str]:
    """A QOS's flags and PreemptMode as sacctmgr of the cluster's release takes them (an unknown word stops the
    accounting role after the daemons were set up)."""
    errors = []
    spelled = {name.lower(): name for name in QOS_FLAGS}
    for flag in flags:
        name = spelled.get(str(flag).lower())
        if name is None:
            hint = _did_you_mean(str(flag), QOS_FLAGS)
            errors.append(
                f"{where}.flags: {flag!r} is not a QOS flag sacctmgr takes{hint} Known: {', '.join(sorted(QOS_FLAGS))}"
            )
        elif QOS_FLAGS[name] and not cluster.release.has(QOS_FLAGS[name]):
            errors.append(
                f"{where}.flags: {name} needs Slurm {Release.introducing(QOS_FLAGS[name])} or later (cluster is "
                f"{cluster.release}; sacctmgr refuses it)"
            )
    wrong = [word for word in preempt_mode.split(",") if word.strip() and word.strip().upper() not in QOS_PREEMPT_MODES]
    if wrong:
        errors.append(
            f"{where}.preempt_mode: {preempt_mode!r} is not a preemption mode sacctmgr takes; use one of "
            f"{', '.join(QOS_PREEMPT_MODES)} (cluster: the cluster's PreemptMode)"
        )
    return errors


def cluster_tracked_tres(cluster: Cluster) -> tuple[str, ...]:
    """The TRES the cluster tracks beside the built-in ones: its AccountingStorageTRES (slurmconf writes the same) and
    what its release tracks with gres/gpu by itself."""
    return known_tres(bool(cluster.gpu_node_types), cluster.accounting_tres, cluster.release.has("gpu_usage_tres"))


def _preempts(name: str, cluster: Cluster, seen: set[str]) -> bool:
    """Whether QOS ``name`` can reach itself through preempt lists."""
    by_name = {q.name: q for q in cluster.qos}
    stack = list(by_name[name].preempt) if name in by_name else []
    while stack:
        current = stack.pop()
        if current == name:
            return True
        if current in seen or current not in by_name:
            continue
        seen.add(current)
        stack.extend(by_name[current].preempt)
    return False


def _oversubscribe_too_few(value: str) -> int:
    """The least N slurmctld takes in YES:N (2) or FORCE:N (1) when ``value`` gives fewer (seen with the real
    slurmctld: YES:1, YES:0 and FORCE:0 are ignored), else 0."""
    word, _, count = value.upper().partition(":")
    least = {"YES": 2, "FORCE": 1}.get(word, 0)
    return least if count.isdigit() and int(count) < least else 0


def select_parameter_errors(cluster: Cluster) -> list[str]:
    """cluster_scheduling.select_type_parameters as slurmctld of the cluster's release reads SelectTypeParameters."""
    where = "cluster_scheduling.select_type_parameters"
    words = list(cluster.scheduling.select_type_parameters)
    resources = [word for word in words if word.upper() in {name.upper() for name in SELECT_RESOURCES}]
    errors = []
    if len(resources) != 1:
        errors.append(
            f"{where}: {', '.join(resources) or 'no consumable resource'} - name exactly one of "
            f"{', '.join(SELECT_RESOURCES)} (slurmctld would not start); CR_Core_Memory is the usual"
        )
    for word in words:
        if word in resources:
            continue
        feature = SELECT_OPTIONS.get(word.upper())
        if feature is None:
            hint = _did_you_mean(word, [*SELECT_OPTIONS, *SELECT_RESOURCES])
            errors.append(f"{where}: {word!r} is not a SelectTypeParameter (slurmctld would not start){hint}")
        elif feature.startswith("no_") and cluster.release.has(feature):
            errors.append(
                f"{where}: {word} was removed in Slurm {Release.introducing(feature)} (cluster is {cluster.release}; "
                "slurmctld would not start); drop it"
            )
        elif feature and not feature.startswith("no_") and not cluster.release.has(feature):
            errors.append(
                f"{where}: {word} needs Slurm {Release.introducing(feature)} or later (cluster is {cluster.release}; "
                "slurmctld would not start)"
            )
    return errors


def check_scheduling(cluster: Cluster) -> list[str]:
    scheduling = cluster.scheduling
    errors: list[str] = select_parameter_errors(cluster)
    errors += option_errors(
        "cluster_scheduling.scheduler_parameters",
        "SchedulerParameters",
        scheduling.scheduler_parameters,
        str(cluster.release),
    )
    modes = {m.upper() for m in scheduling.preempt_mode}
    if not modes <= PREEMPT_MODES:
        errors.append(
            f"cluster_scheduling.preempt.mode: {', '.join(sorted(modes - PREEMPT_MODES))} not one of "
            f"{', '.join(sorted(PREEMPT_MODES))}"
        )
    exclusive = modes & {"OFF", "CANCEL", "REQUEUE", "SUSPEND"}
    if len(exclusive) > 1:
        errors.append(
            f"cluster_scheduling.preempt.mode: {', '.join(sorted(exclusive))} exclude each other; "
            "pick one (GANG and WITHIN may be added)"
        )
    if "SUSPEND" in modes and "GANG" not in modes:
        errors.append(
            "cluster_scheduling.preempt.mode: SUSPEND needs GANG as well (Slurm resumes suspended "
            "jobs through the gang scheduler); use [SUSPEND, GANG]"
        )
    if scheduling.preempt_type == "none" and modes - {"OFF"}:
        errors.append(
            "cluster_scheduling.preempt.mode: a preemption mode is set but preempt.type is none; set "
            "type to partition_prio or qos"
        )
    if scheduling.preempt_type != "none" and modes == {"OFF"}:
        errors.append(
            f"cluster_scheduling.preempt.type: {scheduling.preempt_type} with mode OFF never preempts; "
            "set mode to REQUEUE, CANCEL or [SUSPEND, GANG]"
        )
    if scheduling.preempt_type == "qos" and not any(q.preempt for q in cluster.qos):
        errors.append(
            "cluster_scheduling.preempt.type: qos, but no QOS in cluster_qos lists others under "
            "preempt; nothing could ever be preempted"
        )
    if scheduling.preempt_type == "partition_prio" and len({p.priority_tier for p in cluster.partitions}) < 2:
        errors.append(
            "cluster_scheduling.preempt.type: partition_prio, but every partition has the same "
            "priority_tier; give the preempting partition a higher tier"
        )
    for label, value in (
        ("decay_half_life", scheduling.decay_half_life),
        ("max_age", scheduling.max_age),
        ("exempt_time", scheduling.preempt_exempt_time),
    ):
        if value and not TIME_RE.match(value):
            errors.append(f"cluster_scheduling: {label} '{value}' is not a Slurm time")
    if scheduling.usage_reset_period.upper() not in USAGE_RESET_PERIODS:
        errors.append(
            f"cluster_scheduling.priority.usage_reset_period: '{scheduling.usage_reset_period}' is not one of "
            f"{', '.join(USAGE_RESET_PERIODS)} (slurmctld does not start with another word)"
        )
    tracked = cluster_tracked_tres(cluster)
    errors += [
        f"cluster_scheduling.priority.tres_weights: {name} is not a TRES this cluster tracks (slurmctld stops at "
        f"start: 'TRES weight ... is not a configured TRES type'); {untracked_hint(tracked)}"
        for name, _ in scheduling.tres_weights
        if untracked(name, tracked)
    ]
    errors += [
        f"cluster_scheduling.priority.tres_weights.{name}: {value!r} is not a weight slurmctld reads (a number, with "
        "K, M, G, T or P after it for a size: 1.0, 0.25G); it stops at start ('failed to parse tres weights str')"
        for name, value in scheduling.tres_weights
        if not re.fullmatch(r"-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?[KMGTPkmgtp]?", value.strip())
    ]
    unknown = [k for k, _ in scheduling.priority_weights if k not in PRIORITY_WEIGHTS]
    if unknown:
        errors.append(
            f"cluster_scheduling.priority.weights: unknown weight {', '.join(unknown)}; use "
            f"{', '.join(sorted(PRIORITY_WEIGHTS))} (TRES weights go in tres_weights)"
        )
    bad_enforce = [e for e in cluster.accounting_enforce if e not in ENFORCE_CHOICES]
    if bad_enforce:
        errors.append(
            f"cluster_accounting.enforce: {', '.join(bad_enforce)} not one of {', '.join(sorted(ENFORCE_CHOICES))}"
        )
    if (
        cluster.qos
        and cluster.accounting_enforce
        and "qos" not in cluster.accounting_enforce
        and "all" not in cluster.accounting_enforce
        and "safe" not in cluster.accounting_enforce
    ):
        errors.append(
            "cluster_accounting.enforce: QOS are declared but 'qos' is not enforced, so their limits "
            "would be ignored; add qos (or safe)"
        )
    return errors


def check_job_scripts(cluster: Cluster) -> list[str]:
    errors = []
    scripts = cluster.job_scripts
    for kind in ("prolog", "epilog", "prolog_slurmctld", "epilog_slurmctld"):
        names = [path.rsplit("/", 1)[-1] for path in getattr(scripts, kind)]
        for name, count in Counter(names).items():
            if count > 1:
                errors.append(
                    f"cluster_job_scripts.{kind}: two scripts named '{name}'; they would overwrite each "
                    "other in the same directory"
                )
        for path in getattr(scripts, kind):
            if ".." in path.split("/"):
                errors.append(
                    f"cluster_job_scripts.{kind}: '{path}' climbs out of its directory with '..' (the file is "
                    "copied to every node that runs it); name a sample (e.g. job-env), a path under the "
                    "playbook's directory, or the script's absolute path on the Ansible controller"
                )
    for kind in ("task_prolog", "task_epilog"):
        value = getattr(scripts, kind)
        if value and not value.startswith("/"):
            errors.append(f"cluster_job_scripts.{kind}: '{value}' must be an absolute path on the nodes")
    errors += prolog_flag_errors(cluster)
    return errors + [error for pattern in scripts.user_dirs for error in user_dir_errors(pattern)]


def prolog_flag_errors(cluster: Cluster) -> list[str]:
    """cluster_job_scripts.prolog_flags as slurmctld of the cluster's release reads PrologFlags: each flag one it
    knows, NoHold never beside Contain or X11 (also the Contain the model adds for cluster_pam_adopt and
    cluster_job_tmpfs), RunInJob never beside Serial."""
    where = "cluster_job_scripts.prolog_flags"
    flags = {flag.lower(): flag for flag in cluster.job_scripts.prolog_flags}
    errors = []
    for word, flag in flags.items():
        feature = PROLOG_FLAGS.get(PROLOG_SPELLED.get(word, ""))
        if feature is None:
            hint = _did_you_mean(word, PROLOG_FLAGS)
            errors.append(
                f"{where}: {flag!r} is not a PrologFlag slurmctld reads (it would not start){hint} Known: "
                f"{', '.join(sorted(PROLOG_FLAGS))}"
            )
        elif feature and not cluster.release.has(feature):
            errors.append(
                f"{where}: {flag} needs Slurm {Release.introducing(feature)} or later (cluster is "
                f"{cluster.release}; its slurmctld would not start)"
            )
    implied = [
        name
        for name, on in (("cluster_pam_adopt", cluster.pam_adopt), ("cluster_job_tmpfs", cluster.job_tmpfs.enabled))
        if on
    ]
    if "nohold" in flags and ({"contain", "x11"} & flags.keys() or implied):
        others = [flags[word] for word in ("contain", "x11") if word in flags] + [
            f"Contain ({name})" for name in implied
        ]
        errors.append(
            f'{where}: NoHold cannot be combined with {" and ".join(others)} (slurmctld stops: "PrologFlags invalid '
            'combination"); drop NoHold'
        )
    if "runinjob" in flags and "serial" in flags:
        errors.append(f"{where}: RunInJob and Serial exclude each other (slurmctld reports it); drop one")
    return errors


# Directories the system or other users share: the role would make them root's own with mode 0711.
SHARED_DIRS = (
    "/var/tmp",
    "/dev/shm",
    "/run/user",
    "/run/lock",
    "/run/shm",
    "/var/run",
    "/var/lib",
    "/var/log",
    "/var/spool",
    "/var/cache",
    "/usr/local",
)
SHARED_TREES = ("/tmp", "/home", "/dev", "/proc", "/sys", "/etc", "/root", "/boot")
USER_DIR_NAME = re.compile(r"^[A-Za-z0-9._+@-]*(\{user\}|\{uid\})[A-Za-z0-9._+@{}-]*$")


def user_dir_errors(pattern: str) -> list[str]:
    """cluster_job_scripts.user_dirs: each an absolute path whose last part names the job's user ({user} or
    {uid}), under a parent of its own (the role makes it root's, mode 0711)."""
    where = f"cluster_job_scripts.user_dirs: {pattern!r}"
    parent, _, name = pattern.rpartition("/")
    if not pattern.startswith("/") or any(char.isspace() or char in "#'\"\\$`" for char in pattern):
        return [f"{where} is not an absolute path on one line; give e.g. /run/slurm-oci/{{user}}"]
    if ".." in pattern.split("/") or "//" in pattern or "{" in parent or "}" in parent:
        return [f"{where}: only the last part may name the user, and no '..'; give e.g. /run/slurm-oci/{{user}}"]
    if not USER_DIR_NAME.match(name) or name.replace("{user}", "").replace("{uid}", "").count("{"):
        return [f"{where}: its last part must name the job's user with {{user}} or {{uid}}, e.g. user-{{uid}}"]
    if parent.count("/") < 2 or parent in SHARED_DIRS or any(within(parent, tree) for tree in SHARED_TREES):
        return [
            f"{where}: {parent or '/'} is shared by the system or other users, and the prolog's parent directory "
            "is made root's own with mode 0711; name a directory of its own, e.g. /run/slurm-oci/{user}"
        ]
    return []


JOB_SUBMIT_SAMPLES = ("gpu-policy",)


def check_job_submit(cluster: Cluster) -> list[str]:
    """cluster_job_submit: a known sample or a site's file, the sample's partitions declared and consistent, and
    JobSubmitPlugins left to the model."""
    submit = cluster.job_submit
    where = "cluster_job_submit"
    if not submit.enabled:
        return []
    errors: list[str] = []
    if any(key.lower() == "jobsubmitplugins" for key, _ in cluster.slurm_config):
        errors.append(
            "cluster_slurm_config.JobSubmitPlugins: cluster_job_submit writes it (lua); remove it from "
            "cluster_slurm_config or drop cluster_job_submit"
        )
    if not submit.sample:
        if ".." in submit.script.split("/"):
            errors.append(
                f"{where}.script: '{submit.script}' climbs out of its directory with '..'; give the absolute path "
                "of the site's job_submit.lua on the Ansible controller"
            )
        return errors
    if submit.script not in JOB_SUBMIT_SAMPLES:
        samples = ", ".join(JOB_SUBMIT_SAMPLES)
        errors.append(
            f"{where}.script: '{submit.script}' is not a sample ({samples}); name the site's file by its path"
        )
        return errors
    names = {p.name for p in cluster.partitions}
    for key, values in (
        ("gpu_partitions", submit.gpu_partitions),
        ("gpu_partition", (submit.gpu_partition,) if submit.gpu_partition else ()),
        ("cpu_partition", (submit.cpu_partition,) if submit.cpu_partition else ()),
    ):
        unknown = [name for name in values if name not in names]
        if unknown:
            errors.append(f"{where}.{key}: {', '.join(unknown)} not in cluster_partitions ({', '.join(sorted(names))})")
    if not submit.gpu_partitions:
        errors.append(
            f"{where}.gpu_partitions: no partition holds GPU nodes only, so gpu-policy has nothing to enforce; "
            "name the GPU partitions or drop cluster_job_submit"
        )
    elif submit.gpu_partition not in submit.gpu_partitions:
        errors.append(
            f"{where}.gpu_partition: '{submit.gpu_partition}' is not one of gpu_partitions "
            f"({', '.join(submit.gpu_partitions)}); a GPU job naming no partition must land where GPU jobs go"
        )
    if submit.cpu_partition and submit.cpu_partition in submit.gpu_partitions:
        errors.append(
            f"{where}.cpu_partition: '{submit.cpu_partition}' is one of gpu_partitions, which refuse jobs "
            "without GPUs; name a partition with CPU nodes, or leave cpu_partition out"
        )
    if submit.max_time and submit.max_time.upper() in ("UNLIMITED", "INFINITE"):
        errors.append(f"{where}.max_time: '{submit.max_time}' caps nothing; give a time or leave max_time out")
    elif submit.max_time and not TIME_RE.match(submit.max_time):
        errors.append(f"{where}.max_time: '{submit.max_time}' is not a Slurm time")
    return errors


# Directories a job may get a private copy of (job_container/tmpfs Dirs) although SYSTEM_TREES holds them: scratch.
PRIVATE_DIRS = frozenset({"/tmp", "/var/tmp", "/dev/shm"})


def check_job_tmpfs(cluster: Cluster) -> list[str]:
    """cluster_job_tmpfs: absolute paths, the base outside the private directories, Dirs only where Slurm reads it."""
    tmpfs = cluster.job_tmpfs
    where = "cluster_job_tmpfs"
    if not tmpfs.enabled:
        return []
    errors = [
        f"{where}.{key}: '{path}' is not an absolute path"
        for key, paths in (("base_path", (tmpfs.base_path,)), ("dirs", tmpfs.dirs))
        for path in paths
        if not path.startswith("/") or any(c in path for c in " ,=")
    ]
    hidden = [d for d in tmpfs.dirs if d.rstrip("/") in SYSTEM_TREES - PRIVATE_DIRS]
    if hidden:
        errors.append(
            f"{where}.dirs: {', '.join(hidden)} would be an empty directory of its own in each job, hiding what the "
            "node has there (the users' files, the shared storage, the system's); make private only scratch "
            "directories such as /tmp, /var/tmp and /dev/shm"
        )
    inside = [d for d in tmpfs.dirs if within(tmpfs.base_path, d)]
    if inside:
        errors.append(
            f"{where}.base_path: {tmpfs.base_path} is inside {', '.join(inside)}, which each job gets a private copy "
            "of; put it elsewhere on the node's local disk (e.g. "
            f"{'/var/lib/slurm-jobs' if any(d.startswith('/var/tmp') for d in inside) else '/var/tmp/slurm-jobs'})"
        )
    if tuple(tmpfs.dirs) != JobTmpfs().dirs and not cluster.release.has("job_container_dirs"):
        errors.append(
            f"{where}.dirs: Slurm {cluster.release} makes /tmp and /dev/shm private and reads no other list (Dirs= "
            f"needs {cluster.release.introducing('job_container_dirs')}); leave dirs out"
        )
    return errors


def check_health_check(cluster: Cluster) -> list[str]:
    errors = []
    health = cluster.health_check
    where = "cluster_health_check"
    unknown = [state for state in health.node_state if state not in HEALTH_NODE_STATES]
    if unknown:
        errors.append(f"{where}.node_state: {', '.join(unknown)} not one of {', '.join(sorted(HEALTH_NODE_STATES))}")
    if health.node_state == ("CYCLE",):
        errors.append(f"{where}.node_state: CYCLE only spreads the runs; name the states too, e.g. [ANY, CYCLE]")
    for state, feature in HEALTH_STATE_FEATURES.items():
        if state in health.node_state and not cluster.release.has(feature):
            errors.append(
                f"{where}.node_state: {state} needs Slurm {Release.introducing(feature)} or later "
                f"(cluster is {cluster.release})"
            )
    if 0 < health.interval < 10:
        errors.append(
            f"{where}.interval: {health.interval} s would run the check almost continuously on every node; "
            "use 0 (off) or at least 10 (sites use 300-600)"
        )
    for path, count in Counter(mount.path for mount in health.mounts).items():
        if count > 1:
            errors.append(f"{where}.mounts: {path} is listed {count} times; keep one entry per mount point")
    bad = [name for name in health.services if not re.fullmatch(r"[A-Za-z0-9@._:-]+", name)]
    if bad:
        errors.append(f"{where}.services: {', '.join(map(repr, bad))} are not systemd unit names")
    small = [
        nt for nt in cluster.node_types if health.min_free_memory_mb and nt.real_memory_mb <= health.min_free_memory_mb
    ]
    if small:
        names = ", ".join(f"{nt.name} ({nt.real_memory_mb} MiB)" for nt in small)
        errors.append(
            f"{where}.min_free_memory_mb: {health.min_free_memory_mb} MiB is not below the memory of node type "
            f"{names}: the check would fail on every such node and drain it; give less than its real_memory_mb"
        )
    return errors


# A host name (RFC 1123 labels) or an IP address: what nullmailer's remotes and Slurm's MailDomain take.
DNS_NAME = re.compile(
    r"(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
)


def check_mail(cluster: Cluster) -> list[str]:
    errors = []
    mail = cluster.mail
    if mail.relay and not (
        DNS_NAME.fullmatch(mail.relay) or netaddr.valid_ipv4(mail.relay) or netaddr.valid_ipv6(mail.relay)
    ):
        hint = "; give the port as cluster_mail.port" if ":" in mail.relay else ""
        errors.append(
            f"cluster_mail.relay: {mail.relay!r} is no host name or IP address; give the site's SMTP relay, e.g. "
            f"smtp.example.org{hint}"
        )
    if mail.domain and not DNS_NAME.fullmatch(mail.domain):
        errors.append(f"cluster_mail.domain: {mail.domain!r} is no domain name; e.g. example.org (users' mail domain)")
    if mail.domain and not mail.relay:
        errors.append(
            "cluster_mail.domain is set but cluster_mail.relay is empty: without a relay no mail leaves the "
            "controllers; give the site's SMTP relay, or remove cluster_mail"
        )
    return errors


# slurm.conf keys that name one directory or file on the daemons' hosts: an absolute path (a relative one is taken
# from the daemon's working directory, /; the roles that create, share and back up StateSaveLocation cannot follow).
PATH_KEYS = frozenset(
    {
        "statesavelocation",
        "slurmdspooldir",
        "slurmctldlogfile",
        "slurmdlogfile",
        "slurmschedlogfile",
        "slurmctldpidfile",
        "slurmdpidfile",
        "tmpfs",
    }
)


# The daemons' own directories (the slurm role owns them; playbooks/restore-state.yml empties StateSaveLocation
# before it unpacks an archive) and the system trees none of them may be.
SPOOL_KEYS = {"statesavelocation": "slurmctld", "slurmdspooldir": "slurmd"}
SYSTEM_TREES = frozenset(
    {"", "/etc", "/usr", "/var", "/var/lib", "/var/spool", "/var/log", "/var/tmp", "/home", "/tmp", "/opt", "/root"}
    | {"/boot", "/dev", "/proc", "/sys", "/run", "/srv", "/mnt", "/media", "/bin", "/sbin", "/lib", "/apps", "/data"}
)


def typed_sources(cluster: Cluster) -> dict[str, tuple[str, str]]:
    """slurm.conf keys (lower case) the model writes from a setting this inventory gives -> (that setting, where to
    set the key instead): the same key in cluster_slurm_config would replace the model's value, one of the two lost
    without a word."""
    scheduling, scripts = cluster.scheduling, cluster.job_scripts
    sources: dict[str, str] = {}
    if scheduling.scheduler_parameters:
        sources["schedulerparameters"] = "cluster_scheduling.scheduler_parameters"
    if scheduling.preempt_exempt_time:
        sources["preemptexempttime"] = "cluster_scheduling.preempt.exempt_time"
    if scheduling.tres_weights:
        sources["priorityweighttres"] = "cluster_scheduling.priority.tres_weights"
    for name, _weight in scheduling.priority_weights:
        sources["priorityweight" + name.replace("_", "")] = f"cluster_scheduling.priority.weights.{name}"
    # (JobSubmitPlugins with cluster_job_submit: check_job_submit's)
    if cluster.rest_api.enabled:
        sources["authalttypes"] = sources["authaltparameters"] = "cluster_rest_api (JSON Web Tokens, its key's path)"
    for kind in ("prolog", "epilog", "prolog_slurmctld", "epilog_slurmctld", "task_prolog", "task_epilog"):
        if getattr(scripts, kind):
            sources[kind.replace("_", "")] = f"cluster_job_scripts.{kind}"
    found = {key: (source, source) for key, source in sources.items()}
    implied = [
        name
        for name, on in (("cluster_pam_adopt", cluster.pam_adopt), ("cluster_job_tmpfs", cluster.job_tmpfs.enabled))
        if on
    ]
    if scripts.prolog_flags or implied:
        named = ["cluster_job_scripts.prolog_flags"] if scripts.prolog_flags else []
        found["prologflags"] = (
            " and ".join(named + [f"the Contain {name} needs (the job's extern step)" for name in implied]),
            "cluster_job_scripts.prolog_flags",
        )
    return found


def _list_words(value: object) -> set[str]:
    """The words of a comma-separated slurm.conf value (or a list of them), in lower case."""
    items = value if isinstance(value, (list, tuple)) else str(value).split(",")
    return {str(item).strip().lower() for item in items if str(item).strip()}


def kept_setting_errors(cluster: Cluster) -> list[str]:
    """cluster_slurm_config values that would take out what the deployment needs of a key the model writes: the
    configless flag of SlurmctldParameters (slurmd fetches its files from slurmctld), proctrack/cgroup and task/cgroup
    of TaskPlugin (cgroup.conf's confinement of cores, memory and GPUs goes through it)."""
    errors = []
    for key, value in cluster.slurm_config:
        words = _list_words(value) if value is not None else set()
        if key.lower() == "slurmctldparameters" and cluster.configless and "enable_configless" not in words:
            errors.append(
                f"cluster_slurm_config.{key}: {value!r} leaves out enable_configless, which configless slurmd needs "
                "(cluster_configless: every node fetches its files from slurmctld, and would not start without it); "
                "add enable_configless to the list"
            )
        elif key.lower() == "proctracktype" and not (words and words <= {"proctrack/cgroup", "cgroup"}):
            errors.append(
                f"cluster_slurm_config.{key}: {value!r} is not proctrack/cgroup, which the deployment relies on: a "
                "job's processes are the job's cgroup (its ending kills them all, pam_slurm_adopt puts ssh sessions "
                "there, the GPU clean-up finds them there); leave ProctrackType to the model"
            )
        elif key.lower() == "taskplugin" and not words & {"task/cgroup", "cgroup"}:
            errors.append(
                f"cluster_slurm_config.{key}: {value!r} leaves out task/cgroup, through which jobs are confined to "
                "their cores, memory and GPUs (cgroup.conf); keep task/cgroup in the list (task/cgroup,task/affinity)"
            )
    return errors


def check_slurm_config(cluster: Cluster) -> list[str]:
    errors = kept_setting_errors(cluster)
    release = str(cluster.release)
    typed = typed_sources(cluster)
    for key, value in cluster.slurm_config:
        owner = MODEL_OWNED_KEYS.get(key.lower())
        source = typed.get(key.lower())
        if owner:
            errors.append(f"cluster_slurm_config.{key}: written by the model; set {owner} instead")
        elif source:
            errors.append(
                f"cluster_slurm_config.{key}: the model writes {key} from {source[0]}, which this inventory sets; "
                f"the value here would replace the model's and lose it - set it in one place: {source[1]}"
            )
        elif key.lower() in PATH_KEYS and not re.fullmatch(r"/[^\s,]*", str(value)):
            errors.append(
                f"cluster_slurm_config.{key}: {value!r} is not an absolute path; the daemons would take it from "
                "their working directory - write the full path, e.g. /var/spool/slurmctld"
            )
        elif key.lower() in SPOOL_KEYS and str(value).rstrip("/") in SYSTEM_TREES:
            errors.append(
                f"cluster_slurm_config.{key}: {value} is a system directory; the roles make it the daemon's own "
                "(owner, mode) and a state restore empties it - give the daemon a directory of its own, e.g. "
                f"{str(value).rstrip('/')}/{SPOOL_KEYS[key.lower()]}"
            )
        elif key.lower() != "include":
            unknown = key_error(f"cluster_slurm_config.{key}", key, "slurm.conf", release)
            errors += [unknown] if unknown else plugin_errors(f"cluster_slurm_config.{key}", key, value, release)
            errors += [] if unknown else option_errors(f"cluster_slurm_config.{key}", key, value, release)
            wrong = "" if unknown else value_error(key, value, release)
            errors += [f"cluster_slurm_config.{key}: {wrong}"] if wrong else []
            if key.lower() == "selecttype" and str(value).strip().lower() == "select/linear":
                errors.append(
                    "cluster_slurm_config.SelectType: select/linear gives jobs whole nodes and refuses the "
                    f"SelectTypeParameters the cluster needs ({','.join(cluster.scheduling.select_type_parameters)}: "
                    "slurmctld stops with 'Invalid SelectTypeParameters for select/linear'); GPUs are shared out per "
                    "job by select/cons_tres - remove SelectType (OverSubscribe=EXCLUSIVE on a partition gives whole "
                    "nodes)"
                )
        if key.lower() == "include" and cluster.configless and "/" in str(value):
            errors.append(
                f"cluster_slurm_config.Include: '{value}' has a path; configless slurmd only receives "
                "include files named without a directory next to slurm.conf"
            )
    return errors


# The ports of the model's slurm.conf and slurmdbd.conf (slurmconf.py writes them; the firewall opens them).
SLURMCTLD_PORT = 6817
SLURMD_PORT = 6818
DBD_PORT = 6819  # slurmdbd.conf's DbdPort, as the accounting role writes it
SRUN_PORT_RANGE = "60001-63000"
HIGHEST_PORT = 65535
PRIVILEGED_PORTS = 1024  # below it only root listens


def _port_span(value: object) -> tuple[int, int] | None:
    """(first, last) of a port or a range of ports ("6817", "6817-6820"); None for another form."""
    match = re.fullmatch(r"(\d+)(?:-(\d+))?", str(value).strip())
    return (int(match.group(1)), int(match.group(2) or match.group(1))) if match else None


def _port_error(key: str, value: object, ranged: bool) -> str:
    """A daemon's port (``ranged``: or a rising range of them, as SlurmctldPort) as slurmctld and the firewall read
    it; "" when it is one."""
    span = _port_span(value)
    if span is not None and 0 < span[0] <= span[1] <= HIGHEST_PORT and (ranged or span[0] == span[1]):
        return ""
    form = "a port or a rising range of ports" if ranged else "a port"
    why = (
        f"slurmctld stops on it ('Invalid {key}')"
        if ranged and span and span[0] > span[1]
        else "the daemons and the host firewall cannot listen on it"
    )
    example = f"{SLURMCTLD_PORT} or {SLURMCTLD_PORT}-{SLURMCTLD_PORT + 3}" if ranged else str(SLURMD_PORT)
    return f"cluster_slurm_config.{key}: {value!r} is not {form} (1-{HIGHEST_PORT}): {why}; write e.g. {example}"


def _srun_range_error(key: str, value: object) -> str:
    """SrunPortRange as Slurm reads it: two ports, the first lower, or none at all (without a word); "" when srun, run
    as the job's user, can listen in it."""
    span = _port_span(value)
    if span is None or not span[0] < span[1] <= HIGHEST_PORT:
        return (
            f"cluster_slurm_config.{key}: {value!r} is not two ports, the first lower (up to {HIGHEST_PORT}): "
            "Slurm ignores it without a word (scontrol show config: SrunPortRange = 0-0), and srun then listens on "
            "any port, which the host firewall closes - every srun of a job would wait. Write a range, e.g. "
            f"{SRUN_PORT_RANGE}"
        )
    if span[0] < PRIVILEGED_PORTS:
        return (
            f"cluster_slurm_config.{key}: {value!r} starts below {PRIVILEGED_PORTS}: srun runs as the job's user, "
            f"who cannot listen there. Write a range above {PRIVILEGED_PORTS - 1}, e.g. {SRUN_PORT_RANGE}"
        )
    return ""


def check_ports(cluster: Cluster) -> list[str]:
    """The ports of cluster_slurm_config as the daemons read them: slurmctld stops on a falling SlurmctldPort range;
    Slurm ignores an SrunPortRange that is not two ports, the first lower, without a word (srun then listens on any
    port, which the host firewall closes); a port above 65535 is none (the firewall refuses it, mid-run);
    AccountingStoragePort must be the port the accounting role's slurmdbd listens on; a controller that runs jobs
    cannot hold slurmd's port in slurmctld's range."""
    settings = {key.lower(): (str(key), value) for key, value in cluster.slurm_config}
    ctld_key, ctld_value = settings.get("slurmctldport", ("SlurmctldPort", SLURMCTLD_PORT))
    slurmd_key, slurmd_value = settings.get("slurmdport", ("SlurmdPort", SLURMD_PORT))
    ctld_error = _port_error(ctld_key, ctld_value, ranged=True)
    slurmd_error = _port_error(slurmd_key, slurmd_value, ranged=False)
    errors = [error for error in (ctld_error, slurmd_error) if error]
    if "srunportrange" in settings:
        errors += [error for error in [_srun_range_error(*settings["srunportrange"])] if error]
    key, value = settings.get("accountingstorageport", ("AccountingStoragePort", DBD_PORT))
    if str(value).strip() != str(DBD_PORT):
        errors.append(
            f"cluster_slurm_config.{key}: {value!r}, but slurmdbd listens on {DBD_PORT} (slurmdbd.conf's DbdPort, "
            "which the accounting role writes): slurmctld would reach no slurmdbd and hold every record it "
            f"sends. Remove it (the model writes {DBD_PORT})"
        )
    # (a port refused above leaves the model's in its place)
    ctld = _port_span(SLURMCTLD_PORT if ctld_error else ctld_value) or (SLURMCTLD_PORT, SLURMCTLD_PORT)
    slurmd = (_port_span(SLURMD_PORT if slurmd_error else slurmd_value) or (SLURMD_PORT, SLURMD_PORT))[0]
    if cluster.controllers_run_jobs and ctld[0] <= slurmd <= ctld[1]:
        errors.append(
            f"cluster_slurm_config: SlurmdPort {slurmd} is in SlurmctldPort {ctld[0]}-{ctld[1]}, and the controllers "
            "run jobs (cluster_controllers_run_jobs): slurmd and slurmctld cannot both listen there. Give slurmd "
            "another port"
        )
    return errors + _rest_port_errors(cluster, ctld, slurmd)


def _rest_port_errors(cluster: Cluster, ctld: tuple[int, int], slurmd: int) -> list[str]:
    """slurmrestd listens on the controllers beside slurmctld (its port range), slurmd where the controllers run jobs
    and slurmdbd where a controller is a dbd host: a port one of them holds leaves slurmrestd or the daemon down."""
    api = cluster.rest_api
    if not api.enabled:
        return []
    span = str(ctld[0]) if ctld[0] == ctld[1] else f"{ctld[0]}-{ctld[1]}"
    taken = [(ctld[0] <= api.port <= ctld[1], f"slurmctld's (SlurmctldPort {span})")]
    taken.append((cluster.controllers_run_jobs and api.port == slurmd, f"slurmd's (SlurmdPort {slurmd})"))
    taken.append((bool(set(cluster.dbd) & set(cluster.controllers)) and api.port == DBD_PORT, "slurmdbd's"))
    return [
        f"cluster_rest_api.port: {api.port} is {owner} on the controllers, where slurmrestd listens too; give the REST "
        "API another port (default 6820)"
        for clash, owner in taken
        if clash
    ]


def check_slurm_metrics(cluster: Cluster) -> list[str]:
    """slurmctld turns its metrics off when PrivateData is set (they would show what PrivateData hides)."""
    if not (cluster.slurm_metrics and cluster.release.has("openmetrics")):
        return []
    if any(key.lower() == "privatedata" for key, _ in cluster.slurm_config):
        return [
            "cluster_slurm_metrics: slurmctld serves no metrics while PrivateData is set (cluster_slurm_config."
            "PrivateData); set cluster_slurm_metrics: false, or drop PrivateData"
        ]
    if any(key.lower() == "metricstype" for key, _ in cluster.slurm_config):
        return ["cluster_slurm_config.MetricsType: written by the model; set cluster_slurm_metrics instead"]
    return []


def check_fabric(cluster: Cluster) -> list[str]:
    fabric = cluster.fabric
    errors: list[str] = []
    compute = set(cluster.compute)
    if fabric.topology == "tree" and not fabric.switches:
        errors.append(
            "cluster_fabric.topology: tree, but no switches; describe them with switches, fat_tree or dragonfly"
        )
    if fabric.topology == "block" and not fabric.blocks:
        errors.append(
            "cluster_fabric.topology: block, but no blocks; describe them with blocks.blocks or blocks.nodes_per_block"
        )
    if fabric.blocks and not cluster.release.topology_block:
        errors.append(
            f"cluster_fabric.blocks: topology/block needs Slurm >= 23.11, but cluster_slurm_release is "
            f"{cluster.release}; remove the blocks or upgrade"
        )
    if fabric.switches:
        errors += _check_tree(cluster, compute)
    if fabric.blocks:
        errors += _check_blocks(cluster)
    return errors


def _check_tree(cluster: Cluster, compute: set[str]) -> list[str]:
    fabric = cluster.fabric
    errors: list[str] = []
    by_name = {s.name: s for s in fabric.switches}
    duplicates = [n for n, c in Counter(s.name for s in fabric.switches).items() if c > 1]
    if duplicates:
        errors.append(f"cluster_fabric.switches: {', '.join(duplicates)} declared more than once")
    odd = [s.name for s in fabric.switches if not re.fullmatch(r"[A-Za-z0-9_.-]+", s.name)]
    if odd:
        errors.append(
            f"cluster_fabric.switches: {', '.join(repr(name) for name in odd)} are no switch names topology.conf can "
            "carry (SwitchName=...: letters, digits, '-', '_' and '.'); rename them"
        )
    clash = sorted(set(by_name) & (set(cluster.groups.get("all", ())) | compute))
    if clash:
        errors.append(f"cluster_fabric.switches: {', '.join(clash)} are also host names; switch names must differ")
    parents: dict[str, list[str]] = {}
    for switch in fabric.switches:
        for child in switch.switches:
            if child not in by_name:
                errors.append(f"cluster_fabric.switches.{switch.name}.switches: '{child}' is not a declared switch")
            parents.setdefault(child, []).append(switch.name)
        unknown = [h for h in switch.nodes if h not in compute]
        if unknown:
            errors.append(f"cluster_fabric.switches.{switch.name}.nodes: {_hosts(unknown)} are not compute hosts")
    empty = sorted(switch.name for switch in fabric.switches if not switch.nodes and not switch.switches)
    if empty:
        errors.append(
            f"cluster_fabric.switches: {', '.join(empty)} connect no node and no switch; slurmctld refuses a "
            "switch without links. Give each nodes or switches, or remove it"
        )
    errors += _check_cycles(by_name)
    leaf_of: dict[str, list[str]] = {}
    for switch in fabric.switches:
        for host in switch.nodes:
            leaf_of.setdefault(host, []).append(switch.name)
    twice = sorted(h for h, owners in leaf_of.items() if len(owners) > 1)
    if twice:
        errors.append(
            f"cluster_fabric.switches: hosts {_hosts(twice)} hang off more than one leaf switch; give "
            "each node one leaf"
        )
    orphans = sorted(compute - set(leaf_of))
    if orphans:
        errors.append(
            f"cluster_fabric: compute hosts {_hosts(orphans)} hang off no switch; Slurm's tree plugin "
            "needs every node under a leaf switch"
        )
    roots = sorted(name for name in by_name if name not in parents)
    if len(roots) > 1 and not fabric.allow_disconnected:
        errors.append(
            f"cluster_fabric.switches: {len(roots)} top-level switches ({', '.join(roots[:10])}) with no "
            "common parent; jobs could not span them. Add a switch over them, or set "
            "cluster_fabric.allow_disconnected: true for separate islands"
        )
    return errors


def _check_cycles(by_name: dict[str, Switch]) -> list[str]:
    state: dict[str, int] = {}
    cycles: list[str] = []

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for child in by_name[name].switches:
            if child not in by_name:
                continue
            if state.get(child) == 1:
                loop = [*path[path.index(child) :], child] if child in path else [name, child]
                cycles.append(" -> ".join(loop))
            elif child not in state:
                visit(child, [*path, child])
        state[name] = 2

    for name in by_name:
        if name not in state:
            visit(name, [name])
    return [f"cluster_fabric.switches: cycle {cycle}; a switch tree has no loops" for cycle in cycles]


def _check_blocks(cluster: Cluster) -> list[str]:
    fabric = cluster.fabric
    errors: list[str] = []
    sizes = fabric.block_sizes
    for smaller, larger in itertools.pairwise(sizes):
        ratio, remainder = divmod(larger, smaller)
        if remainder or ratio < 2 or ratio & (ratio - 1):
            errors.append(
                f"cluster_fabric.blocks.block_sizes: {larger} is not a power-of-two multiple of {smaller}; "
                "each size must double (x2, x4, ...) the one before"
            )
    base = sizes[0] if sizes else 0
    members: dict[str, list[str]] = {}
    wanted = {h for nt in cluster.node_types if nt.name in fabric.block_node_types for h in nt.hosts}
    for block in fabric.blocks:
        if base and len(block.nodes) < base:
            errors.append(
                f"cluster_fabric.blocks.{block.name}: {len(block.nodes)} nodes, fewer than the base block "
                f"size {base}; Slurm cannot plan a smaller block. Fill it or lower block_sizes[0]"
            )
        unknown = [h for h in block.nodes if h not in set(cluster.compute)]
        if unknown:
            errors.append(f"cluster_fabric.blocks.{block.name}: {_hosts(unknown)} are not compute hosts")
        for host in block.nodes:
            members.setdefault(host, []).append(block.name)
    twice = sorted(h for h, owners in members.items() if len(owners) > 1)
    if twice:
        errors.append(f"cluster_fabric.blocks: hosts {_hosts(twice)} are in more than one block")
    orphans = sorted(wanted - set(members))
    if orphans:
        errors.append(
            f"cluster_fabric.blocks: hosts {_hosts(orphans)} of node types "
            f"{', '.join(fabric.block_node_types)} are in no block; add them or narrow blocks.node_types"
        )
    unknown_types = [t for t in fabric.block_node_types if cluster.node_type(t) is None]
    if unknown_types:
        errors.append(
            f"cluster_fabric.blocks.node_types: {', '.join(unknown_types)} not declared in cluster_node_types"
        )
    return errors


RULES: tuple[Rule, ...] = (
    check_cluster_name,
    check_role_groups,
    check_host_names,
    check_controllers,
    check_node_types,
    check_node_type_overlap,
    check_partitions,
    check_partition_limits,
    check_qos,
    check_scheduling,
    check_job_scripts,
    check_job_submit,
    check_job_tmpfs,
    check_health_check,
    check_mail,
    check_slurm_config,
    check_ports,
    check_slurm_metrics,
    check_fabric,
)


def validate_cluster(cluster: Cluster) -> list[str]:
    """Every rule's errors, in rule order."""
    errors: list[str] = []
    for rule in RULES:
        errors += rule(cluster)
    return errors
