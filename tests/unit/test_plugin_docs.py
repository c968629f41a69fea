"""Every plugin of the collection is documented where `ansible-doc` reads it: each filter by its sidecar file
(plugins/filter/<name>.yml, written from the filter's signature and docstring by scripts/filter_docs.py, never
drifted), each module and lookup by its DOCUMENTATION."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def ansible_doc(*arguments: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg")}
    return subprocess.run(
        [str(BIN / "ansible-doc"), *arguments], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )


def test_filter_documentation_matches_the_filters() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "filter_docs.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("kind", ["filter", "module"])
def test_no_plugin_is_undocumented(kind: str) -> None:
    listing = ansible_doc("-t", kind, "-l", "gpucluster.cluster")
    assert listing.returncode == 0, listing.stderr
    names = [line.split()[0] for line in listing.stdout.splitlines() if line.startswith("gpucluster.cluster.")]
    assert len(names) >= {"filter": 40, "module": 5}[kind], listing.stdout
    assert [line for line in listing.stdout.splitlines() if "UNDOCUMENTED" in line] == []
    # each one renders whole: its description, options and (filters) the return value and an example
    shown = json.loads(ansible_doc("-t", kind, "--json", *names).stdout)
    for name in names:
        doc = shown[name]
        assert doc["doc"]["description"] and doc["doc"]["short_description"], name
        assert doc["examples"].strip(), name
        if kind == "filter":
            assert doc["return"]["_value"]["description"], name
