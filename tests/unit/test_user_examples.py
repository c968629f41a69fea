"""The users' torchrun.sbatch refuses a rendezvous store it does not know before any node starts (the script's
training runs in the pilot lab on CPUs and in tests/gpu on a real GPU)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.tools import render_torchrun_sbatch, stand_in


def test_torchrun_sbatch_refuses_an_unknown_rendezvous_store(tmp_path: Path) -> None:
    script = tmp_path / "torchrun.sbatch"
    script.write_text(render_torchrun_sbatch(sys.executable, str(tmp_path)))
    bin_dir = tmp_path / "bin"
    stand_in(bin_dir, "srun", f'#!/bin/sh\ntouch "{tmp_path}/srun-ran"\n')
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "SLURM_JOB_ID": "7",
        "SLURM_NNODES": "2",
        "SLURM_JOB_NODELIST": "gpu[01-02]",
        "TORCHRUN_RDZV_STORE": "nfs",
    }
    out = subprocess.run(["bash", str(script)], env=env, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert out.returncode == 1
    assert "TORCHRUN_RDZV_STORE is 'nfs': it is file or tcp (or unset: chosen by PyTorch)" in out.stderr
    assert not (tmp_path / "srun-ran").exists()
