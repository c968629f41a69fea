"""Stanza generators: exact output for the small cluster, and size by node type, not node count."""

from __future__ import annotations

from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import expand
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_cluster
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import cluster_config
from ansible_collections.gpucluster.cluster.plugins.module_utils.slurmconf import host_job_scripts, merged_settings
from ansible_collections.gpucluster.cluster.plugins.module_utils.topology import (
    block_layout,
    dragonfly_switches,
    fat_tree_switches,
)

from .factory import valid_groups, valid_spec


def render(spec=None, groups=None):
    return cluster_config(build_cluster(spec or valid_spec(), groups or valid_groups()))


def test_node_and_partition_stanzas() -> None:
    conf = render()["slurm_conf"]
    assert conf["nodes"] == [
        "NodeName=gpu[01-04] CPUs=32 Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=64000 "
        "Gres=gpu:h100:4 Features=h100,ib Weight=10 State=UNKNOWN",
        "NodeSet=nt_h100 Feature=h100",
        "NodeName=cpu[01-02] CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=8000 "
        "Features=cpu Weight=1 State=UNKNOWN",
        "NodeSet=nt_cpu Feature=cpu",
    ]
    # Job defaults from the node types: h100 64,000 MB and 32 CPUs for 4 GPUs; cpu 8,000 MB for 4 CPUs.
    assert conf["partitions"] == [
        "PartitionName=gpu Nodes=nt_h100 Default=YES State=UP MaxTime=1-00:00:00 PriorityTier=10 QOS=normal "
        "DefMemPerGPU=16000 DefCpuPerGPU=8",
        "PartitionName=cpu Nodes=nt_cpu State=UP PriorityTier=1 PreemptMode=REQUEUE DefMemPerCPU=2000",
    ]


def test_job_defaults_kept_when_given_off_at_zero_and_left_to_the_admins_memory_setting() -> None:
    spec, groups = valid_spec(), valid_groups()
    spec["node_types"]["h100"]["mem_spec_limit_mb"] = 4000  # memory for jobs: 60,000 MB
    spec["partitions"][0]["def_cpu_per_gpu"] = 2
    spec["partitions"][1]["def_mem_per_gpu_mb"] = 0  # a CPU partition: no per-GPU default, and none per CPU
    spec["partitions"].append({"name": "own", "node_types": ["h100"], "options": {"DefMemPerNode": 1000}})
    spec["partitions"].append({"name": "off", "node_types": ["h100"], "def_mem_per_gpu_mb": 0, "def_cpu_per_gpu": 0})
    lines = render(spec, groups)["slurm_conf"]["partitions"]
    assert lines[0].endswith("QOS=normal DefMemPerGPU=15000 DefCpuPerGPU=2")
    assert lines[1].endswith("PreemptMode=REQUEUE")
    assert lines[2] == "PartitionName=own Nodes=nt_h100 State=UP DefMemPerNode=1000"
    assert lines[3] == "PartitionName=off Nodes=nt_h100 State=UP"
    spec["slurm_config"] = {"DefMemPerCPU": 1000}
    assert not [
        line for line in render(spec, groups)["slurm_conf"]["partitions"] if "DefMem" in line and "own" not in line
    ]


def test_settings_are_sorted_with_controllers_first() -> None:
    spec, groups = valid_spec(), valid_groups()
    groups["controllers"] = ["ctl01", "ctl02"]
    settings = render(spec, groups)["slurm_conf"]["settings"]
    assert settings[:2] == ["SlurmctldHost=ctl01", "SlurmctldHost=ctl02"]
    keys = [line.split("=", 1)[0] for line in settings[2:]]
    assert keys == sorted(keys, key=str.lower)
    assert "GresTypes=gpu" in settings
    assert "AccountingStorageTRES=gres/gpu" in settings
    assert "TopologyPlugin=topology/tree" in settings


def test_controller_addresses_go_into_slurmctldhost() -> None:
    spec, groups = valid_spec(), valid_groups()
    groups["controllers"] = ["ctl01", "ctl02"]
    spec["controller_addresses"] = {"ctl01": "10.0.0.11", "ctl02": "10.0.0.12"}
    settings = render(spec, groups)["slurm_conf"]["settings"]
    assert settings[:2] == ["SlurmctldHost=ctl01(10.0.0.11)", "SlurmctldHost=ctl02(10.0.0.12)"]
    assert not any(line.startswith("SlurmctldAddr=") for line in settings)


