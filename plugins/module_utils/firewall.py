"""The host firewall (nftables) and the port table, from one set of data.

Each host opens what the services the inventory puts on it need, to the hosts that need them, and nothing else:
`openings()` lists them per role of a host, `ruleset()` writes one host's nftables table, `port_table()` the
documentation's table. A source is a named set of addresses: `cluster` (every inventory host), an inventory
group (`controllers`, `dbd`, `galera`, `login`, `compute`, `monitoring`), `admins` (firewall_admin_networks:
anywhere where none is given) or `anyone`.

Compute nodes accept everything from each other: a job's own traffic (NCCL, torchrun's rendezvous, MPI, DeepSpeed's
ssh launcher) uses ports nobody can list in advance. srun and salloc listen in SrunPortRange, which slurm.conf
sets so that the range can be opened on the hosts that run them (compute and login nodes, and the controllers
where users or operators run commands).

The table is the collection's own (`table inet gpucluster`): other tables (a site's own, Docker's) are left as
they are. Its input chain drops what it does not accept; established connections, loopback and ICMP pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import netaddr

from .addresses import host_bits_error, is_network
from .cluster_types import Cluster
from .monitoring import DEFAULT_PORTS
from .slurmconf import merged_settings
from .validate import DBD_PORT, SLURMCTLD_PORT, SLURMD_PORT, SRUN_PORT_RANGE

TABLE = "gpucluster"
ROLES = ("controllers", "dbd", "galera", "login", "compute", "storage", "monitoring")
SOURCES = ("cluster", "controllers", "dbd", "galera", "login", "compute", "monitoring", "admins", "anyone")
# Galera's replication (and its UDP multicast fallback), incremental and full state transfer
GALERA_PORTS = (("tcp", "4567"), ("udp", "4567"), ("tcp", "4568"), ("tcp", "4444"))


@dataclass(frozen=True)
class Opening:
    service: str
    protocol: str  # tcp, udp, or vrrp (no port)
    ports: str  # "6817", "60001-63000"; "" for every port (compute from compute) or no port (vrrp)
    sources: tuple[str, ...]
    why: str


@dataclass(frozen=True)
class Services:
    """What the inventory runs, as the firewall needs it."""

    slurmctld_ports: str = str(SLURMCTLD_PORT)
    slurmd_port: int = SLURMD_PORT
    dbd_port: int = DBD_PORT
    srun_ports: str = SRUN_PORT_RANGE
    rest_api_port: int = 0  # 0: no slurmrestd
    ssh_port: int = 22
    ports: Mapping[str, int] = field(default_factory=dict)  # exporters, Prometheus, Alertmanager, Grafana
    dcgm: bool = False
    grafana: bool = True
    pacemaker: bool = False  # the controllers are a Pacemaker pair
    login_pool: bool = False  # the login nodes share a VIP (keepalived, HAProxy)
    login_pool_ssh_port: int = 22


def _port(services: Services, name: str) -> str:
    defaults = {**DEFAULT_PORTS, "grafana": 3000}
    return str(services.ports.get(name, defaults[name]))


def _every_host(services: Services) -> list[Opening]:
    return [
        Opening("ssh", "tcp", str(services.ssh_port), ("admins",), "administration"),
        Opening("node_exporter", "tcp", _port(services, "node"), ("monitoring",), "Prometheus scrapes every host"),
    ]


def _controllers(services: Services) -> list[Opening]:
    found = [
        Opening("slurmctld", "tcp", services.slurmctld_ports, ("cluster",), "slurmd, client commands, slurmdbd"),
        Opening("srun", "tcp", services.srun_ports, ("cluster",), "srun/salloc of operators (SrunPortRange)"),
        Opening("slurm_exporter", "tcp", _port(services, "slurm"), ("monitoring",), "Prometheus"),
    ]
    if services.rest_api_port:
        found.append(
            Opening(
                "slurmrestd",
                "tcp",
                str(services.rest_api_port),
                ("cluster", "admins"),
                "the REST API (JWT): jobs, portals",
            )
        )
    if services.pacemaker:
        found += [
            Opening("corosync", "udp", "5405", ("controllers",), "Corosync between the pair"),
            Opening("pcsd", "tcp", "2224", ("controllers",), "pcs between the pair"),
        ]
    return found


def _dbd(services: Services) -> list[Opening]:
    return [
        Opening("slurmdbd", "tcp", str(services.dbd_port), ("cluster",), "slurmctld, sacct and sacctmgr anywhere"),
        Opening("mariadb", "tcp", "3306", ("dbd",), "slurmdbd"),
        Opening("mysqld_exporter", "tcp", _port(services, "mysqld"), ("monitoring",), "Prometheus"),
    ]


def _galera(services: Services) -> list[Opening]:
    found = [Opening("mariadb", "tcp", "3306", ("dbd", "galera"), "slurmdbd and Galera's donors")]
    found += [
        Opening("galera", protocol, port, ("galera",), "replication and state transfer")
        for protocol, port in GALERA_PORTS
    ]
    return found


def _login(services: Services) -> list[Opening]:
    found = [
        Opening("ssh", "tcp", str(services.ssh_port), ("anyone",), "users log in"),
        Opening("srun", "tcp", services.srun_ports, ("cluster",), "srun/salloc of users (SrunPortRange)"),
    ]
    if services.login_pool:
        if services.login_pool_ssh_port != services.ssh_port:
            found.append(Opening("haproxy", "tcp", str(services.login_pool_ssh_port), ("anyone",), "the login VIP"))
        found += [
            Opening("vrrp", "vrrp", "", ("login",), "keepalived between the login nodes"),
            Opening("haproxy_exporter", "tcp", _port(services, "haproxy"), ("monitoring",), "Prometheus"),
        ]
    return found


def _compute(services: Services) -> list[Opening]:
    found = [
        Opening("slurmd", "tcp", str(services.slurmd_port), ("cluster",), "slurmctld, srun, other slurmd"),
        Opening("srun", "tcp", services.srun_ports, ("cluster",), "srun in batch scripts (SrunPortRange)"),
        Opening("jobs", "any", "", ("compute",), "a job's own traffic between its nodes (NCCL, MPI, torchrun)"),
        Opening("ssh", "tcp", str(services.ssh_port), ("login",), "users reach the nodes of their jobs"),
    ]
    if services.dcgm:
        found.append(Opening("dcgm_exporter", "tcp", _port(services, "dcgm"), ("monitoring",), "Prometheus"))
    return found


def _storage(services: Services) -> list[Opening]:
    return [Opening("nfs", "tcp", "2049", ("cluster",), "NFSv4 clients")]


def _monitoring(services: Services) -> list[Opening]:
    found = [
        Opening("prometheus", "tcp", _port(services, "prometheus"), ("admins", "monitoring"), "queries"),
        Opening("alertmanager", "tcp", _port(services, "alertmanager"), ("admins", "monitoring"), "Prometheus"),
    ]
    if services.grafana:
        found.append(Opening("grafana", "tcp", _port(services, "grafana"), ("admins",), "dashboards"))
    return found


BY_ROLE = {
    "controllers": _controllers,
    "dbd": _dbd,
    "galera": _galera,
    "login": _login,
    "compute": _compute,
    "storage": _storage,
    "monitoring": _monitoring,
}


def openings(roles: Iterable[str], services: Services) -> list[Opening]:
    """What a host with these roles opens, each (service, protocol, ports) once with the union of its sources."""
    found = _every_host(services)
    for role in ROLES:
        if role in roles:
            found += BY_ROLE[role](services)
    merged: dict[tuple[str, str, str], Opening] = {}
    for opening in found:
        key = (opening.service, opening.protocol, opening.ports)
        if key in merged:
            before = merged[key]
            sources = tuple(dict.fromkeys(before.sources + opening.sources))
            if "anyone" in sources:
                sources = ("anyone",)
            merged[key] = Opening(before.service, before.protocol, before.ports, sources, before.why)
        else:
            merged[key] = opening
    return list(merged.values())


def host_roles(host: str, groups: Mapping[str, Sequence[str]]) -> list[str]:
    return [role for role in ROLES if host in groups.get(role, ())]


def _set_name(source: str, family: int) -> str:
    return f"{source}{family}"


def _rule(opening: Opening, sources: Mapping[str, Sequence[netaddr.IPNetwork]]) -> list[str]:
    comment = f'comment "{opening.service}: {opening.why}"'
    if opening.protocol == "vrrp":
        match = "ip protocol vrrp"
        match6 = "ip6 nexthdr vrrp"
    elif opening.protocol == "any":
        match = match6 = ""
    else:
        match = match6 = f"{opening.protocol} dport {opening.ports}"
    if "anyone" in opening.sources:
        return [" ".join(part for part in (match, "accept", comment) if part)]
    lines = []
    for source in opening.sources:
        for family, keyword, proto_match in ((4, "ip", match), (6, "ip6", match6)):
            if any(network.version == family for network in sources.get(source, ())):
                parts = [f"{keyword} saddr @{_set_name(source, family)}", proto_match, "accept", comment]
                lines.append(" ".join(part for part in parts if part))
    return lines


def source_networks(
    groups: Mapping[str, Sequence[str]], addresses: Mapping[str, str], admin_networks: Sequence[str]
) -> dict[str, list[netaddr.IPNetwork]]:
    """Each source's addresses: a group's hosts' (host routes), the admins' networks (anywhere when none)."""
    found: dict[str, list[netaddr.IPNetwork]] = {}
    for source in SOURCES:
        if source == "anyone":
            continue
        if source == "admins":
            networks = admin_networks or ["0.0.0.0/0", "::/0"]
            found[source] = netaddr.cidr_merge([netaddr.IPNetwork(network) for network in networks])
            continue
        hosts = groups.get("all", ()) if source == "cluster" else groups.get(source, ())
        found[source] = netaddr.cidr_merge([netaddr.IPNetwork(addresses[host]) for host in hosts if host in addresses])
    return found


def ruleset(host_openings: Sequence[Opening], sources: Mapping[str, Sequence[netaddr.IPNetwork]]) -> str:
    """The host's table, applied in one transaction by `nft -f` (created, emptied, filled: never half there)."""
    lines = [
        "#!/usr/sbin/nft -f",
        "# Written by gpucluster (the firewall role): this host's openings, from the inventory.",
        f"table inet {TABLE}",
        f"delete table inet {TABLE}",
        f"table inet {TABLE} {{",
    ]
    for source in sources:
        for family, kind in ((4, "ipv4_addr"), (6, "ipv6_addr")):
            networks = [str(network) for network in sources[source] if network.version == family]
            if not networks:
                continue
            lines += [f"  set {_set_name(source, family)} {{", f"    type {kind}", "    flags interval"]
            lines += [f"    elements = {{ {', '.join(networks)} }}", "  }"]
    lines += [
        "  chain input {",
        "    type filter hook input priority filter; policy drop;",
        "    ct state established,related accept",
        "    ct state invalid drop",
        '    iifname "lo" accept',
        "    meta l4proto { icmp, ipv6-icmp } accept",
    ]
    for opening in host_openings:
        lines += [f"    {line}" for line in _rule(opening, sources)]
    lines += ["  }", "}", ""]
    return "\n".join(lines)


