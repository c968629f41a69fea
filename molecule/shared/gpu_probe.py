"""Run in a job step on a lab node (the pilot lab's tests and the slurm role's scenario): what opening each GPU
device file of the node gave - ENXIO where the step's devices cgroup let the open through (the lab has no driver to
answer it), EPERM where the cgroup refused it - then the step's GPUs and its devices cgroup."""

import errno
import glob
import os

for path in sorted(glob.glob("/dev/nvidia[0-9]*")):
    try:
        os.close(os.open(path, os.O_RDWR))
        print(path, "opened")
    except OSError as error:
        print(path, errno.errorcode[error.errno])
step = os.environ.get("SLURM_STEP_GPUS") or os.environ.get("SLURM_JOB_GPUS", "-")
print("visible", os.environ.get("CUDA_VISIBLE_DEVICES", "-"), "step", step)
with open("/proc/self/cgroup", encoding="ascii") as cgroups:
    print("cgroup", next((line for line in cgroups.read().splitlines() if ":devices:" in line), "-"))
