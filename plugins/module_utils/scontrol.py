"""What `scontrol show node <name>` says about a node, read strictly.

Only slurmctld's own answer "Node <name> not found" means the node is absent. Any other failure (slurmctld
unreachable during a failover, a timeout, a munge error) is neither "present" nor "absent": a caller that read
it as absent would skip a drain and take a node with running jobs out of slurm.conf. Recorded from the
releases in scope (22.05, 24.11, 26.05): rc 1 with "Node nosuch not found" for an unknown node, rc 1 with
"slurm_load_node error: Unable to contact slurm controller (connect failure)" when slurmctld does not answer.
"""

from __future__ import annotations

import re

PRESENT = "present"
ABSENT = "absent"
UNANSWERED = "unanswered"


def node_presence(name: str, rc: int, stdout: str, stderr: str) -> str:
    """present (rc 0 and the node's record), absent (slurmctld said it does not know the node) or unanswered."""
    if rc == 0 and re.search(rf"^NodeName={re.escape(name)}\s", stdout, re.MULTILINE):
        return PRESENT
    if rc != 0 and re.search(rf"^Node {re.escape(name)} not found\s*$", f"{stdout}\n{stderr}", re.MULTILINE):
        return ABSENT
    return UNANSWERED