def test_the_pairs_virtual_ip_is_slurmctldaddr() -> None:
    spec, groups = valid_spec(), valid_groups()
    groups["controllers"] = ["ctl01", "ctl02"]
    spec["controller_vip"] = "10.0.0.10"
    settings = render(spec, groups)["slurm_conf"]["settings"]
    assert settings[:3] == ["SlurmctldHost=ctl01", "SlurmctldHost=ctl02", "SlurmctldAddr=10.0.0.10"]


def test_user_settings_override_and_null_deletes() -> None:
    spec = valid_spec()
    spec["slurm_config"] = {
        "SlurmdTimeout": 600,
        "MpiDefault": None,
        "LaunchParameters": ["use_interactive_step"],
        "EnforcePartLimits": True,
    }
    settings = merged_settings(build_cluster(spec, valid_groups()))
    assert settings["SlurmdTimeout"] == 600
    assert "MpiDefault" not in settings
    lines = render(spec)["slurm_conf"]["settings"]
    assert "LaunchParameters=use_interactive_step" in lines
    assert "EnforcePartLimits=YES" in lines


def test_job_mail_goes_to_the_relay_or_is_logged_as_not_sent() -> None:
    settings = render()["slurm_conf"]["settings"]
    assert "MailProg=/usr/local/sbin/gpucluster-no-mail" in settings
    assert not any(line.startswith("MailDomain=") for line in settings)
    assert render()["mail"] == {
        "enabled": False,
        "relay": "",
        "port": 25,
        "domain": "",
        "program": "/usr/local/sbin/gpucluster-no-mail",
        "stand_in": "/usr/local/sbin/gpucluster-no-mail",
    }
    spec = valid_spec()
    spec["mail"] = {"relay": "smtp.example.org", "port": "587", "domain": "@example.org"}
    rendered = render(spec)
    assert "MailProg=/usr/bin/mail" in rendered["slurm_conf"]["settings"]
    assert "MailDomain=example.org" in rendered["slurm_conf"]["settings"]
    assert rendered["mail"]["enabled"] and rendered["mail"]["port"] == 587
    assert rendered["mail"]["domain"] == "example.org"
    spec["slurm_config"] = {"MailProg": "/usr/local/bin/site-mail"}
    assert "MailProg=/usr/local/bin/site-mail" in render(spec)["slurm_conf"]["settings"]


def test_the_rest_api_adds_jwt_to_slurmctld_and_slurmdbd_only_when_enabled() -> None:
    rendered = render()
    assert not any(line.startswith("AuthAlt") for line in rendered["slurm_conf"]["settings"])
    assert rendered["rest_api"]["enabled"] is False and rendered["rest_api"]["slurmdbd_lines"] == []
    spec = valid_spec()
    spec["rest_api"] = {"enabled": "yes", "port": "6821", "max_token_lifespan": 86400}
    rendered = render(spec)
    jwt = ["AuthAltTypes=auth/jwt", "AuthAltParameters=jwt_key=/etc/slurm/jwt_hs256.key,max_token_lifespan=86400"]
    assert set(jwt) <= set(rendered["slurm_conf"]["settings"])
    assert rendered["rest_api"] == {
        "enabled": True,
        "port": 6821,
        "version": "v0.0.42",
        "jwt_key": "/etc/slurm/jwt_hs256.key",
        "slurmdbd_lines": jwt,
    }


def test_partition_by_group_and_feature() -> None:
    spec, groups = valid_spec(), valid_groups()
    groups["rack1"] = ["gpu01", "cpu01"]
    spec["partitions"].append({"name": "rack1", "groups": ["rack1"]})
    spec["partitions"].append({"name": "ib", "features": ["ib"]})
    lines = render(spec, groups)["slurm_conf"]["partitions"]
    # A partition mixing GPU and CPU-only nodes gets memory per CPU (the smaller share: cpu's 2,000 MB).
    assert "PartitionName=rack1 Nodes=cpu01,gpu01 State=UP DefMemPerCPU=2000" in lines
    assert "PartitionName=ib Nodes=nt_h100 State=UP DefMemPerGPU=16000 DefCpuPerGPU=8" in lines


