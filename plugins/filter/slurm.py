"""Filters of the slurm role's own files (plugstack.conf)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ansible.errors import AnsibleFilterError
from ansible_collections.gpucluster.cluster.plugins.module_utils.plugstack import plugstack_errors, plugstack_lines


def slurm_plugstack_errors(plugins: Any) -> list[str]:
    """What is wrong with slurm_spank_plugins (checked before any host is touched)."""
    return plugstack_errors(plugins)


def slurm_plugstack_lines(plugins: Any) -> list[str]:
    """plugstack.conf's lines; an invalid list (validation bypassed) is refused, never written."""
    errors = plugstack_errors(plugins)
    if errors:
        raise AnsibleFilterError("; ".join(errors))
    return plugstack_lines(plugins)


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {"slurm_plugstack_errors": slurm_plugstack_errors, "slurm_plugstack_lines": slurm_plugstack_lines}
