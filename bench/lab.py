"""Lab benchmark: bare containers to a running job, and the re-run, for N compute containers.

For each N it writes a throw-away Molecule scenario molecule/bench-n<N> (the pilot's, with N compute
platforms and no PyTorch on the compute nodes; git-ignored), then times: create + prepare (containers
booted), the first converge of playbooks/deploy.yml, a 1-task-per-node srun over all N nodes, and a
second converge (the re-run).
Run: .venv/bin/python bench/lab.py [--nodes 2 4 8 16]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
PILOT = ROOT / "molecule" / "pilot"


def write_scenario(nodes: int) -> str:
    name = f"bench-n{nodes}"
    target = ROOT / "molecule" / name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(PILOT, target)
    config = yaml.safe_load((PILOT / "molecule.yml").read_text())
    fixed = [p for p in config["platforms"] if "compute" not in p["groups"]]
    template = next(p for p in config["platforms"] if "compute" in p["groups"])
    computes = []
    for index in range(1, nodes + 1):
        platform = copy.deepcopy(template)
        platform["name"] = platform["hostname"] = f"pilot-gpu{index:02d}"
        computes.append(platform)
    for platform in fixed + computes:
        # a network of its own, addresses left to Docker (the pilot's fixed subnet and addresses are the pilot's)
        platform["networks"] = [{"name": f"gpucluster-{name}"}]
        platform.pop("docker_networks", None)
        platform["volumes"] = [
            v.replace("gpucluster-pilot-home", f"gpucluster-{name}-home") for v in platform["volumes"]
        ]
        platform["name"] = platform["hostname"] = platform["name"].replace("pilot-", f"b{nodes}-")
    config["platforms"] = fixed + computes
    (target / "molecule.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    # The users' Python stack (PyTorch for the DDP example) is a package download, not deployment work.
    compute_vars = target / "inventory" / "group_vars" / "compute.yml"
    variables = yaml.safe_load(compute_vars.read_text()) or {}
    variables["user_env_packages"] = []
    compute_vars.write_text(yaml.safe_dump(variables, sort_keys=False))
    return name


def molecule(*args: str) -> float:
    env = {**os.environ, "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}"}
    start = time.monotonic()
    subprocess.run(
        [str(ROOT / ".venv" / "bin" / "molecule"), *args], cwd=ROOT, env=env, check=True, capture_output=True
    )
    return time.monotonic() - start


def bench(nodes: int) -> dict[str, object]:
    scenario = write_scenario(nodes)
    try:
        molecule("destroy", "-s", scenario)
        boot = molecule("create", "-s", scenario) + molecule("prepare", "-s", scenario)
        first = molecule("converge", "-s", scenario)
        start = time.monotonic()
        job = subprocess.run(
            ["docker", "exec", f"b{nodes}-ctl01", "srun", f"--nodes={nodes}", "--time=1", "hostname"],
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
        job_s = time.monotonic() - start
        assert len(job.stdout.split()) == nodes, job.stdout
        rerun = molecule("converge", "-s", scenario)
        return {
            "compute": nodes,
            "boot_s": round(boot),
            "first_converge_s": round(first),
            "first_job_s": round(job_s, 1),
            "bare_to_job_s": round(boot + first + job_s),
            "rerun_s": round(rerun),
            "rerun_share": round(rerun / (boot + first + job_s), 2),
        }
    finally:
        molecule("destroy", "-s", scenario)
        subprocess.run(["docker", "volume", "rm", f"gpucluster-{scenario}-home"], capture_output=True, check=False)
        shutil.rmtree(ROOT / "molecule" / scenario, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, nargs="+", default=[2, 4, 8])
    args = parser.parse_args()
    for nodes in args.nodes:
        print(json.dumps(bench(nodes)), flush=True)


if __name__ == "__main__":
    main()
