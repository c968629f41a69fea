"""Controller cost of the compute plays at scale: a simulation.

N inventory names (sim-gpu0001...) are pointed at the pilot lab's two compute containers (`ansible_host`), so
that `playbooks/deploy.yml --limit compute` does for N hosts what it does for a real cluster's compute nodes,
on the controller's side: templating, task dispatch, result handling, one `docker exec` per module. The hosts'
own work (the modules running inside the containers) is real too, but N names share two containers, so only
the controller's share is the measure: the CPU seconds of the ansible-playbook process tree (itself, its
forks and their docker clients), from the kernel's accounting of waited-for children.

Each size runs twice: the first run writes what the new names change, the second is the measured changed=0 run.
/etc/hosts is left as it is (common_manage_hosts_file: false): N names on two containers are two Slurm nodes on one
machine, which the common role refuses where it writes /etc/hosts; and the names are not the containers' own
(common_node_names_checked: false), which it refuses too. Left out, and said in the result: the GPU check
(`--skip-tags gpu_check`: it asks slurmctld about its own node, which has no sim names) and nothing else.

Needs the converged pilot lab (`molecule converge -s pilot`).
Run: .venv/bin/python bench/scale.py --sizes 10 25 50 [--forks 50]
With two sizes or more, a last line gives the slope between the smallest and the largest: the controller's CPU per
added compute host, apart from what a run pays once whatever its size.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
PILOT = ROOT / "molecule" / "pilot"
RESULTS = ROOT / "bench" / "results" / "scale.jsonl"
SKIPPED_TAGS = "gpu_check"


def pilot_platforms() -> list[dict[str, Any]]:
    platforms: list[dict[str, Any]] = yaml.safe_load((PILOT / "molecule.yml").read_text())["platforms"]
    return platforms


def pilot_ca_dir() -> Path:
    """The converged pilot's cluster CA (common_tls_ca_dir in Molecule's ephemeral inventory): without it the common
    role refuses a run whose hosts hold certificates of a CA this controller does not have."""
    ephemeral = os.environ.get("MOLECULE_EPHEMERAL_DIRECTORY")
    found = (
        [Path(ephemeral) / "inventory" / ".pki"]
        if ephemeral
        else sorted(Path.home().glob(".ansible/tmp/molecule.*.pilot/inventory/.pki"), key=lambda p: p.stat().st_mtime)
    )
    if not found or not (found[-1] / "ca.crt").is_file():
        sys.exit("no cluster CA of the pilot lab (run molecule converge -s pilot, or set MOLECULE_EPHEMERAL_DIRECTORY)")
    return found[-1]


def inventory(size: int) -> dict[str, object]:
    """The pilot scenario's groups (molecule/pilot/molecule.yml), its compute containers replaced by `size` names
    spread over them."""
    # (common_manage_hosts_file off: the common role refuses two Slurm nodes on one machine, which N names on two
    # containers are; the runs of docs/scale.md before 2026-11-29's session 61 wrote /etc/hosts, one task more a host)
    docker: dict[str, object] = {
        "ansible_connection": "community.docker.docker",
        "common_manage_hosts_file": False,
        "common_node_names_checked": False,
        "common_tls_ca_dir": str(pilot_ca_dir()),
    }
    platforms = pilot_platforms()
    containers = [platform["name"] for platform in platforms if "compute" in platform["groups"]]
    groups: dict[str, dict[str, dict[str, object]]] = {}
    for platform in platforms:
        if "compute" in platform["groups"]:
            continue
        for group in platform["groups"]:
            groups.setdefault(group, {})[platform["name"]] = docker
    names = {
        f"sim-gpu{index:04d}": {**docker, "ansible_host": containers[index % len(containers)]}
        for index in range(1, size + 1)
    }
    node_types = sorted({group for p in platforms if "compute" in p["groups"] for group in p["groups"]} - {"compute"})
    children: dict[str, object] = {group: {"hosts": hosts} for group, hosts in groups.items()}
    children["compute"] = {"children": {node_types[0]: {"hosts": names}}}
    return {"all": {"children": children}}


def recap(output: str) -> dict[str, dict[str, int]]:
    hosts = {}
    for match in re.finditer(r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+).*?failed=(\d+)\s+skipped=(\d+)", output, re.M):
        name, ok, changed, failed, skipped = match.groups()
        hosts[name] = {"ok": int(ok), "changed": int(changed), "failed": int(failed), "skipped": int(skipped)}
    return hosts


def environment(directory: Path, forks: int) -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}",
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "ANSIBLE_FORKS": str(forks),
        # the run's own fact cache (fact_caching_connection; the repository's .ansible/facts would carry facts between
        # runs and trees)
        "ANSIBLE_CACHE_PLUGIN_CONNECTION": str(directory / "facts"),
        "ANSIBLE_CALLBACKS_ENABLED": "ansible.posix.profile_roles",
        "ANSIBLE_CALLBACK_RESULT_FORMAT": "yaml",
    }


def run(directory: Path, forks: int) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds of the process tree, of its main process alone, output) of one limited run of the
    site playbook."""
    env = environment(directory, forks)
    command = [
        str(ROOT / ".venv" / "bin" / "ansible-playbook"),
        "-i",
        str(directory / "hosts.yml"),
        str(ROOT / "playbooks" / "deploy.yml"),
        "--limit",
        "compute",
        "--skip-tags",
        SKIPPED_TAGS,
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    main = 0.0  # the ansible-playbook process alone (its own CPU, read from /proc until it exits)
    with subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        outputs: list[str] = []
        reader = threading.Thread(target=lambda: outputs.extend(process.communicate()))
        reader.start()
        while reader.is_alive():
            main = own_cpu(process.pid) or main
            reader.join(0.25)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result = subprocess.CompletedProcess(command, process.returncode, *outputs)
    if result.returncode != 0:
        sys.exit(f"ansible-playbook failed (rc {result.returncode}):\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}")
    return wall, cpu, main, result.stdout


def own_cpu(pid: int) -> float:
    """User + system CPU seconds of the process itself (not its children), or 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def changed_tasks(output: str) -> list[str]:
    """The tasks that reported a change on a sim name (a changed=0 run has none)."""
    changed, task = set(), ""
    for line in output.splitlines():
        if line.startswith("TASK ["):
            task = line[6 : line.rindex("]")]
        elif line.startswith("changed: [sim-"):
            changed.add(task)
    return sorted(changed)


def roles(output: str) -> dict[str, float]:
    """profile_roles' summary: seconds per role (wall, all hosts together)."""
    summary = output.split("PLAY RECAP", 1)[-1]
    return {name: float(seconds) for name, seconds in re.findall(r"^(\w+)\s+-+\s+([\d.]+)s$", summary, re.M)}


def bench(size: int, forks: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="gpucluster-scale-") as temporary:
        directory = Path(temporary)
        (directory / "hosts.yml").write_text(yaml.safe_dump(inventory(size), sort_keys=False))
        (directory / "group_vars").mkdir()
        for source in (PILOT / "inventory" / "group_vars").iterdir():
            (directory / "group_vars" / source.name).symlink_to(source)
        # the other hosts' facts in the run's cache (their addresses for /etc/hosts); the sim names gather theirs
        subprocess.run(
            [
                str(ROOT / ".venv" / "bin" / "ansible"),
                "-i",
                str(directory / "hosts.yml"),
                "controllers:dbd",
                "-m",
                "setup",
            ],
            cwd=ROOT,
            env=environment(directory, forks),
            capture_output=True,
            check=True,
        )
        first_wall, first_cpu, _, _ = run(directory, forks)
        wall, cpu, main, output = run(directory, forks)
    hosts = recap(output)
    compute = [counters for name, counters in hosts.items() if name.startswith("sim-")]
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "names": size,
        "containers": sum("compute" in platform["groups"] for platform in pilot_platforms()),
        "forks": forks,
        "skipped_tags": SKIPPED_TAGS,
        "first_wall_s": round(first_wall, 1),
        "first_cpu_s": round(first_cpu, 1),
        "wall_s": round(wall, 1),
        "controller_cpu_s": round(cpu, 1),
        "controller_cpu_per_host_s": round(cpu / size, 2),
        # the strategy, queueing, forking and results in one process: the part more cores do not spread
        "main_process_cpu_s": round(main, 1),
        "main_process_cpu_per_host_s": round(main / size, 2),
        "changed": sum(counters["changed"] for counters in compute),
        "changed_tasks": changed_tasks(output),
        "tasks_per_host": {
            "ran": round(sum(c["ok"] for c in compute) / len(compute), 1),
            "skipped": round(sum(c["skipped"] for c in compute) / len(compute), 1),
        },
        # a compute node's own (the median name: the first also runs the opening validation in the run's name)
        "tasks_per_node": {
            "ran": statistics.median(c["ok"] for c in compute),
            "skipped": statistics.median(c["skipped"] for c in compute),
        },
        "roles_wall_s": roles(output),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 25, 50])
    parser.add_argument("--forks", type=int, default=50)
    parser.add_argument("--label", default="", help="what the tree is, kept with the result (before: <commit> ...)")
    args = parser.parse_args()
    described = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    tree = " ".join(filter(None, [args.label, described.stdout.strip()]))
    runs = []
    for size in args.sizes:
        result = {**bench(size, args.forks), "tree": tree}
        runs.append(result)
        record(result)
    if len(runs) > 1:
        record(marginal(runs, tree))


