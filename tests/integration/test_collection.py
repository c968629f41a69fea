"""The collection as a site gets it: `ansible-galaxy collection build` makes a tarball of the collection alone,
`ansible-galaxy collection install` puts it with its dependencies into an empty path (offline: the dependencies
are the collections Ansible's package bundles, packed as artifacts), and a playbook outside the repository runs
the installed roles, playbooks and filters by their fully qualified names."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from .conftest import ROOT

BIN = Path(sys.executable).parent
GALAXY = yaml.safe_load((ROOT / "galaxy.yml").read_text())
# the collections Ansible's package bundles (ansible_collections is a namespace package: the repository's
# collections/ link is on its path too)
BUNDLED = next(
    Path(entry)
    for entry in __import__("ansible_collections").__path__
    if (Path(entry) / "community" / "general").is_dir()
)
# what a site's tarball must not carry: the repository's lab, tests, benchmarks and tooling
NOT_SHIPPED = (".ci/", ".config/", "bench/", "lab/", "molecule/", "scripts/", "tests/", "build/", ".venv/")


def clean_env() -> dict[str, str]:
    """The environment of a site's controller: none of the repository's Ansible settings (the test command exports
    ANSIBLE_CONFIG, whose collections path holds the repository itself: ansible-galaxy would find the collection
    installed there and install nothing)."""
    return {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}


def run(*command: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = clean_env() if env is None else env
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, f"{' '.join(command)}\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result


def bundled_artifact(name: str, into: Path) -> Path:
    """The bundled copy of a collection packed as an installable artifact. Ansible's package leaves out some files
    Galaxy's FILES.json lists (CI settings, tests), and the install checks every listed file: FILES.json is
    written again for the files the package ships, with their checksums, and MANIFEST.json's checksum of it."""
    source = BUNDLED.joinpath(*name.split("."))
    manifest = json.loads((source / "MANIFEST.json").read_text())
    files: list[dict[str, str | int | None]] = [
        {"name": ".", "ftype": "dir", "chksum_type": None, "chksum_sha256": None, "format": 1}
    ]
    names: list[str] = []
    for path in sorted(source.rglob("*")):
        relative = str(path.relative_to(source))
        if "__pycache__" in path.parts or relative in ("MANIFEST.json", "FILES.json"):
            continue
        names.append(relative)
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
        files.append(
            {
                "name": relative,
                "ftype": "file" if path.is_file() else "dir",
                "chksum_type": "sha256" if digest else None,
                "chksum_sha256": digest,
                "format": 1,
            }
        )
    files_json = json.dumps({"files": files, "format": 1}).encode()
    manifest["file_manifest_file"]["chksum_sha256"] = hashlib.sha256(files_json).hexdigest()
    version = manifest["collection_info"]["version"]
    artifact = into / f"{name.replace('.', '-')}-{version}.tar.gz"
    with tarfile.open(artifact, "w:gz") as tar:
        for member, data in (("MANIFEST.json", json.dumps(manifest).encode()), ("FILES.json", files_json)):
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for relative in names:
            tar.add(source / relative, arcname=relative, recursive=False)
    return artifact


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built tarball and its dependencies installed into an empty collections path."""
    work = tmp_path_factory.mktemp("collection")
    run(str(BIN / "ansible-galaxy"), "collection", "build", "--output-path", str(work), str(ROOT), cwd=work)
    artifacts = [bundled_artifact(name, work) for name in GALAXY["dependencies"]]
    tarball = work / f"gpucluster-cluster-{GALAXY['version']}.tar.gz"
    path = work / "collections"
    # only the tarballs given: no server is asked, and the dependencies must resolve from them
    run(
        str(BIN / "ansible-galaxy"),
        "collection",
        "install",
        "--offline",
        "-p",
        str(path),
        str(tarball),
        *map(str, artifacts),
        cwd=work,
    )
    return path


def test_the_tarball_holds_the_collection_only(installed: Path) -> None:
    tarball = next(installed.parent.glob("gpucluster-cluster-*.tar.gz"))
    with tarfile.open(tarball) as tar:
        names = tar.getnames()
    assert [name for name in names if name.startswith(NOT_SHIPPED) or "/molecule/" in name] == []
    for expected in (
        "roles/slurm/tasks/main.yml",
        "plugins/filter/cluster.py",
        "playbooks/deploy.yml",
        "meta/runtime.yml",
        "inventories/pilot/hosts.yml",
        "docs/deploy.md",
    ):
        assert expected in names, expected
    # every role ships its argument specs (Ansible validates the variables of an installed role too)
    roles = {name.split("/")[1] for name in names if name.startswith("roles/") and name.count("/") >= 2}
    assert {role for role in roles if f"roles/{role}/meta/argument_specs.yml" not in names} == set()


def test_its_dependencies_are_declared_with_the_versions_installed(installed: Path) -> None:
    manifest = json.loads((installed / "ansible_collections/gpucluster/cluster/MANIFEST.json").read_text())
    assert manifest["collection_info"]["dependencies"] == GALAXY["dependencies"]
    assert set(GALAXY["dependencies"]) == {"community.general", "community.mysql", "ansible.posix"}
    for name in GALAXY["dependencies"]:
        assert (installed / "ansible_collections" / name.replace(".", "/") / "MANIFEST.json").exists(), name
    # every collection the roles and playbooks call is a declared dependency (or ansible.builtin)
    used = set()
    for path in [
        *ROOT.glob("roles/*/tasks/*.yml"),
        *ROOT.glob("roles/*/handlers/*.yml"),
        *ROOT.glob("playbooks/*.yml"),
    ]:
        for line in path.read_text().splitlines():
            key = line.strip().removeprefix("- ").split(":")[0]
            if key.count(".") == 2 and key.split(".")[0] in {"community", "ansible"}:
                used.add(".".join(key.split(".")[:2]))
    assert used - {"ansible.builtin"} <= set(GALAXY["dependencies"]), used


def test_roles_playbooks_and_filters_run_by_fqcn_from_the_installed_copy(installed: Path, tmp_path: Path) -> None:
    """Outside the repository (no ansible.cfg, no collections link): the installed render playbook writes the
    pilot's files through the installed cluster role, action plugin and model, and a site's own playbook calls
    an installed filter."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "check.yml").write_text(
        yaml.safe_dump(
            [
                {
                    "name": "A site playbook using the collection's filters",
                    "hosts": "localhost",
                    "gather_facts": False,
                    "tasks": [
                        {
                            "name": "Fold a host list",
                            "ansible.builtin.assert": {
                                "that": [
                                    "['gpu01', 'gpu02', 'gpu03'] | gpucluster.cluster.hostlist_fold == 'gpu[01-03]'",
                                    "'gpu[01-02]' | gpucluster.cluster.hostlist_expand == ['gpu01', 'gpu02']",
                                ],
                            },
                        }
                    ],
                }
            ],
            sort_keys=False,
        )
    )
    env = clean_env() | {
        "ANSIBLE_COLLECTIONS_PATH": str(installed),
        "PATH": f"{BIN}:{os.environ['PATH']}",
        "HOME": str(tmp_path),
    }
    run(str(BIN / "ansible-playbook"), "check.yml", cwd=site, env=env)

    out = tmp_path / "rendered"
    result = run(
        str(BIN / "ansible-playbook"),
        "-i",
        str(ROOT / "inventories" / "pilot"),
        "gpucluster.cluster.render",
        "-e",
        f"cluster_config_dir={out}",
        "-v",
        cwd=site,
        env=env,
    )
    assert sorted(path.name for path in out.iterdir()) == ["gres.conf", "slurm.conf", "topology.conf"]
    assert "ClusterName=" in (out / "slurm.conf").read_text()
    # the installed copy ran, not the repository's
    listed = run(str(BIN / "ansible-galaxy"), "collection", "list", "gpucluster.cluster", cwd=site, env=env).stdout
    assert str(installed) in listed and str(ROOT) not in listed, listed
    assert str(ROOT / "roles") not in result.stdout


