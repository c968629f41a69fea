"""Malformed inventories: each is rejected with its own message, and every message names its culprit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils import render
from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_cluster
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import inventory_errors

from .factory import valid_groups, valid_spec

Spec = dict[str, Any]
Groups = dict[str, list[str]]
Mutation = Callable[[Spec, Groups], object]


def nt(spec: Spec, name: str = "h100") -> dict[str, Any]:
    return spec["node_types"][name]


def part(spec: Spec, index: int = 0) -> dict[str, Any]:
    return spec["partitions"][index]


def _set(path: str, value: Any) -> Mutation:
    """A mutation that sets spec[a][b]... = value (integers index lists)."""

    def apply(spec: Spec, _groups: Groups) -> None:
        keys: list[Any] = [int(k) if k.isdigit() else k for k in path.split(".")]
        target: Any = spec
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value

    return apply


def _groups(change: Callable[[Groups], object]) -> Mutation:
    return lambda _spec, groups: change(groups)


def _add_host(group: str, host: str) -> Mutation:
    def apply(_spec: Spec, groups: Groups) -> None:
        groups[group].append(host)
        if group.startswith("compute_"):
            groups["compute"].append(host)
        groups["all"].append(host)

    return apply


def _del(path: str) -> Mutation:
    def apply(spec: Spec, _groups: Groups) -> None:
        keys = path.split(".")
        target: Any = spec
        for key in keys[:-1]:
            target = target[key]
        del target[keys[-1]]

    return apply


CASES: list[tuple[str, Mutation, str]] = [
    ("cluster name missing", _set("name", ""), "cluster_name: not set"),
    ("cluster name too long", _set("name", "c" * 41), "is not a valid Slurm ClusterName"),
    ("cluster name uppercase", _set("name", "Lab"), "'Lab' is not a valid Slurm ClusterName"),
    ("unknown release", _set("slurm_release", "21.08"), "cluster_slurm_release: '21.08' is not a known Slurm release"),
    ("unknown top-level key", _set("nodetypes", {}), "unknown key 'nodetypes'"),
    ("group not declared", _groups(lambda g: g.pop("storage")), "group 'storage' is not declared"),
    ("no controllers", _groups(lambda g: g.update(controllers=[])), "group 'controllers' is empty"),
    ("three dbd hosts", _groups(lambda g: g.update(dbd=["d1", "d2", "d3"])), "group 'dbd' has 3 hosts"),
    (
        "unknown gpu type with autodetect",
        lambda s, g: nt(s)["gpu"].update(type="h1000", autodetect="nvml"),
        "'h1000' is not a GPU model of the catalogue (did you mean h100?), and autodetect nvml matches",
    ),
    ("gpu type with a space", _set("node_types.h100.gpu.type", "h100 sxm"), "may hold letters, digits, '-'"),
    (
        "gpu type not in nvml name",
        _set("node_types.h100.gpu.nvml_name", "NVIDIA A100-SXM4-80GB"),
        "'h100' is not a substring of the NVML name",
    ),
    ("gpu count vs devices", _set("node_types.h100.gpu.devices", "/dev/nvidia[0-2]"), "3 device files for count 4"),
    ("device not a gpu", _set("node_types.h100.gpu.devices", "/dev/sda[0-3]"), "are not GPU device files"),
    ("gpu count missing", _del("node_types.h100.gpu.count"), "h100.gpu: missing required key 'count'"),
    ("gpu count as bool", _set("node_types.h100.gpu.count", True), "h100.gpu.count: expected an integer"),
    (
        "autodetect nvidia on 22.05",
        lambda s, g: (s.update(slurm_release="22.05"), s.pop("fabric"), nt(s)["gpu"].update(autodetect="nvidia")),
        "'nvidia' needs Slurm >= 24.11",
    ),
    ("autodetect full on 24.11", _set("node_types.h100.gpu.autodetect", "full"), "'full' needs Slurm >= 26.05"),
    ("autodetect unknown", _set("node_types.h100.gpu.autodetect", "auto"), "'auto' is not one of off, nvml"),
    (
        "mig with autodetect nvidia",
        lambda s, g: nt(s)["gpu"].update(autodetect="nvidia", mig=True),
        "AutoDetect=nvidia does not see MIG",
    ),
    ("mig without autodetect", _set("node_types.h100.gpu.mig", True), "MIG instances need autodetect: nvml"),
    ("node in two node types", _add_host("compute_cpu", "gpu01"), "hosts gpu01 belong to node types h100, cpu"),
    (
        "compute host in no node type",
        _groups(lambda g: g["compute"].append("stray01")),
        "compute hosts stray01 are in no node type",
    ),
    (
        "node type group missing",
        _set("node_types.cpu.group", "compute_arm"),
        "inventory group 'compute_arm' does not exist",
    ),
    (
        "node type group empty",
        _groups(lambda g: g.update(compute_cpu=[], compute=g["compute_h100"])),
        "group 'compute_cpu' has no hosts",
    ),
    (
        "node type outside compute",
        _groups(lambda g: g.update(compute=g["compute_h100"])),
        "make 'compute_cpu' a child of 'compute'",
    ),
    ("cpus inconsistent", _set("node_types.h100.cpus", 30), "cpus: 30 matches neither"),
    ("memory below floor", _set("node_types.cpu.real_memory_mb", 512), "512 MiB is below the floor of 1024"),
    ("mem spec limit too large", _set("node_types.cpu.mem_spec_limit_mb", 9000), "leaves no memory for jobs"),
    ("sockets missing", _del("node_types.cpu.sockets"), "cluster_node_types.cpu: missing required key 'sockets'"),
    ("unknown node type key", _set("node_types.cpu.memory", 8000), "cluster_node_types.cpu: unknown key 'memory'"),
    ("feature with operator", _set("node_types.h100.features", ["ib|roce"]), "'ib|roce' may hold letters"),
    (
        "reserved node type name",
        lambda s, g: (
            s["node_types"].update(default=s["node_types"].pop("cpu"))
            or s["partitions"][1].update(node_types=["default"])
        ),
        "'default' is a Slurm reserved word",
    ),
    (
        "partition names missing node type",
        _set("partitions.0.node_types", ["a100"]),
        "node type 'a100' is not declared in cluster_node_types",
    ),
    ("partition names missing group", _set("partitions.0.groups", ["rack9"]), "inventory group 'rack9' does not exist"),
    ("partition names no nodes", _set("partitions.1.node_types", []), "cluster_partitions[cpu]: names no nodes"),
    ("partition feature matches nothing", _set("partitions.0.features", ["nvl72"]), "no node type has feature 'nvl72'"),
    ("node in no partition", lambda s, g: s["partitions"].pop(1), "compute hosts cpu[01-02] are in no partition"),
    (
        "partition with login host",
        lambda s, g: s["partitions"][0].update(groups=["login"]),
        "hosts login01 are not compute nodes",
    ),
    (
        "duplicate partition",
        lambda s, g: s["partitions"].append(dict(s["partitions"][1])),
        "partition 'cpu' is declared 2 times",
    ),
    ("two default partitions", _set("partitions.1.default", True), "gpu, cpu are all default: true"),
    ("reserved partition name", _set("partitions.1.name", "DEFAULT"), "'DEFAULT' is a Slurm reserved word"),
    ("bad max time", _set("partitions.0.max_time", "2 days"), "'2 days' is not a Slurm time"),
    ("bad oversubscribe", _set("partitions.0.oversubscribe", "MAYBE"), "'MAYBE' must be NO, EXCLUSIVE"),
    ("bad partition preempt mode", _set("partitions.1.preempt_mode", "KILL"), "'KILL' is not one of"),
    ("partition qos undeclared", _set("partitions.0.qos", "gold"), "QOS 'gold' is not declared in cluster_qos"),
    ("default as string", _set("partitions.0.default", "maybe"), "expected true or false, got a string 'maybe'"),
    ("partitions not a list", _set("partitions", {"gpu": {}}), "cluster_partitions: expected a list"),
    ("qos preempts unknown", _set("qos.high.preempt", ["scavenger"]), "QOS scavenger not declared in cluster_qos"),
    ("qos preempts itself", _set("qos.high.preempt", ["high"]), "a QOS cannot preempt itself"),
    # sacctmgr stops the QOS task on these, after the hosts were set up
    ("qos limit misspelt", _set("qos.high.limits", {"MaxTRESPerUsr": "gres/gpu=8"}), "did you mean MaxTRESPerUser?"),
    (
        "qos limit with a key",
        _set("qos.high.limits", {"maxwall": "10:00"}),
        "give maxwall as cluster_qos.high.max_wall",
    ),
    ("qos limit no count", _set("qos.high.limits", {"MaxJobsPU": "four"}), "MaxJobsPU 'four' is not a count"),
    (
        "qos limit untracked tres",
        _set("qos.high.limits", {"MaxTRESPerUser": "gres/gpu:a100=8"}),
        "MaxTRESPerUser limits gres/gpu:a100, which this cluster does not track",
    ),
    (
        "health free memory above a node's",
        _set("health_check", {"min_free_memory_mb": 64000}),
        "min_free_memory_mb: 64000 MiB is not below the memory of node type h100 (64000 MiB)",
    ),
    (
        "relative state directory",
        _set("slurm_config", {"StateSaveLocation": "state"}),
        "cluster_slurm_config.StateSaveLocation: 'state' is not an absolute path",
    ),
    # slurmctld stops at start on a weight of a TRES it does not track
    (
        "tres weight untracked",
        _set("scheduling.priority", {"tres_weights": {"GRES/gpu:h100": "2.0"}}),
        "tres_weights: GRES/gpu:h100 is not a TRES this cluster tracks",
    ),
    ("qos preemption cycle", _set("qos.normal.preempt", ["high"]), "preemption cycle through normal"),
    ("suspend without gang", _set("scheduling.preempt.mode", ["SUSPEND"]), "SUSPEND needs GANG as well"),
    ("exclusive preempt modes", _set("scheduling.preempt.mode", ["REQUEUE", "CANCEL"]), "exclude each other"),
    (
        "preempt mode without type",
        _set("scheduling.preempt", {"mode": ["REQUEUE"]}),
        "a preemption mode is set but preempt.type is none",
    ),
    (
        "partition_prio with one tier",
        _set("partitions.1.priority_tier", 10),
        "every partition has the same priority_tier",
    ),
    (
        "qos preemption without preempt lists",
        lambda s, g: (s["scheduling"]["preempt"].update(type="qos"), s["qos"]["high"].pop("preempt")),
        "no QOS in cluster_qos lists others under preempt",
    ),
    ("unknown priority weight", _set("scheduling.priority", {"weights": {"gpu": 5}}), "unknown weight gpu"),
    ("bad enforce", _set("accounting.enforce", ["associations", "strict"]), "strict not one of"),
    ("qos not enforced", _set("accounting.enforce", ["associations"]), "'qos' is not enforced"),
    (
        "controller also compute",
        _groups(lambda g: g.update(controllers=["gpu01"])),
        "hosts gpu01 are in both 'controllers' and 'compute'",
    ),
    (
        "login node also compute under pam_slurm_adopt",
        lambda s, g: (s.update(pam_adopt=True), g.update(login=["gpu02"])),
        "hosts gpu02 are in both 'login' and 'compute' with cluster_pam_adopt: true",
    ),
    ("padding collision", _add_host("compute_h100", "gpu1"), "'gpu01' and 'gpu1' collide after folding"),
    ("case collision", _add_host("compute_h100", "GPU02"), "collide after folding"),
    ("invalid host name", _add_host("compute_h100", "gpu[05]"), "are not valid node names"),
    (
        "model-owned slurm.conf key",
        _set("slurm_config", {"NodeName": "x"}),
        "written by the model; set cluster_node_types",
    ),
    (
        "tracked TRES set beside the model's",
        _set("slurm_config", {"AccountingStorageTRES": "gres/gpu:h100"}),
        "AccountingStorageTRES: written by the model; set cluster_accounting.tres",
    ),
    (
        "scheduler parameters set twice",
        lambda s, g: s.update(
            scheduling={**s.get("scheduling", {}), "scheduler_parameters": ["bf_continue"]},
            slurm_config={"schedulerparameters": "bf_max_job_test=1000"},
        ),
        "cluster_slurm_config.schedulerparameters: the model writes schedulerparameters from "
        "cluster_scheduling.scheduler_parameters, which this inventory sets",
    ),
    (
        "prolog flags without the contain pam_slurm_adopt needs",
        lambda s, g: s.update(pam_adopt=True, slurm_config={"PrologFlags": "Alloc"}),
        "the Contain cluster_pam_adopt needs (the job's extern step)",
    ),
    (
        "another slurm user",
        _set("slurm_config", {"SlurmUser": "slurmadm"}),
        "cluster_slurm_config.SlurmUser: written by the model; set common_slurm_uid",
    ),
    ("another authentication", _set("slurm_config", {"AuthType": "auth/slurm"}), "AuthType: written by the model"),
    (
        "configless without its flag",
        _set("slurm_config", {"SlurmctldParameters": "idle_on_node_suspend"}),
        "'idle_on_node_suspend' leaves out enable_configless, which configless slurmd needs",
    ),
    (
        "processes not tracked by cgroup",
        _set("slurm_config", {"ProctrackType": "proctrack/linuxproc"}),
        "'proctrack/linuxproc' is not proctrack/cgroup",
    ),
    (
        "tasks not confined",
        _set("slurm_config", {"TaskPlugin": "task/affinity"}),
        "'task/affinity' leaves out task/cgroup",
    ),
    (
        "jwt settings beside the rest api",
        lambda s, g: s.update(rest_api={"enabled": True}, slurm_config={"AuthAltParameters": "disable_token_creation"}),
        "the model writes AuthAltParameters from cluster_rest_api",
    ),
    (
        "job container without cluster_job_tmpfs",
        _set("slurm_config", {"JobContainerType": "job_container/tmpfs"}),
        "JobContainerType: written by the model; set cluster_job_tmpfs.enabled instead",
    ),
    (
        "include with a path",
        _set("slurm_config", {"Include": "/etc/slurm/extra.conf"}),
        "configless slurmd only receives",
    ),
    ("duplicate prolog names", _set("job_scripts", {"prolog": ["a/gpu.sh", "b/gpu.sh"]}), "two scripts named 'gpu.sh'"),
    ("relative task prolog", _set("job_scripts", {"task_prolog": "env.sh"}), "must be an absolute path"),
    (
        "user dir in /tmp",
        _set("job_scripts", {"user_dirs": ["/tmp/{user}"]}),
        "/tmp is shared by the system or other users",
    ),
    (
        "user dir in a shared system directory",
        _set("job_scripts", {"user_dirs": ["/var/tmp/{user}"]}),
        "/var/tmp is shared by the system or other users",
    ),
    (
        "user dir right under the root",
        _set("job_scripts", {"user_dirs": ["/run/{uid}"]}),
        "/run is shared by the system or other users",
    ),
    (
        "user dir that does not name the user",
        _set("job_scripts", {"user_dirs": ["/run/slurm-oci/state"]}),
        "its last part must name the job's user with {user} or {uid}",
    ),
    (
        "user dir with the user above its last part",
        _set("job_scripts", {"user_dirs": ["/run/{user}/oci"]}),
        "only the last part may name the user",
    ),
    (
        "user dir that is relative",
        _set("job_scripts", {"user_dirs": ["run/slurm-oci/{user}"]}),
        "is not an absolute path on one line",
    ),
    (
        "user dir with a shell expansion",
        _set("job_scripts", {"user_dirs": ["/run/enroot/user-$(id -u)"]}),
        "'/run/enroot/user-$(id -u)' is not an absolute path",
    ),
    ("health check unknown key", _set("health_check", {"every": 300}), "cluster_health_check: unknown key 'every'"),
    (
        "health check node state",
        _set("health_check", {"node_state": ["BUSY"]}),
        "cluster_health_check.node_state: BUSY not one of",
    ),
    ("health check cycle alone", _set("health_check", {"node_state": "CYCLE"}), "name the states too"),
    ("health check interval tiny", _set("health_check", {"interval": 2}), "interval: 2 s would run the check"),
    ("health check interval text", _set("health_check", {"interval": "5min"}), "interval: expected an integer"),
    ("health mount relative", _set("health_check", {"mounts": ["home"]}), "'home' is not an absolute path"),
    ("health mount twice", _set("health_check", {"mounts": ["/home", "/home/"]}), "/home is listed 2 times"),
    (
        "health mount free percent",
        _set("health_check", {"mounts": [{"path": "/scratch", "min_free_percent": 100}]}),
        "cluster_health_check.mounts[0].min_free_percent: 100 is out of range 0..99",
    ),
    (
        "health START_ONLY on 22.05",
        lambda s, g: (s.update(slurm_release="22.05", health_check={"node_state": ["START_ONLY"]}), s.pop("fabric")),
        "START_ONLY needs Slurm 23.02",
    ),
    (
        "health NONDRAINED_IDLE on 22.05",
        lambda s, g: (
            s.update(slurm_release="22.05", health_check={"node_state": ["NONDRAINED_IDLE"]}),
            s.pop("fabric"),
        ),
        "NONDRAINED_IDLE needs Slurm 23.02",
    ),
    ("health service name", _set("health_check", {"services": ["munge; reboot"]}), "are not systemd unit names"),
    (
        "prolog flag misspelled",
        _set("job_scripts", {"prolog_flags": ["Alloc", "Contian"]}),
        "'Contian' is not a PrologFlag slurmctld reads (it would not start); did you mean Contain?",
    ),
    (
        "prolog flag of a later release",
        lambda s, g: (s.update(slurm_release="22.05", job_scripts={"prolog_flags": ["RunInJob"]}), s.pop("fabric")),
        "RunInJob needs Slurm 24.05 or later (cluster is 22.05",
    ),
    (
        "prolog NoHold beside Contain",
        _set("job_scripts", {"prolog_flags": ["Alloc", "NoHold", "contain"]}),
        "NoHold cannot be combined with contain",
    ),
    (
        "prolog NoHold beside pam_adopt's Contain",
        lambda s, g: s.update(pam_adopt=True, job_scripts={"prolog_flags": ["Alloc", "NoHold"]}),
        "NoHold cannot be combined with Contain (cluster_pam_adopt)",
    ),
    (
        "prolog RunInJob and Serial",
        _set("job_scripts", {"prolog_flags": ["RunInJob", "Serial"]}),
        "RunInJob and Serial",
    ),
    ("mail unknown key", _set("mail", {"relays": "smtp.example.org"}), "did you mean 'relay'?"),
    ("mail relay with port", _set("mail", {"relay": "smtp.example.org:587"}), "give the port as cluster_mail.port"),
    ("mail relay url", _set("mail", {"relay": "smtp://mail"}), "'smtp://mail' is no host name or IP address"),
    ("mail port range", _set("mail", {"relay": "mail", "port": 70000}), "cluster_mail.port: 70000 is out of range"),
    ("mail domain alone", _set("mail", {"domain": "example.org"}), "cluster_mail.relay is empty"),
    (
        "rest api unknown key",
        _set("rest_api", {"enable": True}),
        "cluster_rest_api: unknown key 'enable'; did you mean",
    ),
    ("rest api port", _set("rest_api", {"enabled": True, "port": 0}), "cluster_rest_api.port: 0 is out of range"),
    (
        "a TRES weight that is no number",
        _set("scheduling", {"priority": {"tres_weights": {"CPU": "one", "Mem": "0.25G", "GRES/gpu": 16}}}),
        "cluster_scheduling.priority.tres_weights.CPU: 'one' is not a weight slurmctld reads",
    ),
    (
        "a switch name with a space",
        _set("fabric", {"topology": "tree", "switches": {"leaf 1": {"nodes": "gpu[01-04]"}}}),
        "cluster_fabric.switches: 'leaf 1' are no switch names topology.conf can carry",
    ),
    (
        "an AMD accelerator",
        _set("node_types.h100.gpu.type", "mi300x"),
        "cluster_node_types.h100.gpu.type: 'mi300x' is an AMD accelerator",
    ),
    (
        "rest api on slurmctld's port",
        _set("rest_api", {"enabled": True, "port": 6817}),
        "cluster_rest_api.port: 6817 is slurmctld's (SlurmctldPort 6817) on the controllers",
    ),
    (
        "a job's private /home",
        _set("job_tmpfs", {"enabled": True, "dirs": ["/tmp", "/home"]}),
        "cluster_job_tmpfs.dirs: /home would be an empty directory of its own in each job",
    ),
    ("rest api switch", _set("rest_api", {"enabled": "maybe"}), "cluster_rest_api.enabled: expected true or false"),
    (
        "rest api lifespan",
        _set("rest_api", {"max_token_lifespan": "1h"}),
        "cluster_rest_api.max_token_lifespan: expected an integer",
    ),
    ("job_submit unknown sample", _set("job_submit", {"script": "gpu_policy"}), "'gpu_policy' is not a sample"),
    (
        "job_submit unknown partition",
        _set("job_submit", {"script": "gpu-policy", "cpu_partition": "cpus"}),
        "cluster_job_submit.cpu_partition: cpus not in cluster_partitions",
    ),
    (
        "job_submit cpu partition among the GPU ones",
        _set("job_submit", {"script": "gpu-policy", "cpu_partition": "gpu"}),
        "cluster_job_submit.cpu_partition: 'gpu' is one of gpu_partitions",
    ),
    (
        "job_submit gpu partition outside the GPU ones",
        _set("job_submit", {"script": "gpu-policy", "gpu_partition": "cpu"}),
        "cluster_job_submit.gpu_partition: 'cpu' is not one of gpu_partitions",
    ),
    (
        "job_submit uncapped",
        _set("job_submit", {"script": "gpu-policy", "max_time": "UNLIMITED"}),
        "cluster_job_submit.max_time: 'UNLIMITED' caps nothing",
    ),
    (
        "job_submit negative max_time",
        _set("job_submit", {"script": "gpu-policy", "max_time": -60}),
        "cluster_job_submit.max_time: -60 is not a time",
    ),
    (
        "job_submit and JobSubmitPlugins",
        lambda spec, _g: spec.update(
            job_submit={"script": "/srv/job_submit.lua"}, slurm_config={"JobSubmitPlugins": "lua"}
        ),
        "cluster_slurm_config.JobSubmitPlugins: cluster_job_submit writes it",
    ),
    (
        "job_submit site file climbing",
        _set("job_submit", {"script": "../job_submit.lua"}),
        "cluster_job_submit.script: '../job_submit.lua' climbs out",
    ),
    (
        "slurm metrics beside PrivateData",
        lambda spec, _g: spec.update(slurm_release="26.05", slurm_config={"PrivateData": "jobs"}),
        "cluster_slurm_metrics: slurmctld serves no metrics while PrivateData is set",
    ),
    (
        "job tmpfs base inside tmp",
        _set("job_tmpfs", {"enabled": True, "base_path": "/tmp/jobs"}),
        "cluster_job_tmpfs.base_path: /tmp/jobs is inside /tmp",
    ),
    (
        "job tmpfs dirs on 22.05",
        lambda spec, _g: spec.update(slurm_release="22.05", job_tmpfs={"enabled": True, "dirs": ["/tmp"]}),
        "cluster_job_tmpfs.dirs: Slurm 22.05 makes /tmp and /dev/shm private",
    ),
    (
        "job tmpfs relative dir",
        _set("job_tmpfs", {"enabled": True, "dirs": ["tmp"]}),
        "cluster_job_tmpfs.dirs: 'tmp' is not an absolute path",
    ),
    ("mail domain bad", _set("mail", {"relay": "mail", "domain": "ex ample"}), "'ex ample' is no domain name"),
    (
        "health_check program in slurm_config",
        _set("slurm_config", {"HealthCheckProgram": "/usr/sbin/nhc"}),
        "cluster_slurm_config.HealthCheckProgram: written by the model",
    ),
    ("tree without switches", _set("fabric", {"topology": "tree"}), "tree, but no switches"),
    (
        "switch cycle",
        _set(
            "fabric",
            {
                "topology": "tree",
                "switches": {"s1": {"switches": "s2", "nodes": "gpu[01-04],cpu[01-02]"}, "s2": {"switches": "s1"}},
            },
        ),
        "cycle s1 -> s2 -> s1",
    ),
    (
        "orphan node",
        _set("fabric", {"topology": "tree", "switches": {"s1": {"nodes": "gpu[01-04]"}}}),
        "compute hosts cpu[01-02] hang off no switch",
    ),
    (
        "node under two leaves",
        _set(
            "fabric",
            {
                "topology": "tree",
                "switches": {
                    "s1": {"nodes": "gpu[01-04],cpu[01-02]"},
                    "s2": {"nodes": "gpu01"},
                    "top": {"switches": "s[1-2]"},
                },
            },
        ),
        "hosts gpu01 hang off more than one leaf switch",
    ),
    (
        "disconnected tree",
        _set(
            "fabric", {"topology": "tree", "switches": {"s1": {"nodes": "gpu[01-04]"}, "s2": {"nodes": "cpu[01-02]"}}}
        ),
        "2 top-level switches (s1, s2)",
    ),
    (
        "unknown child switch",
        _set(
            "fabric", {"topology": "tree", "switches": {"top": {"switches": "leaf1", "nodes": "gpu[01-04],cpu[01-02]"}}}
        ),
        "'leaf1' is not a declared switch",
    ),
    (
        "switch named like a host",
        _set("fabric", {"topology": "tree", "switches": {"gpu01": {"nodes": "gpu[02-04],cpu[01-02]"}}}),
        "gpu01 are also host names",
    ),
    (
        "switch lists unknown node",
        _set("fabric", {"topology": "tree", "switches": {"s1": {"nodes": "gpu[01-09],cpu[01-02]"}}}),
        "gpu[05-09] are not compute hosts",
    ),
    (
        "two tree generators",
        _set(
            "fabric",
            {
                "topology": "tree",
                "fat_tree": {"nodes_per_leaf": 2},
                "dragonfly": {"nodes_per_leaf": 2, "leaves_per_group": 2},
            },
        ),
        "fat_tree and dragonfly both describe the switch tree",
    ),
    ("3-tier without pods", _set("fabric.fat_tree", {"tiers": 3, "nodes_per_leaf": 2}), "needs leaves_per_pod"),
    (
        "blocks on 22.05",
        lambda s, g: (
            s.update(slurm_release="22.05"),
            s.update(fabric={"topology": "block", "blocks": {"nodes_per_block": 2, "node_types": ["h100"]}}),
            s["partitions"].__setitem__(1, {**s["partitions"][1], "node_types": ["cpu"]}),
        ),
        "topology/block needs Slurm >= 23.11",
    ),
    (
        "block sizes not doubling",
        _set(
            "fabric",
            {"topology": "block", "blocks": {"nodes_per_block": 2, "block_sizes": [2, 6], "node_types": ["h100"]}},
        ),
        "6 is not a power-of-two multiple of 2",
    ),
    (
        "block smaller than base",
        _set(
            "fabric",
            {
                "topology": "block",
                "blocks": {
                    "block_sizes": [4],
                    "node_types": ["h100"],
                    "blocks": {"b1": "gpu[01-04]", "b2": "cpu[01-02]"},
                },
            },
        ),
        "b2: 2 nodes, fewer than the base block size 4",
    ),
    (
        "node outside every block",
        _set(
            "fabric",
            {
                "topology": "block",
                "blocks": {"block_sizes": [2], "node_types": ["h100"], "blocks": {"b1": "gpu[01-02]"}},
            },
        ),
        "hosts gpu[03-04] of node types h100 are in no block",
    ),
    (
        "node in two blocks",
        _set(
            "fabric",
            {
                "topology": "block",
                "blocks": {
                    "block_sizes": [2],
                    "node_types": ["h100"],
                    "blocks": {"b1": "gpu[01-02]", "b2": "gpu[02-04]"},
                },
            },
        ),
        "hosts gpu02 are in more than one block",
    ),
    (
        "partition topology before 25.05",
        _set("partitions.0.topology", "fabric"),
        "per-partition topologies need Slurm >= 25.05",
    ),
    (
        "partition topology unknown",
        lambda s, g: (s.update(slurm_release="26.05"), part(s).update(topology="nvlink")),
        "'nvlink' is not a topology of this fabric (fabric)",
    ),
    ("default time above max time", _set("partitions.0.default_time", "2-00:00:00"), "is longer than max_time"),
    (
        "mem per gpu above the node",
        _set("partitions.0.def_mem_per_gpu_mb", 20000),
        "20000 MiB x 4 GPUs of node type h100 is more than its 64000 MiB for jobs",
    ),
    (
        "cpus per gpu above the node",
        _set("partitions.0.def_cpu_per_gpu", 9),
        "9 CPUs x 4 GPUs of node type h100 is more than its 32 CPUs",
    ),
    ("partition option owned by the model", _set("partitions.0.options", {"Nodes": "ALL"}), "options.Nodes: written"),
    (
        "partition oversubscribing to one job",
        _set("partitions.0.oversubscribe", "YES:1"),
        "oversubscribe: 'YES:1' shares a resource among fewer than 2 jobs; slurmctld ignores it",
    ),
    (
        "partition option with a unit",
        _set("partitions.0.options", {"MaxMemPerNode": "64G"}),
        "options.MaxMemPerNode: '64G' is a number with a unit",
    ),
    (
        "partition option over its largest",
        _set("partitions.0.options", {"PriorityJobFactor": 70000}),
        "options.PriorityJobFactor: 70000 is more than 65535",
    ),
    (
        "qos flag misspelled",
        _set("qos", {"low": {"flags": ["DenyOnLimt"]}}),
        "cluster_qos.low.flags: 'DenyOnLimt' is not a QOS flag sacctmgr takes; did you mean DenyOnLimit?",
    ),
    (
        "qos flag of a later release",
        lambda s, g: (s.update(slurm_release="22.05", qos={"low": {"flags": ["relative"]}}), s.pop("fabric")),
        "cluster_qos.low.flags: Relative needs Slurm 23.11 or later (cluster is 22.05",
    ),
    (
        "qos preempt mode misspelled",
        _set("qos", {"low": {"preempt_mode": "REQUEU"}}),
        "cluster_qos.low.preempt_mode: 'REQUEU' is not a preemption mode sacctmgr takes",
    ),
    (
        "state save location a system tree",
        _set("slurm_config", {"StateSaveLocation": "/srv/"}),
        "cluster_slurm_config.StateSaveLocation: /srv/ is a system directory; the roles make it the daemon's own "
        "(owner, mode) and a state restore empties it - give the daemon a directory of its own, e.g. /srv/slurmctld",
    ),
    ("partition option not yes or no", _set("partitions.0.options", {"Hidden": "maybe"}), "'maybe' is not yes or no"),
    (
        "select parameter misspelled",
        _set("scheduling", {"select_type_parameters": ["CR_Core_Memory", "CR_Pack_Node"]}),
        "'CR_Pack_Node' is not a SelectTypeParameter (slurmctld would not start); did you mean CR_PACK_NODES?",
    ),
    (
        "select parameters without a resource",
        _set("scheduling", {"select_type_parameters": ["CR_LLN"]}),
        "no consumable resource - name exactly one of CR_CPU",
    ),
    (
        "select parameters with two resources",
        _set("scheduling", {"select_type_parameters": ["CR_Core", "cr_cpu_memory"]}),
        "CR_Core, cr_cpu_memory - name exactly one of",
    ),
    (
        "select parameter removed",
        _set("scheduling", {"select_type_parameters": ["CR_Socket_Memory", "CR_ALLOCATE_FULL_SOCKET"]}),
        "CR_ALLOCATE_FULL_SOCKET was removed in Slurm 23.02 (cluster is 24.11",
    ),
    (
        "select parameter of a later release",
        _set("scheduling", {"select_type_parameters": ["CR_Core_Memory", "CR_NO_DIST_TOPO_BLOCK"]}),
        "CR_NO_DIST_TOPO_BLOCK needs Slurm 25.05 or later (cluster is 24.11",
    ),
    (
        "partition suspend without gang",
        _set("partitions.1.preempt_mode", "SUSPEND"),
        "SUSPEND needs GANG in cluster_scheduling.preempt.mode",
    ),
    (
        "usage reset period not a word",
        _set("scheduling.priority", {"usage_reset_period": "30-0"}),
        "'30-0' is not one of NONE, NOW, DAILY",
    ),
    ("job script climbs out", _set("job_scripts", {"prolog": ["../../etc/shadow"]}), "climbs out of its directory"),
    (
        "empty switch",
        _set("fabric", {"topology": "tree", "switches": {"s1": {"nodes": "gpu[01-04],cpu[01-02]"}, "s2": {}}}),
        "s2 connect no node and no switch",
    ),
    ("misspelt key suggested", _set("scheduling.premept", {}), "did you mean 'preempt'?"),
    ("reversed host range", _set("removed_nodes", "gpu[04-01]"), "reversed range 04-01"),
    (
        "bad hostlist in switch",
        _set("fabric", {"topology": "tree", "switches": {"s1": {"nodes": "gpu[01-"}}}),
        "cannot parse hostlist",
    ),
    # ports as the daemons read them (slurmctld of 22.05, 24.11 and 26.05 asked: docs/inventory.md)
    (
        "falling slurmctld port range",
        _set("slurm_config", {"SlurmctldPort": "6820-6817"}),
        "SlurmctldPort: '6820-6817' is not a port or a rising range of ports (1-65535): slurmctld stops on it",
    ),
    ("slurmd port above 65535", _set("slurm_config", {"SlurmdPort": 70000}), "SlurmdPort: 70000 is not a port"),
    (
        "srun port range of one port",
        _set("slurm_config", {"SrunPortRange": "60001-60001"}),
        "Slurm ignores it without a word (scontrol show config: SrunPortRange = 0-0)",
    ),
    (
        "srun port range below 1024",
        _set("slurm_config", {"SrunPortRange": "0-100"}),
        "SrunPortRange: '0-100' starts below 1024",
    ),
    (
        "accounting storage port not slurmdbd's",
        _set("slurm_config", {"AccountingStoragePort": 7031}),
        "AccountingStoragePort: 7031, but slurmdbd listens on 6819",
    ),
    (
        "slurmd port in slurmctld's range on controllers running jobs",
        lambda spec, _g: spec.update(controllers_run_jobs=True, slurm_config={"SlurmctldPort": "6817-6820"}),
        "SlurmdPort 6818 is in SlurmctldPort 6817-6820, and the controllers run jobs",
    ),
]


@pytest.mark.parametrize(
    "ports",
    [
        {"SlurmctldPort": "6817-6820", "SlurmdPort": 6818},  # controllers without slurmd
        {"SlurmctldPort": 6817, "SrunPortRange": "60001-63000", "AccountingStoragePort": 6819},
        {"slurmctldport": "7817", "SlurmdPort": "7818", "srunportrange": "35000-36000"},
    ],
)
def test_ports_the_daemons_take_pass(ports: dict[str, object]) -> None:
    spec = valid_spec()
    spec["slurm_config"] = ports
    assert inventory_errors(spec, valid_groups()) == []


@pytest.mark.parametrize(("mutate", "expected"), [pytest.param(m, e, id=i) for i, m, e in CASES])
def test_malformed_inventory_is_rejected_with_its_message(mutate: Mutation, expected: str) -> None:
    spec, groups = valid_spec(), valid_groups()
    mutate(spec, groups)
    errors = inventory_errors(spec, groups)
    assert any(expected in error for error in errors), f"expected {expected!r} in:\n" + "\n".join(errors)


def test_cases_are_distinct() -> None:
    assert len(CASES) >= 30
    assert len({expected for _, _, expected in CASES}) == len(CASES)


def test_the_valid_inventory_passes() -> None:
    assert inventory_errors(valid_spec(), valid_groups()) == []


def test_an_all_in_one_lab_host_may_be_login_and_compute_under_pam_slurm_adopt() -> None:
    """A controller that runs jobs (cluster_controllers_run_jobs, small labs) in every group: not refused as a login
    node that is also a compute node - the role scenarios' one host is such a host."""
    spec, groups = valid_spec(), valid_groups()
    spec.update(pam_adopt=True, controllers_run_jobs=True)
    groups.update(controllers=["gpu02"], login=["gpu02"])
    assert not [error for error in inventory_errors(spec, groups) if "'login' and 'compute'" in error]


