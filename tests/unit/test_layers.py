"""plugins/module_utils in layers: every import at the top of its module (none hidden in a function to dodge a
cycle), no cycle between the modules, and the model's types (cluster_types) below everything that reads them."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

from tests.helpers.tools import ROOT

MODULE_UTILS = ROOT / "plugins" / "module_utils"
PACKAGE = "ansible_collections.gpucluster.cluster.plugins.module_utils."


def imports(path: Path) -> tuple[set[str], list[str]]:
    """The package's modules ``path`` imports, and the imports made inside a function or class."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    hidden: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or (node.module is None and node.level == 0):
            continue
        module = node.module or ""
        name = module if node.level else module.removeprefix(PACKAGE)
        if node.level == 0 and not module.startswith(PACKAGE):
            continue
        found.add(name.split(".")[0])
        if node.col_offset > 0:
            hidden.append(f"{path.name}:{node.lineno}: from {'.' * node.level}{module} import ...")
    return found, hidden


def graph() -> dict[str, set[str]]:
    return {path.stem: imports(path)[0] for path in MODULE_UTILS.glob("*.py") if path.stem != "__init__"}


def test_every_import_is_at_the_top_of_its_module() -> None:
    hidden = [line for path in sorted(MODULE_UTILS.glob("*.py")) for line in imports(path)[1]]
    assert hidden == []


def test_the_modules_import_each_other_without_a_cycle() -> None:
    try:
        order = list(TopologicalSorter(graph()).static_order())
    except CycleError as error:
        raise AssertionError(f"import cycle: {error.args[1]}") from error
    assert order.index("cluster_types") < order.index("model") < order.index("render")


def test_the_types_depend_on_nothing_that_reads_them() -> None:
    assert graph()["cluster_types"] <= {"hostlist", "releases"}
