"""Every key of the cluster model's variables (cluster_*), as data.

The model's reader refuses any key not listed here (with a did-you-mean), and docs/inventory.md's reference
tables are written from the same sections (scripts/inventory_docs.py; a test fails when they drift). A key
the model reads but a user must not set (the pod a federation's model is built for) is marked internal: the
reader accepts it, the reference leaves it out.
"""

from __future__ import annotations

from dataclasses import dataclass

from .releases import DEFAULT_RELEASE


@dataclass(frozen=True, slots=True)
class Key:
    """One key: its name, the kind of value, its default as the reference shows it, and what it does."""

    name: str
    kind: str
    default: str
    text: str
    internal: bool = False


@dataclass(frozen=True, slots=True)
class Section:
    """The keys of one mapping of the inventory (``path`` as the reference and the messages write it)."""

    path: str
    keys: tuple[Key, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(key.name for key in self.keys)


NONE = "-"  # no default: the key is optional and means nothing when absent

SECTIONS: tuple[Section, ...] = (
    Section(
        "cluster_*",
        (
            Key("name", "name", "required", "ClusterName: lowercase letters, digits, '-' and '_', at most 40"),
            Key("slurm_release", "string", f"`{DEFAULT_RELEASE}`", "the Slurm release the files are for (quote it)"),
            Key("node_types", "mapping", "required", "hardware per node type: `cluster_node_types.<type>`"),
            Key("partitions", "list", "required", "the partitions: `cluster_partitions[]`"),
            Key("qos", "mapping", "`{}`", "QOS created in slurmdbd: `cluster_qos.<name>`"),
            Key("scheduling", "mapping", "`{}`", "priority, preemption, selection: `cluster_scheduling`"),
            Key("accounting", "mapping", "`{}`", "AccountingStorageEnforce and extra TRES: `cluster_accounting`"),
            Key("job_scripts", "mapping", "`{}`", "prolog and epilog scripts: `cluster_job_scripts`"),
            Key(
                "job_submit",
                "mapping",
                "`{}`",
                "JobSubmitPlugins=lua: `cluster_job_submit`",
            ),
            Key("job_tmpfs", "mapping", "`{}`", "a private /tmp and /dev/shm per job: `cluster_job_tmpfs`"),
            Key("health_check", "mapping", "`{}`", "the node health program: `cluster_health_check`"),
            Key("mail", "mapping", "`{}`", "job mail through the site's relay: `cluster_mail`"),
            Key("rest_api", "mapping", "`{}`", "slurmrestd with JSON Web Tokens: `cluster_rest_api`"),
            Key("fabric", "mapping", "`{}`", "switch tree and NVLink blocks: `cluster_fabric`"),
            Key("slurm_config", "mapping", "`{}`", "slurm.conf keys merged over the model's (null deletes one)"),
            Key("configless", "boolean", "`true`", "slurmd and clients fetch the files from slurmctld"),
            Key(
                "pam_adopt",
                "boolean",
                "`false`",
                "users reach a compute node over ssh only into a job of theirs there (pam_slurm_adopt;"
                " PrologFlags=Contain)",
            ),
            Key("slurm_metrics", "boolean", "`true`", "slurmctld's OpenMetrics endpoints (Slurm 25.11 and later)"),
            Key("controllers_run_jobs", "boolean", "`false`", "a controller may also be a compute node"),
            Key("min_node_memory_mb", "integer", "`1024`", "the least RealMemory a node type may declare"),
            Key("controller_addresses", "mapping", "`{}`", "controller host -> IP address (SlurmctldHost=name(IP))"),
            Key("controller_vip", "address", NONE, "SlurmctldAddr of a pair (default: pacemaker_vip)"),
            Key("federation", "mapping", "`{}`", "pods, each its own Slurm cluster: `cluster_federation`"),
            Key("pod", "string", NONE, "the pod a federation's model is built for", internal=True),
            Key("removed_nodes", "list", "`[]`", "compute hosts playbooks/remove-node.yml took out of Slurm"),
        ),
    ),
    Section(
        "cluster_node_types.<type>",
        (
            Key("group", "group", "the type's name", "inventory group of the type's hosts (a child of compute)"),
            Key("sockets", "integer", NONE, "Sockets per node"),
            Key("cores_per_socket", "integer", NONE, "CoresPerSocket"),
            Key("threads_per_core", "integer", "`1`", "ThreadsPerCore"),
            Key("cpus", "integer", "sockets x cores x threads", "CPUs; alone, Slurm lays the CPUs out itself"),
            Key("real_memory_mb", "integer", "required", "RealMemory: what `slurmd -C` reports, minus the OS's"),
            Key("mem_spec_limit_mb", "integer", "`0`", "MemSpecLimit: memory kept for slurmd and the OS"),
            Key("tmp_disk_mb", "integer", "`0`", "TmpDisk"),
            Key("features", "list", "`[]`", "node features beside the type's name"),
            Key("weight", "integer", "`1`", "Weight: lower is scheduled first"),
            Key("gpu", "mapping", NONE, "the type's GPUs: `cluster_node_types.<type>.gpu`"),
            Key("host_features", "mapping", "`{}`", "hostlist -> features added for those hosts only"),
            Key("host_weights", "mapping", "`{}`", "hostlist -> weight replacing the type's for those hosts"),
        ),
    ),
    Section(
        "cluster_node_types.<type>.gpu",
        (
            Key("type", "name", "required", "GRES type (any name; with autodetect, the NVML name's model)"),
            Key("count", "integer", "required", "GPUs per node"),
            Key("devices", "hostlist", "`/dev/nvidia[0-(count-1)]`", "gres.conf File=, one device per GPU"),
            Key("autodetect", "word", "`off`", "off, nvml, nvidia (24.11+) or full (26.05+)"),
            Key("mig", "boolean", "`false`", "MIG instances as GRES (needs autodetect nvml)"),
            Key("nvml_name", "string", NONE, "the NVML device name of a type outside the catalogue"),
        ),
    ),
    Section(
        "cluster_partitions[]",
        (
            Key("name", "name", "required", "PartitionName"),
            Key("node_types", "list", "`[]`", "whole node types (their NodeSets)"),
            Key("groups", "list", "`[]`", "inventory groups (their hosts, folded)"),
            Key("features", "list", "`[]`", "every node type with one of these features"),
            Key("default", "boolean", "`false`", "Default=YES (at most one partition)"),
            Key("state", "word", "`UP`", "UP, DOWN, DRAIN or INACTIVE"),
            Key("max_time", "time", NONE, "MaxTime: minutes, HH:MM:SS, D-HH[:MM[:SS]] or UNLIMITED"),
            Key("default_time", "time", NONE, "DefaultTime (not above max_time)"),
            Key("qos", "name", NONE, "the partition's QOS (declared in cluster_qos)"),
            Key("allow_qos", "list", "`[]`", "AllowQos"),
            Key("allow_accounts", "list", "`[]`", "AllowAccounts"),
            Key("priority_tier", "integer", NONE, "PriorityTier, 0..65533"),
            Key("preempt_mode", "word", NONE, "OFF, CANCEL, GANG, REQUEUE, SUSPEND or WITHIN"),
            Key("oversubscribe", "word", NONE, "NO, EXCLUSIVE, YES[:N] or FORCE[:N]"),
            Key("max_nodes", "integer", NONE, "MaxNodes"),
            Key("def_mem_per_gpu_mb", "integer", "derived", "DefMemPerGPU: job memory / GPUs per node; 0: none"),
            Key("def_cpu_per_gpu", "integer", "derived", "DefCpuPerGPU: CPUs / GPUs of the node types; 0: none"),
            Key("topology", "name", NONE, "25.05+: the topology of topology.yaml it uses (fabric or nvlink)"),
            Key("options", "mapping", "`{}`", "any other PartitionName key of the release, verbatim"),
        ),
    ),
    Section(
        "cluster_qos.<name>",
        (
            Key("priority", "integer", "`0`", "Priority"),
            Key("preempt", "list", "`[]`", "the QOS this one may preempt"),
            Key("preempt_mode", "word", NONE, "PreemptMode of the QOS"),
            Key("max_wall", "time", NONE, "MaxWall"),
            Key("flags", "list", "`[]`", "Flags (DenyOnLimit, ...)"),
            Key(
                "limits",
                "mapping",
                "`{}`",
                "other sacctmgr QOS limits (MaxTRESPerUser, GrpTRES, MaxJobsPerUser, ...; sacctmgr's names, any case, "
                "its short forms too): each checked for its name and kind of value, a TRES limit for a TRES the "
                "cluster tracks",
            ),
        ),
    ),
    Section(
        "cluster_scheduling",
        (
            Key("priority", "mapping", "`{}`", "`cluster_scheduling.priority`"),
            Key("preempt", "mapping", "`{}`", "`cluster_scheduling.preempt`"),
            Key(
                "select_type_parameters",
                "list",
                "`[CR_Core_Memory]`",
                "SelectTypeParameters: exactly one CR_CPU, CR_Core or CR_Socket (with _Memory or not), then options "
                "such as CR_Pack_Nodes, CR_ONE_TASK_PER_CORE",
            ),
            Key("scheduler_parameters", "list", "`[]`", "SchedulerParameters"),
        ),
    ),
    Section(
        "cluster_scheduling.priority",
        (
            Key("type", "word", "`multifactor`", "PriorityType: multifactor or basic"),
            Key("weights", "mapping", "`{}`", "age, assoc, fairshare, job_size, partition, qos -> PriorityWeight*"),
            Key(
                "tres_weights",
                "mapping",
                "`{}`",
                "PriorityWeightTRES (CPU, Mem, GRES/gpu, ...): only TRES the cluster tracks (slurmctld stops on "
                "another)",
            ),
            Key("decay_half_life", "time", "`7-0`", "PriorityDecayHalfLife"),
            Key("usage_reset_period", "word", "`NONE`", "PriorityUsageResetPeriod: NONE, NOW, DAILY ... YEARLY"),
            Key("max_age", "time", "`7-0`", "PriorityMaxAge"),
            Key("favor_small", "boolean", "`false`", "PriorityFavorSmall"),
        ),
    ),
    Section(
        "cluster_scheduling.preempt",
        (
            Key("type", "word", "`none`", "PreemptType: none, partition_prio or qos"),
            Key("mode", "list", "`[OFF]`", "PreemptMode: OFF, CANCEL, REQUEUE or SUSPEND, plus GANG, WITHIN"),
            Key("exempt_time", "time", NONE, "PreemptExemptTime"),
        ),
    ),
    Section(
        "cluster_accounting",
        (
            Key("enforce", "list", "`[]`", "AccountingStorageEnforce (associations, limits, qos, safe, ...)"),
            Key(
                "tres",
                "list",
                "`[]`",
                "AccountingStorageTRES beside gres/gpu (e.g. gres/gpu:h100, to limit or weigh a GPU type)",
            ),
        ),
    ),
    Section(
        "cluster_job_scripts",
        (
            Key("prolog", "list", "`[]`", "compute nodes' prolog scripts, in order (a sample's name or a file)"),
            Key("epilog", "list", "`[]`", "compute nodes' epilog scripts, in order"),
            Key("prolog_slurmctld", "list", "`[]`", "the controllers' PrologSlurmctld scripts"),
            Key("epilog_slurmctld", "list", "`[]`", "the controllers' EpilogSlurmctld scripts"),
            Key("task_prolog", "path", NONE, "TaskProlog: an absolute path on the nodes"),
            Key("task_epilog", "path", NONE, "TaskEpilog: an absolute path on the nodes"),
            Key(
                "prolog_flags",
                "list",
                "`[]`",
                "PrologFlags: Alloc, Contain, DeferBatch, NoHold (not with Contain or X11), Serial, X11, "
                "ForceRequeueOnFail (23.02+), RunInJob (24.05+, not with Serial)",
            ),
            Key(
                "user_dirs",
                "list",
                "crun's and enroot's runtime state",
                "node-local directories the prolog makes for each job's user (`{user}`, `{uid}`), 0700 in a"
                " parent of root's (0711)",
            ),
        ),
    ),
    Section(
        "cluster_job_submit",
        (
            Key(
                "script",
                "string",
                NONE,
                "`gpu-policy` (a sample) or the site's job_submit.lua (a path)",
            ),
            Key("gpu_partitions", "list", "partitions of GPU nodes only", "gpu-policy: a job there must ask for GPUs"),
            Key(
                "gpu_partition",
                "name",
                "the default, or first GPU, one",
                "gpu-policy: a GPU job naming none goes there",
            ),
            Key("cpu_partition", "name", NONE, "gpu-policy: where a job without GPUs naming no partition goes"),
            Key("max_time", "time", NONE, "gpu-policy: a longer time limit is lowered to this"),
        ),
    ),
    Section(
        "cluster_job_tmpfs",
        (
            Key("enabled", "boolean", "`false`", "each job gets its own /tmp and /dev/shm, removed with it"),
            Key("base_path", "path", "`/var/tmp/slurm-jobs`", "where they live on the node's local disk"),
            Key("dirs", "list", "`[/tmp, /dev/shm]`", "the private directories (Slurm 23.02 and later)"),
        ),
    ),
    Section(
        "cluster_health_check",
        (
            Key("interval", "integer", "`300`", "HealthCheckInterval in seconds; 0 turns the program off"),
            Key("node_state", "list", "`[ANY]`", "HealthCheckNodeState"),
            Key("mounts", "list", "`[]`", "paths, or `cluster_health_check.mounts[]` mappings, that must be mounted"),
            Key("services", "list", "`[munge]`", "systemd units that must be active"),
            Key("min_free_memory_mb", "integer", "`0`", "MemAvailable a node without jobs keeps (0: no check)"),
            Key("rdma_active_ports", "integer", "`0`", "ACTIVE InfiniBand/RoCE ports a node has"),
            Key("gpu", "boolean", "`true`", "run the gpu role's check on GPU nodes"),
        ),
    ),
    Section(
        "cluster_health_check.mounts[]",
        (
            Key("path", "path", "required", "the mount point"),
            Key(
                "fstype",
                "word",
                NONE,
                "the file system type it must have as /proc/mounts shows it; nfs: any NFS version",
            ),
            Key("min_free_percent", "integer", "`0`", "free space to keep, 0..99"),
        ),
    ),
    Section(
        "cluster_mail",
        (
            Key("relay", "host", NONE, "the site's SMTP relay; absent: no job mail (logged instead)"),
            Key("port", "integer", "`25`", "the relay's port"),
            Key("domain", "domain", NONE, "MailDomain, appended to bare user names"),
        ),
    ),
    Section(
        "cluster_rest_api",
        (
            Key("enabled", "boolean", "`false`", "slurmrestd on the controllers, JWT only"),
            Key("port", "integer", "`6820`", "slurmrestd's port"),
            Key("max_token_lifespan", "integer", "`0`", "the longest token `scontrol token` gives (0: Slurm's)"),
        ),
    ),
    Section(
        "cluster_fabric",
        (
            Key("topology", "word", "`none`", "none, tree or block: the plugin (the default topology on 25.05+)"),
            Key("switches", "mapping", "`{}`", "explicit tree: `cluster_fabric.switches.<name>`"),
            Key("fat_tree", "mapping", NONE, "a generated fat-tree: `cluster_fabric.fat_tree`"),
            Key("dragonfly", "mapping", NONE, "a generated dragonfly: `cluster_fabric.dragonfly`"),
            Key("ibnetdiscover", "text", NONE, "the text of an `ibnetdiscover` dump of the fabric"),
            Key("blocks", "mapping", "`{}`", "NVLink domains (topology/block): `cluster_fabric.blocks`"),
            Key("allow_disconnected", "boolean", "`false`", "accept several top-level switches"),
        ),
    ),
    Section(
        "cluster_fabric.switches.<name>",
        (
            Key("nodes", "hostlist", NONE, "the compute hosts under this (leaf) switch"),
            Key("switches", "hostlist", NONE, "the switches under this one"),
        ),
    ),
    Section(
        "cluster_fabric.fat_tree",
        (
            Key("tiers", "integer", "`2`", "2: leaves under one spine; 3: leaves -> pods -> core"),
            Key("nodes_per_leaf", "integer", "required", "hosts per leaf switch, in natural name order"),
            Key("leaves_per_pod", "integer", NONE, "leaf switches per pod (3 tiers: required)"),
        ),
    ),
    Section(
        "cluster_fabric.dragonfly",
        (
            Key("nodes_per_leaf", "integer", "required", "hosts per leaf switch"),
            Key("leaves_per_group", "integer", "required", "leaves per all-to-all group"),
        ),
    ),
    Section(
        "cluster_fabric.blocks",
        (
            Key("block_sizes", "list", "`[nodes_per_block]`", "BlockSizes: power-of-two multiples of the first"),
            Key("blocks", "mapping", "`{}`", "explicit blocks: name -> hostlist"),
            Key("nodes_per_block", "integer", NONE, "generated blocks of this many hosts"),
            Key("node_types", "list", "every type", "the node types that are in blocks"),
        ),
    ),
    Section(
        "cluster_federation",
        (
            Key("name", "name", "cluster_name", "the federation's name (sacctmgr)"),
            Key("pods", "mapping", "required", "the pods: `cluster_federation.pods.<pod>`"),
        ),
    ),
    Section(
        "cluster_federation.pods.<pod>",
        (
            Key("group", "group", "the pod's name", "inventory group of the pod's controllers, login, compute"),
            Key("fabric", "mapping", NONE, "the pod's cluster_fabric (replaces the shared one)"),
            Key("slurm_release", "string", NONE, "the pod's release (replaces the shared one)"),
            Key("controller_vip", "address", NONE, "the pod's SlurmctldAddr"),
            Key("slurm_config", "mapping", NONE, "slurm.conf keys for this pod (over the shared ones)"),
        ),
    ),
)

_BY_PATH = {section.path: section for section in SECTIONS}


def keys(path: str) -> tuple[str, ...]:
    """The keys the model reads under ``path`` (a Section's path)."""
    return _BY_PATH[path].names
