"""Values that may reach a Slurm file: checked once over the whole inventory, and again by the writer.

Slurm's files are line based and read ``#`` as the start of a comment, so a newline in a partition name
adds a line of its own choosing (a second default partition, ``SlurmUser=root``) and a ``#`` silently cuts
the rest of a line. ``unsafe_values`` walks every ``cluster_*`` value (keys included) before the model is
built and names each one that holds such a character; ``unsafe_lines`` is the writer's own guard over the
lines it is about to emit, so that a bypassed validation still cannot write them.

The walk is bounded: an inventory with more than ``MAX_VALUES`` values (a YAML alias bomb expands to
billions) is refused before anything is expanded, and a shared (aliased) object is visited once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# The strings Ansible's bool filter reads as booleans (what `-e flag=false` and a quoted 'yes' arrive as).
TRUE_WORDS = frozenset({"true", "yes", "on", "y", "t", "1"})
FALSE_WORDS = frozenset({"false", "no", "off", "n", "f", "0"})

# Characters no value of a Slurm file may hold, and how a message names them.
FORBIDDEN: dict[str, str] = {
    "\n": "a newline",
    "\r": "a carriage return",
    "\x00": "a NUL character",
    "#": "'#' (Slurm reads the rest of the line as a comment)",
}
# Values that are text by design (never written into a Slurm file as they are): an ibnetdiscover dump, in
# cluster_fabric or in a pod's fabric.
FREE_TEXT_SUFFIXES = ("fabric.ibnetdiscover",)
MAX_VALUES = 1_000_000


def _problem(text: str) -> str:
    return ", ".join(label for char, label in FORBIDDEN.items() if char in text)


def _hint(text: str) -> str:
    if text.endswith("\n") and "\n" not in text[:-1]:
        return "; a YAML '|' or '>' block keeps its final newline: write '|-' or a plain (quoted) string"
    return ""


def unsafe_values(spec: Mapping[str, Any], prefix: str = "cluster_") -> list[str]:
    """One error per key or string value of ``spec`` (the cluster_* variables, keys without the prefix) that
    holds a character no Slurm file may carry; the path names the variable as the user wrote it."""
    errors: list[str] = []
    seen: set[int] = set()
    count = 0
    stack: list[tuple[str, Any]] = [(f"{prefix}{key}", value) for key, value in reversed(list(spec.items()))]
    while stack:
        path, value = stack.pop()
        count += 1
        if count > MAX_VALUES:
            return [
                f"cluster_*: more than {MAX_VALUES:,} values in the cluster variables (a YAML alias that expands "
                "itself over and over?); describe the cluster with hostlist expressions and node types instead"
            ]
        if isinstance(value, str):
            if not path.endswith(FREE_TEXT_SUFFIXES) and _problem(value):
                errors.append(
                    f"{path}: {value!r} holds {_problem(value)}; Slurm's files are read line by line, so the "
                    f"value would change other settings - remove it{_hint(value)}"
                )
            continue
        if isinstance(value, (Mapping, list, tuple)):
            if id(value) in seen:
                continue
            seen.add(id(value))
        if isinstance(value, Mapping):
            children = []
            for key, child in value.items():
                if isinstance(key, str) and _problem(key):
                    errors.append(f"{path}: the key {key!r} holds {_problem(key)}; remove it")
                children.append((f"{path}.{key}", child))
            stack.extend(reversed(children))
        elif isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
            stack.extend(reversed([(f"{path}[{index}]", child) for index, child in enumerate(value)]))
    return errors


def unsafe_lines(file: str, lines: Iterable[str]) -> list[str]:
    """The writer's guard: one error per line of ``file`` that holds a forbidden character."""
    return [
        f"{file}: refusing to write {line[:120]!r}: it holds {_problem(line)} (a value the inventory's validation "
        "should have refused; report it)"
        for line in lines
        if _problem(line)
    ]


def names(value: object) -> list[str]:
    """A list of names as the inventory or a command's output gives it: a list, or one comma-separated string
    (sacctmgr's and scontrol's form); empty for None or ""."""
    if value in (None, ""):
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [part for part in str(value).split(",") if part]


def whole_in_range(value: object, low: int, high: int | None = None) -> bool:
    """An integer (or its decimal string, as -e passes it) from low to high (no upper bound without one); never a
    boolean."""
    if isinstance(value, bool) or not str(value).isdigit():
        return False
    return low <= int(str(value)) and (high is None or int(str(value)) <= high)
