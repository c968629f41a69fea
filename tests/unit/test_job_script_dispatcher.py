"""The job script dispatcher (/etc/slurm/<kind>): runs <kind>.d/* in order; a prolog stops at the first
failure, an epilog runs every script and returns the first failure."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers.tools import ROOT

DISPATCHER = ROOT / "roles" / "cluster" / "files" / "gpucluster-job-scripts"


def _install(tmp_path: Path, kind: str, scripts: dict[str, int]) -> Path:
    program = tmp_path / kind
    shutil.copy(DISPATCHER, program)
    (tmp_path / f"{kind}.d").mkdir()
    for name, status in scripts.items():
        script = tmp_path / f"{kind}.d" / name
        script.write_text(f'#!/bin/sh\necho "{name} $SLURM_JOB_ID" >> "{tmp_path}/ran"\nexit {status}\n')
        script.chmod(0o755)
    (tmp_path / f"{kind}.d" / "README").write_text("not executable: skipped\n")
    return program


def _run(program: Path) -> tuple[int, list[str]]:
    done = subprocess.run([str(program)], env={"SLURM_JOB_ID": "42", "PATH": "/usr/bin:/bin"}, check=False)
    ran = program.parent / "ran"
    return done.returncode, ran.read_text().splitlines() if ran.exists() else []


def test_scripts_run_in_name_order_with_slurms_environment(tmp_path: Path) -> None:
    program = _install(tmp_path, "prolog", {"20-b": 0, "10-a": 0, "30-c": 0})
    assert _run(program) == (0, ["10-a 42", "20-b 42", "30-c 42"])


@pytest.mark.parametrize("kind", ["prolog", "prolog_slurmctld"])
def test_a_prolog_stops_at_the_first_failure(tmp_path: Path, kind: str) -> None:
    program = _install(tmp_path, kind, {"10-a": 0, "20-b": 3, "30-c": 0})
    assert _run(program) == (3, ["10-a 42", "20-b 42"])


@pytest.mark.parametrize("kind", ["epilog", "epilog_slurmctld"])
def test_an_epilog_runs_every_script_and_returns_the_first_failure(tmp_path: Path, kind: str) -> None:
    program = _install(tmp_path, kind, {"10-a": 5, "20-b": 0, "30-c": 7})
    assert _run(program) == (5, ["10-a 42", "20-b 42", "30-c 42"])


def test_an_empty_directory_succeeds(tmp_path: Path) -> None:
    assert _run(_install(tmp_path, "epilog", {})) == (0, [])
