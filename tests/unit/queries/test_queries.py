"""The rules of transaction queries: parameters, windows, identifiers, display values, masking,
page metadata; and the use cases on the in-memory fakes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.accounts.rules import Counterpart, NewAccount
from pixcore.clock import ManualClock
from pixcore.documents import cnpj_check_digits, cpf_check_digits, mask_document
from pixcore.errors import InvalidPixKey, InvalidQuery, TransactionNotFound
from pixcore.queries.query_service import find_by_pix_key, get_transaction, list_by_pix_key, list_transactions
from pixcore.queries.rules import (
    MAX_ID,
    MAX_SPAN,
    ListKind,
    Movement,
    TransactionPage,
    classify_identifier,
    display_status,
    display_type,
    mask_counterpart_document,
    movement_of,
    parse_list_query,
    parse_query_pix_key,
)
from pixcore.records import NewTransaction, TransactionStatus, TransactionType
from pixcore.testing import InMemoryStore, InMemoryTransactionQueries
from tests.unit.wire_rendering import wire_details, wire_message

NOW = datetime(2026, 11, 21, 15, 5, 59, 224_512, tzinfo=UTC)
NOW_MS = NOW.replace(microsecond=224_000)
MS = timedelta(microseconds=999)


def problems(kind: ListKind = ListKind.TRANSACTIONS, **params: str | None) -> list[str]:
    with pytest.raises(InvalidQuery) as caught:
        parse_list_query(kind, now=NOW, **params)  # type: ignore[arg-type]
    assert caught.value.details
    assert wire_message(caught.value).startswith("Invalid query parameters: ")
    return wire_details(caught.value)


# ------------------------------------------------------------------------------------ page and size


def test_defaults() -> None:
    query = parse_list_query(ListKind.TRANSACTIONS, now=NOW)
    assert (query.page, query.size, query.offset) == (1, 20, 0)
    assert query.filter.end == NOW_MS + MS
    assert query.filter.start == NOW_MS - timedelta(days=31)
    by_key = parse_list_query(ListKind.PIX_KEY, now=NOW)
    assert by_key.filter.start == NOW_MS - timedelta(days=30)
    assert by_key.filter.status is None
    assert by_key.filter.type is None


@given(st.integers(min_value=1, max_value=10_000_000))
def test_any_page_from_one_is_accepted(page: int) -> None:
    query = parse_list_query(ListKind.TRANSACTIONS, now=NOW, page=str(page), size="7")
    assert query.page == page
    assert query.offset == (page - 1) * 7


@given(st.integers(max_value=0) | st.integers(min_value=10_000_001))
def test_pages_out_of_range_are_refused(page: int) -> None:
    assert problems(page=str(page))[0].startswith("page: ")


@pytest.mark.parametrize(("kind", "largest"), [(ListKind.TRANSACTIONS, 100), (ListKind.PIX_KEY, 1000)])
@given(size=st.integers(min_value=-5, max_value=2000))
def test_size_bounds_per_list(kind: ListKind, largest: int, size: int) -> None:
    if 1 <= size <= largest:
        assert parse_list_query(kind, now=NOW, size=str(size)).size == size
    else:
        assert problems(kind, size=str(size)) == [f"size: must be an integer from 1 to {largest}"]


@pytest.mark.parametrize("text", ["1.0", "+1", " 1", "1 ", "one", "\u0661", "0x10", "1e3", "9" * 5000])
def test_page_and_size_are_ascii_digits_only(text: str) -> None:
    assert [p.split(":")[0] for p in problems(page=text, size=text)] == ["page", "size"]


def test_leading_zeros_and_empty_values() -> None:
    query = parse_list_query(ListKind.TRANSACTIONS, now=NOW, page="007", size="", status="", type="")
    assert (query.page, query.size, query.filter.status, query.filter.type) == (7, 20, None, None)


# ------------------------------------------------------------------------------------ status and type


@pytest.mark.parametrize("status", list(TransactionStatus))
def test_every_status(status: TransactionStatus) -> None:
    assert parse_list_query(ListKind.TRANSACTIONS, now=NOW, status=status.value).filter.status is status


@pytest.mark.parametrize("kind", list(TransactionType))
def test_every_type(kind: TransactionType) -> None:
    assert parse_list_query(ListKind.PIX_KEY, now=NOW, type=kind.value).filter.type is kind


@given(st.text(max_size=12).filter(lambda t: t and t not in set(TransactionStatus)))
def test_unknown_statuses_are_refused(text: str) -> None:
    assert problems(status=text)[0].startswith("status: must be one of PENDING, CONFIRMED, ERROR")


@pytest.mark.parametrize("text", ["payment", "TRANSFER", "Pix in", "PAYMENT "])
def test_unknown_types_are_refused(text: str) -> None:
    assert problems(type=text)[0].startswith("type: must be one of PAYMENT, WITHDRAW, REFUND_IN, REFUND_OUT")


# ------------------------------------------------------------------------------------ dates


def test_date_only_bounds() -> None:
    query = parse_list_query(ListKind.TRANSACTIONS, now=NOW, start_date="2026-10-01", end_date="2026-10-31")
    assert query.filter.start == datetime(2026, 10, 1, tzinfo=UTC)
    assert query.filter.end == datetime(2026, 10, 31, 23, 59, 59, 999_999, tzinfo=UTC)
    # 31 whole days by dates alone (all of October) is the longest span.
    assert problems(start_date="2026-10-01", end_date="2026-11-01") == [
        "endDate: must be at most 31 days after startDate"
    ]


def test_timestamps_count_in_milliseconds_and_offsets_are_honoured() -> None:
    query = parse_list_query(
        ListKind.TRANSACTIONS,
        now=NOW,
        start_date="2026-11-01T10:00:00.123456-03:00",
        end_date="2026-11-02T00:00:00.5Z",
    )
    assert query.filter.start == datetime(2026, 11, 1, 13, 0, 0, 123_000, tzinfo=UTC)
    assert query.filter.end == datetime(2026, 11, 2, 0, 0, 0, 500_999, tzinfo=UTC)
    naive = parse_list_query(ListKind.TRANSACTIONS, now=NOW, end_date="2026-11-02T00:00:00")
    assert naive.filter.end == datetime(2026, 11, 2, 0, 0, 0, 999, tzinfo=UTC)


def test_a_default_start_counts_back_from_the_end_given() -> None:
    query = parse_list_query(ListKind.PIX_KEY, now=NOW, end_date="2026-05-01T00:00:00Z")
    assert query.filter.start == datetime(2026, 4, 1, tzinfo=UTC)


@given(
    start=st.datetimes(
        min_value=datetime(2000, 1, 1),  # noqa: DTZ001 - hypothesis takes naive bounds
        max_value=datetime(2100, 1, 1),  # noqa: DTZ001
        timezones=st.just(UTC),
    ),
    span=st.timedeltas(min_value=timedelta(days=-40), max_value=timedelta(days=40)),
)
def test_the_span_rule(start: datetime, span: timedelta) -> None:
    start = start.replace(microsecond=start.microsecond // 1000 * 1000)
    span = timedelta(milliseconds=span // timedelta(milliseconds=1))
    end = start + span
    params = {"start_date": start.isoformat(), "end_date": end.isoformat()}
    if span < timedelta(0):
        assert problems(**params) == ["endDate: must not be before startDate"]
    elif span > MAX_SPAN:
        assert problems(**params) == ["endDate: must be at most 31 days after startDate"]
    else:
        query = parse_list_query(ListKind.TRANSACTIONS, now=NOW, **params)
        assert (query.filter.start, query.filter.end) == (start, end + MS)


@pytest.mark.parametrize(
    "text",
    ["yesterday", "2026-13-01", "2026-02-30", "2026-11-01T25:00:00", "2026-11-01T10:00:00+25:00", "x" * 100],
)
def test_unparseable_dates_are_refused(text: str) -> None:
    assert problems(start_date=text) == ["startDate: must be an ISO 8601 date or date and time"]
    assert problems(end_date=text) == ["endDate: must be an ISO 8601 date or date and time"]


@pytest.mark.parametrize(
    ("start", "end", "problem"),
    [
        ("0001-01-01", None, "endDate: must be at most 31 days after startDate"),
        (None, "0001-01-05", "startDate, endDate: out of the supported range"),
        (None, "9999-12-31", "startDate, endDate: out of the supported range"),
        ("9999-12-31T23:59:59.999Z", "0001-01-01", "endDate: must not be before startDate"),
    ],
)
def test_dates_at_the_edge_of_the_calendar_are_refused_not_a_crash(
    start: str | None, end: str | None, problem: str
) -> None:
    assert problems(start_date=start, end_date=end) == [problem]
    early = parse_list_query(ListKind.TRANSACTIONS, now=NOW, start_date="0001-01-01", end_date="0001-01-05")
    assert early.filter.start == datetime(1, 1, 1, tzinfo=UTC)


# ------------------------------------------------------------------------------------ filters


def test_filters_of_the_transactions_list() -> None:
    e2e = "E12345678202611211505abcdefghijk"
    query = parse_list_query(ListKind.TRANSACTIONS, now=NOW, external_id="order-1", end_to_end_id=e2e)
    assert (query.filter.external_id, query.filter.end_to_end_id) == ("order-1", e2e)
    assert problems(external_id="x" * 101) == ["externalId: at most 100 characters"]
    assert problems(end_to_end_id="E123") == ["endToEndId: must be 32 alphanumeric characters"]


def test_every_problem_is_listed() -> None:
    found = problems(page="0", size="0", status="x", type="y", start_date="z", external_id="e" * 101)
    assert [p.split(":")[0] for p in found] == ["page", "size", "status", "type", "startDate", "externalId"]


# ------------------------------------------------------------------------------------ identifiers


def test_identifier_kinds() -> None:
    e2e = "E" + "a1" * 15 + "Z"
    assert classify_identifier(e2e).end_to_end_id == e2e
    assert classify_identifier(e2e).external_id == e2e
    assert classify_identifier(e2e).id is None
    assert classify_identifier(e2e, end_to_end=False).end_to_end_id is None
    assert classify_identifier("42").id == 42
    assert classify_identifier("42").external_id == "42"
    assert classify_identifier("order-42").id is None
    assert classify_identifier("order-42").end_to_end_id is None
    assert classify_identifier("x" * 101).impossible
    assert classify_identifier("").impossible


@given(st.integers(min_value=1, max_value=MAX_ID))
def test_canonical_numbers_are_ids(number: int) -> None:
    assert classify_identifier(str(number)).id == number


@pytest.mark.parametrize("text", ["0", "007", str(MAX_ID + 1), "9" * 30, "\uff11\uff12", "-1", "1.0"])
def test_other_digit_strings_are_no_id(text: str) -> None:
    assert classify_identifier(text).id is None


@given(
    st.text(
        alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", min_size=31, max_size=31
    )
)
def test_e_and_31_alphanumerics_is_an_end_to_end_id(tail: str) -> None:
    assert classify_identifier("E" + tail).end_to_end_id == "E" + tail
    assert classify_identifier("D" + tail).end_to_end_id is None
    assert classify_identifier("E" + tail[:-1]).end_to_end_id is None


# ------------------------------------------------------------------------------------ display


def test_display_values_and_movements() -> None:
    assert [display_status(s) for s in TransactionStatus] == ["Pendente", "Confirmado", "Error"]
    assert [display_type(t) for t in TransactionType] == ["Pix in", "Pix out", "Refund in", "Refund out"]
    assert [movement_of(t) for t in TransactionType] == [
        Movement.CREDIT,
        Movement.DEBIT,
        Movement.DEBIT,
        Movement.CREDIT,
    ]


@given(st.text(alphabet="0123456789", min_size=9, max_size=9).filter(lambda b: len(set(b)) > 1))
def test_masking_a_cpf_matches_the_documents_module(body: str) -> None:
    cpf = body + cpf_check_digits(body)
    assert mask_counterpart_document(cpf) == mask_document(cpf)
    assert cpf not in (mask_counterpart_document(cpf) or "")


@given(
    st.text(alphabet="0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=12, max_size=12).filter(
        lambda b: len(set(b)) > 1
    )
)
def test_masking_a_cnpj_matches_the_documents_module(body: str) -> None:
    cnpj = body + cnpj_check_digits(body)
    assert mask_counterpart_document(cnpj) == mask_document(cnpj)


@pytest.mark.parametrize("odd", ["123", "1234567890", "abcdefghijk", "123456789012345"])
def test_anything_else_is_hidden_entirely(odd: str) -> None:
    assert mask_counterpart_document(odd) == "*" * len(odd)
    assert mask_counterpart_document(None) is None


@given(total=st.integers(min_value=0, max_value=5000), size=st.integers(1, 1000), page=st.integers(1, 100))
def test_page_metadata_is_consistent(total: int, size: int, page: int) -> None:
    meta = TransactionPage(items=[], page=page, size=size, total=total)
    assert (meta.total_pages - 1) * size < total <= meta.total_pages * size or total == meta.total_pages == 0
    assert meta.has_next == (page * size < total)
    assert meta.has_previous == (page > 1)


# ------------------------------------------------------------------------------------ use cases on the fakes


async def _seeded(store: InMemoryStore) -> tuple[int, int, list[int]]:
    """Two accounts; the first with five records a day apart, newest last."""
    async with store.unit_of_work() as tx:
        ids = []
        first = await tx.accounts.add(NewAccount("99999999", "A", "11144477735", "RECIFE"))
        second = await tx.accounts.add(NewAccount("99999999", "B", "52998224725", "RECIFE"))
        payer = Counterpart("Payer", "39053344705", "12345678")
        for day in range(5):
            ids.append(  # noqa: PERF401 - awaited one by one
                await tx.transactions.add(
                    NewTransaction(
                        account_id=first.id,
                        type=TransactionType.PAYMENT if day % 2 else TransactionType.WITHDRAW,
                        status=TransactionStatus.CONFIRMED,
                        amount=100 * (day + 1),
                        created_at=NOW - timedelta(days=4 - day),
                        external_id=f"ext-{day}",
                        end_to_end_id=f"E12345678202611211505{day:011d}",
                        pix_key="key@example.com" if day < 3 else "other@example.com",
                        counterpart=payer,
                    )
                )
            )
        await tx.commit()
    return first.id, second.id, ids


async def test_use_cases_on_the_fakes() -> None:
    store = InMemoryStore(clock=ManualClock(NOW))
    queries = InMemoryTransactionQueries(store)
    clock = ManualClock(NOW)
    mine, other, ids = await _seeded(store)

    listing = ListKind.TRANSACTIONS
    query = parse_list_query(listing, now=clock.now(), size="2", page="2")
    page = await list_transactions(queries, account_id=mine, query=query)
    assert [v.id for v in page.items] == [ids[2], ids[1]]
    assert (page.total, page.total_pages, page.has_next, page.has_previous) == (5, 3, True, True)
    query = parse_list_query(listing, now=clock.now())
    assert (await list_transactions(queries, account_id=other, query=query)).total == 0

    query = parse_list_query(ListKind.PIX_KEY, now=clock.now())
    key = parse_query_pix_key("KEY@example.com")
    by_key = await list_by_pix_key(queries, account_id=mine, pix_key=key, query=query)
    assert [v.id for v in by_key.items] == [ids[2], ids[1], ids[0]]
    with pytest.raises(InvalidPixKey):
        parse_query_pix_key("not a key")

    other_key = parse_query_pix_key("other@example.com")
    found = await find_by_pix_key(queries, account_id=mine, pix_key=other_key, identifier="ext-4")
    assert found.id == ids[4]
    assert found.masked_document == "***.533.447-**"
    assert (await get_transaction(queries, account_id=mine, identifier=str(ids[0]))).id == ids[0]
    for wrong in (
        find_by_pix_key(queries, account_id=mine, pix_key=key, identifier="ext-4"),
        find_by_pix_key(queries, account_id=other, pix_key=other_key, identifier="ext-4"),
        get_transaction(queries, account_id=other, identifier=str(ids[0])),
        get_transaction(queries, account_id=mine, identifier="x" * 300),
    ):
        with pytest.raises(TransactionNotFound):
            await wrong
