"""The tls_certificate action's rules (plugin_utils/tls.py): the cluster CA made once, a held certificate kept
while it fits and replaced, with the reason, where it does not."""

from __future__ import annotations

import datetime
import stat
from pathlib import Path

import pytest
from ansible_collections.gpucluster.cluster.plugins.plugin_utils import tls
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.verification import PolicyBuilder, Store

SANS = tls.subject_alt_names(["DNS:gpu01", "IP:10.0.0.5", "DNS:gpu01"])


def _public(key: rsa.RSAPrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


@pytest.fixture(scope="module")
def host_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> tls.Authority:
    return tls.certificate_authority(tmp_path_factory.mktemp("pki") / ".pki", "", "", "lab cluster CA", check=False)


def test_the_cluster_ca_is_made_once_private_and_kept(tmp_path: Path) -> None:
    directory = tmp_path / ".pki"
    assert tls.certificate_authority(directory, "", "", "lab cluster CA", check=True).made == [
        directory / "ca.key",
        directory / "ca.crt",
    ]
    assert not directory.exists()  # check mode makes nothing, on the controller either
    first = tls.certificate_authority(directory, "", "", "lab cluster CA", check=False)
    assert first.made == [directory / "ca.key", directory / "ca.crt"]
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE((directory / "ca.key").stat().st_mode) == 0o600
    cert = first.cert
    assert cert is not None
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert cert.subject.rfc4514_string() == "CN=lab cluster CA"
    again = tls.certificate_authority(directory, "", "", "lab cluster CA", check=False)
    assert again.made == [] and again.cert_pem == first.cert_pem


def test_a_site_ca_is_used_as_given_and_half_a_site_ca_is_refused(tmp_path: Path, ca: tls.Authority) -> None:
    assert ca.key is not None
    (tmp_path / "site.crt").write_text(ca.cert_pem)
    (tmp_path / "site.key").write_bytes(
        ca.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    site = tls.certificate_authority(None, str(tmp_path / "site.crt"), str(tmp_path / "site.key"), "x", check=False)
    assert site.cert_pem == ca.cert_pem and site.made == []
    with pytest.raises(tls.TLSError, match="set both or neither"):
        tls.certificate_authority(None, str(tmp_path / "site.crt"), "", "x", check=False)
    with pytest.raises(tls.TLSError, match="cannot read the site CA certificate"):
        tls.certificate_authority(None, str(tmp_path / "none.crt"), str(tmp_path / "site.key"), "x", check=False)


def test_names_are_dns_or_ip_and_anything_else_is_refused_by_name() -> None:
    assert [str(name.value) for name in SANS] == ["gpu01", "10.0.0.5"]
    with pytest.raises(tls.TLSError, match="'IP:gpu01'"):
        tls.subject_alt_names(["IP:gpu01"])
    with pytest.raises(tls.TLSError, match="'email:root@x'"):
        tls.subject_alt_names(["email:root@x"])


def test_a_signed_certificate_fits_until_key_names_ca_or_time_change(
    ca: tls.Authority, host_key: rsa.RSAPrivateKey
) -> None:
    public = _public(host_key)

    def decide(
        held: str,
        public_key: str = public,
        common_name: str = "gpu01",
        sans: list[x509.GeneralName] = SANS,
        days: int = 30,
    ) -> tls.Decision:
        return tls.decide(held, public_key=public_key, ca=ca, common_name=common_name, sans=sans, renew_days=days)

    assert decide("") == tls.Decision(True, "no certificate yet")
    held = tls.sign(public, ca, "gpu01", SANS, days=825)
    assert decide(held) == tls.Decision(False, "the held certificate fits")
    cert = x509.load_pem_x509_certificate(held.encode())
    assert ca.cert is not None
    cert.verify_directly_issued_by(ca.cert)
    other_key = _public(rsa.generate_private_key(public_exponent=65537, key_size=2048))
    assert decide(held, public_key=other_key).reason == "the held certificate is for another key"
    assert decide(held, sans=SANS[:1]).reason == "the held certificate has other names"
    assert decide(held, common_name="gpu02").reason == "the held certificate has another common name"
    assert decide(held, days=900).reason == "the held certificate ends within 900 days"
    assert decide("garbage").reason == "the held certificate cannot be read"


def test_a_certificate_of_another_ca_is_replaced(
    tmp_path: Path, ca: tls.Authority, host_key: rsa.RSAPrivateKey
) -> None:
    foreign = tls.certificate_authority(tmp_path / "other", "", "", "lab cluster CA", check=False)
    held = tls.sign(_public(host_key), foreign, "gpu01", SANS, days=825)
    decision = tls.decide(held, public_key=_public(host_key), ca=ca, common_name="gpu01", sans=SANS, renew_days=30)
    assert decision == tls.Decision(True, "the held certificate is not signed by the CA")


def test_the_certificate_serves_both_ends_for_its_days(ca: tls.Authority, host_key: rsa.RSAPrivateKey) -> None:
    cert = x509.load_pem_x509_certificate(tls.sign(_public(host_key), ca, "gpu01", SANS, days=10).encode())
    usage = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert {oid._name for oid in usage} == {"serverAuth", "clientAuth"}
    assert not cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    lifetime = cert.not_valid_after_utc - datetime.datetime.now(datetime.UTC)
    assert datetime.timedelta(days=9) < lifetime <= datetime.timedelta(days=10)


def test_a_strict_verifier_takes_the_certificate_for_each_of_its_names(
    ca: tls.Authority, host_key: rsa.RSAPrivateKey
) -> None:
    """Python 3.13's ssl verifies strictly (an authority key identifier in every signed certificate): the monitoring
    scenario's clients refused certificates without one. cryptography's RFC 5280 verifier is as strict."""
    assert ca.cert is not None
    leaf = x509.load_pem_x509_certificate(tls.sign(_public(host_key), ca, "gpu01", SANS, days=825).encode())
    for name in SANS:
        subject = name if isinstance(name, x509.DNSName) else x509.IPAddress(name.value)
        verifier = PolicyBuilder().store(Store([ca.cert])).build_server_verifier(subject)
        assert verifier.verify(leaf, [])[0] == leaf


def test_a_ca_made_this_run_is_taken_back_where_a_host_holds_another_cas(
    tmp_path: Path, ca: tls.Authority, host_key: rsa.RSAPrivateKey
) -> None:
    """A host without a certificate made the cluster CA a moment ago (the controller had lost the cluster's), then a
    host holding a certificate of the cluster's CA is met: the new CA is taken back, and none is made again in that
    directory until the cluster's own is back (or replace starts anew)."""
    held = tls.sign(_public(host_key), ca, "node02", tls.subject_alt_names(["DNS:node02"]), days=30)
    assert tls.issuer_name(held) == "lab cluster CA" and tls.issuer_name("") == ""
    directory = tmp_path / "pki"
    made = tls.certificate_authority(directory, "", "", "test cluster CA", False, made_by="run-1")
    assert tls.made_in(directory, "run-1") and not tls.made_in(directory, "run-2")
    assert not tls.signed_by(held, made) and tls.signed_by(held, ca)
    said = tls.refuse_new_ca(directory, "node02", tls.issuer_name(held), "run-1")
    assert said.startswith("node02 holds a certificate signed by 'lab cluster CA', but the cluster CA is not in")
    assert not (directory / "ca.key").exists() and not (directory / "ca.crt").exists()
    with pytest.raises(tls.TLSError, match="holds a certificate signed by 'lab cluster CA'"):
        tls.certificate_authority(directory, "", "", "test cluster CA", False, made_by="run-2")
    again = tls.certificate_authority(directory, "", "", "test cluster CA", False, made_by="run-2", replace=True)
    assert again.key is not None and not (directory / "ca.lost").exists()
    # a CA an earlier run made is not taken back by a later run's refusal
    tls.refuse_new_ca(directory, "node02", "test cluster CA", "run-3")
    assert (directory / "ca.key").exists()
