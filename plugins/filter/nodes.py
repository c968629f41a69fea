"""Filters of the node lifecycle (playbooks/remove-node.yml, scale.yml): what slurmctld says about a node."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.scontrol import node_presence


def slurm_node_presence(result: Mapping[str, Any], name: str) -> str:
    """A registered `scontrol show node <name>` -> present, absent (slurmctld does not know it) or unanswered
    (any other failure: slurmctld unreachable, a timeout - never to be read as absent)."""
    rc = result.get("rc")
    return node_presence(
        str(name),
        rc if isinstance(rc, int) else -1,
        str(result.get("stdout") or ""),
        str(result.get("stderr") or ""),
    )


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {"slurm_node_presence": slurm_node_presence}
