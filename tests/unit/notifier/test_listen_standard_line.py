"""``pixnotify listen`` prints a key webhook's body (the standard's ``{"pix": [...]}``, no envelope)
as a line for a person, as it does our notifications."""

from __future__ import annotations

from datetime import UTC, datetime

from pixnotify.listen import Notification, Verdict, human_line


def test_a_standard_pix_body_is_a_pix_line() -> None:
    item = {"endToEndId": "E1", "valor": "37.50", "horario": "x", "devolucoes": [], "chave": "a@example.org"}
    note = Notification(
        received_at=datetime(2026, 3, 15, 14, 40, tzinfo=UTC),
        path="/hooks/pix",
        headers={"webhook-id": "msg_7_3"},
        body=b"",
        verdict=Verdict(valid=True),
        status=204,
        event={"pix": [item]},
    )
    _, kind, amount, ids, msg_id, check = human_line(note).split("  ")
    assert (kind, amount, ids, msg_id, check) == (
        "PIX",
        "37.50 BRL",
        "endToEndId=E1 chave=a@example.org",
        "msg_7_3",
        "signature ok",
    )
