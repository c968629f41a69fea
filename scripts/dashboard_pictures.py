"""Draw each Grafana dashboard (roles/monitoring/files/dashboards/*.json) as a picture from a Prometheus' data.

Grafana is not packaged for Debian, so the lab runs none; this draws what Grafana would show instead: every
panel at its place on Grafana's 24-column grid, with its title, unit and legend, from the answers of the same
queries (Grafana's variables filled in as the pilot lab's verify does: every node, a one-minute rate window).
Time series are read over the last ``--minutes``; stat, gauge and table panels at the end of that window.

    python3 scripts/dashboard_pictures.py --container pilot-dbd01          # the lab's Prometheus, via docker exec
    python3 scripts/dashboard_pictures.py --url http://prometheus:9090     # any Prometheus

The pictures go to docs/images/dashboard-<uid>.png, which docs/monitoring.md shows.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DASHBOARDS = ROOT / "roles" / "monitoring" / "files" / "dashboards"
IMAGES = ROOT / "docs" / "images"
# Grafana's grid: 24 columns; a row unit is 30 px high.
WIDTH_PX, ROW_PX, DPI = 1600, 30, 100
# What Grafana's variables become (molecule/pilot/verify.yml fills them in the same way).
VARIABLES = {"$__rate_interval": "1m", "$node": ".*"}
POINTS = 120  # samples per time series

# GET path?params -> the JSON Prometheus answers
Fetch = Callable[[str, Mapping[str, str]], dict[str, Any]]


def url_fetch(base: str) -> Fetch:
    def fetch(path: str, params: Mapping[str, str]) -> dict[str, Any]:
        with urllib.request.urlopen(f"{base.rstrip('/')}{path}?{urllib.parse.urlencode(params)}", timeout=30) as r:
            answer: dict[str, Any] = json.load(r)
            return answer

    return fetch


def container_fetch(container: str, base: str = "http://localhost:9090") -> Fetch:
    """Prometheus as seen from inside a lab container (its firewall opens 9090 to the admins' networks only)."""

    def fetch(path: str, params: Mapping[str, str]) -> dict[str, Any]:
        url = f"{base}{path}?{urllib.parse.urlencode(params)}"
        program = "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())"
        out = subprocess.run(
            ["docker", "exec", container, "python3", "-c", program, url], capture_output=True, text=True, check=True
        )
        answer: dict[str, Any] = json.loads(out.stdout)
        return answer

    return fetch


def filled(expr: str) -> str:
    """A panel's query with Grafana's variables filled in."""
    for name, value in VARIABLES.items():
        expr = expr.replace(name, value)
    return expr


def legend(template: str, labels: Mapping[str, str]) -> str:
    """Grafana's legend format: ``{{label}}`` replaced by the series' label (empty where it has none)."""
    text = re.sub(r"\{\{\s*(\w+)\s*\}\}", lambda m: labels.get(m.group(1), ""), template).strip()
    shown = ", ".join(f"{k}={v}" for k, v in sorted(labels.items()) if k != "__name__")
    return text or shown or "{}"


@dataclass
class Series:
    name: str
    times: list[float]
    values: list[float]


@dataclass
class PanelData:
    panel: Mapping[str, Any]
    series: list[Series]


def read_panel(panel: Mapping[str, Any], fetch: Fetch, end: float, minutes: int) -> PanelData:
    """Every query of the panel: a range for time series, one instant (the window's end) for the others."""
    series: list[Series] = []
    for target in panel.get("targets", []):
        expr = filled(str(target["expr"]))
        if panel.get("type") == "timeseries":
            start = end - minutes * 60
            step = max(15, minutes * 60 // POINTS)
            params = {"query": expr, "start": f"{start:.0f}", "end": f"{end:.0f}", "step": str(step)}
            answer = fetch("/api/v1/query_range", params)
        else:
            answer = fetch("/api/v1/query", {"query": expr, "time": f"{end:.0f}"})
        if answer.get("status") != "success":
            raise RuntimeError(f"{panel.get('title')}: Prometheus refused {expr!r}: {answer.get('error')}")
        for result in answer["data"]["result"]:
            points = result.get("values") or [result["value"]]
            series.append(
                Series(
                    legend(str(target.get("legendFormat", "")), result.get("metric", {})),
                    [float(t) for t, _ in points],
                    [float(v) for _, v in points],
                )
            )
    return PanelData(panel, series)


def formatted(value: float, unit: str) -> str:
    if unit == "percentunit":
        return f"{value * 100:.0f}%"
    if unit == "percent":
        return f"{value:.0f}%"
    if unit == "s" and 0 < abs(value) < 1:
        return f"{value * 1e3:.3g} ms" if abs(value) >= 1e-3 else f"{value * 1e6:.3g} µs"
    suffix = {"s": " s", "watt": " W", "celsius": " °C", "decmbytes": " MB", "bytes": " B"}.get(unit, "")
    return f"{value:.3g}{suffix}"


def unit_of(panel: Mapping[str, Any]) -> str:
    return str(panel.get("fieldConfig", {}).get("defaults", {}).get("unit", "short"))


def draw(title: str, panels: Sequence[PanelData], path: Path, taken: str) -> None:
    """One picture of the dashboard: each panel at its gridPos."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = max(p.panel["gridPos"]["y"] + p.panel["gridPos"]["h"] for p in panels)
    height_px = rows * ROW_PX + 60  # the title above, a margin below
    figure = plt.figure(figsize=(WIDTH_PX / DPI, height_px / DPI), dpi=DPI)
    figure.suptitle(f"{title}  ({taken})", x=0.01, y=1 - 12 / height_px, ha="left", fontsize=13)
    top = 1 - 50 / height_px
    for data in panels:
        grid = data.panel["gridPos"]
        # room inside each grid cell for the title above and the tick labels left and below
        left = grid["x"] / 24 + 62 / WIDTH_PX
        width = grid["w"] / 24 - 75 / WIDTH_PX
        bottom = top - (grid["y"] + grid["h"]) * ROW_PX / height_px + 24 / height_px
        box_height = grid["h"] * ROW_PX / height_px - 50 / height_px
        axes = figure.add_axes((left, bottom, width, box_height))
        axes.set_title(str(data.panel.get("title", "")), fontsize=10, loc="left")
        draw_panel(axes, data)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=DPI)
    plt.close(figure)


def draw_panel(axes: Any, data: PanelData) -> None:
    kind, unit = data.panel.get("type"), unit_of(data.panel)
    if not data.series:
        axes.set_axis_off()
        axes.text(0.5, 0.5, "No data", ha="center", va="center", fontsize=12, color="grey", transform=axes.transAxes)
        return
    if kind == "timeseries":
        from matplotlib.dates import DateFormatter

        for series in data.series[:12]:
            times = [datetime.fromtimestamp(t, UTC) for t in series.times]
            axes.plot(times, series.values, label=series.name, linewidth=1.2)
        axes.xaxis.set_major_formatter(DateFormatter("%H:%M", tz=UTC))
        axes.tick_params(labelsize=7)
        axes.yaxis.set_major_formatter(lambda value, _: formatted(value, unit))
        axes.legend(fontsize=7, loc="upper left", ncol=2, frameon=False)
        axes.grid(alpha=0.3)
        return
    axes.set_axis_off()
    if kind == "table":
        lines = [f"{s.name}: {formatted(s.values[-1], unit)}" for s in data.series[:8]]
        axes.text(0.01, 0.95, "\n".join(lines), va="top", ha="left", fontsize=8, family="monospace")
        return
    if kind == "gauge":
        value = data.series[0].values[-1]
        axes.barh([0], [1.0], color="0.9", height=0.4)
        axes.barh([0], [min(max(value, 0.0), 1.0)], color="tab:green", height=0.4)
        axes.set_xlim(0, 1)
        axes.set_ylim(-0.4, 1.6)
        axes.text(0.5, 0.6, formatted(value, unit), ha="center", fontsize=18, transform=axes.transAxes)
        return
    cells = data.series[:6]
    for index, series in enumerate(cells):
        x = (index + 0.5) / len(cells)
        axes.text(x, 0.55, formatted(series.values[-1], unit), ha="center", fontsize=18, transform=axes.transAxes)
        axes.text(x, 0.2, series.name, ha="center", fontsize=8, color="grey", transform=axes.transAxes)


def dashboards(names: Iterable[str] = ()) -> dict[str, dict[str, Any]]:
    wanted = set(names)
    found = {}
    for path in sorted(DASHBOARDS.glob("*.json")):
        board = json.loads(path.read_text(encoding="utf-8"))
        if not wanted or board["uid"] in wanted:
            found[str(board["uid"])] = board
    return found


def picture_path(uid: str, images: Path = IMAGES) -> Path:
    return images / f"dashboard-{uid}.png"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--url", help="Prometheus' address, e.g. http://prometheus:9090")
    source.add_argument("--container", help="a lab container that runs Prometheus (queried from inside it)")
    parser.add_argument("--minutes", type=int, default=60, help="the time series' window (default 60)")
    parser.add_argument("--out", type=Path, default=IMAGES)
    parser.add_argument("--label", default="", help="said beside each title, e.g. 'pilot lab, Debian 13'")
    parser.add_argument("dashboard", nargs="*", help="uids to draw (default: every dashboard)")
    args = parser.parse_args(argv)
    fetch = url_fetch(args.url) if args.url else container_fetch(args.container)
    end = time.time()
    taken = ", ".join(filter(None, [args.label, datetime.fromtimestamp(end, UTC).strftime("%Y-%m-%d %H:%M UTC")]))
    for uid, board in dashboards(args.dashboard).items():
        panels = [read_panel(panel, fetch, end, args.minutes) for panel in board["panels"]]
        path = picture_path(uid, args.out)
        draw(str(board["title"]), panels, path, taken)
        empty = [str(p.panel["title"]) for p in panels if not p.series]
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {len(panels)} panels", end="")
        print(f", no data in {len(empty)}: {', '.join(empty)}" if empty else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
