"""What a running cluster's controllers hold that the inventory must agree with, read before any host changes.

slurmctld writes its ClusterName into StateSaveLocation (the ``clustername`` file: ``name`` up to 23.02,
``name|cluster id`` since) and stops at its next start on state of another name ("fatal: CLUSTER NAME MISMATCH",
checked on 22.05, 24.11 and 26.05): a changed ``cluster_name`` (a pod's name in a federation) would take the
controller down at the deploy's restart, with every queued job in the state it refuses to read.
"""

from __future__ import annotations


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
