"""Filters of the user_env role: the environment modules of a node, the check of users' pip settings."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from ansible_collections.gpucluster.cluster.plugins.module_utils.modulefiles import modulefiles
from ansible_collections.gpucluster.cluster.plugins.module_utils.validate import HOST_RE

# A trusted host as pip takes it: a name or an IPv4 address, with a port or not.
TRUSTED_HOST = re.compile(r"(?P<host>[^:\s]+)(:\d{1,5})?")


def user_env_modulefiles(
    packages: Mapping[str, Sequence[Mapping[str, Any]]], python: str = "python3"
) -> list[dict[str, str]]:
    """{name, version, path, text} of every Lua modulefile of a node (CUDA, NCCL, the users' Python, MPI), made from
    its installed packages (`installed_packages`: package_facts' shape) and the Python the examples run."""
    return modulefiles(packages, python)


# Lmod's list of module directories at login (Debian's layout).
MODULESPATH = "/etc/lmod/modulespath"


def user_env_module_files(
    files: Sequence[Mapping[str, str]], directory: str, site_dirs: Sequence[str] = ()
) -> dict[str, list[Any]]:
    """The modulefiles of `user_env_modulefiles` as the files action takes them: the directories (the generated
    one, a directory per software), the files, and the generated directory to purge of what the node no longer has;
    with MODULEPATH (Lmod's modulespath): the generated directory, then the site's."""
    names = sorted({str(entry["name"]) for entry in files})
    modulespath = (
        "# Managed by gpucluster (Ansible, user_env role): local edits are overwritten.\n"
        "# Lmod's MODULEPATH at login, in this order (a directory that does not exist is left out).\n"
        + "".join(f"{path}\n" for path in [directory, *site_dirs])
    )
    return {
        "directories": [directory] + [f"{directory}/{name}" for name in names],
        "files": [{"dest": f"{directory}/{entry['path']}", "content": entry["text"], "mode": "0644"} for entry in files]
        + [{"dest": MODULESPATH, "content": modulespath, "mode": "0644"}],
        "purge": [directory],
    }


def _index_problem(name: str, url: Any) -> str:
    if not isinstance(url, str) or any(c.isspace() for c in url) or not url.isprintable():
        return f"{name}: {url!r} is not one URL (a space or a line break would split pip.conf's value)"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return (
            f"{name}: {url!r} is not the http:// or https:// URL of a package index (https://pypi.example.org/simple)"
        )
    return ""


def _as_list(name: str, value: Any, problems: list[str]) -> list[Any]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        problems.append(f"{name}: give a list, not {value!r}")
        return []
    return list(value)


def user_env_pip_errors(index_url: Any, extra_index_urls: Any = (), trusted_hosts: Any = ()) -> list[str]:
    """What would break /etc/pip.conf or leave pip unable to use the site's index: a URL that is not one http(s) URL,
    a list that is not a list, a trusted host that is not a host name or address (with a port or not), trusted
    hosts or extra indexes without an index; empty when the settings hold. Tier-1, before any host is touched."""
    problems: list[str] = []
    extra = _as_list("user_env_pip_extra_index_urls", extra_index_urls, problems)
    trusted = _as_list("user_env_pip_trusted_hosts", trusted_hosts, problems)
    if index_url:
        problems.append(_index_problem("user_env_pip_index_url", index_url))
    elif extra or trusted:
        problems.append(
            "user_env_pip_extra_index_urls and user_env_pip_trusted_hosts need user_env_pip_index_url: pip.conf is "
            "written only with the site's index"
        )
    problems += [_index_problem(f"user_env_pip_extra_index_urls[{i}]", url) for i, url in enumerate(extra)]
    for i, host in enumerate(trusted):
        match = TRUSTED_HOST.fullmatch(host) if isinstance(host, str) else None
        if not match or not HOST_RE.fullmatch(match.group("host")):
            problems.append(f"user_env_pip_trusted_hosts[{i}]: {host!r} is not a host or address (host, host:port)")
    return [problem for problem in problems if problem]


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "user_env_modulefiles": user_env_modulefiles,
            "user_env_module_files": user_env_module_files,
            "user_env_pip_errors": user_env_pip_errors,
        }
