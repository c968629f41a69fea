"""Tier-1 validation of the inventory: what every role's check needs, read from the role itself.

Each role's check of its settings is the role variable ``__<role>_problems`` (a Python filter over the role's
variables, in its ``vars/main.yml``), read in the role's own scope: its defaults, the inventory's and the play's
variables over them, its vars over those (Ansible's order for a role's variables). The values its ``validate`` and
``main`` entry points' argument specs name are checked against them first. One action (``validate_inventory``) so
checks every role a playbook needs in one task, instead of an argument-spec task, a check and a stop for each role,
and before any host is touched instead of when each role starts.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from ansible.errors import AnsibleUndefinedVariable
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.parameters import remove_values
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.variables import ROOT

ROLES = ROOT / "roles"
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# The oldest ansible-core the roles work with (Data tagging: trusted templates, lazy variables).
ANSIBLE_MIN = (2, 19)


@dataclass(frozen=True)
class RoleFiles:
    """What the validation reads of a role: its defaults, its vars and its entry points' options."""

    defaults: dict[str, Any]
    variables: dict[str, Any]
    entries: dict[str, dict[str, Any]]

    @property
    def options(self) -> dict[str, Any]:
        """The options of the role's ``validate`` entry point (its tier-1 check's)."""
        return self.entries.get("validate", {})

    @property
    def deploy_options(self) -> dict[str, Any]:
        """The options of the role's ``main`` entry point its ``validate`` entry point does not name: what the role's
        deployment reads, checked before any host is touched instead of when the role starts - after the roles
        before it changed the hosts."""
        return self.beyond_validate("main")

    def beyond_validate(self, entry: str) -> dict[str, Any]:
        """The options of an entry point that its ``validate`` entry point does not name."""
        return {name: spec for name, spec in self.entries.get(entry, {}).items() if name not in self.options}


def _yaml(path: Path) -> Any:
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
    except FileNotFoundError:
        return None


def _trusted(value: Any, trust: Callable[[str], str]) -> Any:
    """``value`` with every string marked as a template Ansible may render (as Ansible marks a role's files)."""
    if isinstance(value, str):
        return trust(value)
    if isinstance(value, dict):
        return {key: _trusted(item, trust) for key, item in value.items()}
    if isinstance(value, list):
        return [_trusted(item, trust) for item in value]
    return value


@functools.cache
def role_files(role: str, roles: Path = ROLES) -> RoleFiles:
    """A role's defaults, vars and the options of each entry point (libyaml's loader: the roles' files are the
    project's own, read once per process)."""
    from ansible.template import trust_as_template  # (ansible-core 2.19: checked before use)

    path = roles / role
    specs = (_yaml(path / "meta" / "argument_specs.yml") or {}).get("argument_specs") or {}
    return RoleFiles(
        defaults=_trusted(_yaml(path / "defaults" / "main.yml") or {}, trust_as_template),
        variables=_trusted(_yaml(path / "vars" / "main.yml") or {}, trust_as_template),
        entries={str(name): dict((entry or {}).get("options") or {}) for name, entry in specs.items()},
    )


def scope(files: RoleFiles, variables: Mapping[str, Any]) -> dict[str, Any]:
    """The variables a role's tasks see: its defaults under the inventory's and the play's, its vars over them."""
    return {**files.defaults, **variables, **files.variables}


def role_scope(role: str, variables: Mapping[str, Any], templar: Any) -> tuple[RoleFiles, dict[str, Any], Any]:
    """A role's files, its scope over ``variables`` (a task's) and ``templar`` over that scope (``over``)."""
    files = role_files(role)
    names = scope(files, variables)
    return files, names, over(templar, names)


def over(templar: Any, names: Mapping[str, Any]) -> Any:
    """``templar`` (the caller's own copy of a task's templar) rendering over ``names`` from now on. One templar for
    every scope of a validation, not a copy per scope: Ansible keeps the Jinja environment, and in it the filters it
    looked up, per templar, and finding a filter of the collection reads every filter file (2 ms each time)."""
    templar.available_variables = names
    return templar


# A template that names one variable and nothing else ("{{ cluster_node_types }}"), as most role variables that
# hand an inventory value on are written.
_REFERENCE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def render(templar: Any, value: Any, seen: frozenset[str] = frozenset()) -> Any:
    """``value`` rendered by ``templar`` - a template that names one variable as that variable's value, rendered in
    turn, without Jinja compiling the reference (about 2 ms each: the cluster role's spec names 25 variables). A
    reference met again (``a: "{{ b }}"``, ``b: "{{ a }}"``) is left to Ansible, which names the loop."""
    from ansible.template import is_trusted_as_template  # (ansible-core 2.19: checked before use)

    if isinstance(value, str) and is_trusted_as_template(value):
        found = _REFERENCE.fullmatch(value)
        names = templar.available_variables
        if found and found[1] in names and found[1] not in seen:
            return render(templar, names[found[1]], seen | {found[1]})
    elif isinstance(value, dict):
        return {key: render(templar, item, seen) for key, item in value.items()}
    return templar.template(value)