def test_the_execution_environment_definition_makes_its_build_context(installed: Path, tmp_path: Path) -> None:
    """`ansible-builder create` (no container runtime or registry needed) accepts execution-environment.yml and
    writes the build context: the controller's runtime requirements only, the collection's own tarball for the
    galaxy step. Building the image itself pulls the base image from quay.io, which this machine cannot reach."""
    definition = yaml.safe_load((ROOT / "execution-environment.yml").read_text())
    tarball = f"gpucluster-cluster-{GALAXY['version']}.tar.gz"
    assert definition["additional_build_files"] == [{"src": f"build/ee/{tarball}", "dest": "collections"}]
    for name in ("execution-environment.yml", "requirements.txt"):
        (tmp_path / name).write_text((ROOT / name).read_text())
    (tmp_path / "build" / "ee").mkdir(parents=True)
    (tmp_path / "build" / "ee" / tarball).write_bytes((installed.parent / tarball).read_bytes())
    context = tmp_path / "context"
    run(
        str(BIN / "ansible-builder"),
        "create",
        "--file",
        "execution-environment.yml",
        "--context",
        str(context),
        "--output-filename",
        "Containerfile",
        cwd=tmp_path,
    )
    containerfile = (context / "Containerfile").read_text()
    assert "quay.io/fedora/fedora:41" in containerfile
    assert "ansible-core==2.19.14" in containerfile
    python = (context / "_build" / "requirements.txt").read_text()
    assert "ansible==" in python and "ClusterShell" in python and "netaddr" in python
    assert not any(tool in python for tool in ("molecule", "pytest", "ansible-lint", "ruff", "mypy")), python
    galaxy = yaml.safe_load((context / "_build" / "requirements.yml").read_text())
    assert galaxy["collections"] == [{"name": f"collections/{tarball}", "type": "file"}]
    assert (context / "_build" / "collections" / tarball).exists()
