"""The running cluster's state, as the real slurmctld of 22.05, 24.11 and 26.05 keeps it: the clustername file it
writes into StateSaveLocation (read by roles/slurm/tasks/state_name.yml and the federation move), its refusal to start
on the state of another ClusterName, and its start without its jobs on another StateSaveLocation - both refused by
the toolkit before any host changes (module_utils/live_state.py); and its end of the jobs of nodes a restart's
slurm.conf leaves out, of partitions it leaves out, and of the jobs the nodes run when it starts without its state,
which the toolkit refuses too."""

from __future__ import annotations

import base64
import re

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.accounting import accounting_lost_clusters_error
from ansible_collections.gpucluster.cluster.plugins.filter.slurm import (
    slurm_held_clusters,
    slurm_orphan_jobs_error,
    slurm_state_move_error,
    slurm_state_name_error,
    slurm_vanishing_jobs_error,
    slurm_vanishing_partitions_error,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import config_from_inventory

from lab.slurmctld_check import (
    REMOVED_PARTITION_LINES,
    SUITE_RELEASE,
    job_on_a_vanished_node,
    jobs_in_a_removed_partition,
    jobs_of_a_lost_state,
    restart_twice,
    slurmctld_on_a_lost_database,
    small_files,
)
from tests.unit.factory import standalone_spec

pytestmark = pytest.mark.slurmctld


def small_cluster(suite: str) -> tuple[str, tuple[str, ...]]:
    spec, groups = standalone_spec(SUITE_RELEASE[suite])
    conf, _, _ = small_files(config_from_inventory(spec, groups))
    return conf, tuple(groups["compute"])


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_slurmctld_stops_on_another_clusters_state_as_the_check_judges(suite: str) -> None:
    restart = restart_twice(suite, *small_cluster(suite), ("alpha", "/var/spool/state"), ("beta", "/var/spool/state"))
    assert restart.first_up, restart
    slurped = {"content": base64.b64encode(restart.held.encode()).decode()}
    # the check reads the file as this release writes it: the same name goes on...
    assert slurm_state_name_error(slurped, "ctl", "/var/spool/state", "alpha") == ""
    # ...another is refused, as slurmctld refuses it
    assert "holds the state of the running cluster 'alpha', but cluster_name is 'beta'" in slurm_state_name_error(
        slurped, "ctl", "/var/spool/state", "beta"
    )
    assert not restart.second_up and "CLUSTER NAME MISMATCH" in restart.said, restart


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_slurmctld_on_another_state_directory_starts_without_its_jobs(suite: str) -> None:
    restart = restart_twice(suite, *small_cluster(suite), ("alpha", "/var/spool/old"), ("alpha", "/var/spool/new"))
    assert restart.first_up and restart.second_up, restart
    assert restart.jobs == (), restart  # the held job the first start queued is gone
    shown = {"rc": 0, "stdout": "ClusterName = alpha\nStateSaveLocation = /var/spool/old\n"}
    assert slurm_state_move_error(shown, "ctl", "/var/spool/new").startswith(
        "ctl: slurmctld of the cluster 'alpha' runs with its state in /var/spool/old, but the inventory gives it "
        "StateSaveLocation /var/spool/new"
    )
    # the same directory again: the job is still there
    kept = restart_twice(suite, *small_cluster(suite), ("alpha", "/var/spool/old"), ("alpha", "/var/spool/old"))
    assert kept.second_up and len(kept.jobs) == 1, kept


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_a_job_on_a_node_the_new_slurm_conf_leaves_out_ends_as_the_check_foresees(suite: str) -> None:
    found = job_on_a_vanished_node(suite)
    state, _, busy = found["before"].partition(" ")
    assert state == "RUNNING" and busy.split() == ["n1"], found
    # the check, on what squeue listed and the new slurm.conf's node lines, refuses the run...
    listed = {"rc": 0, "stdout": busy.replace(" ", "\n")}
    assert "jobs run on n1, which this run's slurm.conf leaves out" in slurm_vanishing_jobs_error(
        listed, "ctl", ["NodeName=n2 NodeAddr=127.0.0.3 CPUs=2 State=UNKNOWN"]
    )
    # ...whose restart ends the job
    assert found["after"] == "JobState=NODE_FAIL", found


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_jobs_of_a_partition_the_new_slurm_conf_leaves_out_end_as_the_check_foresees(suite: str) -> None:
    """A partition taken out of cluster_partitions while it holds jobs: slurmctld restarted without it ends them,
    pending ones too (22.05 and 24.11 also those that name another partition; 26.05 keeps those in the other). The
    check, on squeue's listing before, names exactly the jobs the restart ends."""
    listing, after = jobs_in_a_removed_partition(suite)
    ended = {job for job, state in after.items() if state == "JobState=NODE_FAIL"}
    assert {"1", "2"} <= ended and "4" not in ended, (listing, after)
    message = slurm_vanishing_partitions_error(
        {"rc": 0, "stdout": listing}, "ctl", REMOVED_PARTITION_LINES, SUITE_RELEASE[suite]
    )
    found = re.search(r"old: \d+ job\(s\) \([a-z, ]+; ([0-9,]+)\)", message)
    named = set(found.group(1).split(",")) if found else set()
    assert named == ended, (message, listing, after)
    assert "old: " in message and "state: DRAIN" in message


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_a_job_the_node_runs_ends_when_slurmctld_starts_without_its_state_as_the_check_foresees(suite: str) -> None:
    """A re-installed controller (its StateSaveLocation empty) while a node runs a job: slurmctld takes the job the
    node reports as an orphan and ends it. The check, on what `pgrep -a -x slurmstepd` showed on the node, names the
    job and refuses the run (roles/slurm/tasks/node_jobs.yml)."""
    job, steps, left = jobs_of_a_lost_state(suite)
    said = slurm_orphan_jobs_error({"n1": steps}, "ls")
    assert f"while its nodes run jobs - n1: job(s) {job}." in said, (steps, said)
    assert left == 0, (job, steps)


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_slurmctld_on_a_lost_accounting_database_as_the_check_foresees(suite: str) -> None:
    """The accounting database lost under a cluster that ran (a re-installed database host) and made again, the
    cluster registered anew: slurmctld of 24.11 and 26.05 stops on its own state ("CLUSTER ID MISMATCH"), 22.05's
    starts with its accounting gone. The check, on the controller's clustername file and the database as it reads them
    after the loss, refuses to start slurmdbd on it (roles/accounting/tasks/main.yml)."""
    found = slurmctld_on_a_lost_database(suite)
    held = slurm_held_clusters({"ctl": {"content": base64.b64encode(found["held"].encode()).decode()}})
    assert held == ["lost"], found
    queried = {"failed": True, "msg": found["query"]}
    said = accounting_lost_clusters_error(queried, held, "ctl", "slurm_acct_db")
    assert said.startswith("ctl: the accounting database 'slurm_acct_db' holds no cluster lost"), (found, said)
    if SUITE_RELEASE[suite] == "22.05":
        assert found["up"] == "yes", found
    else:
        assert found["up"] == "no" and found.get("said") == "CLUSTER ID MISMATCH", found
