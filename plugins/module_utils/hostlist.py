"""Hostlist folding and expansion, delegated to ClusterShell's NodeSet (no hand-written range code).

Slurm reads the same bracket syntax (``gpu[001-128]``, ``r[1-2]-n[01-16]``); the real-slurmctld tests
compare our folds with ``scontrol show hostnames``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from ClusterShell.NodeSet import NodeSet, NodeSetParseError
from ClusterShell.RangeSet import RangeSet

# Slurm's parser reads long lines, but review diffs do not: a folded list longer than this is split into
# several stanzas that carry the same attributes.
MAX_FOLD_CHARS = 512

_TRAILING_NUMBER = re.compile(r"^(.*?)(\d+)(\D*)$")
_DIGITS = "0123456789"
# Characters NodeSet reads as syntax: names holding them take the slow, fully parsed path.
_SPECIAL = re.compile(r"[\[\],!&^@% ]")


class HostlistError(ValueError):
    """A hostlist expression that cannot be parsed."""


def fold(names: Iterable[str], *, suffix_ranges: bool = True) -> str:
    """Fold host names into one hostlist expression; the empty string for no names. Without ``suffix_ranges``
    names with text after their last number are listed, not folded (Slurm 22.05's hostlist cannot read
    gpu[01-02]-ib: tests/integration/test_names_slurm_accepts.py)."""
    items = tuple(names)
    if suffix_ranges or not any(_suffixed(name) for name in items):
        return _fold(items)
    folded = _fold(tuple(name for name in items if not _suffixed(name)))
    return ",".join([*([folded] if folded else []), *(name for name in items if _suffixed(name))])


@lru_cache(maxsize=4096)
def _fold(names: tuple[str, ...]) -> str:
    """ClusterShell's fold of ``names``, each distinct set folded once (slurm.conf, gres.conf and
    validation messages fold the same sets).

    Parsing every name into its own NodeSet dominates ``NodeSet.fromlist`` at scale, so the names are
    first grouped by the text around their last number and each group's indexes are added to one
    RangeSet; NodeSet then parses those few ``prefix[range]suffix`` patterns and folds them (all axes)
    as usual.
    """
    if not names:
        return ""
    numbers: dict[tuple[str, str], RangeSet] = {}
    plain: list[str] = []
    for name in names:
        stem = name.rstrip(_DIGITS)
        if stem != name and not _SPECIAL.search(name):  # the common case: the name ends in its number
            prefix, digits, suffix = stem, name[len(stem) :], ""
        else:
            match = _TRAILING_NUMBER.match(name)
            if not match or _SPECIAL.search(name):
                plain.append(name)
                continue
            prefix, digits, suffix = match.groups()
        indexes = numbers.get((prefix, suffix))
        if indexes is None:
            indexes = numbers[(prefix, suffix)] = RangeSet()
        indexes.add(digits)  # RangeSet keeps indexes as strings, padding included
    if len(numbers) == 1 and not plain:
        # one pattern (a leaf switch's hosts, a node type's): NodeSet would parse it back and print it unchanged -
        # half the fold's time at 12,800 hosts in 400 leaves (tests/unit/test_hostlist.py compares with NodeSet's)
        ((prefix, suffix), indexes), *_ = numbers.items()
        return f"{prefix}{indexes}{suffix}" if len(indexes) == 1 else f"{prefix}[{indexes}]{suffix}"
    patterns = [f"{prefix}[{indexes}]{suffix}" for (prefix, suffix), indexes in numbers.items()]
    nodeset = NodeSet(",".join(patterns)) if patterns else NodeSet()
    if plain:
        nodeset.update(NodeSet.fromlist(plain))
    return str(nodeset)


def _suffixed(name: str) -> bool:
    """Whether a name has text after its last number (gpu01-ib, gpu01.ib): folded, the range sits before it."""
    match = _TRAILING_NUMBER.match(name)
    return bool(match and match.group(3))


def fold_chunks(names: Iterable[str], max_chars: int = MAX_FOLD_CHARS, *, suffix_ranges: bool = True) -> list[str]:
    """Fold names into expressions of at most ``max_chars`` characters where possible.

    A fold that is too long is split in two halves of the (naturally ordered) names, recursively; only a
    single name longer than the limit is returned as it is. Without ``suffix_ranges`` names with text after
    their last number are listed one by one, not folded (Slurm 22.05's slurmctld cannot build the NodeAddr list
    of gpu[01-02]-ib and stops; tests/integration/test_names_slurm_accepts.py).
    """
    items = tuple(names)
    if not suffix_ranges and any(_suffixed(name) for name in items):
        listed = [name for name in items if _suffixed(name)]
        chunks = fold_chunks([name for name in items if not _suffixed(name)], max_chars)
        line = ""
        for name in listed:
            if line and len(line) + 1 + len(name) > max_chars:
                chunks.append(line)
                line = ""
            line = f"{line},{name}" if line else name
        return [*chunks, line] if line else chunks
    folded = _fold(items)
    if not folded:
        return []
    if len(folded) <= max_chars or len(items) == 1:
        return [folded]
    ordered = list(NodeSet(folded))
    middle = len(ordered) // 2
    return fold_chunks(ordered[:middle], max_chars) + fold_chunks(ordered[middle:], max_chars)


_NUMBERS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple[tuple[int, str, int], ...]:
    """Sort key that orders ``leaf2`` before ``leaf10`` (numbers compared as numbers)."""
    return tuple((1, "", int(part)) if part.isdigit() else (0, part, 0) for part in _NUMBERS.split(name) if part)


def natural_slices(host_sets: Iterable[Sequence[str]], size: int) -> list[tuple[str, tuple[str, ...]]]:
    """Consecutive slices of ``size`` hosts in natural name order, each as (folded, names).

    The natural order comes from expanding the union of the sets' (cached) folds; this is how leaf
    switches and NVLink blocks are laid out.
    """
    ordered = list(NodeSet(",".join(folded for folded in (fold(hosts) for hosts in host_sets) if folded)))
    slices = []
    for start in range(0, len(ordered), size):
        part = tuple(ordered[start : start + size])
        slices.append((_fold(part), part))
    return slices


# More hosts than any cluster in scope (a 102,400-GPU federation has 12,800): an expression that expands
# further is a typo (gpu[1-1000000000]) and is refused before NodeSet spends minutes and gigabytes on it.
MAX_EXPANDED_HOSTS = 200_000
_BRACKET = re.compile(r"\[([^\[\]]*)\]")
_RANGE = re.compile(r"^\s*([0-9]+)\s*-\s*([0-9]+)\s*(?:/\s*([0-9]+))?\s*$")


def _check_size(piece: str) -> None:
    """Refuse reversed ranges and expressions of more than MAX_EXPANDED_HOSTS names, without expanding."""
    total = 0
    for name in piece.split(",") if "[" not in piece else _top_level_items(piece):
        size = 1
        for body in _BRACKET.findall(name):
            count = 0
            for item in body.split(","):
                match = _RANGE.match(item)
                if not match:
                    count += 1
                    continue
                low, high, step = int(match.group(1)), int(match.group(2)), int(match.group(3) or 1)
                if low > high:
                    raise HostlistError(
                        f"reversed range {match.group(1)}-{match.group(2)} in {name!r}; write it low to high "
                        f"([{match.group(2)}-{match.group(1)}])"
                    )
                count += (high - low) // max(step, 1) + 1
            size *= max(count, 1)
        total += size
        if total > MAX_EXPANDED_HOSTS:
            raise HostlistError(
                f"{piece[:80]!r} expands to more than {MAX_EXPANDED_HOSTS:,} names; check the range's bounds"
            )


def _top_level_items(expression: str) -> list[str]:
    """The comma-separated items of an expression, ignoring commas inside brackets."""
    items, depth, start = [], 0, 0
    for index, char in enumerate(expression):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(expression[start:index])
            start = index + 1
    items.append(expression[start:])
    return items


def expand(expression: str | Iterable[str]) -> list[str]:
    """Expand a hostlist expression (or a list of them) into host names, in NodeSet's natural order.
    Raises HostlistError on a syntax error, a reversed range or an absurd size (before expanding)."""
    pieces = [expression] if isinstance(expression, str) else list(expression)
    for piece in pieces:
        _check_size(str(piece))
    try:
        nodeset = NodeSet()
        for piece in pieces:
            nodeset.update(NodeSet(str(piece)))
    except NodeSetParseError as exc:
        raise HostlistError(str(exc)) from exc
    return list(nodeset)


@lru_cache(maxsize=256)
def _parsed(expression: str) -> NodeSet:
    return NodeSet(expression)


def holds(expression: str, name: str) -> bool:
    """Whether a folded expression (fold's) holds the name, without expanding it: a membership test on the few
    patterns of the expression, parsed once per process."""
    return bool(expression) and name in _parsed(expression)


def padding_collisions(names: Iterable[str]) -> list[tuple[str, str]]:
    """Pairs of names that differ only in zero padding or letter case (gpu1/gpu01, Gpu01/gpu01).

    Slurm folds them into one bracket range, and DNS does not tell case apart, so both are ambiguous.
    """
    seen: dict[tuple[str, int | str, str], str] = {}
    pairs: list[tuple[str, str]] = []
    for name in names:
        match = _TRAILING_NUMBER.match(name)
        key: tuple[str, int | str, str]
        key = (match.group(1).lower(), int(match.group(2)), match.group(3).lower()) if match else (name.lower(), "", "")
        other = seen.get(key)
        if other is not None and other != name:
            pairs.append((other, name))
        else:
            seen[key] = name
    return pairs
