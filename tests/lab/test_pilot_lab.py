"""The pilot lab (molecule/pilot): built once from bare containers by playbooks/pilot.yml, then checked.

Real daemons only (munged, slurmctld, slurmd, slurmdbd, MariaDB) in systemd containers; the compute
containers carry fake /dev/nvidia* nodes so typed GRES goes through the real slurmctld and slurmd.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.lab import molecule_run
from tests.lab.molecule_run import SUITES, changed_tasks, failures, recap

HOSTS = ("pilot-ctl01", "pilot-dbd01", "pilot-gpu01", "pilot-gpu02")

pytestmark = pytest.mark.lab

_suite = {"name": "trixie"}


def molecule(*args: str) -> subprocess.CompletedProcess[str]:
    return molecule_run.molecule(*args, suite=_suite["name"])


def docker_exec(host: str, *command: str) -> str:
    return subprocess.run(["docker", "exec", host, *command], capture_output=True, text=True, check=True).stdout


@dataclass
class Lab:
    converge_log: str
    converge_seconds: float


@pytest.fixture(scope="module", params=list(SUITES), ids=[f"{s}-slurm{r}" for s, r in SUITES.items()])
def lab(request: pytest.FixtureRequest) -> Iterator[Lab]:
    if os.environ.get("GPUCLUSTER_SKIP_LAB") == "1":
        pytest.skip("GPUCLUSTER_SKIP_LAB=1: the container lab was skipped on request")
    _suite["name"] = request.param
    molecule("destroy", "-s", "pilot")
    remove_home_volume()
    for step in ("create", "prepare"):
        result = molecule(step, "-s", "pilot")
        assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-3000:]
    start = time.monotonic()
    converge = molecule("converge", "-s", "pilot", "--", "-vvv")
    seconds = time.monotonic() - start
    assert converge.returncode == 0, failures(converge.stdout) + converge.stdout[-3000:] + converge.stderr[-3000:]
    print(f"\npilot lab ({request.param}): first converge took {seconds:.0f} s")
    yield Lab(converge.stdout + converge.stderr, seconds)
    molecule("destroy", "-s", "pilot")
    remove_home_volume()


def remove_home_volume() -> None:
    """/home of the lab is a Docker volume shared by its containers (the lab kernel has no NFS)."""
    subprocess.run(["docker", "volume", "rm", "gpucluster-pilot-home"], capture_output=True, check=False)


def test_second_converge_changes_nothing(lab: Lab) -> None:
    start = time.monotonic()
    result = molecule("converge", "-s", "pilot")
    print(f"\npilot lab: re-run took {time.monotonic() - start:.0f} s (first run {lab.converge_seconds:.0f} s)")
    assert result.returncode == 0, result.stdout[-5000:]
    counters = recap(result.stdout)
    assert set(HOSTS) <= set(counters)
    assert {host: counters[host]["changed"] for host in HOSTS} == dict.fromkeys(HOSTS, 0), changed_tasks(result.stdout)


def test_check_mode_with_diff_is_clean_on_the_converged_cluster(lab: Lab) -> None:
    result = molecule("converge", "-s", "pilot", "--", "--check", "--diff")
    assert result.returncode == 0, result.stdout[-5000:]
    counters = recap(result.stdout)
    assert {host: counters[host]["changed"] for host in HOSTS} == dict.fromkeys(HOSTS, 0), changed_tasks(result.stdout)


def test_jobs_run_and_are_accounted(lab: Lab) -> None:
    """molecule/pilot/verify.yml: munge across nodes, GRES job, array, dependency chain, QOS denial, sacct."""
    result = molecule("verify", "-s", "pilot")
    assert result.returncode == 0, result.stdout[-8000:]
    assert "All 4 array tasks and the 3 chained jobs completed" in result.stdout


def test_secrets_never_reach_the_verbose_log(lab: Lab) -> None:
    key = docker_exec("pilot-ctl01", "base64", "-w0", "/etc/munge/munge.key").strip()
    conf = docker_exec("pilot-dbd01", "cat", "/etc/slurm/slurmdbd.conf")
    password = re.search(r"^StoragePass=(.+)$", conf, re.M)
    assert password and len(password.group(1)) == 32
    assert len(key) >= 128  # mungekey writes 1024 random bits
    assert "ESTABLISH DOCKER CONNECTION" in lab.converge_log  # it is the -vvv log
    assert key not in lab.converge_log and key[:64] not in lab.converge_log
    assert password.group(1) not in lab.converge_log
    exporter_cnf = docker_exec("pilot-dbd01", "cat", "/etc/prometheus/mysqld-exporter.cnf")
    exporter_password = re.search(r"^password=(.+)$", exporter_cnf, re.M)
    assert exporter_password and len(exporter_password.group(1)) == 32
    assert exporter_password.group(1) not in lab.converge_log


def test_secret_files_are_private_and_the_key_is_the_same_everywhere(lab: Lab) -> None:
    sums = {host: docker_exec(host, "sha256sum", "/etc/munge/munge.key").split()[0] for host in HOSTS}
    assert len(set(sums.values())) == 1, sums
    for host in HOSTS:
        assert docker_exec(host, "stat", "-c", "%a %U", "/etc/munge/munge.key").strip() == "400 munge"
    assert docker_exec("pilot-dbd01", "stat", "-c", "%a %U", "/etc/slurm/slurmdbd.conf").strip() == "600 slurm"
    for path in ("/etc/prometheus/mysqld-exporter.cnf", "/etc/prometheus/alertmanager.yml"):
        assert docker_exec("pilot-dbd01", "stat", "-c", "%a %U %G", path).strip() == "640 root prometheus", path
    users = {host: docker_exec(host, "id", "-u", "munge").strip() for host in HOSTS}
    assert set(users.values()) == {"64031"}, users


def test_bad_inventory_stops_before_any_host_is_changed(lab: Lab) -> None:
    before = docker_exec("pilot-ctl01", "sha256sum", "/etc/slurm/slurm.conf")
    result = molecule(
        "converge", "-s", "pilot", "--", "-e", '{"cluster_partitions": [{"name": "gpu", "node_types": ["a100"]}]}'
    )
    assert result.returncode != 0
    assert "node type 'a100' is not declared in cluster_node_types" in result.stdout
    assert "compute hosts pilot-gpu[01-02] are in no partition" in result.stdout
    assert not any(host in recap(result.stdout) for host in HOSTS), "a managed host ran a task"
    assert docker_exec("pilot-ctl01", "sha256sum", "/etc/slurm/slurm.conf") == before
    result = molecule(
        "converge", "-s", "pilot", "--", "-e", '{"monitoring_alertmanager_route": {"receiver": "nobody"}}'
    )
    assert result.returncode != 0
    assert "receiver nobody is not in monitoring_alertmanager_receivers (hpc-oncall, hpc-tickets)" in result.stdout
    assert not any(host in recap(result.stdout) for host in HOSTS), "a managed host ran a task"
