"""Documentation of the validate_cluster action (it runs on the Ansible controller only)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: validate_cluster
short_description: Validate the cluster model of the inventory and build the run's plan
description:
  - Tier-1 validation of the inventory on the Ansible controller, contacting no host. Returns every problem at once,
    each naming the variable, group or host and the fix - project variables no role reads (a misspelt
    C(cluster_schedulling)), booleans that are not booleans, what only the inventory's files show (values YAML
    turned into another type, reversed host ranges, model variables outside C(group_vars/all)) and every problem
    of the cluster model itself.
  - When the inventory is valid, returns the run's plan, built from the same model, as the fact C(cluster_plan)
    (delegate its facts to localhost, where the roles read it); an empty plan otherwise.
  - Reads the inventory's groups, its sources and the names of the variables from the task's variables as Ansible
    holds them (a filter would receive every host name through Ansible's templating).
version_added: "0.1.0"
author: gpucluster maintainers
options:
  spec:
    description: The cluster_* variables without their prefix (the role builds it as __cluster_spec).
    type: dict
    required: true
  stop:
    description:
      - Fail on the problems. A playbook's opening validation sets it to false and reports them with the other
        roles' problems (C(validate_collect)).
    type: bool
    default: true
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Validate the cluster model of the inventory
  gpucluster.cluster.validate_cluster:
    spec: "{{ __cluster_spec }}"
    stop: "{{ not (validate_collect | default(false) | bool) }}"
  register: __cluster_validation
  delegate_to: localhost
  delegate_facts: true
  run_once: true
"""

RETURN = r"""
problems:
  description: Every problem of the inventory; empty when it is valid.
  type: list
  elements: str
  returned: always
ansible_facts:
  description: C(cluster_plan), the run's plan (each pod's Slurm files, the users' view, each GPU host's GPUs, the
    firewall's ports, Prometheus' targets); empty when the inventory has problems.
  type: dict
  returned: always
"""
