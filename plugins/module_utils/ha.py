"""Checks of the controller pair's Pacemaker settings (virtual IP, fencing) before any host is touched."""

from __future__ import annotations

import html
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

import netaddr

from .secret_text import KEEPALIVED, plain_secret_errors
from .values import whole_in_range

FENCE_AGENTS = {
    # agent -> the parameters a device of that kind cannot work without
    "fence_ipmilan": ("ip", "username", "password"),
    "fence_redfish": ("ip", "username", "password"),
    # controllers that are libvirt guests: the agent logs in to their host over SSH and runs virsh
    "fence_virsh": ("ip", "username", "password"),
}


def fence_packages(devices: Mapping[str, Any], per_agent: bool) -> list[str]:
    """The packages that ship the declared fence agents: one per agent where the distribution splits
    fence-agents (Debian 13 and later, RHEL: fence-agents-ipmilan...; the whole fence-agents of Debian 13
    pulls about 600 packages, cloud SDKs included), else the single fence-agents."""
    agents = sorted(
        {str(device.get("agent")) for device in devices.values() if isinstance(device, Mapping)} & set(FENCE_AGENTS)
    )
    if not agents:
        return []
    if not per_agent:
        return ["fence-agents"]
    return [f"fence-agents-{agent.removeprefix('fence_')}" for agent in agents]


def vip_errors(
    vip: str,
    prefix: Any,
    addresses: Mapping[str, str],
    variable: str = "pacemaker_vip",
    hosts: str = "controllers",
    *,
    netmask_variable: str = "",
) -> list[str]:
    """The virtual IP must be an address of the hosts' network that no host already has (``variable`` names where
    it was set, ``netmask_variable`` its prefix's: default ``variable``_cidr_netmask)."""
    try:
        address = netaddr.IPAddress(str(vip))
    except (netaddr.AddrFormatError, ValueError, TypeError):
        return [f"{variable} {vip!r} is not an IP address; set it to a free address of the {hosts}' network"]
    longest = 32 if address.version == 4 else 128
    if not whole_in_range(prefix, 1, longest):
        return [
            f"{netmask_variable or variable + '_cidr_netmask'} {prefix!r} is not a prefix length of {variable} {vip} "
            f"(1-{longest}); give the bits of the {hosts}' network, e.g. 24"
        ]
    network = netaddr.IPNetwork(f"{address}/{prefix}")
    unusable = _unusable_vip(address, network)
    if unusable:
        return [f"{variable} {vip} is {unusable}; pick a free unicast address of the {hosts}' network"]
    errors = []
    for host, own in addresses.items():
        if not netaddr.valid_ipv4(str(own)) and not netaddr.valid_ipv6(str(own)):
            continue  # a name (before facts are gathered): the network is checked on the hosts
        if str(own) == str(address):
            errors.append(f"{variable} {vip} is {host}'s own address; pick a free address")
        elif netaddr.IPAddress(str(own)) not in network:
            errors.append(
                f"{variable} {vip}/{prefix} is not in {host}'s network ({own}); the VIP must be on the "
                f"{hosts}' network ({netmask_variable or variable + '_cidr_netmask'})"
            )
    return errors


def _unusable_vip(address: netaddr.IPAddress, network: netaddr.IPNetwork) -> str:
    """Why an address cannot be a VIP (keepalived and IPaddr2 would add it, and nothing would answer on it), or ''."""
    if address.is_loopback() or address.is_multicast() or address.is_reserved() or int(address) == 0:
        return "a loopback, multicast, reserved or unspecified address, which no host can hold as a VIP"
    if address.is_link_local():
        return "a link-local address: it does not leave its link, and clients of other networks cannot reach it"
    if address.version == 4 and network.prefixlen <= 30 and address in (network.network, network.broadcast):
        which = "network" if address == network.network else "broadcast"
        return f"the {which} address of {network.cidr}, which no host can hold as a VIP"
    return ""


def slurm_vip_errors(vip: str, slurm_vip: str, variable: str) -> list[str]:
    """The controller address slurm.conf gives every client (SlurmctldAddr) is the VIP Pacemaker moves with
    slurmctld, or none (clients then try each SlurmctldHost)."""
    if not slurm_vip or str(slurm_vip) == str(vip):
        return []
    return [
        f"{variable} {slurm_vip} is not the pair's pacemaker_vip {vip}: slurm.conf would send every client to an "
        f"address that no controller holds; set {variable} to {vip}"
    ]


