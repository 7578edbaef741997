"""``pixweb serve`` tunes the garbage collector before it serves (``pixweb.cli.tune_collector``)."""

from __future__ import annotations

import gc

from pixweb.cli import GC_ALLOCATIONS, tune_collector


def test_the_long_lived_heap_is_frozen_and_collections_start_later() -> None:
    before = gc.get_threshold()
    try:
        tune_collector()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (GC_ALLOCATIONS, before[1], before[2])
        assert before[0] < GC_ALLOCATIONS
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
