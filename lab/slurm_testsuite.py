"""Slurm's own test suite (testsuite/python of the upstream source, SchedMD's ATF) against a lab cluster.

Debian's archive serves the upstream source as the orig tarball of the slurm-wlm source package; it is fetched
once per content (the archive index's SHA-256 names the cache entry, build/cache/slurm-testsuite/) and its
testsuite/python runs in local-config mode (it changes no configuration and restarts nothing) as a user of the
lab, one pytest per test module (an aged-out job of one module would fail every later module's teardown),
with a time limit per test and per module, from a directory of the lab's shared /home (the suite's jobs and
the steps it runs as the slurm user change into it).

    python -m lab.slurm_testsuite fetch SUITE     download (cached) and print the suite's directory

tests/lab/test_pilot_lab.py runs it; known failures, each with its reason, are in
tests/lab/slurm_testsuite_known.toml."""

from __future__ import annotations

import hashlib
import lzma
import re
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARCHIVE = "https://deb.debian.org/debian"
CACHE = ROOT / "build" / "cache" / "slurm-testsuite"
PACKAGES = ("python3-pytest", "python3-pytest-timeout", "python3-pexpect", "python3-requests")
TESTSUITE_CONF = "SlurmInstallDir=/usr\nSlurmConfigDir=/etc/slurm\n"


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as response:
        data: bytes = response.read()
    return data


def orig_tarball(suite: str, get: Callable[[str], bytes] = _get) -> tuple[str, str]:
    """The URL and SHA-256 of slurm-wlm's orig tarball in Debian ``suite``'s source index."""
    sources = lzma.decompress(get(f"{ARCHIVE}/dists/{suite}/main/source/Sources.xz")).decode()
    for stanza in sources.split("\n\n"):
        if re.search(r"^Package: slurm-wlm$", stanza, re.M):
            directory = re.search(r"^Directory: (\S+)$", stanza, re.M)
            checksums = stanza.split("Checksums-Sha256:", 1)[-1]
            found = re.search(r"^ ([0-9a-f]{64}) \d+ (slurm-wlm_[^ ]+\.orig\.tar\.\w+)$", checksums, re.M)
            if directory and found:
                return f"{ARCHIVE}/{directory.group(1)}/{found.group(2)}", found.group(1)
    raise LookupError(f"no slurm-wlm orig tarball in Debian {suite}'s source index")


def fetch(suite: str, get: Callable[[str], bytes] = _get) -> Path:
    """testsuite/python of the Slurm source Debian ``suite`` ships, downloaded once per content."""
    url, sha256 = orig_tarball(suite, get)
    directory = CACHE / sha256
    if (directory / "python" / "conftest.py").is_file():
        return directory
    data = get(url)
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ValueError(f"{url}: its SHA-256 is not the one Debian's index gives ({sha256})")
    scratch = CACHE / f"{sha256}.partial"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    tarball = scratch / "orig.tar"
    tarball.write_bytes(data)
    with tarfile.open(tarball) as archive:
        members = [m for m in archive.getmembers() if "/testsuite/python/" in f"/{m.name}/" and m.isreg()]
        for member in members:
            member.name = "python/" + member.name.split("/testsuite/python/", 1)[1]
        archive.extractall(scratch, members=members, filter="data")
    tarball.unlink()
    (scratch / "testsuite.conf").write_text(TESTSUITE_CONF, encoding="utf-8")
    shutil.rmtree(directory, ignore_errors=True)
    scratch.rename(directory)
    return directory


@dataclass
class Outcome:
    """One test of the suite: 'passed', 'failed', 'error' or 'skipped', with the message of the last three."""

    test: str
    result: str
    message: str = ""


@dataclass
class Summary:
    outcomes: list[Outcome] = field(default_factory=list)

    def counts(self) -> Counter[str]:
        return Counter(outcome.result for outcome in self.outcomes)

    def failures(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if outcome.result in ("failed", "error")]

    def skip_reasons(self) -> Counter[str]:
        return Counter(_reason(o.message) for o in self.outcomes if o.result == "skipped")

    def unexplained(self, known: Iterable[str]) -> list[Outcome]:
        """Failures that the table of known ones does not list."""
        listed = set(known)
        return [outcome for outcome in self.failures() if outcome.test not in listed]

    def passed_outside(self, known: Iterable[str]) -> int:
        """Passes of the tests the table does not list: the floor (passed_at_least) counts these, so that a listed
        test whose outcome depends on the machine's load neither raises nor lowers it."""
        listed = set(known)
        return sum(1 for outcome in self.outcomes if outcome.result == "passed" and outcome.test not in listed)

    def stale(self, known: Iterable[str]) -> list[str]:
        """Tests the table lists as failing that passed: their line can go, and passed_at_least up."""
        passed = {outcome.test for outcome in self.outcomes if outcome.result == "passed"}
        return sorted(test for test in known if test in passed)

    def report(self, release: str, known: dict[str, str]) -> str:
        counts = self.counts()
        lines = [
            f"Slurm {release} test suite on the pilot lab: {counts['passed']} passed, {counts['failed']} failed, "
            f"{counts['error']} errors, {counts['skipped']} skipped",
            "failures:",
        ]
        for outcome in self.failures():
            why = known.get(outcome.test, "NOT IN THE TABLE: " + outcome.message[:300])
            lines.append(f"  {outcome.test} ({outcome.result}): {why}")
        lines += [f"  listed as failing, passed now (remove its line): {test}" for test in self.stale(known)]
        lines.append("skipped, by reason:")
        lines += [f"  {count:4d} {reason}" for reason, count in self.skip_reasons().most_common()]
        return "\n".join(lines)


