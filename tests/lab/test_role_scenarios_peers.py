"""The role scenarios of several containers (galera: three nodes; login_pool: two nodes and a VIP; pacemaker: a
controller pair with its BMC and a compute node), on Debian 13 (and 12): `molecule test` with their own network,
idempotence, check mode and verify by behaviour.

They run apart from tests/lab/test_role_scenarios.py (their own pytest module, selectable alone); the test command
runs them after the one-host scenarios, in the stream it shares with the production and federation labs, beside
the pilot lab (scripts/test).
"""

from __future__ import annotations

import pytest

from tests.lab.molecule_run import SUITES
from tests.lab.test_role_scenarios import ALL_SUITES, PEERS, run_scenario

pytestmark = pytest.mark.lab

# Debian 13 in the test command; GPUCLUSTER_ROLE_SUITES=all adds Debian 12 (each of these found a Debian 12 bug
# when it was written - mariadb.socket, crmadmin - and passes there; together they cost about 8 minutes, beyond
# what CI's 90 minutes leave beside the pilot lab on both suites).
MATRIX = [(role, suite) for role in PEERS for suite in SUITES if ALL_SUITES or suite == "trixie"]


def test_the_scenarios_of_several_hosts_are_found() -> None:
    assert {"galera", "login_pool", "pacemaker"} <= set(PEERS)


@pytest.mark.parametrize(("role", "suite"), MATRIX, ids=[f"{role}-{suite}" for role, suite in MATRIX])
def test_role_scenario_of_several_hosts(role: str, suite: str) -> None:
    run_scenario(role, suite)
