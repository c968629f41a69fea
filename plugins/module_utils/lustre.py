"""The Lustre client of the compute and login nodes: LNet networks and mounts from the inventory, checked
before any host is touched, and the strings the role writes (lnet module options, mount sources)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import netaddr

from .mount_points import health_check_mount_errors, mount_point_error

NET = re.compile(r"^(tcp|o2ib)(\d*)$")
INTERFACE = re.compile(r"^[A-Za-z0-9_.:-]{1,15}$")
FSNAME = re.compile(r"^[A-Za-z0-9_-]{1,8}$")


def net_name(name: str) -> str:
    """LNet's own spelling: tcp and o2ib are tcp0 and o2ib0."""
    match = NET.match(name)
    return f"{match.group(1)}{match.group(2) or '0'}" if match else name


def lnet_networks(networks: Sequence[Mapping[str, Any]]) -> str:
    """The lnet module's `networks=` value: o2ib0(ib0,ib1),tcp0(eth0)."""
    return ",".join(f"{net_name(str(net['name']))}({','.join(net['interfaces'])})" for net in networks)


def mount_source(mount: Mapping[str, Any]) -> str:
    """mount -t lustre source: the MGS nodes (failover partners joined by ':', one node's NIDs by ','), then
    the file system name."""
    return ":".join(str(node) for node in mount["mgs_nids"]) + ":/" + str(mount["fsname"])


def network_errors(networks: Any) -> list[str]:
    if not isinstance(networks, list) or not networks:
        return ["lustre_lnet_networks is empty; list the LNet networks, e.g. [{name: o2ib0, interfaces: [ib0]}]"]
    errors: list[str] = []
    seen: set[str] = set()
    for index, net in enumerate(networks):
        where = f"lustre_lnet_networks[{index}]"
        if not isinstance(net, Mapping):
            errors.append(f"{where}: {net!r} is not a mapping with name and interfaces")
            continue
        name = str(net.get("name", ""))
        if not NET.match(name):
            errors.append(
                f"{where}.name: {name!r} is not an LNet network; use tcpN (Ethernet) or o2ibN (InfiniBand/RoCE)"
            )
        elif net_name(name) in seen:
            errors.append(f"{where}.name: {net_name(name)} is listed twice")
        seen.add(net_name(name))
        interfaces = net.get("interfaces")
        if not isinstance(interfaces, list) or not interfaces:
            errors.append(f"{where}.interfaces: list the interfaces LNet uses on {name}, e.g. [ib0]")
        else:
            errors += [
                f"{where}.interfaces: {iface!r} is not an interface name"
                for iface in interfaces
                if not INTERFACE.match(str(iface))
            ]
    return errors


def nid_errors(where: str, node: str, networks: set[str]) -> list[str]:
    errors = []
    for nid in str(node).split(","):
        address, _, net = nid.partition("@")
        if not net:
            errors.append(f"{where}: {nid!r} is not a NID; write <address>@<network>, e.g. 10.0.0.1@o2ib0")
            continue
        if not netaddr.valid_ipv4(address):
            errors.append(f"{where}: {nid!r} does not start with an IPv4 address")
        if net_name(net) not in networks:
            errors.append(
                f"{where}: {nid!r} is on LNet network {net_name(net)}, which lustre_lnet_networks does not "
                f"declare ({', '.join(sorted(networks)) or 'none'}); the client could not reach the MGS"
            )
    return errors


def mount_errors(mounts: Any, networks: set[str]) -> list[str]:
    if not isinstance(mounts, list):
        return [f"lustre_mounts is {type(mounts).__name__}; make it a list of {{fsname, mgs_nids, path}}"]
    errors: list[str] = []
    paths: set[str] = set()
    for index, mount in enumerate(mounts):
        where = f"lustre_mounts[{index}]"
        if not isinstance(mount, Mapping):
            errors.append(f"{where}: {mount!r} is not a mapping with fsname, mgs_nids and path")
            continue
        fsname = str(mount.get("fsname", ""))
        if not FSNAME.match(fsname):
            errors.append(f"{where}.fsname: {fsname!r} is not a Lustre file system name (1-8 letters, digits, - or _)")
        path = str(mount.get("path", ""))
        if not path.startswith("/") or path.rstrip("/") in ("", "/") or any(char.isspace() for char in path):
            errors.append(f"{where}.path: {path!r} is not an absolute mount point below / (without spaces)")
        elif path in paths:
            errors.append(f"{where}.path: {path} is mounted twice")
        elif problem := mount_point_error(path):
            errors.append(f"{where}.path: {problem}")
        paths.add(path)
        nids = mount.get("mgs_nids")
        if not isinstance(nids, list) or not nids:
            errors.append(f"{where}.mgs_nids: list the MGS NIDs (failover partners in order), e.g. [10.0.0.1@o2ib0]")
        else:
            for node in nids:
                errors += nid_errors(f"{where}.mgs_nids", str(node), networks)
        options = mount.get("options", [])
        if not isinstance(options, list) or any(_not_one_option(option) for option in options):
            errors.append(f"{where}.options: give a list of single options, e.g. [flock, _netdev]")
    return errors


def _not_one_option(option: Any) -> bool:
    """An item that is no single mount option: a comma joins two, a space or line break would split the fstab line
    (its fields are separated by blanks; a broken line can stop the node's boot)."""
    text = str(option)
    return not text or "," in text or any(char.isspace() for char in text)


def shared_mount_errors(mounts: Any, others: Mapping[str, Any]) -> list[str]:
    """A Lustre mount point that another role mounts too (``others``: variable -> its mounts, each a path or a
    mapping with one): the later mount hides the earlier - users' /home would show another file system's files."""
    if not isinstance(mounts, list):
        return []
    taken: dict[str, str] = {}
    for variable, items in others.items():
        for item in items if isinstance(items, list) else []:
            path = item.get("path") if isinstance(item, Mapping) else item
            if isinstance(path, str) and path.startswith("/"):
                taken.setdefault(path.rstrip("/") or "/", variable)
    return [
        f"lustre_mounts[{index}].path: {mount['path']} is also mounted by {taken[str(mount['path']).rstrip('/')]}; one "
        "file system would hide the other - give Lustre its own mount point (e.g. /lustre/<fsname>)"
        for index, mount in enumerate(mounts)
        if isinstance(mount, Mapping) and str(mount.get("path", "")).rstrip("/") in taken
    ]


def lustre_errors(settings: Mapping[str, Any]) -> list[str]:
    """Everything wrong with the client settings: {lnet_networks, mounts, mount_options, other_mounts} (other_mounts:
    variable -> the mounts another role makes, which a Lustre mount may not hide)."""
    networks = settings.get("lnet_networks")
    errors = network_errors(networks)
    declared = {net_name(str(net.get("name"))) for net in networks or [] if isinstance(net, Mapping)}
    errors += mount_errors(settings.get("mounts"), declared)
    common = settings.get("mount_options") or []
    if not isinstance(common, list) or any(_not_one_option(option) for option in common):
        errors.append("lustre_mount_options: give a list of single options, e.g. [flock, _netdev]")
    errors += shared_mount_errors(settings.get("mounts"), settings.get("other_mounts") or {})
    mounts = settings.get("mounts")
    mounted = {
        str(mount["path"]).rstrip("/") or "/": ("lustre_mounts", ("lustre",))
        for mount in (mounts if isinstance(mounts, list) else [])
        if isinstance(mount, Mapping) and isinstance(mount.get("path"), str)
    }
    return errors + health_check_mount_errors(settings.get("health_check"), mounted)
