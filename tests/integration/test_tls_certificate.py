"""The tls_certificate action with its host module, run by Ansible on this machine: the first run makes the CA on
the controller and the key on the host and signs; check mode makes nothing anywhere; a second run changes nothing;
other names get a new certificate; the private keys never reach the output."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from .conftest import ANSIBLE_PLAYBOOK, ROOT

ANSIBLE = ANSIBLE_PLAYBOOK.parent / "ansible" if ANSIBLE_PLAYBOOK.exists() else Path("ansible")


def _run(
    host_dir: Path, ca_dir: Path, sans: list[str], *extra: str, ca: str = "", replace: bool = False
) -> subprocess.CompletedProcess[str]:
    args = {
        **({"ca_replace": True} if replace else {}),
        "name": "svc",
        "dir": str(host_dir),
        "group": "root",
        "common_name": "node01",
        "sans": sans,
        **({"ca_cert": ca, "ca_key": ""} if ca else {"ca_dir": str(ca_dir)}),
        "ca_common_name": "test cluster CA",
    }
    command = [str(ANSIBLE), "localhost", "-c", "local", "-m", "gpucluster.cluster.tls_certificate"]
    command += ["-a", json.dumps(args), "-e", f"ansible_python_interpreter={sys.executable}", *extra]
    env = {**os.environ, "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"), "ANSIBLE_STDOUT_CALLBACK": "default"}
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_made_once_kept_reissued_for_new_names_and_never_shown(tmp_path: Path) -> None:
    host, pki = tmp_path / "host" / "tls", tmp_path / "pki"
    sans = ["DNS:node01", "IP:10.1.0.1"]

    checked = _run(host, pki, sans, "--check")
    assert checked.returncode == 0 and "CHANGED" in checked.stdout, checked.stdout + checked.stderr
    assert not pki.exists() and not host.exists()

    first = _run(host, pki, sans, "-vvv")
    assert first.returncode == 0 and "CHANGED" in first.stdout, first.stdout + first.stderr
    assert stat.S_IMODE(pki.stat().st_mode) == 0o700 and stat.S_IMODE((pki / "ca.key").stat().st_mode) == 0o600
    assert stat.S_IMODE(host.stat().st_mode) == 0o750
    assert stat.S_IMODE((host / "svc.key").stat().st_mode) == 0o640
    assert stat.S_IMODE((host / "svc.crt").stat().st_mode) == 0o644
    assert (host / "ca.crt").read_text() == (pki / "ca.crt").read_text()
    cert = x509.load_pem_x509_certificate((host / "svc.crt").read_bytes())
    cert.verify_directly_issued_by(x509.load_pem_x509_certificate((pki / "ca.crt").read_bytes()))
    key = serialization.load_pem_private_key((host / "svc.key").read_bytes(), password=None)
    assert cert.public_key() == key.public_key()
    output = first.stdout + first.stderr
    for private in (host / "svc.key", pki / "ca.key"):
        body = "".join(private.read_text().splitlines()[1:-1])
        assert body[:64] not in output.replace("\\n", "").replace("\n", ""), private

    again = _run(host, pki, sans)
    assert again.returncode == 0 and "SUCCESS" in again.stdout and "changed: false" in again.stdout, (
        again.stdout + again.stderr
    )
    assert (host / "svc.crt").read_bytes() == cert.public_bytes(serialization.Encoding.PEM)

    renamed = _run(host, pki, [*sans, "DNS:node01.example.org"])
    assert renamed.returncode == 0 and "the held certificate has other names" in renamed.stdout, renamed.stdout
    reissued = x509.load_pem_x509_certificate((host / "svc.crt").read_bytes())
    assert "node01.example.org" in str(reissued.extensions.get_extension_for_class(x509.SubjectAlternativeName))
    assert reissued.public_key() == key.public_key()  # the host keeps its key

    half = _run(host, pki, sans, ca=str(pki / "ca.crt"))
    assert half.returncode != 0 and "set both or neither" in half.stdout, half.stdout + half.stderr


def test_a_lost_cluster_ca_is_not_made_anew_under_a_running_cluster(tmp_path: Path) -> None:
    """The cluster CA missing on the controller (another checkout, a fresh clone of the inventory) while the host holds
    a certificate of it: no new CA is made and nothing is signed - a new CA would restart every TLS service onto a CA
    its peers do not trust. The refusal holds for a host without a certificate too, until the CA is put back; then
    nothing changes. common_tls_ca_replace makes a new CA on purpose."""
    host, pki = tmp_path / "host" / "tls", tmp_path / "pki"
    sans = ["DNS:node01"]
    assert _run(host, pki, sans).returncode == 0
    held = (host / "svc.crt").read_bytes()
    kept = tmp_path / "pki-kept"
    pki.rename(kept)

    for extra in (("--check",), ()):
        refused = _run(host, pki, sans, *extra)
        said = " ".join(refused.stdout.split())
        assert refused.returncode != 0, said
        assert "node01 holds a certificate signed by 'test cluster CA', but the cluster CA is not in" in said, said
        assert not (pki / "ca.key").exists() and (host / "svc.crt").read_bytes() == held
    assert (pki / "ca.lost").read_text().strip() == "test cluster CA"

    newcomer = _run(tmp_path / "new" / "tls", pki, sans)  # a host without a certificate: no CA made either
    assert newcomer.returncode != 0 and "the cluster CA is not in" in " ".join(newcomer.stdout.split())
    assert not (pki / "ca.key").exists() and not (tmp_path / "new" / "tls" / "svc.crt").exists()

    for name in ("ca.key", "ca.crt"):
        (pki / name).write_bytes((kept / name).read_bytes())
    back = _run(host, pki, sans)
    assert back.returncode == 0 and "changed: false" in back.stdout, back.stdout + back.stderr
    assert (host / "svc.crt").read_bytes() == held

    (pki / "ca.key").unlink()
    (pki / "ca.crt").unlink()
    replaced = _run(host, pki, sans, replace=True)
    assert replaced.returncode == 0 and "CHANGED" in replaced.stdout, replaced.stdout + replaced.stderr
    new_ca = x509.load_pem_x509_certificate((pki / "ca.crt").read_bytes())
    x509.load_pem_x509_certificate((host / "svc.crt").read_bytes()).verify_directly_issued_by(new_ca)
    assert not (pki / "ca.lost").exists()
