"""slurm.conf and gres.conf stanzas from the model: one function per stanza kind.

Output size grows with node types, not nodes: each node type is one NodeName stanza over a folded host
list (split only when the fold is very long) plus one NodeSet; partitions name NodeSets.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .associations import tracked_tres
from .cluster_types import Cluster, NodeType, Partition
from .hostlist import expand, fold, fold_chunks
from .topology import topology_plugin
from .validate import DBD_PORT, SLURMCTLD_PORT, SLURMD_PORT, SRUN_PORT_RANGE, time_minutes

SCRIPT_DIRS = {
    "prolog": ("Prolog", "/etc/slurm/prolog.d"),
    "epilog": ("Epilog", "/etc/slurm/epilog.d"),
    "prolog_slurmctld": ("PrologSlurmctld", "/etc/slurm/prolog_slurmctld.d"),
    "epilog_slurmctld": ("EpilogSlurmctld", "/etc/slurm/epilog_slurmctld.d"),
}
# The node health program (roles/cluster/files/gpucluster-node-health) and its settings file.
HEALTH_CHECK_PROGRAM = "/usr/local/sbin/gpucluster-node-health"
HEALTH_CHECK_CONFIG = "/etc/gpucluster/node-health.json"
# Job mail: mailx hands it to the null-client MTA (nullmailer) that relays to cluster_mail.relay; without a relay
# MailProg is the project's stand-in, which logs each mail it did not send (slurmctld would otherwise log
# "Configured MailProg is invalid" at every start, and a user's --mail-type would vanish without a trace).
MAIL_PROGRAM = "/usr/bin/mail"
NO_MAIL_PROGRAM = "/usr/local/sbin/gpucluster-no-mail"
# The key slurmctld and slurmdbd sign and check JSON Web Tokens with (cluster_rest_api): on the controllers and the
# dbd hosts only, 0400 slurm.
JWT_KEY = "/etc/slurm/jwt_hs256.key"
PRIORITY_WEIGHT_KEYS = {
    "age": "PriorityWeightAge",
    "assoc": "PriorityWeightAssoc",
    "fairshare": "PriorityWeightFairshare",
    "job_size": "PriorityWeightJobSize",
    "partition": "PriorityWeightPartition",
    "qos": "PriorityWeightQOS",
}


# slurmctld's state directory unless cluster_slurm_config sets StateSaveLocation (one shared directory under
# Pacemaker; the roles that create, share, move or back it up read it through state_save_location()).
STATE_SAVE_LOCATION = "/var/spool/slurmctld"
# srun's and salloc's listening ports: a known range, so that a host firewall can open it (plugins/module_utils/
# firewall.py); Slurm's own default is any port


def state_save_location(slurm_config: Mapping[str, Any] | None) -> str:
    """The StateSaveLocation slurm.conf gets: cluster_slurm_config's (keys are case-insensitive), else ours."""
    for key, value in (slurm_config or {}).items():
        if str(key).lower() == "statesavelocation" and value:
            return str(value)
    return STATE_SAVE_LOCATION


def conf_value(value: Any) -> str:
    """A slurm.conf value: booleans as YES/NO, lists comma-joined."""
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def dict_line(pairs: Iterable[tuple[str, Any]]) -> str:
    """``Key=value`` pairs on one line, dropping None and empty values."""
    return " ".join(f"{key}={conf_value(value)}" for key, value in pairs if value is not None and value not in ("", ()))


