"""Booleans that arrive as strings: `-e gpu_check_timer=false` gives the string "false", which is true in Jinja's
`if`, `and` and inline ifs. Every use of a boolean variable (type bool in a role's argument specs) in a Jinja
expression - templates, `{{ }}`, conditionals (when, that, until, failed_when, changed_when) - goes through
`| bool`, which reads "false", "no", "0" as false; the cluster model reads the same words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import inventory_errors
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.variables import boolean_errors, boolean_variables

from .factory import valid_groups, valid_spec

ROOT = Path(__file__).resolve().parents[2]
CONDITIONALS = ("when", "that", "until", "failed_when", "changed_when")


def expressions(path: Path) -> Iterator[str]:
    text = path.read_text()
    yield from re.findall(r"\{\{.*?\}\}|\{%.*?%\}", text, flags=re.S)
    if path.suffix != ".yml":
        return
    stack: list[Any] = [yaml.safe_load(text)]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in CONDITIONALS:
                    yield from (str(v) for v in (value if isinstance(value, list) else [value]))
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)


def test_every_use_of_a_boolean_variable_goes_through_the_bool_filter() -> None:
    names = set(boolean_variables())
    assert {"gpu_check_timer", "login_pool_preempt", "login_pool_share_host_keys"} <= names
    names_alternatives = "|".join(sorted(names, key=len, reverse=True))
    through_bool = r"(?!\s*\|\s*(?:default\((?:true|false)\)\s*\|\s*)?bool)"  # `| bool`, `| default(false) | bool`
    pattern = re.compile(rf"(?<![\w.'\"])({names_alternatives})\b{through_bool}(?!\s*:)")
    files = [*ROOT.glob("roles/*/tasks/*.yml"), *ROOT.glob("roles/*/handlers/*.yml"), *ROOT.glob("roles/*/vars/*.yml")]
    files += [*ROOT.glob("roles/*/templates/*.j2"), *ROOT.glob("playbooks/*.yml")]
    bare = [
        f"{path.relative_to(ROOT)}: {match.group(1)} in {expression.strip()[:100]!r}"
        for path in files
        for expression in expressions(path)
        for match in pattern.finditer(expression)
    ]
    assert bare == [], "\n".join(bare)


@pytest.mark.parametrize(("word", "value"), [("false", False), ("no", False), ("True", True), ("1", True)])
def test_the_model_reads_booleans_given_as_words(word: str, value: bool) -> None:
    spec, groups = valid_spec(), valid_groups()
    spec["controllers_run_jobs"] = word
    groups["controllers"] = ["gpu01"]
    errors = inventory_errors(spec, groups)
    assert ("are in both 'controllers' and 'compute'" in " ".join(errors)) is not value, errors


def test_a_word_that_is_not_a_boolean_is_refused() -> None:
    spec = valid_spec()
    spec["configless"] = "maybe"
    assert any(
        "cluster_configless: expected true or false" in error for error in inventory_errors(spec, valid_groups())
    )


def test_a_boolean_variable_with_a_non_boolean_value_is_named() -> None:
    good = {"accounting_backup": "false", "gpu_rdma": "YES", "slurm_state_backup": 0, "gpu_dcgm": True}
    assert boolean_errors(good) == []
    assert boolean_errors({"accounting_backup": "maybe", "gpu_rdma": 2, "not_a_role_var": "maybe"}) == [
        "variable 'accounting_backup' is 'maybe': it is a boolean; set it to true or false",
        "variable 'gpu_rdma' is 2: it is a boolean; set it to true or false",
    ]
    # the model names its own (cluster_configless...) once
    assert boolean_errors({"cluster_configless": "maybe"}) == []
