"""The upgrade's gates: SchedMD's window decides which jumps go through, a refused jump names the release to
install first, no downgrade, and only hosts off the target are upgraded."""

from __future__ import annotations

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils import upgrade
from ansible_collections.gpucluster.cluster.plugins.module_utils.releases import Release
from ansible_collections.gpucluster.cluster.plugins.module_utils.upgrade import (
    hosts_to_upgrade,
    lagging_controllers,
    oldest_release,
    order_errors,
    release_of,
    upgrade_errors,
)


@pytest.mark.parametrize(
    ("version", "release"),
    [("24.11.5-4+deb13u1", Release(24, 11)), ("22.05.8-4+deb12u3", Release(22, 5)), ("1:26.05.5-1", Release(26, 5))],
)
def test_release_of_a_package_version(version: str, release: Release) -> None:
    assert release_of(version) == release
    assert release_of("garbage") is None


def test_the_release_left_is_the_oldest_installed() -> None:
    """Backups are named after it: on a run that resumes a conversion the dbd host runs the new release."""
    installed = {"dbd": "26.05.5-1", "ctl": "24.11.5-4+deb13u1", "login": "", "gpu": "1:24.11.6-1"}
    assert oldest_release(installed) == "24.11"
    assert oldest_release({"db": "", "odd": "garbage"}) == ""


def test_supported_jumps_pass() -> None:
    installed = {"ctl01": "24.11.5-4+deb13u1", "gpu01": "24.11.5-4+deb13u1", "nfs01": ""}
    assert upgrade_errors(installed, "26.05") == []
    assert hosts_to_upgrade(installed, "26.05") == ["ctl01", "gpu01"]
    assert hosts_to_upgrade({"ctl01": "26.05.5-1"}, "26.05") == []
    # 23.11's window is two releases: 22.05 (23.02, 23.11) is still within it.
    assert upgrade_errors({"ctl01": "22.05.8-4+deb12u3"}, "23.11") == []


def test_a_jump_slurm_does_not_support_names_the_release_to_go_through() -> None:
    (error,) = upgrade_errors({"ctl01": "22.05.8-4+deb12u3", "gpu01": "22.05.8-4+deb12u3"}, "24.11")
    assert error.startswith("ctl01, gpu01 run Slurm 22.05; 24.11 accepts only the three releases before it")
    assert "Upgrade through 23.11 first (cluster_slurm_release: '23.11'" in error
    assert "22.05 -> 23.11 -> 24.11" in error


def test_downgrade_and_unknown_releases_are_refused() -> None:
    errors = upgrade_errors({"ctl01": "26.05.5-1", "gpu01": "19.05.1-1"}, "24.11")
    assert errors[0].startswith("gpu01: Slurm 19.05.1-1 is not a release this project knows")
    assert "ctl01 run Slurm 26.05, newer than cluster_slurm_release 24.11: Slurm cannot be downgraded" in errors[1]
    assert upgrade_errors({}, "27.05") == [
        "cluster_slurm_release: '27.05' is not a Slurm release this project knows "
        "(22.05, 23.02, 23.11, 24.05, 24.11, 25.05, 25.11, 26.05)"
    ]


STEPS = [
    ("slurmdbd", ["dbd01"]),
    ("slurmctld", ["ctl01", "ctl02"]),
    ("slurmd", ["gpu01", "gpu02"]),
    ("login", ["login01"]),
]


@pytest.mark.parametrize(
    ("pending", "run_tags", "skip_tags"),
    [
        (["dbd01", "ctl01", "gpu01"], ["all"], []),  # the whole run
        (["gpu01", "gpu02"], ["slurmd"], []),  # the servers are on the target: slurmd alone is fine
        (["dbd01", "ctl01"], ["slurmdbd", "slurmctld"], []),  # the servers now, the nodes in a later window
        (["dbd01", "ctl01", "gpu01"], ["all"], ["login"]),  # a step with nothing to do may be skipped
        (["ctl01", "gpu01", "login01"], ["all"], ["slurmdbd"]),  # slurmdbd already up
    ],
)
def test_tags_that_keep_the_order_pass(pending: list[str], run_tags: list[str], skip_tags: list[str]) -> None:
    assert order_errors(pending, STEPS, run_tags, skip_tags) == []


def test_tags_that_upgrade_a_step_before_an_earlier_one_are_refused() -> None:
    (error,) = order_errors(["dbd01", "ctl01", "gpu01", "gpu02"], STEPS, ["slurmd"], [])
    assert error.startswith("the run upgrades slurmd on gpu01, gpu02 but its tags leave out slurmdbd (dbd01), ")
    assert "slurmctld (ctl01), still on the old release" in error
    errors = order_errors(["dbd01", "ctl01", "gpu01"], STEPS, ["all"], ["slurmdbd"])
    assert [e.split(" but ")[0] for e in errors] == [
        "the run upgrades slurmctld on ctl01",
        "the run upgrades slurmd on gpu01",
    ]


def test_no_tag_skips_the_backup_of_what_is_converted() -> None:
    steps = [("backup", ["dbd01", "ctl01"]), *STEPS]
    for run_tags, skip_tags in ((["slurmdbd"], []), (["all"], ["backup"])):
        errors = order_errors(["dbd01", "ctl01"], steps, run_tags, skip_tags)
        assert errors and errors[0].startswith("the run upgrades slurmdbd on dbd01 but its tags leave out backup:")
    assert order_errors(["dbd01", "ctl01"], steps, ["backup", "slurmdbd", "slurmctld"], []) == []
    assert order_errors(["gpu01"], steps, ["slurmd"], []) == []  # the servers are done: nothing to back up


