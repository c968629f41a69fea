"""One check of every role's settings per host (the validate_host_settings action), before any role changes it: the
deploy playbook's plays import their roles without Ansible's argument-spec task per role and host."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from ansible.template import Templar
from ansible_collections.gpucluster.cluster.plugins.action.validate_host_settings import entry_problems, host_entries
from ansible_collections.gpucluster.cluster.plugins.plugin_utils import tier1

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "playbooks" / "deploy.yml"


def _deploy() -> list[dict[str, Any]]:
    plays: list[dict[str, Any]] = yaml.safe_load(DEPLOY.read_text())
    return plays


def _entries() -> dict[str, list[str]]:
    for play in _deploy():
        for task in play.get("tasks") or []:
            if "gpucluster.cluster.validate_host_settings" in task:
                found: dict[str, list[str]] = task["gpucluster.cluster.validate_host_settings"]["entries"]
                return found
    raise AssertionError("deploy.yml does not check the hosts' settings")


def test_a_host_gets_the_entries_of_each_of_its_groups_once() -> None:
    entries = {"all": ["common", "munge"], "compute": ["gpu", "gpu/check", "slurm"], "login": ["slurm", "user_env"]}
    groups = {"compute": ["n1", "n2"], "login": ["n2", "l1"]}
    assert host_entries(entries, groups, "n1") == [
        ("common", "main"),
        ("munge", "main"),
        ("gpu", "main"),
        ("gpu", "check"),
        ("slurm", "main"),
    ]
    assert host_entries(entries, groups, "n2")[-1] == ("user_env", "main")
    assert len(host_entries(entries, groups, "n2")) == 6
    assert host_entries(entries, groups, "l1") == [
        ("common", "main"),
        ("munge", "main"),
        ("slurm", "main"),
        ("user_env", "main"),
    ]


def test_a_hosts_own_wrong_value_is_refused_and_a_right_one_passes() -> None:
    """The host's values over the role's defaults, as a task of the role sees them (here a host_vars value of the
    wrong type the group's first host does not have)."""
    found = entry_problems("nfs", "main", {"nfs_server_start": "perhaps"}, Templar(variables={}))
    assert any("nfs_server_start" in problem and "bool" in problem for problem in found), found
    assert entry_problems("nfs", "main", {"nfs_server_start": False}, Templar(variables={})) == []
    assert entry_problems("nfs", "nowhere", {}, Templar(variables={})) == [
        "the nfs role has no entry point 'nowhere' in meta/argument_specs.yml"
    ]


def test_every_role_the_deploy_playbook_imports_unchecked_is_checked_for_its_hosts() -> None:
    """Each import with rolespec_validate: false in deploy.yml is an entry the check lists for the play's hosts
    (a group of the play's pattern, or all), and every entry it lists exists; nothing else turns Ansible's check off."""
    listed = {
        (group, role, entry or "main")
        for group, names in _entries().items()
        for role, _, entry in (name.partition("/") for name in names)
    }
    unchecked = 0
    for play in _deploy():
        for task in play.get("tasks") or []:
            imported = task.get("ansible.builtin.import_role") or task.get("ansible.builtin.include_role")
            if not imported or imported.get("rolespec_validate", True):
                continue
            unchecked += 1
            role, entry = imported["name"], imported.get("tasks_from", "main")
            for group in [g for g in re.split(r"[:,]", str(play["hosts"])) if g and not g.startswith("!")]:
                assert {(group, role, entry), ("all", role, entry)} & listed, (play["name"], group, role, entry)
    assert unchecked >= 12
    for _group, role, entry in listed:
        assert entry in tier1.role_files(role).entries, (role, entry)


@pytest.mark.parametrize("play", ["Base system and MUNGE on every host"])
def test_the_check_runs_before_any_role_and_on_every_tagged_run(play: str) -> None:
    first = next(p for p in _deploy() if p["name"] == play)
    assert first["hosts"] == "all" and first["any_errors_fatal"] is True
    task = first["tasks"][0]
    assert "gpucluster.cluster.validate_host_settings" in task and task["tags"] == ["always"]