def _reason(message: str) -> str:
    """A skip message without the test's own figures (node counts, paths), so that reasons group."""
    text = message.split("\n", 1)[0].strip()
    text = re.sub(r"^Skipped: ", "", text)
    return re.sub(r"\d+", "N", text)[:160]


def parse_junit(module: str, xml_text: str) -> list[Outcome]:
    """The outcomes of one module's junit XML (pytest --junitxml), named module::test."""
    outcomes = []
    for case in ET.fromstring(xml_text).iter("testcase"):
        test = f"{module}::{case.get('name')}"
        result, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                result = {"failure": "failed"}.get(child.tag, child.tag)
                message = child.get("message") or (child.text or "")
                break
        outcomes.append(Outcome(test, result, message.strip()))
    return outcomes


def module_command(directory: str, module: str, results: str, test_limit: int, deselect: Iterable[str] = ()) -> str:
    """The shell command that runs one module as the lab user, in local-config mode; ``deselect``: tests
    (``module::test``) of the module not to run."""
    mine = (test.split("::", 1)[1] for test in deselect if test.startswith(f"{module}::"))
    skipped = "".join(f"--deselect tests/{module}.py::{test} " for test in mine)
    return (
        f"cd {directory}/python && SLURM_TESTSUITE_CONF={directory}/testsuite.conf "
        f"python3 -m pytest -p no:cacheprovider --local-config --no-color -q -o junit_family=xunit2 "
        f"--timeout={test_limit} --basetemp={results}/tmp/{module} --junitxml={results}/{module}.xml "
        f"{skipped}tests/{module}.py >{results}/{module}.log 2>&1"
    )


def modules(directory: Path) -> list[str]:
    return sorted(path.stem for path in (directory / "python" / "tests").glob("test_*.py"))


def _docker(*args: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, check=False)


SUDOERS = "/etc/sudoers.d/slurm-testsuite"


def install(host: str, user: str, directory: Path, target: str) -> None:
    """The suite and what it imports on ``host`` at ``target``, a directory of the shared /home that ``user``
    owns and the slurm user may enter (steps the suite runs as SlurmUser change into it); ``user`` gets
    passwordless sudo, which the suite's tests of the slurm user's and root's commands need (run() takes it back)."""
    packages = " ".join(PACKAGES)
    setup = _docker(
        "exec", host, "bash", "-c",
        "apt-get update -qq -o Acquire::Retries=3 >/dev/null && DEBIAN_FRONTEND=noninteractive "
        f"apt-get install -y -qq --no-install-recommends {packages} >/dev/null",
    )  # fmt: skip
    if setup.returncode != 0:
        raise RuntimeError(f"{host}: installing {packages}: {setup.stdout}{setup.stderr}")
    for command in (
        ["exec", host, "rm", "-rf", target],
        ["cp", str(directory), f"{host}:{target}"],
        [
            "exec",
            host,
            "bash",
            "-c",
            f"mkdir -p {target}/results/tmp && chown -R {user}: {target} && chmod 0755 {target}",
        ],
        ["exec", host, "bash", "-c", f"echo '{user} ALL=(ALL) NOPASSWD: ALL' > {SUDOERS} && chmod 0440 {SUDOERS}"],
    ):
        done = _docker(*command)
        if done.returncode != 0:
            raise RuntimeError(f"docker {' '.join(command)}: {done.stdout}{done.stderr}")


def run(
    host: str,
    user: str,
    directory: Path,
    *,
    target: str = "/home/slurm-testsuite",
    test_limit: int = 120,
    module_limit: int = 600,
    deselect: Iterable[str] = (),
) -> tuple[Summary, dict[str, float]]:
    """Every module of the suite at ``directory`` as ``user`` on ``host``, one pytest each, less the tests named in
    ``deselect`` (``module::test``); the summary and each module's seconds (a module past ``module_limit`` is one
    error)."""
    install(host, user, directory, target)
    results = f"{target}/results"
    summary, seconds = Summary(), {}
    try:
        for module in modules(directory):
            start = time.monotonic()
            command = module_command(target, module, results, test_limit, deselect)
            try:
                _docker("exec", "-u", user, "-w", target, host, "bash", "-c", command, timeout=module_limit)
            except subprocess.TimeoutExpired:
                _docker("exec", host, "pkill", "-u", user, "-f", f"tests/{module}.py")
                summary.outcomes.append(Outcome(f"{module}::*", "error", f"the module ran past {module_limit} s"))
                continue
            finally:
                seconds[module] = time.monotonic() - start
            xml = _docker("exec", host, "cat", f"{results}/{module}.xml")
            if xml.returncode != 0 or not xml.stdout.strip():
                log = _docker("exec", host, "tail", "-n", "20", f"{results}/{module}.log").stdout
                summary.outcomes.append(Outcome(f"{module}::*", "error", f"no junit report: {log}"))
                continue
            summary.outcomes += parse_junit(module, xml.stdout)
    finally:
        _docker("exec", host, "rm", "-f", SUDOERS)
    return summary, seconds


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "fetch":
        print(fetch(argv[1]))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