def test_a_dump_is_trusted_only_whole_and_with_every_row_of_before() -> None:
    from ansible_collections.gpucluster.cluster.plugins.module_utils.upgrade import dump_errors

    tables = ["pilot_job_table", "pod2_job_table"]
    assert dump_errors("d.sql.gz", tables, [7, 3], [9, 3], True) == []
    assert dump_errors("d.sql.gz", tables, [7, 3], None, True) == []
    (cut,) = dump_errors("d.sql.gz", tables, [7, 3], None, False)
    assert "does not end with mysqldump's 'Dump completed' line" in cut
    (short,) = dump_errors("d.sql.gz", tables, [7, 3], [7, 0], True)
    assert "pod2_job_table holds 0 rows, the database held 3 before the dump" in short
    assert "holds 1 job tables, the database 2" in dump_errors("d.sql.gz", tables, [7, 3], [7], True)[0]


def test_a_controller_left_behind_a_pair_upgrade_is_named() -> None:
    """After a failure between the stop and the start: the controller still on the older release beside one on the
    target is banned; a pair on one release (old or new) bans nothing."""
    new, old = "26.05.1-1", "24.11.5-4+deb13u1"
    assert lagging_controllers({"ctl01": new, "ctl02": old}, "26.05") == ["ctl02"]
    assert lagging_controllers({"ctl01": old, "ctl02": new}, "26.05") == ["ctl01"]
    assert lagging_controllers({"ctl01": old, "ctl02": old}, "26.05") == []
    assert lagging_controllers({"ctl01": new, "ctl02": new}, "26.05") == []
    # slurmctld gone from one controller (a removal that failed half-way): it cannot run slurmctld either
    assert lagging_controllers({"ctl01": new, "ctl02": ""}, "26.05") == ["ctl02"]


def test_the_lagging_filter_reads_the_registered_loop_results() -> None:
    """The rescue's dpkg-query loop, as Ansible registers it (an unreachable controller has no stdout)."""
    from ansible_collections.gpucluster.cluster.plugins.filter.upgrade import slurm_upgrade_lagging

    results = [
        {"item": "ctl01", "stdout": "26.05.1-1", "rc": 0},
        {"item": "ctl02", "stdout": "24.11.5-4+deb13u1", "rc": 0},
    ]
    assert slurm_upgrade_lagging(results, "26.05") == ["ctl02"]
    assert slurm_upgrade_lagging([results[0], {"item": "ctl02", "unreachable": True}], "26.05") == ["ctl02"]
    assert slurm_upgrade_lagging([], "26.05") == []


def test_the_packages_built_from_slurms_source_are_pinned_to_the_target() -> None:
    installed = ["munge", "slurmd", "libslurm42", "slurm-wlm-basic-plugins", "libpmi0", "libpmi2-0", "libpmi2-0-dev"]
    # pam_slurm_adopt's package and its soname'd library (the new release's comes with it; the old one has no build
    # of the target: pinning it failed a rolling upgrade with "no available installation candidate")
    installed += ["libpam-slurm-adopt", "libpam-modules", "libslurm42t64", "libslurm-perl"]
    assert upgrade.source_packages(installed, "25.11") == [
        "slurmd=25.11.*",
        "slurm-wlm-basic-plugins=25.11.*",
        "libpmi0=25.11.*",
        "libpmi2-0=25.11.*",
        "libpam-slurm-adopt=25.11.*",
        "libslurm-perl=25.11.*",
    ]


@pytest.mark.parametrize(
    ("installed", "package"),
    [
        ({"slurmd", "slurm-client", "slurmctld"}, "slurmctld"),
        ({"slurmd", "slurm-client"}, "slurmd"),
        ({"slurmdbd", "slurmctld"}, "slurmdbd"),
        ({"slurm-client"}, "slurm-client"),
        (set(), "slurm-client"),
    ],
)
def test_a_hosts_release_is_read_from_its_daemons_package(installed: set[str], package: str) -> None:
    assert upgrade.release_package(installed) == package


def test_a_masked_slurmdbd_is_an_interrupted_conversion() -> None:
    units = {"db2": "masked\n", "db1": "masked", "db3": "enabled", "db4": ""}
    assert upgrade.interrupted_conversions(units) == ["db1", "db2"]


def test_the_upgrade_batch_is_a_count_or_a_percentage_and_the_waits_positive() -> None:
    from ansible_collections.gpucluster.cluster.plugins.filter.common import positive_settings_errors
    from ansible_collections.gpucluster.cluster.plugins.filter.upgrade import slurm_upgrade_batch_errors

    for batch in (4, "4", "25%", "100%", "1%"):
        assert slurm_upgrade_batch_errors(batch) == [], batch
    for batch in ("0%", "150%", "half", 0, True, "25 %"):
        (wrong,) = slurm_upgrade_batch_errors(batch)
        assert "is not a number of compute nodes (1 or more) nor a percentage of them" in wrong, batch
    assert positive_settings_errors({"slurm_nodes_drain_timeout": 3600, "x": "60"}) == []
    (zero, negative) = positive_settings_errors({"slurm_upgrade_gate_timeout": 0, "slurm_nodes_drain_timeout": -1})
    assert zero.startswith("slurm_upgrade_gate_timeout: 0 is not a whole number of seconds of 1 or more")
    assert negative.startswith("slurm_nodes_drain_timeout: -1 is not")
