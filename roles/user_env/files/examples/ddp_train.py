#!/usr/bin/env python3
"""Multi-node PyTorch DistributedDataParallel, one process per GPU, launched by srun (ddp.sbatch), by torchrun
on each node (torchrun.sbatch) or by a launcher per node from a hostfile, as DeepSpeed's (hostfile.sbatch).

Ranks come from the launcher (RANK, WORLD_SIZE, LOCAL_RANK) where one started the process, else from Slurm
(SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID); MASTER_ADDR/MASTER_PORT from the batch script or torchrun.
NCCL on GPUs; Gloo on CPUs when no GPU is visible. Checks an all-reduce, trains a small model for a few steps,
and checkpoints so that a requeued job resumes (--checkpoint).
"""

from __future__ import annotations

import argparse
import os
import socket
from pathlib import Path

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--checkpoint", type=Path, default=None)
    args = parser.parse_args()

    # torchrun's agent holds the rendezvous store on MASTER_ADDR:MASTER_PORT; under a hostfile launcher rank 0
    # holds it: env:// does either
    launched = "RANK" in os.environ and "WORLD_SIZE" in os.environ
    if launched:
        rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
        local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    else:  # started by srun, one task per rank
        rank, world = int(os.environ["SLURM_PROCID"]), int(os.environ["SLURM_NTASKS"])
        local_rank = int(os.environ.get("SLURM_LOCALID", "0"))
    use_gpu = torch.cuda.is_available()
    if use_gpu:
        # Slurm's CUDA_VISIBLE_DEVICES lists the job's GPUs on this node; one per local rank.
        torch.cuda.set_device(local_rank % torch.cuda.device_count())
    device = torch.device("cuda") if use_gpu else torch.device("cpu")
    init_method = "env://" if launched else f"tcp://{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}"
    backend = "nccl" if use_gpu else "gloo"
    try:
        dist.init_process_group(backend, init_method=init_method, rank=rank, world_size=world)
    except RuntimeError as exc:
        # Builds without libuv (Debian's) need the older TCPStore backend.
        if "libuv" not in str(exc):
            raise
        dist.init_process_group(backend, init_method=init_method + "?use_libuv=0", rank=rank, world_size=world)

    total = torch.tensor([float(rank + 1)], device=device)
    dist.all_reduce(total)
    expected = world * (world + 1) / 2
    host = socket.gethostname()
    print(f"rank {rank}/{world} on {host}: all_reduce={total.item():g} expected={expected:g}", flush=True)
    if total.item() != expected:
        raise SystemExit(f"rank {rank}: all_reduce gave {total.item()}, expected {expected}")

    torch.manual_seed(0)
    model = DistributedDataParallel(torch.nn.Linear(16, 1).to(device), device_ids=[device.index] if use_gpu else None)
    optimiser = torch.optim.SGD(model.parameters(), lr=0.05)
    start = 0
    if args.checkpoint and args.checkpoint.exists():
        state = torch.load(args.checkpoint, map_location=device)
        model.module.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        start = state["step"]
        print(f"rank {rank}: resumed from step {start}", flush=True)
    inputs = torch.randn(64, 16, device=device)
    targets = inputs.sum(dim=1, keepdim=True)
    loss = torch.tensor(0.0)
    for step in range(start, args.steps):
        optimiser.zero_grad()
        loss = torch.nn.functional.mse_loss(model(inputs), targets)
        loss.backward()  # DDP all-reduces the gradients here
        optimiser.step()
        if args.checkpoint and rank == 0:
            state = {"model": model.module.state_dict(), "optimiser": optimiser.state_dict(), "step": step + 1}
            # Write aside, then rename: a job killed mid-write (requeue, preemption) keeps the last good one.
            partial = args.checkpoint.with_name(args.checkpoint.name + ".partial")
            torch.save(state, partial)
            os.replace(partial, args.checkpoint)
    if rank == 0:
        print(f"trained {args.steps} steps on {world} ranks: loss {loss.item():.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
