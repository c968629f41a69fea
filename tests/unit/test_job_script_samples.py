"""The prolog/epilog samples that run as root: job-env never writes through a path another user controls;
gpu-clean spares only the processes in the cgroups Slurm itself makes for jobs."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers.tools import ROOT

SAMPLES = ROOT / "roles" / "cluster" / "files" / "job_scripts"


def quiet_logger(tmp_path: Path) -> Path:
    """A bin directory whose logger writes to a file instead of syslog."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    logger = bin_dir / "logger"
    logger.write_text(f'#!/bin/sh\necho "$*" >>"{tmp_path}/log"\n')
    logger.chmod(0o755)
    return bin_dir


def job_env(tmp_path: Path, directory: Path, job: str = "42") -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": f"{quiet_logger(tmp_path)}:/usr/bin:/bin",
        "SLURM_JOB_ID": job,
        "SLURM_JOB_USER": "alice",
        "JOB_ENV_DIR": str(directory),
    }
    return subprocess.run([str(SAMPLES / "job-env")], env=env, capture_output=True, text=True, check=False)


@pytest.mark.skipif(os.geteuid() != 0, reason="the directories' owner is checked against root: run as root")
def test_job_env_writes_a_private_record(tmp_path: Path) -> None:
    directory = tmp_path / "gpucluster" / "jobs"
    assert job_env(tmp_path, directory).returncode == 0
    record = directory / "42.env"
    assert "SLURM_JOB_USER=alice" in record.read_text()
    assert oct(directory.stat().st_mode & 0o777) == "0o700" and oct(record.stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in directory.iterdir()] == ["42.env"]  # no temporary file left


@pytest.mark.skipif(os.geteuid() != 0, reason="the directories' owner is checked against root: run as root")
def test_job_env_never_writes_through_a_planted_symlink(tmp_path: Path) -> None:
    """A directory or record replaced by a symlink (the attack on /var/log/slurm, which the slurm user owns):
    nothing is written where it points."""
    target = tmp_path / "etc"
    target.mkdir()
    parent = tmp_path / "gpucluster"
    parent.mkdir()
    (parent / "jobs").symlink_to(target)
    assert job_env(tmp_path, parent / "jobs").returncode == 0
    assert list(target.iterdir()) == []
    assert "is not a directory of root's own; nothing written" in (tmp_path / "log").read_text()
    # a record planted as a symlink is replaced, not followed
    (parent / "jobs").unlink()
    (parent / "jobs").mkdir(mode=0o700)
    (parent / "jobs" / "43.env").symlink_to(target / "passwd")
    assert job_env(tmp_path, parent / "jobs", "43").returncode == 0
    assert not (target / "passwd").exists() and not (parent / "jobs" / "43.env").is_symlink()
    assert job_env(tmp_path, parent / "jobs", "../../x").returncode == 0
    assert not (tmp_path / "x.env").exists()


# /proc/<pid>/cgroup of processes holding the job's GPUs: only the first two are in a job's cgroup
CGROUPS = {
    "v1 job": "12:memory:/slurm/uid_2001/job_7/step_0/task_0\n1:name=systemd:/user.slice\n",
    "v2 job": "0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0\n",
    "user scope named job_1": "0::/user.slice/user-2001.slice/user@2001.service/app.slice/job_1.scope\n",
    "user tree named like Slurm's": "0::/user.slice/user-2001.slice/user@2001.service/slurmstepd.scope/job_1\n",
    "v1 user tree": "1:name=systemd:/user.slice/user-2001.slice/slurm/uid_2001/job_1\n",
}


def test_gpu_clean_spares_only_processes_in_slurms_own_job_cgroups(tmp_path: Path) -> None:
    sleepers = {name: subprocess.Popen(["sleep", "300"]) for name in CGROUPS}
    try:
        proc = tmp_path / "proc"
        for name, process in sleepers.items():
            (proc / str(process.pid)).mkdir(parents=True)
            (proc / str(process.pid) / "cgroup").write_text(CGROUPS[name])
        bin_dir = quiet_logger(tmp_path)
        pids = "\n".join(str(process.pid) for process in sleepers.values())
        smi = bin_dir / "nvidia-smi"
        smi.write_text(f"#!/bin/sh\nprintf '%s\\n' {pids.replace(chr(10), ' ')}\n")
        smi.chmod(0o755)
        env = {
            "PATH": f"{bin_dir}:/usr/bin:/bin",
            "SLURM_JOB_ID": "7",
            "SLURM_JOB_GPUS": "0",
            "SLURM_JOB_UID": str(os.geteuid()),
            "GPU_CLEAN_PROC": str(proc),
        }
        done = subprocess.run([str(SAMPLES / "gpu-clean")], env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        spared = ["v1 job", "v2 job"]
        for name, process in sleepers.items():
            if name not in spared:  # killed: reaped at once (a survivor fails the assertion below)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=5)
        alive = sorted(name for name, process in sleepers.items() if process.poll() is None)
        assert alive == spared
        assert "stray processes killed:" in (tmp_path / "log").read_text()
    finally:
        for process in sleepers.values():
            process.kill()
            process.wait()
