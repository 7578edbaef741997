"""The console's search: one text, as a person types it, read as an end-to-end id, a txid or an
amount, and the account's transactions and charges that match it.

An amount is read as typed in Brazil or elsewhere: ``42,90``, ``42.90``, ``R$ 1.234,56``,
``1,234.56``, ``42`` (whole reais). A text of 32 letters and digits starting with ``E`` or ``D``
is an end-to-end id and also a possible txid (26 to 35 letters and digits). Every look-up is the
account's own: another account's id finds nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from pixcore.charges.cob import ChargeLine
from pixcore.errors import InvalidQuery
from pixcore.identifiers import looks_like_end_to_end_id
from pixcore.queries.rules import ListQuery, TransactionFilter, TransactionQueries, TransactionView
from pixcore.unit_of_work import UnitOfWorkFactory

__all__ = [
    "CONTROL_CHARACTERS",
    "MAX_SEARCH",
    "SearchResult",
    "SearchTerms",
    "parse_search",
    "search_records",
]

MAX_SEARCH = 100
"""The longest text searched: an id is at most 35 characters, an amount far fewer."""
CONTROL_CHARACTERS = "A search cannot hold control characters: type an id or an amount."
"""The refusal of a text with a control character (a NUL byte among them)."""
FOUND = 50
"""The most records of each kind a search lists, newest first."""
EVER = datetime(1970, 1, 1, tzinfo=UTC)
"""A search is not bounded by dates: it starts before any record."""

_TXID = re.compile(r"[A-Za-z0-9]{26,35}", re.ASCII)
_AMOUNTS = (  # each reading: its pattern (reais, then centavos) and its thousands separator
    (re.compile(r"(\d{1,15})", re.ASCII), ""),  # whole reais
    (re.compile(r"(\d{1,15})[.,](\d{1,2})", re.ASCII), ""),  # one separator: the decimal one
    (re.compile(r"(\d{1,3}(?:\.\d{3})+)(?:,(\d{1,2}))?", re.ASCII), "."),  # 1.234,56
    (re.compile(r"(\d{1,3}(?:,\d{3})+)(?:\.(\d{1,2}))?", re.ASCII), ","),  # 1,234.56
)


@dataclass(frozen=True, slots=True)
class SearchTerms:
    """What a search text may be: each reading that fits it (None where it does not)."""

    text: str
    end_to_end_id: str | None = None
    txid: str | None = None
    amount: int | None = None
    """In centavos."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    transactions: list[TransactionView]
    charges: list[ChargeLine]


def _amount(text: str) -> int | None:
    bare = text.removeprefix("R$").strip()
    for pattern, grouping in _AMOUNTS:
        found = pattern.fullmatch(bare)
        if found is not None:
            whole = found.group(1).replace(grouping, "") if grouping else found.group(1)
            cents = (found.group(2) if pattern.groups > 1 else None) or "0"
            return None if len(whole) > 15 else int(whole) * 100 + int(cents.ljust(2, "0"))
    return None


def parse_search(text: str) -> SearchTerms:
    """The readings of a search text (stripped); ``InvalidQuery`` for a text that is empty, too
    long, holds a control character (a NUL byte among them), or fits no reading."""
    text = text.strip()
    if not text:
        raise InvalidQuery("Type an end-to-end id, a txid or an amount to search for.")
    if len(text) > MAX_SEARCH:
        raise InvalidQuery(f"A search is at most {MAX_SEARCH} characters: an id or an amount.")
    if not text.isprintable():
        raise InvalidQuery(CONTROL_CHARACTERS)
    terms = SearchTerms(
        text=text,
        end_to_end_id=text if looks_like_end_to_end_id(text) else None,
        txid=text if _TXID.fullmatch(text) else None,
        amount=_amount(text),
    )
    if terms.end_to_end_id is None and terms.txid is None and terms.amount is None:
        raise InvalidQuery(
            "Not an end-to-end id (E and 31 letters and digits), a txid (26 to 35 letters and digits)"
            ' or an amount (as "42,90" or "42.90").'
        )
    return terms


async def search_records(
    queries: TransactionQueries,
    uow: UnitOfWorkFactory,
    *,
    account_id: int,
    terms: SearchTerms,
    now: datetime,
) -> SearchResult:
    """The account's transactions with the end-to-end id or the amount (the original amount), and
    its charges with the txid or the amount: the newest :data:`FOUND` of each, newest first."""
    transactions: dict[int, TransactionView] = {}
    wanted = []
    if terms.end_to_end_id is not None:
        wanted.append(TransactionFilter(start=EVER, end=now, end_to_end_id=terms.end_to_end_id))
    if terms.amount is not None:
        wanted.append(TransactionFilter(start=EVER, end=now, amount=terms.amount))
    for one in wanted:
        page = await queries.list(account_id, ListQuery(one, page=1, size=FOUND), cap=FOUND)
        transactions.update((view.id, view) for view in page.items)
    charges: list[ChargeLine] = []
    async with uow() as tx:
        if terms.txid is not None and (charge := await tx.charges.get(account_id, terms.txid)) is not None:
            charges.append(charge.line)
        if terms.amount is not None:
            more = await tx.charges.recent(account_id, FOUND, amount=terms.amount)
            charges += [line for line in more if line.txid != terms.txid]
    newest = sorted(transactions.values(), key=lambda view: (view.created_at, view.id), reverse=True)
    return SearchResult(transactions=newest[:FOUND], charges=charges[:FOUND])
