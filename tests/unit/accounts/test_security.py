"""Key material and certificate parsing of pixweb.security, without a database."""

from __future__ import annotations

import hashlib
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from pixcore.clock import ManualClock
from pixcore.errors import InvalidToken, MalformedCertificate
from pixweb.security.certificates import (
    create_self_signed,
    fingerprint_to_x5t,
    read_certificate_header,
    read_pem,
)
from pixweb.security.tokens import JwtIssuer, SigningKey, load_or_create_signing_key


def test_signing_key_is_created_once_private_and_stable(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "signing-key.pem"
    first = load_or_create_signing_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    pem = path.read_bytes()
    second = load_or_create_signing_key(path)
    assert path.read_bytes() == pem
    assert second.kid == first.kid
    assert list(tmp_path.glob("keys/.*tmp")) == []


def test_a_given_signing_key_file_is_used_as_is(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    path = tmp_path / "mine.pem"
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    loaded = load_or_create_signing_key(path)
    assert loaded.private_key.private_numbers() == key.private_numbers()
    jwk = loaded.public_jwk
    assert jwk["kty"] == "EC"
    assert jwk["crv"] == "P-256"
    assert jwk["kid"] == loaded.kid
    assert "d" not in jwk


def test_a_signing_key_of_the_wrong_kind_is_refused(tmp_path: Path) -> None:
    key = ec.generate_private_key(ec.SECP384R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    with pytest.raises(ValueError, match="P-256"):
        SigningKey.from_pem(pem)


def test_issued_token_verifies_until_the_clock_passes_its_expiry(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 11, 21, 12, 0, tzinfo=UTC))
    issuer = JwtIssuer(load_or_create_signing_key(tmp_path / "k.pem"), clock, issuer="me", audience="you")
    fingerprint = hashlib.sha256(b"cert").hexdigest()
    token = issuer.issue(account_id=42, fingerprint=fingerprint, issued_at=clock.now())
    principal = issuer.verify(token)
    assert principal.account_id == 42
    assert principal.fingerprint == fingerprint_to_x5t(fingerprint)
    clock.advance(1799)
    assert issuer.verify(token).account_id == 42
    clock.advance(1)
    with pytest.raises(InvalidToken):
        issuer.verify(token)


def _issuer(folder: Path, clock: ManualClock, cache_size: int = 100) -> JwtIssuer:
    key = load_or_create_signing_key(folder / "k.pem")
    return JwtIssuer(key, clock, issuer="me", audience="you", cache_size=cache_size)


def test_a_cached_token_is_still_refused_once_expired_and_leaves_the_cache(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 11, 21, 12, 0, tzinfo=UTC))
    issuer = _issuer(tmp_path, clock)
    token = issuer.issue(account_id=7, fingerprint="00" * 32, issued_at=clock.now())
    assert issuer.verify(token).account_id == 7
    assert issuer.cached_tokens == 1
    clock.advance(1800)  # its exp: the cached entry is not trusted past it
    with pytest.raises(InvalidToken, match="expired"):
        issuer.verify(token)
    assert issuer.cached_tokens == 0
    with pytest.raises(InvalidToken, match="expired"):
        issuer.verify(token)  # verified again from scratch: still expired


def test_the_verified_token_cache_is_bounded_least_recently_used_first(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 11, 21, 12, 0, tzinfo=UTC))
    issuer = _issuer(tmp_path, clock, cache_size=3)
    tokens = [issuer.issue(account_id=n, fingerprint="00" * 32, issued_at=clock.now()) for n in range(1, 6)]
    for token in tokens:
        issuer.verify(token)
    assert issuer.cached_tokens == 3
    for n, token in enumerate(tokens, start=1):  # the evicted ones verify again, as themselves
        assert issuer.verify(token).account_id == n
    assert issuer.cached_tokens == 3


def test_a_cached_token_with_another_signature_is_refused(tmp_path: Path) -> None:
    """The cache is keyed by the whole token: same header and claims, a forged signature, refused."""
    clock = ManualClock(datetime(2026, 11, 21, 12, 0, tzinfo=UTC))
    issuer = _issuer(tmp_path, clock)
    token = issuer.issue(account_id=9, fingerprint="00" * 32, issued_at=clock.now())
    issuer.verify(token)
    head, claims, signature = token.split(".")
    forged = f"{head}.{claims}.{'A' * len(signature)}"
    with pytest.raises(InvalidToken):
        issuer.verify(forged)
    assert issuer.verify(token).account_id == 9


def test_a_token_from_another_issuer_key_is_refused(tmp_path: Path) -> None:
    clock = ManualClock(datetime(2026, 11, 21, 12, 0, tzinfo=UTC))
    ours = JwtIssuer(load_or_create_signing_key(tmp_path / "a.pem"), clock, issuer="me", audience="you")
    theirs = JwtIssuer(load_or_create_signing_key(tmp_path / "b.pem"), clock, issuer="me", audience="you")
    token = theirs.issue(account_id=1, fingerprint="00" * 32, issued_at=clock.now())
    with pytest.raises(InvalidToken):
        ours.verify(token)


def test_x5t_is_base64url_of_the_digest() -> None:
    assert fingerprint_to_x5t("ff" * 32) == "__________________________________________8"
    assert "=" not in fingerprint_to_x5t("00" * 32)


def test_certificate_header_round_trip_and_fingerprint() -> None:
    _, pem, info = create_self_signed("unit")
    der = x509.load_pem_x509_certificate(pem).public_bytes(serialization.Encoding.DER)
    assert info.fingerprint == hashlib.sha256(der).hexdigest()
    assert read_certificate_header(quote(pem.decode(), safe="")) == info
    assert read_certificate_header(quote_plus(pem.decode())) == info
    assert read_pem(pem) == info
    assert info.is_valid_at(datetime.now(UTC))
    assert not info.is_valid_at(datetime.now(UTC) + timedelta(days=400))


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        "   ",
        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----",
        "%E0%A4%A",
        "%" * 20_000,
    ],
)
def test_malformed_certificate_headers_are_refused(value: str | None) -> None:
    with pytest.raises(MalformedCertificate):
        read_certificate_header(value)
