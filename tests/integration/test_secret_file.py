"""The secret_file module, run by Ansible on this machine: it writes the decoded key with its owner and mode,
changes nothing the second time, writes nothing in check mode, refuses short or broken content without touching
the file, and never prints the secret."""

from __future__ import annotations

import base64
import os
import secrets
import stat
import subprocess
from pathlib import Path

from .conftest import ANSIBLE_PLAYBOOK, ROOT

ANSIBLE = ANSIBLE_PLAYBOOK.parent / "ansible" if ANSIBLE_PLAYBOOK.exists() else Path("ansible")


def _run(dest: Path, content_b64: str, *extra: str) -> subprocess.CompletedProcess[str]:
    args = f"content_b64={content_b64} dest={dest} owner=root mode=0400"
    command = [str(ANSIBLE), "localhost", "-c", "local", "-m", "gpucluster.cluster.secret_file", "-a", args, *extra]
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg")}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_secret_file_writes_once_keeps_check_mode_refuses_short_content_and_hides_the_secret(tmp_path: Path) -> None:
    key = secrets.token_bytes(64)
    encoded = base64.b64encode(key).decode()
    dest = tmp_path / "authkey"

    first = _run(dest, encoded, "-vvv")
    assert first.returncode == 0 and "CHANGED" in first.stdout, first.stdout + first.stderr
    assert dest.read_bytes() == key
    assert stat.S_IMODE(dest.stat().st_mode) == 0o400 and dest.stat().st_uid == 0
    assert encoded not in first.stdout + first.stderr and key.hex() not in first.stdout + first.stderr

    again = _run(dest, encoded)
    assert again.returncode == 0 and "SUCCESS" in again.stdout and "changed: false" in again.stdout, again.stdout

    other = base64.b64encode(secrets.token_bytes(64)).decode()
    checked = _run(dest, other, "--check")
    assert checked.returncode == 0 and "CHANGED" in checked.stdout, checked.stdout
    assert dest.read_bytes() == key

    short = _run(dest, base64.b64encode(b"12345678").decode())
    assert short.returncode != 0
    assert "the secret has 8 bytes, fewer than the 32 expected" in " ".join(short.stdout.split()), short.stdout
    broken = _run(dest, "not*base64")
    assert broken.returncode != 0 and "content_b64 is not valid base64" in " ".join(broken.stdout.split()), (
        broken.stdout
    )
    assert dest.read_bytes() == key
    assert [path.name for path in tmp_path.iterdir()] == ["authkey"]  # no temporary file left behind
