"""The common role's tier-1 check: the service users' uids and the host certificates' lifetime."""

from __future__ import annotations

from ansible_collections.gpucluster.cluster.plugins.filter.common import common_settings_errors

UIDS = {"common_slurm_uid": 64030, "common_munge_uid": 64031}


def test_the_defaults_pass() -> None:
    assert common_settings_errors(UIDS, 825, 30) == []
    assert common_settings_errors({"common_slurm_uid": "64030", "common_munge_uid": "64031"}, "825", "30") == []


def test_two_service_users_with_one_uid_are_refused() -> None:
    """One account would own the other's files: the slurm user could read the MUNGE key."""
    assert common_settings_errors({"common_slurm_uid": 990, "common_munge_uid": 990}, 825, 30) == [
        "common_munge_uid: 990 is common_slurm_uid too; each service user needs its own uid and gid"
    ]
    assert common_settings_errors({**UIDS, "common_munge_uid": 0}, 825, 30) == [
        "common_munge_uid: 0 is not a uid; give a whole number above 0 (Debian's slurm is 64030)"
    ]


def test_a_certificate_renewed_before_it_was_issued_is_refused() -> None:
    """renew_days at or above days: every run would sign a new certificate and restart its services."""
    (error,) = common_settings_errors(UIDS, 30, 60)
    assert error.startswith("common_tls_renew_days: 60 is not a number of days below common_tls_days (30)"), error
    assert common_settings_errors(UIDS, -1, 30) == [
        "common_tls_days: -1 is not a number of days a certificate lasts (825 by default)"
    ]
