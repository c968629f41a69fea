"""playbooks/confirm.yml: the playbooks that stop daemons, take nodes out, replace data or move a live cluster on
ask for the cluster's name after their validation and before any host is contacted. Run here on the sample
inventories, whose hosts do not exist (ssh's ProxyCommand fails): a run that goes on past the confirmation stops
at its first host as unreachable, one that is refused never reaches a host. The prompt is answered on a real
terminal (a pseudo-terminal the run has as its controlling terminal, as an admin's shell gives it).
"""

from __future__ import annotations

import os
import pty
import select
import shutil
import signal
import subprocess
import tempfile
import termios
import time
from pathlib import Path

import pytest
import yaml

from .conftest import ROOT
from .test_validate_playbook import VAULT

NO_HOST = ("-e", "ansible_ssh_common_args='-o ProxyCommand=false'")
PROMPT = b"to go on, anything else to stop"

# playbook -> (sample inventory, its own required extra variables)
DESTRUCTIVE: dict[str, tuple[str, tuple[str, ...]]] = {
    "remove-node.yml": ("pilot", ("-e", "cluster_removed_nodes=pilot-gpu16")),
    "upgrade-slurm.yml": ("pilot", ()),
    "restore.yml": ("pilot", ("-e", "restore=accounting")),
    "upgrade-production.yml": ("production", ()),
    "galera-recover.yml": ("production", ()),
    "upgrade-federation.yml": ("federation", ()),
}


def command(name: str, *args: str) -> list[str]:
    site, extra = DESTRUCTIVE[name]
    vault = [arg for key, value in VAULT.items() for arg in ("-e", f"{key}={value}")]
    playbook = str(ROOT / ".venv" / "bin" / "ansible-playbook")
    return [playbook, "-i", str(ROOT / "inventories" / site), f"playbooks/{name}", *extra, *vault, *NO_HOST, *args]


def environment() -> dict[str, str]:
    return {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}


def without_terminal(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    """As cron or CI runs it: stdin is no terminal."""
    return subprocess.run(
        command(name, *args),
        cwd=ROOT,
        env=environment(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def on_a_terminal(name: str, answer: str, *args: str) -> tuple[int, str, bool]:
    """The run with a pseudo-terminal as its controlling terminal; ``answer`` typed at the prompt. Returns the
    exit code, what it printed (then Ansible's log of the run: what a run prints just before it ends can be lost
    with the terminal when it closes, on a loaded machine) and whether it asked."""
    argv = command(name, *args)
    log = Path(tempfile.mkdtemp(prefix="gpucluster-confirm-")) / "ansible.log"
    pid, fd = pty.fork()
    if pid == 0:  # the child: a session of its own, the terminal its controlling one
        os.chdir(ROOT)
        os.execve(argv[0], argv, {**environment(), "ANSIBLE_LOG_PATH": str(log)})
    output, asked, typed_at, tries, tries_at = b"", False, 0, 0, 0.0
    deadline = time.monotonic() + 180
    try:
        while time.monotonic() < deadline:
            # Ansible shows the prompt, puts the terminal in raw mode, then flushes what was typed ahead: type once
            # the terminal is raw, and again if what was typed is not echoed (it was flushed)
            if PROMPT in output and (not asked or (typed_at and answer.encode() not in output[typed_at:])):
                try:
                    raw = not termios.tcgetattr(fd)[3] & termios.ICANON
                except termios.error:  # the child closed the terminal
                    raw = False
                if raw and (not asked or time.monotonic() - tries_at > 2.0) and tries < 5:
                    typed_at, tries, tries_at = len(output), tries + 1, time.monotonic()
                    os.write(fd, answer.encode() + b"\r")
                    asked = True
            ready, _, _ = select.select([fd], [], [], 0.1)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child ended and closed the terminal
                break
            if not chunk:
                break
            output += chunk
        else:
            os.kill(pid, signal.SIGKILL)
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    logged = log.read_text(errors="replace") if log.exists() else ""
    shutil.rmtree(log.parent, ignore_errors=True)
    return os.waitstatus_to_exitcode(status), output.decode(errors="replace").replace("\r", "") + logged, asked


def flat(text: str) -> str:
    return " ".join(text.split())


def test_every_playbook_that_changes_a_live_cluster_asks_after_its_validation_and_before_any_host() -> None:
    """Static: the destructive playbooks, and only they, import confirm.yml; every play before it is the
    validation or runs on the Ansible controller alone."""
    asking = set()
    for path in sorted((ROOT / "playbooks").glob("*.yml")):
        plays = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        imports = [play.get("ansible.builtin.import_playbook") for play in plays]
        if "confirm.yml" not in imports:
            continue
        asking.add(path.name)
        before = plays[: imports.index("confirm.yml")]
        assert "validate.yml" in imports[: len(before)], f"{path.name}: asks before its validation"
        for play in before:
            assert play.get("ansible.builtin.import_playbook") == "validate.yml" or play.get("hosts") == "localhost", (
                f"{path.name}: the play {play.get('name')!r} comes before the confirmation and may contact a host"
            )
    assert asking == set(DESTRUCTIVE)


@pytest.mark.parametrize("name", sorted(DESTRUCTIVE))
def test_a_run_without_a_terminal_is_refused_before_any_host(name: str) -> None:
    result = without_terminal(name)
    out = flat(result.stdout)
    assert result.returncode != 0, out[-3000:]
    assert "Not confirmed (no answer, or no terminal to ask on); nothing was changed." in out, out[-3000:]
    assert "pass -e skip_confirmation=true where no one can be asked" in out
    assert "UNREACHABLE" not in out, "a host was contacted before the confirmation"


def test_the_clusters_name_typed_on_a_terminal_goes_on() -> None:
    code, out, asked = on_a_terminal("remove-node.yml", "pilot")
    assert asked, out[-3000:]
    assert "remove-node.yml drains pilot-gpu16, waits for their jobs" in flat(out), out[-3000:]
    assert "Not confirmed" not in out
    # past the confirmation, the first play on a managed host finds it unreachable (the sample hosts do not exist)
    assert code == 4 and "UNREACHABLE" in out, out[-3000:]


def test_another_name_typed_on_a_terminal_is_refused_before_any_host() -> None:
    code, out, asked = on_a_terminal("upgrade-slurm.yml", "prod")
    assert asked, out[-3000:]
    assert code != 0
    assert "Not confirmed (the answer was not pilot)" in flat(out), out[-3000:]
    assert "UNREACHABLE" not in out


def test_a_check_run_and_skip_confirmation_are_not_asked() -> None:
    for args in (("--check",), ("-e", "skip_confirmation=true"), ("-e", "skip_confirmation=yes")):
        result = without_terminal("remove-node.yml", *args)
        assert "Not confirmed" not in result.stdout, (args, result.stdout[-3000:])
        assert result.returncode == 4 and "UNREACHABLE" in result.stdout, (args, result.stdout[-3000:])


def test_a_skip_confirmation_that_is_not_a_boolean_is_refused_by_name() -> None:
    result = without_terminal("restore.yml", "-e", "skip_confirmation=maybe")
    assert result.returncode != 0
    assert "variable 'skip_confirmation' is maybe: it is a boolean; set it to true or false" in flat(result.stdout)
    assert "UNREACHABLE" not in result.stdout


def test_the_prompt_is_documented_with_every_playbook() -> None:
    """docs/lifecycle.md tells admins about the question and the variable that answers it."""
    text = (ROOT / "docs" / "lifecycle.md").read_text(encoding="utf-8")
    assert "skip_confirmation" in text
    missing = [name for name in DESTRUCTIVE if name not in text]
    assert missing == []