def default_settings(cluster: Cluster) -> dict[str, Any]:
    """slurm.conf settings derived from the model (before cluster_slurm_config is applied)."""
    scheduling = cluster.scheduling
    settings: dict[str, Any] = {
        "ClusterName": cluster.name,
        # A pod of a federation: squeue, sinfo and sprio show every pod's jobs and nodes by default.
        "FederationParameters": "fed_display" if cluster.federation else None,
        "SlurmUser": "slurm",
        "AuthType": "auth/munge",
        "SlurmctldPort": SLURMCTLD_PORT,
        "SlurmdPort": SLURMD_PORT,
        "SrunPortRange": SRUN_PORT_RANGE,
        "StateSaveLocation": STATE_SAVE_LOCATION,
        "SlurmdSpoolDir": "/var/spool/slurmd",
        "SlurmctldLogFile": "/var/log/slurm/slurmctld.log",
        "SlurmdLogFile": "/var/log/slurm/slurmd.log",
        "SlurmctldParameters": ["enable_configless"] if cluster.configless else None,
        # 1: a node DOWN because it stopped responding comes back when it registers; one an admin set DOWN (with a
        # reason) stays down. The health and GPU checks drain, and resume only what they drained.
        "ReturnToService": 1,
        # A job over a partition's limits is refused at submission instead of pending forever.
        "EnforcePartLimits": "ALL",
        "MailProg": mail_program(cluster),
        "MailDomain": cluster.mail.domain or None,
        **jwt_settings(cluster),
        "SlurmdTimeout": 300,
        "MpiDefault": "none",
        "ProctrackType": "proctrack/cgroup",
        "TaskPlugin": ["task/cgroup", "task/affinity"],
        "JobAcctGatherType": "jobacct_gather/cgroup",
        "SelectType": "select/cons_tres",
        "SelectTypeParameters": list(scheduling.select_type_parameters),
        "SchedulerType": "sched/backfill",
        "SchedulerParameters": list(scheduling.scheduler_parameters) or None,
        "GresTypes": "gpu" if cluster.gpu_node_types else None,
        "PreemptType": f"preempt/{scheduling.preempt_type}",
        "PreemptMode": list(scheduling.preempt_mode),
        "PreemptExemptTime": scheduling.preempt_exempt_time or None,
        "JobSubmitPlugins": "lua" if cluster.job_submit.enabled else None,
        "MetricsType": "metrics/openmetrics" if metrics_enabled(cluster) else None,
        "TopologyPlugin": topology_plugin(cluster) or None,
        # Accepted by every release in scope (22.05 to 26.05 keep TopologyParam=Dragonfly).
        "TopologyParam": "Dragonfly" if cluster.fabric.dragonfly and cluster.fabric.topology == "tree" else None,
    }
    settings.update(_priority_settings(cluster))
    settings.update(_accounting_settings(cluster))
    settings.update(_script_settings(cluster))
    settings.update(_health_settings(cluster))
    return settings


def _priority_settings(cluster: Cluster) -> dict[str, Any]:
    scheduling = cluster.scheduling
    if scheduling.priority_type == "basic":
        return {"PriorityType": "priority/basic"}
    settings: dict[str, Any] = {
        "PriorityType": "priority/multifactor",
        "PriorityDecayHalfLife": scheduling.decay_half_life,
        "PriorityUsageResetPeriod": scheduling.usage_reset_period,
        "PriorityMaxAge": scheduling.max_age,
        "PriorityFavorSmall": scheduling.favor_small,
    }
    for key, value in scheduling.priority_weights:
        settings[PRIORITY_WEIGHT_KEYS[key]] = value
    if scheduling.tres_weights:
        settings["PriorityWeightTRES"] = [f"{k}={v}" for k, v in scheduling.tres_weights]
    return settings


def _accounting_settings(cluster: Cluster) -> dict[str, Any]:
    if not cluster.dbd:
        return {"AccountingStorageType": None}
    tres = list(tracked_tres(bool(cluster.gpu_node_types), cluster.accounting_tres))
    return {
        "AccountingStorageType": "accounting_storage/slurmdbd",
        "AccountingStorageHost": cluster.dbd[0],
        "AccountingStorageBackupHost": cluster.dbd[1] if len(cluster.dbd) > 1 else None,
        "AccountingStoragePort": DBD_PORT,
        "AccountingStorageEnforce": list(cluster.accounting_enforce) or None,
        "AccountingStorageTRES": tres or None,
    }


# Which daemon runs each kind of script, hence which hosts get the files.
SCRIPT_HOSTS = {
    "prolog": "compute",
    "epilog": "compute",
    "prolog_slurmctld": "controllers",
    "epilog_slurmctld": "controllers",
}


def script_program(directory: str) -> str:
    """The dispatcher slurm.conf names for a script directory: /etc/slurm/prolog runs /etc/slurm/prolog.d/*."""
    return directory.removesuffix(".d")


def job_script_files(cluster: Cluster) -> list[dict[str, Any]]:
    """The prolog/epilog files to install: per kind (every kind, so that hosts can clean up a dropped one),
    its directory, the hosts that run it and the files in list order (NN-name, since Slurm runs a glob's
    matches in sorted order)."""
    result = []
    for kind, (_key, directory) in SCRIPT_DIRS.items():
        sources: tuple[str, ...] = getattr(cluster.job_scripts, kind)
        files = [
            {"src": src, "dest": f"{directory}/{10 * (i + 1):02d}-{src.rstrip('/').rsplit('/', 1)[-1]}"}
            for i, src in enumerate(sources)
        ]
        result.append(
            {
                "kind": kind,
                "dir": directory,
                "program": script_program(directory),
                "hosts": SCRIPT_HOSTS[kind],
                "files": files,
            }
        )
    return result


