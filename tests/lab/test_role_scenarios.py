"""Each role's own Molecule scenario (roles/<role>/molecule/default): in the test command on Debian 12 for the
roles that hold Slurm 22.05's daemons, on Debian 13 for those the pilot lab does not deploy (every role on both
suites with GPUCLUSTER_FULL=1).

`molecule test`: create the all-in-one lab host (.config/molecule/config.yml), prepare it with the roles
the role builds on, converge, converge again (Molecule's idempotence step fails on any change), verify
behaviour, destroy.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from tests.lab.molecule_run import FULL, ROOT, SUITES, molecule

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

# Scenarios that run on one suite only: Debian has no release Slurm 22.05 (Debian 12) may be upgraded to.
ONLY_SUITES = {"slurm_upgrade": {"trixie"}}


# The test command runs the scenarios that nothing else in it stands for: Lustre's client (no lab deploys it) and,
# on Debian 12, the roles that hold Slurm 22.05's daemons (slurmctld/slurmd with GPU steps, slurmdbd on MariaDB,
# a node taken out and back on 22.05's restart path). The Debian 13 pilot lab deploys every other role with
# idempotence, check mode and behaviour checks of the whole cluster. Every scenario on both suites:
# GPUCLUSTER_FULL=1 or GPUCLUSTER_ROLE_SUITES=all (about 25 minutes more in CI than its 90 minutes leave).
IN_TEST_COMMAND = {("lustre", "trixie"), ("slurm", "bookworm"), ("accounting", "bookworm"), ("slurm_nodes", "bookworm")}
ALL_SUITES = os.environ.get("GPUCLUSTER_ROLE_SUITES") == "all" or FULL
MATRIX = [
    (role, suite)
    for role in ROLES
    for suite in SUITES
    if role not in PEERS and suite in ONLY_SUITES.get(role, SUITES) and (ALL_SUITES or (role, suite) in IN_TEST_COMMAND)
]


def test_every_role_has_a_scenario() -> None:
    roles = sorted(path.name for path in (ROOT / "roles").iterdir() if (path / "tasks").is_dir())
    assert roles == ROLES


def test_the_scenarios_of_the_test_command_exist_and_cover_slurm_22_05s_daemons() -> None:
    """Without the Debian 12 pilot lab, Slurm 22.05's slurmctld, slurmd and slurmdbd still run in the test command;
    the roles its pilot lab on Debian 13 does not deploy have their scenario in it."""
    assert {role for role, _ in IN_TEST_COMMAND} <= set(ROLES)
    assert {"slurm", "accounting"} <= {role for role, suite in IN_TEST_COMMAND if suite == "bookworm"}
    playbooks = "".join(
        (ROOT / "playbooks" / f"{name}.yml").read_text() for name in ("deploy", "scale", "remove-node", "upgrade-slurm")
    )
    named = {role for role in ROLES if f"role: {role}\n" in playbooks or f"name: {role}\n" in playbooks}
    inventory = "".join(path.read_text() for path in (ROOT / "molecule" / "pilot").rglob("*.yml"))
    deployed = named - ({"lustre"} if "lustre_mounts" not in inventory else set())
    not_in_pilot = set(ROLES) - set(PEERS) - deployed - {"cluster"}  # cluster: the other roles' entry points
    assert not_in_pilot <= {role for role, suite in IN_TEST_COMMAND if suite == "trixie"}, not_in_pilot
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
