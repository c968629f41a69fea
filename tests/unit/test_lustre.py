"""Lustre client: inventory checks, the strings the role writes, the textfile collector."""

from __future__ import annotations

from pathlib import Path

from ansible_collections.gpucluster.cluster.plugins.module_utils.lustre import (
    lnet_networks,
    lustre_errors,
    mount_source,
)

from tests.helpers.tools import load_tool

stats_tool = load_tool("lustre", "gpucluster-lustre-stats")

NETWORKS = [{"name": "o2ib", "interfaces": ["ib0", "ib1"]}, {"name": "tcp0", "interfaces": ["eth0"]}]
SCRATCH = {"fsname": "scratch", "mgs_nids": ["10.0.1.1@o2ib0,10.1.1.1@tcp", "10.0.1.2@o2ib"], "path": "/lustre/scratch"}

# `lctl get_param llite.*.stats` of a Lustre 2.15 client (two mounts of one file system, one of another)
LLITE_STATS = """\
llite.scratch-ffff8f2a5c3e1000.stats=
snapshot_time             1763900000.123456789 secs.nsecs
start_time                1763800000.000000000 secs.nsecs
elapsed_time              100000.123456789 secs.nsecs
read_bytes                10 samples [bytes] 4096 1048576 5000000 2500000000000
write_bytes               4 samples [bytes] 4096 1048576 3000000 1500000000000
open                      7 samples [usecs] 1 20 50 500
close                     7 samples [usecs] 1 10 30 200
llite.scratch-ffff8f2a5c3e2000.stats=
snapshot_time             1763900000.123456789 secs.nsecs
read_bytes                1 samples [bytes] 100 100 100 10000
llite.home-ffff8f2a5c3e3000.stats=
snapshot_time             1763900000.123456789 secs.nsecs
getattr                   3 samples [usecs] 1 2 4 6
"""


def test_client_settings_pass_and_render() -> None:
    assert lustre_errors({"lnet_networks": NETWORKS, "mounts": [SCRATCH]}) == []
    assert lnet_networks(NETWORKS) == "o2ib0(ib0,ib1),tcp0(eth0)"
    assert mount_source(SCRATCH) == "10.0.1.1@o2ib0,10.1.1.1@tcp:10.0.1.2@o2ib:/scratch"


def test_a_lustre_mount_hides_no_other_and_breaks_no_fstab_line() -> None:
    """Lustre at /home beside the NFS /home: one would hide the other (users' homes showing another file system); an
    option with a space would split the fstab line."""
    others = {"nfs_client_mounts": ["/home", "/apps"], "nfs_filer_mounts": [{"path": "/data", "src": "f:/data"}]}
    settings = {"lnet_networks": NETWORKS, "mounts": [SCRATCH], "mount_options": ["flock"], "other_mounts": others}
    assert lustre_errors(settings) == []
    home = {**SCRATCH, "path": "/home/"}
    assert lustre_errors({**settings, "mounts": [home]}) == [
        "lustre_mounts[0].path: /home/ is also mounted by nfs_client_mounts; one file system would hide the other - "
        "give Lustre its own mount point (e.g. /lustre/<fsname>)"
    ]
    assert (
        "also mounted by nfs_filer_mounts" in lustre_errors({**settings, "mounts": [{**SCRATCH, "path": "/data"}]})[0]
    )
    assert lustre_errors({**settings, "mounts": [{**SCRATCH, "options": ["ro flock"]}]}) == [
        "lustre_mounts[0].options: give a list of single options, e.g. [flock, _netdev]"
    ]
    assert lustre_errors({**settings, "mount_options": ["flock", "noatime lazystatfs"]}) == [
        "lustre_mount_options: give a list of single options, e.g. [flock, _netdev]"
    ]


