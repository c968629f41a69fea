"""The cluster's certificate authority on the controller (made once per cluster, or a site's), and the decision and
signing of the hosts' certificates: the tls_certificate action's rules, in Python so they are unit-tested."""

from __future__ import annotations

import datetime
import fcntl
import ipaddress
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ansible_collections.gpucluster.cluster.plugins.module_utils.files import write_atomically
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from cryptography.hazmat.primitives.asymmetric.types import CertificateIssuerPrivateKeyTypes
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CA_KEY_SIZE = 4096
CA_DAYS = 3650


class TLSError(Exception):
    """A setting or a CA file that cannot work; the message names it and says what to do."""


@dataclass
class Authority:
    """The CA: its certificate (PEM), its key where it exists (none in check mode before the CA is made), and the
    files made on the controller (or that would be, in check mode)."""

    cert_pem: str
    key: CertificateIssuerPrivateKeyTypes | None
    made: list[Path] = field(default_factory=list)

    @cached_property
    def cert(self) -> x509.Certificate | None:
        return x509.load_pem_x509_certificate(self.cert_pem.encode()) if self.cert_pem else None


@dataclass(frozen=True)
class Decision:
    issue: bool
    reason: str


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def subject_alt_names(names: Iterable[str]) -> list[x509.GeneralName]:
    """``DNS:<name>`` and ``IP:<address>`` entries, duplicates dropped, in the order given."""
    found: list[x509.GeneralName] = []
    for entry in names:
        kind, _, value = str(entry).partition(":")
        general: x509.GeneralName
        if kind == "DNS" and value:
            general = x509.DNSName(value)
        elif kind == "IP" and value:
            try:
                general = x509.IPAddress(ipaddress.ip_address(value))
            except ValueError as exc:
                raise TLSError(f"subject alternative name {entry!r}: {value!r} is no IP address") from exc
        else:
            raise TLSError(f"subject alternative name {entry!r}: give DNS:<name> or IP:<address>")
        if general not in found:
            found.append(general)
    return found


