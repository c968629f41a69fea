"""packages_missing: which of a task's packages a host lacks, from the common role's one query per run;
installed_packages: the same query in package_facts' shape, for the roles that read versions."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.packages import (
    installed_packages,
    package_query,
    packages_missing,
    packages_unselected,
)
from ansible_collections.gpucluster.cluster.plugins.module_utils.modulefiles import modulefiles

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


def test_installed_packages_take_package_facts_shape_with_only_what_is_installed() -> None:
    assert installed_packages({"stdout": LISTING}) == {
        "munge": [{"name": "munge", "version": "0.5.16-1"}],
        "nvidia-smi": [{"name": "nvidia-smi", "version": "550.163.01-2"}],
        "libc6": [{"name": "libc6", "version": "2.41-12"}],
    }
    for unknown in (None, "", {"skipped": True}):
        assert installed_packages(unknown) == {}


def test_the_modulefiles_read_the_query_as_they_read_package_facts() -> None:
    listing = "ii  python3 3.13.5-1\nii  python3-torch 2.6.0+dfsg-7\nii  libnccl2 2.21.5-1\n"
    facts = {
        "python3": [{"name": "python3", "version": "3.13.5-1", "arch": "amd64", "source": "apt"}],
        "python3-torch": [{"name": "python3-torch", "version": "2.6.0+dfsg-7", "arch": "amd64", "source": "apt"}],
        "libnccl2": [{"name": "libnccl2", "version": "2.21.5-1", "arch": "amd64", "source": "apt"}],
    }
    assert modulefiles(installed_packages(listing)) == modulefiles(facts) != []


def test_the_query_is_the_family_s_and_debian_s_elsewhere() -> None:
    assert package_query("RedHat")[0] == "rpm"
    assert package_query("Suse") == package_query("Debian") and package_query("Debian")[0] == "dpkg-query"
    package_query("Debian").append("x")  # a copy: the caller cannot change the next host's query
    assert package_query("Debian")[-1].endswith("\n")  # one package a line


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="dpkg-query: not a Debian machine")
def test_the_query_runs_on_this_debian_machine_and_finds_dpkg_itself() -> None:
    listing = subprocess.run(package_query("Debian"), capture_output=True, text=True, check=True).stdout
    assert installed_packages(listing)["dpkg"][0]["version"]
    assert packages_missing(["dpkg", "no-such-package-here"], listing) == ["no-such-package-here"]


def test_packages_already_held_are_left_out_of_the_hold() -> None:
    listing = "hi nvidia-driver 550.1\nii libcuda1 550.1\nhi firmware-nvidia-gsp:amd64 550.1\nun nvidia-smi <none>\n"
    wanted = ["nvidia-driver", "libcuda1", "firmware-nvidia-gsp", "nvidia-smi", "nvidia-kernel-dkms"]
    assert packages_unselected(wanted, "hold", {"stdout": listing}) == ["libcuda1", "nvidia-smi", "nvidia-kernel-dkms"]
    assert packages_unselected(wanted, "install", listing) == [
        "nvidia-driver",
        "firmware-nvidia-gsp",
        "nvidia-smi",
        "nvidia-kernel-dkms",
    ]
    # without the query (a role run alone) every package is handed to the module, as before
    assert packages_unselected(wanted, "hold", None) == wanted
    assert packages_unselected(wanted, "hold", {"skipped": True}) == wanted
