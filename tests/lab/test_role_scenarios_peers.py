"""The role scenarios of several containers (galera: three nodes; login_pool: two nodes and a VIP; pacemaker: a
controller pair with its BMC and a compute node; phase_upgrade: a pilot of two hosts moved to a controller pair
under Pacemaker and Galera of three), on Debian 13 (and 12): `molecule test` with their own network,
idempotence, check mode and verify by behaviour.

They run apart from tests/lab/test_role_scenarios.py (their own pytest module, selectable alone); the test command
runs them when asked (GPUCLUSTER_ROLE_PEERS=1 or GPUCLUSTER_FULL=1), after the one-host scenarios, in the stream it
shares with the production and federation labs, beside the pilot lab (scripts/test).
"""

from __future__ import annotations

import os

import pytest

from tests.lab.molecule_run import SUITES
from tests.lab.test_role_scenarios import ALL_SUITES, PEERS, run_scenario

pytestmark = pytest.mark.lab

# Opt-in (GPUCLUSTER_ROLE_PEERS=1: Debian 13; GPUCLUSTER_FULL=1 or GPUCLUSTER_ROLE_SUITES=all: Debian 13 and 12).
# The production lab drills the same roles on the same kind of hosts in the test command (a Galera node lost and
# the whole cluster stopped, the login VIP moved, the controller in charge cut off and fenced); these scenarios
# cost about 8 minutes alone, about 14 in CI beside the other stream, which its 90 minutes do not leave. Each of
# them found a Debian 12 bug when it was written (mariadb.socket, crmadmin) and passes on both suites.
PEERS_ON = os.environ.get("GPUCLUSTER_ROLE_PEERS") == "1"
MATRIX = [(role, suite) for role in PEERS for suite in SUITES if ALL_SUITES or (PEERS_ON and suite == "trixie")]


def test_the_scenarios_of_several_hosts_are_found() -> None:
    assert {"galera", "login_pool", "pacemaker", "phase_upgrade"} <= set(PEERS)


CASES = [pytest.param(role, suite, id=f"{role}-{suite}") for role, suite in MATRIX] or [
    pytest.param(
        "", "", id="opt-in", marks=pytest.mark.skip(reason="GPUCLUSTER_ROLE_PEERS=1 or GPUCLUSTER_FULL=1 runs them")
    )
]


@pytest.mark.parametrize(("role", "suite"), CASES)
def test_role_scenario_of_several_hosts(role: str, suite: str) -> None:
    run_scenario(role, suite)