def test_a_key_the_model_writes_from_a_default_may_be_set_through_cluster_slurm_config() -> None:
    """Only a key the model writes from a setting the inventory gives is refused in cluster_slurm_config (one of the
    two would be lost); a key it writes from its own default is the site's to change."""
    spec = valid_spec()
    spec["slurm_config"] = {
        "SchedulerParameters": "bf_continue",
        "PriorityWeightAge": 1000,
        "PriorityType": "priority/multifactor",
        "SlurmctldParameters": ["enable_configless", "idle_on_node_suspend"],
        "TaskPlugin": "task/cgroup,task/affinity",
    }
    assert inventory_errors(spec, valid_groups()) == []
    spec["scheduling"]["priority"] = {"weights": {"age": 10}}
    assert inventory_errors(spec, valid_groups()) == [
        "cluster_slurm_config.PriorityWeightAge: the model writes PriorityWeightAge from "
        "cluster_scheduling.priority.weights.age, which this inventory sets; the value here would replace the model's "
        "and lose it - set it in one place: cluster_scheduling.priority.weights.age"
    ]


def test_a_tracked_tres_may_be_limited_and_weighed() -> None:
    """A typed GPU TRES in cluster_accounting.tres (AccountingStorageTRES) may be limited and weighed; sacctmgr's
    short forms of its QOS options are taken (any case) as it takes them."""
    spec = valid_spec()
    spec["accounting"]["tres"] = ["gres/gpu:h100"]
    spec["qos"]["high"]["limits"] = {"MaxTRESPU": "gres/gpu:h100=8,cpu=64", "maxjobsperuser": 4, "GrpWall": "2-00:00"}
    spec["scheduling"]["priority"] = {"tres_weights": {"CPU": "1.0", "GRES/gpu:h100": "2.0", "Mem": "0.25G"}}
    assert inventory_errors(spec, valid_groups()) == []
    # a TRES limit given as a mapping, as the accounts' are
    spec["qos"]["high"]["limits"] = {"MaxTRESPerUser": {"gres/gpu:h100": 8, "cpu": 64}}
    assert inventory_errors(spec, valid_groups()) == []
    spec["qos"]["high"]["limits"] = {"MaxTRESPerUser": {"gres/gpu:a100": 8}}
    assert any(
        "limits gres/gpu:a100, which this cluster does not track" in e for e in inventory_errors(spec, valid_groups())
    )
    spec["qos"]["high"]["limits"] = {}
    sections = render.cluster_config(build_cluster(spec, valid_groups()))["slurm_conf"]
    assert "AccountingStorageTRES=gres/gpu,gres/gpu:h100" in [line for lines in sections.values() for line in lines]


