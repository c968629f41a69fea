"""The site's MUNGE key (munge_key_b64) as the real munged of each lab image (MUNGE 0.5.15, 0.5.16, 0.5.18) takes it:
munged stops on a key under 32 bytes ("Keyfile must be at least 32 bytes"), on every host the run gave it to, so the
validation refuses exactly those keys before any host is touched. Each key is given the way `base64` prints it
(lines wrapped at 76 columns) and decoded as the secret_file module decodes it."""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.munge import munge_key_bytes, munge_key_errors

from lab.slurmctld_check import SUITE_RELEASE, run_in_image

pytestmark = pytest.mark.slurmctld

LENGTHS = (1, 31, 32, 1024)

# munged in the foreground on each key for up to 3 s: "refused" where it stops on the key's length, "started" where
# it says it starts (then the time limit ends it)
RUN = r"""set -u
mkdir -p /run/munge && chown munge: /run/munge
for key in /work/key-*; do
  install -o munge -m 0400 "$key" /tmp/k
  out=$(timeout 3 runuser -u munge -- munged -F --key-file=/tmp/k --socket=/tmp/s 2>&1)
  if echo "$out" | grep -q 'Keyfile must be at least 32 bytes'; then said=refused
  elif echo "$out" | grep -q 'Starting munge'; then said=started
  else said="other: $(echo $out | tr '\n' ' ')"; fi
  echo "@@ ${key#/work/key-} $said"
  rm -f /tmp/k /tmp/s
done
"""


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_munged_refuses_exactly_the_keys_the_validation_refuses(docker_lab: None, suite: str) -> None:
    # each key as `base64` prints it: wrapped at 76 columns
    texts = {
        length: base64.encodebytes(bytes(index * 7 % 256 for index in range(length))).decode() for length in LENGTHS
    }
    with tempfile.TemporaryDirectory(prefix="gpucluster-munge-") as work:
        for length, text in texts.items():
            Path(work, f"key-{length}").write_bytes(munge_key_bytes(text))
        Path(work, "run.sh").write_text(RUN)
        result = run_in_image(suite, work, timeout=120)
    said = dict(line[3:].split(" ", 1) for line in result.stdout.splitlines() if line.startswith("@@ "))
    assert set(said) == {str(length) for length in LENGTHS}, result.stdout[-2000:] + result.stderr[-2000:]
    for length, text in texts.items():
        assert said[str(length)] in ("refused", "started"), said
        refused_here = bool(munge_key_errors(text))
        assert refused_here == (said[str(length)] == "refused"), (length, said[str(length)], munge_key_errors(text))
