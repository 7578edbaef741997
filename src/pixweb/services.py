"""The objects a running service shares: settings, database, clock, unit of work, key material."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from pixcore.accounts.ports import SecretHasher
from pixcore.accounts.sessions_service import ConsoleSessions
from pixcore.clock import SystemClock
from pixcore.group_commit.charge_payments import ChargePaymentGroupCommit
from pixcore.group_commit.receipts import ReceiptGroupCommit
from pixcore.group_commit.transfers import TransferGroupCommit
from pixcore.queries.rules import TransactionQueries
from pixcore.transfers.ports import KeyDirectory
from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.ports import HostResolver
from pixinfra.dns import SystemResolver
from pixinfra.persistence.queries import PostgresTransactionQueries
from pixinfra.persistence.reads import Reads, RoutedTransactionQueries
from pixinfra.persistence.revocation import GroupCertificateCheck, PostgresCertificateStatus
from pixinfra.persistence.transfer_groups import PostgresTransferGroupStore
from pixinfra.persistence.uow import PostgresUnitOfWork
from pixinfra.postgres.pool import Database
from pixinfra.postgres.replica import ReadRouter, Route
from pixinfra.settings import Settings
from pixweb.network.participation import Participation
from pixweb.sandbox.clock import ClockKeeper
from pixweb.sandbox.directory import SandboxDirectory
from pixweb.security.hashing import BoundedVerifier
from pixweb.security.ratelimit import TokenRateLimits
from pixweb.security.secrets import Argon2Hasher
from pixweb.security.tokens import JwtIssuer, load_or_create_signing_key

__all__ = ["Services"]


@dataclass(slots=True)
class Services:
    settings: Settings
    database: Database
    clock: SystemClock
    keeper: ClockKeeper
    uow: UnitOfWorkFactory
    hasher: SecretHasher
    tokens: JwtIssuer
    directory: KeyDirectory
    sandbox_directory: SandboxDirectory
    queries: TransactionQueries
    verifier: BoundedVerifier
    token_limits: TokenRateLimits
    certificate_status: PostgresCertificateStatus
    console_sessions: ConsoleSessions
    """The console's sessions, held in the database, on the wall clock (the sandbox clock moves
    nobody's session on: a test moves ``console_sessions.clock``)."""
    transfers: TransferGroupCommit
    """Creates the API's transfers, grouping each account's concurrent ones (group commit)."""
    receipts: ReceiptGroupCommit
    """Credits the sandbox's payments, grouping the concurrent ones of each key (group commit)."""
    charge_payments: ChargePaymentGroupCommit
    """Pays the sandbox's charge payments, grouping the concurrent ones of each receiving account."""
    resolver: HostResolver
    """Resolves a webhook's host at registration (the operating system's, unless a test hands one)."""
    reads: Reads
    """The query endpoints' read-only units of work, on the replica when one is configured; its
    router also records each account's writes (``pixweb.observability.read_marks``)."""
    network: Participation | None = None
    """The PIX network this service takes part in (``PIX_NETWORK_URL``), or None: the built-in
    sandbox is its outside world."""

    @classmethod
    def build(
        cls,
        settings: Settings,
        database: Database,
        clock: SystemClock | None = None,
        resolver: HostResolver | None = None,
        *,
        replica: Database | None = None,
        observe_read: Callable[[Route], None] | None = None,
    ) -> Services:
        """``database``: the process's, open. ``clock``: a private clock (tests); without one, the
        sandbox clock shared through the database, or the wall clock when the sandbox is off
        (production mode). ``resolver``: the host resolver of webhook registration (default: the
        operating system's). ``replica``: the read replica's database (``PIX_DATABASE_READ_URL``),
        open, or None. ``observe_read``: told where each read of an account went."""
        _ = settings.location_prefix  # a public URL too long for BR Codes stops start-up here
        keeper = ClockKeeper(
            clock or SystemClock(), shared=clock is None and settings.sandbox, database=database
        )
        key = load_or_create_signing_key(settings.signing_key_path)
        sandbox_directory = SandboxDirectory(database, settings.institution_name)
        uow = partial(PostgresUnitOfWork, database)
        network = None if settings.network is None else Participation.build(settings, uow, keeper.clock)
        directory: KeyDirectory = sandbox_directory if network is None else network.directory
        tokens = JwtIssuer(key, keeper.clock, issuer=settings.token_issuer, audience=settings.token_audience)
        hasher = Argon2Hasher()
        router = ReadRouter(database, replica, wait=settings.read_wait_ms / 1000, observe=observe_read)
        group_window = timedelta(milliseconds=settings.transfer_batch_window_ms)
        status = PostgresCertificateStatus(database)
        return cls(
            settings=settings,
            database=database,
            clock=keeper.clock,
            keeper=keeper,
            uow=uow,
            hasher=hasher,
            tokens=tokens,
            directory=directory,
            sandbox_directory=sandbox_directory,
            queries=RoutedTransactionQueries(router) if replica else PostgresTransactionQueries(database),
            verifier=BoundedVerifier(hasher, slots=settings.hash_slots, queue=settings.hash_queue),
            token_limits=TokenRateLimits(
                per_client=settings.token_rate_per_client, per_address=settings.token_rate_per_address
            ),
            certificate_status=status,
            console_sessions=ConsoleSessions(uow, SystemClock()),
            transfers=TransferGroupCommit(
                uow,
                directory,
                keeper.clock,
                ispb=settings.ispb,
                norm_delay=timedelta(seconds=settings.norm_delay_seconds),
                size=settings.transfer_batch_size,
                window=group_window,
                certificates=GroupCertificateCheck(status, keeper),
                store=PostgresTransferGroupStore(database),
            ),
            receipts=ReceiptGroupCommit(
                uow, keeper.clock, size=settings.transfer_batch_size, window=group_window
            ),
            charge_payments=ChargePaymentGroupCommit(
                uow, keeper.clock, size=settings.transfer_batch_size, window=group_window
            ),
            resolver=resolver or SystemResolver(),
            reads=Reads(router),
            network=network,
        )

    def close(self) -> None:
        """Stop what the services started (the hashing threads)."""
        self.verifier.close()