def test_all_errors_are_reported_at_once() -> None:
    spec, groups = valid_spec(), valid_groups()
    spec["name"] = ""
    spec["node_types"]["h100"]["gpu"].update(type="h1000", autodetect="nvml")
    spec["partitions"][0]["max_time"] = "forever"
    with pytest.raises(InventoryError) as caught:
        build_cluster(spec, groups)
    assert len(caught.value.errors) == 3
    assert "cluster_name" in str(caught.value) and "h1000" in str(caught.value) and "forever" in str(caught.value)


def test_controller_addresses_must_be_ips_of_controllers() -> None:
    spec, groups = valid_spec(), valid_groups()
    spec["controller_addresses"] = {"ctl01": "ctl01.example", "gpu01": "10.0.0.5"}
    with pytest.raises(InventoryError) as caught:
        build_cluster(spec, groups)
    assert "cluster_controller_addresses.ctl01: 'ctl01.example' is not an IP address" in caught.value.errors
    assert "cluster_controller_addresses: gpu01 is not in group 'controllers'" in caught.value.errors


def test_each_controller_has_its_own_address() -> None:
    """One address copied onto both controllers: every daemon would reach the same host, none could take over."""
    spec, groups = valid_spec(), valid_groups()
    groups["controllers"] = ["ctl01", "ctl02"]
    spec["controller_addresses"] = {"ctl01": "10.0.0.11", "ctl02": "10.0.0.11"}
    (error,) = [e for e in inventory_errors(spec, groups) if e.startswith("cluster_controller_addresses")]
    assert "ctl01, ctl02 are all given 10.0.0.11" in error


