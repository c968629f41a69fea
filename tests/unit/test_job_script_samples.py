"""The prolog/epilog samples that run as root: job-env never writes through a path another user controls;
gpu-clean spares only the processes in the cgroups Slurm itself makes for jobs."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers.tools import ROOT, stand_in

SAMPLES = ROOT / "roles" / "cluster" / "files" / "job_scripts"


def quiet_logger(tmp_path: Path) -> Path:
    """A bin directory whose logger writes to a file instead of syslog."""
    bin_dir = tmp_path / "bin"
    stand_in(bin_dir, "logger", f'#!/bin/sh\necho "$*" >>"{tmp_path}/log"\n')
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
        stand_in(bin_dir, "nvidia-smi", f"#!/bin/sh\nprintf '%s\\n' {pids.replace(chr(10), ' ')}\n")
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


def user_dirs(tmp_path: Path, patterns: list[str], uid: str = "2001") -> subprocess.CompletedProcess[str]:
    config = tmp_path / "user-dirs.conf"
    config.write_text("".join(f"{pattern}\n" for pattern in patterns))
    env = {
        "PATH": f"{quiet_logger(tmp_path)}:/usr/bin:/bin:/usr/sbin:/sbin",
        "SLURM_JOB_ID": "42",
        "SLURM_JOB_USER": "alice",
        "SLURM_JOB_UID": uid,
        "SLURM_JOB_GID": uid,
        "USER_DIRS_CONFIG": str(config),
    }
    return subprocess.run([str(SAMPLES / "user-dirs")], env=env, capture_output=True, text=True, check=False)


def owner_and_mode(path: Path) -> tuple[int, str]:
    status = path.lstat()
    return status.st_uid, oct(status.st_mode & 0o7777)


@pytest.mark.skipif(os.geteuid() != 0, reason="the directories are handed to another user: run as root")
def test_user_dirs_makes_each_users_own_directory_in_a_parent_of_roots(tmp_path: Path) -> None:
    oci, enroot = tmp_path / "slurm-oci", tmp_path / "enroot"
    oci.mkdir(mode=0o711)
    oci.chmod(0o711)
    assert user_dirs(tmp_path, [f"{oci}/{{user}}", f"{enroot}/user-{{uid}}", "# a comment"]).returncode == 0
    assert owner_and_mode(oci / "alice") == (2001, "0o700")
    assert owner_and_mode(enroot / "user-2001") == (2001, "0o700")
    assert owner_and_mode(enroot) == (0, "0o711")  # made when missing (/run after a reboot before tmpfiles)
    # the next job finds them as they are
    (oci / "alice" / "state.json").write_text("{}")
    assert user_dirs(tmp_path, [f"{oci}/{{user}}"]).returncode == 0
    assert (oci / "alice" / "state.json").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="the directories are handed to another user: run as root")
def test_user_dirs_replaces_what_another_user_left_or_planted(tmp_path: Path) -> None:
    parent = tmp_path / "slurm-oci"
    parent.mkdir(mode=0o711)
    parent.chmod(0o711)
    target = tmp_path / "elsewhere"
    target.mkdir()
    # mallory's directory under alice's name (made while the parent was 1777), then a symlink, then a file
    planted = parent / "alice"
    planted.mkdir()
    (planted / "state.json").write_text("mallory's")
    os.chown(planted, 2002, 2002)
    assert user_dirs(tmp_path, [f"{parent}/{{user}}"]).returncode == 0
    assert owner_and_mode(planted) == (2001, "0o700") and list(planted.iterdir()) == []
    assert "belonged to uid 2002, not alice's (2001); replaced" in (tmp_path / "log").read_text()
    planted.rmdir()
    planted.symlink_to(target)
    assert user_dirs(tmp_path, [f"{parent}/{{user}}"]).returncode == 0
    assert not planted.is_symlink() and owner_and_mode(planted) == (2001, "0o700")
    assert owner_and_mode(target)[0] == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="the directories' owner is checked against root: run as root")
def test_user_dirs_makes_nothing_under_a_parent_others_may_write(tmp_path: Path) -> None:
    parent = tmp_path / "shared"
    parent.mkdir()
    parent.chmod(0o1777)
    assert user_dirs(tmp_path, [f"{parent}/{{user}}"]).returncode == 0
    assert list(parent.iterdir()) == []
    assert "is not a directory of root's own that only root may write" in (tmp_path / "log").read_text()
    parent.chmod(0o711)
    os.chown(parent, 2002, 2002)
    assert user_dirs(tmp_path, [f"{parent}/{{user}}"]).returncode == 0
    assert list(parent.iterdir()) == []


def test_user_dirs_does_nothing_for_an_unusable_user(tmp_path: Path) -> None:
    parent = tmp_path / "slurm-oci"
    parent.mkdir(mode=0o711)
    assert user_dirs(tmp_path, [f"{parent}/{{uid}}"], uid="../1").returncode == 0
    assert list(parent.iterdir()) == []
    assert "no usable SLURM_JOB_UID" in (tmp_path / "log").read_text()
