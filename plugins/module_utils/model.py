"""The cluster model: one typed description of a Slurm GPU cluster, built from the Ansible inventory.

``build_cluster(spec, groups)`` reads the ``cluster_*`` variables (passed as ``spec``, keys without the
prefix) and the inventory's ``groups`` mapping, and returns a :class:`Cluster`, or raises
:class:`InventoryError` listing every problem found. Shape errors (wrong types, unknown keys) are found
here; cross-object rules live in :mod:`validate`. Every generator reads the model, never the raw inventory.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .associations import tres_text
from .cluster_types import (
    Block,
    Cluster,
    Fabric,
    GpuSpec,
    HealthCheck,
    InventoryError,
    JobScripts,
    JobSubmit,
    JobTmpfs,
    Mail,
    Mount,
    NodeType,
    Partition,
    Qos,
    RestApi,
    Scheduling,
    Switch,
)
from .federation import federation_errors, pod_names, scope_to_pod
from .hostlist import HostlistError, expand, fold
from .ibnetdiscover import DumpError, tree
from .releases import DEFAULT_RELEASE, KNOWN_RELEASES, Release
from .schema import keys
from .topology import block_layout, dragonfly_switches, fat_tree_switches
from .validate import validate_cluster
from .values import FALSE_WORDS, TRUE_WORDS, unsafe_values

# Inventory groups the model reads; each must exist (it may be empty where the phase allows).
GROUP_CONTROLLERS = "controllers"
GROUP_DBD = "dbd"
GROUP_LOGIN = "login"
GROUP_COMPUTE = "compute"
GROUP_STORAGE = "storage"
ROLE_GROUPS = (GROUP_CONTROLLERS, GROUP_DBD, GROUP_LOGIN, GROUP_COMPUTE, GROUP_STORAGE)

AUTODETECT_METHODS = ("off", "nvml", "nvidia", "full")
TOPOLOGY_PLUGINS = ("none", "tree", "block")


class _Reader:
    """Reads typed values out of the raw inventory, collecting an error per bad value."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        # the integers refused (missing, of another kind, out of range): the rules do not judge the stand-in read in
        # their place
        self.refused: set[str] = set()

    def error(self, message: str) -> None:
        self.errors.append(message)

    def refuse(self, path: str, message: str) -> None:
        """An error about the value at ``path``, which the reader replaces with a stand-in."""
        self.error(f"{path}: {message}")
        self.refused.add(path)

    def mapping(self, value: Any, where: str) -> Mapping[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.error(f"{where}: expected a mapping (YAML dict), got {_kind(value)}")
            return {}
        return value

    def unknown_keys(self, data: Mapping[str, Any], allowed: Sequence[str], where: str) -> None:
        for key in data:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.7)
                hint = f"did you mean '{close[0]}'? " if close else ""
                self.error(f"{where}: unknown key '{key}'; {hint}allowed keys are {', '.join(sorted(allowed))}")

    def integer(
        self,
        data: Mapping[str, Any],
        key: str,
        where: str,
        *,
        default: int | None = None,
        minimum: int = 0,
        maximum: int = 2**32 - 2,
    ) -> int | None:
        value = data.get(key, default)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            # digits as a string, or a whole number with a zero fraction (2000000.0 from a planning document's export)
            whole = isinstance(value, float) and value.is_integer()
            if whole or (isinstance(value, str) and value.strip().isdigit()):
                value = int(value)
            else:
                self.refuse(_at(where, key), f"expected an integer, got {_kind(value)} {value!r}")
                return default
        if not minimum <= value <= maximum:
            self.refuse(_at(where, key), f"{value} is out of range {minimum}..{maximum}")
            return default
        return int(value)

    def required_int(
        self, data: Mapping[str, Any], key: str, where: str, *, minimum: int = 1, maximum: int = 2**32 - 2
    ) -> int:
        if key not in data:
            self.error(f"{where}: missing required key '{key}' (an integer >= {minimum})")
            self.refused.add(_at(where, key))
            return minimum
        value = self.integer(data, key, where, minimum=minimum, maximum=maximum)
        return minimum if value is None else value

    def string(
        self,
        data: Mapping[str, Any],
        key: str,
        where: str,
        *,
        default: str = "",
        choices: Sequence[str] = (),
        numbers: bool = False,
    ) -> str:
        value = data.get(key, default)
        if value is None:
            return default
        if isinstance(value, bool):
            self.error(
                f"{_at(where, key)}: expected a string, got a boolean; YAML reads yes/no/on/off/true/false unquoted as "
                "booleans - quote it"
            )
            return default
        if isinstance(value, float):
            self.error(
                f"{_at(where, key)}: expected a string, got the number {value!r}; YAML drops a release's or a "
                f"version's trailing zero (23.10 -> 23.1) - quote it"
            )
            return default
        if isinstance(value, int):
            if not numbers:
                self.error(
                    f"{_at(where, key)}: expected a string, got the number {value}; YAML reads unquoted digits as a "
                    "number (a leading 0 as octal: 024 -> 20) - quote it"
                )
                return default
            value = str(value)
        if not isinstance(value, str):
            self.error(f"{_at(where, key)}: expected a string, got {_kind(value)}")
            return default
        if choices and value not in choices:
            # Slurm reads its words in any case (State=up, AutoDetect=NVML): the choice as the model spells it
            spelled = {choice.lower(): choice for choice in choices}
            if value.lower() in spelled:
                return spelled[value.lower()]
            self.error(f"{_at(where, key)}: '{value}' is not one of {', '.join(choices)}")
            return default
        return value

    def time(self, data: Mapping[str, Any], key: str, where: str, *, default: str = "") -> str:
        """A Slurm time (minutes, [D-]HH:MM[:SS], UNLIMITED); a whole number is minutes, as Slurm reads it. (An
        unquoted 48:00:00 in an inventory file reaches here as YAML 1.1's base-60 number 172800: the inventory's text
        is read for such spots, named by file and line - plugin_utils/inventory_text.py.)"""
        value = data.get(key, default)
        if isinstance(value, int) and not isinstance(value, bool):
            if value >= 0:
                return str(value)
            self.error(f"{_at(where, key)}: {value} is not a time; give minutes (0 or more), HH:MM:SS or D-HH:MM:SS")
            return default
        text = self.string(data, key, where, default=default)
        # UNLIMITED and INFINITE in any case, as slurmctld and sacctmgr read them
        return text.upper() if text.upper() in ("UNLIMITED", "INFINITE") else text

    def boolean(self, data: Mapping[str, Any], key: str, where: str, *, default: bool = False) -> bool:
        """true/false, or the words Ansible's bool filter reads (-e key=false arrives as the string 'false')."""
        value = data.get(key, default)
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in TRUE_WORDS | FALSE_WORDS:
            return value.strip().lower() in TRUE_WORDS
        self.error(f"{_at(where, key)}: expected true or false, got {_kind(value)} {value!r}; write true or false")
        return default

    def strings(self, data: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = data.get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            return tuple(item.strip() for item in value.split(",") if item.strip())
        if isinstance(value, Sequence) and any(isinstance(v, (bool, float)) for v in value):
            self.error(
                f"{_at(where, key)}: {list(value)!r} holds a boolean or a decimal number where a word belongs; YAML "
                "reads unquoted yes/no/on/off/true/false as booleans (OFF -> false) and drops trailing zeros - "
                "quote each item"
            )
            return ()
        if isinstance(value, Sequence) and all(isinstance(v, (str, int)) for v in value):
            return tuple(str(v) for v in value)
        self.error(f"{_at(where, key)}: expected a list of strings, got {_kind(value)}")
        return ()

    def hosts(self, value: Any, where: str) -> tuple[str, ...]:
        """A hostlist expression or a list of them."""
        if value is None:
            return ()
        if not isinstance(value, (str, list, tuple)):
            self.error(f"{where}: expected a hostlist expression or a list of them, got {_kind(value)}")
            return ()
        try:
            return tuple(expand(value if isinstance(value, str) else [str(v) for v in value]))
        except HostlistError as exc:
            self.error(f"{where}: cannot parse hostlist {value!r}: {exc}")
            return ()


def _at(where: str, key: str) -> str:
    """Where a key's value sits: cluster_configless for a top-level variable, cluster_partitions[gpu].max_time
    for a key of a mapping."""
    return where if where == f"cluster_{key}" else f"{where}.{key}"


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, float):
        return "the fraction"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, Sequence):
        return "a list"
    return type(value).__name__