def port_table(services: Services) -> list[str]:
    """The documentation's table: per role of a host, what it opens and to whom (markdown rows)."""
    rows = ["| host's role | service | protocol | port | from | why |", "|---|---|---|---|---|---|"]
    rows += [_row("every host", opening) for opening in _every_host(services)]
    for role in ROLES:
        rows += [_row(role, opening) for opening in BY_ROLE[role](services)]
    return rows


def _row(role: str, opening: Opening) -> str:
    port = opening.ports or ("every port" if opening.protocol == "any" else "-")
    sources = ", ".join(opening.sources)
    return f"| {role} | {opening.service} | {opening.protocol} | {port} | {sources} | {opening.why} |"


def _setting(settings: Mapping[str, object], key: str, default: str) -> str:
    for name, value in settings.items():
        if name.lower() == key.lower() and value not in (None, ""):
            return str(value)
    return default


def cluster_ports(cluster: Cluster) -> dict[str, Any]:
    """What the firewall takes from the cluster model: the ports of its slurm.conf (cluster_slurm_config included),
    the REST API's, and whether Pacemaker runs (the controllers share a VIP) - plain data, part of the run's plan."""
    settings = merged_settings(cluster)
    return {
        "slurmctld_ports": _setting(settings, "SlurmctldPort", str(SLURMCTLD_PORT)),
        "slurmd_port": int(_setting(settings, "SlurmdPort", str(SLURMD_PORT))),
        "dbd_port": int(_setting(settings, "AccountingStoragePort", str(DBD_PORT))),
        "srun_ports": _setting(settings, "SrunPortRange", SRUN_PORT_RANGE),
        "rest_api_port": cluster.rest_api.port if cluster.rest_api.enabled else 0,
        "pacemaker": bool(cluster.controller_vip),
    }


