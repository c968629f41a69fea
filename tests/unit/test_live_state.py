"""The running cluster's ClusterName, read from each controller's StateSaveLocation before any host changes
(roles/slurm/tasks/state_name.yml), and the database its slurmdbd writes to (roles/accounting/tasks/state_db.yml); the
refusals in the lab: tests/lab/test_pilot_lab.py."""

from __future__ import annotations

import base64
import re

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.accounting import (
    accounting_db_move_error,
    accounting_lost_clusters_error,
    accounting_running_db,
)
from ansible_collections.gpucluster.cluster.plugins.filter.slurm import (
    slurm_held_clusters,
    slurm_orphan_jobs_error,
    slurm_state_move_error,
    slurm_state_name_error,
    slurm_stateless_nodes,
    slurm_unasked_nodes_error,
    slurm_vanishing_jobs_error,
    slurm_vanishing_partitions_error,
)
from ansible_collections.gpucluster.cluster.plugins.filter.upgrade import (
    slurm_candidate_query,
    slurm_candidate_release_error,
    slurm_installed_release_error,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils import live_state
from ansible_collections.gpucluster.cluster.plugins.module_utils.live_state import (
    held_cluster_name,
    state_cluster_error,
    storage_loc,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.upgrade import candidate_version


def slurped(text: str) -> dict[str, object]:
    """What ansible.builtin.slurp returns for a file holding ``text``."""
    return {"content": base64.b64encode(text.encode()).decode(), "encoding": "base64", "source": "/x/clustername"}


@pytest.mark.parametrize(
    ("text", "name"),
    [("pilot", "pilot"), ("pilot\n", "pilot"), ("pilot|877", "pilot"), ("pod2|3332\n", "pod2"), ("", "")],
)
def test_the_name_is_read_as_each_release_writes_it(text: str, name: str) -> None:
    """22.05 writes the name alone, 24.11 and 26.05 `name|cluster id`."""
    assert held_cluster_name(text) == name


@pytest.mark.parametrize(
    "result",
    [
        slurped("pilot|877"),
        slurped("PILOT"),  # slurmctld writes the name in lower case
        {"failed": True, "msg": "file not found: /var/spool/slurmctld/clustername"},  # a new cluster: no state yet
        {"content": "not base64!"},
        {},
        None,
    ],
)
def test_the_same_name_or_no_state_goes_on(result: object) -> None:
    assert slurm_state_name_error(result, "ctl1", "/var/spool/slurmctld", "pilot") == ""


def test_another_cluster_name_is_refused_naming_the_name_to_keep() -> None:
    message = slurm_state_name_error(slurped("pilot|877"), "ctl1", "/var/spool/slurmctld", "renamed")
    assert message.startswith(
        "ctl1: StateSaveLocation /var/spool/slurmctld holds the state of the running cluster 'pilot', but "
        "cluster_name is 'renamed': slurmctld refuses to start on another cluster's state (CLUSTER NAME MISMATCH)"
    ), message
    assert "Keep the name 'pilot'" in message


def test_a_pods_controllers_keep_the_pods_name_not_the_federations() -> None:
    """In a federation each pod is its own cluster: the pod's name is the ClusterName, cluster_name the federation's."""
    assert state_cluster_error("p2ctl1", "/srv/pod2", "pod2", "fed", "pod2") == ""
    message = state_cluster_error("p2ctl1", "/srv/pod2", "pod2", "fed", "gpu2")
    assert "holds the state of the running cluster 'pod2', but its pod is 'gpu2' in cluster_federation.pods" in message


def test_another_pods_state_is_a_shared_directory_not_a_rename() -> None:
    """pod2's controllers finding pod1's name: the pods share one StateSaveLocation - the message says so, and does
    not tell pod2 to take pod1's name."""
    federation = {"name": "fed", "pods": {"pod1": {}, "pod2": {}}}

    def check(text: str) -> str:
        return slurm_state_name_error(slurped(text), "p2ctl1", "/shared/ctld", "fed", "pod2", federation=federation)

    message = check("pod1|4021")
    assert message.startswith(
        "p2ctl1: StateSaveLocation /shared/ctld holds the state of pod 'pod1' of the federation, not of its own pod "
        "'pod2': the two pods' controllers share one state directory"
    ), message
    assert "cluster_federation.pods.pod2.slurm_config.StateSaveLocation" in message and "Keep the name" not in message
    assert check("pod2|4022") == ""
    # a name that is no pod's is a rename, as before
    assert "Keep the name 'old'" in check("old")


CONFIG = "ClusterName             = pilot\nStateSaveLocation       = /var/spool/slurmctld\nSlurmUser = slurm(64030)\n"


@pytest.mark.parametrize(
    ("shown", "location", "imported_from"),
    [
        ({"rc": 0, "stdout": CONFIG}, "/var/spool/slurmctld", ""),
        ({"rc": 0, "stdout": CONFIG}, "/var/spool/slurmctld/", ""),  # the same directory, written otherwise
        # a phase upgrade that moves the state itself (upgrade-production.yml: pacemaker_state_import_from)
        ({"rc": 0, "stdout": CONFIG}, "/srv/slurmctld", "/var/spool/slurmctld"),
        # no slurmctld answers: a new cluster, or one stopped to move its state by hand
        ({"rc": 1, "stdout": "", "stderr": "slurm_load_ctl_conf error: Unable to contact slurm controller"}, "/x", ""),
        ({"rc": 2, "msg": "[Errno 2] No such file or directory: b'scontrol'"}, "/x", ""),
        ({"rc": 0, "stdout": "Configuration data as of 2026-11-29T16:00:00\n"}, "/x", ""),
        (None, "/x", ""),
    ],
)
def test_the_running_state_directory_or_none_goes_on(shown: object, location: str, imported_from: str) -> None:
    assert slurm_state_move_error(shown, "ctl1", location, imported_from) == ""


def test_a_moved_state_directory_is_refused_while_slurmctld_runs_from_the_old_one() -> None:
    """Restarted on a directory without its state, slurmctld starts without its jobs."""
    message = slurm_state_move_error({"rc": 0, "stdout": CONFIG}, "ctl1", "/srv/slurmctld")
    assert message.startswith(
        "ctl1: slurmctld of the cluster 'pilot' runs with its state in /var/spool/slurmctld, but the inventory "
        "gives it StateSaveLocation /srv/slurmctld"
    ), message
    assert (
        "copy /var/spool/slurmctld to /srv/slurmctld" in message
        and "keep StateSaveLocation: /var/spool/slurmctld" in message
    )
    # a phase upgrade moving another directory's state does not excuse it
    assert slurm_state_move_error({"rc": 0, "stdout": CONFIG}, "ctl1", "/srv/slurmctld", "/var/lib/other") == message


def packages(**versions: str) -> dict[str, list[dict[str, str]]]:
    """A host's installed packages as the installed_packages filter gives them."""
    return {name.replace("_", "-"): [{"name": name.replace("_", "-"), "version": v}] for name, v in versions.items()}


@pytest.mark.parametrize(
    ("installed", "release"),
    [
        (packages(slurmctld="24.11.5-4+deb13u1", slurm_client="24.11.5-4+deb13u1"), "24.11"),
        (packages(slurmd="22.05.8-4+deb12u3"), "22.05"),
        (packages(munge="0.5.15-2"), "26.05"),  # no Slurm yet: the package source decides
        ({}, "24.11"),
        (packages(slurm_client="24.11.5-4"), ""),  # the model's default release
    ],
)
def test_the_installed_release_or_none_goes_on(installed: dict[str, list[dict[str, str]]], release: str) -> None:
    assert slurm_installed_release_error(installed, "ctl1", release) == ""


def test_a_release_the_host_does_not_run_is_refused_naming_the_way_there() -> None:
    """24.11's slurmctld stops on 26.05's files (MetricsType): moving a release is upgrade-slurm.yml's."""
    newer = slurm_installed_release_error(packages(slurmctld="24.11.5-4+deb13u1"), "ctl1", "26.05")
    assert newer == (
        "ctl1 runs Slurm 24.11 (slurmctld 24.11.5-4+deb13u1), but cluster_slurm_release is '26.05': this run would "
        "write 26.05's files for 24.11's daemons (slurmctld stops on a key it does not know). Move the cluster to "
        "26.05 with playbooks/upgrade-slurm.yml (SchedMD's order, the jobs kept), or set cluster_slurm_release: "
        "'24.11'"
    )
    older = slurm_installed_release_error(packages(slurmd="26.05.0-1"), "gpu1", "24.11", "pod2")
    assert older.startswith("gpu1 runs Slurm 26.05 (slurmd 26.05.0-1), but cluster_federation.pods.pod2.slurm_release")
    assert "Slurm is not downgraded" in older and "set cluster_federation.pods.pod2.slurm_release: '26.05'" in older


NODES = [
    "NodeName=gpu[01-04] CPUs=32 RealMemory=64000 Gres=gpu:h100:4 State=UNKNOWN",
    "NodeSet=nt_h100 Feature=h100",
    "NodeName=cpu01,cpu02 CPUs=4 RealMemory=8000 State=UNKNOWN",
]


@pytest.mark.parametrize(
    ("listed", "removed"),
    [
        ({"rc": 0, "stdout": "gpu[01-02]\ngpu04\ncpu01\n"}, []),  # every busy node stays
        ({"rc": 0, "stdout": "\n"}, []),  # no job runs
        ({"rc": 0, "stdout": "gpu[05-06]\n"}, ["gpu[05-06]"]),  # remove-node.yml's own nodes: it drains them first
        ({"rc": 0, "stdout": "gpu05\n"}, "gpu[05-06]"),  # cluster_removed_nodes as -e gives it: one expression
        ({"rc": 1, "stdout": "", "stderr": "slurm_load_jobs error: Unable to contact slurm controller"}, []),
        ({"skipped": True, "changed": False}, []),  # slurmctld did not answer: nothing runs to keep
    ],
)
def test_nodes_that_stay_or_run_nothing_go_on(listed: object, removed: object) -> None:
    assert slurm_vanishing_jobs_error(listed, "ctl1", NODES, removed) == ""


def test_nodes_left_out_while_jobs_run_there_are_refused_naming_remove_node() -> None:
    """Hosts deleted from the inventory instead of taken out with remove-node.yml: slurmctld ends their jobs."""
    listed = {"rc": 0, "stdout": "gpu[03-06]\ngpu07\ncpu02\n"}
    message = slurm_vanishing_jobs_error(listed, "ctl1", NODES, ["gpu06"])
    assert message == (
        "ctl1: jobs run on gpu[05,07], which this run's slurm.conf leaves out (hosts taken out of the inventory or of "
        "their node type's group): slurmctld restarted without them ends those jobs. Take nodes out with "
        "playbooks/remove-node.yml -e cluster_removed_nodes=gpu[05,07] (it drains them and waits for their jobs), or "
        "put the hosts back"
    )


PARTITIONS = ["PartitionName=gpu Nodes=nt_h100 Default=YES State=UP", "PartitionName=cpu Nodes=cpu01,cpu02 State=UP"]


@pytest.mark.parametrize(
    "listed",
    [
        {"rc": 0, "stdout": "11|RUNNING|gpu\n12|PENDING|gpu,cpu\n13|PENDING|cpu\n"},  # every partition stays
        {"rc": 0, "stdout": ""},  # no job
        {"rc": 1, "stdout": "", "stderr": "slurm_load_jobs error: Unable to contact slurm controller"},
        {"skipped": True, "changed": False},  # slurmctld did not answer: nothing runs to keep
    ],
)
def test_partitions_that_stay_or_hold_no_job_go_on(listed: object) -> None:
    assert slurm_vanishing_partitions_error(listed, "ctl1", PARTITIONS, "24.11") == ""


def test_a_partition_left_out_while_it_holds_jobs_is_refused_naming_them() -> None:
    """Taken out of cluster_partitions with jobs in it: slurmctld ends them, pending ones too; before 26.05 also a job
    that names another partition beside it."""
    listed = {"rc": 0, "stdout": "11|RUNNING|old\n12|PENDING|old\n13|PENDING|old,gpu\n14|PENDING|gpu\n15|PENDING|x\n"}
    message = slurm_vanishing_partitions_error(listed, "ctl1", PARTITIONS, "24.11")
    assert message == (
        "ctl1: this run's slurm.conf leaves out partitions that hold jobs - old: 3 job(s) (pending, running; "
        "11,12,13); x: 1 job(s) (pending; 15). slurmctld restarted or reconfigured without a partition ends its jobs, "
        "pending ones included (NODE_FAIL). Keep the partition in cluster_partitions with state: DRAIN until its jobs "
        "are done (no new job starts there), move or cancel its pending jobs (scontrol update jobid=<id> "
        "partition=<another>), then take it out"
    )
    # 26.05 keeps a job that names a partition that stays
    later = slurm_vanishing_partitions_error(listed, "ctl1", PARTITIONS, "26.05")
    assert "old: 2 job(s) (pending, running; 11,12)" in later


def test_many_jobs_of_a_partition_name_ten() -> None:
    listed = {"rc": 0, "stdout": "".join(f"{job}|PENDING|old\n" for job in range(100, 130))}
    message = slurm_vanishing_partitions_error(listed, "ctl1", PARTITIONS, "24.11")
    assert "old: 30 job(s) (pending; 100,101,102,103,104,105,106,107,108,109 ...)" in message


POLICY = "slurm-client:\n  Installed: (none)\n  Candidate: {}\n  Version table:\n"


@pytest.mark.parametrize(
    ("asked", "release"),
    [
        ({"skipped": True, "changed": False}, "26.05"),  # Slurm installed: the check above decides
        ({"rc": 0, "stdout": POLICY.format("24.11.5-4+deb13u1")}, "24.11"),
        ({"rc": 0, "stdout": "22.05.8\n"}, "22.05"),  # dnf repoquery's version alone
        ({"rc": 0, "stdout": POLICY.format("1:24.11.5-1")}, ""),  # an epoch; the model's default release
    ],
)
def test_the_release_a_package_source_offers_goes_on_where_it_is_the_clusters(asked: object, release: str) -> None:
    assert slurm_candidate_release_error(asked, "gpu9", release) == ""


def test_a_package_source_of_another_release_or_none_is_refused_before_anything_is_installed() -> None:
    older = slurm_candidate_release_error({"rc": 0, "stdout": POLICY.format("22.05.8-4+deb12u3")}, "gpu9", "24.11")
    assert older.startswith(
        "gpu9 has no Slurm yet and its package source offers Slurm 22.05 (22.05.8-4+deb12u3), but "
        "cluster_slurm_release is '24.11': this run would install it"
    )
    assert "Give gpu9 a package source of Slurm 24.11" in older and older.endswith("Nothing was installed")
    newer = slurm_candidate_release_error({"rc": 0, "stdout": POLICY.format("26.05.1-1")}, "gpu9", "24.11", "pod2")
    assert "but cluster_federation.pods.pod2.slurm_release is '24.11'" in newer
    assert "slurmctld 24.11 cannot take a slurmd 26.05, newer than itself" in newer
    for asked in ({"rc": 0, "stdout": POLICY.format("(none)")}, {"rc": 100, "stdout": "", "stderr": "E: ..."}):
        said = slurm_candidate_release_error(asked, "gpu9", "24.11")
        assert "its package source offers no Slurm" in said and "Add the repository that carries Slurm" in said
    assert candidate_version(POLICY.format("(none)")) == ""
    assert slurm_candidate_query("RedHat")[:3] == ["dnf", "--quiet", "repoquery"]
    assert slurm_candidate_query("Gentoo") == ["apt-cache", "policy", "slurm-client"]
    # nothing to ask where the host gets no Slurm, or has some of it installed (its release is checked then)
    assert slurm_candidate_query("Debian", ["storage", "monitoring"], {}) == []
    assert slurm_candidate_query("Debian", ["compute"], packages(slurmd="24.11.5-1")) == []
    assert slurm_candidate_query("Debian", ["dbd"], packages(munge="0.5.15-2"))[:2] == ["apt-cache", "policy"]


DBD_CONF = "AuthType=auth/munge\nStorageType=accounting_storage/mysql\nStorageHost=localhost\nStorageLoc={}\n"


def grepped(conf: str | None) -> dict[str, object]:
    """What the accounting role's state_db reads of a slurmdbd.conf (None: no file): grep of its StorageLoc lines."""
    command = {"cmd": ["grep", "--ignore-case", "--extended-regexp", "^[[:space:]]*StorageLoc[[:space:]]*="]}
    if conf is None:
        return {**command, "rc": 2, "stdout": "", "stderr": "grep: /etc/slurm/slurmdbd.conf: No such file or directory"}
    lines = [line for line in conf.splitlines() if re.match(r"^\s*StorageLoc\s*=", line, re.IGNORECASE)]
    return {**command, "rc": 0 if lines else 1, "stdout": "\n".join(lines)}


def counted(**tables: int) -> dict[str, object]:
    """What community.mysql.mysql_query returns for the table count of state_db.yml."""
    rows = [{"table_schema": name, "n": n} for name, n in tables.items()]
    return {"changed": False, "query_result": [rows], "rowcount": [len(rows)]}


@pytest.mark.parametrize(
    ("conf", "count"),
    [
        (grepped(DBD_CONF.format("slurm_acct_db")), {"skipped": True}),  # the names agree: nothing counted
        (grepped(None), {"skipped": True}),  # a new cluster: no slurmdbd.conf
        (grepped("StorageType=accounting_storage/mysql\n"), {"skipped": True}),  # slurmdbd's default name
        (grepped(DBD_CONF.format("acct_old")), counted()),  # the old database holds nothing
        (grepped(DBD_CONF.format("acct_old")), counted(acct_old=42, slurm_acct_db=42)),  # moved by the admin
        (grepped("storageloc = acct_old  # was\n"), counted(slurm_acct_db=40)),  # read as slurmdbd reads keys
    ],
)
def test_the_database_slurmdbd_writes_to_or_none_goes_on(conf: object, count: object) -> None:
    assert accounting_db_move_error(conf, "dbd01", "slurm_acct_db", count) == ""


def test_another_database_name_beside_the_running_ones_records_is_refused_naming_both() -> None:
    conf = grepped(DBD_CONF.format("slurm_acct_db") + "StoragePass=secret\n")
    assert accounting_running_db(conf) == "slurm_acct_db"
    assert accounting_running_db(grepped("StorageType=accounting_storage/mysql\n")) == "slurm_acct_db"
    assert accounting_running_db(grepped(None)) == "" and accounting_running_db({"skipped": True}) == ""
    said = accounting_db_move_error(conf, "dbd01", "acct_renamed", counted(slurm_acct_db=42))
    assert said.startswith("dbd01: slurmdbd writes the cluster's accounting to the database 'slurm_acct_db'")
    assert "which holds 42 tables, but accounting_db_name is 'acct_renamed', which holds no table" in said
    assert "Keep accounting_db_name: slurm_acct_db" in said and "load the dump into 'acct_renamed'" in said
    # MariaDB not answering: nothing says the old database is empty, so the run stops too
    unasked = accounting_db_move_error(conf, "dbd01", "acct_renamed", {"failed": True, "msg": "Can't connect"})
    assert "could not be counted (MariaDB did not answer on its socket)" in unasked


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("", ""),
        ("StorageLoc=acct\n", "acct"),
        ("# StorageLoc=acct\nStorageType=accounting_storage/mysql\n", "slurm_acct_db"),
        ("STORAGELOC=Acct2\n", "Acct2"),
    ],
)
def test_storage_loc_is_read_as_slurmdbd_reads_it(text: str, name: str) -> None:
    assert storage_loc(text) == name