# The keys of each mapping: data of schema.py, which also writes docs/inventory.md's reference.
NODE_TYPE_KEYS = keys("cluster_node_types.<type>")
GPU_KEYS = keys("cluster_node_types.<type>.gpu")
PARTITION_KEYS = keys("cluster_partitions[]")
QOS_KEYS = keys("cluster_qos.<name>")
FABRIC_KEYS = keys("cluster_fabric")
SWITCH_KEYS = keys("cluster_fabric.switches.<name>")
FAT_TREE_KEYS = keys("cluster_fabric.fat_tree")
DRAGONFLY_KEYS = keys("cluster_fabric.dragonfly")
BLOCKS_KEYS = keys("cluster_fabric.blocks")
SCHEDULING_KEYS = keys("cluster_scheduling")
PRIORITY_KEYS = keys("cluster_scheduling.priority")
PREEMPT_KEYS = keys("cluster_scheduling.preempt")
ACCOUNTING_KEYS = keys("cluster_accounting")
JOB_SCRIPT_KEYS = keys("cluster_job_scripts")
# The runtime state of the containers role's runtimes, per user on each node: crun's (containers_oci_state_dir/%u)
# and enroot's (ENROOT_RUNTIME_PATH). Batch jobs have no /run/user/<uid>; a world-writable parent would let one user
# make another's directory first. The user-dirs prolog sample makes them.
USER_DIRS = ("/run/slurm-oci/{user}", "/run/enroot/user-{uid}")
USER_DIRS_SCRIPT = "user-dirs"
JOB_SUBMIT_KEYS = keys("cluster_job_submit")
JOB_TMPFS_KEYS = keys("cluster_job_tmpfs")
HEALTH_CHECK_KEYS = keys("cluster_health_check")
MOUNT_KEYS = keys("cluster_health_check.mounts[]")
MAIL_KEYS = keys("cluster_mail")
REST_API_KEYS = keys("cluster_rest_api")
SPEC_KEYS = keys("cluster_*")


