#!/usr/bin/python
"""Directories and text files on the host in one module call: the host side of the files action."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: files_put
short_description: Directories and text files of a role on the host, in one module call
description:
  - The host side of M(gpucluster.cluster.files), which renders the files on the controller and calls it; not meant
    for tasks of its own.
  - Makes each directory, writes each file whose content differs (a rename in the same directory, the mode set from
    the start), sets owner, group and mode, and removes from the O(purge) directories what no file names.
version_added: "0.1.0"
author: gpucluster maintainers
options:
  directories:
    description: Directories to make, each C({path, owner, group, mode}).
    type: list
    elements: dict
    default: []
  files:
    description:
      - Files to write, each C({dest, content, owner, group, mode}) and optionally C(validate); the content is text.
      - C(validate), a command with C(%s) for the new file's path, runs before the file takes the place of the old
        one (as the copy module's option); where it fails, nothing is written and the task fails.
    type: list
    elements: dict
    default: []
  purge:
    description:
      - Directories whose entries not among O(files) are removed (scripts the inventory no longer lists).
      - A subdirectory that is among O(directories) or holds one of O(files) is kept and looked into in turn;
        any other is removed whole.
    type: list
    elements: path
    default: []
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
"""

EXAMPLES = r"""
# Called by the files action; a task uses that action:
- name: Install the example job scripts
  gpucluster.cluster.files:
    directories: [/opt/examples]
    files:
      - {dest: /opt/examples/ddp.sbatch, template: examples/ddp.sbatch.j2}
    mode: "0755"
"""

RETURN = r"""
written:
  description: The directories made, files written and entries removed (or that would be, in check mode).
  type: list
  elements: str
  returned: always
"""

import functools
import os
import shutil
from typing import Any

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpucluster.cluster.plugins.module_utils.files import read_bytes, write_atomically

_DIFF_LIMIT = 64 * 1024


def _attributes(module: AnsibleModule, entry: dict[str, Any], path: str, changed: bool) -> bool:
    wanted = {"path": path, "owner": entry.get("owner"), "group": entry.get("group"), "mode": entry.get("mode")}
    return bool(module.set_fs_attributes_if_different({**wanted, "attributes": None, "secontext": None}, changed))


def _validate(module: AnsibleModule, dest: str, command: str, path: str) -> None:
    """Run a file's validate command on its new content (at ``path``); fail the task where it fails."""
    if "%s" not in command:
        module.fail_json(msg=f"{dest}: validate must hold %s for the file's path: {command!r}")
    rc, out, err = module.run_command(command % path)
    if rc != 0:
        # (fail_json exits: write_atomically removes the new file and leaves the old one)
        message = f"{dest}: the new content failed validation ({command}); the file was left as it was"
        module.fail_json(msg=message, rc=rc, stdout=out, stderr=err)


def _stale(purge: list[str], kept: set[str], directories: set[str]) -> list[str]:
    """Entries under the purge directories that no file names: a directory that is listed or holds a kept file is
    looked into (and kept), anything else is removed whole."""
    holders: set[str] = set()
    for path in kept:
        parent = os.path.dirname(path)
        while parent not in ("", os.sep) and parent not in holders:
            holders.add(parent)
            parent = os.path.dirname(parent)
    stale: list[str] = []
    pending = [os.path.normpath(directory) for directory in purge if os.path.isdir(directory)]
    while pending:
        directory = pending.pop()
        for name in sorted(os.listdir(directory)):
            path = os.path.join(directory, name)
            if path in kept:
                continue
            if os.path.isdir(path) and not os.path.islink(path) and (path in holders or path in directories):
                pending.append(path)
            else:
                stale.append(path)
    return sorted(stale)


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "directories": {"type": "list", "elements": "dict", "default": []},
            "files": {"type": "list", "elements": "dict", "default": []},
            "purge": {"type": "list", "elements": "path", "default": []},
        },
        supports_check_mode=True,
    )
    check = module.check_mode
    written: list[str] = []
    diffs: list[dict[str, str]] = []
    changed = False
    for entry in module.params["directories"]:
        path = str(entry["path"])
        if not os.path.isdir(path):
            written.append(path)
            if not check:
                os.makedirs(path, int(str(entry.get("mode") or "0755"), 8))
        if os.path.isdir(path):
            changed = _attributes(module, entry, path, changed)
    for entry in module.params["files"]:
        dest, content = str(entry["dest"]), str(entry["content"]).encode()
        before = read_bytes(dest)
        if before != content:
            written.append(dest)
            if module._diff and len(content) <= _DIFF_LIMIT and (before is None or len(before) <= _DIFF_LIMIT):
                diffs.append(
                    {
                        "before_header": dest,
                        "after_header": dest,
                        "before": (before or b"").decode(errors="replace"),
                        "after": content.decode(errors="replace"),
                    }
                )
            if not check:
                if not os.path.isdir(os.path.dirname(dest)):
                    module.fail_json(msg=f"{dest}: its directory does not exist", written=written)
                validate = entry.get("validate")
                check_file = functools.partial(_validate, module, dest, str(validate)) if validate else None
                write_atomically(dest, content, int(str(entry.get("mode") or "0644"), 8), check_file)
        if os.path.exists(dest):
            changed = _attributes(module, entry, dest, changed)
    kept = {os.path.normpath(str(entry["dest"])) for entry in module.params["files"]}
    listed = {os.path.normpath(str(entry["path"])) for entry in module.params["directories"]}
    for path in _stale(module.params["purge"], kept, listed):
        written.append(f"removed {path}")
        if module._diff:
            diffs.append({"before_header": path, "after_header": "(absent)", "before": "", "after": ""})
        if not check:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
    module.exit_json(changed=changed or bool(written), written=written, diff=diffs)


if __name__ == "__main__":
    main()