def fencing_errors(controllers: Sequence[str], devices: Mapping[str, Any], lab_without_fencing: bool) -> list[str]:
    """A fence device for every controller (IPMI or Redfish, with address and credentials), unless the lab
    setting turns fencing off."""
    if lab_without_fencing:
        declared = sorted(host for host in devices if host in controllers)
        if declared:
            # Fence devices are declared: this is not a lab without BMCs, and a split pair would run slurmctld twice.
            return [
                f"pacemaker_lab_without_fencing is true, but pacemaker_fence_devices declares devices for "
                f"{', '.join(declared)}: fencing may be off only in a lab without BMCs. Remove "
                "pacemaker_lab_without_fencing (or the devices, in a lab)"
            ]
        return []
    errors = []
    for host in controllers:
        device = devices.get(host)
        if not isinstance(device, Mapping):
            errors.append(
                f"{host}: no fence device in pacemaker_fence_devices; production controllers need one "
                f"({' or '.join(FENCE_AGENTS)}), or both could run slurmctld after a network split"
            )
            continue
        agent = device.get("agent")
        if agent not in FENCE_AGENTS:
            errors.append(f"{host}: fence agent {agent!r} is not one of {', '.join(FENCE_AGENTS)}")
            continue
        missing = [key for key in FENCE_AGENTS[agent] if not str(device.get(key) or "")]
        owned = sorted(
            {str(option).partition("=")[0] for option in device.get("options") or ()} & {"password", "password_script"}
        )
        if owned:
            errors.append(
                f"{host}: fence device option {', '.join(owned)} is the role's: give the BMC password in `password` "
                "(from Vault); the role keeps it in a root-only file the agent reads, out of the CIB"
            )
        if missing:
            errors.append(f"{host}: {agent} device lacks {', '.join(missing)}")
        elif device.get("ip"):
            try:
                netaddr.IPAddress(str(device["ip"]))
            except (netaddr.AddrFormatError, ValueError):
                errors.append(f"{host}: fence device ip {device['ip']!r} is not an IP address (BMC address)")
    for host in devices:
        if host not in controllers:
            errors.append(f"pacemaker_fence_devices names {host}, which is not a controller")
    return errors + _fence_option_errors(controllers, devices) + _shared_fence_errors(controllers, devices)


_FENCE_OPTION = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*=\S")


def _fence_option_errors(controllers: Sequence[str], devices: Mapping[str, Any]) -> list[str]:
    """Each option of a fence device is the agent's ``key=value`` (pcs takes nothing else: `lanplus 1` stopped
    `pcs stonith create` after the cluster was set up, and `lanplus` alone set no attribute)."""
    errors = []
    for host in controllers:
        device = devices.get(host)
        options = device.get("options") if isinstance(device, Mapping) else None
        if options is None:
            continue
        if isinstance(options, (str, Mapping)) or not isinstance(options, Sequence):
            errors.append(f"{host}: fence device options is not a list of key=value, e.g. [lanplus=1]")
            continue
        # (named by position and first word only: a misspelled option may hold a password)
        wrong = [
            f"options[{i}] ({(str(option).split() or [''])[0][:20]}...)"
            for i, option in enumerate(options)
            if not _FENCE_OPTION.match(str(option))
        ]
        if wrong:
            errors.append(
                f"{host}: fence device {', '.join(wrong)} not the agent's key=value (e.g. lanplus=1, ssl_insecure=1)"
            )
    return errors


def _shared_fence_errors(controllers: Sequence[str], devices: Mapping[str, Any]) -> list[str]:
    """Two controllers' IPMI fence devices that reach the same BMC: fencing one would power off the other, the one
    that should take over (the same address and options - a line copied from the other's). fence_virsh and
    fence_redfish may share an address: Pacemaker names the machine to them (the node's name as the plug)."""
    seen: dict[tuple[str, ...], list[str]] = {}
    for host in controllers:
        device = devices.get(host)
        if isinstance(device, Mapping) and device.get("ip") and device.get("agent") == "fence_ipmilan":
            options = device.get("options") if isinstance(device.get("options"), Sequence) else ()
            key = (str(device.get("agent")), str(device["ip"]), *sorted(str(option) for option in options or ()))
            seen.setdefault(key, []).append(host)
    return [
        f"{', '.join(hosts)}: their fence devices are the same ({key[0]} at {key[1]}): fencing one would power off "
        "the other, which should take over; give each controller its own BMC address"
        for key, hosts in seen.items()
        if len(hosts) > 1
    ]


