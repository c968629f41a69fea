"""Values that would change a Slurm file's lines: refused by validation, naming the variable, and by the writer
when validation is bypassed; YAML's coercions reported with 'quote it'; absurd sizes refused before expansion."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import HostlistError, expand
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_cluster
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import cluster_config, inventory_errors
from ansible_collections.gpucluster.cluster.plugins.module_utils.values import unsafe_values

from tests.helpers.generated import rendered_lines, string_leaves

from .factory import valid_groups, valid_spec

INJECTIONS = {"newline": "\nSlurmUser=root", "hash": "#x", "cr": "\rx", "trailing newline": "\n"}


def rich_spec() -> dict[str, Any]:
    spec = valid_spec()
    spec["partitions"][0]["options"] = {"MaxCPUsPerNode": "64"}
    spec["slurm_config"] = {"MailProg": "/usr/bin/mail"}
    spec["health_check"] = {"mounts": ["/home"], "services": ["munge"]}
    spec["job_scripts"] = {"prolog": ["job-env"], "task_prolog": "/etc/slurm/task-prolog"}
    return spec


def dotted(path: tuple[Any, ...]) -> str:
    text = f"cluster_{path[0]}"
    for key in path[1:]:
        text += f"[{key}]" if isinstance(key, int) else f".{key}"
    return text


LEAVES = list(string_leaves(rich_spec()))


def test_the_rich_spec_is_valid() -> None:
    assert inventory_errors(rich_spec(), valid_groups()) == []
    assert len(LEAVES) >= 20


@pytest.mark.parametrize("kind", INJECTIONS)
@pytest.mark.parametrize("path", LEAVES, ids=dotted)
def test_every_string_value_with_a_line_break_or_hash_is_refused_naming_it(path: tuple[Any, ...], kind: str) -> None:
    spec = rich_spec()
    target: Any = spec
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] += INJECTIONS[kind]
    errors = inventory_errors(spec, valid_groups())
    assert errors, f"{dotted(path)} with a {kind} was accepted"
    assert all(error.startswith(dotted(path)) for error in errors), errors  # one root cause, one message
    if kind == "trailing newline":
        assert "write '|-'" in errors[0]


def test_keys_are_checked_too() -> None:
    spec = rich_spec()
    spec["slurm_config"]["Mail\nProg"] = "x"
    assert inventory_errors(spec, valid_groups()) == [
        "cluster_slurm_config: the key 'Mail\\nProg' holds a newline; remove it"
    ]


def test_an_ibnetdiscover_dump_is_text_by_design() -> None:
    assert unsafe_values({"fabric": {"ibnetdiscover": "# dump\nSwitch 36 ...\n"}}) == []
    assert unsafe_values({"federation": {"pods": {"p1": {"fabric": {"ibnetdiscover": "#\n"}}}}}) == []


def _replace_strings(value: Any, suffix: str) -> Iterator[Any]:
    """Copies of a model object, each with one string field (at any depth) given ``suffix``."""
    if isinstance(value, str):
        yield value + suffix
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            for changed in _replace_strings(getattr(value, field.name), suffix):
                yield dataclasses.replace(value, **{field.name: changed})
    elif isinstance(value, tuple):
        for index, item in enumerate(value):
            for changed in _replace_strings(item, suffix):
                yield (*value[:index], changed, *value[index + 1 :])


def test_the_writer_refuses_what_validation_let_through() -> None:
    """Validation bypassed: every string of the built model is given a newline in turn; the writer either refuses
    or the value never reaches a Slurm file. No line of slurm.conf, gres.conf or topology.conf holds one."""
    cluster = build_cluster(rich_spec(), valid_groups())
    refused = reached = 0
    for changed in _replace_strings(cluster, "\nSlurmUser=root"):
        try:
            config = cluster_config(changed)
        except InventoryError as exc:
            assert all("refusing to write" in error for error in exc.errors)
            refused += 1
            continue
        except (KeyError, ValueError, AttributeError):
            continue  # a renamed node type or group no longer resolves: not a writer path
        assert not any("\n" in line for line in rendered_lines(config))
        reached += 1
    assert refused >= 15, (refused, reached)


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (("slurm_release",), 23.1, "(23.10 -> 23.1) - quote it"),
        (("partitions", 0, "name"), 20, "(a leading 0 as octal: 024 -> 20) - quote it"),
        (("scheduling", "preempt", "mode"), [False], "(OFF -> false)"),
        (("partitions", 0, "max_time"), "\u0661\u0660", "is not a Slurm time"),
    ],
    ids=["float release", "octal name", "OFF boolean", "unicode digits"],
)
def test_yaml_coercions_are_reported(path: tuple[Any, ...], value: Any, expected: str) -> None:
    spec = valid_spec()
    target: Any = spec
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    errors = inventory_errors(spec, valid_groups())
    assert any(expected in error for error in errors), errors


def test_whole_numbers_are_minutes() -> None:
    """max_time: 2880 is two days, as Slurm reads it (an unquoted 48:00:00 in an inventory file is named by the
    inventory's text check, tests/unit/test_inventory_text.py); a negative number is no time."""
    spec = valid_spec()
    spec["partitions"][0]["default_time"] = 30
    spec["partitions"][0]["max_time"] = 2880
    assert inventory_errors(spec, valid_groups()) == []
    spec["partitions"][0]["max_time"] = -5
    assert any("max_time: -5 is not a time" in error for error in inventory_errors(spec, valid_groups()))


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("gpu[16-01]", "reversed range 16-01 in 'gpu[16-01]'; write it low to high ([01-16])"),
        ("gpu[1-1000000000]", "expands to more than 200,000 names"),
        ("r[1-1000]-n[1-1000]", "expands to more than 200,000 names"),
    ],
)
def test_absurd_or_reversed_ranges_are_refused_before_expansion(expression: str, expected: str) -> None:
    start = time.monotonic()
    with pytest.raises(HostlistError, match=expected.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        expand(expression)
    assert time.monotonic() - start < 5  # a bound on a hang, not a performance figure (bench/ measures)


def test_ranges_within_bounds_expand() -> None:
    assert len(expand("r[1-2]-n[01-16],x1")) == 33
    assert expand("gpu[01-02,05]") == ["gpu01", "gpu02", "gpu05"]


def test_an_alias_bomb_is_bounded() -> None:
    level: Any = ["x"] * 10
    for _ in range(8):  # 10**9 strings if expanded; shared lists are visited once
        level = [level] * 10
    assert unsafe_values({"slurm_config": {"A": level}}) == []
    wide = {"slurm_config": {f"K{i}": "v" for i in range(1_000_001)}}
    assert "more than 1,000,000 values" in unsafe_values(wide)[0]
