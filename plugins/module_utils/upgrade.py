"""Gates of a Slurm version upgrade, decided before any host is changed.

The installed versions come from the hosts' package facts; the target is the inventory's
``cluster_slurm_release``, or a pod's own ``slurm_release`` for the hosts of that pod (``upgrade_targets``:
slurmdbd and the other shared hosts go to ``cluster_slurm_release``, the newest). SchedMD's rules (the
upgrade guide): slurmdbd first, then the controllers, then slurmd; each newer daemon accepts the releases of
its compatibility window and nothing older; no downgrade (the database and the state files are converted on
the way up).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .federation import SHARED_GROUPS, read_federation
from .releases import KNOWN_RELEASES, Release, accepts, compatibility_window, upgrade_path

CLUSTER_VARIABLE = "cluster_slurm_release"

_VERSION = re.compile(r"^(?:\d+:)?(\d+)\.(\d+)\.")


def release_of(version: str) -> Release | None:
    """The major release of a package version (``24.11.5-4+deb13u1`` -> 24.11), None if unreadable."""
    match = _VERSION.match(version)
    return Release(int(match.group(1)), int(match.group(2))) if match else None


@dataclass(frozen=True)
class Target:
    """A host's target release and the inventory variable that sets it."""

    release: str
    variable: str = CLUSTER_VARIABLE


def upgrade_targets(
    release: str, federation_spec: Mapping[str, Any] | None, groups: Mapping[str, Sequence[str]], hosts: Sequence[str]
) -> tuple[dict[str, Target], list[str]]:
    """Each host's target: its pod's slurm_release (a pod of a federation that sets one), else ``release``
    (cluster_slurm_release: slurmdbd's and the other shared hosts'). A shared host inside a pod of another
    release is an error: one host runs one release."""
    federation, _ = read_federation({"federation": federation_spec or {}, "name": "federation"})
    targets = dict.fromkeys(hosts, Target(release))
    errors: list[str] = []
    shared = {host for group in SHARED_GROUPS for host in groups.get(group, ())}
    for pod in federation.pods if federation else ():
        own = str(pod.overrides.get("slurm_release") or "")
        if not own or own == release:
            continue
        variable = f"cluster_federation.pods.{pod.name}.slurm_release"
        for host in groups.get(pod.group, ()):
            if host not in targets:
                continue
            if host in shared:
                errors.append(
                    f"{host}: a host of the shared tier (dbd, galera, storage, monitoring) runs {CLUSTER_VARIABLE} "
                    f"{release}, and as a host of pod {pod.name} it would run {variable} {own}: one host runs one "
                    "release. Move the pod's other roles off it, or upgrade the pod with the others"
                )
            targets[host] = Target(own, variable)
    return targets, errors


def upgrade_errors(installed: Mapping[str, str], target: str, variable: str = CLUSTER_VARIABLE) -> list[str]:
    """Why the hosts (host -> installed Slurm package version, "" when none) cannot go to ``target``, which the
    inventory's ``variable`` sets."""
    if target not in KNOWN_RELEASES:
        known = ", ".join(KNOWN_RELEASES)
        return [f"{variable}: {target!r} is not a Slurm release this project knows ({known})"]
    goal = Release.parse(target)
    errors: list[str] = []
    by_release: dict[Release, list[str]] = {}
    for host, version in sorted(installed.items()):
        if not version:
            continue
        release = release_of(version)
        if release is None or str(release) not in KNOWN_RELEASES:
            errors.append(f"{host}: Slurm {version} is not a release this project knows; upgrade it by hand")
            continue
        by_release.setdefault(release, []).append(host)
    for release, hosts in sorted(by_release.items(), key=lambda item: (item[0].year, item[0].month)):
        where = _hosts(hosts)
        if (release.year, release.month) > (goal.year, goal.month):
            errors.append(
                f"{where} run Slurm {release}, newer than {variable} {target}: Slurm cannot be "
                f"downgraded (slurmdbd and slurmctld have converted the database and the state files); "
                f"set {variable}: '{release}'"
            )
        elif not accepts(goal, release):
            path = upgrade_path(release, goal)
            errors.append(
                f"{where} run Slurm {release}; {target} accepts only the {_window(goal)} releases before it, so "
                f"{release} -> {target} would lose the state and accounting records it cannot convert. Upgrade "
                f"through {path[0]} first ({variable}: '{path[0]}', then upgrade-slurm.yml again; "
                f"the whole path: {' -> '.join(str(r) for r in [release, *path])})"
            )
    return errors


def hosts_to_upgrade(installed: Mapping[str, str], target: str) -> list[str]:
    """Hosts with Slurm installed at another release than ``target``."""
    goal = Release.parse(target)
    return sorted(host for host, version in installed.items() if version and release_of(version) != goal)


def _window(release: Release) -> str:
    count = compatibility_window(release)
    return {2: "two", 3: "three"}.get(count, str(count))


def _hosts(hosts: list[str]) -> str:
    return ", ".join(hosts[:5]) + (f" and {len(hosts) - 5} more" if len(hosts) > 5 else "")