def fence_address_errors(
    devices: Mapping[str, Any], vip: str, vip_variable: str, addresses: Mapping[str, str]
) -> list[str]:
    """A fence device pointed at the pair's VIP or at a host's own address instead of a BMC (a line filled in
    from the hosts' table): the agent would log in to the system it is meant to power off - no answer there
    once that system hangs, so fencing fails and Pacemaker stops the failover it was meant to make safe."""
    owners: dict[str, list[str]] = {}
    for host, address in addresses.items():
        owners.setdefault(str(address), []).append(host)
    errors = []
    for host, device in devices.items():
        ip = str(device.get("ip") or "") if isinstance(device, Mapping) else ""
        if not ip:
            continue
        if vip and ip == vip:
            errors.append(
                f"{host}: fence device ip {ip} is {vip_variable}, the address the controller in charge raises, not "
                f"a BMC: fencing {host} would log in to the controller itself; give {host}'s BMC address"
            )
        elif ip in owners:
            errors.append(
                f"{host}: fence device ip {ip} is the address of {', '.join(sorted(owners[ip]))} (the system, not "
                f"its BMC): the agent gets no answer there once the system hangs, so fencing fails; give {host}'s "
                "BMC address"
            )
    return errors


def pair_errors(controllers: Sequence[str]) -> list[str]:
    if len(controllers) != 2:
        return [
            f"inventory group 'controllers' has {len(controllers)} hosts ({', '.join(controllers)}); Pacemaker "
            "manages a slurmctld primary and backup: put exactly 2 hosts in it"
        ]
    return []


SHARED_MARKER = ".gpucluster-shared"


def shared_state_marker(controllers: Sequence[str]) -> str:
    """What the first controller of a pair writes into StateSaveLocation (``SHARED_MARKER``) for its peer to find."""
    return f"StateSaveLocation shared by {' and '.join(controllers)}\n"


def shared_state_error(host: str, controllers: Sequence[str], state_save_location: str, marker: str | None) -> str:
    """The refusal of a pair whose StateSaveLocation is not one directory of its two controllers: ``host`` does not
    see the marker the pair's first controller wrote (``marker`` None), or sees one written for another pair - the
    directory is shared beyond the pair (the pods of a federation given one StateSaveLocation on one file system, or
    another cluster's controllers), where two slurmctld would write over each other's state or stop on it; "" when
    ``host`` sees its own pair's marker."""
    path = f"{state_save_location}/{SHARED_MARKER}"
    if marker is None:
        return (
            f"{host} does not see {path} written on {controllers[0]}: StateSaveLocation must be one shared directory "
            "(NFS, or a Pacemaker-managed filesystem) mounted on both controllers before Pacemaker can move slurmctld"
        )
    if marker == shared_state_marker(controllers):
        return ""
    return (
        f"{host}: {path} says '{marker.strip()}', not {' and '.join(controllers)}: this pair's StateSaveLocation is "
        "the directory of other controllers too (another pod's of the federation, or another cluster's), where two "
        "slurmctld would write over each other's job state, or one would stop on the other's (CLUSTER NAME "
        "MISMATCH). Give each pair a directory of its own: the pod's slurm_config.StateSaveLocation in "
        "cluster_federation, or a share of its own mounted there"
    )


BALANCE = ("source", "leastconn", "roundrobin")


def backup_controller_errors(
    where: str, controllers: Sequence[str], manager: str, state_save_location: str | None
) -> list[str]:
    """A cluster's (a pod's) controllers under systemd: Slurm makes the second the first's backup, which takes over
    from StateSaveLocation - a directory both must mount. Without one set in the inventory (``state_save_location``
    None: the default, /var/spool/slurmctld on each controller's own disk) the backup would take over without the jobs
    the first held: refused, before any host is touched. Under Pacemaker the pacemaker role checks the share itself."""
    if len(controllers) < 2 or manager != "systemd" or state_save_location:
        return []
    first, backups = controllers[0], ", ".join(controllers[1:])
    return [
        f"{where}: the controllers {', '.join(controllers)} run slurmctld under systemd (slurm_ctld_manager), so "
        f"Slurm makes {backups} the backup of {first}; a backup takes over from StateSaveLocation, here the default "
        f"on each controller's own disk, and would take over without the jobs {first} held. Set StateSaveLocation "
        "(cluster_slurm_config, or the pod's slurm_config) to a directory every controller mounts, or run the pair "
        "under Pacemaker with fencing (slurm_ctld_manager: pacemaker; docs/production.md)"
    ]


