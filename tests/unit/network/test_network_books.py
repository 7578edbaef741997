"""Money across the network (``pixnet.settlement.spi.compare_ledgers``): each institution's own books
against what the SPI settled between each pair of participants."""

from __future__ import annotations

from typing import Any

from pixnet.settlement.spi import compare_ledgers

A, B, C, CASH = "11111111", "22222222", "33333333", "00000000"
SETTLED = {(A, B): 1_500, (B, A): -1_500}  # 20.00 from A to B, 5.00 back


def report(ok: bool = True, **outside: int) -> dict[str, Any]:
    return {"ok": ok, "outside": [{"institution": ispb, "balance": n} for ispb, n in outside.items()]}


def test_books_that_match_the_spi_hold_whatever_came_from_outside_the_network() -> None:
    ledgers = {A: report(**{B: 1_500, CASH: -9_000}), B: report(**{A: -1_500})}
    assert compare_ledgers(SETTLED, {A, B, C}, ledgers) == []


def test_each_disagreement_is_said() -> None:
    ledgers = {A: report(**{B: 1_400}), B: report(ok=False, **{A: -1_500, C: 10})}
    assert compare_ledgers(SETTLED, {A, B, C}, ledgers) == [
        f"{A}'s books say 1400 went to {B}; the SPI settled 1500",
        f"{B}'s own ledger check fails",
        f"{B}'s books say 10 went to {C}; the SPI settled 0",
    ]


def test_a_report_of_no_participant_is_refused() -> None:
    assert compare_ledgers(SETTLED, {A, B}, {C: report()}) == [f"{C} is no participant of the network"]
