"""scontrol's answers about a node, as the releases in scope print them: only "not found" means absent."""

from __future__ import annotations

import pytest
from ansible_collections.gpucluster.cluster.plugins.filter.nodes import slurm_node_presence

# Recorded from Debian's 22.05, 24.11 and 26.05 (the same text in all three).
KNOWN = "NodeName=gpu02 Arch=x86_64 CoresPerSocket=1 \n   CPUAlloc=0 CPUEfctv=1 CPUTot=1 CPULoad=0.00\n"
NOT_FOUND = "Node gpu02 not found"
DOWN = "slurm_load_node error: Unable to contact slurm controller (connect failure)"


@pytest.mark.parametrize(
    ("result", "presence"),
    [
        ({"rc": 0, "stdout": KNOWN, "stderr": ""}, "present"),
        ({"rc": 1, "stdout": NOT_FOUND, "stderr": ""}, "absent"),
        ({"rc": 1, "stdout": "", "stderr": NOT_FOUND}, "absent"),
        ({"rc": 1, "stdout": "", "stderr": DOWN}, "unanswered"),
        ({"rc": 1, "stdout": "", "stderr": "Socket timed out on send/recv operation"}, "unanswered"),
        ({"rc": 1, "stdout": "Node gpu020 not found", "stderr": ""}, "unanswered"),  # another node's answer
        ({"rc": 0, "stdout": "", "stderr": ""}, "unanswered"),
        ({"failed": True, "msg": "ssh: connect to host ctl01 port 22: Connection refused"}, "unanswered"),
    ],
    ids=["known", "not found", "not found on stderr", "slurmctld down", "timeout", "other node", "empty", "no rc"],
)
def test_only_not_found_means_absent(result: dict[str, object], presence: str) -> None:
    assert slurm_node_presence(result, "gpu02") == presence
