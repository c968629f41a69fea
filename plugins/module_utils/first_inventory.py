"""The answers playbooks/new-inventory.yml asks for a first inventory, checked before anything is written."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import netaddr

from .addresses import host_bits_error, is_network
from .validate import other_vendor

NUMBERS = (
    "new_inventory_nodes",
    "new_inventory_gpus_per_node",
    "new_inventory_sockets",
    "new_inventory_cores_per_socket",
    "new_inventory_threads_per_core",
    "new_inventory_memory_mb",
)
NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
# the GPU model answer, lower-cased: the node type's name, its group's (compute_<model>) and the GRES type
GPU_MODEL = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
# the model's floor (cluster_min_node_memory_mb's default)
MIN_MEMORY_MB = 1024
# the hosts' addresses in the management network: controller .10, database .11, login .12, NFS .13, nodes .101 on
FIRST_NODE = 101


def answers_errors(answers: Mapping[str, Any]) -> list[str]:
    """Each answer that cannot make an inventory, named with what to give instead; empty when they can."""
    errors = [
        f"{name}: {answers.get(name)!r} is not a whole number of 1 or more"
        for name in NUMBERS
        if not re.fullmatch(r"[1-9][0-9]*", str(answers.get(name, "")).strip())
    ]
    if not NAME.match(str(answers.get("new_inventory_cluster_name", ""))):
        errors.append(
            "new_inventory_cluster_name: give lower-case letters, digits, - and _, starting with a letter "
            "(at most 40: it is Slurm's ClusterName)"
        )
    gpu = str(answers.get("new_inventory_gpu_type", "")).strip().lower()
    if not GPU_MODEL.match(gpu):
        errors.append(
            "new_inventory_gpu_type: give the GPU model as one word of letters, digits, - and _ (h100, a100-80gb): it "
            "names the node type, its inventory group and the GRES type jobs ask for"
        )
    elif maker := other_vendor(gpu):
        errors.append(
            f"new_inventory_gpu_type: {gpu} is {maker} accelerator; this toolkit deploys NVIDIA's driver, CUDA and "
            "device files - give an NVIDIA model (h100, h200, a100, l40s, b200 ...)"
        )
    memory = str(answers.get("new_inventory_memory_mb", "")).strip()
    if memory.isdigit() and int(memory) < MIN_MEMORY_MB:
        errors.append(
            f"new_inventory_memory_mb: {memory} MB is less than a GPU node has (at least {MIN_MEMORY_MB}); give "
            "RealMemory as `slurmd -C` prints it, in megabytes (2 TB: 2000000)"
        )
    if not str(answers.get("new_inventory_dir", "")).strip():
        errors.append("new_inventory_dir: give the directory to write")
    for network in admin_networks(answers.get("new_inventory_admin_networks")):
        if not is_network(network):
            errors.append(
                f"new_inventory_admin_networks: {network!r} is not an address or a network; give CIDRs separated by "
                "commas, e.g. 10.1.0.0/24,192.0.2.7"
            )
        elif problem := host_bits_error(network):
            errors.append(f"new_inventory_admin_networks: {problem}")
    network = str(answers.get("new_inventory_network", "")).strip()
    if network:
        try:
            size = netaddr.IPNetwork(network).size
        except (netaddr.AddrFormatError, ValueError, TypeError):
            return [
                *errors,
                f"new_inventory_network: {network!r} is not a network; give it in CIDR form, e.g. 10.1.0.0/22",
            ]
        nodes = str(answers.get("new_inventory_nodes", ""))
        needed = FIRST_NODE + int(nodes) + 1 if nodes.isdigit() else 0
        if size < needed:
            errors.append(
                f"new_inventory_network: {network} has {size} addresses; the hosts take .10-.13 and the {nodes} "
                f"nodes .{FIRST_NODE} on ({needed} with the broadcast address): give a larger network"
            )
    return errors


def admin_networks(answer: Any) -> list[str]:
    """The administrators' networks of the answer (comma-separated): the host firewall is on where there are any."""
    return [part.strip() for part in str(answer or "").split(",") if part.strip()]


def validation_problems(output: str) -> list[str]:
    """The problems a run of validate.yml refused an inventory for, whole, from its output with
    ANSIBLE_CALLBACK_RESULT_FORMAT=json (the failed task's result on one line, its ``msg`` the heading and one line a
    problem); the output's last lines where there is no such result (a run that failed otherwise)."""
    for line in reversed(output.splitlines()):
        _, marker, result = line.partition("FAILED! => ")
        if not marker:
            continue
        try:
            message = json.loads(result).get("msg")
        except (ValueError, AttributeError):
            break
        if isinstance(message, list) and message:
            lines = [str(item) for item in message]
            # (without validate_inventory's heading, "The inventory has N problems; nothing was changed:")
            return lines[1:] if lines[0].startswith("The inventory has ") and len(lines) > 1 else lines
        if message:
            return [str(message)]
        break
    return [line for line in output.splitlines() if line.strip()][-15:]
