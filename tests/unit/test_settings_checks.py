"""Settings that stopped a daemon or a backup after the hosts were changed, refused before any host is touched:
backup timers (calendar, directory, how many to keep), slurmdbd's purge settings, MariaDB's sizes, cgroup.conf."""

from __future__ import annotations

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.accounting import accounting_settings_errors
from ansible_collections.gpucluster.cluster.plugins.filter.backups import backup_settings_errors
from ansible_collections.gpucluster.cluster.plugins.module_utils.backups import calendar_error
from ansible_collections.gpucluster.cluster.plugins.module_utils.slurm_keys import (
    cgroup_errors,
    number_form,
    option_errors,
    purge_errors,
    value_error,
)


@pytest.mark.parametrize(
    "spec",
    ["daily", "hourly", "*-*-* 02:30:00", "Mon..Fri 03:00", "Mon,Wed *-*-* 04:00 UTC", "*:0/15", "Sat *-*-1..7 18:00"],
)
def test_systemd_calendar_expressions_pass(spec: str) -> None:
    assert calendar_error(spec) == ""


@pytest.mark.parametrize("spec", ["every day", "hourly!", "", "at 3am"])
def test_what_systemd_cannot_read_is_refused(spec: str) -> None:
    assert "is not a systemd calendar expression" in calendar_error(spec)


def test_a_backup_timer_keeps_at_least_one_backup_in_an_absolute_directory() -> None:
    assert backup_settings_errors("accounting_backup", "daily", "/var/backups/x", 7) == []
    assert backup_settings_errors("slurm_state_backup", "hourly", "backups", 0) == [
        "slurm_state_backup_dir: 'backups' is not an absolute path",
        "slurm_state_backup_keep: 0 is not a number of backups to keep of 1 or more; 0 would delete each one as soon "
        "as it is made",
    ]
    assert backup_settings_errors("accounting_backup", "daily", "/x", True) != []


def test_purge_keys_and_retentions_slurmdbd_reads() -> None:
    fine = {"PurgeJobAfter": "12month", "PurgeStepAfter": "30days", "PurgeEventAfter": 6, "PurgeTXNAfter": ""}
    assert purge_errors(fine, "24.11") == []
    assert purge_errors({"PurgeJobAfter": "12 months"}, "24.11") == [
        "accounting_purge.PurgeJobAfter: '12 months' is not a retention slurmdbd reads; give months (12, or "
        "12month), or hours or days with the unit right after the number (720hours, 30days)"
    ]
    (error,) = purge_errors({"PurgeJobsAfter": "12"}, "24.11")
    assert "PurgeJobsAfter is not a slurmdbd.conf key of Slurm 24.11 (slurmdbd stops" in error, error
    assert "did you mean PurgeJobAfter?" in error
    # the Archive switches: yes or no as slurmdbd reads them; a directory and a script are paths
    archived = {"ArchiveJobs": "yes", "ArchiveSteps": True, "ArchiveEvents": "No", "ArchiveDir": "/srv/archive"}
    assert purge_errors(archived, "24.11") == []
    assert purge_errors({"ArchiveJobs": "maybe"}, "24.11") == [
        "accounting_purge.ArchiveJobs: 'maybe' is not yes or no (slurmdbd stops on it)"
    ]


def test_mariadb_sizes() -> None:
    sizes = {"accounting_innodb_buffer_pool_size": "4G", "accounting_max_allowed_packet": "16M"}
    assert accounting_settings_errors({}, sizes) == []
    assert accounting_settings_errors({}, {"accounting_innodb_buffer_pool_size": "4 GB"}) == [
        "accounting_innodb_buffer_pool_size: '4 GB' is not a size MariaDB reads; write a number with K, M, G or T (4G)"
    ]


def test_cgroup_conf_keys_and_values_slurm_reads() -> None:
    fine = {"ConstrainCores": True, "constrainramspace": "yes", "AllowedRAMSpace": 98, "MaxRAMPercent": "99.5"}
    assert cgroup_errors(fine, "24.11") == []
    assert cgroup_errors({"AllowedRAMSpace": "lots", "ConstrainDevices": "maybe"}, "24.11") == [
        "slurm_cgroup_config.AllowedRAMSpace: 'lots' is not a number (slurmd stops on it)",
        "slurm_cgroup_config.ConstrainDevices: 'maybe' is not yes or no (true or false)",
    ]
    (error,) = cgroup_errors({"ConstrainDevicez": True}, "24.11")
    assert "did you mean ConstrainDevices?" in error and "see cgroup.conf(5)" in error
    assert cgroup_errors(["ConstrainCores"], "24.11") != []


@pytest.mark.parametrize(
    ("value", "form"),
    [
        *[(300, ""), ("300", ""), (-1, "negative"), ("1.5", "decimal"), ("30s", "unit"), ("5 min", "unit")],
        *[("100k", "kilo"), ("unlimited", "unlimited"), ("INFINITE", "infinite"), ("abc", "word"), (True, "word")],
    ],
)
def test_a_values_form_as_the_release_data_names_it(value: object, form: str) -> None:
    assert number_form(value) == form