def services(cluster: Mapping[str, Any], roles: Mapping[str, object]) -> Services:
    """The cluster's ports (cluster_ports) and the roles' settings: ports (exporter -> port), dcgm, grafana,
    login_pool, login_pool_ssh_port, ssh_port."""
    ports = roles.get("ports")
    return Services(
        slurmctld_ports=str(cluster["slurmctld_ports"]),
        slurmd_port=int(cluster["slurmd_port"]),
        dbd_port=int(cluster["dbd_port"]),
        srun_ports=str(cluster["srun_ports"]),
        rest_api_port=int(cluster["rest_api_port"]),
        ssh_port=int(str(roles.get("ssh_port") or 22)),
        ports={str(name): int(str(port)) for name, port in ports.items()} if isinstance(ports, Mapping) else {},
        dcgm=bool(roles.get("dcgm")),
        grafana=bool(roles.get("grafana", True)),
        pacemaker=bool(cluster["pacemaker"]),
        login_pool=bool(roles.get("login_pool")),
        login_pool_ssh_port=int(str(roles.get("login_pool_ssh_port") or 22)),
    )


def errors(admin_networks: object) -> list[str]:
    """What is wrong with the firewall's settings, each naming the variable and the fix."""
    if not isinstance(admin_networks, list):
        return [f"firewall_admin_networks: {admin_networks!r} is not a list; give CIDRs, e.g. [10.0.0.0/24]"]
    found = []
    for network in admin_networks:
        if not is_network(str(network)):
            found.append(
                f"firewall_admin_networks: {network!r} is not an address or a network; write it as a CIDR, "
                "e.g. 10.0.0.0/24 or 2001:db8::/64"
            )
        elif problem := host_bits_error(str(network)):
            found.append(f"firewall_admin_networks: {problem}")
    return found


