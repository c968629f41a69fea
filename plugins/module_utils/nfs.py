"""Shared storage over NFS (/home, /apps, /data): exported by the storage group's host, which the nfs role
sets up, or mounted from a filer the site already runs (nfs_filer_mounts). Checked before any host is touched;
the mounts every client gets are computed here."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .addresses import host_bits_error, is_network
from .mount_points import health_check_mount_errors, mount_point_error, nfs_types, within
from .values import TRUE_WORDS

# filer:/vol/home, 10.0.0.5:/export/home, [fd00::5]:/home
SOURCE = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\]):/[^\s#]*$")
OPTIONS = re.compile(r"^[A-Za-z0-9_=.,:/+-]+$")
FILER_KEYS = ("path", "src", "opts")
EXAMPLE = "{path: /home, src: 'filer01:/vol/home', opts: 'rw,hard,vers=4.1'}"


def filer_errors(mounts: Any) -> list[str]:
    if not isinstance(mounts, list):
        return [f"nfs_filer_mounts: give a list of mounts, each {EXAMPLE}"]
    errors: list[str] = []
    paths: set[str] = set()
    for index, mount in enumerate(mounts):
        where = f"nfs_filer_mounts[{index}]"
        if not isinstance(mount, Mapping):
            errors.append(f"{where}: give a mount as {EXAMPLE}")
            continue
        unknown = sorted(str(key) for key in mount if key not in FILER_KEYS)
        if unknown:
            errors.append(f"{where}: unknown key {', '.join(unknown)}; a mount has {', '.join(FILER_KEYS)}")
        path = mount.get("path")
        if not isinstance(path, str) or not path.startswith("/") or any(char.isspace() or char == "#" for char in path):
            errors.append(f"{where}.path: {path!r} is not an absolute path; give where it is mounted, e.g. /home")
        elif path in paths:
            errors.append(f"{where}.path: {path} is mounted twice; give each path once")
        elif problem := mount_point_error(path):
            errors.append(f"{where}.path: {problem}")
        else:
            paths.add(path)
        source = mount.get("src")
        if not isinstance(source, str) or not SOURCE.match(source):
            errors.append(
                f"{where}.src: {source!r} is not an NFS source; give the filer's name or address, ':' and the "
                "exported path, e.g. filer01:/vol/home"
            )
        options = mount.get("opts")
        if options is not None and (not isinstance(options, str) or not OPTIONS.match(options)):
            errors.append(f"{where}.opts: {options!r} is not a mount option list; give them comma-separated, no spaces")
    return errors


def nfs_errors(settings: Mapping[str, Any], storage_hosts: Sequence[str]) -> list[str]:
    """What stops the shared paths from being set up: a filer mount that cannot be written to fstab, a storage
    host beside filer mounts (the paths would come from two places), or neither."""
    filer = settings.get("filer_mounts") or []
    errors = filer_errors(filer)
    hosts = [str(host) for host in storage_hosts]
    if filer and hosts:
        errors.append(
            f"nfs_filer_mounts is set and the storage group has {', '.join(hosts)}: the shared paths come from the "
            "site's filer or from the storage host's exports, not both; empty the storage group, or drop "
            "nfs_filer_mounts"
        )
    if not filer and not hosts:
        errors.append(
            "the storage group is empty and nfs_filer_mounts is not set: put the host that exports /home, /apps "
            f"and /data in the storage group, or list the site's filer mounts in nfs_filer_mounts, e.g. [{EXAMPLE}]"
        )
    if not filer:
        exports = settings.get("exports") or []
        mounts = settings.get("client_mounts") or []
        mounts = mounts if isinstance(mounts, list) else []
        relative = [str(export.get("path")) for export in exports if not str(export.get("path", "")).startswith("/")]
        if relative:
            errors.append(f"nfs_exports: {', '.join(relative)} is not an absolute path")
        mounted = [("nfs_exports", export.get("path")) for export in exports if isinstance(export, Mapping)]
        mounted += [("nfs_client_mounts", path) for path in mounts]
        seen: set[str] = set()
        for variable, path in mounted:
            if str(path).startswith("/") and str(path) not in seen and (problem := mount_point_error(str(path))):
                errors.append(f"{variable} ({path}): {problem}")
            seen.add(str(path))
        errors += _unexported_errors(exports, mounts)
        shared_clients = str(settings.get("export_clients") or "")
        errors += _clients_errors(shared_clients)
        for index, export in enumerate(exports):
            if not isinstance(export, Mapping):
                continue
            own = export.get("clients")
            errors += _clients_errors(str(own or ""), f"nfs_exports[{index}].clients")
            errors += _root_errors(f"nfs_exports[{index}]", export, str(own or shared_clients))
    options = str(settings.get("mount_options") or "")
    if options and not OPTIONS.match(options):
        errors.append(
            f"nfs_mount_options: {options!r} is not one fstab field (options separated by commas, no spaces or line "
            "breaks), e.g. rw,hard,vers=4.1"
        )
    return errors + _health_check_errors(settings)


def _unexported_errors(exports: Sequence[Any], mounts: Sequence[Any]) -> list[str]:
    """A client mount of a path the storage host does not export (nor a directory below an exported one, which NFS
    lets clients mount): the server refuses it, and every client's run stops at its mount after the roles before
    had changed it."""
    exported = [str(export.get("path")).rstrip("/") or "/" for export in exports if isinstance(export, Mapping)]
    errors = []
    for path in mounts:
        clean = str(path).rstrip("/") or "/"
        if str(path).startswith("/") and not any(within(clean, top) for top in exported):
            errors.append(
                f"nfs_client_mounts: {path} is not exported by the storage host (nfs_exports: "
                f"{', '.join(exported) or 'none'}); add it to nfs_exports, or mount only exported paths"
            )
    return errors


def _health_check_errors(settings: Mapping[str, Any]) -> list[str]:
    """cluster_health_check's mounts at paths this role mounts, checked against the NFS type the kernel will show."""
    variable = "nfs_filer_mounts" if settings.get("filer_mounts") else "nfs_client_mounts"
    try:
        mounts = client_mounts(settings, "server")
    except (KeyError, TypeError, AttributeError):
        return []  # a malformed mount list: refused above
    mounted = {mount["path"].rstrip("/") or "/": (variable, nfs_types(mount["opts"])) for mount in mounts}
    return health_check_mount_errors(settings.get("health_check"), mounted) + _job_tmpfs_errors(
        settings.get("job_tmpfs"), mounted
    )


