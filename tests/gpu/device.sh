#!/usr/bin/env bash
# Runs tests/gpu (and the GPU unit tests) on a GPU host that reaches no package registry, such as the lent
# GPU machine: unpacks Debian 13's slurmd, NVML plugin and munge from .gpuwork/debs into a private root
# (run through its own dynamic loader, so the host's libc does not matter), installs the wheels of
# .gpuwork/wheels, and points Slurm at the host driver's libnvidia-ml. tests/gpu/fetch.sh fills .gpuwork.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=${GPUCLUSTER_GPUWORK:-.gpuwork}
root=/opt/gpucluster-slurm
mkdir -p "$root" /tmp/gpucluster-site
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
# What Debian's update-alternatives does at install; Slurm also tells its daemons apart by this name.
ln -sf slurmd-wlm "$root/usr/sbin/slurmd"
python3 -m pip install -q --upgrade --no-index --no-deps --no-compile --target /tmp/gpucluster-site "$work"/wheels/*.whl
nvml=$(ldconfig -p | awk '/libnvidia-ml\.so\.1 /{print $NF; exit}')
[ -n "$nvml" ] || nvml=$(find / -xdev -name 'libnvidia-ml.so.1' 2>/dev/null | head -1)
# Slurm < 23.02 opens the unversioned name, which Debian's libnvidia-ml-dev provides on real nodes.
mkdir -p "$root/nvml"
ln -sf "$nvml" "$root/nvml/libnvidia-ml.so.1"
ln -sf "$nvml" "$root/nvml/libnvidia-ml.so"
export PYTHONPATH=/tmp/gpucluster-site GPUCLUSTER_NVML_SLURM=$root GPUCLUSTER_NVML_LIBDIR=$root/nvml
nvidia-smi
exec python3 -m pytest -v -rs -p no:cacheprovider tests/gpu tests/unit/test_gpu_facts.py tests/unit/test_gpu_check.py "$@"
