#!/usr/bin/python
"""Read what a node has of the GPU stack from sysfs and procfs, without running any vendor tool."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: gpu_facts
short_description: NVIDIA GPUs, NVSwitches, driver, kernel modules and RDMA ports of a host
description:
  - Reads C(/sys/bus/pci/devices) (vendor 0x10de; class 0x03 display controllers are GPUs, class 0x0680
    bridges are NVSwitches), C(/proc/driver/nvidia/version), C(/proc/modules), C(/dev/nvidia*) and
    C(/sys/class/infiniband/*/ports/*). Works with no driver installed and in containers.
  - Sets the fact C(gpu_host).
version_added: "0.1.0"
author: gpucluster maintainers
options:
  root:
    description: Prefix for every path read (tests point it at a fake tree).
    type: path
    default: /
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Look at the GPU hardware
  gpucluster.cluster.gpu_facts:

- name: Say what was found
  ansible.builtin.debug:
    msg: >-
      {{ ansible_facts['gpu_host'].gpus | length }} GPUs,
      driver {{ ansible_facts['gpu_host'].driver_version or 'not loaded' }}
"""

RETURN = r"""
ansible_facts:
  description: C(gpu_host) with keys gpus (list of PCI addresses and device ids), nvswitches (count),
    driver_loaded, driver_version, modules (loaded modules of interest), module_loading (the running
    kernel's module tree exists, so modprobe can work), device_files, rdma_ports (device, port, state,
    phys_state, link_layer, rate).
  type: dict
  returned: always
"""

import os
import re
from pathlib import Path
from typing import Any

from ansible.module_utils.basic import AnsibleModule

NVIDIA_VENDOR = "0x10de"
NVSWITCH_CLASS = "0x0680"
MODULES_OF_INTEREST = re.compile(r"^(nvidia\w*|nv_peer_mem|ib_\w+|mlx5_\w+|rdma_\w+)$")
DEVICE_FILE = re.compile(r"^nvidia(\d+)$")
DRIVER_VERSION = re.compile(r"Kernel Module(?: for \S+)?\s+(\d+(?:\.\d+)+)")


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""


def pci_devices(root: Path) -> tuple[list[dict[str, str]], int]:
    """NVIDIA GPUs (PCI class 0x03xxxx) and the number of NVSwitches (0x0680xx)."""
    gpus: list[dict[str, str]] = []
    nvswitches = 0
    base = root / "sys/bus/pci/devices"
    if not base.is_dir():
        return gpus, nvswitches
    for device in sorted(base.iterdir()):
        if _read(device / "vendor").lower() != NVIDIA_VENDOR:
            continue
        pci_class = _read(device / "class").lower()
        if pci_class.startswith("0x03"):
            gpus.append({"pci": device.name, "device_id": _read(device / "device").lower()})
        elif pci_class.startswith(NVSWITCH_CLASS):
            nvswitches += 1
    return gpus, nvswitches


def driver_version(root: Path) -> str:
    """Version of the loaded nvidia kernel module, '' when it is not loaded."""
    match = DRIVER_VERSION.search(_read(root / "proc/driver/nvidia/version"))
    return match.group(1) if match else ""


def loaded_modules(root: Path) -> list[str]:
    """Loaded kernel modules of the GPU and RDMA stacks."""
    names = (line.split(" ", 1)[0] for line in _read(root / "proc/modules").splitlines())
    return sorted(name for name in names if MODULES_OF_INTEREST.match(name))


def device_files(root: Path) -> list[str]:
    """/dev/nvidiaN files, in index order."""
    dev = root / "dev"
    if not dev.is_dir():
        return []
    found = [(int(m.group(1)), m.group(0)) for m in map(DEVICE_FILE.match, os.listdir(dev)) if m]
    return [f"/dev/{name}" for _, name in sorted(found)]


def rdma_ports(root: Path) -> list[dict[str, str]]:
    """Every port of every RDMA device, as ibstat would list it."""
    ports: list[dict[str, str]] = []
    base = root / "sys/class/infiniband"
    if not base.is_dir():
        return ports
    for device in sorted(base.iterdir()):
        port_dir = device / "ports"
        if not port_dir.is_dir():
            continue
        for port in sorted(port_dir.iterdir(), key=lambda p: int(p.name) if p.name.isdigit() else 0):
            ports.append(
                {
                    "device": device.name,
                    "port": port.name,
                    # sysfs writes "4: ACTIVE" and "5: LinkUp"; keep the words.
                    "state": _read(port / "state").split(":")[-1].strip(),
                    "phys_state": _read(port / "phys_state").split(":")[-1].strip(),
                    "link_layer": _read(port / "link_layer"),
                    "rate": _read(port / "rate"),
                }
            )
    return ports


def gpu_host(root: Path, kernel_release: str) -> dict[str, Any]:
    """Everything the gpu role decides from."""
    gpus, nvswitches = pci_devices(root)
    version = driver_version(root)
    return {
        "gpus": gpus,
        "nvswitches": nvswitches,
        "driver_loaded": bool(version),
        "driver_version": version,
        "modules": loaded_modules(root),
        "module_loading": (root / "lib/modules" / kernel_release).is_dir(),
        "device_files": device_files(root),
        "rdma_ports": rdma_ports(root),
    }


def main() -> None:
    module = AnsibleModule(argument_spec={"root": {"type": "path", "default": "/"}}, supports_check_mode=True)
    facts = gpu_host(Path(module.params["root"]), os.uname().release)
    module.exit_json(changed=False, ansible_facts={"gpu_host": facts})


if __name__ == "__main__":
    main()