def login_pool_errors(logins: Sequence[str], addresses: Mapping[str, str], settings: Mapping[str, Any]) -> list[str]:
    """The login pool: 2+ login nodes, a free VIP of their network that no other VIP uses, a VRRP router id
    and password keepalived accepts, a HAProxy balance algorithm that suits SSH. settings: {vip,
    cidr_netmask, virtual_router_id, vrrp_password, balance, ssh_port, other_vips: {variable: address}}."""
    errors = []
    if len(logins) < 2:
        errors.append(
            f"inventory group 'login' has {len(logins)} host(s); a login pool (login_pool_vip) balances 2 or more "
            "login nodes: add one, or leave login_pool_vip unset for a single login node"
        )
    vip = str(settings.get("vip") or "")
    errors += vip_errors(vip, settings.get("cidr_netmask", 24), addresses, "login_pool_vip", "login nodes")
    for variable, other in (settings.get("other_vips") or {}).items():
        if other and str(other) == vip:
            errors.append(f"login_pool_vip {vip} is also {variable}; each VIP needs its own address")
    router_id = settings.get("virtual_router_id")
    if not whole_in_range(router_id, 1, 255):
        errors.append(
            f"login_pool_virtual_router_id {router_id!r} is not a VRRP router id; use 1-255, unique on the network"
        )
    password = str(settings.get("vrrp_password") or "")
    if not password:
        errors.append(
            "login_pool_vrrp_password is empty: without VRRP authentication any host on the login network can "
            "announce itself holder of login_pool_vip and take the users' SSH sessions; set 1-8 characters from "
            "Vault (the same on every login node)"
        )
    elif len(password) > 8:
        errors.append(
            "login_pool_vrrp_password is longer than 8 characters; VRRP's PASS authentication keeps only 8, "
            "so nodes set up with different tails would not see each other: use 8 or fewer"
        )
    else:
        errors += plain_secret_errors(
            "login_pool_vrrp_password", password, "keepalived.conf (auth_pass)", KEEPALIVED, "openssl rand -base64 6"
        )
    if settings.get("balance") not in BALANCE:
        errors.append(
            f"login_pool_balance {settings.get('balance')!r} is not one of {', '.join(BALANCE)} "
            "(source keeps a user's sessions on one node)"
        )
    port = settings.get("ssh_port")
    if not whole_in_range(port, 1, 65535):
        errors.append(f"login_pool_ssh_port {port!r} is not a TCP port")
    if "advert_interval" in settings and not whole_in_range(settings["advert_interval"], 1, 255):
        errors.append(
            f"login_pool_advert_interval {settings['advert_interval']!r} is not a VRRP advertisement interval; "
            "keepalived takes 1-255 seconds"
        )
    metrics = settings.get("metrics_port")
    if "metrics_port" in settings and not whole_in_range(metrics, 1, 65535):
        errors.append(f"login_pool_metrics_port {metrics!r} is not a TCP port")
    elif "metrics_port" in settings and str(metrics) == str(port):
        errors.append(
            f"login_pool_metrics_port {metrics} is login_pool_ssh_port too; HAProxy cannot listen for both there"
        )
    for variable, taken in (settings.get("other_ports") or {}).items():
        for name, own in (("login_pool_ssh_port", port), ("login_pool_metrics_port", metrics)):
            if own is not None and str(own) == str(taken):
                errors.append(
                    f"{name} {own} is also {variable} on the login nodes; HAProxy and that service cannot both "
                    "listen there (the second one would not start) - give each its own port"
                )
    for name in ("session_timeout", "check_interval"):
        value = settings.get(name)
        if value is not None and not _HAPROXY_TIME.match(str(value)):
            errors.append(
                f"login_pool_{name} {value!r} is not a time HAProxy reads (a number with us, ms, s, m, h or d: 12h, "
                "2s); its configuration check would stop the run on the login nodes"
            )
    if "max_connections" in settings and not whole_in_range(settings["max_connections"], 1):
        errors.append(
            f"login_pool_max_connections {settings['max_connections']!r} is not a number of sessions of 1 or more "
            "(HAProxy's maxconn for SSH); the pool would take no user"
        )
    errors += interface_errors("login_pool_interface", settings.get("interface"))
    return errors


# A network interface's name as the kernel keeps it (IFNAMSIZ: 15 characters), with an optional :label (IPaddr2's
# nic); empty: the one the address's network is on.
_INTERFACE = re.compile(r"^[A-Za-z0-9_.@-]{1,15}(:[A-Za-z0-9_-]+)?$")


def interface_errors(variable: str, value: Any) -> list[str]:
    """An interface setting (login_pool_interface, pacemaker_vip_nic) that names no interface: keepalived's and
    IPaddr2's configuration would not read it, and the VIP would not come up."""
    text = str(value or "")
    if not text or _INTERFACE.match(text):
        return []
    return [
        f"{variable} {text!r} is not a network interface's name (e.g. eth0, bond0, ens1f0); give one, or leave it empty"
    ]


