"""The linters are part of the test suite: ruff, mypy (strict on plugins/), yamllint, ansible-lint."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".venv" / "bin"

pytestmark = pytest.mark.lint

LINTERS = {
    "ruff-check": ["ruff", "check", "."],
    "ruff-format": ["ruff", "format", "--check", "."],
    "mypy-strict-plugins": ["mypy", "--strict", "-p", "ansible_collections.gpucluster.cluster.plugins"],
    "mypy-tests-bench": ["mypy", "tests", "bench", "lab"],
    "yamllint": ["yamllint", "--strict", "."],
    "ansible-lint": ["ansible-lint", "--offline"],
}


@pytest.mark.parametrize("command", list(LINTERS.values()), ids=list(LINTERS))
def test_linter_is_clean(command: list[str]) -> None:
    tool = BIN / command[0]
    # ansible.cfg makes a duplicated YAML key fatal (an inventory's second cluster_name silently won); Ansible's
    # loader also counts a key that overrides a merge key (`<<: *node` then `name:` in the labs' molecule.yml) as
    # one. ansible-lint loads those files through it, so it warns there; yamllint's key-duplicates rule, which
    # knows merge keys, keeps every YAML file of the repository free of real duplicates.
    env = {**os.environ, "ANSIBLE_DUPLICATE_YAML_DICT_KEY": "warn"} if command[0] == "ansible-lint" else None
    result = subprocess.run(
        [str(tool), *command[1:]], cwd=ROOT, capture_output=True, text=True, timeout=900, check=False, env=env
    )
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}"
