"""Release notes from changelog fragments (antsibull-changelog): the fragments are valid, and a release made
from them in a scratch copy writes CHANGELOG.md with every fragment's entries."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def changelog(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{BIN}:{os.environ['PATH']}",
        "ANSIBLE_COLLECTIONS_PATH": str(ROOT / "collections"),
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
    }
    return subprocess.run(
        [str(BIN / "antsibull-changelog"), *arguments], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def test_the_fragments_are_valid() -> None:
    result = changelog("lint", cwd=ROOT)
    assert result.returncode == 0 and result.stdout == "", result.stdout + result.stderr


def test_a_release_writes_every_fragment_into_the_changelog(tmp_path: Path) -> None:
    for name in ("galaxy.yml", "README.md"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "changelogs", tmp_path / "changelogs")
    for name in ("plugins", "meta", "roles"):
        (tmp_path / name).symlink_to(ROOT / name)
    result = changelog("release", "--version", "0.1.0", "--date", "2026-11-26", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    # Markdown as antsibull writes it: code spans as <code>, punctuation escaped
    notes = re.sub(r"</?code>", "", (tmp_path / "CHANGELOG.md").read_text()).replace("\\", "")
    notes = " ".join(notes.split())
    for fragment in (ROOT / "changelogs" / "fragments").glob("*.yml"):
        for section, entries in yaml.safe_load(fragment.read_text()).items():
            for entry in [entries] if isinstance(entries, str) else entries:
                words = " ".join(entry.replace("``", "").split())[:40]
                assert words in notes, f"{fragment.name} ({section}): {words}"
