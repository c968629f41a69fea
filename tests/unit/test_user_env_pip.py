"""user_env_pip_errors: the users' pip settings checked before any host is touched."""

from __future__ import annotations

import configparser

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.user_env import (
    user_env_modules_dir_errors,
    user_env_pip_errors,
    user_env_socket_errors,
)


def test_a_sites_index_with_extra_indexes_and_trusted_hosts_passes() -> None:
    assert (
        user_env_pip_errors("http://mirror01:8080/pypi/simple", ["https://pypi.example.org/simple"], ["mirror01"]) == []
    )
    assert (
        user_env_pip_errors("https://nexus.example.org/repository/pypi/simple/", [], ["nexus:8443", "10.0.0.7"]) == []
    )
    assert user_env_pip_errors("", [], []) == []


@pytest.mark.parametrize(
    ("index", "extra", "trusted", "message"),
    [
        ("mirror01/simple", [], [], "user_env_pip_index_url: 'mirror01/simple' is not the http:// or https:// URL"),
        ("ftp://mirror01/simple", [], [], "'ftp://mirror01/simple' is not the http:// or https:// URL"),
        ("http://mirror01/simple\nindex-url = http://evil", [], [], "is not one URL (a space or a line break"),
        ("http://a/simple http://b/simple", [], [], "is not one URL"),
        ("http://a/simple", "http://b/simple", [], "user_env_pip_extra_index_urls: give a list, not 'http://b/simple'"),
        ("http://a/simple", ["b/simple"], [], "user_env_pip_extra_index_urls[0]: 'b/simple' is not the http://"),
        ("http://a/simple", [], ["mirror 01"], "user_env_pip_trusted_hosts[0]: 'mirror 01' is not a host or address"),
        ("http://a/simple", [], ["http://mirror01"], "'http://mirror01' is not a host or address"),
        ("", [], ["mirror01"], "need user_env_pip_index_url: pip.conf is written only with the site's index"),
    ],
)
def test_what_would_break_pip_conf_is_refused_by_name(index: str, extra: object, trusted: object, message: str) -> None:
    problems = user_env_pip_errors(index, extra, trusted)
    assert len(problems) == 1 and message in problems[0], problems


def test_the_settings_that_pass_make_the_pip_conf_pip_reads() -> None:
    """What the role writes from settings that pass is read back by configparser (pip's reader) as given."""
    index, extra, trusted = (
        "http://mirror01:8080/pypi/simple",
        ["https://a.example.org/simple", "https://b/simple"],
        ["mirror01"],
    )
    assert user_env_pip_errors(index, extra, trusted) == []
    text = f"[global]\nindex-url = {index}\nextra-index-url = {' '.join(extra)}\ntrusted-host = {' '.join(trusted)}\n"
    parser = configparser.RawConfigParser()
    parser.read_string(text)
    assert parser["global"]["index-url"] == index
    assert parser["global"]["extra-index-url"].split() == extra
    assert parser["global"]["trusted-host"].split() == trusted


def test_the_generated_modulefiles_directory_is_the_roles_own() -> None:
    """The role removes from user_env_modules_dir every file it did not write: the site's modulefiles, a system tree
    or a directory the nodes share would be emptied."""
    from ansible_collections.gpucluster.cluster.plugins.filter.user_env import user_env_modules_dir_errors

    site = ["/etc/lmod/modules", "/apps/modulefiles"]
    shared = [["/home", "/apps", "/data"], [{"path": "/scratch", "src": "filer:/scratch"}], []]
    assert user_env_modules_dir_errors("/etc/gpucluster/modulefiles", site, shared) == []
    assert user_env_modules_dir_errors("/opt/gpucluster/modulefiles/", site, shared) == []
    assert user_env_modules_dir_errors("modules", site, shared) == [
        "user_env_modules_dir: 'modules' is not an absolute path (e.g. /etc/gpucluster/modulefiles)"
    ]
    assert user_env_modules_dir_errors("/apps/modulefiles", site, [])[0].startswith(
        "user_env_modules_dir: /apps/modulefiles overlaps the site's modulefiles /apps/modulefiles"
    )
    assert user_env_modules_dir_errors("/usr/local", [], [])[0].startswith(
        "user_env_modules_dir: /usr/local is a system directory"
    )
    # one string for a list, as Ansible's argument specs take it; a root directory in a list is no site's tree
    assert user_env_modules_dir_errors("/etc/gpucluster/modulefiles", "/apps/modulefiles", ["/home,/data", ["/"]]) == []
    assert user_env_modules_dir_errors("/scratch/mods", [], shared) == [
        "user_env_modules_dir: /scratch/mods is on /scratch, which the nodes share; each node would remove the "
        "others' modulefiles - keep it on the node's own disk (the default /etc/gpucluster/modulefiles)"
    ]


def test_site_modulefile_directories_are_absolute_and_the_socket_interfaces_a_list() -> None:
    (relative,) = user_env_modules_dir_errors("/etc/gpucluster/modulefiles", ["/apps/modulefiles", "modulefiles"])
    assert "user_env_modules_site_dirs: 'modulefiles' is not an absolute path" in relative
    assert user_env_socket_errors("") == [] and user_env_socket_errors("ib0,ib1") == []
    for wrong in ("ib0 ib1", "=ib0", "ib0;reboot"):
        assert user_env_socket_errors(wrong), wrong
