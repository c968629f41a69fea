"""The lab's snapshots (lab/snapshot.py): what a scenario must name for a restore, and when a snapshot stands."""

from __future__ import annotations

import json
import time
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from lab import snapshot

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("scenario", ["pilot", "production"])
def test_every_platform_takes_its_image_from_its_variable_and_has_a_fixed_address(scenario: str) -> None:
    """A restore creates each container from its own snapshot image, on the address its hosts' files name."""
    platforms = yaml.safe_load((ROOT / "molecule" / scenario / "molecule.yml").read_text())["platforms"]
    addresses = []
    for platform in platforms:
        variable = snapshot.host_variable(platform["name"])
        assert platform["image"] == f"${{{variable}:-gpucluster/lab}}:${{GPUCLUSTER_LAB_SUITE:-trixie}}"
        addresses += [network["ipv4_address"] for network in platform["networks"]]
    assert len(addresses) == len(platforms) == len(set(addresses))


def test_molecules_steps_are_carried_over(tmp_path: Path) -> None:
    state = tmp_path / "state.yml"
    state.write_text("# Molecule managed\n\n---\ncreated: true\nprepared: false\nconverged: false\n")
    snapshot._set_steps(state, {"prepared": True, "converged": False})
    assert snapshot._steps(state) == {"prepared": True, "converged": False}
    assert yaml.safe_load(state.read_text())["created"] is True
    assert snapshot._steps(tmp_path / "none.yml") == {"prepared": False, "converged": False}


def _lab(directory: Path, monkeypatch: pytest.MonkeyPatch) -> snapshot.Lab:
    monkeypatch.setattr(snapshot, "SNAPSHOTS", directory)
    return snapshot.Lab("pilot", "trixie", ("pilot-ctl01",), (), {})


def test_a_snapshot_of_other_content_or_too_old_does_not_stand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lab = _lab(tmp_path, monkeypatch)
    assert snapshot.usable(lab, "k1") is None  # none taken
    lab.directory.mkdir(parents=True)
    meta = lab.directory / "meta.json"
    meta.write_text(json.dumps({"key": "k0", "taken": time.time()}))
    assert snapshot.usable(lab, "k1") is None  # taken of other content
    meta.write_text(json.dumps({"key": "k1", "taken": time.time() - snapshot.MAX_AGE_S - 60}))
    assert snapshot.usable(lab, "k1") is None  # Debian's packages may have moved since
    meta.write_text("{")
    assert snapshot.usable(lab, "k1") is None  # cut short


def test_documentation_and_other_scenarios_do_not_shape_a_lab() -> None:
    files = snapshot._files(snapshot.shapes("pilot"))
    assert "roles/slurm/tasks/main.yml" in files and "molecule/pilot/molecule.yml" in files
    assert "molecule/shared/prepare.yml" in files and "tests/lab/molecule_run.py" in files
    assert not [name for name in files if name.endswith(".md")]
    assert not [name for name in files if name.startswith(("molecule/production/", "tests/lab/test_"))]


def test_the_packages_a_converge_runs_on_are_installed() -> None:
    """The key names packages by their installed names: each one it lists is in the venv (a misspelt one would
    never count)."""
    installed = {dist.metadata["Name"].lower().replace("_", "-") for dist in metadata.distributions()}
    assert installed >= snapshot.PACKAGES, snapshot.PACKAGES - installed