def record(result: dict[str, object]) -> None:
    line = json.dumps(result)
    print(line, flush=True)
    with RESULTS.open("a") as results:
        results.write(line + "\n")


def marginal(runs: list[dict[str, Any]], tree: str) -> dict[str, object]:
    """What one more compute host costs: the slope between the smallest and the largest size of one invocation. A run
    also pays once for what does not grow with its hosts (the opening validation, the plays' set-up, each module's
    payload built once per run - about 16 modules, 0.25-0.3 s of CPU each), which the per-host figure of a small size
    carries and the slope does not (docs/scale.md)."""
    small, large = min(runs, key=lambda run: run["names"]), max(runs, key=lambda run: run["names"])
    per_host = (large["controller_cpu_s"] - small["controller_cpu_s"]) / (large["names"] - small["names"])
    main_per_host = (large["main_process_cpu_s"] - small["main_process_cpu_s"]) / (large["names"] - small["names"])
    return {
        "date": large["date"],
        "kind": "marginal",
        "sizes": [small["names"], large["names"]],
        "controller_cpu_per_added_host_s": round(per_host, 2),
        "main_process_cpu_per_added_host_s": round(main_per_host, 2),
        "fixed_cpu_s": round(small["controller_cpu_s"] - small["names"] * per_host, 1),
        "tree": tree,
    }


if __name__ == "__main__":
    main()