def test_gres_file_lines_and_autodetect() -> None:
    assert render()["gres_conf"] == ["NodeName=gpu[01-04] Name=gpu Type=h100 File=/dev/nvidia[0-3]"]
    spec = valid_spec()
    spec["node_types"]["h100"]["gpu"]["autodetect"] = "nvml"
    assert render(spec)["gres_conf"] == ["NodeName=gpu[01-04] AutoDetect=nvml"]


def test_output_size_follows_node_types_not_nodes() -> None:
    spec, groups = valid_spec(), valid_groups()
    big = [f"gpu{i:05d}" for i in range(1, 5001)]
    groups["compute_h100"] = big
    groups["compute"] = big + groups["compute_cpu"]
    groups["all"] = sorted(set(groups["all"]) - set(valid_groups()["compute_h100"]) | set(big))
    spec["fabric"] = {}
    conf = render(spec, groups)
    assert len(conf["slurm_conf"]["nodes"]) == 4
    assert conf["slurm_conf"]["nodes"][0].startswith("NodeName=gpu[00001-05000] ")
    assert len(conf["gres_conf"]) == 1


def test_fat_tree_two_and_three_tiers() -> None:
    hosts = [f"n{i:03d}" for i in range(1, 65)]
    two = fat_tree_switches([hosts], 16, None)
    assert [s.name for s in two] == ["leaf01", "leaf02", "leaf03", "leaf04", "spine"]
    assert two[-1].switches == ("leaf01", "leaf02", "leaf03", "leaf04")
    three = fat_tree_switches([hosts], 8, 4)
    names = [s.name for s in three]
    assert names[-3:] == ["pod01", "pod02", "core"]
    assert three[-1].switches == ("pod01", "pod02")
    assert sorted(h for s in three for h in s.nodes) == hosts


def test_dragonfly_groups_and_blocks() -> None:
    hosts = [f"n{i:02d}" for i in range(1, 17)]
    switches = dragonfly_switches([hosts], 4, 2)
    assert [s.name for s in switches if s.name.startswith("dfgroup")] == ["dfgroup01", "dfgroup02"]
    assert switches[-1].name == "global"
    blocks = block_layout([hosts], 8)
    assert [(b.name, len(b.nodes)) for b in blocks] == [("nvl01", 8), ("nvl02", 8)]


def test_dragonfly_sets_topology_param() -> None:
    spec = valid_spec()
    spec["fabric"] = {"topology": "tree", "dragonfly": {"nodes_per_leaf": 2, "leaves_per_group": 2}}
    assert "TopologyParam=Dragonfly" in render(spec)["slurm_conf"]["settings"]


def test_release_picks_topology_file() -> None:
    conf = render()
    assert conf["topology_yaml"] == []
    assert conf["topology_conf"][-1] == "SwitchName=spine Switches=leaf[01-03]"
    spec = valid_spec()
    spec["slurm_release"] = "26.05"
    spec["fabric"]["blocks"] = {"nodes_per_block": 2, "node_types": ["h100"]}
    conf = render(spec)
    assert conf["topology_conf"] == []
    assert [t["topology"] for t in conf["topology_yaml"]] == ["fabric", "nvlink"]
    assert conf["topology_yaml"][0]["cluster_default"] is True
    assert conf["topology_yaml"][1]["block"] == {
        "blocks": [{"block": "nvl01", "nodes": "gpu[01-02]"}, {"block": "nvl02", "nodes": "gpu[03-04]"}],
        "block_sizes": [2],
    }
    assert not any(line.startswith("TopologyPlugin=") for line in conf["slurm_conf"]["settings"])


def test_block_topology_conf_before_25_05() -> None:
    spec = valid_spec()
    spec["fabric"] = {
        "topology": "block",
        "blocks": {"nodes_per_block": 2, "block_sizes": [2, 4], "node_types": ["h100"]},
    }
    conf = render(spec)
    assert conf["topology_conf"] == [
        "BlockName=nvl01 Nodes=gpu[01-02]",
        "BlockName=nvl02 Nodes=gpu[03-04]",
        "BlockSizes=2,4",
    ]
    assert "TopologyPlugin=topology/block" in conf["slurm_conf"]["settings"]


