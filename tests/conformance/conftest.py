"""Fixtures of the conformance suite: the service running on a database of its own (as the fuzz
suite makes it), and one schemathesis run of the central bank's document against its standard's
face (and against its payloads, where a charge's location points), shared by the tests."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pixinfra.settings import Settings
from tests.conformance.operations import PAYLOADS_ONLY, STANDARD_FACE_EXCLUDED
from tests.conformance.recurring import authorize_a_recurrence
from tests.conformance.run import Outcome, grouped, load, run
from tests.fuzz.service import Target, running_service

PREFIX = Settings().standard_prefix
"""Where the standard's face is (``PIX_STANDARD_PREFIX``, which the suite's service leaves at its
default): a client of the standard is given ``http://host:port{PREFIX}`` and nothing else."""
PAYLOADS_AT = "/qr/v2"
"""Where the service serves the payloads a charge's ``location`` points to."""


@pytest.fixture(scope="session")
def standard_target(database_server: str) -> Iterator[Target]:
    with (
        tempfile.TemporaryDirectory(prefix="pixconf-") as folder,
        running_service(database_server, Path(folder), company=True) as target,
    ):
        target.known["idRec"] = [authorize_a_recurrence(target, PREFIX)]
        yield target


@pytest.fixture(scope="session")
def outcome(standard_target: Target) -> Outcome:
    """Every phase against the standard's face, then against the payloads."""
    found = Outcome()
    face = load(
        standard_target,
        standard_target.base_url + PREFIX,
        exclude=STANDARD_FACE_EXCLUDED,
        include=os.environ.get("PIX_CONFORMANCE_ONLY"),  # a path regex: one resource while at work
    )
    run(face, found)
    payloads = load(
        standard_target, standard_target.base_url + PAYLOADS_AT, include=PAYLOADS_ONLY, stateful=False
    )
    run(payloads, found)
    report = os.environ.get("PIX_CONFORMANCE_REPORT")
    if report:  # every failure of the run, grouped by cause, in one file
        every = [f"{f.operation} [{f.phase}] {f.title}\n  {f.curl.strip()}" for f in found.findings]
        text = grouped(found.findings) + "\n\nEvery failure:\n" + "\n".join(every) + "\n"
        Path(report).write_text(text, encoding="utf-8")
    return found