def argument_problems(
    role: str, options: Mapping[str, Any], names: Mapping[str, Any], templar: Any, *, lenient: bool = False
) -> list[str]:
    """What an entry point's argument specs (``options``) refuse of the role's variables (``names``, its scope;
    ``templar`` renders them), as Ansible's own argument-spec task would, plus the values that cannot be read.
    ``lenient``: a value that cannot be read yet is left to the role (a template over facts, gathered later), and
    only the options ``names`` holds are checked (a host's own values)."""
    values: dict[str, Any] = {}
    undefined: list[str] = []
    for name in options:
        if name in names:
            try:
                values[name] = render(templar, names[name])
            except AnsibleUndefinedVariable as exc:
                if not lenient:
                    # (a Vault value not given - the validate entry points name no value over facts -, or a value
                    # built from another that has the wrong type, which the specs name below)
                    hint = (
                        "; define it (Vault: --ask-vault-pass)"
                        if "is undefined" in exc.message
                        else " - it is built from other settings: check those"
                    )
                    undefined.append(f"{name} cannot be read: {exc.message}{hint}")
    spec = {name: option for name, option in options.items() if name in values} if lenient else dict(options)
    checked = ArgumentSpecValidator(spec).validate(values, validate_role_argument_spec=True)
    # (a value an option marks no_log - a password of the wrong type - is masked in the message, as in a module's)
    messages = [remove_values(message, checked._no_log_values) for message in checked.error_messages]
    # Ansible reports a list element of the wrong type twice, once without the option's name: kept with it only
    named = [message for message in messages if not any(other.endswith(f": {message}") for other in messages)]
    return undefined + [f"{message} (the {role} role's argument specs)" for message in named]


# Ansible's argument-spec messages name the Python class of a wrong value (its tagged containers from the inventory's
# YAML): "<class 'ansible.module_utils._internal._datatag._AnsibleTaggedList'> cannot be converted to a dict".
_CLASS = re.compile(r"<class '(?:[\w.]*\.)?(?:_AnsibleTagged)?(\w+)'>")
_KINDS = {
    "list": "a list",
    "dict": "a mapping",
    "str": "a string",
    "int": "a number",
    "float": "a number",
    "nonetype": "null",
}
_MISSING = re.compile(r"^missing required arguments: (.+?)(?= \(the \w+ role's argument specs\)$|$)")
# ... of an entry of a list or a mapping ("missing required arguments: options found in nfs_exports")
_MISSING_IN = re.compile(r"^missing required arguments: (.+?) found in (.+?)(?= \(the \w+ role's argument specs\)$|$)")
_SECRET = re.compile(r"password|secret|token|key", re.IGNORECASE)


def _missing(found: re.Match[str]) -> str:
    names = found[1]
    vault = " (a secret: in Ansible Vault)" if _SECRET.search(names) else ""
    return f"{names} not set: required - give it in the inventory{vault}"


# cluster_slurm_release (and a pod's) names a release series; a patch release (24.11.6) is one of its releases
_PATCH_RELEASE = re.compile(r"^value of (\w+) must be one of: [^\n]*, got: (\d{2}\.\d{2})\.(\d+)(?= \(|$)")
_SPECS = re.compile(r"^(?P<text>.*) \(the (?P<role>\w+) role's argument specs\)$")


def counted(problems: Sequence[str]) -> str:
    """ "1 problem", "3 problems": the count a refusal's heading names."""
    return f"{len(problems)} problem" + ("s" if len(problems) > 1 else "")


def tidy_problems(problems: Sequence[str]) -> list[str]:
    """The run's problems as an admin reads them: Python class names said as kinds of value, one message the
    argument specs of several roles give once (naming the roles), and a role check that could not run on values
    refused by the specs said as such instead of the template's error."""
    merged: dict[str, list[str]] = {}
    order: list[str] = []
    for problem in problems:
        text = _CLASS.sub(lambda found: _KINDS.get(found[1].lower(), found[1].lower()), problem)
        text = _MISSING_IN.sub(r"\2: \1 not given - each entry there needs it", text)
        text = _MISSING.sub(_missing, text)
        text = _PATCH_RELEASE.sub(r"\g<0> - give the release series, \2 (\2.\3 is one of its releases)", text)
        matched = _SPECS.match(text)
        key, role = (matched["text"], matched["role"]) if matched else (text, "")
        if key not in merged:
            merged[key] = []
            order.append(key)
        if role and role not in merged[key]:
            merged[key].append(role)
    refused = any(merged[key] for key in order)
    tidy = []
    for key in order:
        roles = merged[key]
        if roles:
            owners = (
                f"the {roles[0]} role's" if len(roles) == 1 else f"the {', '.join(roles[:-1])} and {roles[-1]} roles'"
            )
            tidy.append(f"{key} ({owners} argument specs)")
        elif refused and (found := re.match(r"^the (\w+) role's settings could not be checked: ", key)):
            tidy.append(
                f"the {found[1]} role's settings were not checked: they read values refused above; fix those first"
            )
        else:
            tidy.append(key)
    return tidy