# The dispatcher each <kind> program is (the slurm role's files/, beside the samples' job_scripts/).
DISPATCHER = "gpucluster-job-scripts"


def script_source(source: str, sample_dir: str) -> str:
    """Where a job script of cluster_job_scripts is on the Ansible controller: a name without a slash is one of the
    samples in sample_dir, anything else a path."""
    return source if "/" in source else f"{sample_dir.rstrip('/')}/{source}"


def host_job_scripts(
    kinds: Sequence[Mapping[str, Any]], host_groups: Sequence[str], sample_dir: str
) -> dict[str, list[Any]]:
    """One host's share of job_script_files(): the directories its daemon reads, their dispatchers and the
    files to copy there, a source without a slash being one of the samples in sample_dir; ``install`` lists every
    {src, dest} to write, the dispatchers (the program DISPATCHER beside sample_dir) first."""
    mine = [kind for kind in kinds if kind["hosts"] in host_groups]
    programs = [kind["program"] for kind in mine]
    samples = sample_dir.rstrip("/")
    files = [{"src": script_source(f["src"], samples), "dest": f["dest"]} for kind in mine for f in kind["files"]]
    dispatcher = f"{samples.rsplit('/', 1)[0]}/{DISPATCHER}"
    install = [{"src": dispatcher, "dest": program} for program in programs] + files
    return {"dirs": [kind["dir"] for kind in mine], "programs": programs, "files": files, "install": install}


def _script_settings(cluster: Cluster) -> dict[str, Any]:
    scripts = cluster.job_scripts
    settings: dict[str, Any] = {}
    for kind, (key, directory) in SCRIPT_DIRS.items():
        if getattr(scripts, kind):
            settings[key] = script_program(directory)
    settings["TaskProlog"] = scripts.task_prolog or None
    settings["TaskEpilog"] = scripts.task_epilog or None
    flags = list(scripts.prolog_flags)
    if cluster.job_tmpfs.enabled or cluster.pam_adopt:
        # the plugins build the job's namespace in the extern step, and pam_slurm_adopt puts an ssh session into it:
        # Contain makes it (and implies Alloc)
        flags += [] if any(flag.lower() == "contain" for flag in flags) else ["Contain"]
    if cluster.job_tmpfs.enabled:
        plugin = "NamespaceType" if cluster.release.has("namespace_plugins") else "JobContainerType"
        settings[plugin] = "namespace/tmpfs" if plugin == "NamespaceType" else "job_container/tmpfs"
    settings["PrologFlags"] = flags or None
    return settings


def job_container_lines(cluster: Cluster) -> list[str]:
    """job_container.conf of the tmpfs plugin (both names read it); empty when jobs share the node's /tmp."""
    tmpfs = cluster.job_tmpfs
    if not tmpfs.enabled:
        return []
    lines = ["AutoBasePath=true", f"BasePath={tmpfs.base_path}"]
    if cluster.release.has("job_container_dirs"):
        lines.append(f"Dirs={','.join(tmpfs.dirs)}")
    return lines


def _health_settings(cluster: Cluster) -> dict[str, Any]:
    health = cluster.health_check
    if health.interval == 0:
        return {}
    return {
        "HealthCheckProgram": HEALTH_CHECK_PROGRAM,
        "HealthCheckInterval": health.interval,
        "HealthCheckNodeState": list(health.node_state),
    }


def health_check_config(cluster: Cluster) -> dict[str, Any]:
    """What the node health program checks (the per-host file adds the node's name)."""
    health = cluster.health_check
    return {
        "enabled": health.interval > 0,
        "program": HEALTH_CHECK_PROGRAM,
        "config": HEALTH_CHECK_CONFIG,
        "checks": {
            "mounts": [
                {"path": m.path, "fstype": m.fstype, "min_free_percent": m.min_free_percent} for m in health.mounts
            ],
            "services": list(health.services),
            "min_free_memory_mb": health.min_free_memory_mb,
            "rdma_active_ports": health.rdma_active_ports,
            "gpu": health.gpu,
        },
    }


def mail_program(cluster: Cluster) -> str:
    """MailProg: mailx when there is a relay, else the stand-in."""
    return MAIL_PROGRAM if cluster.mail.enabled else NO_MAIL_PROGRAM


def metrics_enabled(cluster: Cluster) -> bool:
    """slurmctld serves its OpenMetrics endpoints: asked for (the default) and the release has them."""
    return cluster.slurm_metrics and cluster.release.has("openmetrics")


