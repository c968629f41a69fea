"""The project's variables read from the roles (plugin_utils/variables.role_variables): parsed once for each content
of the roles' files and kept in Ansible's home between runs, read again when any file changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.variables import KEPT_VERSIONS, ROOT, role_variables


@pytest.fixture(autouse=True)
def _fresh() -> None:
    role_variables.cache_clear()


def tree(root: Path, default: str = "demo_port") -> Path:
    (root / "roles/demo/defaults").mkdir(parents=True)
    (root / "roles/demo/meta").mkdir()
    (root / "roles/demo/tasks").mkdir()
    (root / "playbooks").mkdir()
    (root / "roles/demo/defaults/main.yml").write_text(f"{default}: 80\n")
    (root / "roles/demo/meta/argument_specs.yml").write_text(
        "argument_specs:\n  main:\n    options:\n      demo_enabled: {type: bool}\n      demo_name: {type: str}\n"
    )
    (root / "roles/demo/tasks/main.yml").write_text(
        "- ansible.builtin.set_fact:\n    demo_seen: true\n  register: demo_result\n"
    )
    (root / "playbooks/site.yml").write_text("- hosts: all\n  vars:\n    demo_play_var: 1\n  tasks: []\n")
    return root


def test_the_variables_are_read_from_defaults_argument_specs_tasks_and_playbooks(tmp_path: Path) -> None:
    data = role_variables(tree(tmp_path / "tree"), tmp_path / "cache")
    assert {"demo_port", "demo_enabled", "demo_name", "demo_seen", "demo_result", "demo_play_var"} <= set(data["names"])
    assert data["booleans"] == ["demo_enabled"]
    assert data["prefixes"] == ["cluster", "demo"]


def test_they_are_kept_for_the_files_content_and_read_again_when_a_file_changes(tmp_path: Path) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    first = role_variables(root, cache)
    [kept] = cache.glob("role-variables-*.json")
    assert json.loads(kept.read_text()) == first
    # the kept copy is what a later run reads (a run of another process: the in-process cache cleared)
    kept.write_text(json.dumps({**first, "names": [*first["names"], "demo_from_the_cache"]}))
    role_variables.cache_clear()
    assert "demo_from_the_cache" in role_variables(root, cache)["names"]
    # a changed file is another content: read again, kept beside
    (root / "roles/demo/defaults/main.yml").write_text("demo_renamed: 80\n")
    role_variables.cache_clear()
    again = role_variables(root, cache)
    assert "demo_renamed" in again["names"] and "demo_port" not in again["names"]
    assert "demo_from_the_cache" not in again["names"]
    assert len(list(cache.glob("role-variables-*.json"))) == 2


def test_only_the_newest_copies_are_kept(tmp_path: Path) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    for version in range(KEPT_VERSIONS + 3):
        (root / "roles/demo/defaults/main.yml").write_text(f"demo_port_{version}: 80\n")
        role_variables.cache_clear()
        assert f"demo_port_{version}" in role_variables(root, cache)["names"]
    copies = list(cache.glob("role-variables-*.json"))
    assert len(copies) == KEPT_VERSIONS
    # the copy of the files as they are now is among them
    assert any("demo_port_10" in json.loads(copy.read_text())["names"] for copy in copies)
    assert not any("demo_port_0" in json.loads(copy.read_text())["names"] for copy in copies)


def test_a_damaged_copy_or_a_home_that_cannot_be_written_only_costs_a_read(tmp_path: Path) -> None:
    root, cache = tree(tmp_path / "tree"), tmp_path / "cache"
    expected = role_variables(root, cache)
    [kept] = cache.glob("role-variables-*.json")
    for damaged in ("{not json", json.dumps({"names": "demo_port"}), json.dumps([1, 2])):
        kept.write_text(damaged)
        role_variables.cache_clear()
        assert role_variables(root, cache) == expected
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the directory would be")
    role_variables.cache_clear()
    assert role_variables(root, blocked) == expected


def test_the_projects_own_roles_declare_their_booleans(tmp_path: Path) -> None:
    data = role_variables(ROOT, tmp_path)
    assert {"cluster_configless", "accounting_backup"} <= set(data["booleans"])
    assert "galera_sst_password" in data["names"] and "galera" in data["prefixes"]
