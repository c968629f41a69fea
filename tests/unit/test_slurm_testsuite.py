"""lab/slurm_testsuite.py: finding Slurm's source in Debian's index, the cache by content, reading the suite's
junit reports and telling known failures from new ones."""

from __future__ import annotations

import hashlib
import io
import lzma
import tarfile
import tomllib
from pathlib import Path

import pytest

from lab import slurm_testsuite
from lab.slurm_testsuite import Outcome, Summary, parse_junit

ROOT = Path(__file__).resolve().parents[2]


def orig(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def index(sha256: str) -> bytes:
    stanzas = [
        "Package: slurm-drmaa\nDirectory: pool/main/s/slurm-drmaa\nChecksums-Sha256:\n"
        f" {'0' * 64} 10 slurm-drmaa_1.orig.tar.gz\n",
        "Package: slurm-wlm\nVersion: 24.11.5-4\nChecksums-Sha256:\n"
        f" {'1' * 64} 5075 slurm-wlm_24.11.5-4.dsc\n {sha256} 99 slurm-wlm_24.11.5.orig.tar.gz\n"
        "Directory: pool/main/s/slurm-wlm\n",
    ]
    return lzma.compress("\n".join(stanzas).encode())


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    monkeypatch.setattr(slurm_testsuite, "CACHE", tmp_path / "cache")
    tarball = orig(
        {
            "slurm-24.11.5/testsuite/python/conftest.py": "# conftest\n",
            "slurm-24.11.5/testsuite/python/tests/test_101_1.py": "def test_a(): pass\n",
            "slurm-24.11.5/src/slurmctld/controller.c": "int main(void);\n",
        }
    )
    base = slurm_testsuite.ARCHIVE
    return {
        f"{base}/dists/trixie/main/source/Sources.xz": index(hashlib.sha256(tarball).hexdigest()),
        f"{base}/pool/main/s/slurm-wlm/slurm-wlm_24.11.5.orig.tar.gz": tarball,
    }


def test_the_orig_tarball_of_slurm_wlm_is_found_in_the_index(archive: dict[str, bytes]) -> None:
    url, sha256 = slurm_testsuite.orig_tarball("trixie", archive.__getitem__)
    assert url.endswith("/pool/main/s/slurm-wlm/slurm-wlm_24.11.5.orig.tar.gz")
    assert sha256 == hashlib.sha256(archive[url]).hexdigest()


def test_the_suite_is_fetched_once_per_content(archive: dict[str, bytes]) -> None:
    fetched: list[str] = []

    def get(url: str) -> bytes:
        fetched.append(url)
        return archive[url]

    directory = slurm_testsuite.fetch("trixie", get)
    assert (directory / "python" / "tests" / "test_101_1.py").is_file()
    assert not (directory / "src").exists(), "only testsuite/python is kept"
    assert "SlurmConfigDir=/etc/slurm" in (directory / "testsuite.conf").read_text()
    assert slurm_testsuite.modules(directory) == ["test_101_1"]
    assert slurm_testsuite.fetch("trixie", get) == directory
    assert sum(url.endswith(".orig.tar.gz") for url in fetched) == 1


def test_a_tarball_that_is_not_the_indexed_one_is_refused(archive: dict[str, bytes]) -> None:
    url = next(url for url in archive if url.endswith(".orig.tar.gz"))
    archive[url] += b"tampered"
    with pytest.raises(ValueError, match="SHA-256"):
        slurm_testsuite.fetch("trixie", archive.__getitem__)


def test_no_slurm_in_the_index_is_said() -> None:
    with pytest.raises(LookupError, match="no slurm-wlm orig tarball in Debian sid"):
        slurm_testsuite.orig_tarball("sid", lambda _url: lzma.compress(b"Package: other\n"))


CASE = '<testcase classname="tests.test_116_1" name="{}" time="0.5">{}</testcase>'
JUNIT = (
    '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="4">'
    + CASE.format("test_ok", "")
    + CASE.format("test_bad", '<failure message="assert 1 == 2">trace</failure>')
    + CASE.format("test_broken", '<error message="failed on setup">x</error>')
    + CASE.format("test_more", '<skipped type="pytest.skip" message="This test requires 3 nodes"></skipped>')
    + "</testsuite></testsuites>"
)


def test_junit_reports_are_read_per_test() -> None:
    outcomes = parse_junit("test_116_1", JUNIT)
    assert [(o.test, o.result) for o in outcomes] == [
        ("test_116_1::test_ok", "passed"),
        ("test_116_1::test_bad", "failed"),
        ("test_116_1::test_broken", "error"),
        ("test_116_1::test_more", "skipped"),
    ]
    assert outcomes[1].message == "assert 1 == 2"


def test_only_failures_missing_from_the_table_are_unexplained() -> None:
    summary = Summary([*parse_junit("test_116_1", JUNIT), Outcome("test_9_9::test_x", "skipped", "requires 12 nodes")])
    known = {"test_116_1::test_bad": "the suite assumes a CR_CPU cluster"}
    assert [o.test for o in summary.unexplained(known)] == ["test_116_1::test_broken"]
    assert summary.counts() == {"passed": 1, "failed": 1, "error": 1, "skipped": 2}
    assert summary.skip_reasons() == {"This test requires N nodes": 1, "requires N nodes": 1}
    report = summary.report("24.11", known)
    assert "1 passed, 1 failed, 1 errors, 2 skipped" in report
    assert "test_116_1::test_bad (failed): the suite assumes a CR_CPU cluster" in report
    assert "test_116_1::test_broken (error): NOT IN THE TABLE: failed on setup" in report
    assert summary.stale({"test_116_1::test_ok": "x", "test_116_1::test_bad": "y"}) == ["test_116_1::test_ok"]
    # the floor counts the passes of tests the table does not list (a listed one may pass or not)
    assert summary.passed_outside(known) == 1
    assert summary.passed_outside({"test_116_1::test_ok": "the machine's load"}) == 0


def test_a_deselected_test_is_left_out_of_its_own_module_only() -> None:
    deselect = ["test_112_1::test_invalid_input"]
    command = slurm_testsuite.module_command("/home/s", "test_112_1", "/home/s/results", 120, deselect)
    assert "--deselect tests/test_112_1.py::test_invalid_input tests/test_112_1.py" in command
    other = slurm_testsuite.module_command("/home/s", "test_112_2", "/home/s/results", 120, deselect)
    assert "--deselect" not in other


def test_every_test_not_run_is_a_known_failure() -> None:
    table = tomllib.loads((ROOT / "tests" / "lab" / "slurm_testsuite_known.toml").read_text(encoding="utf-8"))
    for release, entry in table["release"].items():
        assert set(entry.get("deselect", [])) <= set(entry["known"]), release
