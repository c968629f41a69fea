"""Each role's own Molecule scenario (roles/<role>/molecule/default), on Debian 13, and on Debian 12 for the
roles the pilot lab does not deploy.

`molecule test`: create the all-in-one lab host (.config/molecule/config.yml), prepare it with the roles
the role builds on, converge, converge again (Molecule's idempotence step fails on any change), verify
behaviour, destroy.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

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
# Scenarios of several containers (their molecule.yml lists its own platforms) run from
# tests/lab/test_role_scenarios_peers.py, beside the pilot lab in the test command's main stream.
PEERS = sorted(
    role
    for role in ROLES
    if "platforms"
    in (yaml.safe_load((ROOT / "roles" / role / "molecule" / "default" / "molecule.yml").read_text()) or {})
)

# Roles whose subject is a whole cluster moving on (a rolling upgrade, a phase upgrade): their scenario is the
# whole-cluster one that drills them, not a role scenario. (galera, login_pool and pacemaker have scenarios of
# their own: several containers on their own networks.)
MULTI_HOST = {
    "slurm_upgrade": "pilot",
    "phase_upgrade": "production",
}


# The pilot lab (tests/lab/test_pilot_lab.py) deploys these roles on Debian 12 (Slurm 22.05) and on Debian 13,
# with idempotence, check mode and behaviour checks of the whole cluster: their one-host scenarios run on
# Debian 13 only, which keeps the test command inside CI's time. GPUCLUSTER_ROLE_SUITES=all runs every role
# scenario on every suite.
IN_PILOT_LAB = {
    "accounting",
    "cluster",
    "common",
    "containers",
    "firewall",
    "gpu",
    "monitoring",
    "munge",
    "nfs",
    "slurm",
    "user_env",
}
ALL_SUITES = os.environ.get("GPUCLUSTER_ROLE_SUITES") == "all"
MATRIX = [
    (role, suite)
    for role in ROLES
    for suite in SUITES
    if role not in PEERS and (ALL_SUITES or suite == "trixie" or role not in IN_PILOT_LAB)
]


def test_every_role_has_a_scenario() -> None:
    roles = sorted(path.name for path in (ROOT / "roles").iterdir() if (path / "tasks").is_dir())
    assert sorted([*ROLES, *MULTI_HOST]) == roles
    for scenario in MULTI_HOST.values():
        assert (ROOT / "molecule" / scenario / "molecule.yml").exists()


def test_roles_left_to_the_pilot_lab_on_debian_12_are_in_it() -> None:
    pilot = (ROOT / "playbooks" / "pilot.yml").read_text()
    for role in IN_PILOT_LAB - {"cluster"}:  # cluster: entry points of the other roles
        assert f"role: {role}\n" in pilot and f"role: {role}\n      when" not in pilot, role
    assert "skip-tags" not in (ROOT / "molecule" / "pilot" / "molecule.yml").read_text()


@pytest.mark.parametrize(("role", "suite"), MATRIX, ids=[f"{role}-{suite}" for role, suite in MATRIX])
def test_role_scenario(role: str, suite: str) -> None:
    run_scenario(role, suite)


def run_scenario(role: str, suite: str) -> None:
    """`molecule test` of the role's scenario on the suite: every step successful, the role's expected lines said."""
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
