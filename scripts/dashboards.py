"""Write the Grafana dashboards (roles/monitoring/files/dashboards/*.json) from the short descriptions below.

The JSON files are committed (Grafana provisions them as they are); `--check` fails when they differ from
what this script writes, so that a hand edit of the JSON does not drift from the source. Every query is
also parsed by promtool and run against the lab's Prometheus by the tests.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "roles" / "monitoring" / "files" / "dashboards"
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}


@dataclass(frozen=True)
class Panel:
    title: str
    queries: tuple[tuple[str, str], ...]  # (expr, legend)
    kind: str = "timeseries"
    unit: str = "short"
    width: int = 12
    height: int = 8
    description: str = ""


@dataclass(frozen=True)
class Dashboard:
    uid: str
    title: str
    description: str
    panels: tuple[Panel, ...]
    variables: tuple[tuple[str, str], ...] = field(default=())  # (name, label_values query)


def panel_json(panel: Panel, panel_id: int, x: int, y: int) -> dict[str, object]:
    table: dict[str, object] = {"format": "table", "instant": True} if panel.kind == "table" else {}
    targets = [
        {"refId": chr(ord("A") + i), "datasource": DATASOURCE, "expr": expr, "legendFormat": legend, **table}
        for i, (expr, legend) in enumerate(panel.queries)
    ]
    return {
        "id": panel_id,
        "type": panel.kind,
        "title": panel.title,
        "description": panel.description,
        "datasource": DATASOURCE,
        "gridPos": {"h": panel.height, "w": panel.width, "x": x, "y": y},
        "fieldConfig": {"defaults": {"unit": panel.unit}, "overrides": []},
        "options": {},
        "targets": targets,
    }


def dashboard_json(dashboard: Dashboard) -> dict[str, object]:
    panels, x, y, row_height = [], 0, 0, 0
    for panel_id, panel in enumerate(dashboard.panels, start=1):
        if x + panel.width > 24:
            x, y, row_height = 0, y + row_height, 0
        panels.append(panel_json(panel, panel_id, x, y))
        x, row_height = x + panel.width, max(row_height, panel.height)
    variables: list[dict[str, object]] = [
        {"name": "datasource", "label": "Prometheus", "type": "datasource", "query": "prometheus", "current": {}}
    ]
    variables += [
        {
            "name": name,
            "type": "query",
            "datasource": DATASOURCE,
            "query": {"query": query, "refId": name},
            "definition": query,
            "includeAll": True,
            "multi": True,
            "allValue": ".*",
            "refresh": 2,
            "current": {},
        }
        for name, query in dashboard.variables
    ]
    return {
        "uid": dashboard.uid,
        "title": dashboard.title,
        "description": dashboard.description,
        "tags": ["gpucluster", "slurm"],
        "timezone": "browser",
        "schemaVersion": 39,
        "version": 1,
        "editable": True,
        "refresh": "1m",
        "time": {"from": "now-6h", "to": "now"},
        "templating": {"list": variables},
        "annotations": {"list": []},
        "panels": panels,
    }


def either(native: str, exporter: str) -> str:
    """slurmctld's own series where it serves them (Slurm 25.11+, renamed slurmctld_* at scrape time), else the
    project's exporter's, which runs on every release: PromQL's ``or`` keeps the left side wherever it exists."""
    return f"{native} or {exporter}"


# sdiag's times are microseconds; the exporter's are seconds.
MICROSECONDS = " / 1e6"

