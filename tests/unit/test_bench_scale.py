"""bench/scale.py's slope: what one more compute host costs the controller, apart from what a run pays once."""

from __future__ import annotations

from typing import Any

from bench.scale import marginal


def test_the_slope_leaves_out_what_a_run_pays_once() -> None:
    runs: list[dict[str, Any]] = [
        {"date": "d", "names": 8, "controller_cpu_s": 50.0, "main_process_cpu_s": 9.0},
        {"date": "d", "names": 2, "controller_cpu_s": 20.0, "main_process_cpu_s": 4.2},
    ]
    found = marginal(runs, "tree")
    assert found["sizes"] == [2, 8]
    assert found["controller_cpu_per_added_host_s"] == 5.0
    assert found["main_process_cpu_per_added_host_s"] == 0.8
    assert found["fixed_cpu_s"] == 10.0
    assert found["kind"] == "marginal" and found["tree"] == "tree"
