"""deploy.yml's check of each host's own settings (the validate_host_settings action), run by Ansible: a host_vars
value of the wrong type for a role the host gets is refused, named with the host and the variable, before any role
runs; a host outside that role's group and a host with right values pass; no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .conftest import ANSIBLE_PLAYBOOK, ROOT

PLAYBOOK = """
- hosts: all
  connection: local
  gather_facts: true  # as deploy.yml's play: values templated over facts are read with them
  tasks:
    - name: Check every role's settings for this host before any role changes it
      gpucluster.cluster.validate_host_settings:
        entries:
          all: [nfs]
          compute: [gpu, gpu/check]
    - name: A role would run here
      ansible.builtin.debug:
        msg: reached
"""

INVENTORY = """
all:
  children:
    compute:
      hosts:
        gpu01: {}
        gpu02: {gpu_driver_hold: perhaps}
    login:
      hosts:
        login01: {gpu_driver_hold: perhaps}
"""


def _run(workdir: Path) -> subprocess.CompletedProcess[str]:
    (workdir / "play.yml").write_text(PLAYBOOK)
    (workdir / "hosts.yml").write_text(INVENTORY)
    command = [str(ANSIBLE_PLAYBOOK), "-i", str(workdir / "hosts.yml"), str(workdir / "play.yml")]
    command += ["-e", f"ansible_python_interpreter={sys.executable}"]
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_STDOUT_CALLBACK": "default"}
    # (this machine's facts under the test's names: kept in memory, not in the repository's fact cache)
    env |= {"ANSIBLE_CACHE_PLUGIN": "memory", "ANSIBLE_GATHER_SUBSET": "min"}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_a_hosts_wrong_value_is_refused_before_any_role_and_only_there(tmp_path: Path) -> None:
    result = _run(tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "Traceback" not in output
    assert "gpu02: its settings have 1 problem; nothing was changed" in output, output
    assert "gpu_driver_hold" in output and "the gpu role's argument specs" in output
    # the host whose values are right, and the login node (no gpu role there), go on; the refused one stops
    assert "gpu01" in output.split("A role would run here", 1)[1]
    assert "login01" in output.split("A role would run here", 1)[1]
    assert "gpu02" not in output.split("A role would run here", 1)[1].split("PLAY RECAP", 1)[0]
