"""Running Molecule for the lab tests: the venv's molecule, no colours, the lab image of one Debian suite."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import pytest
import testinfra

from lab import local_mirror, snapshot

ROOT = Path(__file__).resolve().parents[2]
MOLECULE = ROOT / ".venv" / "bin" / "molecule"

# Debian release of the lab image -> the Slurm release it ships. Debian 13 is the lab's default.
SUITES = {"trixie": "24.11", "bookworm": "22.05"}

# The test command (CI: 90 minutes on 2 cores) runs the pilot and production labs on Debian 13 and, for Debian 12
# (Slurm 22.05), the one-host scenarios of the roles that hold its daemons. GPUCLUSTER_FULL=1 runs everything: the
# pilot lab on both suites, every role scenario on both suites, those of several hosts, the booleans-as-words check
# runs, the production pilot's check run (GPUCLUSTER_PRODUCTION_PILOT_CHECK) and the federation lab.
# docs/performance.md gives what each part costs.
FULL = os.environ.get("GPUCLUSTER_FULL") == "1"


def molecule(
    *args: str, suite: str, cwd: Path = ROOT, timeout: int = 1200, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Molecule on the lab image of ``suite``; ``env`` adds to (or overrides) the lab's environment."""
    return subprocess.run(
        [str(MOLECULE), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=lab_env(suite, env),
        check=False,
    )


def host(name: str) -> Any:
    """A lab container's state through testinfra's docker backend (the toolkit's test library): its files (mode,
    owner, size), services and packages, e.g. ``host("pilot-ctl01").file("/etc/slurm/jwt_hs256.key").mode``."""
    return testinfra.get_host(f"docker://{name}")


def sh(host: str, command: str, check: bool = True, timeout: int = 120) -> str:
    """A bash command in a lab container, its output stripped; with ``check`` a non-zero exit fails the test,
    naming the host and the command and quoting what it printed."""
    result = subprocess.run(
        ["docker", "exec", host, "bash", "-c", command], capture_output=True, text=True, timeout=timeout, check=False
    )
    if check and result.returncode != 0:
        raise AssertionError(f"{host}: {command}: rc={result.returncode}\n{result.stdout}\n{result.stderr}")
    return result.stdout.strip()


# What a deploy makes on a host: an installed package (the hash of every package's state), the MUNGE key, the Slurm
# files, the GPU check's directory, the daemons' enablement. Compared before and after a check run on bare hosts.
HOST_STATE = (
    "dpkg-query -W -f '${Package} ${Status}\\n' | sha256sum; "
    "ls -d /etc/munge/munge.key /etc/slurm/slurm.conf /etc/slurm/slurmdbd.conf /etc/gpucluster 2>/dev/null; "
    "systemctl is-enabled slurmctld slurmd slurmdbd munge mariadb 2>/dev/null | tr '\\n' ' '"
)


def host_states(hosts: Sequence[str]) -> dict[str, str]:
    """``HOST_STATE`` of each host."""
    return {host: sh(host, HOST_STATE, check=False) for host in hosts}


@dataclass
class BareCheck:
    """``--check --diff`` of a scenario's cluster on its bare containers, before the first converge (what a careful
    admin runs first on new hosts), and each host's ``HOST_STATE`` before and after it."""

    result: subprocess.CompletedProcess[str]
    before: dict[str, str]
    after: dict[str, str]


def check_bare_hosts(scenario: str, suite: str, hosts: Sequence[str], env: dict[str, str] | None = None) -> BareCheck:
    """The scenario's converge with --check --diff on its bare containers."""
    before = host_states(hosts)
    result = molecule("converge", "-s", scenario, "--", "--check", "--diff", suite=suite, env=env)
    return BareCheck(result, before, host_states(hosts))


def assert_bare_check_clean(check: BareCheck, hosts: Sequence[str], leaked: Callable[[str], list[str]]) -> None:
    """The check run went through (rc 0), reported changes on every host, changed nothing there and showed no secret
    (``leaked``: the secrets found in a text)."""
    result = check.result
    assert result.returncode == 0, failures(result.stdout) + result.stdout[-3000:] + result.stderr[-2000:]
    counters = recap(result.stdout)
    assert set(hosts) <= set(counters)
    assert all(counters[host]["changed"] > 0 for host in hosts), counters  # it reports what the deploy would do
    assert check.after == check.before
    assert "/etc/munge/munge.key" not in "".join(check.after.values())
    assert leaked(result.stdout + result.stderr) == []


T = TypeVar("T")


def wait_for(what: str, probe: Callable[[], T], timeout: float = 90, every: float = 1.0) -> T:
    """``probe()`` every ``every`` seconds until it returns something true, which is returned; after
    ``timeout`` seconds the test fails, saying what it waited for and the last answer."""
    deadline = time.monotonic() + timeout
    last = probe()
    while not last:
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what} (last: {last!r})")
        time.sleep(every)
        last = probe()
    return last