def test_controllers_without_their_jobs_state_are_those_asked_and_missing_it() -> None:
    stats = {
        "ctl01": {"exists": False},
        "ctl02": {"exists": True, "mode": "0600"},
        "ctl03": "",  # slurmctld answered: not asked
        "ctl04": {"changed": False, "skipped": True},
    }
    assert live_state.stateless_controllers(stats) == {"ctl01"}


def test_jobs_the_nodes_run_without_a_controller_holding_their_state_are_refused_by_name() -> None:
    """slurmctld started on an empty StateSaveLocation ends the jobs the nodes report ("Orphan StepId=1.batch
    reported on node pilot-gpu02", the real slurmctld of 24.11 in the pilot lab)."""
    steps = {
        "gpu01": "",
        "gpu02": "12911 slurmstepd: [2.batch]\n12935 slurmstepd: [2.0]\n13001 slurmstepd: [17_3.extern]",
        "gpu03": "900 slurmstepd: [45.extern]",
    }
    said = live_state.orphan_jobs_error(steps, "pilot", "")
    assert said.startswith(
        "no controller of pilot holds its jobs' state (StateSaveLocation has no job_state and no slurmctld answers), "
        "while its nodes run jobs - gpu02: job(s) 2, 17; gpu03: job(s) 45. slurmctld started without that state ends "
        "their jobs as orphans"
    ), said
    assert "playbooks/restore.yml -e restore=controller-state" in said
    assert said.endswith("set slurm_state_empty_confirm=pilot. Nothing was changed")
    assert live_state.orphan_jobs_error(steps, "pilot", "pilot") == ""
    assert live_state.orphan_jobs_error(steps, "pilot", "pilot2") == said
    assert live_state.orphan_jobs_error({"gpu01": "", "gpu02": ""}, "pilot", "") == ""
    many = {f"gpu{index:02d}": f"1 slurmstepd: [{index}.batch]" for index in range(1, 9)}
    assert "gpu05: job(s) 5 and 3 more node(s)." in live_state.orphan_jobs_error(many, "pilot", "")


