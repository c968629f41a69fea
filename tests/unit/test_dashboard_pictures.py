"""scripts/dashboard_pictures.py: every panel of every dashboard queried with Grafana's variables filled in and
drawn at its place on the grid; the pictures it made are in docs/monitoring.md."""

from __future__ import annotations

import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scripts import dashboard_pictures as pictures
from tests.helpers.tools import ROOT

END = 1_790_000_000.0


class Prometheus:
    """Answers as Prometheus' HTTP API gives them: two series per query, one of them without the legend's label."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, dict[str, str]]] = []

    def __call__(self, path: str, params: Mapping[str, str]) -> dict[str, Any]:
        self.asked.append((path, dict(params)))
        metrics = [{"state": "idle", "node": "gpu01"}, {"__name__": "up"}]
        if path == "/api/v1/query_range":
            start, end, step = (int(params[key]) for key in ("start", "end", "step"))
            values = [[t, str((t - start) / 60)] for t in range(start, end + 1, step)]
            matrix: list[dict[str, Any]] = [{"metric": metric, "values": values} for metric in metrics]
            return {"status": "success", "data": {"resultType": "matrix", "result": matrix}}
        vector: list[dict[str, Any]] = [{"metric": metric, "value": [END, "0.5"]} for metric in metrics]
        return {"status": "success", "data": {"resultType": "vector", "result": vector}}


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def test_every_query_is_asked_once_with_the_variables_filled_in(tmp_path: Path) -> None:
    prometheus = Prometheus()
    for uid, board in pictures.dashboards().items():
        panels = [pictures.read_panel(panel, prometheus, END, 60) for panel in board["panels"]]
        assert [len(p.series) for p in panels] == [2 * len(panel["targets"]) for panel in board["panels"]], uid
        pictures.draw(board["title"], panels, tmp_path / f"{uid}.png", "test")
        rows = max(panel["gridPos"]["y"] + panel["gridPos"]["h"] for panel in board["panels"])
        assert png_size(tmp_path / f"{uid}.png") == (pictures.WIDTH_PX, rows * pictures.ROW_PX + 60)
    expressions = [t["expr"] for b in pictures.dashboards().values() for p in b["panels"] for t in p["targets"]]
    assert [params["query"] for _, params in prometheus.asked] == [pictures.filled(e) for e in expressions]
    assert not any("$" in params["query"] for _, params in prometheus.asked)
    ranges = [params for path, params in prometheus.asked if path == "/api/v1/query_range"]
    assert ranges and all(int(p["end"]) - int(p["start"]) == 3600 for p in ranges)


def test_legends_follow_grafanas_format() -> None:
    assert pictures.legend("{{state}}", {"state": "idle"}) == "idle"
    assert pictures.legend("{{instance}} GPU {{gpu}}", {"instance": "gpu01", "gpu": "3"}) == "gpu01 GPU 3"
    assert pictures.legend("", {"__name__": "up", "job": "node"}) == "job=node"
    assert pictures.legend("{{missing}}", {}) == "{}"  # as Grafana names a series without labels


def test_values_are_shown_in_their_units() -> None:
    assert pictures.formatted(0.25, "percentunit") == "25%"
    assert pictures.formatted(0.00175, "s") == "1.75 ms"
    assert pictures.formatted(0.0000125, "s") == "12.5 µs"
    assert pictures.formatted(2.5, "s") == "2.5 s"
    assert pictures.formatted(0, "s") == "0 s"
    assert pictures.formatted(300, "watt") == "300 W"


def test_a_refused_query_names_its_panel() -> None:
    def refusing(path: str, params: Mapping[str, str]) -> dict[str, Any]:
        return {"status": "error", "error": "parse error"}

    panel = {"title": "Broken", "type": "stat", "targets": [{"expr": "sum("}]}
    try:
        pictures.read_panel(panel, refusing, END, 60)
    except RuntimeError as error:
        assert str(error) == "Broken: Prometheus refused 'sum(': parse error"
    else:
        raise AssertionError("a refused query was drawn as no data")


def test_every_dashboard_is_shown_in_the_monitoring_guide() -> None:
    guide = (ROOT / "docs" / "monitoring.md").read_text(encoding="utf-8")
    for uid in pictures.dashboards():
        path = pictures.picture_path(uid)
        assert path.is_file(), f"run scripts/dashboard_pictures.py against the pilot lab: {path} is missing"
        assert f"](images/{path.name})" in guide, f"docs/monitoring.md does not show {path.name}"
        width, height = png_size(path)
        assert width == pictures.WIDTH_PX and height > 300
