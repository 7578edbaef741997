"""A network's certificates for a sandbox: its authority, the network's own certificate (its TLS
server's, and the one it signs with) and each participant's (its client certificate, and the one
it signs its messages with). RSA 2048 with SHA-256, as the DICT's signatures need RSA.

``pixnet admin pki init FOLDER --participant ISPB ...`` writes them; a real network's come from
its own authority instead. Private keys are written readable by their owner only.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["Issued", "init_pki"]

VALID_FOR = timedelta(days=825)


@dataclass(frozen=True, slots=True)
class Issued:
    certificate: Path
    private_key: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "pixnet sandbox"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _write(folder: Path, stem: str, key: rsa.RSAPrivateKey, certificate: x509.Certificate) -> Issued:
    issued = Issued(folder / f"{stem}.pem", folder / f"{stem}.key")
    issued.certificate.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    issued.private_key.touch(mode=0o600, exist_ok=True)
    issued.private_key.chmod(0o600)
    issued.private_key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return issued


def _builder(
    subject: x509.Name, issuer: x509.Name, key: rsa.RSAPrivateKey, now: datetime
) -> x509.CertificateBuilder:
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + VALID_FOR)
    )


def init_pki(
    folder: Path, participants: list[str], *, hosts: tuple[str, ...] = ("127.0.0.1", "localhost")
) -> dict[str, Issued]:
    """The authority (``ca``), the network (``network``, valid for ``hosts``) and one certificate per
    participant ISPB (``participant-<ISPB>``), written to ``folder``; by name."""
    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.now(UTC)
    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ca_name = _name("pixnet sandbox authority")
    ca = (
        _builder(ca_name, ca_name, ca_key, now)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    made = {"ca": _write(folder, "ca", ca_key, ca)}

    def issue(
        stem: str, common_name: str, usage: list[x509.ObjectIdentifier], names: list[x509.GeneralName]
    ) -> None:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        builder = (
            _builder(_name(common_name), ca_name, key, now)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage(usage), critical=False)
        )
        if names:
            builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
        made[stem] = _write(folder, stem, key, builder.sign(ca_key, hashes.SHA256()))

    alternatives: list[x509.GeneralName] = []
    for host in hosts:
        try:
            alternatives.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            alternatives.append(x509.DNSName(host))
    issue("network", "pixnet", [ExtendedKeyUsageOID.SERVER_AUTH], alternatives)
    for ispb in participants:
        issue(f"participant-{ispb}", f"participant {ispb}", [ExtendedKeyUsageOID.CLIENT_AUTH], [])
    return made
