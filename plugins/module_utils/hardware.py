"""The hardware each compute host reports (its facts) beside what its node type declares, before anything is changed.

slurmd registers with what it finds; a node with less memory or fewer CPUs than slurm.conf gives it is set INVAL by
slurmctld ("Low RealMemory", "Low socket*core*thread count") and runs no job. When every host of a node type falls
short, the declaration is wrong (a planning document's nominal 2 TB where the hosts see 2,063,000 MiB, hyperthreads
counted that the firmware turned off): the deploy stops before the first change, naming the value to write. When
only some hosts do (a failed DIMM in a few of 1,280), those hosts are named and the run goes on: slurmctld keeps them
out of service until they are repaired, as it should.

The names too: slurm.conf names the controllers and nodes by their inventory names, and each daemon finds itself
there by its host's own name. slurmctld takes a SlurmctldHost as its own when it is the host's short or full kernel
hostname, else stops ("This host (node17/node17) not a valid controller"); slurmd takes the NodeName of its short
hostname, else a name its hostname resolves to (an alias in /etc/hosts or DNS), else stops ("Unable to determine this
slurmd's NodeName") - the real daemons of 22.05, 24.11 and 26.05 (tests/integration/test_node_names.py). A host whose
inventory name is none of these would be half-configured before its daemon failed; the deploy stops first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .hostlist import expand, fold, holds

# fact (Ansible's setup module) -> (the node type's key, what slurmctld says, what slurmd -C calls it)
CHECKED = {
    "memtotal_mb": ("real_memory_mb", "Low RealMemory", "RealMemory"),
    "processor_vcpus": ("cpus", "Low socket*core*thread count", "CPUs"),
}


def node_hardware(node_types: Sequence[Any], config_overrides: bool) -> list[dict[str, Any]]:
    """What the plan keeps of each node type's hardware (hosts folded); none where slurmd takes slurm.conf's values
    over its own (SlurmdParameters=config_overrides: slurmctld never sets a node INVAL for its hardware)."""
    if config_overrides:
        return []
    return [
        {"hosts": fold(t.hosts), "node_type": t.name, "real_memory_mb": t.real_memory_mb, "cpus": t.cpus}
        for t in node_types
        if t.hosts
    ]


def shortfalls(
    hardware: Sequence[Mapping[str, Any]], facts: Mapping[str, Mapping[str, Any]]
) -> tuple[list[str], list[str]]:
    """(problems: node types none of whose hosts with facts has what the type declares - two or more of them, or
    its only host; notes: the other hosts that fall short). ``facts``: host -> its gathered facts (hosts without them
    - not in the run, nothing cached - are left out)."""
    problems: list[str] = []
    notes: list[str] = []
    for entry in hardware:
        hosts = [host for host in facts if holds(entry["hosts"], host)]
        for fact, (key, said, slurmd_name) in CHECKED.items():
            declared = int(entry[key])
            seen = {host: _number(facts[host].get(fact)) for host in hosts}
            short = {host: value for host, value in seen.items() if value is not None and value < declared}
            if not short:
                continue
            least = min(short.values())
            known = len([value for value in seen.values() if value is not None])
            # every host with facts, and more than one of a larger type (one short host of a run limited to it is
            # that host's fault, not the type's)
            if len(short) == known and (known > 1 or len(expand(entry["hosts"])) == 1):
                problems.append(
                    f"cluster_node_types.{entry['node_type']}.{key}: {declared}, but its hosts have {least} "
                    f"({fold(sorted(short))}; slurmd -C: {slurmd_name}={least}) - slurmctld would set every one INVAL "
                    f"('{said}') and run no job there. Set {key} to at most {least}"
                    + (" (less what the OS keeps)" if key == "real_memory_mb" else "")
                )
            else:
                notes.append(
                    f"{fold(sorted(short))} (node type {entry['node_type']}): {slurmd_name} {least} is below the "
                    f"type's {key} {declared}; slurmctld will keep these hosts INVAL ('{said}') until they are repaired"
                )
    return problems, notes


# the facts (Ansible's setup module) that hold the names each daemon finds itself by: the short hostname, the kernel's
# full hostname, and the name the hostname resolves to
CONTROLLER_NAMES = ("hostname", "nodename")
NODE_NAMES = ("hostname", "nodename", "fqdn")
NAME_FACTS = NODE_NAMES
# hosts named in one problem; the rest are counted
_NAMED = 5


def name_problems(slurm_hosts: Mapping[str, str], facts: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The controllers and compute nodes (``slurm_hosts``: controllers, nodes - hostlists) among the hosts with
    ``facts`` whose inventory name their daemon would not take as its own: one problem per kind of host."""
    problems = []
    for kind, accepted, daemon, said in (
        ("controllers", CONTROLLER_NAMES, "slurmctld", "This host (...) not a valid controller"),
        ("nodes", NODE_NAMES, "slurmd", "Unable to determine this slurmd's NodeName"),
    ):
        members = set(expand(slurm_hosts[kind])) if slurm_hosts.get(kind) else set()
        wrong = {
            host: own
            for host, own in facts.items()
            if host in members and own.get("hostname") and host not in {str(own.get(fact) or "") for fact in accepted}
        }
        if not wrong:
            continue
        named = ", ".join(
            f"{host} (hostname -s: {own['hostname']}, hostname: {own.get('nodename') or own['hostname']})"
            for host, own in sorted(wrong.items())[:_NAMED]
        )
        more = f" and {len(wrong) - _NAMED} more" if len(wrong) > _NAMED else ""
        first = sorted(wrong)[0]
        problems.append(
            f"{'controllers' if kind == 'controllers' else 'compute nodes'} whose inventory name is not the host's own "
            f"name: {named}{more}. slurm.conf names them by their inventory names, and {daemon} finds itself by its "
            f"host's name: it would stop ('{said}') after the run had changed the hosts. Name each inventory host as "
            f"the host names itself (hostname -s), or give the host its inventory name "
            f"(hostnamectl set-hostname {first} on {first}); common_node_names_checked: false leaves this unchecked"
        )
    return problems


def _number(value: object) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None
