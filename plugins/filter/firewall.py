"""Filters that turn the inventory into each host's firewall (nftables), through the cluster model."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import netaddr
from ansible.errors import AnsibleFilterError
from ansible_collections.gpucluster.cluster.plugins.module_utils.firewall import (
    admits,
    errors,
    extra_errors,
    extra_openings,
    host_roles,
    openings,
    ruleset,
    services,
    source_networks,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.plan import host_pod
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.facts import default_ipv4_address


def _address(variables: Mapping[str, Any]) -> str:
    """The host's ansible_host where it is an IP address, else its default IPv4 address fact (as /etc/hosts)."""
    given = str(variables.get("ansible_host") or "")
    if given and (netaddr.valid_ipv4(given) or netaddr.valid_ipv6(given)):
        return given
    return default_ipv4_address(variables)


def firewall_ruleset(
    plan: Mapping[str, Any],
    host: str,
    groups: Mapping[str, Sequence[str]],
    hostvars: Mapping[str, Any],
    settings: Mapping[str, Any],
) -> str:
    """The nftables table of one host: what its roles (inventory groups) open, to the hosts that need it.
    settings: admin_networks (CIDRs; anywhere when empty), extra_openings (the site's own), ports (exporter ->
    port), dcgm, grafana, login_pool, login_pool_ssh_port, ssh_port, ansible_client (the address Ansible's SSH
    comes from: a table that would shut it out is refused). Every inventory host needs an address (ansible_host or
    gathered facts)."""
    ports = plan["firewall"]["ports"]
    cluster = ports.get(host_pod(plan, host), next(iter(ports.values())))
    addresses = {name: _address(hostvars[name]) for name in groups.get("all", ())}
    missing = sorted(name for name, address in addresses.items() if not address)
    if missing:
        raise AnsibleFilterError(
            f"no address for {', '.join(missing)}: no gathered facts and no ansible_host; the firewall opens ports to "
            "every host by address. Run without --limit once, or set ansible_host"
        )
    found = openings(host_roles(host, groups), services(cluster, settings))
    networks: dict[str, Any] = source_networks(groups, addresses, list(settings.get("admin_networks") or []))
    extras = list(settings.get("extra_openings") or [])
    problems = extra_errors(extras, groups)
    if problems:
        raise AnsibleFilterError("invalid firewall settings:\n- " + "\n- ".join(problems))
    site, site_networks = extra_openings(host, groups, extras)
    networks.update(site_networks)
    client, port = str(settings.get("ansible_client") or ""), int(str(settings.get("ssh_port") or 22))
    if client and not admits(found + site, networks, client, port):
        raise AnsibleFilterError(
            f"{host}: its firewall would not let SSH in from {client}, the address this run reaches it from, and "
            "Ansible would be locked out; add that address (or its network) to firewall_admin_networks"
        )
    return ruleset(found + site, networks)


def firewall_errors(
    admin_networks: Any,
    extra: Any,
    groups: Mapping[str, Sequence[str]],
    ruleset_path: Any = "/etc/gpucluster/firewall.nft",
) -> list[str]:
    """What is wrong with the firewall's settings (firewall_admin_networks: CIDRs; firewall_extra_openings;
    firewall_ruleset_path: the absolute file the service loads), each naming the variable."""
    path = str(ruleset_path or "")
    where = (
        []
        if re.fullmatch(r"/[^\s]*[^\s/]", path)
        else [f"firewall_ruleset_path: {path!r} is not an absolute file name (default /etc/gpucluster/firewall.nft)"]
    )
    return errors(admin_networks) + extra_errors(extra, groups) + where


class FilterModule:
    """gpucluster.cluster firewall filters."""

    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "firewall_ruleset": firewall_ruleset,
            "firewall_errors": firewall_errors,
        }
