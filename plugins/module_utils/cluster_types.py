"""The cluster model's types: one typed description of a Slurm GPU cluster (what model.py builds from the
inventory, and every generator, check and view reads). Types only: they import nothing of the package but
hostlist and releases, so any layer may import them without a cycle."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .releases import Release


class InventoryError(ValueError):
    """The inventory does not describe a valid cluster; ``errors`` holds one line per problem."""

    def __init__(self, errors: Sequence[str]) -> None:
        self.errors = list(errors)
        super().__init__("\n".join(self.errors))


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """The GPUs of one node type."""

    type: str
    count: int
    devices: tuple[str, ...]
    autodetect: str = "off"
    mig: bool = False
    nvml_name: str = ""


@dataclass(frozen=True, slots=True)
class NodeType:
    """Hardware shared by every host of one inventory group."""

    name: str
    group: str
    hosts: tuple[str, ...]
    sockets: int
    cores_per_socket: int
    threads_per_core: int
    cpus: int
    real_memory_mb: int
    features: tuple[str, ...]
    weight: int
    gpu: GpuSpec | None = None
    mem_spec_limit_mb: int = 0
    tmp_disk_mb: int = 0
    # Per host: features added to the type's (a degraded NVLink, a rack) and weights that replace the type's.
    host_features: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    host_weights: Mapping[str, int] = field(default_factory=dict)

    @property
    def nodeset(self) -> str:
        """Name of the Slurm NodeSet (and node feature) that stands for this node type."""
        return f"nt_{self.name}"


@dataclass(frozen=True, slots=True)
class Partition:
    """One Slurm partition; ``hosts`` is resolved from node types, groups and features."""

    name: str
    node_types: tuple[str, ...]
    groups: tuple[str, ...]
    features: tuple[str, ...]
    hosts: tuple[str, ...]
    # Node types the partition holds whole (named, or matched by a feature): they become NodeSets.
    whole_types: tuple[str, ...] = ()
    default: bool = False
    state: str = "UP"
    max_time: str = ""
    default_time: str = ""
    qos: str = ""
    allow_qos: tuple[str, ...] = ()
    allow_accounts: tuple[str, ...] = ()
    priority_tier: int | None = None
    preempt_mode: str = ""
    oversubscribe: str = ""
    max_nodes: int | None = None
    # Memory and CPUs a job gets per GPU (or memory per CPU) when it asks for none: derived from the node types
    # (_with_job_defaults) unless given; 0 writes no default.
    def_mem_per_gpu_mb: int | None = None
    def_cpu_per_gpu: int | None = None
    def_mem_per_cpu_mb: int | None = None
    topology: str = ""
    options: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Qos:
    """A Slurm QOS; limits are kept as sacctmgr values."""

    name: str
    priority: int = 0
    preempt: tuple[str, ...] = ()
    preempt_mode: str = ""
    max_wall: str = ""
    flags: tuple[str, ...] = ()
    limits: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Switch:
    """A switch of the tree topology: hosts (leaf) and/or child switches."""

    name: str
    nodes: tuple[str, ...] = ()
    switches: tuple[str, ...] = ()
    folded_nodes: str = ""


@dataclass(frozen=True, slots=True)
class Block:
    """An NVLink domain for topology/block."""

    name: str
    nodes: tuple[str, ...]
    folded_nodes: str = ""


@dataclass(frozen=True, slots=True)
class Fabric:
    """The network: a switch tree (fat-tree or dragonfly) and NVLink blocks."""

    topology: str = "none"
    switches: tuple[Switch, ...] = ()
    dragonfly: bool = False
    blocks: tuple[Block, ...] = ()
    block_sizes: tuple[int, ...] = ()
    block_node_types: tuple[str, ...] = ()
    allow_disconnected: bool = False


@dataclass(frozen=True, slots=True)
class Scheduling:
    """Priority, preemption and selection settings."""

    priority_type: str = "multifactor"
    priority_weights: tuple[tuple[str, int], ...] = ()
    tres_weights: tuple[tuple[str, str], ...] = ()
    decay_half_life: str = "7-0"
    usage_reset_period: str = "NONE"
    max_age: str = "7-0"
    favor_small: bool = False
    preempt_type: str = "none"
    preempt_mode: tuple[str, ...] = ("OFF",)
    preempt_exempt_time: str = ""
    select_type_parameters: tuple[str, ...] = ("CR_Core_Memory",)
    scheduler_parameters: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class JobScripts:
    """Prolog/epilog scripts: source files, installed in order into <kind>.d/."""

    prolog: tuple[str, ...] = ()
    epilog: tuple[str, ...] = ()
    prolog_slurmctld: tuple[str, ...] = ()
    epilog_slurmctld: tuple[str, ...] = ()
    task_prolog: str = ""
    task_epilog: str = ""
    prolog_flags: tuple[str, ...] = ()
    # node-local per-user directories the user-dirs prolog makes ({user}, {uid}: the job's user)
    user_dirs: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class JobSubmit:
    """JobSubmitPlugins=lua: the site's job_submit.lua, or the ``gpu-policy`` sample with its settings (the
    partitions that take GPU jobs only, where a job naming no partition goes, the longest time limit)."""

    script: str = ""
    gpu_partitions: tuple[str, ...] = ()
    gpu_partition: str = ""
    cpu_partition: str = ""
    max_time: str = ""

    @property
    def enabled(self) -> bool:
        return bool(self.script)

    @property
    def sample(self) -> bool:
        """A sample of the slurm role (a name without a slash), not a file of the site's."""
        return self.enabled and "/" not in self.script


