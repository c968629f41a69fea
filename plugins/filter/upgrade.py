"""Filters of the Slurm upgrade's gates (plugins/module_utils/upgrade.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.releases import DEFAULT_RELEASE
from ansible_collections.gpucluster.cluster.plugins.module_utils.upgrade import (
    SLURM_GROUPS,
    candidate_query,
    candidate_release_error,
    candidate_version,
    dump_errors,
    hosts_to_upgrade,
    installed_release_error,
    interrupted_conversions,
    lagging_controllers,
    oldest_release,
    order_errors,
    release_package,
    source_packages,
    upgrade_errors,
)


def slurm_upgrade_errors(installed: Mapping[str, str], target: Any) -> list[str]:
    """Why the hosts' installed Slurm (host -> package version) cannot be upgraded to ``target``."""
    return upgrade_errors(installed, str(target))


def slurm_installed_release_error(packages: Mapping[str, Any], host: str, release: Any, pod: str = "") -> str:
    """The refusal of a deploy that would write the files of ``release`` (the host's: cluster_slurm_release, or its
    pod's slurm_release) on a host whose installed Slurm is another release (``packages``: the host's
    `installed_packages`); "" where they agree or Slurm is not installed yet."""
    versions = {str(name): str((entries or [{}])[0].get("version") or "") for name, entries in (packages or {}).items()}
    wanted = str(release or "") or str(DEFAULT_RELEASE)
    setting = f"cluster_federation.pods.{pod}.slurm_release" if pod else "cluster_slurm_release"
    return installed_release_error(str(host), versions, wanted, setting)


def slurm_candidate_query(os_family: str, group_names: Any = None, packages: Any = None) -> list[str]:
    """The command (argv) that asks a host's package source which Slurm it would install (Debian's for a family it
    does not know), where the host gets Slurm (``group_names``: its groups) and has none installed (``packages``: its
    `installed_packages`; none known, every package counts as missing); [] where there is nothing to ask."""
    groups = [str(name) for name in group_names] if isinstance(group_names, list) else list(SLURM_GROUPS)
    return candidate_query(str(os_family), groups, packages if isinstance(packages, Mapping) else {})


def slurm_candidate_release_error(asked: Any, host: str, release: Any, pod: str = "") -> str:
    """The refusal of a run that would install Slurm on a host without it (``asked``: the registered result of
    `slurm_candidate_query`, skipped where Slurm is installed) from a package source offering another release than
    ``release`` (the host's: cluster_slurm_release, or its pod's slurm_release); "" where they agree or nothing was
    asked."""
    if not isinstance(asked, Mapping) or asked.get("skipped") or "rc" not in asked:
        return ""
    version = candidate_version(str(asked.get("stdout") or "")) if asked.get("rc") == 0 else ""
    wanted = str(release or "") or str(DEFAULT_RELEASE)
    setting = f"cluster_federation.pods.{pod}.slurm_release" if pod else "cluster_slurm_release"
    return candidate_release_error(str(host), version, wanted, setting)


def slurm_upgrade_hosts(installed: Mapping[str, str], target: Any) -> list[str]:
    """The hosts whose installed Slurm is not ``target`` yet."""
    return hosts_to_upgrade(installed, str(target))


def slurm_upgrade_lagging(results: Sequence[Mapping[str, Any]], target: Any) -> list[str]:
    """The controllers of a pair left on an older release beside one on ``target``, from the results of the loop
    that read each one's slurmctld version (item: the controller, stdout: its version, none if unreadable)."""
    installed = {str(result.get("item")): str(result.get("stdout") or "") for result in results}
    return lagging_controllers(installed, str(target))


def slurm_upgrade_packages(packages: Iterable[str], target: Any) -> list[str]:
    """The host's installed packages (`installed_packages`) built from Slurm's source, each pinned to ``target``
    (``name=<release>.*``): what the upgrade installs on it."""
    return source_packages(packages, str(target))


def slurm_upgrade_release_package(packages: Iterable[str]) -> str:
    """The package (from the host's `installed_packages`) whose installed version is the host's Slurm release."""
    return release_package(set(packages))


def slurm_upgrade_interrupted(units: Mapping[str, Any]) -> list[str]:
    """The dbd hosts (host -> its slurmdbd unit's state) whose slurmdbd an earlier run left masked."""
    return interrupted_conversions({str(host): str(state or "") for host, state in units.items()})


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


def slurm_upgrade_batch_errors(batch: Any) -> list[str]:
    """slurm_upgrade_batch as the compute play's ``serial`` takes it: a number of nodes of 1 or more, or a percentage
    from 1% to 100% - anything else stops the run at that play, after the controllers and slurmdbd were upgraded."""
    text = str(batch).strip()
    number = text.removesuffix("%")
    if not isinstance(batch, bool) and number.isdigit() and int(number) >= 1 and (text == number or int(number) <= 100):
        return []
    return [
        f"slurm_upgrade_batch: {batch!r} is not a number of compute nodes (1 or more) nor a percentage of them (1% to "
        "100%), e.g. 4 or 25%; the compute play's batches read it only after the controllers and slurmdbd are "
        "upgraded (a word stops the run there)"
    ]


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "slurm_installed_release_error": slurm_installed_release_error,
            "slurm_candidate_query": slurm_candidate_query,
            "slurm_candidate_release_error": slurm_candidate_release_error,
            "slurm_upgrade_batch_errors": slurm_upgrade_batch_errors,
            "slurm_upgrade_errors": slurm_upgrade_errors,
            "slurm_upgrade_hosts": slurm_upgrade_hosts,
            "slurm_upgrade_oldest_release": slurm_upgrade_oldest_release,
            "slurm_upgrade_packages": slurm_upgrade_packages,
            "slurm_upgrade_release_package": slurm_upgrade_release_package,
            "slurm_upgrade_interrupted": slurm_upgrade_interrupted,
            "slurm_upgrade_lagging": slurm_upgrade_lagging,
            "slurm_upgrade_order_errors": slurm_upgrade_order_errors,
            "slurm_upgrade_dump_errors": slurm_upgrade_dump_errors,
        }
