"""The Slurm release a host's package source offers, asked as the common role asks it (`slurm_candidate_query`) of
the real apt of each lab image, read as the check reads it: the image's own release passes, another is refused, a
source without the package offers none."""

from __future__ import annotations

import shlex
import tempfile
from pathlib import Path

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.upgrade import (
    slurm_candidate_query,
    slurm_candidate_release_error,
)

from lab.slurmctld_check import SUITE_RELEASE, run_in_image

pytestmark = pytest.mark.slurmctld


def asked(suite: str, argv: list[str]) -> dict[str, object]:
    """``argv`` run in a throw-away container of the lab image of ``suite``, as a registered command result."""
    with tempfile.TemporaryDirectory(prefix="gpucluster-candidate-") as work:
        Path(work, "run.sh").write_text(shlex.join(argv) + "\n")
        result = run_in_image(suite, work, timeout=120)
    return {"rc": result.returncode, "stdout": result.stdout, "stderr": result.stderr}


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_the_release_apt_offers_is_read_as_the_images_own(docker_lab: None, suite: str) -> None:
    release = SUITE_RELEASE[suite]
    result = asked(suite, slurm_candidate_query("Debian"))
    assert result["rc"] == 0, result
    assert slurm_candidate_release_error(result, "new01", release) == "", result["stdout"]
    other = next(other for other in sorted(SUITE_RELEASE.values()) if other != release)
    said = slurm_candidate_release_error(result, "new01", other)
    assert f"its package source offers Slurm {release} (" in said and f"cluster_slurm_release is '{other}'" in said
    absent = asked(suite, [*slurm_candidate_query("Debian")[:-1], "slurm-no-such-package"])
    assert "its package source offers no Slurm" in slurm_candidate_release_error(absent, "new01", release)
