"""Tier-1 validation of the cluster model on the Ansible controller, in one task: every problem of the inventory
(``problems``) and, when it is valid, the run's plan built from the same model, returned as the fact
``cluster_plan`` (the task delegates its facts to localhost). With ``stop``, the task fails on the problems.

An action, not a filter: it reads the inventory's groups and variable names from the task's variables as Ansible
holds them. Passed to a filter, ``groups`` reaches it through Ansible's lazy templating containers, which template
every host name on the way: most of the validation's time at 12,800 hosts (docs/performance.md).
"""

from __future__ import annotations

from typing import Any

from ansible.errors import AnsibleUndefinedVariable
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.cluster import cluster_validation
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.variables import boolean_variables


class ActionModule(ActionBase):  # type: ignore[misc]  # ansible ships no type information
    """gpucluster.cluster.validate_cluster"""

    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(("spec", "stop"))

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result: dict[str, Any] = super().run(tmp, task_vars)
        variables = task_vars or {}
        names = [str(name) for name in variables]
        found = cluster_validation(
            self._task.args["spec"],
            variables.get("groups", {}),
            names,
            variables.get("ansible_inventory_sources", ()),
            self._settled(variables, sorted(set(names) & boolean_variables())),
        )
        problems: list[str] = found["problems"]
        result.update(changed=False, problems=problems, ansible_facts={"cluster_plan": found["plan"]})
        if problems and boolean(self._task.args.get("stop", True), strict=False):
            count = len(problems)
            heading = f"The inventory does not describe a valid cluster ({count} problems); nothing was changed:"
            result.update(failed=True, msg=[heading, *problems])
        return result

    def _settled(self, variables: dict[str, Any], names: list[str]) -> dict[str, Any]:
        """The values of ``names`` that resolve on the controller alone: a variable whose value is a template over
        facts (none are gathered here) is left to the role that reads it."""
        settled: dict[str, Any] = {}
        for name in names:
            try:
                settled[name] = self._templar.template(variables[name])
            except AnsibleUndefinedVariable:
                continue
        return settled