GROUPS = {
    "controllers": ["p1-ctl01", "p1-ctl02", "p2-ctl01"],
    "compute": ["p1-gpu01", "p1-gpu02", "p2-gpu01"],
    "pod1": ["p1-ctl01", "p1-ctl02", "p1-gpu01", "p1-gpu02"],
    "pod2": ["p2-ctl01", "p2-gpu01"],
}
FEDERATION = {"name": "fed", "pods": {"pod1": {"controller_vip": "10.0.1.10"}, "pod2": {"controller_vip": "10.0.2.10"}}}
MISSING, HELD = {"exists": False}, {"exists": True}


def test_the_nodes_asked_are_those_of_a_cluster_none_of_whose_controllers_holds_its_state() -> None:
    single = {"controllers": ["ctl01", "ctl02"], "compute": ["gpu01", "gpu02"]}
    assert slurm_stateless_nodes({"ctl01": MISSING, "ctl02": MISSING}, single) == ["gpu01", "gpu02"]
    assert slurm_stateless_nodes({"ctl01": MISSING, "ctl02": HELD}, single) == []  # the pair's other holds it
    assert slurm_stateless_nodes({"ctl01": MISSING, "ctl02": ""}, single) == []  # a slurmctld answered
    assert slurm_stateless_nodes({"ctl01": MISSING}, single) == []  # (a run limited to one of the pair)
    both = {"p1-ctl01": MISSING, "p1-ctl02": MISSING, "p2-ctl01": HELD}
    assert slurm_stateless_nodes(both, GROUPS, FEDERATION) == ["p1-gpu01", "p1-gpu02"]
    assert slurm_stateless_nodes({**both, "p2-ctl01": MISSING}, GROUPS, FEDERATION) == GROUPS["compute"]


