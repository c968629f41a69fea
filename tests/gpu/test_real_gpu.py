"""Checks on a host with a real NVIDIA GPU (skipped elsewhere, with the reason).

- gpu_facts reads the same GPUs and driver version as nvidia-smi;
- gpucluster-gpu-check's nvidia-smi checks agree with nvidia-smi's own report (count, model, persistence
  mode, uncorrected ECC), and a node type that declares one GPU too many fails;
- DCGM lists the GPUs (where DCGM is installed);
- slurmd with AutoDetect=nvml finds the GRES the cluster model declares, on the same device files as the
  model's File= lines. This needs a Slurm built with NVML: GPUCLUSTER_NVML_SLURM names a directory with
  Debian's slurmd, slurm-wlm-nvml-plugin and munge unpacked (tests/gpu/device.sh prepares one).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import expand
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_cluster
from ansible_collections.gpucluster.cluster.plugins.module_utils.slurmconf import gres_lines, node_lines
from ansible_collections.gpucluster.cluster.plugins.module_utils.validate import GPU_CATALOGUE
from ansible_collections.gpucluster.cluster.plugins.modules.gpu_facts import gpu_host

from tests.helpers.tools import load_tool, render_torchrun_sbatch, stand_in

check = load_tool("gpu", "gpucluster-gpu-check")


def _smi(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["nvidia-smi", *args], capture_output=True, text=True, timeout=120, check=False)


def _gpu_reason() -> str:
    if not shutil.which("nvidia-smi"):
        return "no NVIDIA GPU on this host: nvidia-smi not found"
    listed = _smi("-L")
    if listed.returncode != 0 or "GPU 0" not in listed.stdout:
        return f"no NVIDIA GPU on this host: nvidia-smi -L says {(listed.stdout + listed.stderr).strip()[:200]}"
    return ""


pytestmark = pytest.mark.skipif(bool(_gpu_reason()), reason=_gpu_reason() or "-")

FIELDS = "index,name,driver_version,persistence_mode,ecc.errors.uncorrected.volatile.total,pci.bus_id"


@pytest.fixture(scope="module")
def gpus() -> list[dict[str, str]]:
    out = _smi(f"--query-gpu={FIELDS}", "--format=csv,noheader,nounits")
    assert out.returncode == 0, out.stderr
    keys = FIELDS.split(",")
    return [dict(zip(keys, (c.strip() for c in line.split(",")), strict=True)) for line in out.stdout.splitlines()]


def _gpu_type(name: str) -> str:
    """The catalogue's type for an NVML name: the longest catalogue name it contains (H200 before H20)."""
    matches = [(len(v), k) for k, v in GPU_CATALOGUE.items() if v.lower() in name.lower()]
    assert matches, f"{name} is not in the GPU catalogue (validate.py)"
    return max(matches)[1]


def test_facts_match_nvidia_smi(gpus: list[dict[str, str]]) -> None:
    facts = gpu_host(Path("/"), os.uname().release)
    print(json.dumps(facts, indent=1))
    assert len(facts["gpus"]) == len(gpus), "PCI GPUs in sysfs vs nvidia-smi"
    assert facts["driver_loaded"] and facts["driver_version"] == gpus[0]["driver_version"]
    assert [f"/dev/nvidia{g['index']}" for g in gpus] == facts["device_files"][: len(gpus)]
    sysfs = {g["pci"].lower() for g in facts["gpus"]}
    assert {g["pci.bus_id"].lower()[-12:] for g in gpus} == {a[-12:] for a in sysfs}


def _config(gpus: list[dict[str, str]], **over: Any) -> dict[str, Any]:
    gpu_type = _gpu_type(gpus[0]["name"])
    return {
        "node": "gpunode",
        "type": gpu_type,
        "nvml_name": GPU_CATALOGUE[gpu_type],
        "count": len(gpus),
        "devices": [f"/dev/nvidia{g['index']}" for g in gpus],
        "autodetect": "nvml",
        "hardware": True,
        "persistence": True,
        "rdma_active_ports": 0,
        "dcgm": False,
        "conf_cache": "/nonexistent",
        **over,
    }


