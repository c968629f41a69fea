"""Filters of the Slurm upgrade's gates (plugins/module_utils/upgrade.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.upgrade import (
    dump_errors,
    hosts_to_upgrade,
    lagging_controllers,
    oldest_release,
    order_errors,
    upgrade_errors,
)


def slurm_upgrade_errors(installed: Mapping[str, str], target: Any) -> list[str]:
    """Why the hosts' installed Slurm (host -> package version) cannot be upgraded to ``target``."""
    return upgrade_errors(installed, str(target))


def slurm_upgrade_hosts(installed: Mapping[str, str], target: Any) -> list[str]:
    """The hosts whose installed Slurm is not ``target`` yet."""
    return hosts_to_upgrade(installed, str(target))


def slurm_upgrade_lagging(results: Sequence[Mapping[str, Any]], target: Any) -> list[str]:
    """The controllers of a pair left on an older release beside one on ``target``, from the results of the loop
    that read each one's slurmctld version (item: the controller, stdout: its version, none if unreadable)."""
    installed = {str(result.get("item")): str(result.get("stdout") or "") for result in results}
    return lagging_controllers(installed, str(target))


def slurm_upgrade_oldest_release(installed: Mapping[str, str]) -> str:
    """The oldest release the hosts (host -> package version) run: the one the upgrade leaves."""
    return oldest_release(installed)


def slurm_upgrade_order_errors(
    pending: Sequence[str], steps: Sequence[Sequence[Any]], run_tags: Sequence[str], skip_tags: Sequence[str]
) -> list[str]:
    """Why the run's tags would upgrade a step (``[tag, hosts]`` in SchedMD's order) before an earlier one."""
    return order_errors(pending, [(str(tag), list(hosts)) for tag, hosts in steps], run_tags, skip_tags)


def slurm_upgrade_dump_errors(
    dump: str, tables: Sequence[str], before: Sequence[Any], restored: Sequence[Any] | None, trailer: Any
) -> list[str]:
    """Why the dump cannot be trusted (cut short, or restored with fewer job rows than the source had)."""
    return dump_errors(
        str(dump),
        [str(t) for t in tables],
        [int(n) for n in before],
        None if restored is None else [int(n) for n in restored],
        bool(trailer),
    )


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "slurm_upgrade_errors": slurm_upgrade_errors,
            "slurm_upgrade_hosts": slurm_upgrade_hosts,
            "slurm_upgrade_oldest_release": slurm_upgrade_oldest_release,
            "slurm_upgrade_lagging": slurm_upgrade_lagging,
            "slurm_upgrade_order_errors": slurm_upgrade_order_errors,
            "slurm_upgrade_dump_errors": slurm_upgrade_dump_errors,
        }
