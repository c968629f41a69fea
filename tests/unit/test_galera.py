"""Galera under slurmdbd: the preflight's findings and the bootstrap choice after a full stop."""

from __future__ import annotations

from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.galera import galera_rename_errors
from ansible_collections.gpucluster.cluster.plugins.filter.hosts import item_values
from ansible_collections.gpucluster.cluster.plugins.module_utils import galera
from ansible_collections.gpucluster.cluster.plugins.module_utils.galera import (
    GIB,
    NodeReport,
    NodeState,
    Plan,
    PreflightLimits,
    bootstrap_node,
    galera_major,
    parse_grastate,
    plan,
    preflight_errors,
    recovered_position,
    rolling_restarts,
    settings_errors,
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
    states["db2"] = NodeState(UUID, -1, False)  # crashed, position unknown: it may hold the newest writes
    node, errors = bootstrap_node(states, ["db1", "db2", "db3"])
    assert node is None and errors[0].startswith("db2 does not know its position")


def test_nodes_stopped_together_may_all_be_safe_the_highest_seqno_wins() -> None:
    states = {"db1": NodeState(UUID, 7, True), "db2": NodeState(UUID, 9, True), "db3": NodeState(UUID, 9, False)}
    assert bootstrap_node(states, ["db1", "db2", "db3"]) == ("db2", [])


@pytest.mark.parametrize(
    ("states", "message"),
    [
        (
            {"db1": NodeState(UUID, 1, False), "db2": NodeState(UUID.replace("5d", "6e"), 2, False)},
            "the nodes belong to different Galera clusters",
        ),
        ({"db1": NodeState(UUID, -1, False), "db2": NodeState(UUID, -1, False)}, "no node knows its position"),
    ],
)
def test_refusals(states: dict[str, NodeState], message: str) -> None:
    node, errors = bootstrap_node(states, sorted(states))
    assert node is None and any(message in error for error in errors), errors


def report(active: bool = False, status: str = "", uuid: str = UUID, seqno: int = 10, safe: bool = False) -> NodeReport:
    return NodeReport(active, status, NodeState(uuid, seqno, safe))


ORDER = ["db1", "db2", "db3"]


def test_plan_new_cluster_bootstraps_the_first_node_and_joins_the_rest() -> None:
    fresh = {host: NodeReport(False) for host in ORDER}
    assert plan(fresh, ORDER) == Plan("db1", ("db2", "db3"), True)


def test_plan_joins_stopped_nodes_to_a_running_primary() -> None:
    reports = {"db1": report(), "db2": report(True, "Primary"), "db3": report(True, "Primary")}
    result = plan(reports, ORDER)
    assert (result.bootstrap, result.join, result.errors) == (None, ("db1",), ())


def test_plan_nothing_to_do_when_all_run() -> None:
    reports = {host: report(True, "Primary") for host in ORDER}
    assert (plan(reports, ORDER).bootstrap, plan(reports, ORDER).join) == (None, ())


def test_plan_refuses_running_nodes_without_primary_component() -> None:
    reports = {"db1": report(True, "non-Primary"), "db2": report(), "db3": report()}
    result = plan(reports, ORDER)
    assert result.bootstrap is None and result.join == ()
    assert "db1=non-Primary" in result.errors[0] and "quorum" in result.errors[0]


def test_plan_recovers_full_stop_from_highest_seqno_then_joins_the_others() -> None:
    reports = {"db1": report(seqno=40), "db2": report(seqno=42), "db3": report(seqno=41)}
    result = plan(reports, ORDER)
    assert (result.bootstrap, result.join, result.new_cluster) == ("db2", ("db1", "db3"), False)


def test_plan_recovers_from_safe_to_bootstrap_node() -> None:
    reports = {"db1": report(seqno=40), "db2": report(seqno=42), "db3": report(seqno=38, safe=True)}
    assert plan(reports, ORDER).bootstrap == "db3"


def test_report_takes_recovered_seqno_when_grastate_says_minus_one() -> None:
    result = {
        "active": False,
        "grastate": {"uuid": UUID, "seqno": -1, "safe_to_bootstrap": False},
        "recovered_seqno": 57,
    }
    assert NodeReport.from_result(result).state == NodeState(UUID, 57, False)


def test_plan_refuses_unknown_positions() -> None:
    reports = {host: report(seqno=-1) for host in ORDER}
    result = plan(reports, ORDER)
    assert result.bootstrap is None and "wsrep-recover" in result.errors[0]


@pytest.mark.parametrize(
    ("version", "major"), [("26.4.20(r7c2a4e4)", 4), ("4.23(rXXXX)", 4), ("25.3.37(r3e5b8b2)", 3), ("", 0)]
)
def test_galera_major_reads_both_version_styles(version: str, major: int) -> None:
    assert galera_major(version) == major


def pilot_server(*databases: str) -> NodeReport:
    """A running MariaDB without Galera: a pilot's accounting server before the migration."""
    return NodeReport(True, "Disconnected", NodeState("", -1, False), wsrep_on=False, databases=databases)


def test_plan_migrates_a_standalone_server_stopping_it_and_bootstrapping_from_its_data() -> None:
    reports = {"db1": NodeReport(False), "db2": pilot_server("slurm_acct_db"), "db3": NodeReport(False)}
    result = plan(reports, ORDER)
    assert result == Plan("db2", ("db1", "db3"), True, (), ("db2",))


def test_plan_refuses_two_nodes_holding_data_in_a_new_cluster() -> None:
    reports = {
        "db1": pilot_server("slurm_acct_db"),
        "db2": NodeReport(False, databases=("other",)),
        "db3": NodeReport(False),
    }
    result = plan(reports, ORDER)
    assert result.bootstrap is None and result.stop == ()
    assert "db1: slurm_acct_db; db2: other" in result.errors[0]


def test_plan_refuses_to_join_a_node_whose_own_data_the_state_transfer_would_replace() -> None:
    reports = {"db1": report(True, "Primary"), "db2": report(True, "Primary"), "db3": pilot_server("slurm_acct_db")}
    result = plan(reports, ORDER)
    assert result.join == () and result.stop == ()
    assert result.errors[0].startswith("db3 holds databases (slurm_acct_db) but never ran in this Galera cluster")


def test_plan_stops_a_fresh_standalone_server_and_joins_it() -> None:
    reports = {"db1": report(True, "Primary"), "db2": report(True, "Primary"), "db3": pilot_server()}
    assert plan(reports, ORDER) == Plan(None, ("db3",), False, (), ("db3",))


def test_report_reads_wsrep_on_and_databases() -> None:
    result = {"active": True, "cluster_status": "Disconnected", "wsrep_on": False, "databases": ["slurm_acct_db"]}
    node = NodeReport.from_result(result)
    assert node.standalone and node.databases == ("slurm_acct_db",)
    assert not NodeReport.from_result({"active": False}).standalone


# Full-stop recovery: every combination of what the nodes report (issue: never bootstrap from a node behind another).
def test_full_stop_all_positions_known_bootstraps_from_the_newest() -> None:
    reports = {"db1": report(seqno=40), "db2": report(seqno=42), "db3": report(seqno=41)}
    assert plan(reports, ORDER) == Plan("db2", ("db1", "db3"), False)


def test_full_stop_a_node_at_minus_one_whose_recovery_found_the_highest_position_is_chosen() -> None:
    recovered = NodeReport.from_result(
        {"active": False, "grastate": {"uuid": UUID, "seqno": -1, "safe_to_bootstrap": False}, "recovered_seqno": 99}
    )
    reports = {"db1": report(seqno=40), "db2": report(seqno=42), "db3": recovered}
    assert plan(reports, ORDER).bootstrap == "db3"


def test_full_stop_a_node_still_at_minus_one_is_refused_by_name() -> None:
    reports = {"db1": report(seqno=40), "db2": report(seqno=42), "db3": report(seqno=-1)}
    result = plan(reports, ORDER)
    assert result.bootstrap is None and result.join == ()
    assert result.errors[0].startswith("db3 does not know its position")
    assert "galera_bootstrap_from" in result.errors[0]


@pytest.mark.parametrize("left_out", ["db1", "db3"])
def test_full_stop_an_unreachable_or_limited_out_node_is_refused_by_name(left_out: str) -> None:
    reports = {host: report(seqno=40 + index) for index, host in enumerate(ORDER) if host != left_out}
    result = plan(reports, ORDER)
    assert (result.bootstrap, result.join, result.stop) == (None, (), ())
    assert result.errors[0].startswith(f"{left_out} of group 'galera' did not report")


def test_a_new_cluster_with_a_node_missing_is_refused_too() -> None:
    # the missing node may hold a cluster's data of its own: a "new" cluster would overwrite it when it joins
    reports = {"db1": NodeReport(False), "db2": NodeReport(False)}
    assert "db3 of group 'galera' did not report" in plan(reports, ORDER).errors[0]


def test_a_running_primary_does_not_need_every_node() -> None:
    reports = {"db1": report(True, "Primary"), "db2": report()}
    assert plan(reports, ORDER) == Plan(None, ("db2",), False)


def test_two_safe_to_bootstrap_nodes_the_newest_wins() -> None:
    reports = {"db1": report(seqno=7, safe=True), "db2": report(seqno=9, safe=True), "db3": report(seqno=9)}
    assert plan(reports, ORDER).bootstrap == "db2"


def test_mixed_cluster_uuids_are_refused() -> None:
    reports = {"db1": report(seqno=7), "db2": report(seqno=9, uuid=UUID.replace("5d", "6e")), "db3": report()}
    result = plan(reports, ORDER)
    assert result.bootstrap is None and "different Galera clusters" in result.errors[0]


def test_the_operators_choice_overrides_positions_and_missing_nodes() -> None:
    reports = {"db1": report(seqno=40), "db2": report(seqno=-1)}
    assert plan(reports, ORDER, chosen="db1") == Plan("db1", ("db2",), False)
    assert "not in group 'galera'" in plan(reports, ORDER, chosen="db9").errors[0]
    assert "db3 did not report" in plan(reports, ORDER, chosen="db3").errors[0]
    running = {"db1": report(True, "Primary"), "db2": report()}
    assert "MariaDB runs on db1; a bootstrap beside" in plan(running, ORDER, chosen="db2").errors[0]


GALERA3 = ["db01", "db02", "db03"]
SETTINGS = {"sst_method": "mariabackup", "sst_password": "x" * 12, "bootstrap_from": "", "bootstrap_confirm": ""}


def test_galera_settings_pass_and_each_problem_is_named_on_its_own() -> None:
    assert settings_errors(GALERA3, ["db01", "db02"], SETTINGS) == []
    assert settings_errors(GALERA3, [], {**SETTINGS, "sst_method": "rsync", "sst_password": ""}) == []
    (even,) = settings_errors(GALERA3[:2], [], SETTINGS)
    assert even.startswith("inventory group 'galera' has 2 hosts (db01, db02): a Galera cluster needs an odd number")
    errors = settings_errors(GALERA3, ["db01", "ctl01"], {**SETTINGS, "sst_password": "short"})
    assert errors == [
        "ctl01 of group 'dbd' is not in group 'galera': slurmdbd writes to its local Galera node; put every dbd host "
        "in galera",
        "galera_sst_password (Ansible Vault, 12+ characters) is required for galera_sst_method mariabackup",
    ]
    (method,) = settings_errors(GALERA3, [], {**SETTINGS, "sst_method": "xtrabackup"})
    assert method == "galera_sst_method is 'xtrabackup'; set it to mariabackup or rsync"


def test_a_bootstrap_choice_needs_a_galera_host_typed_twice() -> None:
    (outside,) = settings_errors(GALERA3, [], {**SETTINGS, "bootstrap_from": "db09", "bootstrap_confirm": "db09"})
    assert "it is not in group galera (db01, db02, db03)" in outside
    (unconfirmed,) = settings_errors(GALERA3, [], {**SETTINGS, "bootstrap_from": "db02"})
    assert unconfirmed.endswith("-e galera_bootstrap_confirm=db02")
    assert settings_errors(GALERA3, [], {**SETTINGS, "bootstrap_from": "db02", "bootstrap_confirm": "db02"}) == []


def test_a_running_cluster_under_another_name_is_refused_with_the_fix() -> None:
    """What the galera_node module reports on each node, as the name check's loop registers it."""
    results = [
        {"item": "db01", "active": True, "wsrep_on": True, "variables": {"wsrep_cluster_name": "prod-accounting"}},
        {"item": "db02", "active": True, "wsrep_on": True, "variables": {"wsrep_cluster_name": "prod-accounting"}},
        {"item": "db03", "active": False, "wsrep_on": True, "variables": {}},  # stopped: nothing to keep
        {"item": "db04", "unreachable": True},
        {"item": "db05", "active": True, "wsrep_on": False, "variables": {"wsrep_cluster_name": ""}},  # standalone
    ]
    assert galera_rename_errors(results, "prod-accounting") == []
    assert galera_rename_errors(results[2:], "renamed-accounting") == []
    assert galera_rename_errors(results, "renamed-accounting") == [
        "db01: prod-accounting, db02: prod-accounting run the Galera cluster 'prod-accounting' and the inventory "
        "makes it 'renamed-accounting' (galera_cluster_name, by default cluster_name + '-accounting'): a node does "
        "not rejoin its cluster under another name. Set galera_cluster_name: prod-accounting in group_vars/all"
    ]


def test_only_running_nodes_whose_settings_changed_are_restarted_in_order() -> None:
    changed = {"db02": True, "db01": True, "db03": False, "db04": ""}
    active = {"db01": True, "db02": True, "db03": True, "db04": True}
    assert rolling_restarts(changed, {**active, "db01": ""}) == ["db02"]
    assert rolling_restarts(changed, active) == ["db02", "db01"]


def test_a_looped_tasks_results_by_item() -> None:
    results: list[dict[str, Any]] = [{"item": "db01", "variables": {"a": "1"}}, {"item": "db02", "skipped": True}]
    assert item_values(results, "variables", {}) == {"db01": {"a": "1"}, "db02": {}}
    assert item_values(results, "rc") == {"db01": "", "db02": ""}


# What a running node shows in wsrep_provider_options (trimmed), with and without TLS on its socket.
PLAIN_OPTIONS = "base_dir = /var/lib/mysql/; gcache.size = 64M; socket.checksum = 2; socket.recv_buf_size = auto"
TLS_OPTIONS = (
    "gcache.size = 64M; socket.ssl = YES; socket.ssl_ca = /etc/mysql/tls/ca.crt; "
    "socket.ssl_cert = /etc/mysql/tls/galera.crt; socket.ssl_key = /etc/mysql/tls/galera.key"
)


def test_replication_tls_is_read_from_the_provider_options() -> None:
    assert not galera.replication_tls(PLAIN_OPTIONS)
    assert galera.replication_tls(TLS_OPTIONS)
    # a certificate alone turns TLS on
    assert galera.replication_tls("socket.ssl_cert = /etc/mysql/tls/galera.crt; socket.ssl_key = /k")
    assert galera.provider_options(TLS_OPTIONS)["socket.ssl_ca"] == "/etc/mysql/tls/ca.crt"


def test_a_move_to_tls_passes_the_nodes_running_without_it() -> None:
    running = {"db1": False, "db2": True, "db3": None}
    assert galera.tls_change(running, True) == (["db1"], [])
    assert galera.tls_change({"db1": True, "db2": True, "db3": None}, True) == ([], [])
    # a cluster without TLS that keeps it off: nothing to move, nothing refused
    assert galera.tls_change({"db1": False, "db2": False}, False) == ([], [])


def test_a_move_back_from_tls_on_a_running_cluster_is_refused() -> None:
    moving, errors = galera.tls_change({"db1": True, "db2": None, "db3": True}, False)
    assert moving == []
    assert len(errors) == 1
    assert "galera_tls is false, and db1, db3 run Galera with TLS" in errors[0]
    assert "galera-recover.yml -e galera_tls=false" in errors[0]


def test_two_slurmdbd_hosts_need_one_galera_database() -> None:
    """Each slurmdbd writes to the MariaDB on its own host: a backup without Galera would write to a second one."""
    (error,) = galera.standalone_dbd_errors(["db01", "db02"], [])
    assert error.startswith("group 'dbd' has 2 hosts (db01, db02) and there is no 'galera' group"), error
    assert "db02 would take over with a database of its own" in error
    assert galera.standalone_dbd_errors(["db01", "db02"], GALERA3) == []
    assert galera.standalone_dbd_errors(["db01"], []) == []


def test_the_nodes_mariadb_settings_are_checked_before_any_host() -> None:
    """Sizes MariaDB reads, a buffer pool and write-set size the slurmdbd preflight will accept (it runs after the
    Galera nodes are set up), at least one applier thread and a wait for Synced."""
    server = {
        "sizes": {"galera_gcache_size": "1G", "galera_innodb_buffer_pool_size": "4G"},
        "min_buffer_pool_mb": 4096,
        "max_ws_size": 2147483647,
        "min_ws_size_gb": 1,
        "slave_threads": 4,
        "sync_timeout": 600,
    }
    assert settings_errors(GALERA3, [], {**SETTINGS, **server}) == []
    wrong = {
        **server,
        "sizes": {"galera_gcache_size": "1 GB", "galera_innodb_buffer_pool_size": "256M"},
        "max_ws_size": 1024,
        "slave_threads": 0,
    }
    assert settings_errors(GALERA3, [], {**SETTINGS, **wrong}) == [
        "galera_gcache_size: '1 GB' is not a size MariaDB reads; write a number with K, M, G or T (4G)",
        "galera_innodb_buffer_pool_size: 256M is below what the slurmdbd preflight accepts "
        "(galera_preflight_min_buffer_pool_mb: 4096 MiB), which would stop the run after the Galera nodes were set "
        "up; raise it (or, in a lab only, lower the preflight's floor)",
        "galera_max_ws_size: 1024 bytes is below what the slurmdbd preflight accepts (galera_preflight_min_ws_size_gb: "
        "1): slurmdbd's large transactions (purges, archives) would fail; raise it (2147483647 is Galera's most)",
        "galera_slave_threads: 0 is not a whole number of 1 or more",
    ]


def test_lock_wait_and_packet_below_the_preflights_floors_are_refused_before_any_host() -> None:
    """The slurmdbd preflight reads innodb_lock_wait_timeout and max_allowed_packet on the running nodes and stops
    the run there: the inventory's own values are held to the same floors first."""
    floors = {"min_lock_wait_timeout": 900, "min_max_allowed_packet_mb": 16}
    server = {**floors, "lock_wait_timeout": 900, "sizes": {"galera_max_allowed_packet": "64M"}}
    assert settings_errors(GALERA3, [], {**SETTINGS, **server}) == []
    wrong = {**floors, "lock_wait_timeout": 50, "sizes": {"galera_max_allowed_packet": "4M"}}
    errors = settings_errors(GALERA3, [], {**SETTINGS, **wrong})
    assert [error.split(":")[0] for error in errors] == [
        "galera_innodb_lock_wait_timeout",
        "galera_max_allowed_packet",
    ], errors
    assert all("would stop the run after the Galera nodes were set up" in error for error in errors)
