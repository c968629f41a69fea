"""Whole-playbook benchmark: playbooks/render.yml vs a bare no-op run vs per-host templating.

For each size (nodes x 8 GPUs, generated inventory):
  noop      ansible-playbook bench/playbooks/noop.yml (inventory load + one empty play: Ansible's floor)
  render    ansible-playbook playbooks/render.yml (validation + model + templates, once, on localhost)
  per_host  bench/playbooks/per_host_template.yml: every compute host renders the hostvars loop; above
            --per-host-limit hosts it runs on that many hosts and the time is scaled to all of them
            (each host does the same work), which the output marks as extrapolated
Run: .venv/bin/python bench/playbooks.py [--sizes 160 1280 12800] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.gen_inventory import write_inventory  # noqa: E402
from bench.timing import best_of  # noqa: E402

PLAYBOOK = str(ROOT / ".venv" / "bin" / "ansible-playbook")


def timed(args: list[str], repeat: int) -> float:
    """Median wall time of ``ansible-playbook ARGS`` over ``repeat`` runs."""
    return best_of(
        repeat, lambda: subprocess.run([PLAYBOOK, *args], cwd=ROOT, check=True, capture_output=True, env={**os.environ})
    )


def bench_size(nodes: int, repeat: int, per_host_limit: int, work: Path) -> dict[str, object]:
    inventory = write_inventory(work / f"n{nodes}", nodes)
    noop = timed(["-i", str(inventory), "bench/playbooks/noop.yml"], repeat)
    render = timed(
        ["-i", str(inventory), "playbooks/render.yml", "-e", f"cluster_config_dir={work}/out{nodes}"], repeat
    )
    hosts = min(nodes, per_host_limit)
    limit = [] if hosts == nodes else ["--limit", f"compute[0:{hosts - 1}]"]
    (work / f"per_host{nodes}").mkdir()
    per_host_raw = timed(
        [
            "-i",
            str(inventory),
            "bench/playbooks/per_host_template.yml",
            "-e",
            f"bench_out={work}/per_host{nodes}",
            "-f",
            "2",
            *limit,
        ],
        1,
    )
    per_host = per_host_raw * nodes / hosts
    return {
        "nodes": nodes,
        "gpus": nodes * 8,
        "noop_s": round(noop, 2),
        "render_s": round(render, 2),
        "render_over_noop": round(render / noop, 2),
        "per_host_s": round(per_host, 1),
        "per_host_hosts_run": hosts,
        "per_host_extrapolated": hosts != nodes,
        "per_host_over_render": round(per_host / render, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[160, 1280, 12800])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--per-host-limit", type=int, default=64)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for nodes in args.sizes:
            print(json.dumps(bench_size(nodes, args.repeat, args.per_host_limit, Path(work))), flush=True)


if __name__ == "__main__":
    main()