def test_controller_vip_must_be_an_ip_of_a_pair() -> None:
    spec, groups = valid_spec(), valid_groups()
    spec["controller_vip"] = "ctl-vip"
    groups["controllers"] = ["ctl01", "ctl02"]
    with pytest.raises(InventoryError) as caught:
        build_cluster(spec, groups)
    assert caught.value.errors[0].startswith("cluster_controller_vip: 'ctl-vip' is not an IP address")
    spec["controller_vip"] = "10.0.0.10"
    groups["controllers"] = ["ctl01"]
    with pytest.raises(InventoryError) as caught:
        build_cluster(spec, groups)
    assert "cluster_controller_vip: 10.0.0.10 is set for a single controller" in caught.value.errors[0]


def test_unknown_project_variables_are_refused_with_a_suggestion() -> None:
    from ansible_collections.gpucluster.cluster.plugins.plugin_utils.variables import (
        known_variables,
        unknown_variables,
    )

    errors = unknown_variables(["cluster_schedulling", "galera_sst_pasword", "my_own_setting", "cluster_name"])
    assert len(errors) == 2
    assert "variable 'cluster_schedulling'" in errors[0] and "did you mean 'cluster_scheduling'?" in errors[0]
    assert "did you mean 'galera_sst_password'?" in errors[1]
    known, prefixes = known_variables()
    # read from the roles: defaults, argument specs of every entry point, what tasks set
    assert {"cluster_scheduling", "pacemaker_lab_without_fencing", "slurm_upgrade_apt_release"} <= known
    assert {"cluster", "slurm", "slurm_upgrade", "login_pool"} <= set(prefixes)


