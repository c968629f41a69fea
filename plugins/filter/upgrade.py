"""Filters of the Slurm upgrade's gates (plugins/module_utils/upgrade.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.upgrade import (
    Target,
    hosts_to_upgrade,
    upgrade_errors,
    upgrade_targets,
)


def _targets(installed: Mapping[str, str], target: Any) -> dict[str, Target]:
    """host -> Target from one release (every host) or from slurm_upgrade_targets' mapping."""
    if isinstance(target, Mapping):
        return {
            host: Target(str(target[host]["release"]), str(target[host]["variable"])) if host in target else Target("")
            for host in installed
        }
    return dict.fromkeys(installed, Target(str(target)))


def slurm_upgrade_targets(
    hosts: Sequence[str], release: Any, federation: Mapping[str, Any] | None, groups: Mapping[str, Sequence[str]]
) -> dict[str, Any]:
    """{targets: {host: {release, variable}}, errors}: each host's target release (its pod's slurm_release, else
    cluster_slurm_release) and the hosts that would need two."""
    targets, errors = upgrade_targets(str(release), federation, groups, list(hosts))
    return {
        "targets": {host: {"release": t.release, "variable": t.variable} for host, t in targets.items()},
        "errors": errors,
    }


def slurm_upgrade_errors(installed: Mapping[str, str], target: Any) -> list[str]:
    """Why the hosts' installed Slurm (host -> package version) cannot be upgraded to ``target`` (one release,
    or slurm_upgrade_targets' host -> {release, variable})."""
    groups: dict[Target, dict[str, str]] = {}
    for host, goal in _targets(installed, target).items():
        groups.setdefault(goal, {})[host] = installed[host]
    return [
        error
        for goal, hosts in groups.items()
        if goal.release
        for error in upgrade_errors(hosts, goal.release, goal.variable)
    ]


def slurm_upgrade_hosts(installed: Mapping[str, str], target: Any) -> list[str]:
    """The hosts whose installed Slurm is not their target yet."""
    return sorted(
        host
        for host, goal in _targets(installed, target).items()
        if goal.release and host in hosts_to_upgrade({host: installed[host]}, goal.release)
    )


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "slurm_upgrade_errors": slurm_upgrade_errors,
            "slurm_upgrade_hosts": slurm_upgrade_hosts,
            "slurm_upgrade_targets": slurm_upgrade_targets,
        }
