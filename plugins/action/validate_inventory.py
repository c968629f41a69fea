"""Tier-1 validation of the inventory on the Ansible controller, in one task: the Ansible version, then for each role
named, the values its argument specs name (its ``validate`` entry point's, and its ``main`` entry point's: what its
deployment reads - as the validation host sees them, and as the first host of each group does), then the role's own
check of its settings (``__<role>_problems`` in its vars: plugin_utils/tier1.py; again with a group's values where its
first host gets other values of the role's options from the group's group_vars), and a lifecycle playbook's
--limit. Every problem at once (``problems``); with the cluster role, the run's plan built by the model's
validation, returned as the fact ``cluster_plan`` (the task delegates its facts to localhost). With ``stop``, the
task fails on the problems.

An action, not a filter: it reads the inventory's groups and variable names from the task's variables as Ansible
holds them (passed to a filter, ``groups`` reaches it through Ansible's lazy templating containers, which template
every host name on the way), and one task instead of three per role (an argument-spec task, the check, a stop):
each task costs the run its variables merged and a worker forked, 20-40 ms at 1,280 hosts (docs/performance.md).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from ansible.errors import AnsibleError, AnsibleUndefinedVariable
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase
from ansible.release import __version__ as ansible_version
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import fold
from ansible_collections.gpucluster.cluster.plugins.plugin_utils import tier1
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.cluster import cluster_validation
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.variables import boolean_variables
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.worker import freeze_inherited_heap


class ActionModule(ActionBase):  # type: ignore[misc]  # ansible ships no type information
    """gpucluster.cluster.validate_inventory"""

    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(("roles", "stop", "skip_unused", "limit_holds", "limit_why", "deploys_all", "once"))

    _views: list[tuple[str, str, dict[str, Any]]] | None = None
    _scoped: Any = None

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        freeze_inherited_heap()
        result: dict[str, Any] = super().run(tmp, task_vars)
        result["changed"] = False
        problems = tier1.version_problems(ansible_version)
        variables = task_vars or {}
        args = self._task.args
        roles = [str(role) for role in args.get("roles") or []]
        plan: dict[str, Any] = {}
        skip_unused = boolean(args.get("skip_unused", False), strict=False)
        record = tier1.validation_record(
            tier1.run_token(),
            roles,
            [str(pattern) for pattern in args.get("limit_holds") or []],
            bool(args.get("deploys_all")),
            skip_unused,
        )
        if boolean(args.get("once", False), strict=False) and tier1.covers(self._earlier(variables), record):
            result.update(skipped=True, skip_reason="validated earlier in this run, with these checks or more")
            return result
        used = functools.partial(self._value, variables)
        for role in [] if problems else roles:
            # (the groups as Ansible holds them: templated, every host name would be, one by one)
            if not skip_unused or tier1.applies(role, used, variables.get("groups", {})):
                found, role_plan = self._check(role, variables)
                problems += found
                plan = role_plan if role == "cluster" else plan
        problems = tier1.tidy_problems(problems + self._playbook_problems(variables))
        result["problems"] = problems
        if "cluster" in roles:
            # plain data: the inventory's strings carry Ansible's tags (origin, trusted as a template), which the fact
            # cache would keep and decode again for every task on localhost (8 ms instead of 0.6 at 1,280 hosts)
            result["ansible_facts"] = {"cluster_plan": json.loads(json.dumps(plan))}
            if not problems:
                result["ansible_facts"]["cluster_validation"] = record
        if problems and boolean(args.get("stop", True), strict=False):
            heading = f"The inventory has {tier1.counted(problems)}; nothing was changed:"
            result.update(failed=True, msg=[heading, *problems])
            # (listed once, in the message; the run stops here, the plan is not shown)
            result.pop("problems")
            result.pop("ansible_facts", None)
        return result

    @staticmethod
    def _earlier(variables: dict[str, Any]) -> Any:
        """What an earlier validation left on localhost (the fact ``cluster_validation``), if any."""
        hostvars: Any = variables.get("hostvars")
        own = hostvars.raw_get("localhost") if hostvars is not None else None
        facts = own.get("ansible_facts") if isinstance(own, dict) else None
        return facts.get("cluster_validation") if isinstance(facts, dict) else None

    def _value(self, variables: dict[str, Any], name: str, default: Any) -> Any:
        """A variable of the play, templated; ``default`` where it is unset."""
        return self._templar.template(variables[name]) if name in variables else default

    def _check(self, role: str, variables: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
        """A role's problems (its argument specs', else its check's) and, for the cluster role, the run's plan."""
        files, names, templar = tier1.role_scope(role, variables, self._templar_over({}))
        problems = tier1.argument_problems(role, files.options, names, templar)
        problems += tier1.argument_problems(role, files.deploy_options, names, templar, lenient=True)
        problems += self._group_problems(role, files, variables, problems)
        if problems:
            # values of the wrong type: the role's own check would only trip over them
            return problems, {}
        try:
            if role == "cluster":
                found = self._cluster(tier1.render(self._templar_over(names), names["__cluster_spec"]), variables)
                return found["problems"], found["plan"]
            check = names.get(f"__{role}_problems")
            if check is None:
                return [], {}
            own = [str(problem) for problem in self._templar_over(names).template(check)]
        except AnsibleError as exc:
            return [f"the {role} role's settings could not be checked: {exc.message}"], {}
        return own + self._group_checks(role, files, variables, check, own), {}

    def _templar_over(self, names: dict[str, Any]) -> Any:
        """The task's one templar for the roles' scopes, rendering over ``names`` until the next call."""
        if self._scoped is None:
            self._scoped = self._templar.copy_with_new_env()
        return tier1.over(self._scoped, names)

    def _group_checks(
        self, role: str, files: tier1.RoleFiles, variables: dict[str, Any], check: Any, found: list[str]
    ) -> list[str]:
        """The role's own check (``check``) once more for each group whose first host gets other values of the role's
        options from the inventory's group_vars (gpu_driver_version in group_vars/compute.yml): those values over
        the validation host's, each new problem named with the host and its group. A value that cannot be read yet
        (a template over facts) is left to the role."""
        options = {**files.options, **files.deploy_options}
        problems: list[str] = []
        done: set[str] = set()
        for host, group, _own, names in self._group_values(options, variables):
            key = repr(sorted(names.items()))
            if key in done:
                continue
            done.add(key)
            templar = self._templar_over(tier1.scope(files, {**variables, **names}))
            try:
                seen = [str(problem) for problem in templar.template(check)]
            except AnsibleError:
                continue
            for problem in seen:
                if problem not in found and not any(known.endswith(problem) for known in problems):
                    problems.append(f"{host} (group {group}): {problem}")
        return problems

    def _group_problems(
        self, role: str, files: tier1.RoleFiles, variables: dict[str, Any], found: list[str]
    ) -> list[str]:
        """What the role's argument specs refuse of the values a group's hosts get from the inventory's group_vars
        (the validation host sees group_vars/all only): the first host of each group, its values of the role's
        options that differ from the validation host's, each problem once, named with the host and its group."""
        options = {**files.options, **files.deploy_options}
        problems: list[str] = []
        for host, group, own, names in self._group_values(options, variables):
            templar = self._templar_over(own)
            for problem in tier1.argument_problems(role, options, names, templar, lenient=True):
                if problem not in found and not any(seen.endswith(problem) for seen in problems):
                    problems.append(f"{host} (group {group}): {problem}")
        return problems

    def _group_values(
        self, options: dict[str, Any], variables: dict[str, Any]
    ) -> list[tuple[str, str, dict[str, Any], dict[str, Any]]]:
        """The first host of each group whose group_vars give the role's ``options`` other values than the validation
        host has: (host, group, its variables, those values)."""
        found = []
        for host, group, own in self._representatives(variables):
            names = {name: own[name] for name in options if name in own and own[name] != variables.get(name)}
            if names:
                found.append((host, group, own, names))
        return found

    def _representatives(self, variables: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
        """The first host of each group with its variables as the inventory gives them (read once per task)."""
        if self._views is None:
            hostvars: Any = variables.get("hostvars")
            self._views = []
            for host, group in tier1.group_representatives(variables.get("groups", {})) if hostvars else []:
                own = hostvars.raw_get(host)
                if isinstance(own, dict):
                    self._views.append((host, group, own))
        return self._views

    def _cluster(self, spec: dict[str, Any], variables: dict[str, Any]) -> dict[str, Any]:
        """The model's validation of the inventory, and the plan when it is valid."""
        names = [str(name) for name in variables]
        settled: dict[str, Any] = {}
        for name in sorted(set(names) & boolean_variables()):
            try:
                settled[name] = self._templar.template(variables[name])
            except AnsibleUndefinedVariable:
                continue  # a template over facts, left to the role that reads it
        return cluster_validation(
            spec, variables.get("groups", {}), names, variables.get("ansible_inventory_sources", ()), settled
        )

    def _playbook_problems(self, variables: dict[str, Any]) -> list[str]:
        """A lifecycle playbook's: a --limit that leaves out hosts it needs, a removal list where it deploys all."""
        args = self._task.args
        holds = [str(pattern) for pattern in args.get("limit_holds") or []]
        problems: list[str] = []
        if holds and "ansible_limit" in variables:
            lookup = self._shared_loader_obj.lookup_loader.get(
                "ansible.builtin.inventory_hostnames", loader=self._loader, templar=self._templar
            )
            wanted = lookup.run([":".join(holds)], variables=variables)
            limited = set(lookup.run([self._templar.template(variables["ansible_limit"])], variables=variables))
            left_out = [host for host in wanted if host not in limited]
            problems += tier1.limit_problems(str(args.get("limit_why") or ""), holds, left_out, fold)
        removed = self._value(variables, "cluster_removed_nodes", [])
        return problems + tier1.removal_problems(str(args.get("deploys_all") or ""), removed or [])
