"""The Slurm exporter against real command output (tests/unit/data, captured from the lab's Slurm 24.11)."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.helpers.tools import load_tool

exporter = load_tool("monitoring", "gpucluster-slurm-exporter")
DATA = Path(__file__).parent / "data"


class FakeSlurm:
    def __init__(self, ctld: bool = True, dbd: bool = True) -> None:
        self.ctld, self.dbd, self.calls = ctld, dbd, 0

    def __call__(self, argv: Sequence[str]) -> tuple[int, str]:
        self.calls += 1
        if argv[0] == "sdiag":
            return (0, (DATA / "sdiag-24.11.txt").read_text()) if self.ctld else (1, "")
        if argv[0] == "sacctmgr":
            return (0, "pilot\n") if self.dbd else (1, "")
        if argv[:3] == ["scontrol", "show", "nodes"]:
            return 0, (DATA / "scontrol-nodes-24.11.txt").read_text()
        if argv[0] == "squeue":
            return 0, "RUNNING|gpu\nPENDING|gpu\nPENDING|gpu\nRUNNING|scavenger\n"
        raise AssertionError(argv)


def _samples(text: str) -> dict[str, float]:
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line[:1] != "#"}


@pytest.mark.parametrize(
    ("raw", "word"),
    [
        ("IDLE", "idle"),
        ("MIXED", "mixed"),
        ("ALLOCATED", "allocated"),
        ("IDLE+DRAIN", "drained"),
        ("MIXED+DRAIN", "draining"),
        ("ALLOCATED+DRAIN", "draining"),
        ("DOWN+NOT_RESPONDING", "down"),
        ("IDLE+NOT_RESPONDING", "down"),
        ("DOWN+DRAIN", "down"),
        ("IDLE+COMPLETING", "completing"),
        ("IDLE+CLOUD+POWERED_DOWN", "powered_down"),
        ("IDLE*", "idle"),
    ],
)
def test_node_states_use_sinfos_words(raw: str, word: str) -> None:
    assert exporter.node_state(raw) == word


def test_collect_nodes_gpus_jobs_and_scheduler() -> None:
    samples = _samples(exporter.collect(FakeSlurm()))
    assert samples["slurm_up"] == 1 and samples["slurm_dbd_up"] == 1
    assert samples['slurm_node_state{node="pilot-gpu01",state="drained"}'] == 1
    assert samples['slurm_node_state{node="pilot-gpu02",state="mixed"}'] == 1
    assert samples['slurm_node_reason{node="pilot-gpu01",reason="health: /scratch 94% full (keep 10% free)"}'] == 1
    assert not [key for key in samples if key.startswith('slurm_node_reason{node="pilot-gpu02"')]
    assert samples['slurm_nodes{state="drained"}'] == 1 and samples['slurm_nodes{state="mixed"}'] == 1
    assert samples['slurm_node_gpus{node="pilot-gpu02"}'] == 4
    assert samples['slurm_node_gpus_allocated{node="pilot-gpu02"}'] == 2
    assert (samples["slurm_gpus"], samples["slurm_gpus_allocated"]) == (8, 2)
    assert samples['slurm_jobs{state="pending",partition="gpu"}'] == 2
    assert samples['slurm_jobs{state="running",partition="scavenger"}'] == 1
    assert samples["slurm_scheduler_jobs_submitted_total"] == 9
    assert samples["slurm_scheduler_jobs_failed_total"] == 2
    assert samples["slurm_scheduler_jobs_completed_total"] == 6
    assert samples["slurm_scheduler_threads"] == 1
    assert samples["slurm_scheduler_dbd_agent_queue_size"] == 0
    assert samples["slurm_scheduler_mean_cycle_seconds"] == pytest.approx(105e-6)
    assert samples["slurm_backfill_last_cycle_seconds"] == 0


def test_slurmctld_down_reports_down_and_nothing_stale() -> None:
    samples = _samples(exporter.collect(FakeSlurm(ctld=False, dbd=False)))
    assert samples["slurm_up"] == 0 and samples["slurm_dbd_up"] == 0
    assert not [key for key in samples if key.startswith(("slurm_node", "slurm_jobs"))]


def test_served_over_http_and_cached() -> None:
    slurm = FakeSlurm()
    server = exporter.serve(("127.0.0.1", 0), exporter.Cache(60, slurm))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        first = urllib.request.urlopen(f"{url}/metrics", timeout=5).read().decode()
        second = urllib.request.urlopen(f"{url}/metrics", timeout=5).read().decode()
        assert "slurm_up 1" in first and first == second
        assert slurm.calls == 4, "the second scrape within the cache time ran no command"
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{url}/", timeout=5)
    finally:
        server.shutdown()
