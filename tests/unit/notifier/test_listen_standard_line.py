"""``pixnotify listen`` prints the standard's callbacks (no envelope) as lines for a person, as it
does our notifications: a key's PIX (``{"pix": [...]}``), and Pix Automático's recurrence
(``/webhookrec``: ``{"recs": [...]}``, its id and status) and recurring charge (``/webhookcobr``:
``{"cobsr": [...]}``, its txid, status, latest attempt and, once paid, its amount). The recurring
bodies are the service's own: the outbox's payload as the notifier encodes it."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, date, datetime
from typing import Any

from hypothesis import given

from pixcore.events import Event, RecurrenceEvent, RecurringChargeEvent
from pixcore.recurrences import AttemptStatus, RecurrenceStatus, RecurringChargeStatus
from pixcore.recurrences.terms import RECEIVER_CANCELLED, Closing, ClosingKind
from pixcore.webhooks.delivery import encode_body
from pixinfra.event_payloads import payload
from pixnotify.listen import UNVERIFIED, Notification, Verdict, human_line
from tests.unit.notifier.test_listen_visible import TEXT, _hidden
from tests.unit.recurrences.test_event_payloads import _charge as paid_charge
from tests.unit.recurrences.test_event_payloads import _recurrence as approved_recurrence

LATER = datetime(2024, 8, 23, 9, 0, tzinfo=UTC)


def note(event: Any, verdict: Verdict | None = None, msg_id: str = "msg_7_3") -> Notification:
    verdict = verdict or Verdict(valid=True)
    return Notification(
        received_at=datetime(2026, 3, 15, 14, 40, tzinfo=UTC),
        path="/hooks/pix",
        headers={"webhook-id": msg_id},
        body=b"",
        verdict=verdict,
        status=204 if verdict.valid else 401,
        event=event,
    )


def sent(event: Event) -> Any:
    """The body the notifier POSTs for ``event``, as the listener parses it."""
    return json.loads(encode_body(payload(event)))


def columns(event: Any) -> tuple[str, ...]:
    """The line's columns after its time."""
    return tuple(human_line(note(event)).split("  ")[1:])


def test_a_standard_pix_body_is_a_pix_line() -> None:
    item = {"endToEndId": "E1", "valor": "37.50", "horario": "x", "devolucoes": [], "chave": "a@example.org"}
    assert columns({"pix": [item]}) == (
        "PIX",
        "37.50 BRL",
        "endToEndId=E1 chave=a@example.org",
        "msg_7_3",
        "signature ok",
    )


def test_a_recurrence_is_a_rec_line_with_its_id_and_status() -> None:
    body = sent(RecurrenceEvent(approved_recurrence()))
    assert set(body) == {"recs"}  # the standard's body, no envelope
    assert columns(body) == (
        "REC",
        "-",  # a recurrence has no amount of its own
        "idRec=RR1026652320240821lab77511abf status=APROVADA",
        "msg_7_3",
        "signature ok",
    )


def test_a_cancelled_recurrence_says_why() -> None:
    cancelled = dataclasses.replace(
        approved_recurrence().moved(RecurrenceStatus.CANCELADA, LATER), closing=RECEIVER_CANCELLED
    )
    _, _, ids, _, _ = columns(sent(RecurrenceEvent(cancelled)))
    assert ids == "idRec=RR1026652320240821lab77511abf status=CANCELADA cancelamento=SLCR"


def test_a_paid_recurring_charge_is_a_cobr_line_with_its_amount_and_pix() -> None:
    body = sent(RecurringChargeEvent(paid_charge()))
    assert set(body) == {"cobsr"}
    assert columns(body) == (
        "COBR",
        "106.07 BRL",
        (
            "txid=3136957d93134f2184b369e8f1c0729d idRec=RR1234567820240115abcdefghijk status=CONCLUIDA"
            " tentativa=PAGA dataLiquidacao=2024-08-20 endToEndId=E12345678202406201221abcdef12345"
        ),
        "msg_7_3",
        "signature ok",
    )


def test_an_unpaid_recurring_charge_shows_its_latest_attempt_and_why_it_failed() -> None:
    paid = paid_charge()
    scheduled = dataclasses.replace(
        paid.first_attempt,
        status=AttemptStatus.AGENDADA,
        history=paid.first_attempt.history[:1],
    )
    failed = dataclasses.replace(
        scheduled,
        status=AttemptStatus.REJEITADA,
        rejection=Closing(ClosingKind.REJEICAO, "AP13", "Saldo insuficiente"),
    )
    retry = dataclasses.replace(
        scheduled, number=1, settles_on=date(2024, 8, 22), end_to_end_id="E12345678202408221221retry00001"
    )
    active = dataclasses.replace(
        paid,
        status=RecurringChargeStatus.ATIVA,
        history=paid.history[:1],
        first_attempt=failed,
        attempts=(failed, retry),
        transaction_id=None,
        paid_at=None,
    )
    assert columns(sent(RecurringChargeEvent(active)))[:3] == (
        "COBR",
        "-",  # no PIX paid it yet: the notification carries no amount
        (
            "txid=3136957d93134f2184b369e8f1c0729d idRec=RR1234567820240115abcdefghijk status=ATIVA"
            " tentativa=AGENDADA dataLiquidacao=2024-08-22"
        ),
    )
    rejected = dataclasses.replace(active, attempts=(failed,), status=RecurringChargeStatus.EXPIRADA)
    _, _, ids, _, _ = columns(sent(RecurringChargeEvent(rejected)))
    assert ids.endswith("status=EXPIRADA tentativa=REJEITADA dataLiquidacao=2024-08-20 rejeicao=AP13")


def test_a_body_of_several_items_says_how_many_more() -> None:
    item = {"idRec": "RR1", "status": "APROVADA"}
    _, _, ids, _, _ = columns({"recs": [item, item, item]})
    assert ids == "idRec=RR1 status=APROVADA (+2 more)"


def test_an_envelope_is_read_as_one_even_with_a_standard_member() -> None:
    event = {"type": "RECEIVE", "recs": [{"idRec": "RR1"}], "data": {"id": 4}}
    assert columns(event)[:3] == ("RECEIVE", "-", "id=4")


@given(rec_id=TEXT, status=TEXT, code=TEXT, msg_id=TEXT)
def test_an_unverified_recurring_line_is_one_marked_line_whatever_the_sender_wrote(
    rec_id: str, status: str, code: str, msg_id: str
) -> None:
    item = {
        "idRec": rec_id,
        "txid": status,
        "status": status,
        "encerramento": {code: {"codigo": code}},
        "tentativas": [{"status": code, "rejeicao": {"codigo": rec_id}}],
        "pix": [{"valor": code, "endToEndId": rec_id}],
    }
    for body in ({"recs": [item]}, {"cobsr": [item]}):
        line = human_line(note(body, Verdict(valid=False, reason="no signature matches the secret"), msg_id))
        assert _hidden(line) == []
        assert line.startswith(UNVERIFIED + "  ")
        assert line.count("  ") == 6  # the columns are the listener's own: none comes from the sender