def test_every_compute_host_is_in_the_stanzas() -> None:
    conf = render()
    stanza_hosts = [
        h
        for line in conf["slurm_conf"]["nodes"]
        if line.startswith("NodeName=")
        for h in expand(line.split()[0].split("=", 1)[1])
    ]
    assert sorted(stanza_hosts) == sorted(valid_groups()["compute"])


def test_files_follow_the_release() -> None:
    conf = render()
    assert conf["files"] == ["slurm.conf", "gres.conf", "topology.conf"]
    assert conf["stale_files"] == ["topology.yaml", "job_container.conf"]
    spec = valid_spec()
    spec["slurm_release"] = "26.05"
    conf = render(spec)
    assert conf["files"] == ["slurm.conf", "gres.conf", "topology.yaml"]
    assert conf["stale_files"] == ["topology.conf", "job_container.conf"]
    spec["fabric"] = {}
    assert render(spec)["stale_files"] == ["topology.conf", "topology.yaml", "job_container.conf"]


def test_job_scripts_in_list_order_on_the_hosts_that_run_them() -> None:
    spec = valid_spec()
    spec["job_scripts"] = {
        "prolog": ["job-env", "/srv/site/scratch-setup.sh"],
        "epilog": ["gpu-clean"],
        "prolog_slurmctld": ["/srv/site/quota-check"],
        "user_dirs": [],
    }
    config = cluster_config(build_cluster(spec, valid_groups()))
    assert config["job_scripts"] == [
        {
            "kind": "prolog",
            "dir": "/etc/slurm/prolog.d",
            "program": "/etc/slurm/prolog",
            "hosts": "compute",
            "files": [
                {"src": "job-env", "dest": "/etc/slurm/prolog.d/10-job-env"},
                {"src": "/srv/site/scratch-setup.sh", "dest": "/etc/slurm/prolog.d/20-scratch-setup.sh"},
            ],
        },
        {
            "kind": "epilog",
            "dir": "/etc/slurm/epilog.d",
            "program": "/etc/slurm/epilog",
            "hosts": "compute",
            "files": [{"src": "gpu-clean", "dest": "/etc/slurm/epilog.d/10-gpu-clean"}],
        },
        {
            "kind": "prolog_slurmctld",
            "dir": "/etc/slurm/prolog_slurmctld.d",
            "program": "/etc/slurm/prolog_slurmctld",
            "hosts": "controllers",
            "files": [{"src": "/srv/site/quota-check", "dest": "/etc/slurm/prolog_slurmctld.d/10-quota-check"}],
        },
        {
            "kind": "epilog_slurmctld",
            "dir": "/etc/slurm/epilog_slurmctld.d",
            "program": "/etc/slurm/epilog_slurmctld",
            "hosts": "controllers",
            "files": [],
        },
    ]
    compute = host_job_scripts(config["job_scripts"], ["all", "compute", "compute_h100"], "/role/files/job_scripts/")
    assert compute == {
        "dirs": ["/etc/slurm/prolog.d", "/etc/slurm/epilog.d"],
        "programs": ["/etc/slurm/prolog", "/etc/slurm/epilog"],
        "files": [
            {"src": "/role/files/job_scripts/job-env", "dest": "/etc/slurm/prolog.d/10-job-env"},
            {"src": "/srv/site/scratch-setup.sh", "dest": "/etc/slurm/prolog.d/20-scratch-setup.sh"},
            {"src": "/role/files/job_scripts/gpu-clean", "dest": "/etc/slurm/epilog.d/10-gpu-clean"},
        ],
        "install": [
            {"src": "/role/files/gpucluster-job-scripts", "dest": "/etc/slurm/prolog"},
            {"src": "/role/files/gpucluster-job-scripts", "dest": "/etc/slurm/epilog"},
            {"src": "/role/files/job_scripts/job-env", "dest": "/etc/slurm/prolog.d/10-job-env"},
            {"src": "/srv/site/scratch-setup.sh", "dest": "/etc/slurm/prolog.d/20-scratch-setup.sh"},
            {"src": "/role/files/job_scripts/gpu-clean", "dest": "/etc/slurm/epilog.d/10-gpu-clean"},
        ],
    }
    controller = host_job_scripts(config["job_scripts"], ["controllers"], "/role/files/job_scripts")
    assert controller["dirs"] == ["/etc/slurm/prolog_slurmctld.d", "/etc/slurm/epilog_slurmctld.d"]
    assert controller["files"] == [
        {"src": "/srv/site/quota-check", "dest": "/etc/slurm/prolog_slurmctld.d/10-quota-check"}
    ]
    settings = merged_settings(build_cluster(spec, valid_groups()))
    assert settings["Prolog"] == "/etc/slurm/prolog"
    assert settings["Epilog"] == "/etc/slurm/epilog"
    assert settings["PrologSlurmctld"] == "/etc/slurm/prolog_slurmctld"
    assert "EpilogSlurmctld" not in settings


