"""The statements the adapters compose (``pixinfra.persistence.sql.compose``) take every value as a
parameter: for every combination of a list's filters, a value that would read as SQL is nowhere in
the statement's text, and the placeholders are exactly ``$1`` to ``$n`` for its ``n`` arguments."""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime
from typing import Any

import pytest

from pixcore.charges.cob import ChargeStatus
from pixcore.charges.locations import LocationType
from pixcore.queries.rules import Identifier, ListQuery, TransactionFilter
from pixcore.queries.standard import ChargeQuery, LocationQuery, Page, ReceivedQuery
from pixcore.records import TransactionStatus, TransactionType
from pixinfra.persistence.charges import search_statements
from pixinfra.persistence.locations import location_search_statements
from pixinfra.persistence.queries import find_statement, list_statement
from pixinfra.persistence.refunds import received_statements
from pixinfra.persistence.sql import compose, paged

NOW = datetime(2026, 11, 24, 15, 0, tzinfo=UTC)
HOSTILE = "x' OR '1'='1"
NUMBER = 987_654_321
PAGE = Page(number=7, size=31)  # 7 * 31 = 217: both numbers are arguments, not text
ANY_OF = (None, True, False)


def assert_parameterised(sql: str, args: list[Any]) -> None:
    for value in (HOSTILE, str(NUMBER), "217", "31"):
        assert value not in sql, f"{value!r} is in the text of {sql}"
    assert {int(n) for n in re.findall(r"\$(\d+)", sql)} == set(range(1, len(args) + 1)), (sql, args)


def test_compose_joins_its_parts_in_order() -> None:
    assert compose("SELECT ", "id", " FROM t") == "SELECT id FROM t"


def test_a_page_takes_its_limit_and_offset_as_the_next_parameters() -> None:
    limit, args = paged(["a", "b"], 31, 217)
    assert limit == " LIMIT $3 OFFSET $4"
    assert args == ["a", "b", 31, 217]


@pytest.mark.parametrize("due", [False, True])
def test_every_charge_list_takes_its_values_as_parameters(due: bool) -> None:
    statuses = (None, *ChargeStatus)
    for document, present, batch, status in itertools.product(
        (None, HOSTILE), ANY_OF, (None, NUMBER), statuses
    ):
        query = ChargeQuery(NOW, NOW, document, None, present, status, PAGE, batch)
        count, args, page, page_args = search_statements(1, query, NOW, due=due)
        assert_parameterised(count, args)
        assert_parameterised(page, page_args)
        assert page_args == [*args, PAGE.size, PAGE.offset]


def test_every_received_list_takes_its_values_as_parameters() -> None:
    for txid, with_txid, refunded, document in itertools.product(
        (None, HOSTILE), ANY_OF, ANY_OF, (None, HOSTILE)
    ):
        query = ReceivedQuery(NOW, NOW, txid, with_txid, refunded, document, None, PAGE)
        count, args, page, page_args = received_statements(1, query)
        assert_parameterised(count, args)
        assert_parameterised(page, page_args)


def test_every_location_list_takes_its_values_as_parameters() -> None:
    for with_txid, kind in itertools.product(ANY_OF, (None, *LocationType)):
        count, args, page, page_args = location_search_statements(
            1, LocationQuery(NOW, NOW, with_txid, kind, PAGE)
        )
        assert_parameterised(count, args)
        assert_parameterised(page, page_args)


@pytest.mark.parametrize("cap", [None, 100])
def test_every_transaction_list_takes_its_values_as_parameters(cap: int | None) -> None:
    text = (None, HOSTILE)
    for key, status, kind, external, e2e in itertools.product(
        text, (None, *TransactionStatus), (None, *TransactionType), text, text
    ):
        found = TransactionFilter(NOW, NOW, status, kind, external, e2e, key)
        sql, args = list_statement(1, ListQuery(found, page=8, size=31), cap=cap)
        assert_parameterised(sql, args)


def test_every_look_up_takes_its_values_as_parameters() -> None:
    for e2e, number, external, key in itertools.product(
        (None, HOSTILE), (None, NUMBER), (None, HOSTILE), (None, HOSTILE)
    ):
        identifier = Identifier(e2e, number, external)
        if identifier.impossible:
            continue
        sql, args = find_statement(1, identifier, pix_key=key)
        assert_parameterised(sql, args)