def admits(
    host_openings: Sequence[Opening], sources: Mapping[str, Sequence[netaddr.IPNetwork]], address: str, port: int
) -> bool:
    """Whether the table lets a TCP connection from address to port in (Ansible's own SSH connection)."""
    try:
        client = netaddr.IPAddress(address)
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return True  # not an address (a local or container connection): nothing to lock out
    for opening in host_openings:
        if opening.protocol not in ("tcp", "any") or not _holds(opening.ports, port):
            continue
        if "anyone" in opening.sources:
            return True
        if any(client in network for source in opening.sources for network in sources.get(source, ())):
            return True
    return False


def _holds(ports: str, port: int) -> bool:
    if not ports:
        return True
    low, _, high = ports.partition("-")
    return int(low) <= port <= int(high or low)


EXTRA_NAME = re.compile(r"^[a-z][a-z0-9_]{0,30}$")
PORTS = re.compile(r"^([0-9]{1,5})(?:-([0-9]{1,5}))?$")


def _ports_error(ports: str) -> str:
    found = PORTS.match(ports)
    if not found:
        return "is not a port or a range (6817, 60001-63000)"
    low, high = int(found.group(1)), int(found.group(2) or found.group(1))
    if not 1 <= low <= high <= 65535:
        return "is outside 1-65535 or a range that ends before it starts"
    return ""


