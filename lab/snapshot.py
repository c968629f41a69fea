"""A converged lab kept as Docker images, so that the next test run of the same content starts from it instead of
converging bare containers again (a pilot's first converge is about nine minutes of the test command).

Kept per scenario and Debian suite, under CACHE/snapshots/<scenario>-<suite>/ (lab/cache.py):
- each container, committed after a clean power-off, as the image gpucluster/lab-snapshot-<host>:<suite>, and its
  /etc/hosts (a file Docker writes anew for each container: the common role's block in it is not in the image);
- the lab's Docker volumes (its shared /home), as tar files;
- Molecule's ephemeral directory: the lab's generated passwords, its CA, the state of the scenario;
- meta.json: the key, when the snapshot was taken, and what the build reported (the first converge's output and
  time, a check run on the bare hosts), which the tests of the first converge read as they read a fresh build's.

The key is the SHA-256 of everything that shapes a converged lab: the content of the collection, the playbooks, the
scenario and the scenarios' shared files, lab/ and the lab tests' builder (documentation and the drills left out),
the lab image's ID, the GPUCLUSTER_LAB_* environment of the lab's runs (the local mirror's key with it) and the
versions of the Python packages a converge runs on. A snapshot is used only
under the current key and while younger than MAX_AGE_S: Debian's packages, which a converge installs from the
archive, move under an unchanged tree. Otherwise the lab converges from bare containers and its snapshot replaces the
old one.

Either way the tests get the restored lab: containers created by Molecule from the snapshot's images (each platform
of the scenario takes its image from GPUCLUSTER_LAB_IMAGE_<HOST>), the volumes and the ephemeral directory put back,
/etc/hosts written back, the hosts booted - so every run tests the restore, a fresh build's as much as a reused one.
GPUCLUSTER_LAB_SNAPSHOTS=0 builds from bare containers and neither takes nor uses a snapshot.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tarfile
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml
from molecule.text import checksum

from lab.cache import CACHE

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = CACHE / "snapshots"
MAX_AGE_S = 24 * 3600
# What shapes a converged lab of any scenario (files under these, as git lists them; documentation left out), beside
# the scenario's own directory (``shapes``).
SHAPES = (
    ".config", "ansible.cfg", "galaxy.yml", "lab", "meta", "molecule/inventories", "molecule/shared", "playbooks",
    "plugins", "requirements.txt", "requirements-dev.txt", "roles", "site.yml", "tests/lab/molecule_run.py",
)  # fmt: skip
# The Python packages a converge runs on (the controller's runtime, Ansible's templating, Molecule and its Docker
# driver), by their versions: not the linters, the test runner or a profiler installed beside them.
PACKAGES = frozenset((
    "ansible", "ansible-core", "jinja2", "markupsafe", "pyyaml", "resolvelib", "cryptography", "clustershell",
    "netaddr", "bcrypt", "molecule", "molecule-plugins", "ansible-compat", "docker", "requests",
))  # fmt: skip
LEFT_OUT = (".md", ".rst")
LABEL = "gpucluster.lab.snapshot"


def enabled() -> bool:
    return os.environ.get("GPUCLUSTER_LAB_SNAPSHOTS", "1") != "0"


def _run(*command: str, timeout: float = 600, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(list(command), capture_output=True, text=True, input=stdin, timeout=timeout, check=False)
    if result.returncode != 0:
        output = result.stdout[-2000:] + result.stderr[-2000:]
        raise RuntimeError(f"{' '.join(command)}: rc={result.returncode}\n{output}")
    return result


def _files(paths: Sequence[str]) -> list[str]:
    listed = _run("git", "-C", str(ROOT), "ls-files", "-co", "--exclude-standard", "--", *paths).stdout
    return sorted(name for name in listed.splitlines() if not name.endswith(LEFT_OUT))


def shapes(scenario: str) -> tuple[str, ...]:
    """The paths whose files shape a scenario's converged lab: SHAPES and the scenario's own (its drills do not)."""
    return (*SHAPES, f"molecule/{scenario}")


def key(scenario: str, suite: str, env: Mapping[str, str]) -> str:
    """The snapshot key of a scenario's lab on a suite, for the environment of its runs (``env``)."""
    digest = hashlib.sha256(f"{scenario}\0{suite}\0".encode())
    for name in _files(shapes(scenario)):
        path = ROOT / name
        digest.update(name.encode() + b"\0")
        if path.is_symlink():
            digest.update(os.readlink(path).encode())
        elif path.is_file():
            digest.update(path.read_bytes())
    image = _run("docker", "image", "inspect", "-f", "{{.Id}}", f"gpucluster/lab:{suite}").stdout.strip()
    digest.update(image.encode())
    for name in sorted(name for name in env if name.startswith("GPUCLUSTER_LAB_") and name != "GPUCLUSTER_LAB_CACHE"):
        digest.update(f"{name}={env[name]}\0".encode())
    packages = sorted(
        f"{name}=={dist.version}"
        for dist in metadata.distributions()
        if (name := dist.metadata["Name"].lower().replace("_", "-")) in PACKAGES
    )
    digest.update("\n".join(packages).encode())
    return digest.hexdigest()[:16]


