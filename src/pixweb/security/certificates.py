"""Reading client certificates: the ``X-SSL-Client-Cert`` header and PEM files.

The header carries a URL-encoded PEM certificate, as a TLS-terminating proxy
forwards it: once, and one certificate. A request that sends it twice, or one value
holding two PEM blocks, is refused (``MoreThanOneCertificate``, 400): otherwise a
proxy that appends its header to the client's would let the client's own come first.

The fingerprint is the SHA-256 of the DER, lowercase hex; the
token's ``cnf`` claim carries the same digest base64url-encoded (RFC 8705).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import unquote, unquote_plus

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from pixcore.accounts.rules import CertificateInfo
from pixcore.errors import MalformedCertificate, MoreThanOneCertificate

__all__ = [
    "CERT_HEADER",
    "certificate_header",
    "create_self_signed",
    "fingerprint_to_x5t",
    "read_certificate_header",
    "read_pem",
    "write_private",
    "x5t_to_fingerprint",
]

CERT_HEADER = "x-ssl-client-cert"
_PEM_BEGIN = "-----BEGIN CERTIFICATE-----"
_PEM_END = "-----END CERTIFICATE-----"
_ANY_PEM_BLOCK = "-----BEGIN"
MAX_HEADER = 16_384


def _info(cert: x509.Certificate) -> CertificateInfo:
    der = cert.public_bytes(serialization.Encoding.DER)
    return CertificateInfo(
        fingerprint=hashlib.sha256(der).hexdigest(),
        subject=cert.subject.rfc4514_string(),
        not_before=cert.not_valid_before_utc,
        not_after=cert.not_valid_after_utc,
    )


def read_pem(data: bytes) -> CertificateInfo:
    """Read one PEM certificate; ``MalformedCertificate`` if it is not one."""
    try:
        return _info(x509.load_pem_x509_certificate(data))
    except ValueError:
        raise MalformedCertificate("not a PEM X.509 certificate") from None


def certificate_header(values: Sequence[str]) -> str | None:
    """The request's one ``X-SSL-Client-Cert`` value, given all of them (``headers.getall``):
    ``None`` if it has none, ``MoreThanOneCertificate`` if it has several."""
    if len(values) > 1:
        raise MoreThanOneCertificate("the X-SSL-Client-Cert header must be sent once, not several times")
    return values[0] if values else None


def read_certificate_header(value: str | None) -> CertificateInfo:
    """Read the ``X-SSL-Client-Cert`` header: a URL-encoded PEM certificate, one.

    A raw PEM (with literal newlines) cannot travel in a header, and one with
    its spaces intact was not URL-encoded: both are refused, as the spec asks.
    Two PEM blocks, encoded or not, are refused as such (``MoreThanOneCertificate``),
    and so is anything after the certificate's end line.
    """
    if not value or not value.strip():
        raise MalformedCertificate("the X-SSL-Client-Cert header is required")
    if len(value) > MAX_HEADER:
        raise MalformedCertificate("the X-SSL-Client-Cert header is too long")
    _one_block(value)
    if _PEM_BEGIN in value:
        raise MalformedCertificate("the X-SSL-Client-Cert header must be URL-encoded")
    encoded = value.strip()
    try:
        pem = unquote(encoded, errors="strict") if "%" in encoded else ""
        if pem.startswith("-----BEGIN+CERTIFICATE"):  # form-encoded: '+' stands for a space
            pem = unquote_plus(encoded, errors="strict")
    except UnicodeDecodeError:
        raise MalformedCertificate("the X-SSL-Client-Cert header is not valid URL-encoding") from None
    if "\x00" in pem:  # text the service cannot store, wherever it is
        raise MalformedCertificate("the X-SSL-Client-Cert header contains a NUL character")
    if not pem.startswith(_PEM_BEGIN):
        raise MalformedCertificate("the X-SSL-Client-Cert header is not a URL-encoded PEM certificate")
    _one_block(pem)
    end = pem.find(_PEM_END)
    if end >= 0 and pem[end + len(_PEM_END) :].strip():
        raise MalformedCertificate("the X-SSL-Client-Cert header holds more than its certificate")
    return read_pem(pem.encode("ascii", errors="replace"))


def _one_block(text: str) -> None:
    if text.count(_ANY_PEM_BLOCK) > 1:
        raise MoreThanOneCertificate("the X-SSL-Client-Cert header must hold one certificate, not several")


def fingerprint_to_x5t(fingerprint: str) -> str:
    """The ``x5t#S256`` value (base64url, no padding) of a hex SHA-256 fingerprint."""
    return base64.urlsafe_b64encode(bytes.fromhex(fingerprint)).rstrip(b"=").decode("ascii")


def x5t_to_fingerprint(x5t: str) -> str:
    """The hex SHA-256 fingerprint of an ``x5t#S256`` value (the inverse of :func:`fingerprint_to_x5t`)."""
    try:
        return base64.urlsafe_b64decode(x5t + "=" * (-len(x5t) % 4)).hex()
    except ValueError:
        return ""  # not base64url: names no certificate


def create_self_signed(
    common_name: str, *, now: datetime | None = None, days: int = 365
) -> tuple[bytes, bytes, CertificateInfo]:
    """A new EC P-256 key and a self-signed client certificate: (key PEM, cert PEM, info)."""
    now = now or datetime.now(UTC)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return key_pem, cert.public_bytes(serialization.Encoding.PEM), _info(cert)


def write_private(path: Path, data: bytes) -> None:
    """Write a secret file readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600, exist_ok=True)
    path.chmod(0o600)
    path.write_bytes(data)