# sinfo's states of a node that does not serve (and a trailing "*": not responding)
NOT_SERVING = ("down", "unknown", "not_responding", "fail", "drain")


def wait_for_nodes(host: str, what: str, timeout: float = 180) -> str:
    """Every Slurm node that ``host`` asks sinfo about registered and serving (a lab after its hosts booted, from a
    snapshot: as its first converge left them); ``what``: the lab, for the message of a wait that gives up."""

    def serving() -> str:
        answer = sh(host, "sinfo -h -N -o '%N %T'", check=False, timeout=30)
        states = answer.split()[1::2]
        up = all(not state.startswith(NOT_SERVING) and not state.endswith("*") for state in states)
        return answer if states and up else ""

    return wait_for(f"every Slurm node of {what} registered and serving after its hosts booted", serving, timeout)


def lab_env(suite: str, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of the lab's Molecule and Ansible runs: the suite and its release, no colours, and the
    site's local mirror (lab/local_mirror.py) where it is built - its directory (the pilot's prepare serves it) and
    its key (the pilot inventory's signed_by)."""
    mirror = {}
    if local_mirror.built(local_mirror.DEFAULT_DIR):
        mirror = {
            "GPUCLUSTER_LAB_MIRROR": str(local_mirror.DEFAULT_DIR),
            "GPUCLUSTER_LAB_MIRROR_KEY": (local_mirror.DEFAULT_DIR / local_mirror.KEY).read_text(),
        }
    return {
        **os.environ,
        "PATH": f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}",
        "NO_COLOR": "1",
        "ANSIBLE_FORCE_COLOR": "0",
        "PY_COLORS": "0",
        "GPUCLUSTER_LAB_SUITE": suite,
        "GPUCLUSTER_LAB_RELEASE": SUITES[suite],
        **mirror,
        **(env or {}),
    }


def ansible_playbook(
    inventory: Path, playbook: str, *args: str, suite: str, env: dict[str, str] | None = None, timeout: int = 1800
) -> subprocess.CompletedProcess[str]:
    """A playbook of playbooks/ against a static inventory of lab containers (a lab's earlier phase)."""
    return subprocess.run(
        [str(ROOT / ".venv" / "bin" / "ansible-playbook"), "-i", str(inventory), f"playbooks/{playbook}", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        # the project's settings without its fact cache: the facts of an earlier lab's containers are stale
        env={**lab_env(suite, env), "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_CACHE_PLUGIN": "memory"},
        check=False,
    )


def recap(output: str) -> dict[str, dict[str, int]]:
    """PLAY RECAP counters per host of an ansible-playbook output."""
    hosts = {}
    for host, counters in re.findall(r"^\W*(\S+)\s+:\s+(ok=\d+.*)$", output, re.M):
        hosts[host] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", counters)}
    return hosts


def failures(output: str, context: int = 2500) -> str:
    """The failed tasks of an ansible-playbook output (its TASK line and what follows each fatal), so that
    a failure's cause survives the truncation of a long -vvv log."""
    parts = []
    for match in re.finditer(r"^(fatal|failed): \[", output, re.M):
        start = output.rfind("\nTASK [", 0, match.start())
        parts.append(output[max(start, 0) : match.start() + context])
    return "\n...\n".join(parts)


def json_run(output: str) -> dict[str, Any]:
    """The report of a run with ANSIBLE_STDOUT_CALLBACK=ansible.posix.json (after any warnings printed first)."""
    report: dict[str, Any] = json.loads(output[output.index("\n{") + 1 if not output.startswith("{") else 0 :])
    return report


def task_actions(report: dict[str, Any]) -> list[tuple[str, dict[str, str]]]:
    """What each task of a run did on each host, from its JSON report: ran or skipped, would change or not, the
    module's arguments as templated and the --diff; without what differs from one run to the next (the run's
    temporary paths, the arguments Ansible adds for itself)."""
    return [
        (task["task"]["name"], {host: _action(result) for host, result in task["hosts"].items()})
        for play in report["plays"]
        for task in play["tasks"]
    ]


def _action(result: dict[str, Any]) -> str:
    status = next((word for word in ("failed", "skipped", "changed") if result.get(word)), "ok")
    arguments = (result.get("invocation") or {}).get("module_args")
    text = json.dumps([status, arguments, result.get("diff")], sort_keys=True)
    text = re.sub(r'"_[a-z_]+": [^,}]+(, )?', "", text)
    return re.sub(r"/[^\s\"]*/ansible-(local|tmp)-[^/\s\"]+(/[^/\s\"]+)?/", "<tmp>/", text)


def changed_tasks(output: str) -> list[str]:
    """'TASK [name]: host' for every task an ansible-playbook output reports changed."""
    found, task = [], ""
    for line in output.splitlines():
        header = re.match(r"^(?:TASK|RUNNING HANDLER) \[(.+?)\]", line)
        if header:
            task = header.group(1)
        changed = re.match(r"^changed: \[([^\]]+)\]", line)
        if changed:
            found.append(f"{task}: {changed.group(1)}")
    return found


def base64_forms(value: str) -> list[str]:
    """What ``value`` looks like inside any base64 text (a slurp of a file that holds it): at each of the three
    alignments, the characters that depend on it alone."""
    forms = []
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + value.encode()).decode()
        forms.append(encoded[4 if offset else 0 : -4])
    return forms


