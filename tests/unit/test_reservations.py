"""slurm_reservations: validation by name, and the scontrol commands planned against recorded output (Slurm
24.11 in the pilot lab)."""

from __future__ import annotations

from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import expand
from ansible_collections.gpucluster.cluster.plugins.module_utils.reservations import (
    duration_minutes,
    parse_show,
    plan,
    reservation_errors,
)

SHOWN = (
    "ReservationName=zz StartTime=2030-01-01T08:00:00 EndTime=2030-01-01T09:30:00 Duration=01:30:00 "
    "Nodes=pilot-gpu[01-02] NodeCnt=2 CoreCnt=4 Features=(null) PartitionName=(null) "
    "Flags=MAINT,IGNORE_JOBS,SPEC_NODES TRES=cpu=4 Users=root Groups=(null) Accounts=(null) Licenses=(null) "
    "State=INACTIVE BurstBuffer=(null) MaxStartDelay=(null)\n"
)
SPEC: dict[str, Any] = {
    "name": "zz",
    "nodes": "pilot-gpu01,pilot-gpu02",
    "start": "2030-01-01T08:00",
    "duration": 90,
    "users": ["root"],
    "flags": ["maint", "IGNORE_JOBS"],
}
HOSTS = ["pilot-gpu01", "pilot-gpu02"]


def names(hostlist: str) -> list[str]:
    return expand(hostlist) if hostlist and hostlist != "(null)" else []


def errors(reservations: Any) -> list[str]:
    return reservation_errors(
        reservations,
        compute_hosts=HOSTS,
        partitions=["gpu"],
        accounts=["vision"],
        users=["root", "carol"],
        expand=expand,
    )


def test_durations_as_slurm_prints_them() -> None:
    assert duration_minutes("01:30:00") == 90
    assert duration_minutes("1-02:00:00") == 1560
    assert duration_minutes("45") == 45
    assert duration_minutes("UNLIMITED") is None


def test_a_reservation_is_created_then_left_alone() -> None:
    assert plan("zz", SPEC, {}, names) == [
        [
            "create",
            "reservation",
            "ReservationName=zz",
            "StartTime=2030-01-01T08:00",
            "Duration=90",
            "Nodes=pilot-gpu01,pilot-gpu02",
            "Users=root",
            "Flags=IGNORE_JOBS,MAINT",
        ]
    ]
    # as slurmctld shows it: folded nodes, its own SPEC_NODES flag, the start with seconds
    assert plan("zz", SPEC, parse_show(SHOWN), names) == []


def test_what_differs_is_updated_and_a_removed_reservation_deleted() -> None:
    changed = {**SPEC, "nodes": "pilot-gpu01", "duration": 1560, "flags": ["MAINT"], "accounts": ["vision"]}
    assert plan("zz", changed, parse_show(SHOWN), names) == [
        [
            "update",
            "ReservationName=zz",
            "Duration=1560",
            "Nodes=pilot-gpu01",
            "Accounts=vision",
            "Flags-=IGNORE_JOBS",
        ]
    ]
    assert plan("zz", None, parse_show(SHOWN), names) == [["delete", "ReservationName=zz"]]
    assert plan("zz", None, {}, names) == []
    # a start of now is not compared once it exists
    assert plan("zz", {**SPEC, "start": "now"}, parse_show(SHOWN), names) == []


def test_a_right_list_passes() -> None:
    assert (
        errors([SPEC, {"name": "v", "node_count": 1, "partition": "gpu", "duration": 60, "accounts": ["vision"]}]) == []
    )
    assert errors(None) == [] and errors([]) == []


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({**SPEC, "nodes": "pilot-gpu[01-03]"}, "nodes pilot-gpu03 are not compute hosts of the inventory"),
        ({**SPEC, "nodes": ""}, "say which nodes it holds"),
        ({**SPEC, "duration": "2h"}, "duration '2h' is not a number of minutes"),
        ({**SPEC, "start": "tomorrow"}, "start 'tomorrow' is neither now nor a date and time"),
        ({**SPEC, "users": []}, "say whom it is for"),
        ({**SPEC, "users": ["dave"]}, "user 'dave' is not in accounting_users"),
        ({**SPEC, "accounts": ["nlp"]}, "account 'nlp' is not in accounting_accounts"),
        ({**SPEC, "flags": ["MAINTENANCE"]}, "flags MAINTENANCE are not reservation flags"),
        ({**SPEC, "flags": ["DAILY", "WEEKLY"]}, "flags DAILY, WEEKLY: one recurrence at most"),
        ({**SPEC, "partition": "cpu"}, "partition 'cpu' is not in cluster_partitions"),
        ({**SPEC, "name": "a b"}, "name 'a b' is not a reservation name"),
        ({**SPEC, "node": "x"}, "unknown setting node"),
        ({**SPEC, "start": "2026-13-01T08:00"}, "start '2026-13-01T08:00' is no date of the calendar"),
        ({**SPEC, "nodes": "", "node_count": 3}, "node_count 3 is more than the cluster's 2 compute nodes"),
    ],
)
def test_each_mistake_is_named(item: dict[str, Any], message: str) -> None:
    found = errors([item])
    assert any(message in error for error in found), found
    assert all(error.startswith("slurm_reservations[0] (") for error in found), found


