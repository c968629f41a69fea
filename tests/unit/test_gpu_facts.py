"""gpu_facts reads a host's GPU stack from sysfs/procfs: a fake tree stands for the host."""

from __future__ import annotations

from pathlib import Path

from ansible_collections.gpucluster.cluster.plugins.modules.gpu_facts import gpu_host


def _pci(root: Path, address: str, vendor: str, pci_class: str, device: str = "0x2330") -> None:
    path = root / "sys/bus/pci/devices" / address
    path.mkdir(parents=True)
    (path / "vendor").write_text(vendor + "\n")
    (path / "class").write_text(pci_class + "\n")
    (path / "device").write_text(device + "\n")


def _port(root: Path, device: str, port: str, state: str, layer: str = "InfiniBand") -> None:
    path = root / "sys/class/infiniband" / device / "ports" / port
    path.mkdir(parents=True)
    (path / "state").write_text(state + "\n")
    (path / "phys_state").write_text("5: LinkUp\n")
    (path / "link_layer").write_text(layer + "\n")
    (path / "rate").write_text("400 Gb/sec (4X NDR)\n")


def test_hgx_node(tmp_path: Path) -> None:
    _pci(tmp_path, "0000:18:00.0", "0x10de", "0x030200")
    _pci(tmp_path, "0000:2a:00.0", "0x10de", "0x030200")
    _pci(tmp_path, "0000:05:00.0", "0x10de", "0x068000", device="0x22a3")  # NVSwitch
    _pci(tmp_path, "0000:03:00.0", "0x15b3", "0x020700")  # ConnectX: not a GPU
    (tmp_path / "proc/driver/nvidia").mkdir(parents=True)
    (tmp_path / "proc/driver/nvidia/version").write_text(
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.163.01  Release Build\nGCC version: 12\n"
    )
    (tmp_path / "proc/modules").write_text(
        "nvidia_peermem 16384 0 - Live 0x0\nnvidia 1 2 - Live 0x0\next4 1 1 - Live 0x0\nmlx5_ib 1 0 - Live 0x0\n"
    )
    (tmp_path / "dev").mkdir()
    for name in ("nvidia10", "nvidia1", "nvidiactl", "nvidia-uvm", "nvidia0"):
        (tmp_path / "dev" / name).touch()
    (tmp_path / "lib/modules/6.1.0-28-amd64").mkdir(parents=True)
    _port(tmp_path, "mlx5_0", "1", "4: ACTIVE")
    _port(tmp_path, "mlx5_1", "1", "1: DOWN", layer="Ethernet")

    facts = gpu_host(tmp_path, "6.1.0-28-amd64")

    assert [g["pci"] for g in facts["gpus"]] == ["0000:18:00.0", "0000:2a:00.0"]
    assert facts["nvswitches"] == 1
    assert facts["driver_loaded"] and facts["driver_version"] == "550.163.01"
    assert facts["modules"] == ["mlx5_ib", "nvidia", "nvidia_peermem"]
    assert facts["module_loading"] is True
    assert facts["device_files"] == ["/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia10"]
    assert [(p["device"], p["state"], p["link_layer"]) for p in facts["rdma_ports"]] == [
        ("mlx5_0", "ACTIVE", "InfiniBand"),
        ("mlx5_1", "DOWN", "Ethernet"),
    ]


def test_container_without_gpu(tmp_path: Path) -> None:
    """The lab: no PCI GPUs, no driver, no module tree; fake device files may exist."""
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev/nvidia0").touch()
    facts = gpu_host(tmp_path, "6.1.0")
    assert facts["gpus"] == [] and facts["nvswitches"] == 0
    assert facts["driver_loaded"] is False and facts["driver_version"] == ""
    assert facts["module_loading"] is False
    assert facts["device_files"] == ["/dev/nvidia0"]
    assert facts["rdma_ports"] == [] and facts["modules"] == []


def test_legacy_driver_version_line(tmp_path: Path) -> None:
    (tmp_path / "proc/driver/nvidia").mkdir(parents=True)
    (tmp_path / "proc/driver/nvidia/version").write_text(
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.261.03  Wed Jun 11 2025\n"
    )
    assert gpu_host(tmp_path, "x")["driver_version"] == "535.261.03"