def _job_tmpfs_errors(tmpfs: Any, mounted: Mapping[str, tuple[str, Any]]) -> list[str]:
    """cluster_job_tmpfs' base_path on a path this role mounts: every node would keep its jobs' /tmp in the one shared
    directory, where the nodes of a job make, and remove, the same per-job directory."""
    if not isinstance(tmpfs, Mapping) or str(tmpfs.get("enabled", "")).strip().lower() not in TRUE_WORDS:
        return []
    base = str(tmpfs.get("base_path") or "/var/tmp/slurm-jobs").rstrip("/")
    for path, (variable, _types) in mounted.items():
        if within(base, path):
            return [
                f"cluster_job_tmpfs.base_path: {base} is on {path}, which every node mounts from NFS ({variable}); "
                "the nodes of a job would make and remove the same per-job directory there. Give a directory on "
                "the nodes' local disk (default /var/tmp/slurm-jobs)"
            ]
    return []


def _root_errors(where: str, export: Mapping[str, Any], clients: str) -> list[str]:
    """An export without root squashing to any host (``*``): root of every machine that reaches the server - a
    laptop on the network included - owns every file of it (/home: every user's)."""
    options = [option.strip() for option in str(export.get("options") or "").split(",")]
    if "no_root_squash" not in options or "*" not in clients.replace(",", " ").split():
        return []
    return [
        f"{where}: {export.get('path')} is exported with no_root_squash to '*': root of any machine that reaches the "
        "server owns every file there. Name the cluster's network or hosts as its clients (nfs_export_clients, or "
        "the export's clients), or keep root_squash"
    ]


def _clients_errors(clients: str, variable: str = "nfs_export_clients") -> list[str]:
    """/etc/exports' clients (``variable``: nfs_export_clients, or an export's own): an address or a network among
    them must be one netaddr reads, and a network without host bits (10.0.0.5/24 would let all of 10.0.0.0/24 mount
    /home)."""
    errors = []
    for client in clients.replace(",", " ").split():
        if not re.match(r"^[\d.:/\[\]A-Fa-f]+$", client) or not re.search(r"[.:]", client):
            continue  # a host name, a wildcard or a @netgroup
        if not is_network(client):
            errors.append(f"{variable}: {client!r} is not an address or a network (CIDR), e.g. 10.0.0.0/24")
        elif problem := host_bits_error(client):
            errors.append(f"{variable}: {problem}")
    return errors


def client_mounts(settings: Mapping[str, Any], server: str) -> list[dict[str, str]]:
    """{path, src, opts} of every mount of a client: the filer's, or the storage host's exports it mounts."""
    default_options = str(settings.get("mount_options") or "")
    filer = settings.get("filer_mounts") or []
    if filer:
        return [
            {"path": str(mount["path"]), "src": str(mount["src"]), "opts": str(mount.get("opts") or default_options)}
            for mount in filer
        ]
    return [
        {"path": str(path), "src": f"{server}:{path}", "opts": default_options}
        for path in settings.get("client_mounts") or []
    ]
