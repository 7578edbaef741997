"""The service's key directory on the network (``pixweb.network.directory``) against the DICT over
mutual TLS: a key is looked up for the holder of the account that pays, whose CPF or CNPJ is the
look-up's ``PI-PayerId``, so the DICT's anti-scan policy counts each payer in buckets of its own."""

from __future__ import annotations

import uuid
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from pixcore.accounts.accounts_service import open_account
from pixcore.accounts.rules import Account, Counterpart
from pixcore.clock import ManualClock
from pixcore.group_commit.transfers import TransferGroupCommit
from pixcore.keys import PixKeyType, parse_pix_key
from pixcore.network.ports import NetworkUnavailable
from pixcore.testing import InMemoryStore, PlainHasher
from pixcore.transfers.receipt_service import receive_payment
from pixcore.transfers.rules import SPI_BEHAVIOR, TransferRequest
from pixinfra.settings import NetworkAccess
from pixnet.directory.policies import lookup_policies
from pixweb.network.client import NetworkClient
from pixweb.network.directory import NetworkDirectory
from pixwire.dict.model import DictProblem, ErrorType
from tests.integration.network.support import BANK_A, BANK_B, Network, Party, client, signed
from tests.support import random_cpf

OUTSIDE = Counterpart("Pagador de Fora", "11144477735", "12345678")
"""Who funds the accounts (a payment from outside the network)."""


def _entry_of_bank_b(key: str) -> bytes:
    """A ``CreateEntryRequest`` of an EMAIL key of a customer of bank B."""
    return f"""<CreateEntryRequest>
  <Entry><Key>{key}</Key><KeyType>EMAIL</KeyType>
    <Account><Participant>{BANK_B}</Participant><Branch>0001</Branch><AccountNumber>777</AccountNumber>
      <AccountType>CACC</AccountType><OpeningDate>2024-01-10T03:00:00Z</OpeningDate></Account>
    <Owner><Type>NATURAL_PERSON</Type><TaxIdNumber>{random_cpf()}</TaxIdNumber><Name>Loja B</Name></Owner>
  </Entry>
  <Reason>USER_REQUESTED</Reason><RequestId>{uuid.uuid4()}</RequestId>
</CreateEntryRequest>""".encode()


async def _customer(store: InMemoryStore, clock: ManualClock, name: str) -> Account:
    """An account of bank A, with a CPF of its own and 100.00."""
    key = f"{name.lower()}.{uuid.uuid4().hex[:8]}@example.com"
    opened = await open_account(
        store.unit_of_work,
        PlainHasher(),
        ispb=BANK_A,
        name=name,
        document=random_cpf(),
        city="RECIFE",
        keys=(key,),
    )
    await receive_payment(store.unit_of_work, clock, key=parse_pix_key(key), amount=100_00, payer=OUTSIDE)
    return opened.account


def _to(key: str) -> TransferRequest:
    return TransferRequest.parse(
        pix_key=key,
        amount=Decimal("10.00"),
        currency="BRL",
        priority=None,
        expiration=None,
        creditor_document=None,
        description=None,
        ispb_deny=None,
        payment_flow=None,
    )


def _tokens(network: Network, payer: str) -> int:
    """What the anti-scan bucket of bank A's user ``payer`` holds for look-ups of EMAIL keys."""
    (_, user), _ = lookup_policies(network.buckets, BANK_A, payer, PixKeyType.EMAIL)
    return user.tokens


async def test_each_paying_account_holder_is_counted_in_a_bucket_of_its_own(
    network: Network, certificates: tuple[Path, dict[str, Party]]
) -> None:
    """Two customers of bank A pay a key of bank B: each look-up takes a token of its payer's
    bucket, none of the institution's. Keys that are not there (20 tokens a look-up) empty one
    customer's bucket: its next look-up is refused, the other's is answered."""
    shop = f"loja.{uuid.uuid4().hex[:8]}@example.com"
    async with client(network, BANK_B) as b:
        created = await b.post("/api/v1/entries/", content=signed(network, BANK_B, _entry_of_bank_b(shop)))
        assert created.status_code == 201, created.text
    clock = ManualClock()
    store = InMemoryStore(clock=clock)
    maria, joao = await _customer(store, clock, "Maria"), await _customer(store, clock, "Joao")
    assert maria.document != joao.document
    authority, parties = certificates
    bank_a = parties[BANK_A].files
    access = NetworkAccess(network.url, bank_a[0], bank_a[1], authority, network.dict_party.files[0])
    network_client = NetworkClient(access)
    try:
        directory = NetworkDirectory(network_client, store.unit_of_work, ispb=BANK_A, bank_name="Bank A")
        transfers = TransferGroupCommit(
            store.unit_of_work,
            directory,
            clock,
            ispb=BANK_A,
            norm_delay=timedelta(seconds=30),
            size=16,
            window=timedelta(0),
        )
        for account in (maria, joao):
            sent = await transfers.create(
                account_id=account.id, idempotency_key=uuid.uuid4(), request=_to(shop)
            )
            assert (sent.transfer.creditor_ispb, sent.transfer.behavior) == (BANK_B, SPI_BEHAVIOR)

        assert (_tokens(network, maria.document), _tokens(network, joao.document)) == (99, 99)
        institution = BANK_A + "000100"  # the institution's own CNPJ (root and first branch) is no payer
        assert _tokens(network, institution) == 1_000

        for n in range(5):
            nobody = parse_pix_key(f"nobody.{n}.{uuid.uuid4().hex[:8]}@example.com")
            assert await directory.lookup(nobody, payer=maria.document) is None
        assert _tokens(network, maria.document) == -1
        nobody = parse_pix_key(f"nobody.{uuid.uuid4().hex[:8]}@example.com")
        with pytest.raises(NetworkUnavailable) as refused:
            await directory.lookup(nobody, payer=maria.document)
        problem = refused.value.__cause__
        assert isinstance(problem, DictProblem)
        assert problem.type is ErrorType.RATE_LIMITED
        assert await directory.lookup(nobody, payer=joao.document) is None
        assert _tokens(network, joao.document) == 79
    finally:
        await network_client.close()
