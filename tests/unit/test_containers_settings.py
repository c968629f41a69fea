"""The containers role's settings written into oci.conf and enroot.conf, checked before any host is touched."""

from __future__ import annotations

from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.containers import containers_errors

ROLE_SETTINGS = {
    "oci_extra": {},
    "enroot_config": {},
    "oci_runtime": "crun",
    "oci_state_dir": "/run/slurm-oci",
    "enroot": False,
    "enroot_defaults": {"ENROOT_RUNTIME_PATH": "/run/enroot/user-$(id -u)"},
    "job_scripts": {},
}


def errors(**settings: Any) -> list[str]:
    return containers_errors(ROLE_SETTINGS | settings)


def test_the_documented_examples_are_accepted() -> None:
    assert errors() == []
    assert errors(oci_extra={"DisableHooks": "nvidia", "CreateEnvFile": "newline", "DebugFlags": 0}) == []
    assert errors(enroot_config={"ENROOT_MAX_PROCESSORS": 32, "ENROOT_RUNTIME_PATH": "/run/enroot/user-$(id -u)"}) == []


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"enroot_config": {"ENROOT_DATA_PATH": "/tmp/x\nENROOT_RESTRICT_DEV no"}},
            "containers_enroot_config.ENROOT_DATA_PATH:",
        ),
        ({"enroot_config": {"ENROOT_DATA_PATH": '/tmp/"x'}}, "holds '\"'"),
        ({"enroot_config": {"ENROOT_DATA_PATH": "/data # scratch"}}, "holds '#'"),
        ({"enroot_config": {"enroot_max_processors": 32}}, "'enroot_max_processors' is not a setting enroot reads"),
        ({"enroot_config": {"ENROOT_MOUNT_HOME": True}}, "give a string or a number, not bool True"),
        ({"enroot_config": {"ENROOT_MOUNT_HOME": ["yes"]}}, "not list"),
        ({"enroot_config": ["ENROOT_MOUNT_HOME=yes"]}, "containers_enroot_config: give a mapping"),
        ({"oci_extra": {"EnvExclude": 'A"B'}}, "containers_oci_extra.EnvExclude:"),
        ({"oci_extra": {"DisableHooks": "a\rb"}}, "holds '\\r'"),
        ({"oci_extra": {"disable hooks": "nvidia"}}, "'disable hooks' is not an oci.conf name"),
        ({"oci_extra": "DisableHooks=nvidia"}, "containers_oci_extra: give a mapping"),
    ],
)
def test_a_value_that_breaks_its_line_or_a_name_never_read_is_refused_by_name(
    settings: dict[str, Any], message: str
) -> None:
    found = errors(**settings)
    assert len(found) == 1
    assert message in found[0]


def test_every_problem_is_listed() -> None:
    found = errors(oci_extra={"x": 1, "EnvExclude": "\n"}, enroot_config={"ENROOT_A": "`id`", "B": 1})
    assert len(found) == 4


def test_the_runtimes_per_user_directories_are_the_ones_the_prolog_makes() -> None:
    assert errors(enroot=True) == []
    moved = errors(oci_state_dir="/run/oci", enroot=True, enroot_config={"ENROOT_RUNTIME_PATH": "/run/e/$(id -un)"})
    assert moved == [
        "containers_oci_state_dir is /run/oci: the OCI runtime keeps each user's state in /run/oci/<user>, which the"
        " user-dirs prolog must make (its parent is root's, mode 0711); add '/run/oci/{user}' to"
        " cluster_job_scripts.user_dirs",
        "ENROOT_RUNTIME_PATH is /run/e/$(id -un): enroot keeps each user's runtime files there, which the user-dirs"
        " prolog must make (its parent is root's, mode 0711); add '/run/e/{user}' to cluster_job_scripts.user_dirs",
    ]
    listed = {"user_dirs": ["/run/oci/{user}", "/run/e/{user}"]}
    assert (
        errors(
            oci_state_dir="/run/oci",
            enroot=True,
            enroot_config={"ENROOT_RUNTIME_PATH": "/run/e/$(id -un)"},
            job_scripts=listed,
        )
        == []
    )
    # the prolog turned off: refused while a runtime needs it, accepted without one
    assert len(errors(job_scripts={"user_dirs": []})) == 1
    assert errors(job_scripts={"user_dirs": []}, oci_runtime="none") == []
