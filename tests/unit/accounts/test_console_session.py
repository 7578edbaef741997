"""The console's sessions (held in the store: idle and absolute expiry, sign-out, the certificate
binding, the pre-sign-in cookie), where sign-in may send a browser, and how a use
case's error is split over a form's fields (pixweb.console)."""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime, timedelta

import pytest

from pixcore.accounts.accounts_service import open_account
from pixcore.accounts.sessions import IDLE, LIFETIME, ConsoleSession, SessionState, judge, session_id
from pixcore.accounts.sessions_service import ConsoleSessions, Opened
from pixcore.clock import ManualClock
from pixcore.errors import InvalidPixKey, ValidationError
from pixcore.queries.rules import DayFlow
from pixcore.testing import InMemoryStore, PlainHasher
from pixweb.console.chart import daily_chart
from pixweb.console.language import language
from pixweb.console.session import ConsoleSession as WebSession
from pixweb.console.web import FormErrors, safe_next

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def _sessions(clock: ManualClock) -> tuple[InMemoryStore, ConsoleSessions, int]:
    store = InMemoryStore(clock=clock)
    opened = await open_account(
        store.unit_of_work,
        PlainHasher(),
        ispb="99999999",
        name="Holder",
        document="11144477735",
        city="RECIFE",
    )
    return store, ConsoleSessions(store.unit_of_work, clock), opened.account.id


async def test_a_session_opens_with_its_account_and_csrf_token_and_stores_no_token() -> None:
    clock = ManualClock(START)
    store, sessions, account = await _sessions(clock)
    token, started = await sessions.start(account)
    assert token not in store.tables.console_sessions  # the table keys the token's hash
    assert started.id == session_id(token) == hashlib.sha256(token.encode()).hexdigest()
    opened = await sessions.open(token)
    assert opened.state is SessionState.LIVE
    assert opened.session is not None
    assert (opened.session.account_id, opened.session.csrf) == (account, started.csrf)


async def test_each_sign_in_is_a_new_session_with_a_new_csrf_token() -> None:
    _, sessions, account = await _sessions(ManualClock(START))
    first_token, first = await sessions.start(account)
    second_token, second = await sessions.start(account)
    assert first_token != second_token
    assert (first.id, first.csrf) != (second.id, second.csrf)


async def test_an_idle_session_expires_and_a_used_one_does_not() -> None:
    clock = ManualClock(START)
    _, sessions, account = await _sessions(clock)
    token, _ = await sessions.start(account)
    clock.advance(IDLE.total_seconds())  # exactly the limit: still in, and used now
    assert (await sessions.open(token)).state is SessionState.LIVE
    clock.advance(IDLE.total_seconds())
    assert (await sessions.open(token)).state is SessionState.LIVE  # counted from the last use
    clock.advance(IDLE.total_seconds() + 1)
    idle = await sessions.open(token)
    assert idle.state is SessionState.IDLE
    assert idle.state.expired
    assert (await sessions.open(token)).state is SessionState.IDLE  # a refused look is no use


async def test_a_busy_session_ends_eight_hours_after_sign_in() -> None:
    clock = ManualClock(START)
    _, sessions, account = await _sessions(clock)
    token, _ = await sessions.start(account)
    for _ in range(16):  # a request every 30 minutes: never idle
        clock.advance(IDLE.total_seconds())
        assert (await sessions.open(token)).state is SessionState.LIVE
    assert timedelta(hours=8) == LIFETIME
    clock.advance(1)
    assert (await sessions.open(token)).state is SessionState.OLD


async def test_sign_out_ends_the_session_for_good() -> None:
    clock = ManualClock(START)
    _, sessions, account = await _sessions(clock)
    token, _ = await sessions.start(account)
    await sessions.end(token)
    ended = await sessions.open(token)
    assert ended.state is SessionState.ENDED
    assert not ended.state.expired


@pytest.mark.parametrize("cookie", [None, "", "x", "A" * 5000, "not base64 ✓", "A" * 43])
async def test_a_foreign_or_broken_cookie_opens_nothing(cookie: str | None) -> None:
    _, sessions, account = await _sessions(ManualClock(START))
    await sessions.start(account)
    assert await sessions.open(cookie) == Opened(None)


def test_a_bound_session_opens_only_with_its_certificate() -> None:
    session = ConsoleSession("0" * 64, 7, "c" * 43, START, START, fingerprint="a" * 64)
    assert judge(session, START, presented="a" * 64, bound=True) is SessionState.LIVE
    for other in ("b" * 64, None, "unreadable"):
        assert judge(session, START, presented=other, bound=True) is SessionState.OTHER_CERTIFICATE
    assert judge(session, START, presented=None) is SessionState.LIVE  # unbound (outside production)
    without = ConsoleSession("0" * 64, 7, "c" * 43, START, START)
    assert judge(without, START, presented="a" * 64, bound=True) is SessionState.OTHER_CERTIFICATE


@pytest.mark.parametrize(
    ("pre", "kept"),
    [("A" * 43, True), ("A" * 42, False), ("A" * 44, False), ("A" * 42 + ";", False), (None, False)],
)
def test_the_pre_sign_in_cookie_is_a_csrf_token_of_ours_or_a_new_one(pre: str | None, kept: bool) -> None:
    session = WebSession.anonymous(pre)
    assert session.account_id is None
    assert (session.csrf == pre) is kept
    assert len(session.csrf) == 43


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
    svg = str(daily_chart(days, language("en")))
    assert svg.count('class="bar-in"') == 3
    assert svg.count('class="bar-out"') == 3
    assert "Nov 2, 2026 in: R$100.00" in svg
    assert "Nov 2, 2026 out: R$25.00" in svg
    assert "Nov 3, 2026 out: R$70.00" in svg
    assert ">R$100.00</text>" in svg  # the scale's top is the largest day
    assert 'height="0.0"><title>Nov 1, 2026 in' in svg  # an empty day: a bar of no height


def test_the_chart_speaks_portuguese_by_default_language() -> None:
    days = [DayFlow(date(2026, 11, 2), 123_456, 2_500)]
    svg = str(daily_chart(days, language("pt_BR")))
    assert "02/11/2026 entrada: R$\xa01.234,56" in svg
    assert "Entradas e saídas por dia, últimos 1 dias (UTC)" in svg
    assert ">02/11</text>" in svg
