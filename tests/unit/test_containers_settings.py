"""The containers role's settings written into oci.conf and enroot.conf, checked before any host is touched."""

from __future__ import annotations

from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.containers import apptainer_conf, containers_errors

ROLE_SETTINGS = {
    "oci_extra": {},
    "enroot_config": {},
    "oci_runtime": "crun",
    "oci_state_dir": "/run/slurm-oci",
    "enroot": False,
    "enroot_defaults": {"ENROOT_RUNTIME_PATH": "/run/enroot/user-$(id -u)"},
    "job_scripts": {},
    "apptainer_config": {},
    "enroot_repository": {},
    "apptainer_repository": {},
    "apptainer_apt_release": "",
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


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"mount proc": "no\nallow setuid = yes"}, "containers_apptainer_config.mount proc:"),
        ({"bind path": ["/scratch", "/data # fast"]}, "holds '#'"),
        ({"bind path": []}, "an empty list would leave no line"),
        ({"MOUNT PROC": "no"}, "'MOUNT PROC' is not an apptainer.conf key"),
        ({"mount  proc": "no"}, "'mount  proc' is not an apptainer.conf key"),
        ({"mount proc": False}, "give a string or a number, not bool False"),
        ({"bind path": {"/scratch": "/scratch"}}, "not dict"),
        (["mount proc = no"], "containers_apptainer_config: give a mapping"),
    ],
)
def test_an_apptainer_setting_that_breaks_its_line_is_refused_by_key(config: Any, message: str) -> None:
    found = errors(apptainer_config=config)
    assert len(found) == 1
    assert message in found[0]


def test_apptainer_settings_as_the_docs_give_them_are_accepted() -> None:
    assert errors(apptainer_config={"mount proc": "no", "bind path": ["/etc/localtime", "/proc"]}) == []
    assert errors(apptainer_config={"config resolv_conf": "yes", "max loop devices": 256}) == []


# apptainer.conf as Debian's apptainer 1.4 ships it, in part
PACKAGED = """# MOUNT PROC: [BOOL]
# DEFAULT: yes
mount proc = yes

# BIND PATH: [STRING]
#bind path = /opt
#bind path = /scratch
bind path = /etc/localtime
bind path = /etc/hosts

# USER BIND CONTROL: [BOOL]
user bind control = yes
"""


def test_apptainer_conf_sets_each_key_where_the_package_has_it_and_keeps_the_rest() -> None:
    config = {"mount proc": "no", "bind path": ["/etc/localtime", "/etc/hosts", "/proc"], "max loop devices": 64}
    written = apptainer_conf(PACKAGED, config)
    assert written == (
        "# MOUNT PROC: [BOOL]\n# DEFAULT: yes\nmount proc = no\n\n# BIND PATH: [STRING]\n#bind path = /opt\n"
        "#bind path = /scratch\nbind path = /etc/localtime\nbind path = /etc/hosts\nbind path = /proc\n\n"
        "# USER BIND CONTROL: [BOOL]\nuser bind control = yes\nmax loop devices = 64\n"
    )
    assert apptainer_conf(written, config) == written
    assert apptainer_conf(PACKAGED, {}) == PACKAGED


def test_a_key_only_commented_out_is_written_after_its_last_mention() -> None:
    text = "#bind path = /opt\n#bind path = /scratch\n\n# USER BIND CONTROL\nuser bind control = yes\n"
    written = apptainer_conf(text, {"bind path": "/scratch"})
    assert written.splitlines()[:3] == ["#bind path = /opt", "#bind path = /scratch", "bind path = /scratch"]
    assert apptainer_conf(written, {"bind path": "/scratch"}) == written


def test_a_shorter_list_removes_the_keys_other_lines() -> None:
    written = apptainer_conf(PACKAGED, {"bind path": ["/scratch"]})
    assert [line for line in written.splitlines() if line.startswith("bind path")] == ["bind path = /scratch"]
    assert "#bind path = /opt" in written


SID = {"uris": ["http://deb.debian.org/debian"], "suites": ["sid"], "components": ["main"]}


def test_apptainer_from_debian_unstable_pinned_is_accepted() -> None:
    assert errors(apptainer_repository=SID, apptainer_apt_release="sid") == []
    assert errors(apptainer_repository=SID, apptainer_apt_release="unstable") == []
    assert errors(apptainer_repository={}, apptainer_apt_release="") == []


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"apptainer_repository": {"uris": ["http://deb.debian.org/debian"]}}, "suites is missing"),
        ({"apptainer_repository": SID | {"pin": 100}}, "'pin' is not a field the role writes"),
        ({"apptainer_repository": "deb http://deb.debian.org/debian sid main"}, "give the repository's deb822 fields"),
        ({"enroot_repository": {"suites": ["./"]}}, "containers_enroot_repository: uris is missing"),
        ({"apptainer_repository": SID | {"suites": ["sid\nTrusted: yes"]}}, "containers_apptainer_repository.suites:"),
        ({"apptainer_repository": SID | {"uris": ["http://deb.debian.org/debian #mirror"]}}, "is not one word"),
        ({"enroot_repository": {"uris": "file:/srv/repo", "suites": "./", "name": "site repo"}}, "name: 'site repo'"),
        ({"apptainer_repository": SID, "apptainer_apt_release": "sid main"}, "'sid main' is not a release name"),
        ({"apptainer_apt_release": "sid"}, "but containers_apptainer_repository is empty"),
        ({"apptainer_repository": SID, "apptainer_apt_release": "stable"}, "covers the release the hosts run"),
    ],
)
def test_a_repository_or_pin_the_role_cannot_write_is_refused_by_name(settings: dict[str, Any], message: str) -> None:
    found = errors(**settings)
    assert len(found) == 1
    assert message in found[0]


def test_the_oci_state_directory_is_absolute() -> None:
    from ansible_collections.gpucluster.cluster.plugins.module_utils.containers import runtime_dir_errors

    (relative,) = runtime_dir_errors({"oci_state_dir": "run/oci", "oci_runtime": "crun"})
    assert relative.startswith("containers_oci_state_dir: 'run/oci' is not an absolute directory")
