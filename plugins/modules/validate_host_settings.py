"""Documentation of the validate_host_settings action (it runs on the Ansible controller only)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: validate_host_settings
short_description: Every role's argument specs for one host, in one task, before any role changes the host
description:
  - Checks, for the host the task runs for, the entry points of every role it gets, each with the role's own scope as
    a task of the role sees it (its defaults, the host's variables and facts over them, its vars over those), as
    Ansible's argument-spec task at a role's start would. Fails with every problem at once, named with the host.
  - One task per host instead of one per role and host: a playbook that runs it first imports its roles with
    C(rolespec_validate: false) (the deploy playbook's plays). Runs on the Ansible controller; contacts no host.
version_added: "0.2.0"
author: gpucluster maintainers
options:
  entries:
    description:
      - Groups (or C(all)) to the C(role/entry) names their hosts run (C(role) alone names its C(main) entry point).
        A host gets the entries of every group it is in, each once.
    type: dict
    required: true
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Check every role's settings for this host before any role changes it
  gpucluster.cluster.validate_host_settings:
    entries:
      all: [common, munge, firewall, nfs, monitoring]
      compute: [gpu, gpu/check, slurm, containers, user_env]
  tags: [always]
"""

RETURN = r"""
checked:
  description: The C(role/entry) names checked for the host.
  type: list
  elements: str
  returned: always
"""
