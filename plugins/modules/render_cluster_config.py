"""Documentation of the render_cluster_config action (it runs on the Ansible controller only)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: render_cluster_config
short_description: Render the Slurm configuration of the cluster model into a local directory
description:
  - Takes the run's plan (O(plan)) where it stands for this inventory, else builds the cluster model from the
    inventory (validating it); lays it out with the C(cluster) role's
    templates and writes slurm.conf, gres.conf and topology.conf (Slurm < 25.05) or topology.yaml
    (25.05 and later) into O(dest) on the Ansible controller.
  - Only files whose content or mode changed are written; the topology file the release does not read is
    removed. Supports check mode and diff mode.
  - The inventory's groups are read from the task's variables (C(groups)) as Ansible holds them.
  - Runs on the controller, never on a managed host.
version_added: "0.1.0"
author: gpucluster maintainers
options:
  spec:
    description: The cluster_* variables without their prefix (the role builds it as __cluster_spec).
    type: dict
    required: true
  plan:
    description:
      - The run's plan, built by the opening validation (C(hostvars['localhost'].ansible_facts.cluster_plan)); used
        where its fingerprint matches O(spec) and the inventory's groups, else the plan is built here. None or
        omitted - built here.
    type: raw
  dest:
    description: Directory the files are written to; created when missing.
    type: path
    required: true
  mode:
    description: Mode of the written files.
    type: str
    default: "0644"
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
"""

EXAMPLES = r"""
- name: Render the configuration for review
  gpucluster.cluster.render_cluster_config:
    spec: "{{ __cluster_spec }}"
    dest: "{{ playbook_dir }}/../build/{{ cluster_name }}"
"""

RETURN = r"""
files:
  description: Files the release reads, in the order written.
  type: list
  elements: str
  returned: always
updated:
  description: Files written (or that would be written in check mode) and stale files removed.
  type: list
  elements: str
  returned: always
summary:
  description: Node, GPU, node type, partition, switch and block counts of the model.
  type: dict
  returned: always
"""
