"""The federation lab (molecule/federation): two pods, Slurm clusters pod1 and pod2, joined in the federation
"fed" on one slurmdbd, built from bare containers by playbooks/pilot.yml, then exercised through the real
daemons from the login node (fed-db01, pod1's):

- the federation as slurmdbd and both controllers see it;
- a federated job goes to the pod with free resources, and its sibling on the full pod is revoked;
- squeue --federation and sacct show the jobs of both pods from the one database;
- with pod2's controller down, pod1 goes on taking and running jobs, federated ones included.
"""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.lab import molecule_run
from tests.lab.molecule_run import changed_tasks, failures, recap

LOGIN = "fed-db01"
PODS = {"pod1": "fed-p1", "pod2": "fed-p2"}
HOSTS = (LOGIN, *PODS.values())
SUITE = "trixie"

pytestmark = pytest.mark.lab


def molecule(*args: str) -> subprocess.CompletedProcess[str]:
    return molecule_run.molecule(*args, suite=SUITE)


def sh(host: str, command: str, check: bool = True, timeout: int = 120) -> str:
    result = subprocess.run(
        ["docker", "exec", host, "bash", "-c", command], capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and result.returncode != 0:
        raise AssertionError(f"{host}: {command}: rc={result.returncode}\n{result.stdout}\n{result.stderr}")
    return result.stdout.strip()


def as_alice(command: str, check: bool = True) -> str:
    """A user's command on the login node, from /home (shared by the containers)."""
    return sh(LOGIN, f"cd /home/alice && runuser -u alice -- {command}", check=check)


def wait_for(what: str, probe, timeout: float = 90, every: float = 1.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what} (last: {last!r})")


def job_rows(job_id: str) -> list[dict[str, str]]:
    """sacct's records of one federated job in every pod (the one database)."""
    out = sh(LOGIN, f"sacct -M all -X -n -P -j {job_id} -o JobID,Cluster,State", check=False)
    return [dict(zip(("id", "cluster", "state"), line.split("|"), strict=False)) for line in out.splitlines() if line]


@dataclass
class Lab:
    converge_seconds: float


VOLUMES = ("gpucluster-fed-home",)


@pytest.fixture(scope="module")
def lab() -> Iterator[Lab]:
    _, seconds = molecule_run.build_lab("federation", SUITE, VOLUMES)
    print(f"\nfederation lab: first converge took {seconds:.0f} s")
    yield Lab(seconds)
    molecule_run.destroy_lab("federation", SUITE, VOLUMES)


def test_second_converge_changes_nothing(lab: Lab) -> None:
    result = molecule("converge", "-s", "federation")
    assert result.returncode == 0, failures(result.stdout) + result.stdout[-5000:]
    counters = recap(result.stdout)
    assert {host: counters[host]["changed"] for host in HOSTS} == dict.fromkeys(HOSTS, 0), changed_tasks(result.stdout)


def test_each_pod_is_its_own_cluster_in_one_federation(lab: Lab) -> None:
    # slurmdbd: the federation and its two members.
    members = sh(LOGIN, "sacctmgr -n -P show federation format=Federation,Cluster")
    # (24.11 ends member rows after the first with a stray '|')
    assert sorted(line.rstrip("|") for line in members.splitlines()) == ["fed|pod1", "fed|pod2"]
    for pod, host in PODS.items():
        assert sh(host, "scontrol show config | sed -n 's/^ClusterName *= *//p'") == pod
        # Each controller sees itself and its sibling active in the federation.
        federation = wait_for(
            f"{pod}'s controller to see both pods active",
            lambda host=host: (out := sh(host, "scontrol show federation", check=False)).count("ACTIVE") == 2 and out,
        )
        assert "Federation: fed" in federation
        assert re.search(r"Self:\s+" + pod, federation), federation
    # Users see both pods from the login node.
    nodes = sh(LOGIN, "sinfo -M all -h -N -o '%N %t'")
    assert "fed-p1" in nodes and "fed-p2" in nodes, nodes


def test_a_federated_job_runs_where_resources_are_free(lab: Lab) -> None:
    # Fill pod1 (the login node's own cluster, where federated jobs originate) with a job of its own.
    filler = as_alice("sbatch -M pod1 --parsable --exclusive -N1 -t 5 --wrap 'sleep 600'").split(";")[0]
    wait_for("the filler to run on pod1", lambda: sh(LOGIN, f"squeue -M pod1 -h -j {filler} -o %T").endswith("RUNNING"))
    try:
        job = as_alice("sbatch --parsable --exclusive -N1 -t 5 --wrap 'hostname; sleep 5'").split(";")[0]
        # A federated job id carries the origin cluster's id above bit 26.
        assert int(job) >= 1 << 26, job
        ran = wait_for(
            "the federated job to finish on pod2",
            lambda: [r for r in job_rows(job) if r["cluster"] == "pod2" and r["state"] == "COMPLETED"],
            timeout=120,
        )
        assert ran
        rows = job_rows(job)
        # The sibling on the full pod was revoked, never run.
        assert {r["cluster"]: r["state"] for r in rows}.get("pod1", "REVOKED") == "REVOKED", rows
        output = sh(LOGIN, f"cat /home/alice/slurm-{job}.out")
        assert output.splitlines()[0] == "fed-p2", output
    finally:
        sh(LOGIN, f"scancel -M pod1 {filler}", check=False)


def test_both_pods_jobs_are_seen_from_the_one_database(lab: Lab) -> None:
    jobs = {pod: as_alice(f"sbatch -M {pod} --parsable -N1 -t 5 --wrap 'sleep 20'").split(";")[0] for pod in PODS}
    queued = wait_for(
        "squeue --federation to list the jobs of both pods",
        lambda: (
            (out := sh(LOGIN, "squeue --federation -h -o '%i %P' -u alice"))
            and all(j in out for j in jobs.values())
            and out
        ),
    )
    assert queued
    for pod, job in jobs.items():
        wait_for(f"{pod}'s job in sacct", lambda pod=pod, job=job: any(r["cluster"] == pod for r in job_rows(job)))
    # sacct over the whole federation, from the login node: both clusters' records in one database.
    clusters = set(sh(LOGIN, "sacct -M all -X -n -P -u alice -S now-1hour -o Cluster").split())
    assert clusters == {"pod1", "pod2"}
    for job in jobs.values():
        sh(LOGIN, f"scancel -M all {job}", check=False)


def test_pod1_keeps_working_while_pod2s_controller_is_down(lab: Lab) -> None:
    sh(PODS["pod2"], "systemctl stop slurmctld")
    try:
        wait_for(
            "pod2's controller to stop answering",
            lambda: (
                sh(LOGIN, "scontrol -M pod2 ping", check=False) == ""
                or "DOWN" in sh(LOGIN, "scontrol -M pod2 ping", check=False)
            ),
        )
        job = as_alice("sbatch --parsable -N1 -t 5 --wrap 'hostname'").split(";")[0]
        wait_for(
            "the federated job to complete on pod1",
            lambda: any(r["cluster"] == "pod1" and r["state"] == "COMPLETED" for r in job_rows(job)),
            timeout=120,
        )
        assert sh(LOGIN, f"cat /home/alice/slurm-{job}.out").splitlines()[0] == "fed-p1"
        direct = as_alice("sbatch -M pod1 --parsable -N1 -t 5 --wrap 'true'").split(";")[0]
        wait_for("a pod1 job to complete", lambda: any(r["state"] == "COMPLETED" for r in job_rows(direct)))
    finally:
        sh(PODS["pod2"], "systemctl start slurmctld")
    wait_for("pod2 back in the federation", lambda: "UP" in sh(LOGIN, "scontrol -M pod2 ping", check=False), timeout=60)
