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


def _counted(tmp_path: Path, variable: str, inventory: str, *extra: str) -> list[str]:
    """The lines the hook wrote for ``variable`` in a run of plan_once.yml."""
    log = tmp_path / variable
    log.unlink(missing_ok=True)
    command = [str(ANSIBLE_PLAYBOOK), "-i", str(ROOT / "inventories" / inventory)]
    command += [str(ROOT / "tests/integration/playbooks/plan_once.yml"), *extra]
    env = {**os.environ, "PYTHONPATH": str(HOOK), variable: str(log)}
    out = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    return log.read_text().splitlines() if log.exists() else []


def _builds(tmp_path: Path, inventory: str, *extra: str) -> int:
    return len(_counted(tmp_path, "GPUCLUSTER_COUNT_BUILDS", inventory, *extra))


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


def test_the_collections_filters_are_loaded_once_for_the_run_not_in_each_worker(tmp_path: Path) -> None:
    """Ansible forks a worker for each host and task, and a worker that meets one of the collection's filters loads
    every filter file (and the model behind them) again, unless the main process loaded them before forking: the
    opening play's hosts (filter validation_host) has it do so. Before that, this run of 20 hosts loaded the filter
    files in 107 processes (22 s of CPU instead of 6)."""
    loads = [
        line.split()
        for line in _counted(tmp_path, "GPUCLUSTER_COUNT_PLUGIN_LOADS", "pilot", "-e", "plan_test_hosts=all")
    ]
    filters = {(pid, module) for pid, module in loads if ".plugins.filter." in module}
    assert filters, "the hook saw no filter load: it no longer wraps Ansible's plugin loader"
    assert len({pid for pid, _ in filters}) == 1, sorted(filters)


def test_the_plan_in_the_fact_cache_is_plain_data(tmp_path: Path) -> None:
    """The plan left on localhost is kept by the fact cache and decoded for every task there: the inventory's strings
    in it carry no Ansible tags (their origin, trusted as a template), which made it three times the size and
    fifteen times slower to decode."""
    cache = tmp_path / "facts"
    command = [str(ANSIBLE_PLAYBOOK), "-i", str(ROOT / "inventories" / "pilot"), "playbooks/boilerplate.yml"]
    env = {**os.environ, "ANSIBLE_CACHE_PLUGIN": "jsonfile", "ANSIBLE_CACHE_PLUGIN_CONNECTION": str(cache)}
    out = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stdout[-4000:]
    [name] = [path.name for path in cache.iterdir() if path.name.endswith("_localhost")]
    kept = (cache / name).read_text()
    assert '\\"name\\": \\"pilot\\"' in kept, kept[:500]
    assert "__ansible_type" not in kept and "TrustedAsTemplate" not in kept, kept[:500]
