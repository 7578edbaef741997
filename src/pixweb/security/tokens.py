"""Access tokens: ES256 JWTs bound to the client certificate (RFC 8705).

The signing key is an EC P-256 key created once under the data folder (or
given by ``PIX_SIGNING_KEY_FILE``); its public half is published as a JWKS.
Verification pins the algorithm, requires every claim, and checks expiry
against the service clock rather than the wall clock, so that the sandbox
can move time forward.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

from pixcore.accounts.token_service import TOKEN_LIFETIME_SECONDS
from pixcore.clock import Clock
from pixcore.errors import InvalidToken
from pixweb.security.certificates import fingerprint_to_x5t, write_private

__all__ = ["ALGORITHM", "JwtIssuer", "Principal", "SigningKey", "load_or_create_signing_key"]

ALGORITHM = "ES256"
REQUIRED_CLAIMS = ("iss", "sub", "aud", "iat", "exp", "jti", "cnf")
VERIFIED_CACHE_SIZE = 10_000
_ACCOUNT_ID = re.compile(r"[1-9][0-9]{0,18}")  # as issued: ASCII, canonical (isdigit() takes U+0661)


@dataclass(frozen=True, slots=True)
class SigningKey:
    private_key: ec.EllipticCurvePrivateKey
    kid: str

    @property
    def public_jwk(self) -> dict[str, Any]:
        jwk: dict[str, Any] = json.loads(ECAlgorithm.to_jwk(self.private_key.public_key()))
        return jwk | {"kid": self.kid, "use": "sig", "alg": ALGORITHM}

    def jwks(self) -> dict[str, Any]:
        return {"keys": [self.public_jwk]}

    @classmethod
    def from_pem(cls, pem: bytes) -> SigningKey:
        key = serialization.load_pem_private_key(pem, password=None)
        if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
            raise ValueError("the signing key must be an EC P-256 private key")
        public = json.loads(ECAlgorithm.to_jwk(key.public_key()))
        return cls(private_key=key, kid=_thumbprint(public))


def _thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638 JWK thumbprint: a stable key id derived from the public key."""
    canonical = json.dumps(
        {k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True
    )
    digest = hashlib.sha256(canonical.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def load_or_create_signing_key(path: Path) -> SigningKey:
    """Read the key at ``path``, creating it (mode 0600) the first time."""
    if not path.exists():
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        write_private(tmp, pem)
        try:
            path.hardlink_to(tmp)  # atomic: the first process wins, no key is ever overwritten
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
    return SigningKey.from_pem(path.read_bytes())


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a valid token speaks for."""

    account_id: int
    fingerprint: str  # the certificate's x5t#S256
    token_id: str


class JwtIssuer:
    """Issues and verifies the service's access tokens (the ``TokenIssuer`` port)."""

    def __init__(
        self,
        key: SigningKey,
        clock: Clock,
        *,
        issuer: str,
        audience: str,
        cache_size: int = VERIFIED_CACHE_SIZE,
    ) -> None:
        self._key = key
        self._public = key.private_key.public_key()
        self._clock = clock
        self.issuer = issuer
        self.audience = audience
        self._cache_size = cache_size
        self._verified: OrderedDict[bytes, tuple[Principal, int, int]] = OrderedDict()

    def jwks(self) -> dict[str, Any]:
        """The public key set that verifies our tokens (and, later, our signed payloads)."""
        return self._key.jwks()

    def sign(self, payload: dict[str, Any], *, jku: str) -> str:
        """A compact JWS of ``payload`` with the service key; ``jku`` says where its JWKS is."""
        headers = {"kid": self._key.kid, "jku": jku}
        return jwt.encode(payload, self._key.private_key, algorithm=ALGORITHM, headers=headers)

    def issue(self, *, account_id: int, fingerprint: str, issued_at: datetime) -> str:
        iat = int(issued_at.timestamp())
        claims = {
            "iss": self.issuer,
            "sub": str(account_id),
            "aud": self.audience,
            "iat": iat,
            "exp": iat + TOKEN_LIFETIME_SECONDS,
            "jti": uuid.uuid4().hex,
            "cnf": {"x5t#S256": fingerprint_to_x5t(fingerprint)},
        }
        return jwt.encode(claims, self._key.private_key, algorithm=ALGORITHM, headers={"kid": self._key.kid})

    def verify(self, token: str) -> Principal:
        """Check signature, algorithm, key id, every claim and expiry; ``InvalidToken`` otherwise.

        A token whose signature and claims were checked once is remembered in a cache of at most
        ``cache_size`` tokens, the least recently used dropped first, keyed by the SHA-256 of the
        token (no bearer token is kept in memory). Its time window is checked on every use against
        the service clock, and an expired one leaves the cache. Only what the token itself proves
        is cached: whether its certificate is still in force is the caller's question, asked on
        every request (``pixweb.auth``), so that a revocation made by any process holds at once.
        """
        return self.verify_until(token)[0]

    def verify_until(self, token: str) -> tuple[Principal, int]:
        """:meth:`verify`, and the token's ``exp`` (seconds since the epoch)."""
        digest = hashlib.sha256(token.encode()).digest()
        principal, iat, exp = self._signed(token, digest)
        try:
            self._check_window(iat, exp)
        except InvalidToken:
            self._verified.pop(digest, None)
            raise
        return principal, exp

    def principal(self, token: str) -> Principal:
        """Who ``token`` names, its signature and claims checked (from the cache when it is there)
        but NOT its time window: only to look ahead at what :meth:`verify` will be asked (the
        certificate to check, ``pixweb.sandbox.clock_middleware``); ``InvalidToken`` otherwise."""
        return self._signed(token, hashlib.sha256(token.encode()).digest())[0]

    def _signed(self, token: str, digest: bytes) -> tuple[Principal, int, int]:
        cached = self._verified.get(digest)
        if cached is None:
            cached = self._verify_signed(token)
            self._verified[digest] = cached
            if len(self._verified) > self._cache_size:
                self._verified.popitem(last=False)
        else:
            self._verified.move_to_end(digest)
        return cached

    @property
    def cached_tokens(self) -> int:
        """How many verified tokens the cache holds (at most ``cache_size``)."""
        return len(self._verified)

    def _check_window(self, iat: int, exp: int) -> None:
        now = int(self._clock.now().timestamp())
        if not iat - 60 <= now < exp:
            raise InvalidToken(InvalidToken.EXPIRED)

    def _verify_signed(self, token: str) -> tuple[Principal, int, int]:
        try:
            header = jwt.get_unverified_header(token)
            if header.get("alg") != ALGORITHM or header.get("kid") != self._key.kid:
                raise InvalidToken()
            claims = jwt.decode(
                token,
                self._public,
                algorithms=[ALGORITHM],
                audience=self.audience,
                issuer=self.issuer,
                # expiry is checked below against the service clock, not time.time()
                options={"require": list(REQUIRED_CLAIMS), "verify_exp": False, "verify_iat": False},
            )
        except jwt.PyJWTError:
            raise InvalidToken() from None
        exp, iat, sub, cnf = claims["exp"], claims["iat"], claims["sub"], claims["cnf"]
        if not (isinstance(exp, int) and isinstance(iat, int)):
            raise InvalidToken()
        if not isinstance(sub, str) or not _ACCOUNT_ID.fullmatch(sub) or not isinstance(cnf, dict):
            raise InvalidToken()
        thumbprint = cnf.get("x5t#S256")
        if not isinstance(thumbprint, str):
            raise InvalidToken()
        return Principal(account_id=int(sub), fingerprint=thumbprint, token_id=str(claims["jti"])), iat, exp
