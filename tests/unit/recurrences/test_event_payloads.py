"""The JSON of Pix Automático's notifications, as the outbox stores it: the standard's callback
bodies of ``/webhookrec`` (``{"recs": [RecNotification]}``) and ``/webhookcobr`` (``{"cobsr":
[CobRNotification]}``), their keys those of the reference document's schemas."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from pixcore.events import RecurrenceEvent, RecurringChargeEvent
from pixcore.recurrences import (
    Attempt,
    AttemptStatus,
    AttemptType,
    Debtor,
    Journey,
    Payer,
    Periodicity,
    Recurrence,
    RecurrenceStatus,
    RecurringCharge,
    RecurringChargeStatus,
    RetryPolicy,
    StatusChange,
)
from pixcore.recurrences.terms import RECEIVER_CANCELLED
from pixinfra.event_payloads import payload

T0 = datetime(2024, 8, 20, 10, 12, 7, 567000, tzinfo=UTC)
T1 = datetime(2024, 8, 22, 12, 43, 53, 337000, tzinfo=UTC)
REFERENCE = Path(__file__).parents[2] / "data" / "bcb-pix-api-openapi.yaml"
"""The central bank's document, as the project keeps it."""


def _recurrence() -> Recurrence:
    return Recurrence(
        id=1,
        account_id=7,
        rec_id="RR1026652320240821lab77511abf",
        contract="298620560",
        debtor=Debtor("12600511100", "Sebastião Silva"),
        purpose=None,
        start=date(2024, 10, 1),
        end=None,
        periodicity=Periodicity.MENSAL,
        fixed_amount=None,
        minimum_amount=80_000,
        retry_policy=RetryPolicy.PERMITE_3R_7D,
        agreement=None,
        created_at=T0,
        journey_txid="r9eFIFmwcZ55Nm4RsKZAAtIvvCrlcNN6",
        status=RecurrenceStatus.APROVADA,
        history=(StatusChange(RecurrenceStatus.CRIADA, T0), StatusChange(RecurrenceStatus.APROVADA, T1)),
        journey=Journey.JORNADA_3,
        payer=Payer("12600511100", "52780028"),
    )


def test_a_recurrence_event_is_the_standards_rec_notification() -> None:
    assert payload(RecurrenceEvent(_recurrence())) == {
        "type": "REC",
        "data": {
            "recs": [
                {
                    "idRec": "RR1026652320240821lab77511abf",
                    "status": "APROVADA",
                    "atualizacao": [
                        {"status": "CRIADA", "data": "2024-08-20T10:12:07.567Z"},
                        {"status": "APROVADA", "data": "2024-08-22T12:43:53.337Z"},
                    ],
                    "ativacao": {
                        "tipoJornada": "JORNADA_3",
                        "dadosJornada": {"txid": "r9eFIFmwcZ55Nm4RsKZAAtIvvCrlcNN6"},
                    },
                }
            ]
        },
    }


def test_a_cancelled_recurrence_tells_who_cancelled_it() -> None:
    cancelled = dataclasses.replace(
        _recurrence().moved(RecurrenceStatus.CANCELADA, T1), closing=RECEIVER_CANCELLED, journey_txid=None
    )
    item = payload(RecurrenceEvent(cancelled))["data"]["recs"][0]
    assert item["encerramento"] == {
        "cancelamento": {
            "solicitante": "USUARIO_RECEBEDOR",
            "codigo": "SLCR",
            "descricao": "Cancelamento solicitado pelo usuário recebedor",
        }
    }
    assert item["ativacao"] == {"tipoJornada": "JORNADA_3"}


def _charge() -> RecurringCharge:
    first = Attempt(
        number=0,
        type=AttemptType.AGND,
        settles_on=date(2024, 8, 20),
        end_to_end_id="E12345678202406201221abcdef12345",
        status=AttemptStatus.PAGA,
        history=(StatusChange(AttemptStatus.SOLICITADA, T0), StatusChange(AttemptStatus.PAGA, T1)),
    )
    return RecurringCharge(
        id=3,
        account_id=7,
        txid="3136957d93134f2184b369e8f1c0729d",
        recurrence_id=1,
        rec_id="RR1234567820240115abcdefghijk",
        cycle=0,
        amount=10_607,
        due_date=date(2024, 8, 20),
        adjust_to_business_day=True,
        retry_policy=RetryPolicy.PERMITE_3R_7D,
        information=None,
        receiver_account="012682",
        receiver_branch="9708",
        receiver_account_type="CORRENTE",
        debtor_email=None,
        debtor_street=None,
        debtor_city=None,
        debtor_state=None,
        debtor_postal_code=None,
        created_at=T0,
        first_attempt=first,
        status=RecurringChargeStatus.CONCLUIDA,
        history=(
            StatusChange(RecurringChargeStatus.CRIADA, T0),
            StatusChange(RecurringChargeStatus.CONCLUIDA, T1),
        ),
        attempts=(first,),
        transaction_id=99,
        paid_at=T1,
    )


def test_a_recurring_charge_event_is_the_standards_cobr_notification_with_its_pix() -> None:
    assert payload(RecurringChargeEvent(_charge())) == {
        "type": "COBR",
        "data": {
            "cobsr": [
                {
                    "idRec": "RR1234567820240115abcdefghijk",
                    "txid": "3136957d93134f2184b369e8f1c0729d",
                    "status": "CONCLUIDA",
                    "atualizacao": [
                        {"status": "CRIADA", "data": "2024-08-20T10:12:07.567Z"},
                        {"status": "CONCLUIDA", "data": "2024-08-22T12:43:53.337Z"},
                    ],
                    "tentativas": [
                        {
                            "dataLiquidacao": "2024-08-20",
                            "tipo": "AGND",
                            "status": "PAGA",
                            "endToEndId": "E12345678202406201221abcdef12345",
                            "atualizacao": [
                                {"status": "SOLICITADA", "data": "2024-08-20T10:12:07.567Z"},
                                {"status": "PAGA", "data": "2024-08-22T12:43:53.337Z"},
                            ],
                        }
                    ],
                    "pix": [
                        {
                            "endToEndId": "E12345678202406201221abcdef12345",
                            "txid": "3136957d93134f2184b369e8f1c0729d",
                            "valor": "106.07",
                            "horario": "2024-08-22T12:43:53.337Z",
                        }
                    ],
                }
            ]
        },
    }


def _properties(schemas: dict[str, Any], name: str) -> set[str]:
    """Every property a schema (and the parts of its ``allOf``) declares."""
    found: set[str] = set()
    schema = schemas[name]
    for part in [schema, *schema.get("allOf", [])]:
        if "$ref" in part:
            found |= _properties(schemas, part["$ref"].rsplit("/", 1)[1])
        found |= set(part.get("properties", {}))
    return found


@pytest.mark.parametrize(
    ("event", "key", "schema"),
    [
        (RecurrenceEvent(_recurrence()), "recs", "RecNotification"),
        (RecurringChargeEvent(_charge()), "cobsr", "CobRNotification"),
    ],
)
def test_every_key_written_is_one_of_the_reference_schemas(event: Any, key: str, schema: str) -> None:
    schemas = yaml.safe_load(REFERENCE.read_text(encoding="utf-8"))["components"]["schemas"]
    item = payload(event)["data"][key][0]
    assert set(item) <= _properties(schemas, schema)
