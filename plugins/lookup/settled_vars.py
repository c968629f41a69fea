"""Lookup settled_vars: the values of the named variables that resolve without facts, as one mapping."""

from __future__ import annotations

from typing import Any

from ansible.errors import AnsibleError, AnsibleUndefinedVariable
from ansible.plugins.lookup import LookupBase

DOCUMENTATION = r"""
name: settled_vars
author: gpucluster
version_added: "1.0.0"
short_description: The named variables that resolve before any fact is gathered
description:
  - Returns one mapping of variable name to value for each named variable that is set and resolves on the Ansible
    controller alone.
  - A variable whose value is a template over facts (C(ansible_facts), a registered result) cannot be checked by the
    opening validation, which gathers no facts; it is left out instead of failing the run, and the roles check it
    where they use it.
  - A variable that is not set is left out.
options:
  _terms:
    description: Names of the variables.
    required: true
    type: list
    elements: str
"""

EXAMPLES = r"""
- name: The booleans set in the inventory that can be checked before facts
  ansible.builtin.debug:
    msg: "{{ lookup('gpucluster.cluster.settled_vars', 'gpu_nccl', 'slurm_restd') }}"
"""

RETURN = r"""
_raw:
  description: One mapping of each settled variable's name to its value.
  type: list
  elements: dict
"""


class LookupModule(LookupBase):  # type: ignore[misc]
    def run(self, terms: list[Any], variables: dict[str, Any] | None = None, **kwargs: Any) -> list[dict[str, Any]]:
        self.set_options(var_options=variables, direct=kwargs)
        known = variables or {}
        settled: dict[str, Any] = {}
        for term in terms:
            if not isinstance(term, str):
                raise AnsibleError(f"settled_vars takes variable names, not {type(term).__name__} {term!r}")
            if term not in known:
                continue
            try:
                settled[term] = self._templar.template(known[term])
            except AnsibleUndefinedVariable:
                continue
        return [settled]
