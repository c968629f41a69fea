#!/usr/bin/python
"""Install a binary MUNGE key given as base64, idempotently (ansible.builtin.copy only takes text)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: munge_key
short_description: Install the MUNGE key from base64 content
description:
  - Writes the decoded key to O(dest) with owner munge and mode 0400, only when its content differs.
  - The key never appears in the module's return values; use C(no_log) on the task as well.
version_added: "0.1.0"
author: gpucluster maintainers
options:
  content_b64:
    description: The key, base64-encoded (as ansible.builtin.slurp returns it).
    type: str
    required: true
  dest:
    description: Key file.
    type: path
    default: /etc/munge/munge.key
  owner:
    description: Owner and group of the key file.
    type: str
    default: munge
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Install the cluster key
  gpucluster.cluster.munge_key:
    content_b64: "{{ _munge_key.content }}"
  no_log: true
"""

RETURN = r"""
sha256:
  description: SHA-256 of the installed key (safe to compare across hosts).
  type: str
  returned: always
"""

import base64
import hashlib
import os
import tempfile

from ansible.module_utils.basic import AnsibleModule


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "content_b64": {"type": "str", "required": True, "no_log": True},
            "dest": {"type": "path", "default": "/etc/munge/munge.key"},
            "owner": {"type": "str", "default": "munge"},
        },
        supports_check_mode=True,
    )
    try:
        key = base64.b64decode(module.params["content_b64"], validate=True)
    except ValueError:
        module.fail_json(msg="content_b64 is not valid base64")
    if len(key) < 32:
        module.fail_json(msg=f"the MUNGE key has {len(key)} bytes; use at least 32 (mungekey makes 128)")
    dest = module.params["dest"]
    current = b""
    if os.path.exists(dest):
        with open(dest, "rb") as stream:
            current = stream.read()
    changed = current != key
    if changed and not module.check_mode:
        directory = os.path.dirname(dest)
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".munge.key.")
        with os.fdopen(handle, "wb") as stream:
            stream.write(key)
        os.chmod(temporary, 0o400)
        os.replace(temporary, dest)
    file_args = module.load_file_common_arguments(
        {"path": dest, "owner": module.params["owner"], "group": module.params["owner"], "mode": "0400"}
    )
    if os.path.exists(dest):
        changed = module.set_fs_attributes_if_different(file_args, changed)
    module.exit_json(changed=changed, sha256=hashlib.sha256(key).hexdigest())


if __name__ == "__main__":
    main()
