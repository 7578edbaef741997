"""The sandbox directory's look-up of several keys at once answers as one look-up per key would."""

from __future__ import annotations

import uuid

from pixcore.accounts.accounts_service import open_account
from pixcore.keys import parse_pix_key
from pixcore.testing import PlainHasher
from pixcore.transfers.rules import DirectoryEntry
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.postgres.pool import Database
from pixweb.sandbox.directory import SandboxDirectory
from tests.support import random_cpf


async def test_many_keys_at_once_resolve_as_each_alone(pg_uow: UnitOfWorkFactory, database: Database) -> None:
    directory = SandboxDirectory(database, "PIX SANDBOX")
    own = f"{uuid.uuid4().hex[:12]}@inside.example"
    opened = await open_account(
        pg_uow,
        PlainHasher(),
        ispb="99999999",
        name="Dona Conta",
        document=random_cpf(),
        city="RECIFE",
        keys=(own,),
    )
    outside = parse_pix_key(f"{uuid.uuid4().hex[:12]}@outside.example")
    await directory.add(
        DirectoryEntry(
            key=outside,
            ispb="12345678",
            name="De Fora",
            document=random_cpf(),
            bank_name="OTHER BANK",
            branch="0001",
            account_number="123",
            behavior="reject",
        )
    )
    # A sandbox entry for the account's own key (written behind the directory's back): the account wins.
    async with database.acquire() as conn:
        await conn.execute(
            """INSERT INTO sandbox_directory (key_value, key_type, ispb, name, document, bank_name, branch,
                   account_number, behavior)
               VALUES ($1, 'EMAIL', '12345678', 'Impostor', $2, 'OTHER BANK', '0001', '9', 'settle')""",
            own,
            random_cpf(),
        )
    unknown = parse_pix_key(f"{uuid.uuid4().hex[:12]}@nobody.example")
    keys = [parse_pix_key(own), outside, unknown, outside]
    payer = opened.account.document

    found = await directory.lookup_many(keys, payer=payer)

    alone = {key.value: await directory.lookup(key, payer=payer) for key in keys}
    assert found == {value: entry for value, entry in alone.items() if entry is not None}
    assert set(found) == {own, outside.value}
    assert found[own].account_id == opened.account.id
    assert found[own].name == "Dona Conta"
    assert (found[outside.value].behavior, found[outside.value].account_id) == ("reject", None)
    assert await directory.lookup_many([], payer=payer) == {}