def build_cluster(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> Cluster:
    """Build the model, or raise InventoryError with every shape error and every rule broken."""
    reader = _Reader()
    spec = reader.mapping(spec, "cluster spec")
    if not spec.get("pod"):  # a pod's spec was checked whole by build_pods
        unsafe = unsafe_values(spec)
        if unsafe:  # one root cause, one message: nothing is built from such values
            raise InventoryError(unsafe)
    groups = _without_removed_nodes(reader, spec, groups)
    spec, groups, errors = scope_to_pod(spec, groups)
    reader.errors += errors
    cluster = _read_cluster(reader, spec, groups)
    broken = validate_cluster(cluster) if cluster is not None else []
    errors = reader.errors + [error for error in broken if error.partition(":")[0] not in reader.refused]
    if errors:
        raise InventoryError(errors)
    assert cluster is not None
    return cluster


def _without_removed_nodes(
    reader: _Reader, spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]
) -> Mapping[str, Sequence[str]]:
    """The groups without the compute hosts that playbooks/remove-node.yml takes out (cluster_removed_nodes)."""
    removed = reader.hosts(spec.get("removed_nodes"), "cluster_removed_nodes")
    if not removed:
        return groups
    compute = set(groups.get(GROUP_COMPUTE, ()))
    unknown = [host for host in removed if host not in compute]
    if unknown:
        reader.error(
            f"cluster_removed_nodes: {fold(unknown)} {'is' if len(unknown) == 1 else 'are'} not in the inventory's "
            "compute group; name compute hosts "
            "(a hostlist expression such as gpu[07-08]), or nothing once they are deleted from the inventory"
        )
    gone = set(removed)
    return {name: [host for host in hosts if host not in gone] for name, hosts in groups.items()}


