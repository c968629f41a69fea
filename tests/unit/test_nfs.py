"""Shared storage: the storage host's exports or a site's filer (nfs_filer_mounts), checked before any host is
touched, and the mounts each client gets."""

from __future__ import annotations

from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.nfs import client_mounts, nfs_errors

EXPORTS = [{"path": "/home", "options": "rw"}, {"path": "/apps", "options": "ro"}]
FILER = [
    {"path": "/home", "src": "filer01:/vol/home"},
    {"path": "/apps", "src": "10.0.0.5:/export/apps", "opts": "ro,hard,vers=4.1"},
    {"path": "/data", "src": "[fd00::5]:/data"},
]


def settings(**changes: Any) -> dict[str, Any]:
    """The role's settings; clients mount the exports unless told otherwise (as nfs_client_mounts' default)."""
    exports = changes.get("exports", EXPORTS)
    return {
        "exports": EXPORTS,
        "filer_mounts": [],
        "mount_options": "rw,hard,noatime,vers=4.2,_netdev",
        "client_mounts": [export["path"] for export in exports],
    } | changes


def test_the_storage_hosts_exports_or_a_filer_are_accepted() -> None:
    assert nfs_errors(settings(), ["nfs01"]) == []
    assert nfs_errors(settings(filer_mounts=FILER), []) == []


def test_clients_mount_the_storage_hosts_exports() -> None:
    assert client_mounts(settings(), "nfs01") == [
        {"path": "/home", "src": "nfs01:/home", "opts": "rw,hard,noatime,vers=4.2,_netdev"},
        {"path": "/apps", "src": "nfs01:/apps", "opts": "rw,hard,noatime,vers=4.2,_netdev"},
    ]


def test_clients_mount_the_filer_with_each_mounts_options() -> None:
    assert client_mounts(settings(filer_mounts=FILER), "") == [
        {"path": "/home", "src": "filer01:/vol/home", "opts": "rw,hard,noatime,vers=4.2,_netdev"},
        {"path": "/apps", "src": "10.0.0.5:/export/apps", "opts": "ro,hard,vers=4.1"},
        {"path": "/data", "src": "[fd00::5]:/data", "opts": "rw,hard,noatime,vers=4.2,_netdev"},
    ]


def test_neither_a_storage_host_nor_a_filer_is_refused() -> None:
    [error] = nfs_errors(settings(), [])
    assert error.startswith("the storage group is empty and nfs_filer_mounts is not set")


def test_a_storage_host_beside_filer_mounts_is_refused() -> None:
    [error] = nfs_errors(settings(filer_mounts=FILER), ["nfs01"])
    assert "nfs_filer_mounts is set and the storage group has nfs01" in error


@pytest.mark.parametrize(
    ("mount", "expected"),
    [
        ({"path": "home", "src": "f:/h"}, "nfs_filer_mounts[0].path: 'home' is not an absolute path"),
        ({"path": "/home\n/x", "src": "f:/h"}, "nfs_filer_mounts[0].path: '/home\\n/x' is not an absolute path"),
        ({"path": "/home", "src": "f:/h#x"}, "nfs_filer_mounts[0].src: 'f:/h#x' is not an NFS source"),
        (
            {"path": "/home", "src": "filer01/vol/home"},
            "nfs_filer_mounts[0].src: 'filer01/vol/home' is not an NFS source",
        ),
        (
            {"path": "/home", "src": "f:/h", "opts": "rw, hard"},
            "nfs_filer_mounts[0].opts: 'rw, hard' is not a mount option",
        ),
        ({"path": "/home", "src": "f:/h", "options": "rw"}, "nfs_filer_mounts[0]: unknown key options"),
        ("filer01:/vol/home", "nfs_filer_mounts[0]: give a mount as {path: /home"),
    ],
)
def test_a_filer_mount_fstab_cannot_hold_is_named(mount: Any, expected: str) -> None:
    errors = nfs_errors(settings(filer_mounts=[mount]), [])
    assert any(error.startswith(expected) for error in errors), errors