def refused_unchanged(result: subprocess.CompletedProcess[str]) -> str:
    """Assert that a run was refused and changed nothing on any host; its output on one line, for the refusal's text."""
    assert result.returncode != 0, result.stdout[-3000:]
    counters = recap(result.stdout)
    assert all(counters[host]["changed"] == 0 for host in counters), changed_tasks(result.stdout)
    return " ".join(result.stdout.split())


def remove_volumes(volumes: Sequence[str]) -> None:
    """The Docker volumes a lab shares between its containers (the lab kernel has no NFS)."""
    for volume in volumes:
        subprocess.run(["docker", "volume", "rm", volume], capture_output=True, check=False)


def bring_up(scenario: str, suite: str, volumes: Sequence[str], env: dict[str, str] | None = None) -> None:
    """A scenario's containers from bare images: what is left of an earlier lab destroyed (volumes too),
    then create and prepare (the lab's skip and the pilot's local mirror: ``snapshotted``, which calls this)."""
    destroy_lab(scenario, suite, volumes, env)
    for step in ("create", "prepare"):
        result = molecule(step, "-s", scenario, suite=suite, env=env)
        assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-3000:]


@dataclass
class Built:
    """A lab's first converge as the tests read it: its output and seconds, the check run on its bare hosts before
    it (where one ran), and where the lab came from (converged now, or restored from the snapshot of an earlier run of
    the same content: lab/snapshot.py)."""

    converge_log: str
    converge_seconds: float
    bare_check: BareCheck | None
    origin: str


def _bare_check_data(check: BareCheck | None) -> dict[str, Any] | None:
    if check is None:
        return None
    result = check.result
    return {
        "result": [list(result.args), result.returncode, result.stdout, result.stderr],
        "before": check.before,
        "after": check.after,
    }


def _built(results: dict[str, Any], origin: str) -> Built:
    check = results["bare_check"]
    bare = None
    if check is not None:
        args, returncode, stdout, stderr = check["result"]
        bare = BareCheck(subprocess.CompletedProcess(args, returncode, stdout, stderr), check["before"], check["after"])
    return Built(results["converge_log"], float(results["converge_seconds"]), bare, origin)


def build_lab(scenario: str, suite: str, volumes: Sequence[str], hosts: Sequence[str]) -> Built:
    """A scenario's converged lab (from its snapshot where one was taken of this content: ``snapshotted``): its
    containers from bare images (bring_up), a check run of its cluster on them, then its first converge with -vvv."""

    def converge() -> dict[str, Any]:
        bring_up(scenario, suite, volumes)
        check = check_bare_hosts(scenario, suite, hosts)
        start = time.monotonic()
        result = molecule("converge", "-s", scenario, "--", "-vvv", suite=suite)
        seconds = time.monotonic() - start
        assert result.returncode == 0, failures(result.stdout) + result.stdout[-3000:] + result.stderr[-3000:]
        return {"converge_log": result.stdout + result.stderr, "converge_seconds": seconds,
                "bare_check": _bare_check_data(check)}  # fmt: skip

    return snapshotted(scenario, suite, volumes, hosts, None, converge)


