"""The node health program: each check against a fake host, drain/resume against a fake scontrol."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.helpers.fake_slurm import FakeScontrol
from tests.helpers.tools import load_tool

health = load_tool("cluster", "gpucluster-node-health")

MOUNTS = """\
overlay / overlay rw 0 0
server:/home /home nfs4 rw,vers=4.2 0 0
tmpfs /scratch tmpfs rw,size=65536k 0 0
/dev/sdb1 /data\\040set xfs rw 0 0
"""


class FakeHost(FakeScontrol):
    """Answers scontrol, systemctl, stat -f and the GPU check like the real tools; records updates."""

    def __init__(self, state: str = "IDLE", reason: str = "") -> None:
        super().__init__(state, reason)
        self.services = {"munge": "active", "slurmd": "active"}
        self.statfs = {"/home": "1000 900", "/scratch": "1000 500"}
        self.gpu = '{"node": "gpu01", "problems": [], "action": ""}'

    def __call__(self, argv: Sequence[str], timeout: float) -> tuple[int, str]:
        assert timeout < 60, "slurmd kills the program after 60 s"
        self.calls.append(list(argv))
        answer = self.scontrol(argv)
        if answer is not None:
            return answer
        if argv[:2] == ["systemctl", "is-active"]:
            states = [self.services.get(unit, "inactive") for unit in argv[2:]]
            return (0 if set(states) == {"active"} else 3), "\n".join(states)
        if argv[:2] == ["stat", "-f"]:
            for mount, blocks in self.statfs.items():
                if argv[-1].endswith(mount):
                    return (124, "no answer within 10 s") if blocks == "hang" else (0, blocks)
            raise AssertionError(argv)
        if argv[0] == health.GPU_CHECK:
            return 0, self.gpu
        raise AssertionError(argv)


def _root(tmp_path: Path, mounts: str = MOUNTS, available_kb: int = 8_000_000) -> Path:
    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/self/mounts").write_text(mounts)
    (tmp_path / "proc/meminfo").write_text(f"MemTotal: 16000000 kB\nMemAvailable: {available_kb} kB\n")
    return tmp_path


def _config(tmp_path: Path, **checks: object) -> Path:
    body = {"mounts": [], "services": [], "min_free_memory_mb": 0, "rdma_active_ports": 0, "gpu": True}
    body.update(checks)
    path = tmp_path / "node-health.json"
    path.write_text(json.dumps({"node": "gpu01", "checks": body}))
    return path


def test_mount_table_decodes_octal_escapes(tmp_path: Path) -> None:
    assert health.mount_table(_root(tmp_path))["/data set"] == "xfs"


def test_mounts_missing_wrong_type_full_and_hung(tmp_path: Path) -> None:
    root, host = _root(tmp_path), FakeHost()
    mounts = [
        {"path": "/home", "fstype": "nfs4", "min_free_percent": 5},
        {"path": "/apps"},
        {"path": "/scratch", "fstype": "xfs"},
    ]
    assert health.check_mounts(mounts, root, host) == ["/apps not mounted", "/scratch is tmpfs, expected xfs"]
    host.statfs["/scratch"] = "1000 40"
    assert health.check_mounts([{"path": "/scratch", "min_free_percent": 10}], root, host) == [
        "/scratch 96% full (keep 10% free)"
    ]
    host.statfs["/home"] = "hang"
    assert health.check_mounts([{"path": "/home"}], root, host) == ["/home not answering (no answer within 10 s)"]


def test_nfs_is_any_nfs_version_and_nfs4_only_version_4(tmp_path: Path) -> None:
    """fstab's `nfs` mounts version 4 where the server has it, which /proc/mounts shows as nfs4: a check copied from
    fstab must not drain every node."""
    root, host = _root(tmp_path), FakeHost()
    assert health.check_mounts([{"path": "/home", "fstype": "nfs"}], root, host) == []
    assert health.check_mounts([{"path": "/home", "fstype": "nfs4"}], root, host) == []
    assert health.check_mounts([{"path": "/home", "fstype": "lustre"}], root, host) == [
        "/home is nfs4, expected lustre"
    ]
    assert health.check_mounts([{"path": "/scratch", "fstype": "nfs"}], root, host) == [
        "/scratch is tmpfs, expected nfs"
    ]


def test_services_name_the_unit_and_its_state() -> None:
    host = FakeHost()
    host.services["munge"] = "failed"
    assert health.check_services(["munge", "slurmd", "sshd"], host) == ["munge failed", "sshd inactive"]


def test_memory_is_judged_only_on_a_node_without_jobs(tmp_path: Path) -> None:
    root = _root(tmp_path, available_kb=300 * 1024)
    assert health.check_memory(1024, root, "IDLE") == ["300 MiB free with no job running (want 1024)"]
    assert health.check_memory(1024, root, "IDLE+DRAIN") == ["300 MiB free with no job running (want 1024)"]
    assert health.check_memory(1024, root, "MIXED") == []
    assert health.check_memory(1024, root, "ALLOCATED") == []
    assert health.check_memory(0, root, "IDLE") == []


def test_rdma_ports(tmp_path: Path) -> None:
    for port, state in (("mlx5_0/ports/1", "4: ACTIVE"), ("mlx5_1/ports/1", "1: DOWN")):
        (tmp_path / "sys/class/infiniband" / port).mkdir(parents=True)
        (tmp_path / "sys/class/infiniband" / port / "state").write_text(state)
    assert health.check_rdma(2, tmp_path) == ["1 of 2 RDMA ports ACTIVE"]
    assert health.check_rdma(1, tmp_path) == []


def test_gpu_problems_come_from_the_gpu_check_on_gpu_nodes(tmp_path: Path) -> None:
    host = FakeHost()
    host.gpu = '{"node": "gpu01", "problems": ["missing /dev/nvidia1"], "action": ""}'
    assert health.check_gpu(True, tmp_path, host) == []  # not a GPU node: no gpu-check.json
    (tmp_path / "etc/gpucluster").mkdir(parents=True)
    (tmp_path / "etc/gpucluster/gpu-check.json").write_text("{}")
    assert health.check_gpu(True, tmp_path, host) == ["gpu: missing /dev/nvidia1"]
    assert [health.GPU_CHECK, "--json"] in host.calls, "the GPU check must not drain on its own"
    assert health.check_gpu(False, tmp_path, host) == []
    host.gpu = "Traceback: boom"
    assert health.check_gpu(True, tmp_path, host) == ["gpu check did not run: Traceback: boom"]


def test_drain_with_reason_then_resume_when_fixed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, host = _root(tmp_path), FakeHost()
    argv = ["--config", str(_config(tmp_path, mounts=[{"path": "/scratch", "min_free_percent": 10}])), "--root"]
    host.statfs["/scratch"] = "1000 0"
    assert health.main([*argv, str(root)], host) == 1
    assert capsys.readouterr().out.strip() == "FAIL: /scratch 100% full (keep 10% free) (drained)"
    assert (host.state, host.reason) == ("IDLE+DRAIN", "health: /scratch 100% full (keep 10% free)")
    assert health.main([*argv, str(root)], host) == 1
    assert capsys.readouterr().out.strip().endswith("(already drained)")
    host.statfs["/scratch"] = "1000 999"
    assert health.main([*argv, str(root)], host) == 0
    assert capsys.readouterr().out.strip() == "OK (resumed)"
    assert (host.state, host.reason) == ("IDLE", "")


def test_new_problems_replace_its_own_reason(tmp_path: Path) -> None:
    host = FakeHost(state="IDLE+DRAIN", reason="health: munge failed")
    assert health.reconcile("gpu01", host.state, host.reason, ["sshd inactive"], host) == "drained"
    assert host.reason == "health: sshd inactive"


def test_an_administrators_drain_is_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _root(tmp_path)
    host = FakeHost(state="IDLE+DRAIN", reason="replacing PSU")
    config = str(_config(tmp_path, services=["munge"]))
    assert health.main(["--config", config, "--root", str(root)], host) == 0
    assert host.reason == "replacing PSU" and not [c for c in host.calls if c[:2] == ["scontrol", "update"]]
    host.services["munge"] = "failed"
    assert health.main(["--config", config, "--root", str(root), "--json"], host) == 1
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert result["action"] == "left drained for: replacing PSU"
    assert result["problems"] == ["munge failed"]


def test_no_drain_reports_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, host = _root(tmp_path), FakeHost()
    host.services["munge"] = "inactive"
    config = str(_config(tmp_path, services=["munge"]))
    assert health.main(["--config", config, "--root", str(root), "--no-drain"], host) == 1
    assert capsys.readouterr().out.strip() == "FAIL: munge inactive"
    assert host.state == "IDLE"


def test_long_reasons_are_cut_to_what_slurm_shows(tmp_path: Path) -> None:
    host = FakeHost()
    problems = [f"/mnt/volume{i} not mounted" for i in range(20)]
    health.reconcile("gpu01", "IDLE", "", problems, host)
    assert host.reason.startswith("health: /mnt/volume0 not mounted;") and len(host.reason) == health.MAX_REASON
