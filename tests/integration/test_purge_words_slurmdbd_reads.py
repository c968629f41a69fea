"""accounting_purge's Archive switches as the real slurmdbd of each release reads slurmdbd.conf: a word it does not
read as yes or no stops it at start ('"maybe" is not a valid option for "ArchiveJobs"', then "Could not
open/read/parse slurmdbd.conf"); the validation refuses exactly those words. slurmdbd is started without MUNGE or a
database: past the parse it stops on those instead, which says the file was read."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.slurm_keys import purge_errors

from lab.slurmctld_check import SUITE_RELEASE, run_in_image

pytestmark = pytest.mark.slurmctld

WORDS = ["maybe", "yes", "No", "TRUE", "1", "0", "off"]
RUN = r"""set -u
for value in WORDS; do
  printf '%s\n' AuthType=auth/munge DbdHost=localhost SlurmUser=slurm StorageType=accounting_storage/mysql \
    StorageHost=localhost StorageLoc=x PurgeJobAfter=12month "ArchiveJobs=$value" >/etc/slurm/slurmdbd.conf
  chown slurm /etc/slurm/slurmdbd.conf && chmod 600 /etc/slurm/slurmdbd.conf
  if timeout 5 slurmdbd -D 2>&1 | grep -q 'Could not open/read/parse slurmdbd.conf'; then
    echo "@@ $value refused"
  else
    echo "@@ $value read"
  fi
done
"""


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_an_archive_switch_slurmdbd_cannot_read_is_refused(docker_lab: None, suite: str) -> None:
    with tempfile.TemporaryDirectory(prefix="gpucluster-purge-") as work:
        Path(work, "run.sh").write_text(RUN.replace("WORDS", " ".join(WORDS)))
        said = run_in_image(suite, work, timeout=180).stdout
    read = dict(line.split()[1:3] for line in said.splitlines() if line.startswith("@@ "))
    assert sorted(read) == sorted(WORDS), said
    judged = {
        word: "refused" if purge_errors({"ArchiveJobs": word}, SUITE_RELEASE[suite]) else "read" for word in WORDS
    }
    assert judged == read
    assert read["maybe"] == "refused" and read["yes"] == "read"
