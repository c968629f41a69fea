"""The pacemaker role's check of each controller pair's StateSaveLocation (its `shared_state` entry point, which the
role runs before Pacemaker is set up), run by Ansible on a lab container: the two pods of a federation given one
StateSaveLocation on one file system are refused - each slurmctld would write over the other pod's job state, or
stop on it (CLUSTER NAME MISMATCH) - and the same pods with a directory each pass. The four controllers' inventory
names all reach one container (one file system: what a share mounted on every pod's pair looks like to them)."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from .conftest import ANSIBLE_PLAYBOOK, ROOT

pytestmark = pytest.mark.slurmctld

PLAY = """
- name: The pairs' StateSaveLocation
  hosts: controllers
  gather_facts: false
  tasks:
    - name: Check it as the pacemaker role does
      ansible.builtin.include_role:
        name: gpucluster.cluster.pacemaker
        tasks_from: shared_state
"""
PAIRS = {"pod1": ["fed-p1a", "fed-p1b"], "pod2": ["fed-p2a", "fed-p2b"]}


@pytest.fixture(scope="module")
def container(docker_lab: None) -> Iterator[str]:
    """A lab container (it has the slurm user) with three empty directories owned by slurm."""
    name = f"gpucluster-shared-state-{uuid.uuid4().hex[:8]}"
    started = ["docker", "run", "-d", "--rm", "--name", name, "gpucluster/lab:trixie", "sleep", "600"]
    subprocess.run(started, check=True, capture_output=True, timeout=120)
    try:
        make = "mkdir -p /srv/shared /srv/p1 /srv/p2 && chown slurm: /srv/shared /srv/p1 /srv/p2"
        subprocess.run(["docker", "exec", name, "bash", "-c", make], check=True, capture_output=True, timeout=60)
        yield name
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=60, check=False)


def _run(tmp_path: Path, container: str, federation: dict[str, object]) -> subprocess.CompletedProcess[str]:
    hosts = [host for pair in PAIRS.values() for host in pair]
    inventory = {
        "all": {
            "vars": {
                "ansible_connection": "community.docker.docker",
                "ansible_host": container,
                "ansible_python_interpreter": "/usr/bin/python3",
                "cluster_federation": federation,
                "cluster_slurm_config": {"StateSaveLocation": "/srv/shared"},
            },
            "children": {
                "controllers": {"hosts": dict.fromkeys(hosts)},
                **{pod: {"hosts": dict.fromkeys(pair)} for pod, pair in PAIRS.items()},
            },
        }
    }
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump(inventory))
    (tmp_path / "play.yml").write_text(PLAY)
    command = [str(ANSIBLE_PLAYBOOK), "-i", str(tmp_path / "hosts.yml"), str(tmp_path / "play.yml")]
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_STDOUT_CALLBACK": "default"}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


def _marker(container: str, directory: str) -> str:
    shown = ["docker", "exec", container, "cat", f"{directory}/.gpucluster-shared"]
    return subprocess.run(shown, capture_output=True, text=True, timeout=60, check=True).stdout


def test_two_pods_on_one_state_directory_are_refused(tmp_path: Path, container: str) -> None:
    result = _run(tmp_path, container, {"name": "fed", "pods": {"pod1": {}, "pod2": {}}})
    out = " ".join(result.stdout.split())
    assert result.returncode != 0, out[-3000:]
    # the primaries write in parallel: the pair whose marker was overwritten is refused, naming the other pair
    written = _marker(container, "/srv/shared").strip()
    assert written in (
        "StateSaveLocation shared by fed-p1a and fed-p1b",
        "StateSaveLocation shared by fed-p2a and fed-p2b",
    )
    losers = PAIRS["pod1"] if written.endswith("fed-p2b") else PAIRS["pod2"]
    for host in losers:
        assert (
            f"{host}: /srv/shared/.gpucluster-shared says '{written}', not {' and '.join(losers)}: this pair's "
            "StateSaveLocation is the directory of other controllers too" in out
        ), out[-3000:]


def test_the_same_pods_with_a_directory_each_pass(tmp_path: Path, container: str) -> None:
    pods = {
        "pod1": {"slurm_config": {"StateSaveLocation": "/srv/p1"}},
        "pod2": {"slurm_config": {"StateSaveLocation": "/srv/p2"}},
    }
    result = _run(tmp_path, container, {"name": "fed", "pods": pods})
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert _marker(container, "/srv/p1") == "StateSaveLocation shared by fed-p1a and fed-p1b\n"
    assert _marker(container, "/srv/p2") == "StateSaveLocation shared by fed-p2a and fed-p2b\n"
    again = _run(tmp_path, container, {"name": "fed", "pods": pods})
    assert again.returncode == 0 and "changed=0" in again.stdout, again.stdout[-3000:]