def host_variable(host: str) -> str:
    """The environment variable that names a scenario's platform's image (molecule/pilot/molecule.yml)."""
    return "GPUCLUSTER_LAB_IMAGE_" + host.upper().replace("-", "_")


def repository(host: str) -> str:
    return f"gpucluster/lab-snapshot-{host}"


def image(suite: str, host: str) -> str:
    """A host's snapshot image (the lab image's repository for a snapshot, its suite the tag, as the lab image's)."""
    return f"{repository(host)}:{suite}"


def ephemeral_directory(scenario: str, env: Mapping[str, str]) -> Path:
    """Molecule's ephemeral directory of a scenario: MOLECULE_EPHEMERAL_DIRECTORY, else Molecule's own choice for this
    checkout (~/.ansible/tmp/molecule.<checksum of the checkout's name>.<scenario>)."""
    if env.get("MOLECULE_EPHEMERAL_DIRECTORY"):
        return Path(env["MOLECULE_EPHEMERAL_DIRECTORY"])
    return Path.home() / ".ansible" / "tmp" / f"molecule.{checksum(ROOT.name, 4)}.{scenario}"


@dataclass(frozen=True)
class Lab:
    """A scenario's lab as the snapshot layer sees it."""

    scenario: str
    suite: str
    hosts: Sequence[str]
    volumes: Sequence[str]
    env: Mapping[str, str]  # the environment of the lab's Molecule runs

    @property
    def directory(self) -> Path:
        return SNAPSHOTS / f"{self.scenario}-{self.suite}"

    def restore_env(self) -> dict[str, str]:
        """The environment of the `molecule create` that makes the containers from the snapshot's images."""
        return {host_variable(host): repository(host) for host in self.hosts}


