"""What the service holds when it takes part in a network: one client of the network, and the
adapters on it (the key directory, the key registry, the SPI, the message worker).

The network's documents need the ``network`` extra (lxml, signxml): they are imported only when
``PIX_NETWORK_URL`` is set, so the ``web`` extra alone still serves the built-in sandbox, and a
network setting without the extra stops start-up with a sentence naming it.
"""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pixcore.accounts.ports import KeyRegistry
from pixcore.clock import Clock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import NetworkAccess, Settings

if TYPE_CHECKING:
    from pixweb.network.claims import ClaimsLoop, NetworkClaims
    from pixweb.network.client import NetworkClient
    from pixweb.network.directory import NetworkDirectory
    from pixweb.network.med import MedLoop, NetworkMed
    from pixweb.network.registry import NetworkKeyRegistry
    from pixweb.network.spi import SpiNetwork
    from pixweb.network.worker import NetworkMessages

__all__ = ["NETWORK_MODULES", "Participation", "key_claims", "key_registry", "network_med"]

NETWORK_MODULES = ("lxml", "signxml")
"""What the ``network`` extra installs that taking part in a network needs."""


def _access(settings: Settings) -> NetworkAccess:
    if settings.network is None:
        raise ValueError("PIX_NETWORK_URL is not set: the service takes part in no network")
    missing = [name for name in NETWORK_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise ValueError(
            f"PIX_NETWORK_URL needs the 'network' extra of pixservice ({', '.join(missing)} not"
            " installed): pip install 'pixservice[network]'"
        )
    return settings.network


def _client(settings: Settings) -> NetworkClient:
    from pixweb.network.client import NetworkClient  # the network extra's: only with PIX_NETWORK_URL

    return NetworkClient(_access(settings))


@dataclass(frozen=True, slots=True)
class Participation:
    client: NetworkClient
    directory: NetworkDirectory
    registry: NetworkKeyRegistry
    spi: SpiNetwork
    messages: NetworkMessages
    claims: NetworkClaims
    claims_loop: ClaimsLoop
    med_loop: MedLoop

    @classmethod
    def build(cls, settings: Settings, uow: UnitOfWorkFactory, clock: Clock) -> Participation:
        """The participation ``settings.network`` describes (``ValueError`` without one, or
        without the ``network`` extra)."""
        access = _access(settings)
        client = _client(settings)
        from pixweb.network.claims import ClaimsLoop, NetworkClaims
        from pixweb.network.directory import NetworkDirectory
        from pixweb.network.med import MedLoop, NetworkMed
        from pixweb.network.registry import NetworkKeyRegistry
        from pixweb.network.spi import SpiNetwork
        from pixweb.network.worker import NetworkMessages

        claims = NetworkClaims(client, ispb=settings.ispb)
        return cls(
            client=client,
            directory=NetworkDirectory(client, uow, ispb=settings.ispb, bank_name=settings.institution_name),
            registry=NetworkKeyRegistry(client),
            spi=SpiNetwork(client, ispb=settings.ispb),
            messages=NetworkMessages(client, uow, clock, ispb=settings.ispb),
            claims=claims,
            claims_loop=ClaimsLoop(claims, uow, ispb=settings.ispb, policy=access.claims),
            med_loop=MedLoop(NetworkMed(client, ispb=settings.ispb), uow, clock),
        )


@asynccontextmanager
async def key_registry(settings: Settings) -> AsyncIterator[KeyRegistry | None]:
    """The network's DICT as the registry of new accounts' keys, for one command (None: no
    network, the keys are this service's alone)."""
    if settings.network is None:
        yield None
        return
    client = _client(settings)
    from pixweb.network.registry import NetworkKeyRegistry

    try:
        yield NetworkKeyRegistry(client)
    finally:
        await client.close()


@asynccontextmanager
async def key_claims(settings: Settings) -> AsyncIterator[NetworkClaims]:
    """The network's DICT, for the claims of one operator's command (``ValueError`` without a
    network)."""
    client = _client(settings)
    from pixweb.network.claims import NetworkClaims

    try:
        yield NetworkClaims(client, ispb=settings.ispb)
    finally:
        await client.close()


@asynccontextmanager
async def network_med(settings: Settings) -> AsyncIterator[NetworkMed]:
    """The network's DICT, for the MED of one operator's command (``ValueError`` without a network)."""
    client = _client(settings)
    from pixweb.network.med import NetworkMed

    try:
        yield NetworkMed(client, ispb=settings.ispb)
    finally:
        await client.close()