def build_earlier_phase(
    scenario: str,
    suite: str,
    volumes: Sequence[str],
    hosts: Sequence[str],
    inventory: Path,
    env: dict[str, str] | None = None,
    check_bare: bool = False,
    snapshots: bool = True,
) -> Built:
    """A scenario's containers from bare images (bring_up), with ``check_bare`` a check run of the scenario's own
    cluster on them, then its earlier phase built on some of them by playbooks/deploy.yml with that phase's static
    ``inventory``; from the snapshot of an earlier run where one was taken of this content (``snapshotted``; not
    with ``snapshots`` False: a scenario whose hosts' addresses are not fixed)."""

    def converge() -> dict[str, Any]:
        bring_up(scenario, suite, volumes, env)
        check = check_bare_hosts(scenario, suite, hosts, env) if check_bare else None
        # One cluster CA across the phases, as a site keeps it: the later phase's inventory is Molecule's, whose
        # common_tls_ca_dir is its .pki (a CA missing there while the hosts hold certificates is refused as lost).
        ephemeral = (env or {}).get("MOLECULE_EPHEMERAL_DIRECTORY")
        keep_ca = ["-e", f"common_tls_ca_dir={ephemeral}/inventory/.pki"] if ephemeral else []
        start = time.monotonic()
        result = ansible_playbook(
            inventory, "deploy.yml", "--skip-tags", "monitoring,user_env", *keep_ca, suite=suite, env=env
        )
        seconds = time.monotonic() - start
        assert result.returncode == 0, failures(result.stdout) + result.stdout[-3000:] + result.stderr[-3000:]
        return {"converge_log": result.stdout + result.stderr, "converge_seconds": seconds,
                "bare_check": _bare_check_data(check)}  # fmt: skip

    return snapshotted(scenario, suite, volumes, hosts, env, converge, snapshots)


def snapshotted(
    scenario: str,
    suite: str,
    volumes: Sequence[str],
    hosts: Sequence[str],
    env: dict[str, str] | None,
    converge: Callable[[], dict[str, Any]],
    snapshots: bool = True,
) -> Built:
    """A scenario's lab as ``converge`` builds it (its results: what the tests of the first converge read), or
    restored from its snapshot where one was taken of this content (lab/snapshot.py). A lab converged now is kept as
    its snapshot and restored from it, so that every run tests the restore. GPUCLUSTER_LAB_SNAPSHOTS=0 (or
    ``snapshots`` False): the converged containers as they are."""
    if os.environ.get("GPUCLUSTER_SKIP_LAB") == "1":
        pytest.skip("GPUCLUSTER_SKIP_LAB=1: the container lab was skipped on request")
    if scenario == "pilot":
        # the site's local Debian mirror, served from the pilot's storage host; before the key: its key is part of
        # the lab's environment
        local_mirror.build()
    lab = snapshot.Lab(scenario, suite, tuple(hosts), tuple(volumes), lab_env(suite, env))
    current = snapshot.key(scenario, suite, lab.env) if snapshots and snapshot.enabled() else ""
    meta = snapshot.usable(lab, current) if current else None
    if meta is not None:
        try:
            destroy_lab(scenario, suite, volumes, env)
            snapshot.restore(lab, partial(_molecule_env, suite, env))
            return _built(meta["results"], f"restored from the snapshot {current} taken {_ago(meta['taken'])} ago")
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            print(f"\n{scenario} lab: the snapshot {current} could not be restored, converging anew: {exc}")
    results = converge()
    if not current:
        return _built(results, "converged now (no snapshot)")
    snapshot.save(lab, current, results)
    destroy_lab(scenario, suite, volumes, env)
    snapshot.restore(lab, partial(_molecule_env, suite, env))
    return _built(results, f"converged now, kept as the snapshot {current} and restored from it")


def _molecule_env(
    suite: str, base: dict[str, str] | None, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return molecule(*args, suite=suite, env={**(base or {}), **(env or {})})


def _ago(taken: float) -> str:
    minutes = max(time.time() - float(taken), 0) / 60
    return f"{minutes:.0f} min" if minutes < 120 else f"{minutes / 60:.1f} h"


@dataclass
class Outage:
    """Samples whether a client command (``probe``, e.g. squeue in a container) gets an answer from slurmctld
    every 2 s while a lifecycle playbook runs (``run`` in a thread until ``stop`` is set)."""

    probe: Sequence[str]
    failed: list[float] = field(default_factory=list)
    samples: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        while not self.stop.is_set():
            answer = subprocess.run(list(self.probe), capture_output=True, check=False)
            self.samples += 1
            if answer.returncode != 0:
                self.failed.append(time.monotonic())
            time.sleep(2)

    def longest(self) -> float:
        """Longest run of failed samples, in seconds (first to last failure of a run)."""
        longest, start, last = 0.0, None, None
        for moment in self.failed:
            if last is None or moment - last > 10:
                start = moment
            longest, last = max(longest, moment - start), moment  # type: ignore[operator]
        return longest


def destroy_lab(scenario: str, suite: str, volumes: Sequence[str], env: dict[str, str] | None = None) -> None:
    molecule("destroy", "-s", scenario, suite=suite, env=env)
    remove_volumes(volumes)
