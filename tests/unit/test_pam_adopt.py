"""pam_slurm_adopt on the compute nodes: who logs in without a job (pam_access's table), checked before any host is
touched, and the extern step it needs (PrologFlags=Contain) added by the model."""

from __future__ import annotations

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_cluster
from ansible_collections.gpucluster.cluster.plugins.module_utils.pam_adopt import access_lines, exempt_errors
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import cluster_config
from ansible_collections.gpucluster.cluster.plugins.module_utils.slurmconf import merged_settings

from .factory import valid_groups, valid_spec


def test_root_the_users_and_the_groups_pass_and_nobody_else() -> None:
    assert access_lines(["admin", "root", "admin"], ["sudo", "hpc-admins"]) == [
        "+:root admin (sudo) (hpc-admins):ALL",
        "-:ALL:ALL",
    ]
    assert access_lines([], []) == ["+:root:ALL", "-:ALL:ALL"]


@pytest.mark.parametrize(
    ("users", "groups", "message"),
    [
        (["ad min"], [], "slurm_pam_adopt_exempt_users: 'ad min' is not a user or group name"),
        ([], ["(sudo)"], "slurm_pam_adopt_exempt_groups: '(sudo)' is not a user or group name"),
        ("admin", [], "slurm_pam_adopt_exempt_users: give a list of names"),
        ([], [7], "slurm_pam_adopt_exempt_groups: 7 is not a user or group name"),
        (["ALL:ALL"], [], "'ALL:ALL' is not a user or group name"),
    ],
)
def test_a_name_pam_access_cannot_read_is_refused_by_variable(users: object, groups: object, message: str) -> None:
    errors = exempt_errors(users, groups)
    assert len(errors) == 1 and message in errors[0]
    with pytest.raises(ValueError, match=r"(is not a user or group name|give a list)"):
        access_lines(users, groups)


def test_adoption_adds_the_extern_step_and_is_off_by_default() -> None:
    spec = valid_spec()
    assert "PrologFlags" not in merged_settings(build_cluster(spec, valid_groups()))
    assert cluster_config(build_cluster(spec, valid_groups()))["pam_adopt"] is False
    spec["pam_adopt"] = "true"
    assert merged_settings(build_cluster(spec, valid_groups()))["PrologFlags"] == ["Contain"]
    assert cluster_config(build_cluster(spec, valid_groups()))["pam_adopt"] is True
    spec["job_scripts"] = {"prolog_flags": ["Alloc", "contain"]}
    assert merged_settings(build_cluster(spec, valid_groups()))["PrologFlags"] == ["Alloc", "contain"]