def build_pods(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> dict[str, Cluster]:
    """Every cluster of the inventory: {"": the cluster} for one cluster, {pod: its cluster} for a federation.
    Raises InventoryError with every pod's errors (prefixed with the pod) and the rules that span pods."""
    pods = pod_names(spec)
    if not pods:
        return {"": build_cluster(spec, groups)}
    errors = unsafe_values(spec) or federation_errors(spec, groups)
    if errors:
        raise InventoryError(errors)
    result: dict[str, Cluster] = {}
    for pod in pods:
        try:
            result[pod] = build_cluster({**spec, "pod": pod}, groups)
        except InventoryError as exc:
            errors += [f"pod {pod}: {error}" for error in exc.errors]
    if errors:
        raise InventoryError(errors)
    return result


def _read_cluster(reader: _Reader, spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> Cluster | None:
    spec = reader.mapping(spec, "cluster spec")
    reader.unknown_keys(spec, SPEC_KEYS, "cluster spec (variables cluster_*)")
    group_hosts: dict[str, tuple[str, ...]] = {}
    for name, members in groups.items():
        group_hosts[str(name)] = tuple(str(m) for m in members)
    for group in ROLE_GROUPS:
        if group not in group_hosts:
            reader.error(
                f"inventory: group '{group}' is not declared; declare it (it may be empty) "
                "so that every play can target it"
            )
            group_hosts[group] = ()

    name = reader.string(spec, "name", "cluster_name")
    release_text = reader.string(spec, "slurm_release", "cluster_slurm_release", default=DEFAULT_RELEASE)
    if release_text not in KNOWN_RELEASES:
        reader.error(
            f"cluster_slurm_release: '{release_text}' is not a known Slurm release; "
            f"use one of {', '.join(KNOWN_RELEASES)}"
        )
        release_text = DEFAULT_RELEASE
    release = Release.parse(release_text)

    node_types = _read_node_types(reader, spec.get("node_types"), group_hosts)
    partitions = _read_partitions(reader, spec.get("partitions"), node_types, group_hosts)
    qos = _read_qos(reader, spec.get("qos"))
    scheduling = _read_scheduling(reader, spec.get("scheduling"))
    accounting = reader.mapping(spec.get("accounting"), "cluster_accounting")
    reader.unknown_keys(accounting, ACCOUNTING_KEYS, "cluster_accounting")
    fabric = _read_fabric(reader, spec.get("fabric"), node_types)
    slurm_config = reader.mapping(spec.get("slurm_config"), "cluster_slurm_config")
    partitions = tuple(_with_job_defaults(p, node_types, slurm_config) for p in partitions)
    min_memory = reader.integer(spec, "min_node_memory_mb", "cluster_min_node_memory_mb", default=1024)

    return Cluster(
        name=name,
        release=release,
        controllers=group_hosts[GROUP_CONTROLLERS],
        dbd=group_hosts[GROUP_DBD],
        login=group_hosts[GROUP_LOGIN],
        storage=group_hosts[GROUP_STORAGE],
        compute=group_hosts[GROUP_COMPUTE],
        node_types=node_types,
        partitions=partitions,
        qos=qos,
        scheduling=scheduling,
        # (AccountingStorageEnforce's words in any case, as slurmctld reads them)
        accounting_enforce=tuple(word.lower() for word in reader.strings(accounting, "enforce", "cluster_accounting")),
        accounting_tres=reader.strings(accounting, "tres", "cluster_accounting"),
        job_scripts=_read_job_scripts(reader, spec.get("job_scripts")),
        job_submit=_read_job_submit(reader, spec.get("job_submit"), partitions, node_types),
        job_tmpfs=_read_job_tmpfs(reader, spec.get("job_tmpfs")),
        health_check=_read_health_check(reader, spec.get("health_check")),
        mail=_read_mail(reader, spec.get("mail")),
        rest_api=_read_rest_api(reader, spec.get("rest_api")),
        fabric=fabric,
        slurm_config=tuple((str(k), v) for k, v in slurm_config.items()),
        configless=reader.boolean(spec, "configless", "cluster_configless", default=True),
        pam_adopt=reader.boolean(spec, "pam_adopt", "cluster_pam_adopt"),
        slurm_metrics=reader.boolean(spec, "slurm_metrics", "cluster_slurm_metrics", default=True),
        controllers_run_jobs=reader.boolean(spec, "controllers_run_jobs", "cluster_controllers_run_jobs"),
        min_node_memory_mb=1024 if min_memory is None else min_memory,
        groups=group_hosts,
        controller_addresses={
            str(host): str(address)
            for host, address in reader.mapping(
                spec.get("controller_addresses"), "cluster_controller_addresses"
            ).items()
        },
        controller_vip=str(spec.get("controller_vip") or ""),
        federation=str(spec.get("federation") or ""),
    )


def _read_node_types(reader: _Reader, raw: Any, groups: Mapping[str, tuple[str, ...]]) -> tuple[NodeType, ...]:
    data = reader.mapping(raw, "cluster_node_types")
    result: list[NodeType] = []
    for name, raw_body in data.items():
        where = f"cluster_node_types.{name}"
        body = reader.mapping(raw_body, where)
        reader.unknown_keys(body, NODE_TYPE_KEYS, where)
        group = reader.string(body, "group", where, default=str(name))
        if group not in groups:
            reader.error(
                f"{where}.group: inventory group '{group}' does not exist; create it under "
                f"'{GROUP_COMPUTE}' with this node type's hosts"
            )
        if "cpus" in body and not {"sockets", "cores_per_socket", "threads_per_core"} & set(body):
            # CPUs alone, as slurm.conf allows: Slurm lays them out itself (sockets, cores and threads unset: 0)
            sockets = cores = threads = 0
            cpus = reader.required_int(body, "cpus", where, maximum=65536)
        else:
            sockets = reader.required_int(body, "sockets", where, maximum=64)
            cores = reader.required_int(body, "cores_per_socket", where, maximum=1024)
            threads = reader.integer(body, "threads_per_core", where, default=1, minimum=1, maximum=8) or 1
            cpus = reader.integer(body, "cpus", where, default=sockets * cores * threads, minimum=1, maximum=65536) or 1
        result.append(
            NodeType(
                name=str(name),
                group=group,
                hosts=groups.get(group, ()),
                sockets=sockets,
                cores_per_socket=cores,
                threads_per_core=threads,
                cpus=cpus,
                real_memory_mb=reader.required_int(body, "real_memory_mb", where, maximum=2**40),
                mem_spec_limit_mb=reader.integer(body, "mem_spec_limit_mb", where, default=0, maximum=2**40) or 0,
                tmp_disk_mb=reader.integer(body, "tmp_disk_mb", where, default=0, maximum=2**42) or 0,
                features=reader.strings(body, "features", where),
                weight=reader.integer(body, "weight", where, default=1, maximum=2**32 - 2) or 0,
                gpu=_read_gpu(reader, body.get("gpu"), f"{where}.gpu"),
                host_features=_per_host(reader, body, "host_features", where, groups.get(group, ())),
                host_weights=_per_host(reader, body, "host_weights", where, groups.get(group, ())),
            )
        )
    return tuple(result)


def _per_host(reader: _Reader, body: Mapping[str, Any], key: str, where: str, hosts: Sequence[str]) -> dict[str, Any]:
    """host_features ({hostlist: [feature, ...]}) or host_weights ({hostlist: weight}) of a node type, per host;
    each host must be one of the type's."""
    raw = reader.mapping(body.get(key), f"{where}.{key}")
    result: dict[str, Any] = {}
    members = set(hosts)
    for expression, value in raw.items():
        at = f"{where}.{key}.{expression}"
        named = reader.hosts(str(expression), at)
        outside = [host for host in named if host not in members]
        if outside:
            reader.error(f"{at}: {fold(outside)} not hosts of this node type; name its own hosts")
        if key == "host_weights":
            weight = reader.integer({"weight": value}, "weight", at, maximum=2**32 - 2)
            result.update(dict.fromkeys(named, weight if weight is not None else 1))
        else:
            features = reader.strings({"features": value}, "features", at)
            for host in named:
                result[host] = tuple(dict.fromkeys((*result.get(host, ()), *features)))
    return result


def _read_gpu(reader: _Reader, raw: Any, where: str) -> GpuSpec | None:
    if raw is None:
        return None
    data = reader.mapping(raw, where)
    reader.unknown_keys(data, GPU_KEYS, where)
    count = reader.required_int(data, "count", where, maximum=64)
    devices_raw = data.get("devices", f"/dev/nvidia[0-{count - 1}]" if count > 1 else "/dev/nvidia0")
    try:
        devices = tuple(expand(str(devices_raw))) if devices_raw else ()
    except HostlistError as exc:
        reader.error(f"{where}.devices: cannot parse {devices_raw!r}: {exc}")
        devices = ()
    gpu_type = reader.string(data, "type", where)
    if not gpu_type:
        reader.error(f"{where}: missing required key 'type' (a GPU model such as h100)")
    return GpuSpec(
        type=gpu_type,
        count=count,
        devices=devices,
        autodetect=reader.string(data, "autodetect", where, default="off", choices=AUTODETECT_METHODS),
        mig=reader.boolean(data, "mig", where),
        nvml_name=reader.string(data, "nvml_name", where),
    )


def _read_partitions(
    reader: _Reader, raw: Any, node_types: Sequence[NodeType], groups: Mapping[str, tuple[str, ...]]
) -> tuple[Partition, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        reader.error(f"cluster_partitions: expected a list of partitions, got {_kind(raw)}")
        return ()
    by_name = {nt.name: nt for nt in node_types}
    result: list[Partition] = []
    for index, item in enumerate(raw):
        body = reader.mapping(item, f"cluster_partitions[{index}]")
        name = reader.string(body, "name", f"cluster_partitions[{index}]")
        where = f"cluster_partitions[{name or index}]"
        if not name:
            reader.error(f"{where}: missing required key 'name'")
        reader.unknown_keys(body, PARTITION_KEYS, where)
        wanted_types = reader.strings(body, "node_types", where)
        wanted_groups = reader.strings(body, "groups", where)
        wanted_features = reader.strings(body, "features", where)
        hosts: dict[str, None] = {}
        whole: dict[str, None] = {}
        for type_name in wanted_types:
            node_type = by_name.get(type_name)
            if node_type is None:
                reader.error(
                    f"{where}.node_types: node type '{type_name}' is not declared in "
                    f"cluster_node_types (declared: {', '.join(by_name) or 'none'})"
                )
                continue
            whole[node_type.name] = None
            hosts.update(dict.fromkeys(node_type.hosts))
        for group in wanted_groups:
            if group not in groups:
                reader.error(f"{where}.groups: inventory group '{group}' does not exist")
                continue
            hosts.update(dict.fromkeys(groups[group]))
        for feature in wanted_features:
            matching = [nt for nt in node_types if feature in nt.features or feature == nt.name]
            if not matching:
                reader.error(f"{where}.features: no node type has feature '{feature}'")
            for node_type in matching:
                whole[node_type.name] = None
                hosts.update(dict.fromkeys(node_type.hosts))
        if not (wanted_types or wanted_groups or wanted_features):
            reader.error(f"{where}: names no nodes; set node_types, groups or features")
        options = reader.mapping(body.get("options"), f"{where}.options")
        result.append(
            Partition(
                name=name,
                node_types=wanted_types,
                groups=wanted_groups,
                features=wanted_features,
                hosts=tuple(hosts),
                whole_types=tuple(whole),
                default=reader.boolean(body, "default", where),
                state=reader.string(body, "state", where, default="UP", choices=("UP", "DOWN", "DRAIN", "INACTIVE")),
                max_time=reader.time(body, "max_time", where),
                default_time=reader.time(body, "default_time", where),
                qos=reader.string(body, "qos", where),
                allow_qos=reader.strings(body, "allow_qos", where),
                allow_accounts=reader.strings(body, "allow_accounts", where),
                priority_tier=reader.integer(body, "priority_tier", where, maximum=65533),
                preempt_mode=reader.string(body, "preempt_mode", where),
                oversubscribe=reader.string(body, "oversubscribe", where),
                max_nodes=reader.integer(body, "max_nodes", where, minimum=1),
                def_mem_per_gpu_mb=reader.integer(body, "def_mem_per_gpu_mb", where, minimum=0),
                def_cpu_per_gpu=reader.integer(body, "def_cpu_per_gpu", where, minimum=0),
                topology=reader.string(body, "topology", where),
                options=tuple((str(k), str(v)) for k, v in options.items()),
            )
        )
    return tuple(result)


# Job memory defaults Slurm takes one of (DefMemPerCPU, DefMemPerGPU and DefMemPerNode exclude each other).
MEMORY_DEFAULT_KEYS = frozenset({"defmempercpu", "defmempergpu", "defmempernode"})


def _with_job_defaults(
    partition: Partition, node_types: Sequence[NodeType], slurm_config: Mapping[str, Any]
) -> Partition:
    """The partition with the share of a node a job gets when it asks for no memory or CPUs: without a default
    Slurm gives such a job the whole node's memory, so one small job holds a node of eight GPUs. A partition
    of GPU nodes gets DefMemPerGPU and DefCpuPerGPU (the smallest node type's memory for jobs and CPUs per
    GPU); one with CPU-only nodes gets DefMemPerCPU. A default the inventory gives is kept (0: none), and a
    memory default the admin set in the partition's options or in cluster_slurm_config stops the derivation."""
    chosen = {str(key).lower() for key, _ in partition.options} | {
        str(key).lower() for key, value in slurm_config.items() if value is not None
    }
    hosts = set(partition.hosts)
    types = [nt for nt in node_types if hosts & set(nt.hosts)]
    if not types or chosen & MEMORY_DEFAULT_KEYS:
        return partition
    jobs_memory = {nt.name: nt.real_memory_mb - nt.mem_spec_limit_mb for nt in types}
    gpu_counts = [nt.gpu.count if nt.gpu else 0 for nt in types]
    if all(gpu_counts):
        return replace(
            partition,
            def_mem_per_gpu_mb=_given_or(
                partition.def_mem_per_gpu_mb,
                min(jobs_memory[nt.name] // n for nt, n in zip(types, gpu_counts, strict=True)),
            ),
            def_cpu_per_gpu=_given_or(
                partition.def_cpu_per_gpu,
                min(nt.cpus // n for nt, n in zip(types, gpu_counts, strict=True))
                if "defcpupergpu" not in chosen
                else None,
            ),
        )
    if partition.def_mem_per_gpu_mb is not None:  # the inventory chose a per-GPU default for a mixed partition
        return partition
    return replace(partition, def_mem_per_cpu_mb=min(jobs_memory[nt.name] // nt.cpus for nt in types))


def _given_or(given: int | None, derived: int | None) -> int | None:
    return derived if given is None else given


def _read_qos(reader: _Reader, raw: Any) -> tuple[Qos, ...]:
    data = reader.mapping(raw, "cluster_qos")
    result: list[Qos] = []
    for name, raw_body in data.items():
        where = f"cluster_qos.{name}"
        body = reader.mapping(raw_body, where)
        reader.unknown_keys(body, QOS_KEYS, where)
        limits = reader.mapping(body.get("limits"), f"{where}.limits")
        result.append(
            Qos(
                name=str(name),
                priority=reader.integer(body, "priority", where, default=0) or 0,
                preempt=reader.strings(body, "preempt", where),
                preempt_mode=reader.string(body, "preempt_mode", where),
                max_wall=reader.time(body, "max_wall", where),
                flags=reader.strings(body, "flags", where),
                # a TRES limit may be a mapping, as the accounts' are ({gres/gpu: 8}): sacctmgr's text of it
                limits=tuple((str(k), tres_text(v) if isinstance(v, Mapping) else str(v)) for k, v in limits.items()),
            )
        )
    return tuple(result)


def _read_scheduling(reader: _Reader, raw: Any) -> Scheduling:
    data = reader.mapping(raw, "cluster_scheduling")
    reader.unknown_keys(data, SCHEDULING_KEYS, "cluster_scheduling")
    priority = reader.mapping(data.get("priority"), "cluster_scheduling.priority")
    reader.unknown_keys(priority, PRIORITY_KEYS, "cluster_scheduling.priority")
    preempt = reader.mapping(data.get("preempt"), "cluster_scheduling.preempt")
    reader.unknown_keys(preempt, PREEMPT_KEYS, "cluster_scheduling.preempt")
    weights_raw = reader.mapping(priority.get("weights"), "cluster_scheduling.priority.weights")
    weights: list[tuple[str, int]] = []
    for key in weights_raw:
        value = reader.integer(weights_raw, key, "cluster_scheduling.priority.weights", maximum=2**32 - 1)
        weights.append((str(key), value or 0))
    tres_raw = reader.mapping(priority.get("tres_weights"), "cluster_scheduling.priority.tres_weights")
    defaults = Scheduling()
    return Scheduling(
        priority_type=reader.string(
            priority, "type", "cluster_scheduling.priority", default="multifactor", choices=("multifactor", "basic")
        ),
        priority_weights=tuple(weights),
        tres_weights=tuple((str(k), str(v)) for k, v in tres_raw.items()),
        decay_half_life=reader.time(
            priority, "decay_half_life", "cluster_scheduling.priority", default=defaults.decay_half_life
        ),
        usage_reset_period=reader.string(
            priority, "usage_reset_period", "cluster_scheduling.priority", default=defaults.usage_reset_period
        ),
        max_age=reader.time(priority, "max_age", "cluster_scheduling.priority", default=defaults.max_age),
        favor_small=reader.boolean(priority, "favor_small", "cluster_scheduling.priority"),
        preempt_type=reader.string(
            preempt, "type", "cluster_scheduling.preempt", default="none", choices=("none", "partition_prio", "qos")
        ),
        preempt_mode=reader.strings(preempt, "mode", "cluster_scheduling.preempt") or ("OFF",),
        preempt_exempt_time=reader.time(preempt, "exempt_time", "cluster_scheduling.preempt"),
        select_type_parameters=reader.strings(data, "select_type_parameters", "cluster_scheduling")
        or defaults.select_type_parameters,
        scheduler_parameters=reader.strings(data, "scheduler_parameters", "cluster_scheduling"),
    )


def _read_job_scripts(reader: _Reader, raw: Any) -> JobScripts:
    data = reader.mapping(raw, "cluster_job_scripts")
    reader.unknown_keys(data, JOB_SCRIPT_KEYS, "cluster_job_scripts")
    where = "cluster_job_scripts"
    user_dirs = USER_DIRS if data.get("user_dirs") is None else reader.strings(data, "user_dirs", where)
    prolog = reader.strings(data, "prolog", where)
    if user_dirs and USER_DIRS_SCRIPT not in prolog:
        # first, so that every later script and the job's first step find the directories made
        prolog = (USER_DIRS_SCRIPT, *prolog)
    return JobScripts(
        prolog=prolog,
        epilog=reader.strings(data, "epilog", where),
        prolog_slurmctld=reader.strings(data, "prolog_slurmctld", where),
        epilog_slurmctld=reader.strings(data, "epilog_slurmctld", where),
        task_prolog=reader.string(data, "task_prolog", where),
        task_epilog=reader.string(data, "task_epilog", where),
        prolog_flags=reader.strings(data, "prolog_flags", where),
        user_dirs=user_dirs,
    )


def gpu_only_partitions(partitions: Sequence[Partition], node_types: Sequence[NodeType]) -> tuple[str, ...]:
    """The partitions whose every node has GPUs."""
    gpu_hosts = {host for nt in node_types if nt.gpu is not None and nt.gpu.count for host in nt.hosts}
    return tuple(p.name for p in partitions if p.hosts and set(p.hosts) <= gpu_hosts)


def _read_job_submit(
    reader: _Reader, raw: Any, partitions: Sequence[Partition], node_types: Sequence[NodeType]
) -> JobSubmit:
    """cluster_job_submit; the gpu-policy sample's partitions default to what the node types say: a job in a
    partition of GPU nodes only must ask for GPUs, one naming no partition goes to the default partition when it
    is such a partition (else to the first)."""
    where = "cluster_job_submit"
    data = reader.mapping(raw, where)
    reader.unknown_keys(data, JOB_SUBMIT_KEYS, where)
    gpu_partitions = reader.strings(data, "gpu_partitions", where) or gpu_only_partitions(partitions, node_types)
    default = next((p.name for p in partitions if p.default), "")
    fallback = default if default in gpu_partitions else next(iter(gpu_partitions), "")
    return JobSubmit(
        script=reader.string(data, "script", where),
        gpu_partitions=gpu_partitions,
        gpu_partition=reader.string(data, "gpu_partition", where) or fallback,
        cpu_partition=reader.string(data, "cpu_partition", where),
        max_time=reader.time(data, "max_time", where),
    )


def _read_job_tmpfs(reader: _Reader, raw: Any) -> JobTmpfs:
    where = "cluster_job_tmpfs"
    data = reader.mapping(raw, where)
    reader.unknown_keys(data, JOB_TMPFS_KEYS, where)
    defaults = JobTmpfs()
    return JobTmpfs(
        enabled=reader.boolean(data, "enabled", where),
        base_path=reader.string(data, "base_path", where) or defaults.base_path,
        dirs=reader.strings(data, "dirs", where) or defaults.dirs,
    )


def _read_health_check(reader: _Reader, raw: Any) -> HealthCheck:
    where = "cluster_health_check"
    data = reader.mapping(raw, where)
    reader.unknown_keys(data, HEALTH_CHECK_KEYS, where)
    defaults = HealthCheck()
    mounts: list[Mount] = []
    raw_mounts = data.get("mounts") or []
    if not isinstance(raw_mounts, list):
        reader.error(
            f"{where}.mounts: expected a list of paths or {{path, fstype, min_free_percent}}, got {_kind(raw_mounts)}"
        )
        raw_mounts = []
    for index, item in enumerate(raw_mounts):
        item_where = f"{where}.mounts[{index}]"
        body = {"path": item} if isinstance(item, str) else reader.mapping(item, item_where)
        reader.unknown_keys(body, MOUNT_KEYS, item_where)
        path = reader.string(body, "path", item_where)
        if not path.startswith("/"):
            reader.error(f"{item_where}.path: {path!r} is not an absolute path; give the mount point, e.g. /home")
            continue
        free = reader.integer(body, "min_free_percent", item_where, default=0, maximum=99)
        mounts.append(Mount(path.rstrip("/") or "/", reader.string(body, "fstype", item_where), free or 0))
    interval = reader.integer(data, "interval", where, default=defaults.interval, maximum=86400)
    memory = reader.integer(data, "min_free_memory_mb", where, default=0)
    ports = reader.integer(data, "rdma_active_ports", where, default=0, maximum=64)
    services = reader.strings(data, "services", where) if "services" in data else defaults.services
    return HealthCheck(
        interval=defaults.interval if interval is None else interval,
        node_state=tuple(s.upper() for s in reader.strings(data, "node_state", where)) or defaults.node_state,
        mounts=tuple(mounts),
        services=services,
        min_free_memory_mb=memory or 0,
        rdma_active_ports=ports or 0,
        gpu=reader.boolean(data, "gpu", where, default=True),
    )


def _read_mail(reader: _Reader, raw: Any) -> Mail:
    where = "cluster_mail"
    data = reader.mapping(raw, where)
    reader.unknown_keys(data, MAIL_KEYS, where)
    port = reader.integer(data, "port", where, default=25, minimum=1, maximum=65535)
    return Mail(
        relay=reader.string(data, "relay", where).strip(),
        port=25 if port is None else port,
        # MailDomain takes the domain alone: a leading '@' (as in an address) is dropped here, once
        domain=reader.string(data, "domain", where).strip().removeprefix("@"),
    )


def _read_rest_api(reader: _Reader, raw: Any) -> RestApi:
    where = "cluster_rest_api"
    data = reader.mapping(raw, where)
    reader.unknown_keys(data, REST_API_KEYS, where)
    port = reader.integer(data, "port", where, default=6820, minimum=1, maximum=65535)
    lifespan = reader.integer(data, "max_token_lifespan", where, default=0, minimum=0)
    return RestApi(
        enabled=reader.boolean(data, "enabled", where),
        port=6820 if port is None else port,
        max_token_lifespan=lifespan or 0,
    )


def _read_fabric(reader: _Reader, raw: Any, node_types: Sequence[NodeType]) -> Fabric:
    data = reader.mapping(raw, "cluster_fabric")
    reader.unknown_keys(data, FABRIC_KEYS, "cluster_fabric")
    topology = reader.string(data, "topology", "cluster_fabric", default="none", choices=TOPOLOGY_PLUGINS)
    compute_sets = [nt.hosts for nt in node_types]
    switches: list[Switch] = []
    dragonfly = False
    explicit = reader.mapping(data.get("switches"), "cluster_fabric.switches")
    for name, raw_body in explicit.items():
        where = f"cluster_fabric.switches.{name}"
        body = reader.mapping(raw_body, where)
        reader.unknown_keys(body, SWITCH_KEYS, where)
        children: tuple[str, ...] = ()
        if body.get("switches") is not None:
            children = reader.hosts(body.get("switches"), f"{where}.switches")
        switches.append(Switch(str(name), reader.hosts(body.get("nodes"), f"{where}.nodes"), children))
    generators = [key for key in ("switches", "fat_tree", "dragonfly", "ibnetdiscover") if data.get(key)]
    if len(generators) > 1:
        reader.error(f"cluster_fabric: {' and '.join(generators)} both describe the switch tree; keep one")
    elif data.get("fat_tree"):
        shape = reader.mapping(data.get("fat_tree"), "cluster_fabric.fat_tree")
        reader.unknown_keys(shape, FAT_TREE_KEYS, "cluster_fabric.fat_tree")
        tiers = reader.integer(shape, "tiers", "cluster_fabric.fat_tree", default=2, minimum=2, maximum=3)
        per_pod = reader.integer(shape, "leaves_per_pod", "cluster_fabric.fat_tree", minimum=1, maximum=4096)
        if tiers == 3 and per_pod is None:
            reader.error(
                "cluster_fabric.fat_tree: a 3-tier fat-tree needs leaves_per_pod "
                "(how many leaf switches share one pod's spines)"
            )
        switches = fat_tree_switches(
            compute_sets,
            reader.required_int(shape, "nodes_per_leaf", "cluster_fabric.fat_tree", maximum=4096),
            per_pod if tiers == 3 else None,
        )
    elif data.get("dragonfly"):
        shape = reader.mapping(data.get("dragonfly"), "cluster_fabric.dragonfly")
        reader.unknown_keys(shape, DRAGONFLY_KEYS, "cluster_fabric.dragonfly")
        switches = dragonfly_switches(
            compute_sets,
            reader.required_int(shape, "nodes_per_leaf", "cluster_fabric.dragonfly", maximum=4096),
            reader.required_int(shape, "leaves_per_group", "cluster_fabric.dragonfly", maximum=4096),
        )
        dragonfly = True
    elif data.get("ibnetdiscover"):
        dump = data["ibnetdiscover"]
        if not isinstance(dump, str):
            reader.error(
                "cluster_fabric.ibnetdiscover: give the dump's text, e.g. "
                "\"{{ lookup('ansible.builtin.file', 'fabric/ibnetdiscover.txt') }}\""
            )
        else:
            try:
                found = tree(dump, (host for hosts in compute_sets for host in hosts))
            except DumpError as error:
                reader.error(f"cluster_fabric.ibnetdiscover: {error}")
            else:
                switches = [Switch(name, nodes, children) for name, nodes, children in found.switches]
                dragonfly = found.dragonfly

    blocks_raw = reader.mapping(data.get("blocks"), "cluster_fabric.blocks")
    reader.unknown_keys(blocks_raw, BLOCKS_KEYS, "cluster_fabric.blocks")
    block_sizes: list[int] = []
    for size in blocks_raw.get("block_sizes") or ():
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            reader.error(f"cluster_fabric.blocks.block_sizes: {size!r} is not a positive integer")
        else:
            block_sizes.append(size)
    block_types = reader.strings(blocks_raw, "node_types", "cluster_fabric.blocks") or tuple(
        nt.name for nt in node_types
    )
    blocks: list[Block] = []
    explicit_blocks = reader.mapping(blocks_raw.get("blocks"), "cluster_fabric.blocks.blocks")
    for name, nodes in explicit_blocks.items():
        blocks.append(Block(str(name), reader.hosts(nodes, f"cluster_fabric.blocks.blocks.{name}")))
    if blocks_raw.get("nodes_per_block") is not None:
        if explicit_blocks:
            reader.error("cluster_fabric.blocks: nodes_per_block and blocks both describe the blocks; keep one")
        per_block = reader.required_int(blocks_raw, "nodes_per_block", "cluster_fabric.blocks", maximum=4096)
        blocks = block_layout([nt.hosts for nt in node_types if nt.name in block_types], per_block)
        if not block_sizes:
            block_sizes = [per_block]
    return Fabric(
        topology=topology,
        switches=tuple(switches),
        dragonfly=dragonfly,
        blocks=tuple(blocks),
        block_sizes=tuple(block_sizes),
        block_node_types=block_types,
        allow_disconnected=reader.boolean(data, "allow_disconnected", "cluster_fabric"),
    )
