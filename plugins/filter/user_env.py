"""Filters of the user_env role: the environment modules of a node, the check of users' pip settings."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from ansible_collections.gpucluster.cluster.plugins.module_utils.modulefiles import modulefiles
from ansible_collections.gpucluster.cluster.plugins.module_utils.mount_points import within
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


# System trees a generated directory may not be (nor hold): the role removes what it did not write there.
SYSTEM_DIRS = (
    "/",
    "/etc",
    "/usr",
    "/usr/share",
    "/usr/local",
    "/opt",
    "/var",
    "/srv",
    "/home",
    "/root",
    "/tmp",
    "/apps",
)


def user_env_modules_dir_errors(directory: Any, site_dirs: Any = (), shared: Any = ()) -> list[str]:
    """user_env_modules_dir is the role's own directory, purged of every file it did not write: an absolute path on
    the node's own disk that is no system tree, none of the site's modulefile directories (user_env_modules_site_dirs)
    nor inside or above one, and not on a file system the nodes share (``shared``: lists of the NFS, filer and Lustre
    mounts, each a mount point or a mapping with its path) - there every node would purge the others' and the site's
    files."""
    text = str(directory or "").rstrip("/") or "/"
    if not text.startswith("/") or "/../" in f"{text}/":
        return [f"user_env_modules_dir: {directory!r} is not an absolute path (e.g. /etc/gpucluster/modulefiles)"]
    problems = []
    if text in SYSTEM_DIRS:
        problems.append(
            f"user_env_modules_dir: {text} is a system directory; the role removes every file there it did not write - "
            "give it a directory of its own (the default /etc/gpucluster/modulefiles)"
        )
    # (a list given as one string is split as Ansible's argument specs split it)
    sites = str(site_dirs).split(",") if isinstance(site_dirs, str) else list(site_dirs or ())
    problems += [
        f"user_env_modules_site_dirs: {str(d).strip()!r} is not an absolute path; Lmod would look for it below each "
        "user's working directory - give the full path, e.g. /apps/modulefiles"
        for d in sites
        if str(d).strip() and not str(d).strip().startswith("/")
    ]
    for site in [str(d).strip().rstrip("/") for d in sites if str(d).strip().startswith("/")]:
        if not site:
            continue
        if within(text, site) or within(site, text):
            problems.append(
                f"user_env_modules_dir: {text} overlaps the site's modulefiles {site} (user_env_modules_site_dirs); "
                "the role would remove the site's modulefiles - give the generated ones a directory of their own"
            )
    groups = [str(group).split(",") if isinstance(group, str) else group or () for group in shared or ()]
    mounts = [m.get("path") if isinstance(m, Mapping) else m for group in groups for m in group]
    for mount in [str(d).strip().rstrip("/") for d in mounts if str(d).strip().startswith("/")]:
        if not mount:
            continue
        if within(text, mount):
            problems.append(
                f"user_env_modules_dir: {text} is on {mount}, which the nodes share; each node would remove the "
                "others' modulefiles - keep it on the node's own disk (the default /etc/gpucluster/modulefiles)"
            )
    return problems


# GLOO_SOCKET_IFNAME and NCCL_SOCKET_IFNAME in the example job scripts: interface names, comma-separated (Gloo takes
# no ^ or = prefix; a space would end the shell's assignment there)
_IFNAMES = re.compile(r"[A-Za-z0-9_.@:-]+(,[A-Za-z0-9_.@:-]+)*")


def user_env_socket_errors(ifname: Any) -> list[str]:
    """user_env_socket_ifname as the examples export it to Gloo and NCCL: interface names, comma-separated."""
    text = str(ifname or "")
    if not text or _IFNAMES.fullmatch(text):
        return []
    return [
        f"user_env_socket_ifname: {text!r} is not a list of interface names Gloo and NCCL both read; write e.g. ib0 "
        "or ib0,ib1 (no spaces, no ^ or = prefix: Gloo takes names only)"
    ]


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
            "user_env_modules_dir_errors": user_env_modules_dir_errors,
            "user_env_socket_errors": user_env_socket_errors,
        }
