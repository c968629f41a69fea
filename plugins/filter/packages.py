"""Which of a task's packages a host lacks, from one query of its package database per run (the common role's
``common_installed_packages``), so that a re-run skips the package tasks whose packages are all there instead of
starting the package manager on the host for each (about a second of the host's CPU each; docs/scale.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from fnmatch import fnmatchcase
from typing import Any

# dpkg's db:Status-Abbrev of an installed package: wanted install or hold, status installed (no error flag).
# The common role's query prints the same first field for rpm (every listed package is installed).
_INSTALLED = {"ii", "hi"}

# The query of a host's package database, by OS family: ``<status> <name> <version>`` per package. Its output is a
# registered variable, never a fact: package_facts would keep every package of the host (about 120 kB) in the fact
# cache, which Ansible reads, decodes and cleans again for every task and host of every later run (docs/scale.md).
PACKAGE_QUERY: dict[str, list[str]] = {
    "Debian": ["dpkg-query", "--show", "--showformat=${db:Status-Abbrev} ${Package} ${Version}\n"],
    "RedHat": ["rpm", "--query", "--all", "--queryformat=ii %{NAME} %{VERSION}-%{RELEASE}\n"],
}


def _rows(listing: str) -> Iterator[tuple[str, str, str]]:
    """(status, package name without its architecture, version) of each ``<status> <name> <version>`` line of the
    common role's query."""
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 3:
            yield fields[0], fields[1].split(":")[0], fields[2]


def _installed(listing: str) -> dict[str, str]:
    """The query's lines -> version by package name, of the installed packages."""
    return {name: version for status, name, version in _rows(listing) if status in _INSTALLED}


def _present(wanted: str, versions: Mapping[str, str]) -> bool:
    """``name`` or ``name=<version glob>`` (apt's form) is installed. Anything else (a path, a name pattern, another
    operator) is never taken for installed: its task runs as it would without the query."""
    name, _, version = wanted.strip().partition("=")
    name = name.split(":")[0]
    if not name or any(mark in name for mark in "/*?[<>~"):
        return False
    held = versions.get(name)
    return held is not None and (not version or fnmatchcase(held, version))


def _listing(installed: Mapping[str, Any] | str | None) -> str:
    listing = installed.get("stdout") if isinstance(installed, Mapping) else installed
    return listing if isinstance(listing, str) else ""


def package_query(os_family: str) -> list[str]:
    """The command (argv) that lists a host's installed packages for `packages_missing` and `installed_packages`;
    Debian's for a family it does not know."""
    return list(PACKAGE_QUERY.get(str(os_family), PACKAGE_QUERY["Debian"]))


def installed_packages(installed: Mapping[str, Any] | str | None) -> dict[str, list[dict[str, str]]]:
    """The host's installed packages in package_facts' shape (``{name: [{name, version}]}``), from the registered
    result of `package_query` (or its output); empty without it."""
    return {name: [{"name": name, "version": version}] for name, version in _installed(_listing(installed)).items()}


def packages_missing(packages: str | Iterable[str], installed: Mapping[str, Any] | str | None) -> list[str]:
    """The packages (one name or a list; C(name=version-glob) as apt takes them) the host has not installed,
    according to ``installed`` (C(common_installed_packages): the registered query of the host's package database,
    or its output). Every package counts as missing where the query is not there (a role run on its own, a check
    run that skipped it), so a task gated on the result runs exactly as it would without the query."""
    listing = _listing(installed)
    names = [packages] if isinstance(packages, str) else [str(name) for name in packages]
    if not listing.strip():
        return names
    versions = _installed(listing)
    return [name for name in names if not _present(name, versions)]


def packages_unselected(
    packages: Iterable[str], selection: str, installed: Mapping[str, Any] | str | None
) -> list[str]:
    """The packages whose dpkg selection (C(hold) or C(install)) is not ``selection``, according to ``installed``
    (the registered query of `package_query`: the first letter of its status is the selection). A package the query
    does not list, or every package where the query is not there, is returned: its task runs as it would without
    the query."""
    wanted = {"hold": "h", "install": "i"}.get(selection, "")
    listing = _listing(installed)
    names = [str(name) for name in packages]
    if not wanted or not listing.strip():
        return names
    selected = {name: status[0] for status, name, _version in _rows(listing)}
    return [name for name in names if selected.get(name.split(":")[0]) != wanted]


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "installed_packages": installed_packages,
            "package_query": package_query,
            "packages_missing": packages_missing,
            "packages_unselected": packages_unselected,
        }
