"""Galera under slurmdbd: the preflight's findings and the bootstrap choice after a full stop."""

from __future__ import annotations

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.galera import (
    GIB,
    NodeState,
    PreflightLimits,
    bootstrap_node,
    parse_grastate,
    preflight_errors,
    recovered_position,
)

UUID = "5d1b7f2a-86a4-11ef-9f4b-2b5e6f0c1a11"


def good_node() -> dict[str, str]:
    return {
        "wsrep_on": "ON",
        "wsrep_provider_version": "26.4.20(r7c2a4e4)",
        "wsrep_max_ws_size": "2147483647",
        "innodb_snapshot_isolation": "OFF",
        "innodb_buffer_pool_size": str(8 * GIB),
        "innodb_lock_wait_timeout": "900",
        "max_allowed_packet": str(64 * 1024**2),
        "binlog_format": "ROW",
        "innodb_autoinc_lock_mode": "2",
        "wsrep_cluster_status": "Primary",
        "wsrep_local_state_comment": "Synced",
        "wsrep_cluster_size": "3",
    }


def three(**changes: dict[str, str]) -> dict[str, dict[str, str]]:
    nodes = {host: good_node() for host in ("db1", "db2", "db3")}
    for host, settings in changes.items():
        nodes[host].update(settings)
    return nodes


def test_a_healthy_cluster_passes() -> None:
    assert preflight_errors(three()) == []


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"wsrep_provider_version": "25.3.37(r3978)"}, "db2: wsrep_provider_version 25.3.37(r3978) is not Galera 4"),
        ({"wsrep_max_ws_size": "131072"}, "db2: wsrep_max_ws_size 131072 is below 1073741824"),
        ({"wsrep_max_ws_size": "4294967296"}, "db2: wsrep_max_ws_size 4294967296 is above Galera's limit"),
        ({"innodb_snapshot_isolation": "ON"}, "db2: innodb_snapshot_isolation is ON (MariaDB 11.6.2+ default)"),
        (
            {"innodb_buffer_pool_size": str(GIB)},
            "db2: innodb_buffer_pool_size is 1073741824, SchedMD asks for at least",
        ),
        ({"innodb_lock_wait_timeout": "50"}, "db2: innodb_lock_wait_timeout is 50, SchedMD asks for at least 900"),
        ({"max_allowed_packet": "1048576"}, "db2: max_allowed_packet is 1048576"),
        ({"binlog_format": "MIXED"}, "db2: binlog_format is MIXED"),
        ({"innodb_autoinc_lock_mode": "1"}, "db2: innodb_autoinc_lock_mode is 1; Galera needs 2"),
        ({"wsrep_cluster_status": "non-Primary"}, "db2: wsrep_cluster_status is non-Primary, not Primary"),
        ({"wsrep_local_state_comment": "Donor/Desynced"}, "db2: wsrep_local_state_comment is Donor/Desynced"),
        ({"wsrep_cluster_size": "2"}, "db2: wsrep_cluster_size is 2, the inventory has 3"),
        ({"wsrep_on": "OFF"}, "db2: wsrep_on is OFF; this is not a Galera node"),
    ],
)
def test_each_bad_setting_is_named_with_its_host(settings: dict[str, str], message: str) -> None:
    errors = preflight_errors(three(db2=settings))
    assert any(message in error for error in errors), errors


def test_write_set_limits_must_be_equal() -> None:
    errors = preflight_errors(three(db3={"wsrep_max_ws_size": str(GIB)}))
    assert errors == [
        "wsrep_max_ws_size differs between nodes (db1=2147483647, db2=2147483647, db3=1073741824); "
        "a write set one node accepts another refuses"
    ]


def test_the_lab_may_lower_the_buffer_pool() -> None:
    nodes = three(db1={"innodb_buffer_pool_size": str(256 * 1024**2)})
    assert preflight_errors(nodes, PreflightLimits(min_buffer_pool=128 * 1024**2)) == []


def test_grastate_and_recovered_position() -> None:
    state = parse_grastate(f"# GALERA saved state\nversion: 2.1\nuuid:    {UUID}\nseqno:   -1\nsafe_to_bootstrap: 0\n")
    assert state == NodeState(UUID, -1, False)
    log = f"2026-11-23 06:00:01 0 [Note] WSREP: Recovered position: {UUID}:1234\n"
    assert recovered_position(log) == (UUID, 1234)
    assert recovered_position("no position here") is None


def test_bootstrap_from_the_node_marked_safe() -> None:
    states = {"db1": NodeState(UUID, 10, False), "db2": NodeState(UUID, 12, True), "db3": NodeState(UUID, 12, False)}
    assert bootstrap_node(states, ["db1", "db2", "db3"]) == ("db2", [])


def test_else_from_the_highest_seqno_first_in_inventory_order() -> None:
    states = {"db1": NodeState(UUID, 10, False), "db2": NodeState(UUID, 12, False), "db3": NodeState(UUID, 12, False)}
    assert bootstrap_node(states, ["db3", "db2", "db1"]) == ("db3", [])
    states["db2"] = NodeState(UUID, -1, False)  # crashed, position unknown: not a candidate
    assert bootstrap_node(states, ["db1", "db2", "db3"]) == ("db3", [])


@pytest.mark.parametrize(
    ("states", "message"),
    [
        (
            {"db1": NodeState(UUID, 1, False), "db2": NodeState(UUID.replace("5d", "6e"), 2, False)},
            "the nodes belong to different Galera clusters",
        ),
        (
            {"db1": NodeState(UUID, 1, True), "db2": NodeState(UUID, 2, True)},
            "db1, db2 are all marked safe_to_bootstrap",
        ),
        ({"db1": NodeState(UUID, -1, False), "db2": NodeState(UUID, -1, False)}, "no node knows its position"),
    ],
)
def test_refusals(states: dict[str, NodeState], message: str) -> None:
    node, errors = bootstrap_node(states, sorted(states))
    assert node is None and any(message in error for error in errors), errors
