"""A self-signed certificate and its key as files, for the unit tests of what serves or checks TLS."""

from __future__ import annotations

import datetime
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def self_signed(cert: Path, key: Path, name: str, ip: str = "") -> None:
    """Write a certificate for ``name`` (with ``ip`` as its subjectAltName where given), valid for an hour, and its
    EC key (PKCS8, unencrypted)."""
    private = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(private.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
    )
    if ip:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(ip))]), False)
    cert.write_bytes(builder.sign(private, hashes.SHA256()).public_bytes(serialization.Encoding.PEM))
    pkcs8 = serialization.PrivateFormat.PKCS8
    key.write_bytes(private.private_bytes(serialization.Encoding.PEM, pkcs8, serialization.NoEncryption()))