DASHBOARDS = (
    Dashboard(
        uid="gpucluster-overview",
        title="Cluster overview",
        description="Nodes, GPUs and jobs of the Slurm cluster, and the hosts behind them.",
        panels=(
            Panel("Nodes by state", (("sum by (state) (slurm_nodes)", "{{state}}"),), "stat", width=8, height=5),
            Panel(
                "GPUs allocated",
                (
                    (
                        either(
                            "sum(slurmctld_node_gpus_alloc) / clamp_min(sum(slurmctld_node_gpus), 1)",
                            "sum(slurm_gpus_allocated) / clamp_min(sum(slurm_gpus), 1)",
                        ),
                        "allocated",
                    ),
                ),
                "gauge",
                "percentunit",
                width=8,
                height=5,
            ),
            Panel("Jobs by state", (("sum by (state) (slurm_jobs)", "{{state}}"),), "stat", width=8, height=5),
            Panel(
                "Hosts answering",
                (('sum(up{job="node"})', "up"), ('count(up{job="node"})', "declared")),
                width=8,
            ),
            Panel(
                "GPU allocation over time",
                (
                    (either("sum(slurmctld_node_gpus_alloc)", "sum(slurm_gpus_allocated)"), "allocated"),
                    (either("sum(slurmctld_node_gpus)", "sum(slurm_gpus)"), "total"),
                ),
                width=8,
            ),
            Panel("Jobs over time", (("sum by (state) (slurm_jobs)", "{{state}}"),), width=8),
            Panel(
                "Drained and down nodes",
                (("max by (node, reason) (slurm_node_reason)", ""),),
                "table",
                width=12,
                description="Reason as Slurm shows it (sinfo -R); health: and gpu-check: reasons come from the checks.",
            ),
            Panel(
                "CPU busy per node type",
                (
                    (
                        'avg by (node_type) (1 - rate(node_cpu_seconds_total{mode="idle"}[$__rate_interval]))',
                        "{{node_type}}",
                    ),
                ),
                unit="percentunit",
                width=12,
            ),
        ),
    ),
    Dashboard(
        uid="gpucluster-gpus",
        title="GPU utilisation",
        description="DCGM metrics per node, per GPU and per Slurm job (hpc_job, from dcgm-exporter's job mapping).",
        variables=(("node", "label_values(DCGM_FI_DEV_GPU_UTIL, instance)"),),
        panels=(
            Panel(
                "GPU utilisation per node",
                (('avg by (instance) (DCGM_FI_DEV_GPU_UTIL{instance=~"$node"})', "{{instance}}"),),
                unit="percent",
            ),
            Panel(
                "GPU utilisation per job",
                (('avg by (hpc_job) (DCGM_FI_DEV_GPU_UTIL{hpc_job!="", instance=~"$node"})', "job {{hpc_job}}"),),
                unit="percent",
            ),
            Panel(
                "GPU utilisation per GPU",
                (('DCGM_FI_DEV_GPU_UTIL{instance=~"$node"}', "{{instance}} GPU {{gpu}}"),),
                unit="percent",
            ),
            Panel(
                "Framebuffer memory used",
                (('DCGM_FI_DEV_FB_USED{instance=~"$node"}', "{{instance}} GPU {{gpu}}"),),
                unit="decmbytes",
            ),
            Panel(
                "Power",
                (('DCGM_FI_DEV_POWER_USAGE{instance=~"$node"}', "{{instance}} GPU {{gpu}}"),),
                unit="watt",
                width=8,
            ),
            Panel(
                "Temperature",
                (('DCGM_FI_DEV_GPU_TEMP{instance=~"$node"}', "{{instance}} GPU {{gpu}}"),),
                unit="celsius",
                width=8,
            ),
            Panel(
                "XID errors and uncorrectable ECC",
                (
                    ('DCGM_FI_DEV_XID_ERRORS{instance=~"$node"} > 0', "XID {{instance}} GPU {{gpu}}"),
                    (
                        'increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{instance=~"$node"}[1h]) > 0',
                        "ECC {{instance}} GPU {{gpu}}",
                    ),
                ),
                "table",
                width=8,
            ),
            Panel(
                "GPUs allocated by Slurm per node",
                (
                    (
                        either(
                            'max by (node) (slurmctld_node_gpus_alloc{node=~"$node"})',
                            'max by (node) (slurm_node_gpus_allocated{node=~"$node"})',
                        ),
                        "{{node}} allocated",
                    ),
                    (
                        either(
                            'max by (node) (slurmctld_node_gpus{node=~"$node"})',
                            'max by (node) (slurm_node_gpus{node=~"$node"})',
                        ),
                        "{{node}} total",
                    ),
                ),
                width=24,
            ),
        ),
    ),
    Dashboard(
        uid="gpucluster-scheduler",
        title="Scheduler health",
        description="slurmctld and slurmdbd: are they answering, how long scheduling takes, what is queued.",
        panels=(
            Panel("slurmctld answering", (("max(slurm_up)", "slurmctld"),), "stat", width=6, height=4),
            Panel("slurmdbd answering", (("max(slurm_dbd_up)", "slurmdbd"),), "stat", width=6, height=4),
            Panel(
                "Pending jobs",
                ((either("sum(slurmctld_jobs_pending)", 'sum(slurm_jobs{state="pending"})'), "pending"),),
                "stat",
                width=6,
                height=4,
            ),
            Panel(
                "Server threads",
                ((either("max(slurmctld_server_thread_cnt)", "max(slurm_scheduler_threads)"), "threads"),),
                "stat",
                width=6,
                height=4,
            ),
            Panel(
                "Scheduling cycle",
                (
                    (
                        either(
                            f"max(slurmctld_sched_mean_cycle){MICROSECONDS}", "max(slurm_scheduler_mean_cycle_seconds)"
                        ),
                        "main, mean",
                    ),
                    (
                        either(
                            f"max(slurmctld_schedule_cycle_last){MICROSECONDS}",
                            "max(slurm_scheduler_last_cycle_seconds)",
                        ),
                        "main, last",
                    ),
                    (
                        either(f"max(slurmctld_bf_cycle_last){MICROSECONDS}", "max(slurm_backfill_last_cycle_seconds)"),
                        "backfill, last",
                    ),
                ),
                unit="s",
            ),
            Panel(
                "Agent and accounting queues",
                (
                    (either("max(slurmctld_agent_queue_size)", "max(slurm_scheduler_agent_queue_size)"), "agent"),
                    (
                        either("max(slurmctld_slurmdbd_queue_size)", "max(slurm_scheduler_dbd_agent_queue_size)"),
                        "slurmdbd messages",
                    ),
                ),
            ),
            Panel(
                "Job throughput",
                tuple(
                    (
                        either(
                            f"max(rate(slurmctld_sdiag_jobs_{what}[$__rate_interval])) * 60",
                            f"max(rate(slurm_scheduler_jobs_{what}_total[$__rate_interval])) * 60",
                        ),
                        what,
                    )
                    for what in ("submitted", "started", "completed", "failed", "canceled")
                ),
                unit="short",
                description="Jobs per minute (sdiag's counters, reset at midnight).",
            ),
            Panel(
                "Pending jobs per partition",
                (
                    (
                        either(
                            "sum by (partition) (slurmctld_partition_jobs_pending)",
                            'sum by (partition) (slurm_jobs{state="pending"})',
                        ),
                        "{{partition}}",
                    ),
                ),
            ),
            Panel(
                "Exporter collection time",
                (("max(slurm_exporter_collect_seconds)", "collect"),),
                unit="s",
                width=24,
                height=6,
            ),
        ),
    ),
)


def rendered() -> dict[str, str]:
    return {f"{d.uid}.json": json.dumps(dashboard_json(d), indent=2, sort_keys=True) + "\n" for d in DASHBOARDS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the committed JSON differs")
    args = parser.parse_args(argv)
    stale = []
    for name, text in rendered().items():
        path = OUT / name
        if path.exists() and path.read_text() == text:
            continue
        stale.append(name)
        if not args.check:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if args.check and stale:
        print(f"out of date: {', '.join(stale)}; run python3 scripts/dashboards.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
