"""The run's plan: model builds per run and the opening playbooks' time, this tree beside another (before a change).

For each size (nodes x 8 GPUs, generated inventory), in one run, side by side:
  noop         ansible-playbook bench/playbooks/noop.yml (Ansible's floor)
  render       playbooks/render.yml (validation, plan, the files), in each tree
  boilerplate  playbooks/boilerplate.yml (the opening validation every playbook starts with), in each tree
  validate     playbooks/validate.yml (every tier-1 check of the deployment: boilerplate and each role's), in each tree
  builds       build_cluster() calls in the render run, every process counted (tests/helpers/count_builds)
Run: .venv/bin/python bench/plan.py [--sizes 1280 12800] [--repeat 3] [--base /path/to/a/worktree]
(--base: a checkout to compare with, e.g. `git worktree add /tmp/base <commit>`; it runs with its own
ansible.cfg and collection). Rows are appended to bench/results/plan.jsonl.
"""

from __future__ import annotations

import argparse
import functools
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
HOOK = ROOT / "tests" / "helpers" / "count_builds"


def _run(tree: Path, args: list[str], env: dict[str, str] | None = None) -> None:
    environment = {**os.environ, "ANSIBLE_CONFIG": str(tree / "ansible.cfg"), **(env or {})}
    done = subprocess.run([PLAYBOOK, *args], cwd=tree, env=environment, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} in {tree} failed:\n{done.stdout[-3000:]}")


def _builds(tree: Path, args: list[str], work: Path) -> int:
    log = work / "builds"
    log.unlink(missing_ok=True)
    _run(tree, args, {"PYTHONPATH": str(HOOK), "GPUCLUSTER_COUNT_BUILDS": str(log)})
    return len(log.read_text().splitlines()) if log.exists() else 0


def bench_size(nodes: int, repeat: int, trees: dict[str, Path], work: Path) -> dict[str, object]:
    inventory = str(write_inventory(work / f"n{nodes}", nodes))
    row: dict[str, object] = {"nodes": nodes, "gpus": nodes * 8}
    noop = best_of(repeat, lambda: _run(ROOT, ["-i", inventory, "bench/playbooks/noop.yml"]))
    row["noop_s"] = round(noop, 2)
    for name, tree in trees.items():
        render = ["-i", inventory, "playbooks/render.yml", "-e", f"cluster_config_dir={work}/{name}{nodes}"]
        seconds = best_of(repeat, functools.partial(_run, tree, render))
        opening = best_of(repeat, functools.partial(_run, tree, ["-i", inventory, "playbooks/boilerplate.yml"]))
        row[f"{name}_render_s"] = round(seconds, 2)
        row[f"{name}_render_over_noop"] = round(seconds / noop, 2)
        row[f"{name}_boilerplate_s"] = round(opening, 2)
        checks = best_of(repeat, functools.partial(_run, tree, ["-i", inventory, "playbooks/validate.yml"]))
        row[f"{name}_validate_s"] = round(checks, 2)
        row[f"{name}_validate_over_noop"] = round(checks / noop, 2)
        row[f"{name}_render_builds"] = _builds(tree, render, work)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1280, 12800])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--base", type=Path, help="another checkout to compare with (run beside this one)")
    args = parser.parse_args()
    trees = {"this": ROOT, **({"base": args.base.resolve()} if args.base else {})}
    with tempfile.TemporaryDirectory() as work, (ROOT / "bench/results/plan.jsonl").open("a") as results:
        for nodes in args.sizes:
            row = json.dumps(bench_size(nodes, args.repeat, trees, Path(work)))
            print(row, flush=True)
            results.write(row + "\n")


if __name__ == "__main__":
    main()
