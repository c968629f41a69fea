"""Slurm reservations from the inventory (slurm_reservations): checked before any host is touched, and kept in
step with slurmctld by the slurm_reservation module through scontrol.

A reservation holds nodes (by name, by count, or a partition's) for users or accounts from a start ("now" or a
date) for a duration, maybe recurring (DAILY, WEEKLY...). MAINT marks a maintenance window (the nodes' time
is not charged to anyone); IGNORE_JOBS lets it start over running jobs. Read back, slurmctld reports a few
things its own way: node lists folded, a start that moves on with a recurring reservation, flags it adds
itself (SPEC_NODES where nodes are named); the comparison allows for them.

Kept free of AnsibleModule: parsing and planning are unit-tested on recorded scontrol output.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .values import names

# Flags an inventory may set (scontrol create reservation, Slurm 22.05 to 26.05).
FLAGS = frozenset(
    {
        "ANY_NODES",
        "DAILY",
        "FLEX",
        "HOURLY",
        "IGNORE_JOBS",
        "MAGNETIC",
        "MAINT",
        "NO_HOLD_JOBS_AFTER",
        "OVERLAP",
        "PART_NODES",
        "PURGE_COMP",
        "REPLACE",
        "REPLACE_DOWN",
        "STATIC_ALLOC",
        "TIME_FLOAT",
        "WEEKDAY",
        "WEEKEND",
        "WEEKLY",
    }
)
RECURRING = frozenset({"HOURLY", "DAILY", "WEEKDAY", "WEEKEND", "WEEKLY"})
KEYS = frozenset({"name", "nodes", "node_count", "partition", "start", "duration", "users", "accounts", "flags"})
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
START = re.compile(r"^(now|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?)$")
Runner = Callable[[Sequence[str]], tuple[int, str, str]]


def reservation_errors(
    reservations: Any,
    *,
    compute_hosts: Iterable[str],
    partitions: Iterable[str],
    accounts: Iterable[str],
    users: Iterable[str],
    expand: Callable[[str], list[str]],
) -> list[str]:
    """Everything wrong with slurm_reservations, each problem naming the reservation. ``expand`` turns a
    hostlist expression into names (ClusterShell on the Ansible controller)."""
    if reservations in (None, "") or (isinstance(reservations, (list, tuple)) and not reservations):
        # (none: the compute hosts are not read - at 12,800 hosts, Ansible templates each name on the way in)
        return []
    if not isinstance(reservations, (list, tuple)):
        return ["slurm_reservations is a list of reservations ({name, nodes, start, duration, users/accounts})"]
    errors: list[str] = []
    hosts, known_partitions = set(compute_hosts), set(partitions)
    known_accounts, known_users = {"root", *accounts}, set(users)
    seen: set[str] = set()
    for index, item in enumerate(reservations):
        where = f"slurm_reservations[{index}]"
        if not isinstance(item, Mapping):
            errors.append(f"{where} is {item!r}; give a mapping (name, nodes, start, duration, users/accounts)")
            continue
        name = str(item.get("name") or "")
        where = f"slurm_reservations[{index}] ({name or 'no name'})"
        if not NAME.match(name):
            errors.append(f"{where}: name {name!r} is not a reservation name (letters, digits, '_', '.', '-')")
        elif name in seen:
            errors.append(f"{where}: {name} is given twice; each reservation once")
        seen.add(name)
        unknown = sorted(set(item) - KEYS)
        if unknown:
            errors.append(f"{where}: unknown setting {', '.join(unknown)}; known: {', '.join(sorted(KEYS))}")
        chosen = [key for key in ("nodes", "node_count", "partition") if item.get(key) not in (None, "", [])]
        if not chosen:
            errors.append(f"{where}: say which nodes it holds: nodes (a hostlist), node_count, or partition")
        if item.get("nodes"):
            try:
                held = expand(str(item["nodes"]))
            except ValueError as error:
                errors.append(f"{where}: nodes {item['nodes']!r} is not a hostlist ({error})")
            else:
                strangers = [host for host in held if host not in hosts]
                if strangers:
                    errors.append(f"{where}: nodes {', '.join(strangers[:5])} are not compute hosts of the inventory")
        count = item.get("node_count")
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 1):
            errors.append(f"{where}: node_count {count!r} is not a number of nodes (1 or more)")
        elif isinstance(count, int) and hosts and count > len(hosts):
            errors.append(
                f"{where}: node_count {count} is more than the cluster's {len(hosts)} compute nodes; slurmctld "
                "would refuse the reservation (the play stops there) - hold at most all of them"
            )
        if item.get("partition") and str(item["partition"]) not in known_partitions:
            errors.append(f"{where}: partition {item['partition']!r} is not in cluster_partitions")
        start = str(item.get("start", "now"))
        if not START.match(start):
            errors.append(f"{where}: start {start!r} is neither now nor a date and time (2026-12-01T08:00)")
        elif start != "now" and not _real_date(start):
            errors.append(f"{where}: start {start!r} is no date of the calendar (month 1-12, its days, 00:00-23:59)")
        duration = item.get("duration")
        if minutes_of(duration) is None:
            errors.append(
                f"{where}: duration {duration!r} is not a number of minutes (1 or more) nor a Slurm time (quoted: "
                "'2:00:00', '1-00:00:00')"
            )
        if not names(item.get("users")) and not names(item.get("accounts")):
            errors.append(f"{where}: say whom it is for: users, accounts, or both (Slurm needs one)")
        errors += [
            f"{where}: account {a!r} is not in accounting_accounts (nor root)"
            for a in names(item.get("accounts"))
            if a.lstrip("-") not in known_accounts
        ]
        errors += [
            f"{where}: user {u!r} is not in accounting_users (nor an operator)"
            for u in names(item.get("users"))
            if u.lstrip("-") not in known_users
        ]
        flags = [flag.upper() for flag in names(item.get("flags"))]
        bad = [flag for flag in flags if flag not in FLAGS]
        if bad:
            errors.append(f"{where}: flags {', '.join(bad)} are not reservation flags ({', '.join(sorted(FLAGS))})")
        if len(RECURRING & set(flags)) > 1:
            errors.append(f"{where}: flags {', '.join(sorted(RECURRING & set(flags)))}: one recurrence at most")
    return errors or overlap_errors(reservations, expand)


# Repeats of a recurring reservation: the period, and on which days an occurrence starts (Monday is 0).
PERIODS = {
    "HOURLY": (datetime.timedelta(hours=1), range(7)),
    "DAILY": (datetime.timedelta(days=1), range(7)),
    "WEEKDAY": (datetime.timedelta(days=1), range(5)),
    "WEEKEND": (datetime.timedelta(days=1), range(5, 7)),
    "WEEKLY": (datetime.timedelta(days=7), range(7)),
}
# Occurrences compared past the later start: every pattern of PERIODS repeats within a week.
HORIZON = datetime.timedelta(days=15)
# Flags under which slurmctld lets a reservation share nodes and time with others (tried on 24.11's slurmctld:
# either one's flag is enough; without one the second is refused, "Requested reservation overlaps with another").
SHARING = frozenset({"MAINT", "OVERLAP"})


@dataclasses.dataclass(frozen=True)
class Occurrences:
    """When a reservation holds its nodes: from ``begin`` for ``length``, again every ``period`` (none: once) on
    the weekdays ``days`` (Monday is 0)."""

    begin: datetime.datetime
    length: datetime.timedelta
    period: datetime.timedelta | None = None
    days: tuple[int, ...] = tuple(range(7))

    @classmethod
    def of(cls, item: Mapping[str, Any], now: datetime.datetime) -> Occurrences:
        start = str(item.get("start", "now"))
        begin = now if start == "now" else datetime.datetime.fromisoformat(start)
        length = datetime.timedelta(minutes=minutes_of(item.get("duration")) or 0)
        flags = {flag.upper() for flag in names(item.get("flags"))}
        repeat = next((flag for flag in PERIODS if flag in flags), "")
        if not repeat:
            return cls(begin, length)
        period, days = PERIODS[repeat]
        return cls(begin, length, period, tuple(days))

    def until(self, end: datetime.datetime) -> list[tuple[datetime.datetime, datetime.datetime]]:
        """Every occurrence (start, end) that starts before ``end``."""
        if self.period is None:
            return [(self.begin, self.begin + self.length)]
        found: list[tuple[datetime.datetime, datetime.datetime]] = []
        at = self.begin
        while at < end:
            if at.weekday() in self.days:
                found.append((at, at + self.length))
            at += self.period
        return found


def overlap_errors(
    reservations: Sequence[Mapping[str, Any]], expand: Callable[[str], list[str]], now: datetime.datetime | None = None
) -> list[str]:
    """Two reservations that hold one node at one time, neither with MAINT or OVERLAP: slurmctld refuses the second
    ("Requested reservation overlaps with another reservation") and the play stops there, the first made. Recurring
    reservations are compared occurrence by occurrence. Only reservations that name their nodes are compared (those
    by node_count or partition get nodes slurmctld picks)."""
    start_of_run = now or datetime.datetime.now().replace(second=0, microsecond=0)
    held = [
        (str(item["name"]), set(expand(str(item["nodes"]))), Occurrences.of(item, start_of_run))
        for item in reservations
        if item.get("nodes") and not SHARING & {flag.upper() for flag in names(item.get("flags"))}
    ]
    errors: list[str] = []
    for index, (name, nodes, times) in enumerate(held):
        for other, other_nodes, other_times in held[index + 1 :]:
            shared = sorted(nodes & other_nodes)
            end = max(times.begin, other_times.begin) + HORIZON
            met = _first_meeting(times.until(end), other_times.until(end)) if shared else None
            if met is not None:
                errors.append(
                    f"slurm_reservations: {name} and {other} both hold {', '.join(shared[:5])} at "
                    f'{met.isoformat(timespec="minutes")}: slurmctld refuses the second ("Requested reservation '
                    'overlaps with another reservation") and the play stops there. Give them other nodes or '
                    "times, or one of them flags: [OVERLAP] (MAINT for a maintenance window) to share them"
                )
    return errors


def _first_meeting(
    one: Sequence[tuple[datetime.datetime, datetime.datetime]],
    other: Sequence[tuple[datetime.datetime, datetime.datetime]],
) -> datetime.datetime | None:
    """When two sorted lists of occurrences first overlap (a start within the other's [start, end)), or None."""
    i = j = 0
    while i < len(one) and j < len(other):
        (a_start, a_end), (b_start, b_end) = one[i], other[j]
        if a_start < b_end and b_start < a_end:
            return max(a_start, b_start)
        if a_end <= b_end:
            i += 1
        else:
            j += 1
    return None


def _real_date(start: str) -> bool:
    try:
        datetime.datetime.fromisoformat(start)
    except ValueError:
        return False
    return True


def parse_show(output: str) -> dict[str, str]:
    """`scontrol show reservation=<name> --oneliner` -> its fields (empty when there is none)."""
    line = next((line for line in output.splitlines() if line.startswith("ReservationName=")), "")
    return dict(re.findall(r"(\w+)=(\S*)", line))


def duration_minutes(text: str) -> int | None:
    """Slurm's [D-]HH:MM:SS (or MM:SS, MM) in minutes; None for UNLIMITED or what it cannot read."""
    match = re.fullmatch(r"(?:(\d+)-)?(?:(\d+):)?(\d+)(?::(\d+))?", text.strip())
    if not match:
        return None
    days, first, second, third = match.groups()
    if third is not None:  # [D-]HH:MM:SS
        hours, minutes, seconds = int(first or 0), int(second), int(third)
    elif first is not None:  # [D-]HH:MM or MM:SS (Slurm reads "a:b" as minutes:seconds)
        hours, minutes, seconds = (int(first), int(second), 0) if days else (0, int(first), int(second))
    else:
        hours, minutes, seconds = 0, int(second), 0
    return int(days or 0) * 1440 + hours * 60 + minutes + (1 if seconds else 0)


def minutes_of(duration: Any) -> int | None:
    """A reservation's duration in minutes: a whole number of them, or a Slurm time as scontrol takes it
    ('2:00:00', '1-00:00:00'); None when it is neither, or under a minute."""
    if isinstance(duration, bool):
        return None
    minutes = duration if isinstance(duration, int) else duration_minutes(str(duration)) if duration else None
    return minutes if minutes is not None and minutes >= 1 else None


def wanted_fields(spec: Mapping[str, Any]) -> dict[str, str]:
    """The scontrol fields of the inventory's reservation (create and update take the same names)."""
    fields: dict[str, str] = {
        "StartTime": str(spec.get("start") or "now"),
        "Duration": str(minutes_of(spec["duration"])),
    }
    if spec.get("nodes"):
        fields["Nodes"] = str(spec["nodes"])
    if spec.get("node_count"):
        fields["NodeCnt"] = str(int(spec["node_count"]))
    if spec.get("partition"):
        fields["PartitionName"] = str(spec["partition"])
    if names(spec.get("users")):
        fields["Users"] = ",".join(names(spec.get("users")))
    if names(spec.get("accounts")):
        fields["Accounts"] = ",".join(names(spec.get("accounts")))
    flags = sorted(flag.upper() for flag in names(spec.get("flags")))
    if flags:
        fields["Flags"] = ",".join(flags)
    return fields


def ended(spec: Mapping[str, Any], now: datetime.datetime) -> bool:
    """Whether a reservation of a fixed start that does not repeat is over by ``now`` (the controller's local time,
    as slurmctld reads StartTime): slurmctld has dropped it, and refuses to make one that starts more than 10 minutes
    in the past ("Reservation request has invalid start time")."""
    start = str(spec.get("start") or "now")
    minutes = minutes_of(spec.get("duration"))
    if start == "now" or minutes is None or RECURRING & {flag.upper() for flag in names(spec.get("flags"))}:
        return False
    try:
        begin = datetime.datetime.fromisoformat(start)
    except ValueError:
        return False
    return begin + datetime.timedelta(minutes=minutes) <= now


def plan(
    name: str,
    spec: Mapping[str, Any] | None,
    current: Mapping[str, str],
    expand: Callable[[str], list[str]],
    now: datetime.datetime | None = None,
) -> list[list[str]]:
    """scontrol commands that bring reservation ``name`` to ``spec`` (None: absent) from ``current`` (its
    `show` fields, empty when there is none). ``expand`` turns a hostlist into names on the host (scontrol show
    hostnames), so that folded and unfolded lists compare equal. One that has ended by ``now`` and is gone is not made
    again (slurmctld would refuse it, and every later run would stop there)."""
    if spec is None:
        return [["delete", f"ReservationName={name}"]] if current else []
    wanted = wanted_fields(spec)
    if not current:
        if now is not None and ended(spec, now):
            return []
        return [["create", "reservation", f"ReservationName={name}", *(f"{k}={v}" for k, v in wanted.items())]]
    changes: list[str] = []
    flags_wanted = set(names(wanted.get("Flags")))
    flags_have = {flag for flag in names(current.get("Flags")) if flag in FLAGS}
    start = wanted["StartTime"]
    recurring = bool(RECURRING & flags_wanted)
    if start != "now" and not recurring and current.get("StartTime", "")[: len(start)] != start:
        changes.append(f"StartTime={start}")
    if duration_minutes(current.get("Duration", "")) != int(wanted["Duration"]):
        changes.append(f"Duration={wanted['Duration']}")
    if "Nodes" in wanted and sorted(expand(wanted["Nodes"])) != sorted(expand(current.get("Nodes", ""))):
        changes.append(f"Nodes={wanted['Nodes']}")
    if "NodeCnt" in wanted and "Nodes" not in wanted and current.get("NodeCnt") != wanted["NodeCnt"]:
        changes.append(f"NodeCnt={wanted['NodeCnt']}")
    if "PartitionName" in wanted and current.get("PartitionName") != wanted["PartitionName"]:
        changes.append(f"PartitionName={wanted['PartitionName']}")
    for field in ("Users", "Accounts"):
        have = set(names(current.get(field) if current.get(field) != "(null)" else ""))
        if set(names(wanted.get(field))) != have:
            changes.append(f"{field}={wanted.get(field, '')}")
    if flags_wanted - flags_have:
        changes.append(f"Flags+={','.join(sorted(flags_wanted - flags_have))}")
    if flags_have - flags_wanted:
        changes.append(f"Flags-={','.join(sorted(flags_have - flags_wanted))}")
    return [["update", f"ReservationName={name}", *changes]] if changes else []


def guide_rows(reservations: Any) -> list[dict[str, str]]:
    """The users' guide's table of the reservations: name, nodes, for whom, start, minutes, flags."""
    rows = []
    for item in reservations if isinstance(reservations, (list, tuple)) else ():
        if not isinstance(item, Mapping):
            continue
        nodes = str(item.get("nodes") or "")
        if not nodes:
            count = item.get("node_count")
            nodes = (f"{count} node(s)" if count else "the nodes") + (
                f" of {item['partition']}" if item.get("partition") else ""
            )
        whom = [*names(item.get("users")), *(f"account {a}" for a in names(item.get("accounts")))]
        rows.append(
            {
                "name": str(item.get("name")),
                "nodes": nodes,
                "for": ", ".join(whom),
                "start": str(item.get("start") or "now"),
                "minutes": str(minutes_of(item.get("duration"))),
                "flags": ", ".join(flag.upper() for flag in names(item.get("flags"))),
            }
        )
    return rows
