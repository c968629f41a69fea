#!/usr/bin/python
"""Idempotent Slurm reservations through scontrol."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: slurm_reservation
short_description: Create, update or delete a Slurm reservation idempotently
description:
  - Reads the reservation with C(scontrol show reservation), compares it with the wanted one and runs only the
    C(create), C(update) or C(delete) that is needed. Check mode reports the command without running it.
  - Node lists are compared expanded (C(scontrol show hostnames)); a start of C(now), or the start of a recurring
    reservation, is not compared once the reservation exists; flags slurmctld adds itself are left alone.
  - A reservation of a fixed start that has ended (and that slurmctld has dropped) is not made again - slurmctld
    would refuse it - and the module says so.
  - Runs where scontrol reaches slurmctld (a controller).
version_added: "0.1.0"
author: gpucluster maintainers
options:
  name:
    description: The reservation's name.
    type: str
    required: true
  state:
    description: Whether the reservation exists.
    type: str
    default: present
    choices: [present, absent]
  nodes:
    description: The nodes it holds (a hostlist expression).
    type: str
  node_count:
    description: How many nodes it holds (slurmctld picks them), instead of naming them.
    type: int
  partition:
    description: The partition whose nodes it holds (with node_count, or the partition's nodes by the PART_NODES flag).
    type: str
  start:
    description: C(now) or a date and time (C(2026-12-01T08:00)).
    type: str
    default: now
  duration:
    description: Minutes.
    type: int
  users:
    description: Users who may run in it.
    type: list
    elements: str
    default: []
  accounts:
    description: Accounts whose users may run in it.
    type: list
    elements: str
    default: []
  flags:
    description: Reservation flags (MAINT, IGNORE_JOBS, DAILY, WEEKLY, FLEX, MAGNETIC...).
    type: list
    elements: str
    default: []
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: A maintenance window on two nodes, over running jobs
  gpucluster.cluster.slurm_reservation:
    name: maint-rack3
    nodes: gpu[17-18]
    start: "2026-12-01T08:00"
    duration: 240
    users: [root]
    flags: [MAINT, IGNORE_JOBS]

- name: A node kept for one account every day
  gpucluster.cluster.slurm_reservation:
    name: vision-daily
    node_count: 1
    partition: gpu
    start: "2026-12-01T09:00"
    duration: 480
    accounts: [vision]
    flags: [DAILY]
"""

RETURN = r"""
commands:
  description: The scontrol commands run (or, in check mode, that would run).
  type: list
  elements: list
  returned: always
"""

import datetime

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpucluster.cluster.plugins.module_utils.reservations import parse_show, plan


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "name": {"type": "str", "required": True},
            "state": {"type": "str", "default": "present", "choices": ["present", "absent"]},
            "nodes": {"type": "str"},
            "node_count": {"type": "int"},
            "partition": {"type": "str"},
            "start": {"type": "str", "default": "now"},
            "duration": {"type": "int"},
            "users": {"type": "list", "elements": "str", "default": []},
            "accounts": {"type": "list", "elements": "str", "default": []},
            "flags": {"type": "list", "elements": "str", "default": []},
        },
        required_if=[("state", "present", ["duration"])],
        supports_check_mode=True,
    )
    scontrol = module.get_bin_path("scontrol", required=True)
    name = module.params["name"]

    def expand(hostlist: str) -> list[str]:
        if not hostlist or hostlist == "(null)":
            return []
        rc, out, err = module.run_command([scontrol, "show", "hostnames", hostlist])
        if rc != 0:
            module.fail_json(msg=f"scontrol show hostnames {hostlist} failed: {err.strip() or out.strip()}", rc=rc)
        return str(out).split()

    rc, out, err = module.run_command([scontrol, "show", f"reservation={name}", "--oneliner"])
    if rc != 0 and "not found" not in f"{out}{err}":
        # slurmctld did not answer: neither present nor absent, so nothing is decided
        module.fail_json(msg=f"scontrol show reservation={name} failed: {err.strip() or out.strip()}", rc=rc)
    current = parse_show(str(out)) if rc == 0 else {}
    spec = None if module.params["state"] == "absent" else module.params
    now = datetime.datetime.now()
    commands = plan(name, spec, current, expand, now)
    if spec is not None and not current and not commands:  # (plan makes any missing reservation but an ended one)
        module.exit_json(changed=False, commands=[], msg=f"reservation {name} has ended: not made again (remove it)")
    if not module.check_mode:
        for command in commands:
            rc, out, err = module.run_command([scontrol, *command])
            if rc != 0:
                module.fail_json(msg=f"scontrol {' '.join(command)} failed: {err.strip() or out.strip()}", rc=rc)
    module.exit_json(changed=bool(commands), commands=commands)


if __name__ == "__main__":
    main()