def test_the_user_dirs_prolog_runs_first_unless_the_inventory_places_it_or_turns_it_off() -> None:
    spec = valid_spec()
    spec["job_scripts"] = {"prolog": ["job-env"]}
    config = cluster_config(build_cluster(spec, valid_groups()))
    assert [f["dest"] for f in config["job_scripts"][0]["files"]] == [
        "/etc/slurm/prolog.d/10-user-dirs",
        "/etc/slurm/prolog.d/20-job-env",
    ]
    user_dirs = config["job_user_dirs"]
    assert user_dirs["patterns"] == ["/run/slurm-oci/{user}", "/run/enroot/user-{uid}"]
    # what the cluster role's files action writes on a compute node: the parents root's and 0711, the list, the boot
    # entries
    assert user_dirs["directories"] == [
        {"path": "/run/enroot", "mode": "0711"},
        {"path": "/run/slurm-oci", "mode": "0711"},
        {"path": "/etc/gpucluster", "mode": "0755"},
    ]
    files = {f["dest"]: f["content"] for f in user_dirs["files"]}
    assert files["/etc/gpucluster/user-dirs"] == "/run/slurm-oci/{user}\n/run/enroot/user-{uid}\n"
    assert files["/etc/tmpfiles.d/gpucluster-user-dirs.conf"].splitlines()[1:] == [
        "d /run/enroot 0711 root root -",
        "d /run/slurm-oci 0711 root root -",
    ]
    spec["job_scripts"] = {}
    assert merged_settings(build_cluster(spec, valid_groups()))["Prolog"] == "/etc/slurm/prolog"
    spec["job_scripts"] = {"prolog": ["job-env", "user-dirs"], "user_dirs": ["/run/site-state/{user}"]}
    config = cluster_config(build_cluster(spec, valid_groups()))
    assert [f["src"] for f in config["job_scripts"][0]["files"]] == ["job-env", "user-dirs"]
    assert config["job_user_dirs"]["directories"][:-1] == [{"path": "/run/site-state", "mode": "0711"}]
    spec["job_scripts"] = {"user_dirs": []}
    config = cluster_config(build_cluster(spec, valid_groups()))
    assert config["job_scripts"][0]["files"] == []
    assert "Prolog" not in merged_settings(build_cluster(spec, valid_groups()))


def test_health_check_settings_and_checks() -> None:
    spec = valid_spec()
    settings = merged_settings(build_cluster(spec, valid_groups()))
    assert settings["HealthCheckProgram"] == "/usr/local/sbin/gpucluster-node-health"
    assert (settings["HealthCheckInterval"], settings["HealthCheckNodeState"]) == (300, ["ANY"])
    spec["health_check"] = {
        "interval": 600,
        "node_state": ["idle", "cycle"],
        "mounts": ["/home", {"path": "/scratch/", "fstype": "xfs", "min_free_percent": 5}],
        "services": ["munge", "nvidia-persistenced"],
        "min_free_memory_mb": 4096,
    }
    cluster = build_cluster(spec, valid_groups())
    assert merged_settings(cluster)["HealthCheckNodeState"] == ["IDLE", "CYCLE"]
    checks = cluster_config(cluster)["health_check"]["checks"]
    assert checks["mounts"] == [
        {"path": "/home", "fstype": "", "min_free_percent": 0},
        {"path": "/scratch", "fstype": "xfs", "min_free_percent": 5},
    ]
    assert checks["services"] == ["munge", "nvidia-persistenced"]
    assert checks["min_free_memory_mb"] == 4096
    spec["health_check"] = {"interval": 0}
    cluster = build_cluster(spec, valid_groups())
    assert "HealthCheckProgram" not in merged_settings(cluster)
    assert cluster_config(cluster)["health_check"]["enabled"] is False