def test_each_problem_names_its_variable() -> None:
    bad = [
        {"name": "ib0", "interfaces": ["ib0"]},
        {"name": "tcp", "interfaces": []},
        {"name": "tcp0", "interfaces": ["eth0"]},
    ]
    errors = lustre_errors({"lnet_networks": bad, "mounts": []})
    assert "lustre_lnet_networks[0].name: 'ib0' is not an LNet network; use tcpN" in errors[0]
    assert "lustre_lnet_networks[1].interfaces: list the interfaces" in errors[1]
    assert errors[2] == "lustre_lnet_networks[2].name: tcp0 is listed twice"
    assert lustre_errors({"lnet_networks": [], "mounts": []})[0].startswith("lustre_lnet_networks is empty")
    mounts = [
        {"fsname": "scratch_fs1", "mgs_nids": ["10.0.1.1@tcp1"], "path": "lustre"},
        {**SCRATCH, "mgs_nids": ["mgs01@o2ib"], "options": ["flock,noatime"]},
        {**SCRATCH, "mgs_nids": []},
    ]
    errors = lustre_errors({"lnet_networks": NETWORKS, "mounts": mounts})
    assert errors == [
        "lustre_mounts[0].fsname: 'scratch_fs1' is not a Lustre file system name (1-8 letters, digits, - or _)",
        "lustre_mounts[0].path: 'lustre' is not an absolute mount point below / (without spaces)",
        "lustre_mounts[0].mgs_nids: '10.0.1.1@tcp1' is on LNet network tcp1, which lustre_lnet_networks does not "
        "declare (o2ib0, tcp0); the client could not reach the MGS",
        "lustre_mounts[1].mgs_nids: 'mgs01@o2ib' does not start with an IPv4 address",
        "lustre_mounts[1].options: give a list of single options, e.g. [flock, _netdev]",
        "lustre_mounts[2].path: /lustre/scratch is mounted twice",
        "lustre_mounts[2].mgs_nids: list the MGS NIDs (failover partners in order), e.g. [10.0.0.1@o2ib0]",
    ]


def test_llite_stats_add_up_per_file_system() -> None:
    stats = stats_tool.parse_llite_stats(LLITE_STATS)
    assert stats == {
        "scratch": {"read_bytes": (11, 5000100), "write_bytes": (4, 3000000), "open": (7, 0), "close": (7, 0)},
        "home": {"getattr": (3, 0)},
    }


def test_metrics_report_missing_mounts_and_counters(tmp_path: Path) -> None:
    proc_mounts = tmp_path / "mounts"
    proc_mounts.write_text("10.0.1.1@o2ib0:10.0.1.2@o2ib0:/scratch /lustre/scratch lustre rw,flock 0 0\n")
    lctl = tmp_path / "lctl"
    lctl.write_text(f"#!/bin/sh\nif [ \"$2\" = -n ]; then echo healthy; else cat <<'X'\n{LLITE_STATS}X\nfi\n")
    lctl.chmod(0o755)
    argv = ["--textfile-dir", str(tmp_path / "out"), "--proc-mounts", str(proc_mounts), "--lctl", str(lctl)]
    assert stats_tool.main([*argv, "--mount", "/lustre/scratch=scratch", "--mount", "/lustre/home=home"]) == 0
    text = (tmp_path / "out" / "lustre.prom").read_text()
    assert 'lustre_client_mounted{path="/lustre/scratch",fsname="scratch"} 1' in text
    assert 'lustre_client_mounted{path="/lustre/home",fsname="home"} 0' in text
    assert 'lustre_client_read_bytes_total{fsname="scratch"} 5000100' in text
    assert 'lustre_client_operations_total{fsname="scratch",operation="read"} 11' in text
    assert 'lustre_client_operations_total{fsname="home",operation="getattr"} 3' in text
    assert "lustre_client_health_ok 1" in text and "lustre_client_stats_ok 1" in text
    lctl.write_text("#!/bin/sh\nexit 3\n")
    stats_tool.main([*argv, "--mount", "/lustre/scratch=scratch"])
    text = (tmp_path / "out" / "lustre.prom").read_text()
    assert "lustre_client_stats_ok 0" in text and "lustre_client_read_bytes_total{" not in text
    assert [path.name for path in (tmp_path / "out").iterdir()] == ["lustre.prom"]


def test_a_lustre_mount_over_a_tree_each_node_keeps_for_itself_is_refused() -> None:
    for path, why in [("/tmp", "every host keeps for itself"), ("/var/spool/slurm", "inside /var/spool")]:
        (error,) = lustre_errors({"lnet_networks": NETWORKS, "mounts": [{**SCRATCH, "path": path}]})
        assert error.startswith("lustre_mounts[0].path: ") and why in error, error


def test_the_health_check_sees_a_lustre_mount_as_lustre() -> None:
    """slurmd's health program compares /proc/mounts' type with cluster_health_check's: a Lustre mount point checked
    as nfs4 (copied from the NFS lines) drains every node."""
    settings = {"lnet_networks": NETWORKS, "mounts": [SCRATCH]}
    path = SCRATCH["path"]
    good = {"mounts": [{"path": path, "fstype": "lustre"}, {"path": "/local", "fstype": "xfs"}, path]}
    assert lustre_errors({**settings, "health_check": good}) == []
    (error,) = lustre_errors({**settings, "health_check": {"mounts": [{"path": path, "fstype": "nfs4"}]}})
    assert error == (
        f"cluster_health_check.mounts[0].fstype: {path} is mounted by lustre_mounts, which the kernel shows as lustre, "
        "not 'nfs4': slurmd's health program would drain every node for it. Write fstype: lustre, or leave fstype out"
    )
