"""The gates of upgrade-production.yml: which controller and database move, or why the move cannot start."""

from __future__ import annotations

from typing import Any

import pytest

from plugins.filter.phase import phase_production_move

GALERA = ("db1", "db2", "db3")


def probes(**changes: Any) -> dict[str, Any]:
    """A pilot ready to move: slurmctld under systemd on ctl1, the accounting database on db1 (running, no
    Galera), db2/db3 bare."""
    base: dict[str, Any] = {
        "controllers": ["ctl1", "ctl2"],
        "systemd": {"ctl1": "active", "ctl2": "inactive"},
        "pacemaker": {"ctl1": "", "ctl2": ""},
        "galera": {
            "db1": {"active": True, "wsrep_on": False, "databases": ["slurm_acct_db"]},
            "db2": {"active": False, "databases": []},
            "db3": {"active": False, "databases": []},
        },
        "dbd": ["db1", "db2"],
        "database": "slurm_acct_db",
        "munge_key_host": "ctl1",
        "munge_key": True,
    }
    base.update(changes)
    return base


def test_a_running_pilot_moves_its_controller_and_its_database() -> None:
    assert phase_production_move(probes()) == {"controller": "ctl1", "database_host": "db1", "errors": []}


def test_a_cluster_already_in_production_has_nothing_to_move() -> None:
    done = probes(
        systemd={"ctl1": "active", "ctl2": "inactive"},
        pacemaker={"ctl1": "resource slurmctld is running on: ctl1", "ctl2": ""},
        galera={host: {"active": True, "wsrep_on": True, "cluster_status": "Primary"} for host in GALERA},
    )
    assert phase_production_move(done) == {"controller": None, "database_host": None, "errors": []}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"systemd": {"ctl1": "inactive", "ctl2": "inactive"}}, "slurmctld runs on none of ctl1, ctl2"),
        ({"systemd": {"ctl1": "active", "ctl2": "active"}}, "systemd runs slurmctld on ctl1 and ctl2"),
        (
            {"galera": {"db1": {"active": True, "wsrep_on": False, "databases": []}, "db2": {}, "db3": {}}},
            "no host of the galera group (db1, db2, db3) holds the accounting database slurm_acct_db",
        ),
        ({"dbd": ["db2", "db1"]}, "db1 holds slurm_acct_db but db2 is the first of the dbd group"),
        (
            {"galera": {"db1": {"active": False, "databases": ["slurm_acct_db"]}, "db2": {}, "db3": {}}},
            "MariaDB is stopped on db1",
        ),
        (
            {
                "galera": {
                    "db1": {"active": True, "wsrep_on": False, "databases": ["slurm_acct_db"]},
                    "db2": {"databases": ["slurm_acct_db"]},
                    "db3": {},
                }
            },
            "db1 and db2 each hold slurm_acct_db",
        ),
        ({"munge_key": False, "munge_key_host": "ctl2"}, "munge_key_host ctl2 holds no /etc/munge/munge.key"),
    ],
)
def test_each_refusal_names_the_host_and_the_fix(changes: dict[str, Any], message: str) -> None:
    result = phase_production_move(probes(**changes))
    assert len(result["errors"]) == 1 and result["errors"][0].startswith(message), result["errors"]
