"""Make the collection importable as ansible_collections.gpucluster.cluster and the helpers as tests.*."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT / "collections", ROOT):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
