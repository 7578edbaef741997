"""The console's session cookie, its idle expiry, where sign-in may send a browser, and how a use
case's error is split over a form's fields (pixweb.console)."""

from __future__ import annotations

from datetime import date

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from pixcore.errors import InvalidPixKey, ValidationError
from pixcore.queries import DayFlow
from pixweb.console.chart import daily_chart
from pixweb.console.session import IDLE_SECONDS, ConsoleSession, SessionCodec, derive_session_key
from pixweb.console.web import FormErrors, safe_next


def _codec(now: float = 10_000.0) -> SessionCodec:
    key = derive_session_key(ec.generate_private_key(ec.SECP256R1()))
    return SessionCodec(key, now=lambda: now)


def test_a_session_reads_back_with_its_account_and_csrf_token() -> None:
    codec = _codec()
    session = ConsoleSession.new().signed_in(7)
    back = codec.decode(codec.encode(session))
    assert (back.account_id, back.csrf, back.expired) == (7, session.csrf, False)


def test_signing_in_renews_the_csrf_token() -> None:
    before = ConsoleSession.new()
    assert before.signed_in(7).csrf != before.csrf


def test_an_idle_session_loses_its_account_and_keeps_its_csrf_token() -> None:
    session = ConsoleSession.new().signed_in(7)
    codec = _codec(now=10_000.0)
    text = codec.encode(session)
    fresh = codec.with_clock(lambda: 10_000.0 + IDLE_SECONDS).decode(text)
    assert fresh.account_id == 7  # exactly the limit: still in
    stale = codec.with_clock(lambda: 10_001.0 + IDLE_SECONDS).decode(text)
    assert (stale.account_id, stale.csrf, stale.expired) == (None, session.csrf, True)
    # the expired mark survives the redirect to the sign-in page, then sign-in clears it
    again = codec.decode(codec.encode(stale))
    assert (again.account_id, again.expired) == (None, True)
    assert again.signed_in(7).expired is False


@pytest.mark.parametrize(
    "cookie",
    ["", "x", "A" * 5000, "not base64 ✓", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
)
def test_a_foreign_or_broken_cookie_gives_a_new_signed_out_session(cookie: str) -> None:
    session = _codec().decode(cookie)
    assert session.account_id is None
    assert len(session.csrf) >= 40


def test_a_tampered_cookie_or_one_of_another_key_is_not_read() -> None:
    codec = _codec()
    text = codec.encode(ConsoleSession.new().signed_in(7))
    assert _codec().decode(text).account_id is None  # another key
    flipped = text[:20] + ("A" if text[20] != "A" else "B") + text[21:]
    assert codec.decode(flipped).account_id is None


@pytest.mark.parametrize(
    ("asked", "sent"),
    [
        (None, "/console"),
        ("/console/charges/abc?x=1", "/console/charges/abc?x=1"),
        ("https://evil.example/console", "/console"),
        ("//evil.example/console", "/console"),
        ("/console\\@evil.example", "/console"),
        ("/schema", "/console"),
    ],
)
def test_sign_in_sends_only_to_console_pages_of_this_site(asked: str | None, sent: str) -> None:
    assert safe_next(asked) == sent


def test_form_errors_go_beside_the_field_their_detail_names() -> None:
    error = ValidationError(
        "Invalid charge",
        details=["valor.original: must be a string", "calendario.expiracao: at least 1", "x"],
    )
    errors = FormErrors(error, {"amount": ("valor.original",), "expiration": ("calendario",)})
    assert errors.message == "Invalid charge"
    assert errors.of("amount") == ["valor.original: must be a string"]
    assert errors.of("expiration") == ["calendario.expiracao: at least 1"]
    assert errors.other == ["x"]
    assert not FormErrors()


def test_an_error_without_details_goes_beside_the_field_of_its_kind() -> None:
    errors = FormErrors(InvalidPixKey(), {}, {InvalidPixKey: "pix_key"})
    assert errors.of("pix_key") == ["Invalid PIX key."]


def test_the_chart_draws_each_day_in_and_out_scaled_to_the_largest() -> None:
    days = [
        DayFlow(date(2026, 11, 1), 0, 0),
        DayFlow(date(2026, 11, 2), 10_000, 2_500),
        DayFlow(date(2026, 11, 3), 0, 7_000),
    ]
    svg = str(daily_chart(days))
    assert svg.count('class="bar-in"') == 3
    assert svg.count('class="bar-out"') == 3
    assert "2026-11-02 in: R$ 100.00" in svg
    assert "2026-11-02 out: R$ 25.00" in svg
    assert "2026-11-03 out: R$ 70.00" in svg
    assert ">100.00</text>" in svg  # the scale's top is the largest day
    assert 'height="0.0"><title>2026-11-01 in' in svg  # an empty day: a bar of no height