def test_the_orphan_filter_reads_each_nodes_pgrep() -> None:
    assert slurm_orphan_jobs_error({"gpu01": None, "gpu02": ""}, "pilot") == ""
    assert "gpu02: job(s) 7" in slurm_orphan_jobs_error({"gpu02": "5 slurmstepd: [7.batch]"}, "pilot", None)
    # the registered results, as the node check passes them: a node that could not be asked is named too
    pgrep = {"cmd": ["pgrep", "-a", "-x", "slurmstepd"], "rc": 0, "stdout": "5 slurmstepd: [7.batch]"}
    nothing = {"cmd": ["pgrep", "-a", "-x", "slurmstepd"], "rc": 1, "stdout": ""}
    unreachable = {"unreachable": True, "msg": "Failed to connect to the host via ssh"}
    # the module never ran (a container paused under Docker's connection): rc 1 as well, but no command
    unran = {"rc": 1, "module_stderr": "Container is paused", "msg": "Module result deserialization failed"}
    assert "gpu04 could not be asked" in slurm_orphan_jobs_error({"gpu04": unran}, "pilot")
    assert slurm_orphan_jobs_error({"gpu01": nothing, "gpu02": nothing}, "pilot") == ""
    said = slurm_orphan_jobs_error({"gpu01": pgrep, "gpu02": unreachable, "gpu03": nothing}, "pilot")
    assert "its nodes run jobs - gpu01: job(s) 7, and the nodes gpu02 could not be asked (unreachable" in said, said
    alone = slurm_orphan_jobs_error({"gpu01": nothing, "gpu02": unreachable}, "pilot")
    assert alone.startswith("no controller of pilot holds its jobs' state") and "gpu02 could not be asked" in alone
    assert "its nodes run jobs" not in alone
    assert slurm_orphan_jobs_error({"gpu02": unreachable}, "pilot", "pilot") == ""