def test_a_path_mounted_twice_is_refused() -> None:
    errors = nfs_errors(settings(filer_mounts=[FILER[0], {"path": "/home", "src": "other:/home"}]), [])
    assert errors == ["nfs_filer_mounts[1].path: /home is mounted twice; give each path once"]


def test_relative_exports_are_refused() -> None:
    errors = nfs_errors(settings(exports=[{"path": "home", "options": "rw"}]), ["nfs01"])
    assert errors == ["nfs_exports: home is not an absolute path"]


def test_export_clients_and_mount_options_are_checked() -> None:
    """/etc/exports' clients: a network netaddr reads, without host bits; names, wildcards and netgroups pass.
    The mount options: one fstab field."""
    fine = "10.0.0.0/24 *.cluster.example @compute login01 fd00::/64"
    assert nfs_errors(settings(export_clients=fine), ["nfs01"]) == []
    assert nfs_errors(settings(export_clients="10.0.0.0/40"), ["nfs01"]) == [
        "nfs_export_clients: '10.0.0.0/40' is not an address or a network (CIDR), e.g. 10.0.0.0/24"
    ]
    [error] = nfs_errors(settings(export_clients="10.0.0.5/24"), ["nfs01"])
    assert error.startswith("nfs_export_clients: '10.0.0.5/24' has host bits set and opens all of 10.0.0.0/24"), error
    [error] = nfs_errors(settings(mount_options="rw,hard\nnoauto"), ["nfs01"])
    assert error.startswith("nfs_mount_options: 'rw,hard\\nnoauto' is not one fstab field"), error


def test_an_export_without_root_squash_to_any_host_is_refused() -> None:
    """no_root_squash to '*': root of any machine that reaches the server owns /home. Named clients may have it
    (the cluster's own network: its nodes' root is the admins'), '*' may have root_squash; an export's own clients
    are read like nfs_export_clients."""
    open_home = [{"path": "/home", "clients": "*", "options": "rw,sync,no_root_squash"}]
    assert nfs_errors(settings(exports=open_home), ["nfs01"]) == [
        "nfs_exports[0]: /home is exported with no_root_squash to '*': root of any machine that reaches the server "
        "owns every file there. Name the cluster's network or hosts as its clients (nfs_export_clients, or the "
        "export's clients), or keep root_squash"
    ]
    [error] = nfs_errors(settings(exports=[{**open_home[0], "clients": None}], export_clients="*"), ["nfs01"])
    assert error.startswith("nfs_exports[0]: /home is exported with no_root_squash to '*'"), error
    assert nfs_errors(settings(exports=[{**open_home[0], "clients": "10.0.0.0/24"}]), ["nfs01"]) == []
    assert nfs_errors(settings(exports=[{**open_home[0], "options": "rw,root_squash"}]), ["nfs01"]) == []
    [error] = nfs_errors(settings(exports=[{**open_home[0], "clients": "10.0.0.5/24"}]), ["nfs01"])
    assert error.startswith("nfs_exports[0].clients: '10.0.0.5/24' has host bits set"), error


@pytest.mark.parametrize(
    ("variable", "change", "why"),
    [
        ("nfs_exports", {"exports": [*EXPORTS, {"path": "/etc", "options": "ro"}]}, "/etc is kept by the operating"),
        ("nfs_exports", {"exports": [{"path": "/var/lib/mysql", "options": "rw"}]}, "inside /var/lib, and /var/lib"),
        ("nfs_client_mounts", {"client_mounts": ["/home", "/var/log"]}, "/var/log is kept by the hosts' daemons"),
        ("nfs_exports", {"exports": [{"path": "/", "options": "rw"}]}, "every host keeps for itself"),
        ("nfs_exports", {"exports": [{"path": "/usr/local", "options": "ro"}]}, "the programs the roles install"),
        ("nfs_filer_mounts[0].path", {"filer_mounts": [{"path": "/tmp", "src": "f:/t"}]}, "every host keeps for"),
    ],
)
def test_a_mount_over_a_tree_each_host_keeps_for_itself_is_refused(
    variable: str, change: dict[str, Any], why: str
) -> None:
    """Every host but the server mounts each path, over what it has there (a node without /etc, a dbd host whose
    MariaDB opens the file server's directory); the server exports its own tree."""
    storage = [] if "filer_mounts" in change else ["nfs01"]
    (error,) = [error for error in nfs_errors(settings(**change), storage) if "is not exported" not in error]
    assert error.startswith(variable) and why in error, error


