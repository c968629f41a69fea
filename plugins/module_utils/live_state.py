"""What a running cluster's controllers hold that the inventory must agree with, read before any host changes.

slurmctld writes its ClusterName into StateSaveLocation (the ``clustername`` file: ``name`` up to 23.02,
``name|cluster id`` since) and stops at its next start on state of another name ("fatal: CLUSTER NAME MISMATCH",
checked on 22.05, 24.11 and 26.05): a changed ``cluster_name`` (a pod's name in a federation) would take the
controller down at the deploy's restart, with every queued job in the state it refuses to read.

A StateSaveLocation moved in the inventory while slurmctld runs from the old one is the other way to lose the jobs:
restarted on a directory without its state, slurmctld starts empty ("Could not open job state file ... Jobs may be
lost") and kills the jobs the nodes still run, which it no longer knows.
"""

from __future__ import annotations

import posixpath
import re


def held_cluster_name(text: str) -> str:
    """The ClusterName a ``clustername`` file holds ("" for none): its text before the cluster id."""
    return text.split("|", 1)[0].strip()


def state_cluster_error(host: str, state_save_location: str, held: str, cluster: str, pod: str = "") -> str:
    """The refusal of a run whose ClusterName for ``host`` (``pod`` in a federation, else ``cluster``) is not the
    one its StateSaveLocation holds (``held``, "" where there is no state yet); "" when they agree."""
    expected = pod or cluster
    if not held or held.lower() == expected.lower():  # slurmctld writes the name in lower case
        return ""
    setting = (
        f"its pod is '{pod}' in cluster_federation.pods (a pod's name is its ClusterName)"
        if pod
        else f"cluster_name is '{cluster}'"
    )
    return (
        f"{host}: StateSaveLocation {state_save_location} holds the state of the running cluster '{held}', but "
        f"{setting}: slurmctld refuses to start on another cluster's state (CLUSTER NAME MISMATCH), so this run's "
        f"restart would stop the controller with every queued job. Keep the name '{held}'; a rename is a migration "
        "(drain the cluster, a new StateSaveLocation; its accounting records stay under the old name)"
    )


def config_value(config: str, key: str) -> str:
    """A value of `scontrol show config` output ("Key = value"); "" where the key is not there."""
    match = re.search(rf"(?m)^{key}\s*=\s*(.*?)\s*$", config)
    return match.group(1) if match else ""


def state_move_error(host: str, running_config: str, state_save_location: str, imported_from: str = "") -> str:
    """The refusal of a run that gives slurmctld another StateSaveLocation than the one it runs with
    (``running_config``: `scontrol show config` on the controller, "" where no slurmctld answered); "" when they
    agree, when none runs, or when the run itself moves the state from there (``imported_from``: a phase upgrade's
    pacemaker_state_import_from)."""
    running = config_value(running_config, "StateSaveLocation")
    if not running or not state_save_location:
        return ""
    kept = {posixpath.normpath(path) for path in (state_save_location, imported_from) if path}
    if posixpath.normpath(running) in kept:
        return ""
    cluster = config_value(running_config, "ClusterName")
    return (
        f"{host}: slurmctld of the cluster '{cluster}' runs with its state in {running}, but the inventory gives it "
        f"StateSaveLocation {state_save_location} (cluster_slurm_config, or the pod's slurm_config): restarted there, "
        "slurmctld would start without its state and kill every job the nodes still run. Move the state first - stop "
        f"slurmctld, copy {running} to {state_save_location} (cp -a, as its owner), then run again - or keep "
        f"StateSaveLocation: {running}"
    )
