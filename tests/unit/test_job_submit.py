"""cluster_job_submit: JobSubmitPlugins=lua, the gpu-policy sample's settings from the node types, the site's file."""

from __future__ import annotations

import dataclasses
import re

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import InventoryError, JobTmpfs
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_cluster
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import cluster_config

from .factory import valid_groups, valid_spec


def config(job_submit: dict[str, object]) -> dict[str, object]:
    spec = valid_spec()
    spec["job_submit"] = job_submit
    return cluster_config(build_cluster(spec, valid_groups()))


def slurm_conf(rendered: dict[str, object]) -> list[str]:
    sections = rendered["slurm_conf"]
    assert isinstance(sections, dict)
    return [line for lines in sections.values() for line in lines]


def test_no_job_submit_writes_no_plugin() -> None:
    rendered = config({})
    assert not [line for line in slurm_conf(rendered) if line.startswith("JobSubmitPlugins")]
    assert rendered["job_submit"] == {"enabled": False, "sample": "", "file": "", "settings": ""}


def test_the_sample_takes_its_partitions_from_the_node_types() -> None:
    """The factory's gpu partition (default, H100 nodes) takes GPU jobs only; cpu (CPU nodes) does not."""
    rendered = config({"script": "gpu-policy", "max_time": "2-00:00:00"})
    assert "JobSubmitPlugins=lua" in slurm_conf(rendered)
    submit = rendered["job_submit"]
    assert isinstance(submit, dict) and submit["sample"] == "gpu-policy" and submit["file"] == ""
    assert submit["settings"].splitlines() == [
        "local settings = {",
        '  gpu_partitions = {["gpu"] = true},',
        '  gpu_partition = "gpu",',
        '  cpu_partition = "",',
        '  default_partition = "gpu",',
        "  max_time = 2880,  -- minutes; 0: no cap",
        "}",
    ]


def test_the_inventory_names_the_partitions_and_a_site_file_has_no_settings() -> None:
    submit = config({"script": "gpu-policy", "gpu_partitions": ["gpu"], "cpu_partition": "cpu"})["job_submit"]
    assert isinstance(submit, dict) and '  cpu_partition = "cpu",' in submit["settings"].splitlines()
    assert "max_time = 0," in submit["settings"]
    site = config({"script": "/srv/slurm/job_submit.lua"})
    assert site["job_submit"] == {"enabled": True, "sample": "", "file": "/srv/slurm/job_submit.lua", "settings": ""}
    assert "JobSubmitPlugins=lua" in slurm_conf(site)


def tmpfs_config(release: str, **settings: object) -> dict[str, object]:
    spec = valid_spec()
    spec["slurm_release"] = release
    spec["job_tmpfs"] = {"enabled": True, **settings}
    return cluster_config(build_cluster(spec, valid_groups()))


def test_a_private_tmp_per_job_follows_the_release() -> None:
    """job_container/tmpfs to 25.05, namespace/tmpfs from 25.11, both reading job_container.conf; Contain added."""
    old = tmpfs_config("22.05")
    assert "JobContainerType=job_container/tmpfs" in slurm_conf(old)
    assert "PrologFlags=Contain" in slurm_conf(old)
    assert old["job_container_conf"] == ["AutoBasePath=true", "BasePath=/var/tmp/slurm-jobs"]
    assert "job_container.conf" in old["files"]  # type: ignore[operator]
    current = tmpfs_config("24.11", dirs=["/tmp", "/dev/shm", "/scratch/local"])
    assert current["job_container_conf"] == [
        "AutoBasePath=true",
        "BasePath=/var/tmp/slurm-jobs",
        "Dirs=/tmp,/dev/shm,/scratch/local",
    ]
    new = tmpfs_config("26.05")
    assert "NamespaceType=namespace/tmpfs" in slurm_conf(new)
    assert not [line for line in slurm_conf(new) if line.startswith("JobContainerType")]
    off = config({})
    assert "job_container.conf" in off["stale_files"]  # type: ignore[operator]
    assert not [line for line in slurm_conf(off) if line.startswith(("JobContainerType", "NamespaceType"))]


def test_the_writer_refuses_a_job_container_line_with_a_newline() -> None:
    """The validation refuses such a value first; the writer's own guard covers job_container.conf as well."""
    cluster = build_cluster(valid_spec(), valid_groups())
    bad = dataclasses.replace(cluster, job_tmpfs=JobTmpfs(enabled=True, base_path="/var/tmp/x\nBasePath=/"))
    with pytest.raises(InventoryError, match=re.escape("job_container.conf: refusing to write")):
        cluster_config(bad)
