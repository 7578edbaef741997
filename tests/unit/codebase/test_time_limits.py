"""A hang is a failure in every suite: pytest-timeout is on for every test (the ini's `timeout`),
and each slow suite's marker gets a longer limit of its own."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.conftest import SUITE_TIMEOUTS

ROOT = Path(__file__).resolve().parents[3]


def test_every_test_has_a_time_limit_and_each_slow_suite_a_longer_one() -> None:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    declared = {line.split(":", 1)[0] for line in options["markers"]}
    assert 0 < int(options["timeout"]) <= 600
    assert set(SUITE_TIMEOUTS) <= declared
    assert all(seconds > int(options["timeout"]) for seconds in SUITE_TIMEOUTS.values())
    assert set(SUITE_TIMEOUTS) == {"fresh_clone", "faults", "fuzz", "conformance", "browser"}
