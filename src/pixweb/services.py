"""The objects a running service shares: settings, clock, unit of work, key material."""

from __future__ import annotations

from dataclasses import dataclass

from pixcore.clock import Clock, SystemClock
from pixcore.ports import SecretHasher, UnitOfWorkFactory
from pixweb.persistence.uow import PostgresUnitOfWork
from pixweb.security.secrets import Argon2Hasher
from pixweb.security.tokens import JwtIssuer, load_or_create_signing_key
from pixweb.settings import Settings

__all__ = ["Services"]


@dataclass(slots=True)
class Services:
    settings: Settings
    clock: Clock
    uow: UnitOfWorkFactory
    hasher: SecretHasher
    tokens: JwtIssuer

    @classmethod
    def build(cls, settings: Settings, clock: Clock | None = None) -> Services:
        clock = clock or SystemClock()
        key = load_or_create_signing_key(settings.signing_key_path)
        return cls(
            settings=settings,
            clock=clock,
            uow=PostgresUnitOfWork,
            hasher=Argon2Hasher(),
            tokens=JwtIssuer(key, clock, issuer=settings.token_issuer, audience=settings.token_audience),
        )