def test_check_agrees_with_nvidia_smi(gpus: list[dict[str, str]]) -> None:
    problems = check.problems_of(_config(gpus), Path("/"), check.run, gres=False)
    print(gpus, problems)
    expected = []
    off = [g["index"] for g in gpus if g["persistence_mode"] != "Enabled"]
    if off:
        expected.append(f"persistence mode off on GPU {','.join(off)}")
    ecc = [
        g["index"]
        for g in gpus
        if g["ecc.errors.uncorrected.volatile.total"].isdigit() and int(g["ecc.errors.uncorrected.volatile.total"]) > 0
    ]
    if ecc:
        expected.append(f"uncorrected ECC errors on GPU {','.join(ecc)}")
    assert problems == expected
    more = check.problems_of(_config(gpus, count=len(gpus) + 1, persistence=False), Path("/"), check.run, gres=False)
    assert f"nvidia-smi sees {len(gpus)} of {len(gpus) + 1} GPUs" in more
    assert f"{len(gpus)} of {len(gpus) + 1} GPUs on the PCI bus" in more


def test_dcgm_discovers_the_gpus(gpus: list[dict[str, str]]) -> None:
    if not shutil.which("dcgmi"):
        pytest.skip("DCGM is not installed on this host (NVIDIA's repository is not reachable from it)")
    out = subprocess.run(["dcgmi", "discovery", "-l"], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"{len(gpus)} GPU" in out.stdout


# --- slurmd with NVML -------------------------------------------------------------------------------------

SLURM_ROOT = os.environ.get("GPUCLUSTER_NVML_SLURM", "")


@pytest.fixture(scope="module")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """munged running from the unpacked packages, and the paths slurmd -G needs."""
    slurmd = Path(SLURM_ROOT, "usr/sbin/slurmd")  # a link to Debian's slurmd-wlm (device.sh)
    if not SLURM_ROOT or not slurmd.exists():
        pytest.skip("no Slurm with the NVML plugin here: set GPUCLUSTER_NVML_SLURM (tests/gpu/device.sh)")
    root = Path(SLURM_ROOT)
    lib = root / "usr/lib/x86_64-linux-gnu"
    loader = lib / "ld-linux-x86-64.so.2"
    libpath = f"{lib}:{lib / 'slurm-wlm'}:{os.environ.get('GPUCLUSTER_NVML_LIBDIR', '')}"
    work = tmp_path_factory.mktemp("slurm")
    work.chmod(0o700)
    key = work / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    sock = work / "munge.sock"
    munged = [
        str(loader),
        "--library-path",
        libpath,
        str(root / "usr/sbin/munged"),
        "--foreground",
        f"--key-file={key}",
        f"--socket={sock}",
        f"--pid-file={work / 'munged.pid'}",
        f"--log-file={work / 'munged.log'}",
        f"--seed-file={work / 'munged.seed'}",
        "--force",
    ]
    daemon = subprocess.Popen(munged, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    for _ in range(50):
        if sock.exists():
            break
        time.sleep(0.1)
    assert sock.exists(), (
        (work / "munged.log").read_text() if (work / "munged.log").exists() else "munged did not start"
    )
    yield {"root": root, "slurmd": slurmd, "loader": loader, "libpath": libpath, "work": work, "sock": sock}
    daemon.terminate()
    daemon.wait(10)


def _slurmd_gres(slurm: dict[str, Any], gpus: list[dict[str, str]], autodetect: str) -> tuple[str, dict[str, Any]]:
    """Render the model's node and gres.conf lines for this host and let slurmd -G read them."""
    gpu_type = _gpu_type(gpus[0]["name"])
    spec = {
        "name": "gpulab",
        "slurm_release": "24.11",
        "node_types": {
            "gpu": {
                "group": "compute_gpu",
                "sockets": 1,
                "cores_per_socket": os.cpu_count() or 1,
                "real_memory_mb": 1024,
                "gpu": {"type": gpu_type, "count": len(gpus), "autodetect": autodetect},
            }
        },
        "partitions": [{"name": "gpu", "node_types": ["gpu"], "default": True}],
        "qos": {"normal": {}},
    }
    groups = {
        "controllers": ["ctl"],
        "dbd": ["ctl"],
        "login": [],
        "storage": [],
        "compute": ["gpunode"],
        "compute_gpu": ["gpunode"],
    }
    cluster = build_cluster(spec, groups)
    node_type = cluster.node_types[0]
    conf = slurm["work"] / f"{autodetect}"
    conf.mkdir(exist_ok=True)
    (conf / "slurm.conf").write_text(
        "\n".join(
            [
                "ClusterName=gpulab",
                "SlurmctldHost=ctl",
                f"AuthInfo=socket={slurm['sock']}",
                f"PluginDir={slurm['root'] / 'usr/lib/x86_64-linux-gnu/slurm-wlm'}",
                "GresTypes=gpu",
                # No cgroup or systemd scope for this one-off slurmd -G (the test host runs no systemd).
                "ProctrackType=proctrack/pgid",
                "TaskPlugin=task/none",
                f"SlurmdSpoolDir={conf}",
                *node_lines(node_type),
                "PartitionName=gpu Nodes=ALL Default=YES",
                "",
            ]
        )
    )
    (conf / "gres.conf").write_text("\n".join(gres_lines(node_type)) + "\n")
    (conf / "cgroup.conf").write_text("CgroupPlugin=autodetect\nIgnoreSystemd=yes\n")
    argv = [
        str(slurm["loader"]),
        "--library-path",
        slurm["libpath"],
        str(slurm["slurmd"]),
        "-f",
        str(conf / "slurm.conf"),
        "-N",
        "gpunode",
        "-G",
    ]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    text = out.stdout + out.stderr
    print((conf / "gres.conf").read_text(), text)
    config = {**_config(gpus), "autodetect": autodetect, "type": gpu_type}
    return text, config


def test_autodetect_finds_the_models_gres(slurm: dict[str, Any], gpus: list[dict[str, str]]) -> None:
    nvml, config = _slurmd_gres(slurm, gpus, "nvml")
    detected = [g for g in check.parse_gres(nvml) if g.get("Name") == "gpu"]
    assert detected, nvml
    assert check.check_gres(config, Path("/"), lambda argv: (0, nvml)) == []
    files, _ = _slurmd_gres(slurm, gpus, "off")
    declared = [g for g in check.parse_gres(files) if g.get("Name") == "gpu"]
    assert sum(int(g["Count"]) for g in detected) == sum(int(g["Count"]) for g in declared) == len(gpus)
    # slurmd folds File= lists (/dev/nvidia[0-1]); both modes must name the same devices.
    assert sorted(f for g in detected for f in expand(g["File"])) == sorted(
        f for g in declared for f in expand(g["File"])
    )


# --- NCCL reads the role's nccl.conf ---------------------------------------------------------------------

NCCL_PROBE = """
import os, torch, torch.distributed as dist
dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29533?use_libuv=0", rank=0, world_size=1)
x = torch.ones(4, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
print("SUM", x.sum().item())
dist.destroy_process_group()
"""


def test_nccl_reads_the_roles_nccl_conf(tmp_path: Path) -> None:
    """NCCL reads the role's file: given as NCCL_CONF_FILE here, so the test leaves the host's /etc/nccl.conf alone."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or not torch.distributed.is_nccl_available():
        pytest.skip("PyTorch here has no CUDA or no NCCL")
    jinja2 = pytest.importorskip("jinja2")
    template = Path(__file__).resolve().parents[2] / "roles/gpu/templates/nccl.conf.j2"
    conf = jinja2.Template(template.read_text(), keep_trailing_newline=True, trim_blocks=True).render(
        __gpu_nccl_conf={"NCCL_SOCKET_IFNAME": "lo", "NCCL_IB_DISABLE": 1, "NCCL_DEBUG_SUBSYS": "INIT,NET"}
    )
    (tmp_path / "nccl.conf").write_text(conf)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NCCL_")}
    env.update(NCCL_CONF_FILE=str(tmp_path / "nccl.conf"), NCCL_DEBUG="INFO")
    out = subprocess.run(
        [sys.executable, "-c", NCCL_PROBE], capture_output=True, text=True, timeout=300, env=env, check=False
    )
    log = out.stdout + out.stderr
    print(conf, log[-3000:])
    assert out.returncode == 0 and "SUM 4.0" in log, log[-3000:]
    # The file's interface (lo, not the host's default) carries the socket transport.
    assert "NCCL_SOCKET_IFNAME set to lo" in log, log[-3000:]
    assert "NET/Socket : Using [0]lo:" in log, log[-3000:]


EXAMPLE = Path(__file__).resolve().parents[2] / "roles/user_env/files/examples/ddp_train.py"


@pytest.mark.parametrize("launcher", ["torchrun", "srun"])
def test_the_ddp_example_trains_on_the_gpu_with_nccl(tmp_path: Path, launcher: str) -> None:
    """The users' DDP example (roles/user_env/files/examples/ddp_train.py), which the labs run on CPUs with Gloo,
    on this GPU: NCCL's all-reduce, DDP on CUDA, a checkpoint a second run resumes from. One rank (NCCL takes one
    GPU per rank), started as torchrun.sbatch starts it (torchrun's rendezvous) and as ddp.sbatch does (srun's
    SLURM_* variables, a TCP rendezvous)."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or not torch.distributed.is_nccl_available():
        pytest.skip("PyTorch here has no CUDA or no NCCL")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NCCL_", "SLURM_", "TORCHELASTIC_"))}
    env.update(NCCL_DEBUG="INFO", NCCL_DEBUG_SUBSYS="INIT")
    if launcher == "torchrun":
        start = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=1", str(EXAMPLE)]
    else:
        env.update(SLURM_PROCID="0", SLURM_NTASKS="1", SLURM_LOCALID="0", MASTER_ADDR="127.0.0.1", MASTER_PORT="29533")
        start = [sys.executable, str(EXAMPLE)]
    checkpoint = tmp_path / "ddp.pt"
    runs = []
    for steps in (5, 8):
        out = subprocess.run(
            [*start, "--steps", str(steps), "--checkpoint", str(checkpoint)],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
            check=False,
        )
        runs.append(out.stdout + out.stderr)
        assert out.returncode == 0, runs[-1][-3000:]
    first, second = runs
    print(first[-1500:], second[-1500:])
    assert "rank 0/1 on" in first and "all_reduce=1 expected=1" in first, first[-3000:]
    assert "NCCL INFO" in first, "the all-reduce did not go through NCCL"
    assert "trained 5 steps on 1 ranks" in first and checkpoint.is_file()
    assert "rank 0: resumed from step 5" in second and "trained 8 steps on 1 ranks" in second, second[-3000:]


SRUN_STAND_IN = """#!/bin/sh
# Stands in for Slurm's launcher on this host (no slurmctld here): one node, so one task - the command itself.
while [ "${1#--}" != "$1" ]; do shift; done
exec "$@"
"""
SCONTROL_STAND_IN = """#!/bin/sh
# scontrol show hostnames <list>: the names, one per line.
[ "$1 $2" = "show hostnames" ] && echo "$3" | tr , '\\n'
"""


@pytest.mark.parametrize("store", ["tcp", "file"])
def test_torchrun_sbatch_meets_in_its_rendezvous_on_the_gpu(tmp_path: Path, store: str) -> None:
    """The users' torchrun.sbatch itself (rendered from the user_env role's template) on this GPU, through each of its
    rendezvous stores: c10d over TCP on the job's first node (PyTorch with libuv) and the file in the job's working
    directory (Debian 13's PyTorch, TORCHRUN_RDZV_STORE=file here), NCCL's all-reduce on the GPU. srun and scontrol are
    stand-ins (one node, no slurmctld on this host); what runs is the script's own torchrun command line."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available() or not torch.distributed.is_nccl_available():
        pytest.skip("PyTorch here has no CUDA or no NCCL")
    script = render_torchrun_sbatch(sys.executable, str(EXAMPLE.parent))
    (tmp_path / "torchrun.sbatch").write_text(script)
    bin_dir = tmp_path / "bin"
    stand_in(bin_dir, "srun", SRUN_STAND_IN)
    stand_in(bin_dir, "scontrol", SCONTROL_STAND_IN)
    job = tmp_path / "job"
    job.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NCCL_", "SLURM_", "TORCHELASTIC_", "TORCHRUN_"))}
    env.update(
        PATH=f"{bin_dir}:{env['PATH']}",
        SLURM_JOB_ID="4242",
        SLURM_NNODES="1",
        SLURM_JOB_NODELIST="localhost",
        SLURM_GPUS_ON_NODE="1",
        TORCHRUN_RDZV_STORE=store,
        NCCL_DEBUG="INFO",
        NCCL_DEBUG_SUBSYS="INIT",
    )
    out = subprocess.run(
        ["bash", str(tmp_path / "torchrun.sbatch"), "--steps", "3", "--checkpoint", str(job / "ddp.pt")],
        cwd=job,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    log = out.stdout + out.stderr
    print(log[-3000:])
    assert out.returncode == 0, log[-3000:]
    assert "rank 0/1 on" in log and "all_reduce=1 expected=1" in log, log[-3000:]
    assert "NCCL INFO" in log, "the all-reduce did not go through NCCL"
    assert "trained 3 steps on 1 ranks" in log, log[-3000:]
    said_file = "the rendezvous goes through" in log
    assert said_file == (store == "file"), log[-3000:]
    # The file store's rendezvous file is the job's own and is gone when the job ends.
    assert not list(job.glob(".torchrun-rdzv-*"))
