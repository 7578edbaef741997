"""The PIX a notification is about (the console's links from a delivery back to its PIX): the
same two places the deliveries filter of ``pixinfra.persistence.webhooks`` reads."""

from __future__ import annotations

from typing import Any

import pytest

from pixinfra.event_payloads import end_to_end_id_of

E2E = "E12345678202611281000abcdefghijk"


@pytest.mark.parametrize(
    ("payload", "about"),
    [
        ({"type": "RECEIVE", "data": {"id": 1, "endToEndId": E2E}}, E2E),
        ({"type": "PIX", "data": {"pix": [{"endToEndId": E2E, "valor": "1.00"}]}}, E2E),
        ({"type": "PING", "data": {"webhookId": 1, "sentAt": "2026-11-28T10:00:00.000Z"}}, None),
        ({"type": "TRANSFER", "data": {"endToEndId": None}}, None),
        ({"type": "PIX", "data": {"pix": []}}, None),
        ({"data": "not an object"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_the_pix_a_notification_is_about(payload: dict[str, Any] | None, about: str | None) -> None:
    assert end_to_end_id_of(payload) == about
