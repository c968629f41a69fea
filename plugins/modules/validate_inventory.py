"""Documentation of the validate_inventory action (it runs on the Ansible controller only)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: validate_inventory
short_description: Tier-1 validation of the inventory, every role's settings in one task, and the run's plan
description:
  - Validation of the inventory on the Ansible controller, contacting no host, in one task. Returns every problem at
    once, each naming the variable, group or host and the fix.
  - First the Ansible version. Then, for each role named in O(roles) (with O(skip_unused), each the inventory uses),
    in the role's own scope - its
    defaults, the inventory's and the play's variables over them, its vars over those - the values its C(validate)
    entry point's argument specs name (a value that cannot be read, a Vault value not given, is named), those of
    its C(main) entry point (what its deployment reads; a template over facts is left to the role), and the values
    the first host of each group has of them where they differ (a group's group_vars, named with the host); then
    the role's check of its settings, the role variable C(__<role>_problems) (a filter of the collection over the
    role's variables), where it has one. A role whose values fail their argument specs is not checked further.
  - The C(cluster) role's check is the model's validation - project variables no role reads (a misspelt
    C(cluster_schedulling)), booleans that are not booleans, what only the inventory's files show (values YAML
    turned into another type, reversed host ranges, model variables outside C(group_vars/all)) and every problem
    of the cluster model itself. When the inventory is valid, the run's plan built from the same model is returned
    as the fact C(cluster_plan) (delegate the task's facts to localhost, where the roles read it).
  - Last, a lifecycle playbook's own rules (O(limit_holds), O(deploys_all)).
version_added: "0.1.0"
author: gpucluster maintainers
options:
  roles:
    description: The roles whose settings are checked (the collection's role names).
    type: list
    elements: str
    required: true
  skip_unused:
    description:
      - Check only the roles the inventory uses - the Galera checks where there is a C(galera) group, the controller
        pair's where C(slurm_ctld_manager) is C(pacemaker), the login pool's where C(login_pool_vip) is set, Lustre's
        where C(lustre_mounts) is (a playbook's validation of every role; a role's own validation checks it always).
    type: bool
    default: false
  stop:
    description: Fail on the problems (a registered result then has them in C(msg)).
    type: bool
    default: true
  limit_holds:
    description:
      - Host patterns a C(--limit) must hold (C(all): the playbook refuses any limit that leaves a host out).
    type: list
    elements: str
    default: []
  limit_why:
    description: What the playbook does that needs the hosts of O(limit_holds) (the message starts with it).
    type: str
    default: ""
  deploys_all:
    description: The playbook's name where it deploys every compute host (C(cluster_removed_nodes) is refused).
    type: str
    default: ""
  once:
    description:
      - Not again where a validation earlier in the same run (the same C(ansible-playbook) process) checked as much or
        more - every role of O(roles), the host patterns of O(limit_holds), the removal list where O(deploys_all) is
        set, the unused roles where O(skip_unused) is false - and found no problem; the task is reported skipped. A
        lifecycle playbook validates once (its own validation, then that of the deploy playbook it imports,
        C(playbooks/validate.yml)). A validation is known to later ones of the run by the fact
        C(cluster_validation) (with the C(cluster) role).
    type: bool
    default: false
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Check the Ansible version, the cluster model and every role's settings
  gpucluster.cluster.validate_inventory:
    roles: [cluster, monitoring, galera, slurm, pacemaker]
    limit_holds: "{{ validate_limit_holds | default([]) }}"
    limit_why: "{{ validate_limit_why | default('') }}"
  delegate_to: localhost
  delegate_facts: true
  run_once: true
"""

RETURN = r"""
problems:
  description: Every problem of the inventory; empty when it is valid.
  type: list
  elements: str
  returned: unless the task failed on them (O(stop))
ansible_facts:
  description: C(cluster_plan), the run's plan (each pod's Slurm files, the users' view, each GPU host's GPUs, the
    firewall's ports, Prometheus' targets); empty when the inventory has problems. With no problem, also
    C(cluster_validation), what was checked in this run (O(once)).
  type: dict
  returned: when O(roles) names C(cluster)
"""
