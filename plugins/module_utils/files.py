"""Reading and writing a file on a host the way the project's modules do (standard library only: host side)."""

from __future__ import annotations

import os
import tempfile


def read_bytes(path: str) -> bytes | None:
    """The file's content; None where it does not exist."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def write_atomically(path: str, content: bytes, mode: int) -> None:
    """Write ``content`` by a rename in the same directory, with ``mode`` from the start (AnsibleModule.atomic_move
    gives a new file the umask's 0644 before its mode is set: a key readable by all for a moment)."""
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=f".{os.path.basename(path)}.")
    try:
        os.fchmod(handle, mode)
        os.write(handle, content)
        os.fsync(handle)
    finally:
        os.close(handle)
    os.replace(temporary, path)