_HAPROXY_TIME = re.compile(r"^\d+(us|ms|s|m|h|d)?$")


# The shortest Corosync token this project lets a pair run with: below it a busy host's scheduling delays read as a
# lost peer, and each false loss fences a healthy controller.
MIN_TOKEN_MS = 500
_DURATION = re.compile(r"^(\d+)(ms|s|sec|m|min|h)?$")


def pair_settings_errors(settings: Mapping[str, Any]) -> list[str]:
    """The controller pair's timing: a Corosync token Corosync and a busy host can live with, a monitor interval
    (a positive duration: 0 would turn the monitoring of slurmctld and the VIP off) and a wait of 1 s or more.
    settings: {token_ms, monitor_interval, wait_timeout, vip_nic, fence_password_dir}."""
    errors = []
    token = settings.get("token_ms")
    if not whole_in_range(token, MIN_TOKEN_MS, 600000):
        errors.append(
            f"pacemaker_token_ms {token!r} is not a Corosync token of {MIN_TOKEN_MS}-600000 ms: a shorter one reads a "
            "busy controller as lost and fences it (3000 is Corosync's default; 1000 suits a pair on one switch)"
        )
    interval = str(settings.get("monitor_interval", "10s")).strip()
    found = _DURATION.match(interval)
    if not found or int(found.group(1)) == 0:
        errors.append(
            f"pacemaker_monitor_interval {interval!r} is not a positive interval (10s, 30s, 1min); 0 turns the "
            "monitoring of slurmctld and the VIP off"
        )
    if "wait_timeout" in settings and not whole_in_range(settings["wait_timeout"], 1, 86400):
        errors.append(f"pacemaker_wait_timeout {settings['wait_timeout']!r} is not a number of seconds (1 or more)")
    errors += interface_errors("pacemaker_vip_nic", settings.get("vip_nic"))
    directory = settings.get("fence_password_dir")
    if directory is not None and not re.fullmatch(r"/[^\s]*[^\s/]", str(directory)):
        errors.append(
            f"pacemaker_fence_password_dir {directory!r} is not an absolute directory; the fence agent reads the BMC "
            "passwords from there on each controller (default /etc/gpucluster/fence)"
        )
    return errors


def fence_password_file(password_dir: str, host: str) -> str:
    """Where each controller keeps the BMC password of ``host``'s fence device (0400 root; read by the fence
    agent, which pacemaker-fenced runs as root)."""
    return f"{password_dir.rstrip('/')}/{host}"


def stonith_parameters(host: str, device: Mapping[str, Any], password_dir: str) -> dict[str, str]:
    """The instance attributes a controller's fence device must carry. The password is never one of them: the
    CIB is copied to both controllers and readable by the haclient group, and `pcs stonith create/update` would
    show it on a command line. The agent reads it from a root-only file through its `password_script`
    (`password` is kept empty: a device made before this carried it there). An empty value: no attribute."""
    password = bool(str(device.get("password") or ""))
    wanted = {
        "ip": str(device.get("ip") or ""),
        "username": str(device.get("username") or ""),
        "password": "",
        "password_script": f"/bin/cat {shlex.quote(fence_password_file(password_dir, host))}" if password else "",
        "pcmk_host_list": host,
    }
    for option in device.get("options") or ():
        key, _, value = str(option).partition("=")
        wanted[key] = value
    return wanted


def stonith_create_options(host: str, device: Mapping[str, Any], password_dir: str) -> list[str]:
    """`key=value` options of `pcs stonith create fence-<host>` (the attributes that are set)."""
    return [f"{key}={value}" for key, value in stonith_parameters(host, device, password_dir).items() if value]


def stonith_changes(cib_xml: str, wanted: Mapping[str, str]) -> list[str]:
    """The names of the fence device's instance attributes that differ from ``wanted`` in the CIB's primitive
    (`cibadmin --query --xpath "//primitive[@id='fence-<host>']"`): a changed BMC address or password must reach
    the cluster, or fencing fails exactly when it is needed. An empty wanted value: the attribute must be absent."""
    found: dict[str, str] = {}
    for match in re.finditer(r"<nvpair\b([^>]*)/?>", cib_xml):
        attributes = dict(re.findall(r'(\w+)="([^"]*)"', match.group(1)))
        if "name" in attributes:
            found[attributes["name"]] = html.unescape(attributes.get("value", ""))
    return sorted(key for key, value in wanted.items() if found.get(key, "") != value)
