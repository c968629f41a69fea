"""gpucluster-oci-run (containers role): which GPU device files a container step gets, and that the user's own
config.json is never rewritten. The runtime is exec'd for real (cat, false) in the end-to-end cases."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.tools import ROOT, load_tool

oci = load_tool("containers", "gpucluster-oci-run")
PROGRAM = ROOT / "roles" / "containers" / "files" / "gpucluster-oci-run"
MAP = ["/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2", "/dev/nvidia3"]


def stepd_bundle(tmp_path: Path, env: list[str], root: str = "/home/alice/bundle/rootfs") -> Path:
    """A spool directory as slurmstepd leaves it: config.json with the step's environment and root.path at the
    user's bundle."""
    spool = tmp_path / "spool"
    spool.mkdir(parents=True)
    config = {
        "root": {"path": root},
        "process": {"env": ["PATH=/usr/bin", *env]},
        "mounts": [{"destination": "/proc", "type": "proc", "source": "proc"}],
    }
    (spool / "config.json").write_text(json.dumps(config))
    return spool


def gpu_map(tmp_path: Path, devices: list[str] = MAP) -> Path:
    path = tmp_path / "oci-gpus.json"
    path.write_text(json.dumps({"devices": devices}))
    return path


def mounts(bundle: Path) -> list[dict[str, Any]]:
    return list(json.loads((bundle / "config.json").read_text())["mounts"])


@pytest.fixture(autouse=True)
def no_control_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(oci, "CONTROL_DEVICES", ())


def test_the_steps_gpus_are_bound_by_slurms_index_and_nothing_else(tmp_path: Path) -> None:
    bundle = stepd_bundle(tmp_path, ["SLURM_STEP_GPUS=1,3", "SLURM_JOB_GPUS=0,1,2,3", "CUDA_VISIBLE_DEVICES=0,1"])
    said = oci.prepare(bundle, gpu_map(tmp_path))
    binds = [m for m in mounts(bundle) if m["type"] == "bind"]
    assert [(m["source"], m["destination"]) for m in binds] == [("/dev/nvidia1",) * 2, ("/dev/nvidia3",) * 2]
    assert all("nodev" not in m["options"] for m in binds)
    assert mounts(bundle)[0]["destination"] == "/proc"  # the rest of config.json is kept
    assert "[1, 3]" in said


def test_a_batch_step_uses_the_jobs_gpus(tmp_path: Path) -> None:
    bundle = stepd_bundle(tmp_path, ["SLURM_JOB_GPUS=2"])
    oci.prepare(bundle, gpu_map(tmp_path))
    assert [m["source"] for m in mounts(bundle) if m["type"] == "bind"] == ["/dev/nvidia2"]


def test_the_drivers_control_devices_go_with_the_gpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    control = tmp_path / "nvidiactl"
    control.touch()
    monkeypatch.setattr(oci, "CONTROL_DEVICES", (str(control), str(tmp_path / "nvidia-uvm")))
    bundle = stepd_bundle(tmp_path, ["SLURM_STEP_GPUS=0"])
    oci.prepare(bundle, gpu_map(tmp_path))
    assert [m["source"] for m in mounts(bundle) if m["type"] == "bind"] == ["/dev/nvidia0", str(control)]


def test_a_second_pass_gives_the_same_file(tmp_path: Path) -> None:
    bundle = stepd_bundle(tmp_path, ["SLURM_STEP_GPUS=0,1"])
    oci.prepare(bundle, gpu_map(tmp_path))
    first = (bundle / "config.json").read_text()
    oci.prepare(bundle, gpu_map(tmp_path))
    assert (bundle / "config.json").read_text() == first


def test_a_step_without_gpus_and_the_users_own_file_are_left_alone(tmp_path: Path) -> None:
    bundle = stepd_bundle(tmp_path, ["SLURM_JOB_ID=7"])
    before = (bundle / "config.json").read_text()
    assert oci.prepare(bundle, gpu_map(tmp_path)) == "the step has no GPUs"
    assert (bundle / "config.json").read_text() == before
    own = stepd_bundle(tmp_path / "own", ["SLURM_STEP_GPUS=0"], root="rootfs")
    before = (own / "config.json").read_text()
    assert "left as it is" in oci.prepare(own, gpu_map(tmp_path))
    assert (own / "config.json").read_text() == before
    inside = stepd_bundle(tmp_path / "inside", ["SLURM_STEP_GPUS=0"], root=str(tmp_path / "inside" / "spool" / "r"))
    assert "left as it is" in oci.prepare(inside, gpu_map(tmp_path))


def test_indices_the_map_does_not_know_are_refused(tmp_path: Path) -> None:
    bundle = stepd_bundle(tmp_path, ["SLURM_STEP_GPUS=1,4"])
    with pytest.raises(oci.Refused, match=r"GPU indices \[4\] are beyond the 4 GPUs"):
        oci.prepare(bundle, gpu_map(tmp_path))
    for bad in ("", "[]", '{"devices": "/dev/nvidia0"}'):
        (tmp_path / "oci-gpus.json").write_text(bad)
        with pytest.raises(oci.Refused, match="run the containers role again"):
            oci.prepare(bundle, tmp_path / "oci-gpus.json")
    odd = stepd_bundle(tmp_path / "odd", ["SLURM_STEP_GPUS=gpu:1"])
    with pytest.raises(oci.Refused, match="not a list of GPU indices"):
        oci.prepare(odd, gpu_map(tmp_path))


def test_without_an_index_order_the_gpus_the_step_may_open_are_bound(tmp_path: Path) -> None:
    present = ["/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2"]
    allowed = {"/dev/nvidia1"}
    chosen = oci.gpu_files([0], [], present=lambda: present, allowed=lambda path: path in allowed)
    assert chosen == ["/dev/nvidia1"]


def test_device_files_are_found_in_numeric_order_and_denials_are_told_apart(tmp_path: Path) -> None:
    for name in ("nvidia10", "nvidia2", "nvidiactl", "nvidia-uvm"):
        (tmp_path / name).touch()
    assert oci.node_gpu_files(tmp_path) == [str(tmp_path / "nvidia2"), str(tmp_path / "nvidia10")]
    assert oci.may_open("/dev/null")
    assert not oci.may_open(str(tmp_path / "absent"))


def test_the_program_rewrites_then_runs_the_runtime(tmp_path: Path) -> None:
    bundle = stepd_bundle(tmp_path, ["SLURM_STEP_GPUS=2"])
    args = [sys.executable, str(PROGRAM), "--gpu-map", str(gpu_map(tmp_path)), "--bundle", str(bundle), "--verbose"]
    ran = subprocess.run([*args, "--", "cat", str(bundle / "config.json")], capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr
    assert "/dev/nvidia2" in [m["source"] for m in json.loads(ran.stdout)["mounts"]]
    assert "bound /dev/nvidia2" in ran.stderr
    refused = stepd_bundle(tmp_path / "refused", ["SLURM_STEP_GPUS=9"])
    args[args.index(str(bundle))] = str(refused)
    ran = subprocess.run([*args, "--", "echo", "started"], capture_output=True, text=True, check=False)
    assert ran.returncode == 1 and "started" not in ran.stdout
    assert "gpucluster-oci-run: refused: GPU indices [9]" in ran.stderr
