"""The gates of upgrade-production.yml: which controller and database move, or why the move cannot start."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from plugins.filter.phase import (
    phase_federation_move,
    phase_federation_summary,
    phase_job_counts,
    phase_live_controllers,
    phase_production_move,
)

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


# upgrade-federation.yml: the running cluster "prod" (a Pacemaker pair) becomes a pod; pod2 is new.
GROUPS = {
    "controllers": ["ctl1", "ctl2", "p2ctl1", "p2ctl2"],
    "prod": ["ctl1", "ctl2", "cpu1"],
    "pod2": ["p2ctl1", "p2ctl2", "p2cpu1"],
}
CONFIG = "ClusterName = prod\nMaxJobId = 67043328\nStateSaveLocation = /srv/slurmctld\nSLURM_VERSION = 24.11.5\n"


def federation_probes(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "federation": {"name": "fed", "pods": {"prod": {}, "pod2": {}}},
        "cluster_name": "prod",
        "systemd": {"ctl1": "active", "ctl2": "inactive", "p2ctl1": "inactive", "p2ctl2": "inactive"},
        "pacemaker": {
            "ctl1": "resource slurmctld is running on: ctl1",
            "ctl2": "resource slurmctld is running on: ctl1",
        },
        "configs": {"ctl1": CONFIG},
        "managers": dict.fromkeys(GROUPS["controllers"], "pacemaker"),
        "state_save": dict.fromkeys(GROUPS["controllers"], "/srv/slurmctld"),
        "clusters": ["prod"],
        "federations": [],
        "clustername": {},
    }
    base.update(changes)
    return base


def test_the_running_cluster_becomes_its_pod_and_the_other_pods_are_new() -> None:
    assert phase_federation_move(federation_probes(), GROUPS) == {
        "running": {"prod": "ctl1"},
        "new": ["pod2"],
        "state_save": {"ctl1": "/srv/slurmctld"},
        "errors": [],
    }


def test_a_second_run_finds_every_pod_running_in_the_federation() -> None:
    result = phase_federation_move(
        federation_probes(
            systemd={"ctl1": "active", "ctl2": "inactive", "p2ctl1": "inactive", "p2ctl2": "active"},
            pacemaker={"ctl1": "is running on: ctl1", "p2ctl2": "is running on: p2ctl2"},
            configs={"ctl1": CONFIG, "p2ctl2": CONFIG.replace("prod", "pod2")},
            clusters=["prod", "pod2"],
            federations=["fed|prod", "fed|pod2|"],
            clustername={"p2ctl1": "pod2"},
        ),
        GROUPS,
    )
    assert result["running"] == {"prod": "ctl1", "pod2": "p2ctl2"} and result["new"] == [] and not result["errors"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"federation": {"name": "fed", "pods": {"pod1": {"group": "prod"}, "pod2": {}}}},
            "ctl1 runs the cluster 'prod' (its ClusterName), which the inventory makes the pod 'pod1': name the pod "
            "after the cluster (cluster_federation.pods.prod; its `group:` names the hosts' inventory group)",
        ),
        ({"systemd": {"ctl1": "inactive"}}, "slurmctld runs on none of the pods' controllers"),
        ({"clusters": ["other"]}, "ctl1 runs the cluster 'prod', which the slurmdbd of the inventory does not know"),
        (
            {"pacemaker": {}},
            "ctl1: systemd runs slurmctld of the cluster 'prod', the inventory says slurm_ctld_manager",
        ),
        (
            {"configs": {"ctl1": CONFIG.replace("/srv/slurmctld", "/var/spool/slurmctld")}},
            "ctl1: slurmctld of the cluster 'prod' keeps its state in /var/spool/slurmctld, the inventory gives its "
            "pod /srv/slurmctld",
        ),
        (
            {"configs": {"ctl1": CONFIG.replace("67043328", "99999999")}},
            "ctl1: the cluster 'prod' has MaxJobId=99999999",
        ),
        ({"federations": ["old|prod"]}, "cluster prod belongs to the federation old in slurmdbd"),
        ({"federations": ["fed|prod", "fed|pod3"]}, "the federation fed in slurmdbd also holds the cluster pod3"),
        ({"clustername": {"p2ctl1": "prod"}}, "p2ctl1: the StateSaveLocation of the new pod pod2 already holds the"),
        # as the slurp task reads the file (base64; "" where the file is missing)
        (
            {"clustername_b64": {"p2ctl1": "cHJvZAo=", "p2ctl2": ""}},
            "p2ctl1: the StateSaveLocation of the new pod pod2 already holds the",
        ),
    ],
)
def test_each_federation_refusal_names_the_host_and_the_fix(changes: dict[str, Any], message: str) -> None:
    result = phase_federation_move(federation_probes(**changes), GROUPS)
    assert len(result["errors"]) == 1 and result["errors"][0].startswith(message), result["errors"]


def test_a_federation_move_needs_a_federation() -> None:
    assert phase_federation_move(federation_probes(federation={}), GROUPS)["errors"] == [
        "cluster_federation is empty: the inventory describes no federation"
    ]


def test_the_live_controllers_are_those_where_systemd_runs_slurmctld() -> None:
    systemd = {"ctl1": "inactive", "ctl2": "active\n", "p2ctl1": "", "p2ctl2": "active"}
    assert phase_live_controllers(systemd) == ["ctl2", "p2ctl2"]


def test_a_new_pods_clustername_file_read_by_slurp_is_decoded() -> None:
    unreadable = federation_probes(clustername_b64={"p2ctl1": "not base64!"})
    assert phase_federation_move(unreadable, GROUPS)["errors"] == []


def test_a_new_pods_own_state_from_an_earlier_try_is_not_another_clusters() -> None:
    """Slurm 24.11 and later write `name|cluster id` into clustername: a new pod's StateSaveLocation holding its own
    name (an earlier upgrade-federation.yml that stopped after pod2's first start) is its own state."""
    own = base64.b64encode(b"pod2|3332").decode()
    assert phase_federation_move(federation_probes(clustername_b64={"p2ctl1": own}), GROUPS)["errors"] == []
    other = base64.b64encode(b"prod|877").decode()
    errors = phase_federation_move(federation_probes(clustername_b64={"p2ctl1": other}), GROUPS)["errors"]
    assert errors and "already holds the state of the cluster prod " in errors[0], errors


def test_the_federation_preflight_says_what_it_found_in_one_line() -> None:
    found = {"running": {"prod": "ctl1", "pod2": "p2ctl2"}, "new": []}
    assert phase_federation_summary(found) == (
        "running: prod (slurmctld on ctl1), pod2 (slurmctld on p2ctl2); every pod runs: converge and gate only"
    )
    assert phase_federation_summary({"running": {"prod": "ctl1"}, "new": ["pod2", "pod3"]}) == (
        "running: prod (slurmctld on ctl1); new: pod2, pod3"
    )


def test_each_pods_job_records_are_read_from_the_count_query() -> None:
    results: list[dict[str, Any]] = [
        {"item": "prod", "query_result": [[{"n": "12"}]]},
        {"item": "pod2", "query_result": [[{"n": 0}]]},
        {"item": "pod3", "query_result": [[]]},
    ]
    assert phase_job_counts(results) == {"prod": 12, "pod2": 0, "pod3": 0}
