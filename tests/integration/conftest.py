"""Fixtures for tests that render with the real playbook and load the result into a real slurmctld."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ANSIBLE_PLAYBOOK = ROOT / ".venv" / "bin" / "ansible-playbook"


def render_inventory(inventory: Path, out: Path, release: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run playbooks/render.yml on ``inventory`` into ``out`` (optionally for another Slurm release)."""
    command = [
        str(ANSIBLE_PLAYBOOK) if ANSIBLE_PLAYBOOK.exists() else "ansible-playbook",
        "-i",
        str(inventory),
        str(ROOT / "playbooks" / "render.yml"),
        "-e",
        f"cluster_config_dir={out}",
    ]
    if release:
        command += ["-e", f"cluster_slurm_release={release}"]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900, check=False)


@pytest.fixture(scope="session")
def docker_lab() -> None:
    """The lab images must exist; only an explicit opt-out skips the slurmctld tests."""
    if os.environ.get("GPUCLUSTER_SKIP_SLURMCTLD") == "1":
        pytest.skip("GPUCLUSTER_SKIP_SLURMCTLD=1: real-slurmctld tests skipped on request")
    if shutil.which("docker") is None:
        pytest.fail("docker is not installed: run scripts/bootstrap.sh (or set GPUCLUSTER_SKIP_SLURMCTLD=1)")
    missing = [
        suite
        for suite in ("bookworm", "trixie", "sid")
        if subprocess.run(
            ["docker", "image", "inspect", f"gpucluster/lab:{suite}"], capture_output=True, check=False
        ).returncode
        != 0
    ]
    if missing:
        pytest.fail(f"lab images missing for {', '.join(missing)}: run lab/images/build.sh {' '.join(missing)}")
