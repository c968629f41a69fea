#!/usr/bin/python
"""Idempotent sacctmgr: clusters, federations, QOS, accounts and users in slurmdbd."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: sacctmgr
short_description: Manage Slurm accounting entities (cluster, federation, QOS, account, user) idempotently
description:
  - Reads the entity with C(sacctmgr show), compares the wanted settings and runs only the C(add) or
    C(modify) commands that are needed. Check mode reports the commands without running them.
  - Runs where C(sacctmgr) can reach slurmdbd (a controller with slurm.conf).
version_added: "0.1.0"
author: gpucluster maintainers
options:
  entity:
    description: What to manage.
    type: str
    required: true
    choices: [cluster, federation, qos, account, user]
  name:
    description: Name of the cluster, federation, QOS, account or user.
    type: str
    required: true
  cluster:
    description: Cluster of the account or user associations.
    type: str
  settings:
    description:
      - sacctmgr settings, e.g. C(Priority), C(MaxWall), C(Preempt), C(Flags), C(MaxTRESPerUser) for a QOS;
        C(Description), C(Organization), C(Parent), C(QOS) for an account; C(DefaultAccount), C(Accounts),
        C(QOS) for a user; C(Clusters) (the member clusters, already added) for a federation.
    type: dict
    default: {}
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: A QOS that preempts the scavenger QOS
  gpucluster.cluster.sacctmgr:
    entity: qos
    name: high
    settings: {Priority: 1000, Preempt: [scavenger], MaxTRESPerUser: gres/gpu=64}

- name: Two pods in one federation
  gpucluster.cluster.sacctmgr:
    entity: federation
    name: fed
    settings: {Clusters: [pod1, pod2]}
"""

RETURN = r"""
commands:
  description: The sacctmgr commands run (or, in check mode, that would run).
  type: list
  elements: list
  returned: always
"""

import os
from collections.abc import Sequence

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpucluster.cluster.plugins.module_utils.sacctmgr import (
    plan_account,
    plan_cluster,
    plan_federation,
    plan_qos,
    plan_user,
)


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "entity": {"type": "str", "required": True, "choices": ["cluster", "federation", "qos", "account", "user"]},
            "name": {"type": "str", "required": True},
            "cluster": {"type": "str"},
            "settings": {"type": "dict", "default": {}},
        },
        required_if=[("entity", "account", ["cluster"]), ("entity", "user", ["cluster"])],
        supports_check_mode=True,
    )
    binary = module.get_bin_path("sacctmgr", required=True)
    # A check run does not write the Slurm configuration of a host it would set up (a new cluster's controller):
    # sacctmgr cannot find slurmdbd from there, and the records it would create are not readable yet.
    config = os.environ.get("SLURM_CONF", "/etc/slurm/slurm.conf")
    if module.check_mode and not os.path.exists(config):
        module.exit_json(
            changed=True,
            commands=[],
            msg=f"check mode: no {config} on this host yet (the run writes it), so slurmdbd cannot be asked; "
            f"the {module.params['entity']} {module.params['name']} would be created or updated",
        )

    def run(args: Sequence[str]) -> str:
        rc, out, err = module.run_command([binary, *args])
        if rc != 0:
            module.fail_json(msg=f"sacctmgr {' '.join(args)} failed: {err.strip() or out.strip()}", rc=rc)
        return str(out)

    entity, name, settings = module.params["entity"], module.params["name"], module.params["settings"]
    cluster = module.params["cluster"] or ""
    if entity == "cluster":
        commands = plan_cluster(run, name)
    elif entity == "federation":
        commands = plan_federation(run, name, settings)
    elif entity == "qos":
        commands = plan_qos(run, name, settings)
    elif entity == "account":
        commands = plan_account(run, name, cluster, settings)
    else:
        commands = plan_user(run, name, cluster, settings)
    if not module.check_mode:
        for command in commands:
            run(["--immediate", *command])
    module.exit_json(changed=bool(commands), commands=commands)


if __name__ == "__main__":
    main()