@dataclass(frozen=True, slots=True)
class JobTmpfs:
    """A private /tmp and /dev/shm per job (job_container/tmpfs, namespace/tmpfs from 25.11), under base_path on the
    node's local disk, removed with the job."""

    enabled: bool = False
    base_path: str = "/var/tmp/slurm-jobs"
    dirs: tuple[str, ...] = ("/tmp", "/dev/shm")


@dataclass(frozen=True, slots=True)
class Mount:
    """A file system the node health check expects mounted, with the free space it must keep."""

    path: str
    fstype: str = ""
    min_free_percent: int = 0


@dataclass(frozen=True, slots=True)
class HealthCheck:
    """HealthCheckProgram settings and what the program checks on every slurmd node."""

    interval: int = 300
    node_state: tuple[str, ...] = ("ANY",)
    mounts: tuple[Mount, ...] = ()
    services: tuple[str, ...] = ("munge",)
    min_free_memory_mb: int = 0
    rdma_active_ports: int = 0
    gpu: bool = True


@dataclass(frozen=True, slots=True)
class Mail:
    """Job mail (sbatch --mail-type): the site's SMTP relay the controllers hand it to (a null-client MTA);
    no relay, no mail (MailProg then only logs what it did not send)."""

    relay: str = ""
    port: int = 25
    domain: str = ""

    @property
    def enabled(self) -> bool:
        return bool(self.relay)


@dataclass(frozen=True, slots=True)
class RestApi:
    """Slurm's REST API (slurmrestd on the controllers) with JSON Web Tokens: users get a token from
    `scontrol token`; slurmctld and slurmdbd accept it beside MUNGE (AuthAltTypes=auth/jwt)."""

    enabled: bool = False
    port: int = 6820
    # AuthAltParameters max_token_lifespan: the longest token a user may get (0: Slurm's own limit)
    max_token_lifespan: int = 0


@dataclass(frozen=True, slots=True)
class Cluster:
    """The whole cluster as the generators see it."""

    name: str
    release: Release
    controllers: tuple[str, ...]
    dbd: tuple[str, ...]
    login: tuple[str, ...]
    storage: tuple[str, ...]
    compute: tuple[str, ...]
    node_types: tuple[NodeType, ...]
    partitions: tuple[Partition, ...]
    qos: tuple[Qos, ...] = ()
    scheduling: Scheduling = field(default_factory=Scheduling)
    accounting_enforce: tuple[str, ...] = ()
    accounting_tres: tuple[str, ...] = ()
    job_scripts: JobScripts = field(default_factory=JobScripts)
    job_submit: JobSubmit = field(default_factory=JobSubmit)
    job_tmpfs: JobTmpfs = field(default_factory=JobTmpfs)
    health_check: HealthCheck = field(default_factory=HealthCheck)
    mail: Mail = field(default_factory=Mail)
    rest_api: RestApi = field(default_factory=RestApi)
    fabric: Fabric = field(default_factory=Fabric)
    slurm_config: tuple[tuple[str, Any], ...] = ()
    configless: bool = True
    # users' ssh to compute nodes only while they have a job there, adopted into it (pam_slurm_adopt)
    pam_adopt: bool = False
    # slurmctld's OpenMetrics endpoints where the release has them (MetricsType=metrics/openmetrics)
    slurm_metrics: bool = True
    controllers_run_jobs: bool = False
    min_node_memory_mb: int = 1024
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # controller -> address for SlurmctldHost=name(address): failover must not wait on a name lookup of
    # a controller that is down.
    controller_addresses: Mapping[str, str] = field(default_factory=dict)
    # SlurmctldAddr: the address that follows the controller in charge (a Pacemaker pair's VIP); clients then
    # never try the lost controller's own address first.
    controller_vip: str = ""
    # The federation this cluster (a pod) belongs to; "" for a cluster on its own.
    federation: str = ""

    def node_type(self, name: str) -> NodeType | None:
        for node_type in self.node_types:
            if node_type.name == name:
                return node_type
        return None

    @property
    def gpu_node_types(self) -> tuple[NodeType, ...]:
        return tuple(nt for nt in self.node_types if nt.gpu is not None)