def test_a_name_given_twice_is_refused() -> None:
    assert errors([SPEC, SPEC]) == ["slurm_reservations[1] (zz): zz is given twice; each reservation once"]


def test_the_users_guide_lists_them() -> None:
    from ansible_collections.gpucluster.cluster.plugins.filter.slurm import slurm_reservation_rows

    by_count = {"name": "v", "node_count": 1, "partition": "gpu", "duration": 60, "accounts": ["vision"]}
    assert slurm_reservation_rows([SPEC, by_count]) == [
        {
            "name": "zz",
            "nodes": "pilot-gpu01,pilot-gpu02",
            "for": "root",
            "start": "2030-01-01T08:00",
            "minutes": "90",
            "flags": "MAINT, IGNORE_JOBS",
        },
        {
            "name": "v",
            "nodes": "1 node(s) of gpu",
            "for": "account vision",
            "start": "now",
            "minutes": "60",
            "flags": "",
        },
    ]


def test_a_duration_may_be_a_slurm_time_as_scontrol_takes_it() -> None:
    """scontrol takes Duration=2:00:00 and 1-00:00:00; the plan sends whole minutes either way, and what is no time
    ('2h') is refused by name."""
    from ansible_collections.gpucluster.cluster.plugins.module_utils.reservations import wanted_fields

    assert errors([{**SPEC, "duration": "1:30:00"}]) == []
    assert wanted_fields({**SPEC, "duration": "1:30:00"})["Duration"] == "90"
    assert wanted_fields({**SPEC, "duration": "1-00:00:00"})["Duration"] == "1440"
    assert wanted_fields(SPEC)["Duration"] == "90"
    assert errors([{**SPEC, "duration": "2h"}]) == [
        "slurm_reservations[0] (zz): duration '2h' is not a number of minutes (1 or more) nor a Slurm time (quoted: "
        "'2:00:00', '1-00:00:00')"
    ]
    assert errors([{**SPEC, "duration": 0}]) != []


def test_two_reservations_holding_one_node_at_one_time_are_refused() -> None:
    """slurmctld refuses the second (tests/integration/test_reservations_slurmctld_takes.py): the deploy stopped there,
    the first made."""
    first = {**SPEC, "name": "first", "flags": []}
    second = {**SPEC, "name": "second", "nodes": "pilot-gpu02", "start": "2030-01-01T09:00", "flags": ["IGNORE_JOBS"]}
    said = errors([first, second])
    assert said == [
        "slurm_reservations: first and second both hold pilot-gpu02 at 2030-01-01T09:00: slurmctld refuses the second "
        '("Requested reservation overlaps with another reservation") and the play stops there. Give them other '
        "nodes or times, or one of them flags: [OVERLAP] (MAINT for a maintenance window) to share them"
    ], said
    assert errors([first, {**second, "flags": ["maint"]}]) == []  # a maintenance window may overlap
    assert errors([first, {**second, "start": "2030-01-01T09:30"}]) == []  # the first ends as it starts
    assert errors([first, {**second, "nodes": "pilot-gpu[01-02]", "node_count": None}]) != []
    daily = {**first, "start": "2029-12-25T08:30", "duration": 30, "flags": ["DAILY"]}
    assert "at 2030-01-01T09:00" not in " ".join(errors([daily, second]))  # 08:30-09:00 daily, 09:00 on the first
    assert errors([daily, {**second, "start": "2030-01-01T08:45"}])[0].startswith(
        "slurm_reservations: first and second both hold pilot-gpu02 at 2030-01-01T08:45"
    )
    weekend = {**daily, "start": "2029-12-29T08:30", "flags": ["WEEKEND"]}  # a Saturday
    assert errors([weekend, {**second, "start": "2030-01-01T08:45"}]) == []  # a Tuesday
    assert errors([weekend, {**second, "start": "2030-01-05T08:45"}]) != []  # the next Saturday
    # by node count or partition: slurmctld picks the nodes, not compared
    assert errors([first, {**second, "nodes": None, "node_count": 1}]) == []


def test_a_reservation_that_has_ended_is_not_made_again() -> None:
    """slurmctld drops a reservation once it ends and refuses one that starts more than 10 minutes in the past: a
    maintenance window left in the inventory after it would stop every later run at the slurm role."""
    import datetime

    before, after = datetime.datetime(2029, 12, 31, 8, 0), datetime.datetime(2030, 1, 1, 9, 31)
    assert plan("zz", SPEC, {}, names, before)[0][0] == "create"
    assert plan("zz", SPEC, {}, names, after) == []
    # while it exists (running, or the run before its end) it is kept as it says
    assert plan("zz", SPEC, parse_show(SHOWN), names, after) == []
    # a recurring one, or one that starts now, is never over
    assert plan("zz", {**SPEC, "flags": ["DAILY"]}, {}, names, after)[0][0] == "create"
    assert plan("zz", {**SPEC, "start": "now"}, {}, names, after)[0][0] == "create"