def group_representatives(groups: Mapping[str, Sequence[str]]) -> list[tuple[str, str]]:
    """(host, group): the first host of each group (but all and ungrouped), each host once - whose variables show
    what the inventory's group_vars give the group's hosts, for checks that run before any host is touched."""
    seen: dict[str, str] = {}
    for group in sorted(groups):
        members = groups[group]
        if group not in ("all", "ungrouped") and members and members[0] not in seen:
            seen[members[0]] = group
    return sorted(seen.items())


def version_problems(version: str) -> list[str]:
    """The Ansible version, refused when older than the roles need."""
    parts = tuple(int(part) for part in version.split(".")[:2] if part.isdigit())
    if parts >= ANSIBLE_MIN:
        return []
    need = ".".join(str(part) for part in ANSIBLE_MIN)
    return [f"gpucluster needs ansible-core >= {need}, this is {version}; run scripts/bootstrap.sh"]


def applies(role: str, value: Callable[[str, Any], Any], groups: Mapping[str, Sequence[str]]) -> bool:
    """Whether the inventory uses the role at all (``value``: a variable of the play, templated, else the default
    given; ``groups`` as Ansible holds them): the Galera, controller pair, login pool and Lustre checks only where
    there is one."""
    if role == "galera":
        return len(groups.get("galera") or []) > 0
    if role == "pacemaker":
        return str(value("slurm_ctld_manager", "systemd")) == "pacemaker"
    if role == "login_pool":
        return len(str(value("login_pool_vip", "") or "")) > 0
    if role == "lustre":
        return len(value("lustre_mounts", []) or []) > 0
    return True


def limit_problems(
    why: str, holds: Sequence[str], left_out: Sequence[str], fold: Callable[[Sequence[str]], str]
) -> list[str]:
    """A lifecycle playbook's --limit that leaves out hosts it needs (``holds``: host patterns; ``why``: what the
    playbook does that needs them): it would run part of itself (remove-node.yml would take a node out of slurm.conf
    that it never drained)."""
    if not left_out:
        return []
    patterns = ":".join(holds)
    how = (
        "without --limit" if "all" in holds else f"with --limit '{patterns}:<the hosts you meant>', or without --limit"
    )
    return [
        f"{why}: its --limit must hold every host of {', '.join(holds)}, and it leaves out"
        f" {fold(sorted(left_out))}. Run it {how}"
    ]


def removal_problems(playbook: str, removed: Sequence[str]) -> list[str]:
    """cluster_removed_nodes is remove-node.yml's: a playbook that deploys every compute host refuses it."""
    if not playbook or not removed:
        return []
    return [
        f"cluster_removed_nodes is set: {playbook} deploys every compute host of the inventory. Take nodes out with"
        " playbooks/remove-node.yml -e 'cluster_removed_nodes=...', then delete them from the inventory."
    ]


def run_token() -> str:
    """The ansible-playbook run a worker belongs to: its main process (the worker's parent) and the moment that
    process started (Linux's /proc/<pid>/stat), which no other run shares. Empty where /proc cannot tell (a
    validation is then never taken for an earlier one)."""
    parent = os.getppid()
    try:
        fields = Path(f"/proc/{parent}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return ""
    return f"{parent}-{fields[19]}" if len(fields) > 19 else ""  # (field 22 of the file: starttime)


def validation_record(
    run: str, roles: Sequence[str], holds: Sequence[str], deploys_all: bool, skip_unused: bool
) -> dict[str, Any]:
    """What a validation checked, kept as the fact ``cluster_validation`` for a later one of the same run."""
    return {
        "run": run,
        "roles": sorted(set(roles)),
        "limit_holds": sorted(set(holds)),
        "deploys_all": deploys_all,
        "skip_unused": skip_unused,
    }


def covers(earlier: Any, now: Mapping[str, Any]) -> bool:
    """Whether a validation earlier in the same run checked everything ``now`` would (a lifecycle playbook's
    validation, then that of the deploy playbook it imports): every role, every host pattern a --limit must hold
    (``all`` holds them all), the removal list where ``now`` refuses it, the unused roles where ``now`` checks them."""
    if not isinstance(earlier, Mapping) or not now["run"] or earlier.get("run") != now["run"]:
        return False
    holds = set(earlier.get("limit_holds") or [])
    return (
        set(earlier.get("roles") or []) >= set(now["roles"])
        and ("all" in holds or holds >= set(now["limit_holds"]))
        and (bool(earlier.get("deploys_all")) or not now["deploys_all"])
        and (not earlier.get("skip_unused") or bool(now["skip_unused"]))
    )
