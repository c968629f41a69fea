#!/usr/bin/python
"""One service's TLS files on the host: its directory, its private key (made here, never returned), the certificate
and the CA certificate. The host side of the tls_certificate action, which signs on the controller."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: tls_files
short_description: A service's TLS directory, private key, certificate and CA certificate on the host
description:
  - The host side of M(gpucluster.cluster.tls_certificate), which calls it; not meant for tasks of its own.
  - Makes O(dir) (0750 root:O(group)) and the private key C(<dir>/<name>.key) (RSA, 0640 root:O(group)) where
    missing, and returns the key's public half and the certificate the host holds, so that the controller decides
    whether to sign. The private key never leaves the host and is never returned.
  - Writes C(<dir>/ca.crt) from O(ca) and C(<dir>/<name>.crt) from O(certificate) (0644 root:O(group)) where they
    differ.
version_added: "0.1.0"
author: gpucluster maintainers
options:
  dir:
    description: The directory of the service's TLS files.
    type: path
    required: true
  name:
    description: The file names' stem (C(<name>.key), C(<name>.crt)).
    type: str
    required: true
  group:
    description: The group that reads the key (the service's).
    type: str
    required: true
  key_size:
    description: RSA key size of a key made here.
    type: int
    default: 3072
  ca:
    description: The CA certificate (PEM) to install as C(ca.crt); empty leaves the file as it is.
    type: str
    default: ""
  certificate:
    description: The host's certificate (PEM) to install; empty leaves the file as it is.
    type: str
    default: ""
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
requirements:
  - python3-cryptography on the host
"""

EXAMPLES = r"""
# Called by the tls_certificate action; a task uses that action:
- name: Key and certificate of the exporters
  gpucluster.cluster.tls_certificate:
    name: monitoring
    dir: /etc/prometheus/tls
    group: prometheus
    common_name: "{{ inventory_hostname }}"
    sans: ["DNS:{{ inventory_hostname }}"]
    ca_dir: "{{ inventory_dir }}/.pki"
"""

RETURN = r"""
public_key:
  description: The public half of the host's key (PEM); empty in check mode where the key does not exist yet.
  type: str
  returned: always
certificate:
  description: The certificate the host holds (PEM), as it was before this call; empty without one.
  type: str
  returned: always
written:
  description: The files made or written (or that would be, in check mode).
  type: list
  elements: str
  returned: always
"""

import os
from typing import Any

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.gpucluster.cluster.plugins.module_utils.files import read_bytes, write_atomically

try:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    HAS_CRYPTOGRAPHY = True
except ImportError:  # pragma: no cover - reported to the user below
    HAS_CRYPTOGRAPHY = False


def _attributes(module: AnsibleModule, path: str, group: str, mode: str, changed: bool) -> bool:
    return bool(
        module.set_fs_attributes_if_different(
            {"path": path, "owner": "root", "group": group, "mode": mode, "attributes": None, "secontext": None},
            changed,
        )
    )


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "dir": {"type": "path", "required": True},
            "name": {"type": "str", "required": True},
            "group": {"type": "str", "required": True},
            "key_size": {"type": "int", "default": 3072},
            "ca": {"type": "str", "default": ""},
            "certificate": {"type": "str", "default": ""},
        },
        supports_check_mode=True,
    )
    if not HAS_CRYPTOGRAPHY:
        module.fail_json(msg=missing_required_lib("cryptography (python3-cryptography)"))
    params: dict[str, Any] = module.params
    directory, group, check = params["dir"], params["group"], module.check_mode
    key_path = os.path.join(directory, f"{params['name']}.key")
    cert_path = os.path.join(directory, f"{params['name']}.crt")
    ca_path = os.path.join(directory, "ca.crt")
    written: list[str] = []
    changed = False

    if not os.path.isdir(directory):
        written.append(directory)
        if not check:
            os.makedirs(directory, 0o750)
    if os.path.isdir(directory):
        changed = _attributes(module, directory, group, "0750", changed)

    key_pem = read_bytes(key_path) or b""
    if not key_pem:
        written.append(key_path)
        if not check:
            key = rsa.generate_private_key(public_exponent=65537, key_size=params["key_size"])
            key_pem = key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
            write_atomically(key_path, key_pem, 0o640)
    public_key = ""
    if key_pem:
        changed = _attributes(module, key_path, group, "0640", changed)
        loaded = serialization.load_pem_private_key(key_pem, password=None)
        public_key = (
            loaded.public_key()
            .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            .decode()
        )
    held = (read_bytes(cert_path) or b"").decode(errors="replace")

    for path, content in ((ca_path, params["ca"]), (cert_path, params["certificate"])):
        if content and read_bytes(path) != content.encode():
            written.append(path)
            if not check:
                write_atomically(path, content.encode(), 0o644)
        if os.path.exists(path):
            changed = _attributes(module, path, group, "0644", changed)

    module.exit_json(changed=changed or bool(written), public_key=public_key, certificate=held, written=written)


if __name__ == "__main__":
    main()
