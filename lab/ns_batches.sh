#!/bin/bash
# Lab only, run in each compute container by molecule/pilot/prepare.yml: lets job_container/tmpfs pin its jobs'
# mount namespaces on this machine's kernel (docs/inventory.md, cluster_job_tmpfs).
#
# Linux 6.18 numbers namespaces from per-CPU batches, and refuses to bind-mount a mount namespace's nsfs file
# (/proc/<pid>/ns/mnt, which job_container/tmpfs keeps for each job) where the new namespace numbers below the
# caller's own - here the container's, made at its start. A CPU still drawing from a batch older than the
# container's namespace is such a CPU, until it has used that batch up. So, for each CPU: make a mount namespace
# there and try the bind mount from this namespace; while it is refused, make throwaway mount namespaces on that
# CPU (it then draws a newer batch, above every namespace made before). Batches only move forward, so once each
# CPU passes, every namespace made later numbers above this container's - for the container's life.
#
# Prints one line per CPU; exit status 1 if a CPU still refuses after MAX_ROUNDS rounds of ROUND namespaces
# (batches hold 4096 ids, so 24 rounds of 256 are more than one batch).
set -euo pipefail

ROUND=256
MAX_ROUNDS=24
work=$(mktemp -d /run/ns-batches.XXXXXX)
trap 'umount "$work/ns" 2>/dev/null || true; rm -rf "$work"' EXIT
touch "$work/ns"
own=$(readlink /proc/self/ns/mnt)

# 0 when a mount namespace made on CPU $1 can be bind-mounted from here
pinnable() {
  local pid status=1
  taskset -c "$1" unshare --mount --propagation private sleep 30 &
  pid=$!
  for _ in $(seq 200); do
    [ "$(readlink "/proc/$pid/ns/mnt" 2>/dev/null)" != "$own" ] && break
    sleep 0.01
  done
  if mount --bind "/proc/$pid/ns/mnt" "$work/ns" 2>/dev/null; then
    umount "$work/ns"
    status=0
  fi
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  return "$status"
}

failed=0
for cpu in $(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0)))'); do
  made=0
  until pinnable "$cpu"; do
    if [ "$made" -ge $((ROUND * MAX_ROUNDS)) ]; then
      echo "cpu $cpu: still refused after $made throwaway namespaces"
      failed=1
      continue 2
    fi
    taskset -c "$cpu" sh -c "i=0; while [ \$i -lt $ROUND ]; do unshare --mount true; i=\$((i + 1)); done"
    made=$((made + ROUND))
  done
  if [ "$made" -gt 0 ]; then
    echo "cpu $cpu: made $made throwaway namespaces, then pinned"
  else
    echo "cpu $cpu: pinned"
  fi
done
exit "$failed"
