"""Release knowledge lives in one ordered type (plugins/module_utils/releases.py): the releases in scope, the
default one, and each feature with the release that brought it. Nothing else in the code names a release."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from ansible_collections.gpucluster.cluster.plugins.filter.slurm import slurm_node_changes
from ansible_collections.gpucluster.cluster.plugins.module_utils.releases import (
    DEFAULT_RELEASE,
    FEATURES,
    KNOWN,
    KNOWN_RELEASES,
    Release,
    autodetect_allowed,
)

ROOT = Path(__file__).resolve().parents[2]
# "24.11" as a string in Python or YAML, or a release compared in Jinja (`is version('23.11', ...)`)
RELEASE_LITERAL = re.compile(r"""["'](2[0-9]\.(?:0[2-9]|1[01]))["']""")


def test_releases_are_ordered() -> None:
    assert list(KNOWN) == sorted(KNOWN)
    assert Release.parse("22.05") < Release.parse("24.11") < Release.parse("26.05")
    assert min(KNOWN) == Release(22, 5) and max(KNOWN) == Release(26, 5)
    assert str(Release.parse("22.05")) == "22.05"


def test_each_feature_comes_with_a_known_release() -> None:
    assert set(FEATURES.values()) <= set(KNOWN_RELEASES)
    assert not Release.parse("23.02").has("topology_block") and Release.parse("23.11").has("topology_block")
    assert Release.parse("22.05").node_changes == "restart" and Release.parse("23.11").node_changes == "reconfigure"
    assert Release.introducing("autodetect_full") == "26.05"
    assert autodetect_allowed(Release.parse("24.11"), "nvidia") and not autodetect_allowed(Release(24, 5), "nvidia")
    assert autodetect_allowed(Release(22, 5), "nvml") and not autodetect_allowed(Release(26, 5), "magic")


@pytest.mark.parametrize(("release", "changes"), [("22.05", "restart"), ("24.11", "reconfigure"), ("9.9", "restart")])
def test_the_slurm_role_takes_node_changes_as_the_release_does(release: str, changes: str) -> None:
    assert slurm_node_changes(release) == changes


def test_the_default_release_and_the_choices_are_the_types() -> None:
    """The cluster role's default and its argument specs' choices are YAML, so they repeat releases.py: they must
    say the same."""
    defaults = yaml.safe_load((ROOT / "roles/cluster/defaults/main.yml").read_text(encoding="utf-8"))
    assert defaults["cluster_slurm_release"] == DEFAULT_RELEASE
    specs = yaml.safe_load((ROOT / "roles/cluster/meta/argument_specs.yml").read_text(encoding="utf-8"))
    for name, entry in specs["argument_specs"].items():
        option = entry.get("options", {}).get("cluster_slurm_release")
        if option:
            assert option.get("default") == DEFAULT_RELEASE, name
            assert tuple(option.get("choices")) == KNOWN_RELEASES, name


def test_no_release_is_named_outside_the_release_table() -> None:
    """A release number in the model, the generators, the validation, a filter or a role's logic is a second
    place to change when a release moves: they ask releases.py instead."""
    allowed = {
        ROOT / "plugins/module_utils/releases.py",
        ROOT / "plugins/module_utils/slurm_release_data.py",  # recorded from Debian's packages, per release
    }
    logic = [*ROOT.glob("plugins/**/*.py")] + [
        path
        for part in ("tasks", "vars", "handlers", "templates")
        for path in ROOT.glob(f"roles/*/{part}/**/*")
        if path.is_file()
    ]
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in logic
        if path not in allowed
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if RELEASE_LITERAL.search(line) and not line.lstrip().startswith("#")
    ]
    assert found == []
