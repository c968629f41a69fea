"""Which archive of StateSaveLocation a restore takes."""

from __future__ import annotations

from ansible_collections.gpucluster.cluster.plugins.filter.backups import slurm_state_archive

OLD = {"path": "/b/slurmctld-state-20261101T000000Z.tar.gz", "mtime": 100.0}
NEW = {"path": "/b/slurmctld-state-20261102T000000Z.tar.gz", "mtime": 200.0}


def test_the_newest_archive_of_the_pair_wins_wherever_it_is() -> None:
    """The timer archives where slurmctld runs: after a failover the newest is on the other controller."""
    found = {"ctl01": {"files": [OLD]}, "ctl02": {"files": [NEW]}}
    assert slurm_state_archive(found) == {"host": "ctl02", "path": NEW["path"]}
    assert slurm_state_archive({"ctl01": {"files": [NEW, OLD]}}) == {"host": "ctl01", "path": NEW["path"]}


def test_a_named_archive_is_taken_from_the_controller_that_holds_it() -> None:
    found = {"ctl01": {"files": [OLD]}, "ctl02": {"files": [NEW]}}
    assert slurm_state_archive(found, OLD["path"]) == {"host": "ctl01", "path": OLD["path"]}
    assert slurm_state_archive(found, "/elsewhere.tar.gz") == {
        "error": "no archive /elsewhere.tar.gz on ctl01 or ctl02"
    }


def test_no_archive_is_an_error_naming_the_controllers() -> None:
    assert slurm_state_archive({"ctl01": {"files": []}, "ctl02": {}}) == {
        "error": "no archive of StateSaveLocation on ctl01 or ctl02"
    }
    assert slurm_state_archive({"ctl01": None}) == {"error": "no archive of StateSaveLocation on ctl01"}


def test_backups_are_kept_outside_what_they_are_of() -> None:
    """A restore empties StateSaveLocation, a Galera state transfer replaces the data directory: backups inside
    would go with it."""
    from ansible_collections.gpucluster.cluster.plugins.filter.backups import backup_settings_errors

    state = {"StateSaveLocation": "/srv/slurmctld/"}
    assert backup_settings_errors("slurm_state_backup", "daily", "/var/backups/gpucluster/slurmctld", 7, state) == []
    assert backup_settings_errors("slurm_state_backup", "daily", "/srv/slurmctld-backups", 7, state) == []
    assert backup_settings_errors("slurm_state_backup", "daily", "/srv/slurmctld/backups", 7, state) == [
        "slurm_state_backup_dir: /srv/slurmctld/backups is inside StateSaveLocation (/srv/slurmctld/), which the "
        "backups are of; a restore or state transfer that replaces it would take the backups with it - keep them "
        "beside it (the default)"
    ]


def test_backups_are_kept_off_the_directories_the_system_empties() -> None:
    from ansible_collections.gpucluster.cluster.plugins.module_utils.backups import settings_errors

    for directory in ("/tmp/backups", "/var/tmp", "/run/gpucluster", "/dev/shm/x"):
        (error,) = settings_errors(("x_calendar", "daily"), ("x_dir", directory), ("x_keep", 7))
        assert "which the system empties" in error, directory
    assert settings_errors(("x_calendar", "daily"), ("x_dir", "/var/backups/x"), ("x_keep", 7)) == []
    assert settings_errors(("x_calendar", "daily"), ("x_dir", "/tmpfiles/x"), ("x_keep", 7)) == []
