"""Hostlist folding and expansion, delegated to ClusterShell's NodeSet (no hand-written range code).

Slurm reads the same bracket syntax (``gpu[001-128]``, ``r[1-2]-n[01-16]``); the real-slurmctld tests
compare our folds with ``scontrol show hostnames``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ClusterShell.NodeSet import NodeSet, NodeSetParseError

# Slurm's parser reads long lines, but review diffs do not: a folded list longer than this is split into
# several stanzas that carry the same attributes.
MAX_FOLD_CHARS = 512

_TRAILING_NUMBER = re.compile(r"^(.*?)(\d+)(\D*)$")


class HostlistError(ValueError):
    """A hostlist expression that cannot be parsed."""


def fold(names: Iterable[str]) -> str:
    """Fold host names into one hostlist expression; the empty string for no names."""
    items = list(names)
    if not items:
        return ""
    return str(NodeSet.fromlist(items))


def fold_chunks(names: Iterable[str], max_chars: int = MAX_FOLD_CHARS) -> list[str]:
    """Fold names into expressions of at most ``max_chars`` characters where possible.

    A fold that is too long is split in two halves of the (naturally ordered) names, recursively; only a
    single name longer than the limit is returned as it is.
    """
    nodeset = NodeSet.fromlist(list(names))
    folded = str(nodeset)
    if not folded:
        return []
    if len(folded) <= max_chars or len(nodeset) == 1:
        return [folded]
    ordered = list(nodeset)
    middle = len(ordered) // 2
    return fold_chunks(ordered[:middle], max_chars) + fold_chunks(ordered[middle:], max_chars)


def expand(expression: str | Iterable[str]) -> list[str]:
    """Expand a hostlist expression (or a list of them) into host names, in NodeSet's natural order."""
    pieces = [expression] if isinstance(expression, str) else list(expression)
    try:
        nodeset = NodeSet()
        for piece in pieces:
            nodeset.update(NodeSet(str(piece)))
    except NodeSetParseError as exc:
        raise HostlistError(str(exc)) from exc
    return list(nodeset)


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