def test_the_clusters_the_controllers_state_holds_are_read_from_each_clustername() -> None:
    slurped_files = {"ctl01": slurped("pilot|3109"), "ctl02": {"failed": True}, "ctl03": slurped("pilot\n"), "x": ""}
    assert slurm_held_clusters(slurped_files) == ["pilot"]
    assert slurm_held_clusters({}) == []
    # the accounting role's own read, looped over the controllers a run limited to the database hosts leaves out
    looped = [
        {**slurped("pilot|3109"), "item": "ctl01"},
        {"unreachable": True, "msg": "ssh: connect to host ctl02 port 22", "item": "ctl02"},
        {"failed": True, "msg": "file not found", "item": "ctl03"},
    ]
    assert slurm_held_clusters(looped) == ["pilot"]
    assert slurm_held_clusters([]) == []


def test_a_limited_run_that_cannot_ask_the_nodes_for_their_jobs_stops() -> None:
    """A re-installed controller deployed alone (--limit): no controller holds the jobs' state, no slurmctld answers,
    and the nodes to ask are outside the limit - the run stops naming them, unless the limit holds them (then the
    node check asks them), there is no limit, or slurm_state_empty_confirm names the cluster."""
    nodes = ["gpu01", "gpu02", "gpu03"]
    message = slurm_unasked_nodes_error(nodes, ["ctl01"], "pilot", "")
    assert message.startswith(
        "no controller of pilot holds its jobs' state (StateSaveLocation has no job_state and no slurmctld answers), "
        "and this run's --limit leaves out the nodes that could be running its jobs (gpu[01-03])"
    ), message
    assert "slurm_state_empty_confirm=pilot" in message and "--limit <controller>,compute" in message
    assert "gpu03" in slurm_unasked_nodes_error(nodes, ["ctl01", "gpu01", "gpu02"], "pilot")
    assert slurm_unasked_nodes_error(nodes, ["ctl01", *nodes], "pilot") == ""
    assert slurm_unasked_nodes_error(nodes, None, "pilot") == ""  # no limit: the node play asks every node
    assert slurm_unasked_nodes_error(nodes, ["ctl01"], "pilot", "pilot") == ""
    assert slurm_unasked_nodes_error([], ["ctl01"], "pilot") == ""


