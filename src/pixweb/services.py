"""The objects a running service shares: settings, clock, unit of work, key material."""

from __future__ import annotations

from dataclasses import dataclass

from pixcore.clock import SystemClock
from pixcore.ports import KeyDirectory, SecretHasher, UnitOfWorkFactory
from pixcore.queries import TransactionQueries
from pixweb.persistence.queries import PostgresTransactionQueries
from pixweb.persistence.uow import PostgresUnitOfWork
from pixweb.sandbox.clock import ClockKeeper
from pixweb.sandbox.directory import SandboxDirectory
from pixweb.security.secrets import Argon2Hasher
from pixweb.security.tokens import JwtIssuer, load_or_create_signing_key
from pixweb.settings import Settings

__all__ = ["Services"]


@dataclass(slots=True)
class Services:
    settings: Settings
    clock: SystemClock
    keeper: ClockKeeper
    uow: UnitOfWorkFactory
    hasher: SecretHasher
    tokens: JwtIssuer
    directory: KeyDirectory
    sandbox_directory: SandboxDirectory
    queries: TransactionQueries

    @classmethod
    def build(cls, settings: Settings, clock: SystemClock | None = None) -> Services:
        """``clock``: a private clock (tests); without one, the sandbox clock shared through the
        database, or the wall clock when the sandbox is off (production mode)."""
        _ = settings.location_prefix  # a public URL too long for BR Codes stops start-up here
        keeper = ClockKeeper(clock or SystemClock(), shared=clock is None and settings.sandbox)
        key = load_or_create_signing_key(settings.signing_key_path)
        directory = SandboxDirectory(settings.institution_name)
        tokens = JwtIssuer(key, keeper.clock, issuer=settings.token_issuer, audience=settings.token_audience)
        return cls(
            settings=settings,
            clock=keeper.clock,
            keeper=keeper,
            uow=PostgresUnitOfWork,
            hasher=Argon2Hasher(),
            tokens=tokens,
            directory=directory,
            sandbox_directory=directory,
            queries=PostgresTransactionQueries(),
        )
