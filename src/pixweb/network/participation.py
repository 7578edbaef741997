"""What the service holds when it takes part in a network: one client of the network, and the
adapters on it (the key directory, the key registry, the SPI, the message worker)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from pixcore.accounts.ports import KeyRegistry
from pixcore.clock import Clock
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.network.client import NetworkClient
from pixweb.network.directory import NetworkDirectory
from pixweb.network.registry import NetworkKeyRegistry
from pixweb.network.spi import SpiNetwork
from pixweb.network.worker import NetworkMessages

__all__ = ["Participation", "key_registry"]


@dataclass(frozen=True, slots=True)
class Participation:
    client: NetworkClient
    directory: NetworkDirectory
    registry: NetworkKeyRegistry
    spi: SpiNetwork
    messages: NetworkMessages

    @classmethod
    def build(cls, settings: Settings, uow: UnitOfWorkFactory, clock: Clock) -> Participation:
        """The participation ``settings.network`` describes (``ValueError`` without one)."""
        if settings.network is None:
            raise ValueError("PIX_NETWORK_URL is not set: the service takes part in no network")
        client = NetworkClient(settings.network)
        return cls(
            client=client,
            directory=NetworkDirectory(client, uow, ispb=settings.ispb, bank_name=settings.institution_name),
            registry=NetworkKeyRegistry(client),
            spi=SpiNetwork(client, ispb=settings.ispb),
            messages=NetworkMessages(client, uow, clock, ispb=settings.ispb),
        )


@asynccontextmanager
async def key_registry(settings: Settings) -> AsyncIterator[KeyRegistry | None]:
    """The network's DICT as the registry of new accounts' keys, for one command (None: no
    network, the keys are this service's alone)."""
    if settings.network is None:
        yield None
        return
    client = NetworkClient(settings.network)
    try:
        yield NetworkKeyRegistry(client)
    finally:
        await client.close()
