"""Property tests over generated inventories (tests/helpers/generated.py): every valid inventory validates and
renders lines no Slurm parser can misread; every single mutation of a string value with characters that change a
Slurm file is either refused naming the mutated variable or renders without them. The number of cases is printed
(pytest -s); the real slurmctld loads a sample (tests/integration/test_generated_inventories.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import config_from_inventory, inventory_errors
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers.generated import inventory, rendered_lines, string_leaves

SEEN: Counter[str] = Counter()
NASTY = ["\nSlurmUser=root", "#", "\r", "\x00", "\n", "\nPartitionName=x Nodes=ALL Default=YES"]


def clean(config: dict[str, Any]) -> bool:
    return not any(char in line for line in rendered_lines(config) for char in "\n\r\x00#")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inventory())
def test_every_generated_valid_inventory_validates_and_renders_clean_lines(
    case: tuple[dict[str, Any], dict[str, list[str]]],
) -> None:
    spec, groups = case
    errors = inventory_errors(spec, groups)
    assert errors == [], errors
    config = config_from_inventory(spec, groups)
    assert clean(config)
    assert config["summary"]["nodes"] == len(groups["compute"])
    SEEN["valid"] += 1


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(inventory(), st.data())
def test_a_mutated_value_is_refused_by_name_or_rendered_clean(
    case: tuple[dict[str, Any], dict[str, list[str]]], data: st.DataObject
) -> None:
    spec, groups = case
    path = data.draw(st.sampled_from(list(string_leaves(spec))))
    target: Any = spec
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] += data.draw(st.sampled_from(NASTY))
    errors = inventory_errors(spec, groups)
    if errors:
        assert any(error.startswith(f"cluster_{path[0]}") for error in errors), (path, errors)
        SEEN["mutation refused"] += 1
        return
    try:
        config = config_from_inventory(spec, groups)
    except InventoryError as exc:  # the writer's own guard
        assert all("refusing to write" in error for error in exc.errors)
        SEEN["mutation refused by the writer"] += 1
        return
    assert clean(config), path
    SEEN["mutation rendered clean"] += 1


def test_report_the_cases() -> None:
    print(f"\nproperty cases: {dict(SEEN)}")
