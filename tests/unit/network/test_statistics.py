"""The DICT's quantized counters (``pixnet.directory.statistics``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixnet.directory.statistics import quantized

SCALE = [0, 1, 5, 10, 50, 100, 500, 1_000, 5_000, 10_000, 50_000, 100_000]


@pytest.mark.parametrize(
    ("count", "shown"),
    [
        (0, 0),
        (1, 1),
        (2, 5),
        (3, 5),
        (5, 5),
        (6, 10),
        (10, 10),
        (11, 50),
        (190, 500),
        (500, 500),
        (501, 1_000),
    ],
)
def test_the_documents_examples_and_the_edges(count: int, shown: int) -> None:
    assert quantized(count) == shown


@given(st.integers(min_value=0, max_value=99_999))
def test_a_count_shows_as_the_least_mark_of_the_scale_at_or_above_it(count: int) -> None:
    assert quantized(count) == min(mark for mark in SCALE if mark >= count)


def test_a_negative_count_is_refused() -> None:
    with pytest.raises(ValueError, match="never negative"):
        quantized(-1)
