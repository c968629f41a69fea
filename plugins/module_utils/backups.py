"""Which backup a restore takes: the newest archive of a controller pair, or the one the operator named."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def newest_archive(found: Mapping[str, Sequence[Mapping[str, Any]]], named: str = "") -> dict[str, str]:
    """``found``: controller -> the archives `find` listed there (path, mtime). The archive to restore and the
    controller that holds it - the one named (``named``, a path on one of them) or the newest of them all - or
    an error saying what is missing."""
    candidates = [
        (float(archive.get("mtime") or 0), host, str(archive.get("path") or ""))
        for host, archives in found.items()
        for archive in archives or ()
    ]
    if named:
        holders = sorted(host for _, host, path in candidates if path == named)
        if not holders:
            return {"error": f"no archive {named} on {' or '.join(sorted(found))}"}
        return {"host": holders[0], "path": named}
    if not candidates:
        return {"error": f"no archive of StateSaveLocation on {' or '.join(sorted(found))}"}
    _, host, path = max(candidates)
    return {"host": host, "path": path}
