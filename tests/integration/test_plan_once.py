"""The cluster model is built once per pod per run (issue 26): the opening validation builds it, and every later
play's roles take the plan from there while it stands for the inventory; a group added during the run makes the
next play build its own. Counted in every process of the run (tests/helpers/count_builds)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from .conftest import ANSIBLE_PLAYBOOK, ROOT

HOOK = ROOT / "tests" / "helpers" / "count_builds"


def _builds(tmp_path: Path, inventory: str, *extra: str) -> int:
    log = tmp_path / "builds"
    log.unlink(missing_ok=True)
    command = [str(ANSIBLE_PLAYBOOK), "-i", str(ROOT / "inventories" / inventory)]
    command += [str(ROOT / "tests/integration/playbooks/plan_once.yml"), *extra]
    env = {**os.environ, "PYTHONPATH": str(HOOK), "GPUCLUSTER_COUNT_BUILDS": str(log)}
    out = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    return len(log.read_text().splitlines()) if log.exists() else 0


@pytest.mark.parametrize(
    ("inventory", "hosts", "pods"),
    [
        ("pilot", "all", 1),
        # both pods' controllers and the shared dbd hosts (in no pod); not the 1,280 compute hosts, whose set_fact
        # tasks would only cost Ansible's per-host time
        ("federation", "controllers:dbd:login", 2),
    ],
)
def test_the_model_is_built_once_per_pod_in_a_run(tmp_path: Path, inventory: str, hosts: str, pods: int) -> None:
    assert _builds(tmp_path, inventory, "-e", f"plan_test_hosts={hosts}") == pods


def test_a_plan_that_no_longer_stands_for_the_inventory_is_built_anew(tmp_path: Path) -> None:
    assert _builds(tmp_path, "pilot", "-e", "plan_test_add_group=true") == 2
