"""Which of a task's packages a host lacks, from one query of its package database per run (the common role's
``common_installed_packages``), so that a re-run skips the package tasks whose packages are all there instead of
starting the package manager on the host for each (about a second of the host's CPU each; docs/scale.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatchcase
from typing import Any

# dpkg's db:Status-Abbrev of an installed package: wanted install or hold, status installed (no error flag).
# The common role's query prints the same first field for rpm (every listed package is installed).
_INSTALLED = {"ii", "hi"}


def _installed(listing: str) -> dict[str, str]:
    """``<status> <name> <version>`` lines (the common role's query) -> version by package name."""
    versions: dict[str, str] = {}
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0] in _INSTALLED:
            versions[fields[1].split(":")[0]] = fields[2]
    return versions


def _present(wanted: str, versions: Mapping[str, str]) -> bool:
    """``name`` or ``name=<version glob>`` (apt's form) is installed. Anything else (a path, a name pattern, another
    operator) is never taken for installed: its task runs as it would without the query."""
    name, _, version = wanted.strip().partition("=")
    name = name.split(":")[0]
    if not name or any(mark in name for mark in "/*?[<>~"):
        return False
    held = versions.get(name)
    return held is not None and (not version or fnmatchcase(held, version))


def packages_missing(packages: str | Iterable[str], installed: Mapping[str, Any] | str | None) -> list[str]:
    """The packages (one name or a list; C(name=version-glob) as apt takes them) the host has not installed,
    according to ``installed`` (C(common_installed_packages): the registered query of the host's package database,
    or its output). Every package counts as missing where the query is not there (a role run on its own, a check
    run that skipped it), so a task gated on the result runs exactly as it would without the query."""
    listing = installed.get("stdout") if isinstance(installed, Mapping) else installed
    names = [packages] if isinstance(packages, str) else [str(name) for name in packages]
    if not isinstance(listing, str) or not listing.strip():
        return names
    versions = _installed(listing)
    return [name for name in names if not _present(name, versions)]


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {"packages_missing": packages_missing}