def extra_errors(extras: object, groups: Mapping[str, Sequence[str]]) -> list[str]:
    """What is wrong with firewall_extra_openings, each entry named by its position and name."""
    if not isinstance(extras, list):
        return [f"firewall_extra_openings: {extras!r} is not a list of openings"]
    found: list[str] = []
    names: set[str] = set()
    for index, extra in enumerate(extras):
        where = f"firewall_extra_openings[{index}]"
        if not isinstance(extra, Mapping):
            found.append(f"{where}: {extra!r} is not a mapping (name, hosts, protocol, ports, sources, why)")
            continue
        name = str(extra.get("name", ""))
        where += f" ({name})" if name else ""
        unknown = sorted(set(extra) - {"name", "hosts", "protocol", "ports", "sources", "why"})
        if unknown:
            found.append(f"{where}: unknown keys {', '.join(unknown)}; use name, hosts, protocol, ports, sources, why")
        if not EXTRA_NAME.match(name) or name in names or name in SOURCES:
            found.append(
                f"{where}: name {name!r} must be lower-case letters, digits and _, unique, and not a source's name"
            )
        names.add(name)
        hosts = str(extra.get("hosts", ""))
        if hosts not in groups:
            found.append(f"{where}: hosts {hosts!r} is not a group of the inventory; name one (compute, login, all)")
        protocol = str(extra.get("protocol", "tcp"))
        if protocol not in ("tcp", "udp"):
            found.append(f"{where}: protocol {protocol!r} is neither tcp nor udp")
        problem = _ports_error(str(extra.get("ports", "")))
        if problem:
            found.append(f"{where}: ports {extra.get('ports')!r} {problem}")
        sources = extra.get("sources")
        if not isinstance(sources, list) or not sources:
            found.append(f"{where}: sources must be a list of CIDRs or of {', '.join(SOURCES)}")
            continue
        for source in sources:
            if str(source) not in SOURCES and not is_network(str(source)):
                found.append(f"{where}: source {source!r} is neither a network (CIDR) nor one of {', '.join(SOURCES)}")
            elif str(source) not in SOURCES and (host_bits := host_bits_error(str(source))):
                found.append(f"{where}: source {host_bits}")
    return found


def extra_openings(
    host: str, groups: Mapping[str, Sequence[str]], extras: Sequence[Mapping[str, object]]
) -> tuple[list[Opening], dict[str, list[netaddr.IPNetwork]]]:
    """The site's own openings on this host (firewall_extra_openings), and the sets of their networks."""
    found: list[Opening] = []
    networks: dict[str, list[netaddr.IPNetwork]] = {}
    for extra in extras:
        if host not in groups.get(str(extra["hosts"]), ()):
            continue
        name = str(extra["name"])
        listed = [str(source) for source in extra["sources"]]  # type: ignore[attr-defined]
        cidrs = [source for source in listed if source not in SOURCES]
        sources = tuple(source for source in listed if source in SOURCES)
        if cidrs:
            networks[f"{name}_nets"] = netaddr.cidr_merge([netaddr.IPNetwork(cidr) for cidr in cidrs])
            sources += (f"{name}_nets",)
        why = str(extra.get("why") or "the site's own opening")
        found.append(Opening(name, str(extra.get("protocol", "tcp")), str(extra["ports"]), sources, why))
    return found, networks