@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """One fork at a time makes the CA (every host's task reaches it at once)."""
    with open(directory / ".lock", "w", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _private_key(path: Path) -> CertificateIssuerPrivateKeyTypes:
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise TLSError(f"cannot read the CA key {path} (an unencrypted PEM key): {exc}") from exc
    if not isinstance(
        key, rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey | ed25519.Ed25519PrivateKey | ed448.Ed448PrivateKey
    ):
        raise TLSError(f"the CA key {path} is of a type that cannot sign certificates")
    return key


# In the cluster CA's directory: which run made the CA (the run's token), and - once a run found a host holding a
# certificate of another CA while this one was missing - that CA's name: no CA is made again until the cluster's own
# is put back (or common_tls_ca_replace says to start anew).
MADE_BY = "ca.made-by"
LOST = "ca.lost"


def issuer_name(held: str) -> str:
    """The issuer's common name of a certificate a host holds ("" for none, or one that cannot be read)."""
    if not held.strip():
        return ""
    try:
        names = x509.load_pem_x509_certificate(held.encode()).issuer.get_attributes_for_oid(NameOID.COMMON_NAME)
    except ValueError:
        return ""
    return str(names[0].value) if names else "(an unnamed CA)"


def lost_ca_error(host: str, issuer: str, directory: Path) -> str:
    """The refusal of a run that would make a new cluster CA while ``host`` holds a certificate of another one
    (``issuer``: its name): every service's certificate would be signed anew and each service restarted onto a CA
    its peers do not trust yet (the next Galera node restarted would give up without joining the others)."""
    return (
        f"{host} holds a certificate signed by '{issuer}', but the cluster CA is not in {directory} on this "
        "controller (another checkout, a fresh clone of the inventory): this run would make a new CA, sign every "
        "service's certificate anew and restart each service onto a CA its peers do not trust yet (the next Galera "
        "node restarted would give up without joining the others, which hold the old CA's certificates). Copy the "
        f"CA (ca.key and ca.crt) from where the cluster was deployed into {directory}, or name it with "
        "common_tls_ca_cert and common_tls_ca_key; to replace the cluster's CA on purpose, set "
        "common_tls_ca_replace: true for one run. Nothing was signed"
    )


def refuse_new_ca(directory: Path, host: str, issuer: str, made_by: str, *, check: bool = False) -> str:
    """Where a host holds a certificate of another CA: the CA this run made, if any, taken back (a host without a
    certificate may have made it a moment earlier), and no CA made again in this directory until the cluster's own is
    back (check mode: nothing written). Returns the refusal."""
    if check:
        return lost_ca_error(host, issuer, directory)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    with _locked(directory):
        marker = directory / MADE_BY
        if made_by and marker.exists() and marker.read_text(encoding="utf-8") == made_by:
            for name in ("ca.key", "ca.crt", MADE_BY):
                (directory / name).unlink(missing_ok=True)
        write_atomically(str(directory / LOST), f"{issuer}\n".encode(), 0o600)
    return lost_ca_error(host, issuer, directory)


def signed_by(held: str, ca: Authority) -> bool:
    """Whether a certificate a host holds was signed by ``ca``."""
    if ca.cert is None or not held.strip():
        return False
    try:
        x509.load_pem_x509_certificate(held.encode()).verify_directly_issued_by(ca.cert)
    except (ValueError, TypeError, InvalidSignature):
        return False
    return True


def made_in(directory: Path | None, made_by: str) -> bool:
    """Whether the cluster CA under ``directory`` was made by the run ``made_by``."""
    marker = directory / MADE_BY if directory is not None else None
    return bool(made_by) and marker is not None and marker.exists() and marker.read_text(encoding="utf-8") == made_by


def certificate_authority(
    directory: Path | None,
    cert: str,
    key: str,
    common_name: str,
    check: bool,
    *,
    made_by: str = "",
    replace: bool = False,
) -> Authority:
    """A site's CA (``cert`` and ``key``, files on the controller) or the cluster's own under ``directory`` (ca.key
    0600, ca.crt 0644, the directory 0700), made where missing - not in check mode, which reports what it would
    make and has no key to sign with, and not where a run found the cluster's CA lost (``LOST``) unless ``replace``.
    ``made_by``: the run, kept beside a CA it makes."""
    if bool(cert) != bool(key):
        raise TLSError("common_tls_ca_cert and common_tls_ca_key name a site CA together: set both or neither")
    if cert:
        try:
            cert_pem = Path(cert).expanduser().read_text(encoding="utf-8")
            x509.load_pem_x509_certificate(cert_pem.encode())
        except (OSError, ValueError) as exc:
            raise TLSError(f"cannot read the site CA certificate {cert}: {exc}") from exc
        return Authority(cert_pem, _private_key(Path(key).expanduser()))
    if directory is None:
        raise TLSError("no CA: set common_tls_ca_dir, or common_tls_ca_cert and common_tls_ca_key")
    key_path, cert_path = directory / "ca.key", directory / "ca.crt"
    if check:
        if key_path.exists() and cert_path.exists():
            return Authority(cert_path.read_text(encoding="utf-8"), _private_key(key_path))
        return Authority("", None, [path for path in (key_path, cert_path) if not path.exists()])
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    made: list[Path] = []
    with _locked(directory):
        lost = directory / LOST
        if replace:
            lost.unlink(missing_ok=True)
        if not key_path.exists() and lost.exists():
            issuer = lost.read_text(encoding="utf-8").strip()
            raise TLSError(lost_ca_error("a host of this cluster", issuer, directory))
        if not key_path.exists():
            if made_by:
                write_atomically(str(directory / MADE_BY), made_by.encode(), 0o600)
            new_key = rsa.generate_private_key(public_exponent=65537, key_size=CA_KEY_SIZE)
            pem = new_key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
            write_atomically(str(key_path), pem, 0o600)
            made.append(key_path)
        ca_key = _private_key(key_path)
        if not cert_path.exists() or not _is_ca_of(cert_path.read_bytes(), ca_key):
            write_atomically(str(cert_path), _self_signed(ca_key, common_name), 0o644)
            made.append(cert_path)
    return Authority(cert_path.read_text(encoding="utf-8"), ca_key, made)


def _spki(public_key: object) -> bytes:
    return public_key.public_bytes(  # type: ignore[attr-defined, no-any-return]
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def _is_ca_of(cert_pem: bytes, key: CertificateIssuerPrivateKeyTypes) -> bool:
    try:
        return _spki(x509.load_pem_x509_certificate(cert_pem).public_key()) == _spki(key.public_key())
    except ValueError:
        return False


def _self_signed(key: CertificateIssuerPrivateKeyTypes, common_name: str) -> bytes:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = _now()
    usage = x509.KeyUsage(False, False, False, False, False, True, True, False, False)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(usage, critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM)


def decide(
    held: str, *, public_key: str, ca: Authority, common_name: str, sans: list[x509.GeneralName], renew_days: int
) -> Decision:
    """Whether the host needs a new certificate, and why: none held, another key, another CA, other names, or due
    within ``renew_days``. A held certificate that fits is kept (a re-run changes nothing)."""
    if not held.strip():
        return Decision(True, "no certificate yet")
    if not public_key or ca.cert is None:
        return Decision(True, "a new key or a new CA (check mode)")
    try:
        cert = x509.load_pem_x509_certificate(held.encode())
    except ValueError:
        return Decision(True, "the held certificate cannot be read")
    if _spki(cert.public_key()) != _spki(serialization.load_pem_public_key(public_key.encode())):
        return Decision(True, "the held certificate is for another key")
    if not signed_by(held, ca):
        return Decision(True, "the held certificate is not signed by the CA")
    names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    if [attribute.value for attribute in names] != [common_name]:
        return Decision(True, "the held certificate has another common name")
    try:
        held_sans = list(cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value)
    except x509.ExtensionNotFound:
        held_sans = []
    if set(held_sans) != set(sans):
        return Decision(True, "the held certificate has other names")
    try:
        cert.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier)
    except x509.ExtensionNotFound:
        return Decision(True, "the held certificate names no authority key (strict clients refuse it)")
    if cert.not_valid_after_utc <= _now() + datetime.timedelta(days=renew_days):
        return Decision(True, f"the held certificate ends within {renew_days} days")
    return Decision(False, "the held certificate fits")


def _authority_key_identifier(ca: x509.Certificate) -> x509.AuthorityKeyIdentifier:
    """The CA's key identifier, which strict verifiers (Python 3.13's ssl) require in every certificate it signs."""
    try:
        ski = ca.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    except x509.ExtensionNotFound:
        return x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.public_key())  # type: ignore[arg-type]
    return x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski)


def sign(public_key: str, ca: Authority, common_name: str, sans: list[x509.GeneralName], *, days: int) -> str:
    """A server and client certificate for the host's public key, signed by the CA."""
    if ca.key is None or ca.cert is None:
        raise TLSError("no CA key to sign with")
    subject_key = serialization.load_pem_public_key(public_key.encode())
    now = _now()
    usage = x509.KeyUsage(True, False, True, False, False, False, False, False, False)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
        .issuer_name(ca.cert.subject)
        .public_key(subject_key)  # type: ignore[arg-type]
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(usage, critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False
        )
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(subject_key), critical=False)  # type: ignore[arg-type]
        .add_extension(_authority_key_identifier(ca.cert), critical=False)
    )
    return builder.sign(ca.key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM).decode()