def test_pass_through_keys_and_plugins_are_checked_against_the_release() -> None:
    spec = valid_spec()
    spec["slurm_config"] = {"SchedulerParamters": "bf_continue", "SelectType": "select/cons_res"}
    spec["partitions"][0]["options"] = {"MaxCPUsPerNod": "8"}
    errors = inventory_errors(spec, valid_groups())
    assert any(
        "SchedulerParamters is not a slurm.conf key of Slurm 24.11" in e and "SchedulerParameters?" in e for e in errors
    )
    assert any("SelectType: Slurm 24.11 has no plugin select/cons_res (only Slurm 22.05 ships it)" in e for e in errors)
    assert any("options.MaxCPUsPerNod: MaxCPUsPerNod is not a partition option" in e for e in errors), errors
    spec = valid_spec()
    spec["slurm_config"] = {"TaskPlugin": "task/cgroup,task/bogus", "SbcastParameters": "DestDir=/tmp"}
    (error,) = inventory_errors(spec, valid_groups())
    assert "has no plugin task/bogus (no release in scope ships it)" in error


def test_names_slurm_takes_are_accepted() -> None:
    """Decided by the real daemons (tests/integration/test_names_slurm_accepts.py): '-' in the cluster's,
    partitions' and node types' names and in features, any GRES type with File= devices, CPUs alone."""
    spec, groups = valid_spec(), valid_groups()
    spec["name"] = "llm-training"
    spec["partitions"][0]["name"] = "high-mem"
    spec["node_types"]["h100"]["features"] = ["gpu-a100"]
    spec["node_types"]["h100"]["gpu"]["type"] = "A100-SXM"
    spec["node_types"]["cpu"] = {"group": "compute_cpu", "cpus": 6, "real_memory_mb": 8000}
    assert inventory_errors(spec, groups) == []
    config = render.config_from_inventory(spec, groups)
    nodes = config["slurm_conf"]["nodes"]
    assert "NodeName=cpu[01-02] CPUs=6 RealMemory=8000" in nodes[2], nodes
    assert "Gres=gpu:A100-SXM:4" in nodes[0] and "Features=h100,gpu-a100" in nodes[0]


