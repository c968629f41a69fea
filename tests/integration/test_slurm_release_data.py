"""The per-release knowledge of Slurm's configuration (plugins/module_utils/slurm_release_data.py) agrees with
the real slurmctld of each release: the data is what the packages ship today, a key neither the man page nor the
parser knows stops slurmctld (and is refused by our validation), a key the parser knows without a man page entry
starts it (and is accepted), and a plugin a release does not ship stops it (and is refused)."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.slurm_keys import key_error, plugin_errors

from lab.slurmctld_check import ONE_NODE_CONF, SUITE_RELEASE, run_in_image

from .conftest import ROOT

pytestmark = pytest.mark.slurmctld

RUN = r"""
set -u
cp /work/slurm.conf /etc/slurm/slurm.conf
echo "127.0.0.2 n1" >> /etc/hosts
mkdir -p /run/munge /var/log/slurm /var/spool/slurmctld
chown munge: /run/munge /var/log/munge /var/lib/munge /etc/munge
chown slurm: /var/log/slurm /var/spool/slurmctld
[ -s /etc/munge/munge.key ] || runuser -u munge -- mungekey -c
runuser -u munge -- munged
slurmctld -D -i >/work/out 2>&1 &
for _ in $(seq 1 40); do
  scontrol ping 2>/dev/null | grep -q 'is UP' && { echo UP; exit 0; }
  kill -0 $! 2>/dev/null || break
  sleep 0.5
done
echo DOWN; cat /work/out
"""


def slurmctld_starts(suite: str, line: str) -> tuple[bool, str]:
    with tempfile.TemporaryDirectory(prefix="gpucluster-keys-") as work:
        Path(work, "slurm.conf").write_text(ONE_NODE_CONF + line + "\n")
        Path(work, "run.sh").write_text(RUN)
        result = run_in_image(suite, work, timeout=120)
    return result.stdout.startswith("UP"), result.stdout + result.stderr


def test_the_committed_data_is_what_the_packages_ship(docker_lab: None) -> None:
    result = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "scripts" / "slurm_release_data.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_an_unknown_key_stops_slurmctld_and_is_refused(docker_lab: None, suite: str) -> None:
    release = SUITE_RELEASE[suite]
    started, output = slurmctld_starts(suite, "SchedulerParamters=bf_continue")
    assert not started and "unrecognized key" in output.lower(), output
    assert "did you mean SchedulerParameters?" in key_error("x", "SchedulerParamters", "slurm.conf", release)


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_a_key_the_parser_knows_without_a_man_page_entry_is_accepted(docker_lab: None, suite: str) -> None:
    started, output = slurmctld_starts(suite, "SbcastParameters=DestDir=/tmp")
    assert started, output
    assert key_error("x", "SbcastParameters", "slurm.conf", SUITE_RELEASE[suite]) == ""


@pytest.mark.parametrize("suite", ["trixie", "sid"])
def test_a_plugin_the_release_does_not_ship_stops_slurmctld_and_is_refused(docker_lab: None, suite: str) -> None:
    started, output = slurmctld_starts(suite, "SelectType=select/cons_res")
    assert not started, output
    (error,) = plugin_errors("x", "SelectType", "select/cons_res", SUITE_RELEASE[suite])
    assert "only Slurm 22.05 ships it" in error
