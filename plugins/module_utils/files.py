"""Reading and writing a file on a host the way the project's modules do (standard library only: host side)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable


def read_bytes(path: str) -> bytes | None:
    """The file's content; None where it does not exist."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def write_atomically(path: str, content: bytes, mode: int, check: Callable[[str], None] | None = None) -> None:
    """Write ``content`` by a rename in the same directory, with ``mode`` from the start (AnsibleModule.atomic_move
    gives a new file the umask's 0644 before its mode is set: a key readable by all for a moment). ``check`` is
    called with the written temporary file's path before the rename: where it raises, the file stays as it was."""
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=f".{os.path.basename(path)}.")
    try:
        try:
            os.fchmod(handle, mode)
            os.write(handle, content)
            os.fsync(handle)
        finally:
            os.close(handle)
        if check is not None:
            check(temporary)
    except BaseException:
        os.unlink(temporary)
        raise
    os.replace(temporary, path)
