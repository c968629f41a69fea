"""The dcgm-job-map prolog and dcgm-job-unmap epilog samples: the GPU -> job map dcgm-exporter reads."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers.tools import ROOT

SAMPLES = ROOT / "roles" / "cluster" / "files" / "job_scripts"


def _script(tmp_path: Path, name: str) -> Path:
    """The sample with its map directory moved under tmp_path."""
    text = (SAMPLES / name).read_text().replace("dir=/run/gpucluster/dcgm-job-map", f"dir={tmp_path}/map")
    assert f"dir={tmp_path}/map" in text
    script = tmp_path / name
    script.write_text(text)
    script.chmod(0o755)
    return script


def _run(script: Path, job: str, gpus: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "SLURM_JOB_ID": job, "SLURM_JOB_GPUS": gpus}
    assert subprocess.run([str(script)], env=env, check=False).returncode == 0


def _map(tmp_path: Path) -> dict[str, list[str]]:
    return {p.name: p.read_text().split() for p in sorted((tmp_path / "map").iterdir()) if p.name != ".lock"}


def test_jobs_are_mapped_to_their_gpus_and_taken_out_at_the_end(tmp_path: Path) -> None:
    prolog, epilog = _script(tmp_path, "dcgm-job-map"), _script(tmp_path, "dcgm-job-unmap")
    _run(prolog, "101", "0,1")
    _run(prolog, "102", "2")
    _run(prolog, "103", "2")  # a shared GPU (sharding/MPS): one job id per line
    assert _map(tmp_path) == {"0": ["101"], "1": ["101"], "2": ["102", "103"]}
    _run(epilog, "101", "0,1")
    _run(epilog, "102", "2")
    assert _map(tmp_path) == {"2": ["103"]}
    _run(epilog, "103", "2")
    assert _map(tmp_path) == {}


def test_a_job_without_gpus_changes_nothing(tmp_path: Path) -> None:
    _run(_script(tmp_path, "dcgm-job-map"), "104", "")
    assert not (tmp_path / "map").exists()
    _run(_script(tmp_path, "dcgm-job-unmap"), "104", "")