def test_shared_trees_of_the_sites_own_pass() -> None:
    for path in ("/home", "/apps", "/data", "/scratch", "/srv/nfs", "/opt/apps", "/usr/local/apps", "/var/backups/x"):
        assert nfs_errors(settings(exports=[{"path": path, "options": "rw"}], client_mounts=[path]), ["nfs01"]) == []


def test_a_client_mount_the_storage_host_does_not_export_is_refused() -> None:
    """The server refuses it: every client's run would stop at its mount after the roles before had changed it. A
    directory below an export is mountable (NFS lets a client mount inside an exported tree)."""
    assert nfs_errors(settings(client_mounts=["/home", "/apps/cuda", "/home/"]), ["nfs01"]) == []
    (error,) = nfs_errors(settings(client_mounts=["/home", "/scratch", "/homes"]), ["nfs01"])[:1]
    assert error == (
        "nfs_client_mounts: /scratch is not exported by the storage host (nfs_exports: /home, /apps); add it to "
        "nfs_exports, or mount only exported paths"
    )
    assert len(nfs_errors(settings(client_mounts=["/home", "/scratch", "/homes"]), ["nfs01"])) == 2
    assert nfs_errors(settings(filer_mounts=FILER, client_mounts=["/scratch"]), []) == []  # the filer's paths count


@pytest.mark.parametrize(
    ("change", "mount", "expected"),
    [
        ({}, {"path": "/home", "fstype": "nfs"}, ""),
        ({}, {"path": "/home/", "fstype": "nfs4"}, ""),
        ({}, {"path": "/scratch", "fstype": "xfs"}, ""),  # mounted by the site's own means
        ({}, {"path": "/home", "fstype": "ext4"}, "which the kernel shows as nfs4, not 'ext4'"),
        ({"mount_options": "rw,nfsvers=3"}, {"path": "/apps", "fstype": "nfs4"}, "shows as nfs, not 'nfs4'"),
        ({"mount_options": "rw,hard"}, {"path": "/apps", "fstype": "nfs4"}, ""),  # no version: the server's
        ({"filer_mounts": FILER}, {"path": "/apps", "fstype": "nfs"}, ""),
        ({"filer_mounts": FILER}, {"path": "/data", "fstype": "lustre"}, "mounted by nfs_filer_mounts"),
    ],
)
def test_the_health_checks_type_of_an_nfs_mount_is_one_the_kernel_shows(
    change: dict[str, Any], mount: dict[str, str], expected: str
) -> None:
    """slurmd's health program compares the type in /proc/mounts (nfs4 for version 4, although fstab says nfs) with
    cluster_health_check's: another type drains every node."""
    storage = [] if "filer_mounts" in change else ["nfs01"]
    errors = nfs_errors(settings(health_check={"interval": 300, "mounts": ["/home", mount]}, **change), storage)
    if not expected:
        assert errors == []
    else:
        (error,) = errors
        assert error.startswith("cluster_health_check.mounts[1].fstype: ") and expected in error, error
        assert "would drain every node" in error


def test_the_jobs_private_tmp_is_kept_off_the_shared_mounts() -> None:
    """job_container/tmpfs' base_path on NFS: the nodes of a job would make and remove one per-job directory."""
    on_home = {"enabled": True, "base_path": "/home/slurm-jobs"}
    (error,) = nfs_errors(settings(job_tmpfs=on_home), ["nfs01"])
    assert "cluster_job_tmpfs.base_path: /home/slurm-jobs is on /home" in error
    assert nfs_errors(settings(job_tmpfs={"enabled": True}), ["nfs01"]) == []
    assert nfs_errors(settings(job_tmpfs=on_home | {"enabled": False}), ["nfs01"]) == []
