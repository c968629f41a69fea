#!/usr/bin/python
"""Install a secret given as base64 (a key: binary or text), idempotently, never showing it."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: secret_file
short_description: Install a secret file (a key) from base64 content
description:
  - Writes the decoded content to O(dest) with the given owner, group and mode, atomically, only when the content
    differs (ansible.builtin.copy only takes text, and shows what it writes in a diff).
  - Used for the MUNGE key, the Corosync authkey, the login pool's SSH host keys and the JWT key of the REST API.
  - The content never appears in the module's return values, only its SHA-256; use C(no_log) on the task as well.
  - Content shorter than O(min_bytes) is refused: a truncated or empty source must not replace a working key.
version_added: "0.1.0"
author: gpucluster maintainers
options:
  content_b64:
    description: The secret, base64-encoded (as ansible.builtin.slurp returns it).
    type: str
    required: true
  dest:
    description: The file to write.
    type: path
    required: true
  owner:
    description: Owner of the file.
    type: str
    required: true
  group:
    description: Group of the file (default the owner's name).
    type: str
  mode:
    description: Mode of the file.
    type: str
    default: "0400"
  min_bytes:
    description: The least length the decoded secret may have.
    type: int
    default: 32
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Install the cluster's MUNGE key
  gpucluster.cluster.secret_file:
    content_b64: "{{ _munge_key.content }}"
    dest: /etc/munge/munge.key
    owner: munge
  no_log: true
"""

RETURN = r"""
sha256:
  description: SHA-256 of the installed secret (safe to compare across hosts).
  type: str
  returned: success
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
            "dest": {"type": "path", "required": True},
            "owner": {"type": "str", "required": True},
            "group": {"type": "str"},
            "mode": {"type": "str", "default": "0400"},
            "min_bytes": {"type": "int", "default": 32},
        },
        supports_check_mode=True,
    )
    dest = module.params["dest"]
    try:
        # (line breaks and blanks left out: `base64` wraps its output at 76 columns)
        secret = base64.b64decode("".join(module.params["content_b64"].split()), validate=True)
    except ValueError:
        module.fail_json(msg=f"{dest}: content_b64 is not valid base64; nothing was written")
    if len(secret) < module.params["min_bytes"]:
        module.fail_json(
            msg=f"{dest}: the secret has {len(secret)} bytes, fewer than the {module.params['min_bytes']} expected "
            "(an empty or truncated source?); the file was left as it was"
        )
    current = b""
    if os.path.exists(dest):
        with open(dest, "rb") as stream:
            current = stream.read()
    changed = current != secret
    if changed and not module.check_mode:
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(dest), prefix=f".{os.path.basename(dest)}.")
        with os.fdopen(handle, "wb") as stream:
            stream.write(secret)
        os.chmod(temporary, 0o400)
        os.replace(temporary, dest)
    file_args = module.load_file_common_arguments(
        {
            "path": dest,
            "owner": module.params["owner"],
            "group": module.params["group"] or module.params["owner"],
            "mode": module.params["mode"],
        }
    )
    if os.path.exists(dest):
        changed = module.set_fs_attributes_if_different(file_args, changed)
    module.exit_json(changed=changed, sha256=hashlib.sha256(secret).hexdigest())


if __name__ == "__main__":
    main()
