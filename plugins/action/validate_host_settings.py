"""Every role's argument specs for one host, in one task, before any role changes the host.

The deploy playbook's plays import their roles with ``rolespec_validate: false``: instead of one argument-spec task
per role and host at the role's start - after the roles before it changed the host, and a worker forked, the task's
variables merged and its result handled each time (about 30-50 ms of the controller's CPU per task and host,
docs/scale.md) - this task checks the entry points of every role the host gets (``entries``: a group, or ``all``, to
the ``role/entry`` names its hosts run) with the host's own variables and facts, as Ansible's argument-spec task
would, and fails naming each problem with the host. The opening validation (``validate_inventory``) checked the
same specs before, as the validation host and each group's first host see them; this is the check of each host's own
values (its host_vars, its facts).
"""

from __future__ import annotations

from typing import Any

from ansible.errors import AnsibleError
from ansible.plugins.action import ActionBase
from ansible_collections.gpucluster.cluster.plugins.plugin_utils import tier1


def host_entries(entries: dict[str, list[str]], groups: dict[str, list[str]], host: str) -> list[tuple[str, str]]:
    """(role, entry point) of every ``role/entry`` listed for a group of ``host`` (or ``all``), each once, in order."""
    found: list[tuple[str, str]] = []
    for group, names in entries.items():
        if group != "all" and host not in (groups.get(group) or []):
            continue
        for name in names:
            role, _, entry = str(name).partition("/")
            key = (role, entry or "main")
            if key not in found:
                found.append(key)
    return found


def entry_problems(role: str, entry: str, variables: dict[str, Any], templar: Any) -> list[str]:
    """What the entry point's argument specs refuse of the role's variables as a task of the role sees them."""
    files, names, scoped = tier1.role_scope(role, variables, templar)
    if entry not in files.entries:
        return [f"the {role} role has no entry point {entry!r} in meta/argument_specs.yml"]
    return tier1.argument_problems(role, files.entries[entry], names, scoped)


class ActionModule(ActionBase):  # type: ignore[misc]  # ansible ships no type information
    """gpucluster.cluster.validate_host_settings"""

    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _VALID_ARGS = frozenset(("entries",))

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result: dict[str, Any] = super().run(tmp, task_vars)
        variables = task_vars or {}
        entries = self._task.args.get("entries") or {}
        if not isinstance(entries, dict):
            return {**result, "failed": True, "msg": "entries: a mapping of groups to lists of role/entry names"}
        host = str(variables.get("inventory_hostname", ""))
        templar = self._templar.copy_with_new_env()
        checked = host_entries(entries, variables.get("groups", {}), host)
        problems: list[str] = []
        for role, entry in checked:
            try:
                problems += entry_problems(role, entry, variables, templar)
            except AnsibleError as exc:
                problems.append(f"the {role} role's settings could not be checked: {exc.message}")
        problems = tier1.tidy_problems(problems)
        result.update(changed=False, checked=[f"{role}/{entry}" for role, entry in checked])
        if problems:
            heading = f"{host}: its settings have {tier1.counted(problems)}; nothing was changed:"
            result.update(failed=True, msg=[heading, *problems])
        return result