def usable(lab: Lab, current: str) -> dict[str, Any] | None:
    """The snapshot's meta.json when it can stand for a build now: under ``current`` (the key), young enough, whole."""
    try:
        meta: dict[str, Any] = json.loads((lab.directory / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if meta.get("key") != current or time.time() - float(meta.get("taken", 0)) > MAX_AGE_S:
        return None
    for host in lab.hosts:
        found = subprocess.run(["docker", "image", "inspect", image(lab.suite, host)], capture_output=True, check=False)
        if found.returncode != 0 or not (lab.directory / f"{host}.hosts").is_file():
            return None
    return meta


def _power_off(host: str, timeout: float = 180) -> None:
    """systemd's clean power-off in the container (the daemons save their state), waited for with a bound."""
    subprocess.run(["docker", "exec", host, "systemctl", "poweroff"], capture_output=True, timeout=60, check=False)
    deadline = time.monotonic() + timeout
    while _run("docker", "inspect", "-f", "{{.State.Running}}", host).stdout.strip() == "true":
        if time.monotonic() > deadline:
            raise RuntimeError(f"{host} did not power off within {timeout:.0f} s")
        time.sleep(1)


def _volume_tar(volume: str, directory: Path, suite: str, restore: bool) -> None:
    """A Docker volume to (or from) directory/<volume>.tar, through a container of the lab image."""
    script = "tar -C /volume -xpf /keep/{0}.tar" if restore else "tar -C /volume -cpf /keep/{0}.tar ."
    if restore:
        _run("docker", "volume", "create", volume)
    _run(
        "docker", "run", "--rm", "-v", f"{volume}:/volume", "-v", f"{directory}:/keep", "--entrypoint", "sh",
        f"gpucluster/lab:{suite}", "-c", script.format(volume),
    )  # fmt: skip


def save(lab: Lab, current: str, results: Mapping[str, Any]) -> None:
    """The lab's running containers powered off (side by side: a unit's stop timeout, 90 s, is the longest wait) and
    kept under ``current`` with the build's ``results``; the snapshot it replaces removed."""
    directory = lab.directory
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    for host in lab.hosts:
        (directory / f"{host}.hosts").write_text(_run("docker", "exec", host, "cat", "/etc/hosts").stdout)
    with ThreadPoolExecutor(len(lab.hosts)) as pool:
        list(pool.map(_power_off, lab.hosts))
        list(pool.map(partial(_commit, lab), lab.hosts))
    for volume in lab.volumes:
        _volume_tar(volume, directory, lab.suite, restore=False)
    with tarfile.open(directory / "ephemeral.tar", "w") as archive:
        archive.add(ephemeral_directory(lab.scenario, lab.env), arcname=".")
    meta = {"key": current, "taken": time.time(), "hosts": list(lab.hosts), "results": dict(results)}
    (directory / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    # the images of the snapshots this one replaced, no longer tagged
    subprocess.run(
        ["docker", "image", "prune", "-f", "--filter", f"label={LABEL}={lab.scenario}-{lab.suite}"],
        capture_output=True,
        check=False,
    )


def _commit(lab: Lab, host: str) -> None:
    _run("docker", "commit", "--change", f"LABEL {LABEL}={lab.scenario}-{lab.suite}", host, image(lab.suite, host))


def restore(lab: Lab, molecule: Callable[..., subprocess.CompletedProcess[str]], timeout: float = 300) -> None:
    """The snapshot's lab: volumes and ephemeral directory put back, containers created by Molecule from the
    snapshot's images (``molecule(*args, env=...)``: the lab's Molecule), /etc/hosts written back, every host booted
    (systemd running or degraded) within ``timeout`` seconds. The caller has destroyed the lab before."""
    for volume in lab.volumes:
        _volume_tar(volume, lab.directory, lab.suite, restore=True)
    ephemeral = ephemeral_directory(lab.scenario, lab.env)
    shutil.rmtree(ephemeral, ignore_errors=True)
    ephemeral.mkdir(parents=True)
    with tarfile.open(lab.directory / "ephemeral.tar") as archive:
        archive.extractall(ephemeral, filter="tar")
    # Molecule writes its state, its inventory and its links anew; the scenario's steps done are the snapshot's
    steps = _steps(ephemeral / "state.yml")
    for written in ("state.yml", "inventory/group_vars", "inventory/host_vars"):
        path = ephemeral / written
        if path.is_symlink() or path.is_file():
            path.unlink()
    created = molecule("create", "-s", lab.scenario, env=lab.restore_env())
    if created.returncode != 0:
        output = created.stdout[-3000:] + created.stderr[-2000:]
        raise RuntimeError(f"molecule create from the snapshot failed:\n{output}")
    _set_steps(ephemeral / "state.yml", steps)
    for host in lab.hosts:
        hosts_file = (lab.directory / f"{host}.hosts").read_text()
        _run("docker", "exec", "-i", host, "sh", "-c", "cat > /etc/hosts", stdin=hosts_file)
    deadline = time.monotonic() + timeout
    for host in lab.hosts:
        _booted(host, deadline)


def _steps(state: Path) -> dict[str, bool]:
    """Which of Molecule's steps of the scenario were done (prepared, converged) in a state file."""
    data = yaml.safe_load(state.read_text(encoding="utf-8")) if state.is_file() else None
    data = data if isinstance(data, dict) else {}
    return {step: bool(data.get(step)) for step in ("prepared", "converged")}


def _set_steps(state: Path, steps: Mapping[str, bool]) -> None:
    """The scenario's steps done, as the snapshot's lab had them (Molecule would otherwise run the scenario's prepare
    again on the restored containers before the next converge)."""
    data = yaml.safe_load(state.read_text(encoding="utf-8")) or {}
    data.update(steps)
    state.write_text("# Molecule managed\n\n---\n" + yaml.safe_dump(data, sort_keys=True), encoding="utf-8")


def _booted(host: str, deadline: float) -> None:
    """systemd in the container done booting (running, or degraded: a unit that fails in a container), by a bound."""
    last = ""
    while time.monotonic() < deadline:
        answer = subprocess.run(
            ["docker", "exec", host, "systemctl", "is-system-running", "--wait"],
            capture_output=True,
            text=True,
            timeout=max(deadline - time.monotonic(), 1),
            check=False,
        )
        last = answer.stdout.strip() or answer.stderr.strip()
        if last in ("running", "degraded"):
            return
        time.sleep(1)
    raise RuntimeError(f"{host} did not finish booting from its snapshot (systemd: {last!r})")