def job_submit_config(cluster: Cluster) -> dict[str, Any]:
    """What the controllers need for JobSubmitPlugins=lua: the sample's name and the Lua table of its settings
    (the slurm role's template puts it at the top of the sample), or the site's file."""
    submit = cluster.job_submit
    settings = ""
    if submit.sample:
        partitions = ", ".join(f"[{json.dumps(name)}] = true" for name in submit.gpu_partitions)
        max_minutes = time_minutes(submit.max_time) if submit.max_time else None
        settings = "\n".join(
            (
                "local settings = {",
                f"  gpu_partitions = {{{partitions}}},",
                f"  gpu_partition = {json.dumps(submit.gpu_partition)},",
                f"  cpu_partition = {json.dumps(submit.cpu_partition)},",
                f"  default_partition = {json.dumps(next((p.name for p in cluster.partitions if p.default), ''))},",
                f"  max_time = {int(max_minutes or 0)},  -- minutes; 0: no cap",
                "}",
            )
        )
    return {
        "enabled": submit.enabled,
        "sample": submit.script if submit.sample else "",
        "file": submit.script if submit.enabled and not submit.sample else "",
        "settings": settings,
    }


def mail_config(cluster: Cluster) -> dict[str, Any]:
    """What the controllers need for job mail: the MTA's relay, or the stand-in MailProg (installed at
    ``stand_in`` either way: the slurm role reads the path from here)."""
    mail = cluster.mail
    return {
        "enabled": mail.enabled,
        "relay": mail.relay,
        "port": mail.port,
        "domain": mail.domain,
        "program": mail_program(cluster),
        "stand_in": NO_MAIL_PROGRAM,
    }


def jwt_settings(cluster: Cluster) -> dict[str, Any]:
    """AuthAltTypes/AuthAltParameters for JSON Web Tokens, the same in slurm.conf and slurmdbd.conf (none
    without cluster_rest_api.enabled)."""
    rest_api = cluster.rest_api
    if not rest_api.enabled:
        return {}
    lifespan = [f"max_token_lifespan={rest_api.max_token_lifespan}"] if rest_api.max_token_lifespan else []
    return {"AuthAltTypes": "auth/jwt", "AuthAltParameters": [f"jwt_key={JWT_KEY}", *lifespan]}


def rest_api_config(cluster: Cluster) -> dict[str, Any]:
    """What the controllers (slurmrestd, the key) and the dbd hosts (slurmdbd.conf's lines) need."""
    return {
        "enabled": cluster.rest_api.enabled,
        "port": cluster.rest_api.port,
        "version": cluster.release.rest_api_version,
        "jwt_key": JWT_KEY,
        "slurmdbd_lines": [f"{key}={conf_value(value)}" for key, value in jwt_settings(cluster).items()],
    }


def merged_settings(cluster: Cluster) -> dict[str, Any]:
    """Model settings with cluster_slurm_config on top: a None value deletes a key."""
    settings = default_settings(cluster)
    lower = {key.lower(): key for key in settings}
    for key, value in cluster.slurm_config:
        settings.pop(lower.get(key.lower(), key), None)
        settings[key] = value
    return {key: value for key, value in settings.items() if value is not None and value != []}


def settings_lines(cluster: Cluster) -> list[str]:
    """Global settings, sorted by key so that diffs stay stable; controllers first, in failover order."""
    lines = [
        f"SlurmctldHost={host}({cluster.controller_addresses[host]})"
        if host in cluster.controller_addresses
        else f"SlurmctldHost={host}"
        for host in cluster.controllers
    ]
    if cluster.controller_vip:
        lines.append(f"SlurmctldAddr={cluster.controller_vip}")
    lines += [
        f"{key}={conf_value(value)}"
        for key, value in sorted(merged_settings(cluster).items(), key=lambda kv: kv[0].lower())
    ]
    return lines


def node_features(node_type: NodeType) -> list[str]:
    return list(dict.fromkeys((node_type.name, *node_type.features)))


