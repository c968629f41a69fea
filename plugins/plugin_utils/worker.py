"""What an action does first in the worker process Ansible forked for it."""

from __future__ import annotations

import gc


def freeze_inherited_heap() -> None:
    """Keep the garbage collector off the objects the worker inherited from Ansible's main process.

    A forked worker holds the main process's heap - at 12,800 hosts about 93,000 objects the collector tracks (the
    inventory, the run's variables) - and every full collection that the model's allocations trigger walks them all
    again: about 5% of validate.yml's time at that size (docs/performance.md). They live on in the main process; the
    worker ends with the task. What the action itself allocates is collected as before.
    """
    gc.freeze()
