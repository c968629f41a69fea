"""The GPU node check: each check against a fake host, and the drain/resume decisions against a fake scontrol."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.helpers.fake_slurm import FakeScontrol
from tests.helpers.tools import load_tool

check = load_tool("gpu", "gpucluster-gpu-check")

CONFIG = {
    "node": "gpu01",
    "type": "h100",
    "nvml_name": "NVIDIA H100",
    "count": 2,
    "devices": ["/dev/nvidia0", "/dev/nvidia1"],
    "autodetect": "off",
    "hardware": False,
    "persistence": True,
    "rdma_active_ports": 0,
    "dcgm": False,
    "conf_cache": "/var/spool/slurmd/conf-cache/slurm.conf",
}


class FakeSlurm(FakeScontrol):
    """Answers scontrol and slurmd -G like the real tools, and records updates."""

    def __init__(self, state: str = "IDLE", reason: str = "", gres: str = "") -> None:
        super().__init__(state, reason)
        self.gres = gres

    def __call__(self, argv: Sequence[str]) -> tuple[int, str]:
        self.calls.append(list(argv))
        answer = self.scontrol(argv)
        if answer is not None:
            return answer
        if argv[:2] == ["slurmd", "-G"]:
            return 0, self.gres
        raise AssertionError(argv)


def _host(tmp_path: Path, *devices: str) -> Path:
    (tmp_path / "dev").mkdir()
    for name in devices:
        (tmp_path / "dev" / name).touch()
    return tmp_path


def test_missing_device_file_is_named(tmp_path: Path) -> None:
    root = _host(tmp_path, "nvidia0")
    assert check.problems_of(CONFIG, root, FakeSlurm(), gres=False) == ["missing /dev/nvidia1"]


def test_autodetect_counts_device_files(tmp_path: Path) -> None:
    root = _host(tmp_path, "nvidia0", "nvidiactl")
    config = {**CONFIG, "autodetect": "nvml"}
    assert check.check_devices(config, root) == ["1 of 2 /dev/nvidiaN device files"]


def test_hardware_node_needs_pci_gpus_and_driver(tmp_path: Path) -> None:
    root = _host(tmp_path, "nvidia0", "nvidia1")
    pci = root / "sys/bus/pci/devices/0000:18:00.0"
    pci.mkdir(parents=True)
    (pci / "vendor").write_text("0x10de\n")
    (pci / "class").write_text("0x030200\n")
    config = {**CONFIG, "hardware": True}
    assert check.problems_of(config, root, FakeSlurm(), gres=False) == [
        "1 of 2 GPUs on the PCI bus",
        "nvidia kernel module not loaded",
    ]


def test_smi_reports_count_model_persistence_and_ecc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "proc/driver/nvidia").mkdir(parents=True)
    (tmp_path / "proc/driver/nvidia/version").write_text("NVRM version: ... Kernel Module  550.163.01\n")
    monkeypatch.setattr(check.shutil, "which", lambda name: f"/usr/bin/{name}")
    out = (
        "0, NVIDIA H100 80GB HBM3, Enabled, 0\n"
        "1, NVIDIA A100-SXM4-80GB, Disabled, 3\n"
        "2, NVIDIA H100 80GB HBM3, Enabled, [N/A]"
    )
    problems = check.check_smi({**CONFIG, "hardware": True}, tmp_path, lambda argv: (0, out))
    assert problems == [
        "nvidia-smi sees 3 of 2 GPUs",
        "GPU 1 is a NVIDIA A100-SXM4-80GB, inventory declares nvidia h100",
        "persistence mode off on GPU 1",
        "uncorrected ECC errors on GPU 1",
    ]
    failed = check.check_smi(
        {**CONFIG, "hardware": True},
        tmp_path,
        lambda argv: (15, "Unable to determine the device handle for GPU0000:18:00.0: Unknown Error"),
    )
    assert failed == ["nvidia-smi failed: Unable to determine the device handle for GPU0000:18:00.0: Unknown Error"]


def test_rdma_active_ports(tmp_path: Path) -> None:
    for device, state in (("mlx5_0", "4: ACTIVE"), ("mlx5_1", "1: DOWN")):
        port = tmp_path / "sys/class/infiniband" / device / "ports/1"
        port.mkdir(parents=True)
        (port / "state").write_text(state + "\n")
    assert check.check_rdma({**CONFIG, "rdma_active_ports": 2}, tmp_path) == ["1 of 2 RDMA ports ACTIVE"]
    assert check.check_rdma({**CONFIG, "rdma_active_ports": 1}, tmp_path) == []


def test_gres_compares_slurmd_with_inventory(tmp_path: Path) -> None:
    good = "slurmd-gpu01: Gres Name=gpu Type=h100 Count=2 Index=0 ID=7696487 File=/dev/nvidia[0-1] (null)"
    assert check.check_gres(CONFIG, tmp_path, FakeSlurm(gres=good)) == []
    nvml = (
        "slurmd-gpu01: Gres Name=gpu Type=nvidia_h100_80gb_hbm3 Count=1 Index=0 ID=1 File=/dev/nvidia0 Links=-1,0\n"
        "slurmd-gpu01: Gres Name=gpu Type=nvidia_h100_80gb_hbm3 Count=1 Index=1 ID=1 File=/dev/nvidia1 Links=0,-1"
    )
    assert check.check_gres({**CONFIG, "autodetect": "nvml"}, tmp_path, FakeSlurm(gres=nvml)) == []
    short = "slurmd-gpu01: Gres Name=gpu Type=a100 Count=1 Index=0 ID=7696487 File=/dev/nvidia0 (null)"
    assert check.check_gres(CONFIG, tmp_path, FakeSlurm(gres=short)) == [
        "slurmd reports gpu count 1, inventory declares 2",
        "slurmd reports gpu type a100, inventory declares h100",
    ]
    fatal = "slurmd-gpu01: fatal: can't stat gres.conf file /dev/nvidia1: No such file or directory"
    assert check.check_gres(CONFIG, tmp_path, FakeSlurm(gres=fatal)) == [
        "slurmd -G found no gpu GRES: can't stat gres.conf file /dev/nvidia1: No such file or directory"
    ]


def test_configless_node_reads_the_config_cache(tmp_path: Path) -> None:
    cache = tmp_path / "var/spool/slurmd/conf-cache"
    cache.mkdir(parents=True)
    (cache / "slurm.conf").touch()
    slurm = FakeSlurm(gres="")
    check.check_gres(CONFIG, tmp_path, slurm)
    assert slurm.calls[-1] == ["slurmd", "-G", "-N", "gpu01", "-f", "/var/spool/slurmd/conf-cache/slurm.conf"]


def test_drain_then_resume_only_what_it_drained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config_file = tmp_path / "gpu-check.json"
    config_file.write_text(json.dumps(CONFIG))
    root = _host(tmp_path, "nvidia0")
    slurm = FakeSlurm()
    argv = ["--config", str(config_file), "--root", str(root), "--drain"]

    assert check.main(argv, slurm) == 1
    assert capsys.readouterr().out.strip() == "FAIL: missing /dev/nvidia1 (drained)"
    assert (slurm.state, slurm.reason) == ("IDLE+DRAIN", "gpu-check: missing /dev/nvidia1")

    assert check.main(argv, slurm) == 1  # same problem: no second update
    assert capsys.readouterr().out.strip() == "FAIL: missing /dev/nvidia1 (already drained)"
    assert sum(call[:2] == ["scontrol", "update"] for call in slurm.calls) == 1

    (root / "dev/nvidia1").touch()
    assert check.main(argv, slurm) == 0
    assert capsys.readouterr().out.strip() == "OK: 2 h100 GPUs (resumed)"
    assert slurm.state == "IDLE"


def test_admin_drain_is_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config_file = tmp_path / "gpu-check.json"
    config_file.write_text(json.dumps(CONFIG))
    root = _host(tmp_path, "nvidia0", "nvidia1")
    slurm = FakeSlurm(state="IDLE+DRAIN", reason="replacing PSU")
    assert check.main(["--config", str(config_file), "--root", str(root), "--drain"], slurm) == 0
    assert slurm.state == "IDLE+DRAIN" and slurm.reason == "replacing PSU"
    (root / "dev/nvidia1").unlink()
    assert check.main(["--config", str(config_file), "--root", str(root), "--drain"], slurm) == 1
    assert "left drained for: replacing PSU" in capsys.readouterr().out
    assert slurm.reason == "replacing PSU"