def node_lines(node_type: NodeType, suffix_ranges: bool = True) -> list[str]:
    """One NodeName stanza per folded chunk of the node type's hosts (hosts with features or a weight of their
    own in stanzas of their own, grouped by what they add), then its NodeSet."""
    gpu = node_type.gpu
    hardware: list[tuple[str, Any]] = [
        ("CPUs", node_type.cpus),
        ("Sockets", node_type.sockets or None),
        ("CoresPerSocket", node_type.cores_per_socket or None),
        ("ThreadsPerCore", node_type.threads_per_core or None),
        ("RealMemory", node_type.real_memory_mb),
        ("MemSpecLimit", node_type.mem_spec_limit_mb or None),
        ("TmpDisk", node_type.tmp_disk_mb or None),
        ("Gres", f"gpu:{gpu.type}:{gpu.count}" if gpu else None),
    ]
    groups: dict[tuple[tuple[str, ...], int], list[str]] = {}
    for host in node_type.hosts:
        extra = node_type.host_features.get(host, ())
        groups.setdefault((extra, node_type.host_weights.get(host, node_type.weight)), []).append(host)
    lines = []
    for (extra, weight), hosts in groups.items():
        attributes = [
            *hardware,
            ("Features", list(dict.fromkeys((*node_features(node_type), *extra)))),
            ("Weight", weight),
            ("State", "UNKNOWN"),
        ]
        chunks = fold_chunks(hosts, suffix_ranges=suffix_ranges)
        lines += [dict_line([("NodeName", chunk), *attributes]) for chunk in chunks]
    lines.append(dict_line([("NodeSet", node_type.nodeset), ("Feature", node_type.name)]))
    return lines


def partition_nodes(cluster: Cluster, partition: Partition) -> str:
    """Nodes= of a partition: NodeSets for whole node types, folded hosts for the rest."""
    names: list[str] = []
    covered: set[str] = set()
    for type_name in partition.whole_types:
        node_type = cluster.node_type(type_name)
        if node_type is not None:
            names.append(node_type.nodeset)
            covered.update(node_type.hosts)
    rest = [host for host in partition.hosts if host not in covered]
    if rest:
        names.append(fold(rest, suffix_ranges=cluster.release.folds_suffixed_names))
    return ",".join(names)


def partition_line(cluster: Cluster, partition: Partition) -> str:
    pairs: list[tuple[str, Any]] = [
        ("PartitionName", partition.name),
        ("Nodes", partition_nodes(cluster, partition)),
        ("Default", True if partition.default else None),
        ("State", partition.state),
        ("MaxTime", partition.max_time or None),
        ("DefaultTime", partition.default_time or None),
        ("MaxNodes", partition.max_nodes),
        ("PriorityTier", partition.priority_tier),
        ("PreemptMode", partition.preempt_mode or None),
        ("OverSubscribe", partition.oversubscribe or None),
        ("QOS", partition.qos or None),
        ("AllowQos", list(partition.allow_qos) or None),
        ("AllowAccounts", list(partition.allow_accounts) or None),
        ("DefMemPerGPU", partition.def_mem_per_gpu_mb or None),
        ("DefCpuPerGPU", partition.def_cpu_per_gpu or None),
        ("DefMemPerCPU", partition.def_mem_per_cpu_mb or None),
        ("Topology", partition.topology or None),
        *partition.options,
    ]
    return dict_line(pairs)


def gres_files(node_type: NodeType) -> str:
    """gres.conf's File= of a node type's GPUs (empty with AutoDetect, where slurmd names them)."""
    gpu = node_type.gpu
    if gpu is None or gpu.autodetect != "off":
        return ""
    return "/dev/" + fold(device.removeprefix("/dev/") for device in gpu.devices)


def gpu_index_order(node_type: NodeType) -> list[str]:
    """The node type's GPU device files in Slurm's index order (the order slurmd expands File=; SLURM_STEP_GPUS
    and SLURM_JOB_GPUS hold these indices); empty with AutoDetect."""
    files = gres_files(node_type)
    return expand(files) if files else []


def gres_lines(node_type: NodeType, suffix_ranges: bool = True) -> list[str]:
    """gres.conf for one node type: typed File= lines, or AutoDetect for the node type's hosts."""
    gpu = node_type.gpu
    if gpu is None:
        return []
    files = gres_files(node_type)
    lines = []
    for chunk in fold_chunks(node_type.hosts, suffix_ranges=suffix_ranges):
        if gpu.autodetect != "off":
            lines.append(dict_line([("NodeName", chunk), ("AutoDetect", gpu.autodetect)]))
        else:
            lines.append(dict_line([("NodeName", chunk), ("Name", "gpu"), ("Type", gpu.type), ("File", files)]))
    return lines


def slurm_conf_sections(cluster: Cluster) -> Mapping[str, list[str]]:
    """slurm.conf in three sections: settings, node stanzas, partition stanzas."""
    nodes: list[str] = []
    for node_type in cluster.node_types:
        nodes += node_lines(node_type, cluster.release.folds_suffixed_names)
    return {
        "settings": settings_lines(cluster),
        "nodes": nodes,
        "partitions": [partition_line(cluster, p) for p in cluster.partitions],
    }
