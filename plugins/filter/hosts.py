"""Filters that gather what each host of a play reported, for the tasks that decide over all of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ansible.errors import AnsibleUndefinedVariable
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.facts import default_ipv4_address
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.inventory_text import may_set


def host_values(
    hosts: Iterable[str], hostvars: Mapping[str, Any], name: str, attribute: str = "", default: Any = ""
) -> dict[str, Any]:
    """Each host's variable ``name`` by host (a registered result's ``attribute`` where one is named), ``default``
    ("" unless given) where the host has none: the variable unset, or undefined where it is read (a template over
    facts not gathered), or the result skipped and without the attribute."""
    values: dict[str, Any] = {}
    for host in hosts:
        try:
            value = hostvars[host].get(name)
        except AnsibleUndefinedVariable:
            value = None
        if attribute:
            value = value.get(attribute) if isinstance(value, Mapping) else None
        values[host] = default if value is None else value
    return values


def validation_host(limit_hosts: Sequence[str] | None) -> str:
    """The host the validation plays run in the name of (on the controller): the first host of ``--limit``
    (C(query('ansible.builtin.inventory_hostnames', ansible_limit))), so that a limited run is validated too, else
    localhost. The opening play's C(hosts) calls it, and Ansible templates that keyword in its main process: the
    collection's filter plugins are loaded there once, at the start of the run, and every worker Ansible forks for a
    host and a task inherits them, instead of loading them all again (0.1 s of CPU each time)."""
    return str(limit_hosts[0]) if limit_hosts else "localhost"


def inventory_setters(
    hosts: Sequence[str], variable: str, inventory_sources: Sequence[str], playbook_dir: str = ""
) -> list[str]:
    """The hosts whose ``variable`` a check must read one by one: all of ``hosts`` where the inventory's files
    (``inventory_sources``; group_vars and host_vars beside the playbook) may set it for some of them, else the first
    alone - every host then has the value the run gives all (the role's default, an extra variable), and reading it
    per host costs Ansible a full variable merge each (seconds at thousands of hosts). ``variable`` may be the start of
    several names (C(gpu_fabric_))."""
    return list(hosts) if may_set(inventory_sources, variable, playbook_dir) else list(hosts[:1])


def _address(variables: Mapping[str, Any], override: str = "") -> str:
    """The host's ``override`` variable where set, else its default IPv4 address (facts), else its ansible_host;
    "" without any."""
    given = variables.get(override) if override else None
    return str(given or default_ipv4_address(variables) or variables.get("ansible_host") or "")


def host_addresses(hosts: Iterable[str], hostvars: Mapping[str, Any], override: str = "") -> dict[str, str]:
    """Each host's address for a service among the hosts: the host's ``override`` variable where set (e.g.
    pacemaker_node_address), else its default IPv4 address (gathered facts), else its ansible_host (the tier-1
    validation runs before facts), else its name."""
    return {host: host_address(host, hostvars, override) for host in hosts}


def host_address(host: str, hostvars: Mapping[str, Any], override: str = "") -> str:
    """One host's address, as host_addresses gives it: its ``override`` variable where set, else its default IPv4
    address, else its ansible_host, else its name."""
    return _address(hostvars[host], override) or host


def etc_hosts(hosts: Iterable[str], hostvars: Mapping[str, Any], distinct: Iterable[str] = ()) -> dict[str, Any]:
    """/etc/hosts' lines for the hosts ("address name", by name; the address from the host's facts, else its
    ansible_host), the hosts that have neither (a run with --limit whose other hosts' facts are not cached) and, for
    the hosts that must each be a machine of their own (``distinct``: Slurm's nodes and controllers), each address
    two or more of them share: {block, missing, shared}."""
    addresses = {host: _address(hostvars[host]) for host in sorted(hosts, key=str.lower)}
    holders: dict[str, list[str]] = {}
    for host in dict.fromkeys(str(name) for name in distinct):
        if addresses.get(host):
            holders.setdefault(addresses[host], []).append(host)
    return {
        "block": "".join(f"{address} {host}\n" for host, address in addresses.items() if address),
        "missing": [host for host, address in addresses.items() if not address],
        "shared": [
            f"{', '.join(names)} are one machine (address {address}, from its facts or ansible_host): slurmctld would "
            "send each one's jobs to it, and the roles configure it as each of them in turn. Give each host its own "
            "address (a line copied in the inventory?), or one inventory name"
            for address, names in holders.items()
            if len(names) > 1
        ],
    }


def item_values(results: Iterable[Mapping[str, Any]], attribute: str, default: Any = "") -> dict[str, Any]:
    """A looped task's results by item (each loop item's result ``attribute``; ``default`` where it has none)."""
    values: dict[str, Any] = {}
    for result in results:
        value = result.get(attribute)
        values[str(result.get("item"))] = default if value is None else value
    return values


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "host_values": host_values,
            "inventory_setters": inventory_setters,
            "validation_host": validation_host,
            "item_values": item_values,
            "host_addresses": host_addresses,
            "host_address": host_address,
            "etc_hosts": etc_hosts,
        }