QUERIED_PILOT = {"query_result": [[{"name": "pilot"}]], "rowcount": [1]}
QUERIED_EMPTY = {"failed": True, "msg": "Cannot execute SQL ... Table 'slurm_acct_db.cluster_table' doesn't exist"}


def test_slurmdbd_is_not_started_on_a_database_without_the_clusters_the_controllers_ran_with() -> None:
    """A re-installed database host (or a dropped database) under a running cluster: slurmdbd registers the cluster
    anew under another ClusterID and slurmctld stops at its next start ("CLUSTER ID MISMATCH", the real slurmctld of
    24.11 in the pilot lab)."""
    said = accounting_lost_clusters_error(QUERIED_EMPTY, ["pilot"], "dbd01", "slurm_acct_db")
    assert said.startswith(
        "dbd01: the accounting database 'slurm_acct_db' holds no cluster pilot, while the controllers' "
        "StateSaveLocation holds pilot"
    ), said
    assert "playbooks/restore.yml -e restore=accounting" in said and "accounting_db_empty_confirm=pilot" in said
    assert accounting_lost_clusters_error(QUERIED_PILOT, ["pilot"], "dbd01", "slurm_acct_db") == ""
    assert accounting_lost_clusters_error(QUERIED_EMPTY, ["pilot"], "dbd01", "slurm_acct_db", "pilot") == ""
    unknown_db = {"failed": True, "msg": "(1049, \"Unknown database 'slurm_acct_db'\")"}
    assert accounting_lost_clusters_error(unknown_db, ["pilot"], "dbd01", "slurm_acct_db") != ""
    # MariaDB not answering, the read skipped (no cluster in any controller's state): nothing to judge
    down = {"failed": True, "msg": "unable to connect to database, check login_user and login_password"}
    assert accounting_lost_clusters_error(down, ["pilot"], "dbd01", "slurm_acct_db") == ""
    assert accounting_lost_clusters_error({"skipped": True}, [], "dbd01", "slurm_acct_db") == ""
    # a federation: each pod that ran must be there; a new pod has no state yet
    fed = {"query_result": [[{"name": "pod1"}]]}
    assert "holds no cluster pod2" in accounting_lost_clusters_error(fed, ["pod1", "pod2"], "db01", "fed_db")
    assert accounting_lost_clusters_error(fed, ["pod1", "pod2"], "db01", "fed_db", "pod2") == ""


