"""A refused charge of a batch as its adapter keeps it: a refusal whose problems name fields by
reference is stored in the adapter's own form and shown with the wire's paths; one stored before,
as plain message and details, reads and shows as it did."""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import msgspec

import pixweb.app  # noqa: F401 - every feature's module declares its fields' wire paths
from pixcore.charges.batches import BatchItem, BatchItemStatus, DueBatch, Refusal
from pixcore.charges.cobv import DueField
from pixcore.charges.parts import ChargeField
from pixcore.errors import ChargeNotFound, ValidationError
from pixcore.problems import Member, Problem
from pixweb.charges.batch_out import batch_out
from tests.contract.rows import T0, add_account
from tests.support import PostgresUnits

_OLD_DETAILS = ["devedor.nome: needs devedor.cpf or devedor.cnpj", "valor.original: must be above zero"]
_OLD = {
    "txid": "A" * 30,
    "status": "NEGADA",
    "createdAt": None,
    "refusal": {
        "branch": "ValidationError",
        "message": "Invalid due-date charge: " + "; ".join(_OLD_DETAILS),
        "details": _OLD_DETAILS,
    },
}
_NOT_FOUND = {
    "txid": "B" * 30,
    "status": "CRIADA",
    "createdAt": T0.isoformat(),
    "refusal": {"branch": "NotFound", "message": "Charge not found.", "details": []},
}


def _typed() -> Refusal:
    return Refusal.of(
        ValidationError(
            problems=[
                Problem.of(
                    ChargeField.DEBTOR_NAME, "needs {} or {}", ChargeField.DEBTOR_CPF, ChargeField.DEBTOR_CNPJ
                ),
                Problem.of(ChargeField.INFO_ITEM, "{} and {} are required strings", *_MEMBERS, at=(1,)),
                Problem.of(DueField.DISCOUNT_DATE_UNTIL, "must not be after {}", DueField.DUE_DATE, at=(0,)),
            ],
            summary="Invalid due-date charge: {}",
        )
    )


_MEMBERS = Member(ChargeField.INFO_NAME), Member(ChargeField.INFO_VALUE)
_TYPED_DETAILS = [
    "devedor.nome: needs devedor.cpf or devedor.cnpj",
    "infoAdicionais[1]: nome and valor are required strings",
    "valor.desconto.descontoDataFixa[0].data: must not be after calendario.dataDeVencimento",
]


def _shown(batch: DueBatch) -> list[Any]:
    """Each item's ``problema`` as the answer's JSON has it (None: no refusal)."""
    return [msgspec.to_builtins(item.problema) for item in batch_out(batch).cobsv]


async def test_refusals_stored_as_text_read_and_show_as_they_did(
    conn: asyncpg.Connection, pg_uow: PostgresUnits
) -> None:
    async with pg_uow() as tx:
        account = await add_account(tx)
        await tx.batches.add(DueBatch(account.id, 5, "Old", T0))
        await tx.commit()
    stored = json.dumps([_OLD, _NOT_FOUND])
    updated = "UPDATE due_batches SET items = $3::jsonb WHERE account_id = $1 AND id = $2"
    assert await conn.execute(updated, account.id, 5, stored) == "UPDATE 1"

    async with pg_uow() as tx:
        batch = await tx.batches.get(account.id, 5)
    assert batch is not None
    assert [item.refusal for item in batch.items] == [
        Refusal(
            "ValidationError", "Invalid due-date charge: " + "; ".join(_OLD_DETAILS), tuple(_OLD_DETAILS)
        ),
        Refusal("NotFound", "Charge not found."),
    ]
    old, not_found = _shown(batch)
    assert old is not None
    assert old["detail"] == "Invalid due-date charge: " + "; ".join(_OLD_DETAILS)
    assert old["violacoes"] == [
        {"razao": "needs devedor.cpf or devedor.cnpj", "propriedade": "devedor.nome"},
        {"razao": "must be above zero", "propriedade": "valor.original"},
    ]
    assert not_found is not None
    assert (not_found["status"], not_found["detail"]) == (404, "Charge not found.")


async def test_a_refusal_with_problems_is_kept_typed_and_shown_with_the_wire_paths(
    conn: asyncpg.Connection, pg_uow: PostgresUnits
) -> None:
    typed = _typed()
    assert list(typed.details) == [
        "debtor name: needs debtor cpf or debtor cnpj",
        "info item[1]: info name and info value are required strings",
        "discount date until[0]: must not be after due date",
    ]  # the domain's own names: pixcore speaks no wire
    not_found = Refusal.of(ChargeNotFound())
    items = (
        BatchItem("C" * 30, BatchItemStatus.NEGADA, refusal=typed),
        BatchItem("D" * 30, BatchItemStatus.CRIADA, created_at=T0, refusal=not_found),
    )
    async with pg_uow() as tx:
        account = await add_account(tx)
        await tx.batches.add(DueBatch(account.id, 6, "New", T0, items))
        await tx.commit()
    kept = await conn.fetchval("SELECT items FROM due_batches WHERE account_id = $1 AND id = 6", account.id)
    refusal = json.loads(kept)[0]["refusal"]
    assert refusal["summary"] == "Invalid due-date charge: {}"
    assert refusal["problems"][0] == {
        "fields": ["ChargeField.DEBTOR_NAME"],
        "text": "needs {} or {}",
        "refs": [{"field": "ChargeField.DEBTOR_CPF"}, {"field": "ChargeField.DEBTOR_CNPJ"}],
        "at": [],
    }
    assert refusal["problems"][1]["refs"] == [
        {"member": "ChargeField.INFO_NAME"},
        {"member": "ChargeField.INFO_VALUE"},
    ]

    async with pg_uow() as tx:
        batch = await tx.batches.get(account.id, 6)
    assert batch is not None
    assert batch.items == items
    shown, missing = _shown(batch)
    assert shown is not None
    assert shown["detail"] == "Invalid due-date charge: " + "; ".join(_TYPED_DETAILS)
    assert [v["propriedade"] for v in shown["violacoes"]] == [
        "devedor.nome",
        "infoAdicionais[1]",
        "valor.desconto.descontoDataFixa[0].data",
    ]
    assert missing is not None
    assert (missing["status"], missing["detail"]) == (404, "Charge not found.")
