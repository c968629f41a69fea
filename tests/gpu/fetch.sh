#!/usr/bin/env bash
# Fills .gpuwork for tests/gpu/device.sh: Debian 13's slurmd, slurm-wlm-nvml-plugin and munge with the
# libraries they need (from the archive, through the lab image), and the wheels the tests import.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=${GPUCLUSTER_GPUWORK:-.gpuwork}
rm -rf "$work" && mkdir -p "$work/debs" "$work/wheels" && chmod 0777 "$work/debs"
docker run --rm -v "$PWD/$work/debs:/out" gpucluster/lab:trixie bash -ec '
  sed -i "s/ main\$/ main contrib non-free non-free-firmware/" /etc/apt/sources.list
  apt-get update -qq >/dev/null
  pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
    --no-enhances --no-pre-depends slurmd slurm-wlm-nvml-plugin munge libc6 | grep "^[a-z]" | sort -u \
    | grep -E "^(lib|slurm|munge|zlib)" | grep -vE "^(libnvidia|libperl|libpam|libdebconf|libtext-|libsystemd-shared)")
  cd /out && apt-get download -qq $pkgs 2>&1 | grep -v unsandboxed || true'
.venv/bin/python -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 -d "$work/wheels" \
  "ansible-core==$(.venv/bin/python -c 'import ansible; print(ansible.__version__)')" \
  "ClusterShell==$(.venv/bin/python -c 'import ClusterShell; print(ClusterShell.__version__)')" \
  "netaddr==$(.venv/bin/python -c 'import netaddr; print(netaddr.__version__)')"
du -sh "$work"/*