def test_a_service_account_is_not_moved_under_its_running_daemons() -> None:
    """common_slurm_uid/common_munge_uid other than the ids a host's accounts have: moved where their daemons do not
    run (a site image, the lab's munge of uid 103), refused where they do (usermod would refuse after the group)."""
    from ansible_collections.gpucluster.cluster.plugins.filter.common import common_moved_account_error

    uids = {"slurm": ["common_slurm_uid", 64030], "munge": ["common_munge_uid", "64031"]}
    image = "slurm:x:64030:64030::/nonexistent:/usr/sbin/nologin\nmunge:x:103:104::/nonexistent:/usr/sbin/nologin\n"
    image += "slurm:x:64030:\nmunge:x:104:\n"
    assert common_moved_account_error({"rc": 0, "stdout": image}, "gpu01", uids) == ""
    assert common_moved_account_error({"rc": 0, "stdout": image + "running slurm 77 slurmd\n"}, "gpu01", uids) == ""
    said = common_moved_account_error({"rc": 0, "stdout": image + "running munge 412 munged\n"}, "gpu01", uids)
    assert said.startswith(
        "gpu01: this run would give service accounts other ids under their running daemons - munge: uid 103 and gid "
        "104 here, common_munge_uid: 64031, and munged runs as munge."
    ), said
    agreed = image.replace(":103:104:", ":64031:64031:").replace("munge:x:104:", "munge:x:64031:")
    assert common_moved_account_error({"rc": 0, "stdout": agreed + "running munge 412 munged\n"}, "gpu01", uids) == ""
    regrouped = image.replace(":103:104:", ":64031:104:")  # only the group's gid differs: groupmod takes it
    assert (
        common_moved_account_error({"rc": 0, "stdout": regrouped + "running munge 412 munged\n"}, "gpu01", uids) == ""
    )
    assert common_moved_account_error({"rc": 0, "stdout": ""}, "gpu01", uids) == ""  # a new host: no accounts yet
    assert common_moved_account_error({"skipped": True}, "gpu01", uids) == ""
    # an id another account or group has: usermod/groupmod would refuse it half-way, whether munged runs or not
    taken = image + "systemd-network:x:64031:64031::/run/systemd:/usr/sbin/nologin\nsystemd-network:x:64031:\n"
    said = common_moved_account_error({"rc": 0, "stdout": taken}, "gpu01", uids)
    assert said.startswith(
        "gpu01: common_munge_uid: 64031 is the uid of systemd-network here; common_munge_uid: 64031 is the gid of "
        "systemd-network here - usermod and groupmod refuse"
    ), said
    # the id's own account listed again by its number (getent passwd 64030 answers slurm): not another's
    assert common_moved_account_error({"rc": 0, "stdout": image + image}, "gpu01", uids) == ""


def test_a_moved_account_takes_its_daemons_files_with_it() -> None:
    """An account of another id whose daemons do not run is moved: the files of its old uid and gid in its daemons'
    directories (StateSaveLocation wherever the inventory puts it) take the new ones - slurmctld of a new uid could
    not read its owner-only state files and would start without its jobs."""
    from ansible_collections.gpucluster.cluster.plugins.filter.common import common_moved_account_ids

    uids = {"slurm": ["common_slurm_uid", "64030"], "munge": ["common_munge_uid", 64031]}
    listing = "slurm:x:990:991::/nonexistent:/usr/sbin/nologin\nmunge:x:64031:64031::/nonexistent:/bin/false\n"
    listing += "slurm:x:991:\nmunge:x:64031:\n"
    moves = common_moved_account_ids({"rc": 0, "stdout": listing}, uids, "/srv/slurm/state")
    assert [(move["account"], move["option"], move["old"], move["new"]) for move in moves] == [
        ("slurm", "-uid", 990, 64030),
        ("slurm", "-gid", 991, 64030),
    ]
    assert moves[0]["dirs"][-1] == "/srv/slurm/state" and "/var/spool" in moves[0]["dirs"]
    assert (
        common_moved_account_ids({"rc": 0, "stdout": listing}, uids, "/var/spool")[0]["dirs"].count("/var/spool") == 1
    )
    agreed = listing.replace("990:991", "64030:64030").replace("slurm:x:991:", "slurm:x:64030:")
    assert common_moved_account_ids({"rc": 0, "stdout": agreed}, uids, "/srv/slurm/state") == []
    assert common_moved_account_ids({"skipped": True}, uids, "/srv/slurm/state") == []
    munge = common_moved_account_ids({"rc": 0, "stdout": listing.replace("64031:64031", "103:104")}, uids, "")
    assert munge[-1] == {
        "account": "munge",
        "option": "-uid",
        "old": 103,
        "new": 64031,
        "dirs": ["/etc/munge", "/var/lib/munge", "/var/log/munge"],
    }


