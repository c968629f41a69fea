#!/usr/bin/env bash
# Installs everything the lab and the tests need on a fresh Debian 12 machine, idempotently:
# Debian packages (Docker engine, debootstrap), a running dockerd, and the Python venv in .venv
# (`scripts/bootstrap.sh system`: the packages and dockerd only).
# Safe to run again: every step checks before it acts.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '[bootstrap] %s\n' "$*"; }

need_pkgs=()
for p in docker.io debootstrap python3-venv; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need_pkgs+=("$p")
done
if ((${#need_pkgs[@]})); then
  log "installing ${need_pkgs[*]}"
  apt-get update -o Acquire::Retries=2 >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

# dockerd: started by hand where no init system runs it.
if ! docker info >/dev/null 2>&1; then
  log "starting dockerd"
  mkdir -p /var/log
  nohup /usr/sbin/dockerd >/var/log/gpucluster-dockerd.log 2>&1 &
  for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { log "dockerd did not start, see /var/log/gpucluster-dockerd.log"; exit 1; }
fi

# `scripts/bootstrap.sh system`: the Debian packages and dockerd only (scripts/lab builds the lab image meanwhile).
[[ "${1:-}" == "system" ]] && exit 0

# Python venv with the runtime (requirements.txt) and the development tools (requirements-dev.txt), pinned;
# rebuilt when either file changes.
req_hash=$(cat requirements.txt requirements-dev.txt | sha256sum | cut -c1-16)
if [[ ! -x .venv/bin/python || "$(cat .venv/.req-hash 2>/dev/null)" != "$req_hash" ]]; then
  log "creating .venv"
  python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip >/dev/null
  .venv/bin/pip install -q -r requirements-dev.txt
  echo "$req_hash" > .venv/.req-hash
fi
# promtool and amtool: the tests check the alert rules, the generated Prometheus and Alertmanager
# configurations and the dashboards' queries with them. Taken out of Debian's packages; no service installed.
if [[ ! -x .venv/bin/promtool || ! -x .venv/bin/amtool ]]; then
  log "extracting promtool and amtool from Debian's prometheus packages"
  tmp=$(mktemp -d)
  if ! (cd "$tmp" && apt-get download prometheus prometheus-alertmanager >/dev/null 2>&1); then
    apt-get update -o Acquire::Retries=2 >/dev/null 2>&1 || true
    (cd "$tmp" && apt-get download prometheus prometheus-alertmanager >/dev/null)
  fi
  for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
  install -m 0755 "$tmp/root/usr/bin/promtool" "$tmp/root/usr/bin/amtool" .venv/bin/
  rm -rf "$tmp"
fi
log "ready"