def test_hosts_carry_features_and_weights_of_their_own() -> None:
    spec, groups = valid_spec(), valid_groups()
    spec["node_types"]["h100"]["host_features"] = {"gpu[03-04]": ["rack2"], "gpu04": ["nvlink-degraded"]}
    spec["node_types"]["h100"]["host_weights"] = {"gpu04": 100}
    nodes = render.config_from_inventory(spec, groups)["slurm_conf"]["nodes"]
    assert nodes[0].startswith("NodeName=gpu[01-02] ") and "Features=h100,ib Weight=10" in nodes[0]
    assert nodes[1].startswith("NodeName=gpu03 ") and "Features=h100,ib,rack2 Weight=10" in nodes[1]
    assert nodes[2].startswith("NodeName=gpu04 ") and "Features=h100,ib,rack2,nvlink-degraded Weight=100" in nodes[2]
    assert nodes[3] == "NodeSet=nt_h100 Feature=h100"
    spec["node_types"]["h100"]["host_weights"] = {"cpu01": 5}
    spec["node_types"]["h100"]["host_features"] = {"gpu01": ["a|b"]}
    errors = inventory_errors(spec, groups)
    assert any("cluster_node_types.h100.host_weights.cpu01: cpu01 not hosts of this node type" in e for e in errors)
    assert any("'a|b' may hold letters" in e for e in errors), errors


