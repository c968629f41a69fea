"""Documentation of the tls_certificate action (it signs on the Ansible controller; tls_files runs on the host)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: tls_certificate
short_description: A service's key on the host and its certificate signed by the cluster's CA, in one task
description:
  - The host makes its private key (it never leaves the host) and reports the key's public half and the certificate
    it holds (M(gpucluster.cluster.tls_files)); the controller keeps that certificate while it fits - the same key,
    common name and names, signed by the CA, not ending within O(renew_days) - or signs a new one for the public key
    with the CA, which a second call installs. C(<dir>/ca.crt) is kept equal to the CA's certificate.
  - The CA is a site's (O(ca_cert) and O(ca_key), files on the controller) or the cluster's own under O(ca_dir),
    made at the first run (ca.key 0600, RSA 4096, ten years; one fork at a time) - never for a host that holds a
    certificate of another CA (see O(ca_replace)).
  - Check mode changes nothing on the host or the controller; a CA or key that does not exist yet is reported as
    to be made, and the certificate as to be issued.
version_added: "0.1.0"
author: gpucluster maintainers
options:
  name:
    description: The file names' stem on the host (C(<name>.key), C(<name>.crt)).
    type: str
    required: true
  dir:
    description: The directory of the service's TLS files on the host (0750 root:O(group)).
    type: path
    required: true
  group:
    description: The service's group (reads the key; the files are root's).
    type: str
    required: true
  common_name:
    description: The certificate's subject common name (the host's inventory name).
    type: str
    required: true
  sans:
    description: Subject alternative names, C(DNS:<name>) or C(IP:<address>).
    type: list
    elements: str
    default: []
  ca_dir:
    description: The directory of the cluster's own CA on the controller (used without O(ca_cert)).
    type: path
  ca_cert:
    description: A site's CA certificate on the controller (with O(ca_key)).
    type: path
  ca_key:
    description: The site CA's private key on the controller, unencrypted PEM (with O(ca_cert)).
    type: path
  ca_common_name:
    description: The common name of a CA made here.
    type: str
    default: gpucluster cluster CA
  days:
    description: Validity of a certificate signed now, in days.
    type: int
    default: 825
  renew_days:
    description: A held certificate ending within this many days is replaced.
    type: int
    default: 30
  ca_replace:
    description:
      - Make a new cluster CA under O(ca_dir) although the host holds a certificate of another CA. Without it, a CA
        missing from O(ca_dir) is not made where the host holds a certificate (the cluster's CA is lost on this
        controller, not new), nor again in that directory until the CA is back; a CA this run made a moment earlier
        for a host without a certificate is taken back.
    type: bool
    default: false
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
requirements:
  - python3-cryptography on the host
"""

EXAMPLES = r"""
- name: Key and certificate of the exporters
  gpucluster.cluster.tls_certificate:
    name: monitoring
    dir: /etc/prometheus/tls
    group: prometheus
    common_name: "{{ inventory_hostname }}"
    sans: ["DNS:{{ inventory_hostname }}", "IP:{{ ansible_facts['default_ipv4'].address }}"]
    ca_dir: "{{ inventory_dir }}/.pki"
"""

RETURN = r"""
issued:
  description: Whether a certificate was signed for the host (or would be, in check mode).
  type: bool
  returned: always
reason:
  description: Why the held certificate was kept or replaced.
  type: str
  returned: always
written:
  description: The files made or written on the controller (the CA) and the host.
  type: list
  elements: str
  returned: always
"""