def test_slurm_conf_values_the_releases_parser_refuses() -> None:
    """What scripts/slurm_release_data.py saw each release's parser do (tests/integration/test_slurm_words_slurmctld
    _reads.py sets it beside slurmctld): numbers without units, no negatives, UNLIMITED where the key takes it, k
    where it multiplies, yes/no words; a release without data refuses only what every release refuses."""
    assert "a number with a unit" in value_error("MessageTimeout", "30s", "24.11")
    assert '("is less than zero")' in value_error("ReturnToService", -1, "22.05")
    assert "the word UNLIMITED" in value_error("FirstJobId", "UNLIMITED", "26.05")
    assert "is not yes or no" in value_error("UsePAM", "maybe", "24.11")
    for key, value in [("MessageTimeout", 60), ("MaxJobCount", "100k"), ("MinJobAge", "UNLIMITED"), ("UsePAM", True)]:
        assert value_error(key, value, "24.11") == "", key
    assert value_error("SchedulerParameters", "bf_continue", "24.11") == ""
    assert "a word" in value_error("SlurmdTimeout", "five", "25.05")


def test_options_of_the_parameters_keys_each_release_reads() -> None:
    """SchedulerParameters, SlurmctldParameters ... are looked for option by option (xstrcasestr); one the release does
    not read is passed over without a word: refused, with the option meant where one is close. The documented options
    come from each release's slurm.conf(5), older names Slurm still reads are kept, a retired one slurmctld stops at
    is named with its successor; a release without data refuses only what no release reads."""
    where = "cluster_scheduling.scheduler_parameters"
    ok = ["bf_continue", "bf_window=4320", "BF_MAX_JOB_TEST=1000", "Ignore_NUMA", "whole_pack", "defer", ""]
    for release in ("22.05", "24.11", "26.05", "25.05"):
        assert option_errors(where, "SchedulerParameters", ok, release) == [], release
    (typo,) = option_errors(where, "SchedulerParameters", ["bf_contine"], "24.11")
    assert "bf_contine is not a SchedulerParameters option of Slurm 24.11" in typo
    assert "without a word" in typo and "did you mean bf_continue?" in typo
    (newer,) = option_errors(where, "SchedulerParameters", "bf_continue,bf_allow_magnetic_slot", "22.05")
    assert "Slurm 22.05 has no SchedulerParameters option bf_allow_magnetic_slot (Slurm 24.11, 26.05 has it)" in newer
    (gone,) = option_errors(where, "SchedulerParameters", "enable_job_state_cache", "26.05")  # (removed in 26.05)
    assert "Slurm 26.05 has no SchedulerParameters option enable_job_state_cache (Slurm 24.11 has it)" in gone
    (retired,) = option_errors(where, "schedulerparameters", "max_job_bf=50", "26.05")
    assert "slurmctld stops at it" in retired and "use bf_max_job_test" in retired
    assert option_errors("x", "SlurmctldParameters", "enable_configless,idle_on_node_suspend", "24.11") == []
    assert "enable_configles is not a SlurmctldParameters option" in "".join(
        option_errors("x", "SlurmctldParameters", "enable_configles", "24.11")
    )
    assert option_errors("x", "CommunicationParameters", "NoInAddrAny,keepalivetime=30", "22.05") == []
    assert option_errors("x", "SlurmdParameters", "shutdown_on_reboot,config_overrides", "26.05") == []
    assert option_errors("x", "MessageTimeout", "whatever", "24.11") == []


def test_each_database_service_has_a_user_of_its_own_and_none_of_mariadbs() -> None:
    users = {"accounting_db_user": "slurm", "galera_sst_user": "galera_sst", "monitoring_mysqld_exporter_db_user": "x"}
    assert accounting_settings_errors({}, {}, "24.11", "db-secret-0123456789", db_users=users) == []
    (root,) = accounting_settings_errors(
        {}, {}, "24.11", "db-secret-0123456789", db_users=users | {"galera_sst_user": "root"}
    )
    assert "galera_sst_user: 'root' is one of MariaDB's own accounts" in root
    (twice,) = accounting_settings_errors(
        {}, {}, "24.11", "db-secret-0123456789", db_users=users | {"monitoring_mysqld_exporter_db_user": "slurm"}
    )
    assert "monitoring_mysqld_exporter_db_user: 'slurm' is also accounting_db_user" in twice
    assert (
        accounting_settings_errors({}, {}, "24.11", "db-secret-0123456789", db_users=users | {"galera_sst_user": ""})
        == []
    )


def test_an_option_of_another_parameters_key_is_named_with_its_key() -> None:
    """kill_invalid_depend moved from SchedulerParameters to DependencyParameters (20.02): 22.05 and later read it
    only there and pass over it in SchedulerParameters."""
    (moved,) = option_errors(
        "cluster_scheduling.scheduler_parameters", "SchedulerParameters", ["kill_invalid_depend"], "24.11"
    )
    assert "kill_invalid_depend is a DependencyParameters option in Slurm 24.11, not a SchedulerParameters one" in moved
    assert "set it in cluster_slurm_config's DependencyParameters" in moved
    assert option_errors("x", "DependencyParameters", "kill_invalid_depend,max_depend_depth=20", "22.05") == []
