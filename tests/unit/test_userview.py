"""The users' view of the cluster: what the guide lists and what the example scripts request."""

from __future__ import annotations

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_cluster
from ansible_collections.gpucluster.cluster.plugins.module_utils.userview import example_times, slurm_minutes, user_view

from .factory import valid_groups, valid_spec


def test_partitions_list_their_nodes_limits_and_per_gpu_shares() -> None:
    view = user_view(build_cluster(valid_spec(), valid_groups()))
    gpu, cpu = view["partitions"]
    assert (gpu["name"], gpu["default"], gpu["nodes"], gpu["hostlist"], gpu["max_time"], gpu["gpus"]) == (
        "gpu",
        True,
        4,
        "gpu[01-04]",
        "1-00:00:00",
        16,
    )
    # 2 sockets x 8 cores x 2 threads = 32 CPUs and 64000 MB over 4 GPUs.
    assert gpu["node_types"] == [
        {
            "name": "h100",
            "nodes": 4,
            "cpus": 32,
            "memory_mb": 64000,
            "features": ["h100", "ib"],
            "gpu_type": "h100",
            "gpus": 4,
            "cpus_per_gpu": 8,
            "mem_per_gpu_mb": 16000,
        }
    ]
    assert (cpu["max_time"], cpu["preempt_mode"], cpu["gpus"]) == ("UNLIMITED", "REQUEUE", 0)
    assert view["gpu_types"] == {"h100": 16}
    assert [q["name"] for q in view["qos"]] == ["normal", "high"]
    assert view["qos"][1]["preempt"] == ["normal"]


def test_examples_are_sized_for_the_default_partitions_gpu_nodes() -> None:
    example = user_view(build_cluster(valid_spec(), valid_groups()))["example"]
    assert (example["partition"], example["gpu_type"], example["gpus"], example["cpus_per_gpu"]) == (
        "gpu",
        "h100",
        4,
        8,
    )


def test_a_gpu_partition_wins_over_a_default_cpu_partition() -> None:
    spec = valid_spec()
    spec["partitions"][0]["default"] = False
    spec["partitions"][1]["default"] = True
    assert user_view(build_cluster(spec, valid_groups()))["example"]["partition"] == "gpu"


def test_more_gpus_than_cores_still_asks_for_one_cpu_per_gpu() -> None:
    spec = valid_spec()
    spec["node_types"]["h100"].update(sockets=1, cores_per_socket=2, threads_per_core=1)
    assert user_view(build_cluster(spec, valid_groups()))["example"]["cpus_per_gpu"] == 1


def test_a_cluster_without_gpus_sizes_examples_on_cpu_nodes() -> None:
    spec, groups = valid_spec(), valid_groups()
    del spec["node_types"]["h100"]
    spec["partitions"] = [spec["partitions"][1]]
    spec["scheduling"] = {}
    groups["compute"] = groups.pop("compute_cpu")
    groups["compute_cpu"] = groups["compute"]
    groups.pop("compute_h100")
    groups["all"] = sorted(set(groups["all"]) - {f"gpu{i:02d}" for i in range(1, 5)})
    view = user_view(build_cluster(spec, groups))
    assert view["gpu_types"] == {}
    assert (view["example"]["partition"], view["example"]["gpus"]) == ("cpu", 0)


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("30", 30),
        ("30:15", 30),
        ("02:30:00", 150),
        ("1-00", 1440),
        ("1-02:30", 1590),
        ("3-00:00:00", 4320),
        ("UNLIMITED", None),
    ],
)
def test_slurm_times(text: str, minutes: int | None) -> None:
    assert slurm_minutes(text) == minutes


def test_example_times_never_exceed_the_partition_limit() -> None:
    assert example_times("00:10:00") == {"short": "00:10:00", "train": "00:10:00", "long": "00:10:00"}
    assert example_times("2-00:00:00") == {"short": "00:10:00", "train": "01:00:00", "long": "04:00:00"}
    assert example_times("") == {"short": "00:10:00", "train": "01:00:00", "long": "04:00:00"}


def test_the_guide_says_whether_job_mail_leaves_the_cluster() -> None:
    assert user_view(build_cluster(valid_spec(), valid_groups()))["mail"] == {"enabled": False, "domain": ""}
    spec = valid_spec()
    spec["mail"] = {"relay": "smtp.example.org", "domain": "example.org"}
    assert user_view(build_cluster(spec, valid_groups()))["mail"] == {"enabled": True, "domain": "example.org"}


def test_the_guide_shows_the_rest_api_of_the_release() -> None:
    assert user_view(build_cluster(valid_spec(), valid_groups()))["rest_api"]["enabled"] is False
    spec = valid_spec()
    spec["rest_api"] = {"enabled": True, "max_token_lifespan": 600}
    view = user_view(build_cluster(spec, valid_groups()))["rest_api"]
    assert (view["url"], view["version"], view["token_lifespan"]) == ("http://ctl01:6820", "v0.0.42", 600)
    assert view["submit_body"].startswith('{"job": {"script": ')
    spec["slurm_release"] = "22.05"
    view = user_view(build_cluster(spec, valid_groups()))["rest_api"]
    assert view["version"] == "v0.0.38" and view["submit_body"].startswith('{"script": ')
    spec["controller_vip"], groups = "10.0.0.5", valid_groups()
    groups["controllers"] = ["ctl01", "ctl02"]
    assert user_view(build_cluster(spec, groups))["rest_api"]["url"] == "http://10.0.0.5:6820"


def test_the_everyday_commands_ask_for_what_the_example_partition_has() -> None:
    """One GPU of the default partition's type, a short time, its first node to name and leave out, the last
    feature of its nodes."""
    view = user_view(build_cluster(valid_spec(), valid_groups()))
    assert view["everyday"] == {"request": "--gres=gpu:h100:1", "minutes": 10, "node": "gpu01", "feature": "ib"}
