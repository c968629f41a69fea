"""Each role's own Molecule scenario (roles/<role>/molecule/default), on Debian 13 and Debian 12.

`molecule test`: create the all-in-one lab host (.config/molecule/config.yml), prepare it with the roles
the role builds on, converge, converge again (Molecule's idempotence step fails on any change), verify
behaviour, destroy.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.lab.molecule_run import ROOT, SUITES, molecule

pytestmark = pytest.mark.lab

# What a role must say in its converge output (the reason a step is skipped in the lab).
EXPECTED_OUTPUT = {
    "gpu": [
        "no NVIDIA GPU on the PCI bus: packages and configuration installed, kernel modules and GPU services skipped"
    ],
    "lustre": ["lustre_mount_state is present: /lustre/scratch, /lustre/proj in fstab, not mounted"],
}

ROLES = sorted(path.parents[2].name for path in (ROOT / "roles").glob("*/molecule/default/molecule.yml"))

# Roles whose subject is several hosts together (a 3-node Galera cluster, a Pacemaker pair, a login pool):
# their scenario is the whole-cluster one that drills them, not a one-host role scenario.
MULTI_HOST = {"galera": "production", "pacemaker": "production", "login_pool": "production"}


def test_every_role_has_a_scenario() -> None:
    roles = sorted(path.name for path in (ROOT / "roles").iterdir() if (path / "tasks").is_dir())
    assert sorted([*ROLES, *MULTI_HOST]) == roles
    for scenario in MULTI_HOST.values():
        assert (ROOT / "molecule" / scenario / "molecule.yml").exists()


@pytest.mark.parametrize("suite", list(SUITES))
@pytest.mark.parametrize("role", ROLES)
def test_role_scenario(role: str, suite: str) -> None:
    if os.environ.get("GPUCLUSTER_SKIP_LAB") == "1":
        pytest.skip("GPUCLUSTER_SKIP_LAB=1: the container lab was skipped on request")
    result = molecule("test", suite=suite, cwd=Path(ROOT / "roles" / role))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-8000:]
    for step in ("converge", "idempotence", "verify"):
        assert f"[default > {step}] Executed: Successful" in output, f"{step} did not run\n{output[-4000:]}"
    words = " ".join(output.split())  # the result callback may wrap long messages
    for line in EXPECTED_OUTPUT.get(role, []):
        assert line in words, f"converge did not say: {line}"