def test_slurms_words_are_taken_in_any_case_and_written_as_the_model_spells_them() -> None:
    """slurmctld reads State=up, MaxTime=unlimited, AutoDetect=NVML and AccountingStorageEnforce=Limits (checked
    with the real slurmctld of 22.05 and 26.05): refusing them refused right inventories."""
    spec, groups = valid_spec(), valid_groups()
    spec["partitions"][0].update(state="drain", max_time="unlimited")
    spec["node_types"]["h100"]["gpu"]["autodetect"] = "NVML"
    spec["fabric"]["topology"] = "Tree"
    spec.update(
        accounting={"enforce": ["Associations", "Limits", "QOS"]},
        scheduling={"priority": {"type": "Multifactor"}, "preempt": {"type": "QOS", "mode": ["requeue"]}},
    )
    spec["qos"] = {"normal": {"max_wall": "Infinite"}, "low": {}, "high": {"preempt": ["low"]}}
    assert inventory_errors(spec, groups) == []
    cluster = build_cluster(spec, groups)
    partition = cluster.partitions[0]
    assert (partition.state, partition.max_time) == ("DRAIN", "UNLIMITED")
    assert cluster.node_type("h100").gpu.autodetect == "nvml"  # type: ignore[union-attr]
    assert cluster.accounting_enforce == ("associations", "limits", "qos")
    assert (cluster.scheduling.priority_type, cluster.scheduling.preempt_type) == ("multifactor", "qos")


