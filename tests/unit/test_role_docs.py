"""Each role README's variable section is generated from its argument specs and must not drift."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_role_readmes_match_argument_specs() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "role_docs.py"), "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout


def test_every_role_has_argument_specs_and_readme() -> None:
    for role in (ROOT / "roles").iterdir():
        assert (role / "meta" / "argument_specs.yml").exists(), role.name
        assert (role / "README.md").exists(), role.name
