"""packages_missing: which of a task's packages a host lacks, from the common role's one query per run."""

from __future__ import annotations

from ansible_collections.gpucluster.cluster.plugins.filter.packages import packages_missing

LISTING = (
    "ii  munge 0.5.16-1\n"
    "hi  nvidia-smi 550.163.01-2\n"
    "rc  slurmctld 24.11.5-1\n"  # removed, its configuration files kept
    "iF  slurmd 24.11.5-1\n"  # half-configured: apt must finish it
    "ii  libc6:amd64 2.41-12\n"
)


def test_installed_packages_are_not_missing() -> None:
    assert packages_missing(["munge", "nvidia-smi"], {"stdout": LISTING}) == []
    assert packages_missing("munge", LISTING) == []
    assert packages_missing("libc6", LISTING) == [] and packages_missing("libc6:amd64", LISTING) == []


def test_removed_half_installed_and_unknown_packages_are_missing() -> None:
    assert packages_missing(["slurmctld", "slurmd", "nfs-common", "munge"], {"stdout": LISTING}) == [
        "slurmctld",
        "slurmd",
        "nfs-common",
    ]


def test_a_version_glob_must_match_the_installed_version() -> None:
    assert packages_missing(["nvidia-smi=550.*"], LISTING) == []
    assert packages_missing(["nvidia-smi=535.*", "munge=0.5.16-1"], LISTING) == ["nvidia-smi=535.*"]


def test_without_the_query_every_package_counts_as_missing() -> None:
    """A role run on its own, or the query skipped: the task runs as it would without the query."""
    for unknown in (None, "", {}, {"skipped": True}, {"stdout": ""}):
        assert packages_missing(["munge", "slurmd"], unknown) == ["munge", "slurmd"]


def test_what_is_not_a_package_name_is_never_taken_for_installed() -> None:
    """A .deb path, a name pattern or another version operator: the package manager decides, not the query."""
    assert packages_missing(["/tmp/munge.deb", "munge*", "munge>=0.5"], LISTING) == [
        "/tmp/munge.deb",
        "munge*",
        "munge>=0.5",
    ]
