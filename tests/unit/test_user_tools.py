"""The login-node tools of the user_env role: hostfile writer and job-efficiency report."""

from __future__ import annotations

import pytest

from tests.helpers.tools import load_tool

hostfile = load_tool("user_env", "slurm-hostfile", subdir="bin")
jobeff = load_tool("user_env", "jobeff", subdir="bin")


def test_tasks_per_node_expands_slurms_compressed_form() -> None:
    assert hostfile.tasks_per_node("8(x2),4") == [8, 8, 4]
    with pytest.raises(ValueError, match="SLURM_TASKS_PER_NODE"):
        hostfile.tasks_per_node("eight")


def test_slots_prefer_explicit_then_gpus_then_tasks() -> None:
    nodes = ["gpu01", "gpu02"]
    env = {"SLURM_GPUS_ON_NODE": "8", "SLURM_TASKS_PER_NODE": "4(x2)"}
    assert hostfile.slots(nodes, env, 2) == [2, 2]
    assert hostfile.slots(nodes, env, None) == [8, 8]
    assert hostfile.slots(nodes, {"SLURM_TASKS_PER_NODE": "4,2"}, None) == [4, 2]
    assert hostfile.slots(nodes, {}, None) == [1, 1]


def test_hostfile_formats() -> None:
    assert hostfile.render(["a", "b"], [8, 4], "deepspeed") == "a slots=8\nb slots=4\n"
    assert hostfile.render(["a", "b"], [8, 4], "mpich") == "a:8\nb:4\n"
    assert hostfile.render(["a"], [8], "plain") == "a\n"


def test_durations_and_sizes() -> None:
    assert jobeff.seconds("1-02:00:00") == 26 * 3600
    assert jobeff.seconds("01:30") == 90
    assert jobeff.seconds("00:01.500") == 1.5
    assert jobeff.megabytes("2G") == 2048
    assert jobeff.megabytes("512K") == 0.5


def test_efficiency_of_a_two_node_gpu_job() -> None:
    lines = [
        "42|ddp|alice|COMPLETED|01:00:00|4|02:00:00||2|billing=4,cpu=4,gres/gpu=2,mem=8G,node=2",
        "42.batch|batch||COMPLETED|01:00:00|2|00:00:01|100M|1|cpu=2,mem=4G,node=1",
        "42.0|python3||COMPLETED|00:59:00|4|01:59:59|3G|2|cpu=4,gres/gpu=2,mem=8G,node=2",
    ]
    (job,) = jobeff.efficiencies(lines)
    assert (job.job, job.user, job.state, job.gpus) == ("42", "alice", "COMPLETED", 2)
    assert job.cpu_efficiency == pytest.approx(0.5)
    assert job.mem_per_node_mb == 4096 and job.max_rss_mb == 3072
    assert job.mem_efficiency == pytest.approx(0.75)
    assert "GPU-hours 2.00 (2 GPUs)" in job.report()


def test_cancelled_state_keeps_its_first_word() -> None:
    (job,) = jobeff.efficiencies(["7|x|bob|CANCELLED by 0|00:00:10|1|00:00:00||1|cpu=1,mem=1G,node=1"])
    assert job.state == "CANCELLED" and job.cpu_efficiency == 0
