"""The files action with its host module, run by Ansible on this machine: a template renders byte for byte as
ansible.builtin.template renders it, files land with their modes in one call, a second run changes nothing, check
mode writes nothing, --diff shows the change, and purge removes what no entry names."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from .conftest import ANSIBLE_PLAYBOOK, ROOT

TEMPLATE = (
    """#!/bin/bash
# {{ title }}
{% for node in nodes %}
{%   if node != 'skip' %}
echo {{ node }}   # kept
{%   endif %}
{% endfor %}
{{ '\\\\' }} literal backslash, trailing spaces"""
    + "   \n\n"
)


PLAYBOOK = """
- hosts: localhost
  connection: local
  gather_facts: false
  vars:
    title: the title
    nodes: [gpu01, skip, gpu02]
  tasks:
    - name: As the template module renders it
      ansible.builtin.template:
        src: sample.sh.j2
        dest: "{{ out }}/by-template.sh"
        mode: "0755"
      when: with_template | default(false) | bool
    - name: All at once
      gpucluster.cluster.files:
        directories: ["{{ out }}/scripts"]
        files:
          - {dest: "{{ out }}/scripts/sample.sh", template: sample.sh.j2, mode: "0755"}
          - {dest: "{{ out }}/scripts/plain.txt", src: plain.txt}
          - {dest: "{{ out }}/scripts/given.txt", content: "{{ title }}\\n"}
        purge: ["{{ out }}/scripts"]
"""


def _run(workdir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [str(ANSIBLE_PLAYBOOK), "-i", "localhost,", str(workdir / "play.yml"), "-e", f"out={workdir / 'out'}"]
    command += ["-e", f"ansible_python_interpreter={sys.executable}", *extra]
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_STDOUT_CALLBACK": "default"}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)


def _changed(result: subprocess.CompletedProcess[str]) -> int:
    line = next(line for line in result.stdout.splitlines() if line.startswith("localhost "))
    return int(line.split("changed=")[1].split()[0])


def test_rendered_as_the_template_module_written_once_and_purged(tmp_path: Path) -> None:
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "sample.sh.j2").write_text(TEMPLATE)
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "plain.txt").write_text("plain {{ not templated }}\n")
    (tmp_path / "play.yml").write_text(PLAYBOOK)
    out = tmp_path / "out"
    out.mkdir()

    checked = _run(tmp_path, "--check")
    assert checked.returncode == 0 and _changed(checked) == 1, checked.stdout + checked.stderr
    assert list(out.iterdir()) == []

    first = _run(tmp_path, "-e", "with_template=true")
    assert first.returncode == 0, first.stdout + first.stderr
    scripts = out / "scripts"
    assert (scripts / "sample.sh").read_bytes() == (out / "by-template.sh").read_bytes()
    assert "echo gpu02   # kept" in (scripts / "sample.sh").read_text()
    assert stat.S_IMODE((scripts / "sample.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((scripts / "plain.txt").stat().st_mode) == 0o644
    assert (scripts / "plain.txt").read_text() == "plain {{ not templated }}\n"
    assert (scripts / "given.txt").read_text() == "the title\n"

    again = _run(tmp_path)
    assert again.returncode == 0 and _changed(again) == 0, again.stdout

    (scripts / "stale.sh").write_text("old\n")
    (scripts / "given.txt").write_text("edited by hand\n")
    diffed = _run(tmp_path, "--check", "--diff")
    assert _changed(diffed) == 1 and "-edited by hand" in diffed.stdout and "+the title" in diffed.stdout, diffed.stdout
    assert (scripts / "stale.sh").exists()
    purged = _run(tmp_path)
    assert purged.returncode == 0 and _changed(purged) == 1, purged.stdout
    assert sorted(path.name for path in scripts.iterdir()) == ["given.txt", "plain.txt", "sample.sh"]
    assert (scripts / "given.txt").read_text() == "the title\n"


NESTED = """
- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Modulefiles, one level down
      gpucluster.cluster.files:
        directories:
          - "{{ out }}/modules"
          - "{{ out }}/modules/cuda"
          - "{{ out }}/modules/nccl"
          - "{{ out }}/modules/empty"
        files:
          - {dest: "{{ out }}/modules/cuda/12.4.lua", content: "cuda\\n"}
          - {dest: "{{ out }}/modules/nccl/2.21.lua", content: "nccl\\n"}
        purge: ["{{ out }}/modules"]
"""


def test_purge_looks_into_the_directories_it_keeps(tmp_path: Path) -> None:
    (tmp_path / "play.yml").write_text(NESTED)
    modules = tmp_path / "out" / "modules"
    assert _run(tmp_path).returncode == 0
    (modules / "cuda" / "11.8.lua").write_text("old cuda\n")
    (modules / "mpi").mkdir()
    (modules / "mpi" / "4.1.lua").write_text("software the node no longer has\n")
    (modules / "stray.lua").write_text("stray\n")

    checked = _run(tmp_path, "--check", "--diff")
    assert _changed(checked) == 1 and (modules / "mpi" / "4.1.lua").exists(), checked.stdout
    purged = _run(tmp_path)
    assert purged.returncode == 0 and _changed(purged) == 1, purged.stdout
    kept = sorted(str(path.relative_to(modules)) for path in modules.rglob("*"))
    assert kept == ["cuda", "cuda/12.4.lua", "empty", "nccl", "nccl/2.21.lua"]
    assert _changed(_run(tmp_path)) == 0


VALIDATED = """
- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: A file that must pass its check first
      gpucluster.cluster.files:
        files:
          - {dest: "{{ out }}/rules", content: "{{ rules }}\\n", mode: "0600", validate: "grep -q ^table %s"}
"""


def test_a_file_that_fails_its_validation_leaves_the_old_one(tmp_path: Path) -> None:
    (tmp_path / "play.yml").write_text(VALIDATED)
    out = tmp_path / "out"
    out.mkdir()
    assert _run(tmp_path, "-e", '{"rules": "table inet x"}').returncode == 0
    assert (out / "rules").read_text() == "table inet x\n" and stat.S_IMODE((out / "rules").stat().st_mode) == 0o600
    refused = _run(tmp_path, "-e", "rules=garbage")
    assert refused.returncode != 0 and "failed validation (grep -q ^table" in refused.stdout, refused.stdout
    assert (out / "rules").read_text() == "table inet x\n"
    assert sorted(path.name for path in out.iterdir()) == ["rules"]  # no temporary file left beside it
    assert _changed(_run(tmp_path, "-e", "rules=garbage", "--check")) == 1  # a check run does not validate
