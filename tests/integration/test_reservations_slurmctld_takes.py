"""Reservations that share nodes, decided by the real slurmctld of each release: the second of two reservations that
hold one node at one time is refused ("Requested reservation overlaps with another reservation") unless one of them
has MAINT or OVERLAP, recurring ones compared occurrence by occurrence - the deploy made the first and stopped at the
second. Each pair is made by slurmctld beside the validation's verdict on the same pair (slurm_reservations); 22.05
takes three pairs of recurring reservations that 24.11 and 26.05 refuse (LOOSER_22_05)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import expand
from ansible_collections.gpucluster.cluster.plugins.module_utils.reservations import overlap_errors, wanted_fields

from lab.slurmctld_check import SUITE_RELEASE, reservation_pairs

pytestmark = pytest.mark.slurmctld


def held(nodes: str, start: str, duration: int, *flags: str) -> dict[str, Any]:
    return {"nodes": nodes, "start": start, "duration": duration, "users": ["root"], "flags": list(flags)}


# (first, second): 2027-01-04 is a Monday.
PAIRS = [
    (held("n1", "2027-01-05T08:00", 120), held("n1", "2027-01-05T09:00", 120)),  # overlapping
    (held("n1", "2027-01-05T08:00", 120), held("n1", "2027-01-05T10:00", 60)),  # one ends as the other starts
    (held("n1", "2027-01-05T08:00", 120), held("n2", "2027-01-05T08:00", 120)),  # other nodes
    (held("n1,n2", "2027-01-05T08:00", 120), held("n2", "2027-01-05T09:00", 30)),  # one node shared
    (held("n1", "2027-01-05T08:00", 120), held("n1", "2027-01-05T09:00", 120, "MAINT")),
    (held("n1", "2027-01-05T08:00", 120, "OVERLAP"), held("n1", "2027-01-05T09:00", 120)),
    (held("n2", "2027-01-04T09:00", 60, "DAILY"), held("n2", "2027-01-06T09:30", 60)),  # the third day's occurrence
    (held("n2", "2027-01-04T09:00", 60, "DAILY"), held("n2", "2027-01-06T10:00", 60)),
    (held("n1", "2027-01-04T09:00", 60, "WEEKLY"), held("n1", "2027-01-11T09:30", 30)),
    (held("n1", "2027-01-04T09:00", 60, "WEEKLY"), held("n1", "2027-01-12T09:30", 30)),
    (held("n1", "2027-01-04T00:00", 30, "HOURLY"), held("n1", "2027-01-05T10:20", 10)),
    (held("n1", "2027-01-04T00:00", 30, "HOURLY"), held("n1", "2027-01-05T10:40", 10)),
    (held("n1", "2027-01-04T09:00", 60, "WEEKDAY"), held("n1", "2027-01-08T09:30", 30)),  # a Friday
    (held("n1", "2027-01-04T09:00", 60, "WEEKDAY"), held("n1", "2027-01-09T09:30", 30)),  # a Saturday
    (held("n1", "2027-01-09T09:00", 60, "WEEKEND"), held("n1", "2027-01-10T09:30", 30)),  # a Sunday
    (held("n1", "2027-01-09T09:00", 60, "WEEKEND"), held("n1", "2027-01-11T09:30", 30)),  # a Monday
]


# 22.05's slurmctld compares a WEEKLY, WEEKDAY or WEEKEND reservation's first occurrence only: it makes the second
# reservation of these pairs, and the two then hold the node at once for their users (24.11 and 26.05 refuse them).
# The validation refuses them on every release.
LOOSER_22_05 = [8, 12, 14]


def verdict(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Whether the validation takes the pair."""
    pair = [{"name": "first", **first}, {"name": "second", **second}]
    return not overlap_errors(pair, expand, now=datetime.datetime(2026, 12, 1, 8, 0))


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_two_reservations_on_one_node_are_refused_where_slurmctld_refuses_the_second(
    docker_lab: None, suite: str
) -> None:
    fields = [tuple(wanted_fields(spec) for spec in pair) for pair in PAIRS]
    said = reservation_pairs(suite, fields)  # type: ignore[arg-type]
    judged = [(index, verdict(*pair), answer) for index, (pair, answer) in enumerate(zip(PAIRS, said, strict=True))]
    disagree = [index for index, taken, answer in judged if taken != (answer == "")]
    assert disagree == LOOSER_22_05 if SUITE_RELEASE[suite] == "22.05" else not disagree, judged
    refused = [answer for index, taken, answer in judged if not taken and index not in disagree]
    assert refused and all("overlaps with another reservation" in answer for answer in refused), refused
