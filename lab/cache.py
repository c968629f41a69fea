"""What the lab keeps on this machine beyond one clone of the repository, as Docker keeps the lab's images: the
site's local mirror (lab/local_mirror.py) and the converged labs' snapshots (lab/snapshot.py). Each is keyed by what
shapes it, so a change rebuilds it. GPUCLUSTER_LAB_CACHE moves it elsewhere."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

CACHE = Path(os.environ.get("GPUCLUSTER_LAB_CACHE", "/var/cache/gpucluster-lab"))


def source_hash(path: Path, length: int = 12) -> str:
    """The first ``length`` hex digits of the SHA-256 of a file's content (what a cached thing was built by)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:length]