def test_an_ipv6_controller_address_needs_slurms_ipv6() -> None:
    """slurm.conf's controller addresses reach Slurm's daemons and commands as IPv4 only without
    CommunicationParameters=EnableIPv6 (tests/integration/test_slurm_words_slurmctld_reads.py asks the real ones)."""
    spec, groups = valid_spec(), valid_groups()
    groups["controllers"] = ["ctl01", "ctl02"]
    spec["controller_addresses"] = {"ctl01": "fd00::11", "ctl02": "10.0.0.12"}
    spec["controller_vip"] = "fd00::10"
    errors = [error for error in inventory_errors(spec, groups) if "IPv6" in error]
    assert [error.split(":")[0] for error in errors] == [
        "cluster_controller_vip (pacemaker_vip, or the pod's controller_vip)",
        "cluster_controller_addresses.ctl01",
    ]
    assert "fd00::10 is an IPv6 address" in errors[0] and "Add EnableIPv6 to cluster_slurm_config" in errors[0]
    spec["slurm_config"] = {"communicationparameters": "NoAddrCache, enableipv6"}
    assert [error for error in inventory_errors(spec, groups) if "IPv6" in error] == []


def test_a_whole_number_with_a_zero_fraction_is_taken_and_a_fraction_refused_once() -> None:
    spec, groups = valid_spec(), valid_groups()
    spec["node_types"]["h100"]["real_memory_mb"] = float(spec["node_types"]["h100"]["real_memory_mb"])
    assert inventory_errors(spec, groups) == []
    spec["node_types"]["h100"]["real_memory_mb"] = 2000000.5
    # the refused value alone: no rule judges the stand-in read in its place (a floor of 1 MiB)
    assert inventory_errors(spec, groups) == [
        "cluster_node_types.h100.real_memory_mb: expected an integer, got the fraction 2000000.5"
    ]
    # so for a missing value and one out of range
    del spec["node_types"]["h100"]["real_memory_mb"]
    assert inventory_errors(spec, groups) == [
        "cluster_node_types.h100: missing required key 'real_memory_mb' (an integer >= 1)"
    ]
    spec["node_types"]["h100"]["real_memory_mb"] = 2**41
    assert inventory_errors(spec, groups) == [
        "cluster_node_types.h100.real_memory_mb: 2199023255552 is out of range 1..1099511627776"
    ]