def test_pods_that_lost_their_state_at_once_are_each_named_and_each_confirmed() -> None:
    """A federation whose two pods lost their controllers' state in one outage: the nodes of both are asked in one
    play. Each pod is named with its own nodes and jobs, and the confirmation must name each (one name let the other
    pod's jobs be ended too)."""
    federation = {"name": "fed", "pods": {"pod1": {}, "pod2": {}}}
    groups = {"pod1": ["p1-ctl", "p1-gpu01"], "pod2": ["p2-ctl", "p2-gpu01"], "compute": ["p1-gpu01", "p2-gpu01"]}
    pgrep = {"cmd": ["pgrep"], "rc": 0, "stdout": "10 slurmstepd: [7.batch]"}
    steps = {"p1-gpu01": pgrep, "p2-gpu01": {**pgrep, "stdout": "11 slurmstepd: [9.0]"}}
    said = slurm_orphan_jobs_error(steps, "pod1", "", groups=groups, federation=federation)
    assert "no controller of pod1 holds its jobs' state" in said and "p1-gpu01: job(s) 7" in said
    assert "no controller of pod2 holds its jobs' state" in said and "p2-gpu01: job(s) 9" in said
    only = slurm_orphan_jobs_error(steps, "pod1", "pod1", groups=groups, federation=federation)
    assert "pod1" not in only and "no controller of pod2" in only, only
    assert slurm_orphan_jobs_error(steps, "pod1", "pod1, pod2", groups=groups, federation=federation) == ""
    limited = slurm_unasked_nodes_error(
        ["p1-gpu01", "p2-gpu01"], ["p1-ctl"], "pod1", "pod1", groups=groups, federation=federation
    )
    assert limited.startswith("no controller of pod2") and "(p2-gpu01)" in limited, limited
    assert (
        slurm_unasked_nodes_error(
            ["p1-gpu01", "p2-gpu01"], ["p1-ctl"], "pod1", "pod2,pod1", groups=groups, federation=federation
        )
        == ""
    )


def test_a_purge_that_deletes_kept_records_unarchived_is_refused_unless_confirmed() -> None:
    """accounting_purge set or shortened on a running cluster: slurmdbd deletes the records older than that at its
    next purge, for good unless an Archive key writes them to files first."""
    from ansible_collections.gpucluster.cluster.plugins.filter.accounting import accounting_purge_loss_error

    kept = grepped(DBD_CONF.format("slurm_acct_db") + "StoragePass=x\n")  # no purge: everything kept
    purge = {"PurgeJobAfter": "12month", "PurgeStepAfter": "", "PurgeEventAfter": ""}
    said = accounting_purge_loss_error(kept, "dbd01", purge, "slurm_acct_db", "")
    assert said.startswith(
        "dbd01: accounting_purge would have the running slurmdbd delete records it keeps now - PurgeJobAfter unset "
        "(kept for ever) -> 12month (ArchiveJobs not set)."
    ), said
    assert "accounting_purge_confirm=slurm_acct_db" in said
    assert accounting_purge_loss_error(kept, "dbd01", purge, "slurm_acct_db", "slurm_acct_db") == ""
    assert accounting_purge_loss_error(kept, "dbd01", {**purge, "ArchiveJobs": "yes"}, "slurm_acct_db", "") == ""
    assert accounting_purge_loss_error(grepped(None), "dbd01", purge, "slurm_acct_db", "") == ""  # a new cluster
    assert accounting_purge_loss_error({"skipped": True}, "dbd01", purge, "slurm_acct_db", "") == ""
    # the running slurmdbd's own retention: kept or lengthened passes, shortened is refused (units compared)
    purging = grepped("StorageLoc=slurm_acct_db\nPurgeJobAfter=12\npurgeeventafter=2months\n")
    purging["stdout"] = "StorageLoc=slurm_acct_db\nPurgeJobAfter=12\npurgeeventafter=2months"
    assert accounting_purge_loss_error(purging, "dbd01", purge, "slurm_acct_db", "") == ""
    assert accounting_purge_loss_error(purging, "dbd01", {"PurgeJobAfter": "400days"}, "slurm_acct_db", "") == ""
    shorter = accounting_purge_loss_error(purging, "dbd01", {"PurgeJobAfter": "30days"}, "slurm_acct_db", "")
    assert "PurgeJobAfter 12 -> 30days (ArchiveJobs not set)" in shorter, shorter
    events = accounting_purge_loss_error(purging, "dbd01", {"PurgeEventAfter": "720hours"}, "slurm_acct_db", "")
    assert "PurgeEventAfter 2months -> 720hours (ArchiveEvents not set)" in events, events
