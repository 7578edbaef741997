"""Fixtures of the conformance suite: the service running on a database of its own (as the fuzz
suite makes it), and the standard's document, patched for its own defects, loaded by schemathesis
against it with a bearer token."""

from __future__ import annotations

import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from schemathesis import AuthContext, Case, HookContext
from schemathesis.schemas import BaseSchema

from tests.fuzz.service import Target, running_service
from tests.support import random_cpf

DOCUMENT = Path(__file__).with_name("bcb-pix-api-openapi.patched.yaml")
# Examples per operation and generation mode; `.ci/run` and `make conformance` keep the default.
EXAMPLES = int(os.environ.get("PIX_FUZZ_EXAMPLES", "25"))
TOKEN_LIFETIME_USED = 120  # seconds a token is reused
# The service answers the standard's problem+json on the endpoints it had before only when asked
# (docs/standard-api.md, deviation "error shape"): a client of the standard asks for both.
ACCEPT = "application/json, application/problem+json"
FRAMING = frozenset({"content-length", "transfer-encoding", "host", "connection"})


def _prepare(target: Target) -> None:
    """A charge, a due-date charge and a batch of one kept for revisions (PATCH), the PIX received,
    and two locations (one free, one of the revisable charge, which ``DELETE /loc/{id}/txid`` may
    unlink), apart from the fuzz suite's data."""
    auth = {"Authorization": f"Bearer {target.token()}"}
    txid = uuid.uuid4().hex
    body = {"calendario": {"expiracao": 2**31 - 1}, "valor": {"original": "5.00"}}
    response = httpx.put(f"{target.base_url}/cob/{txid}", json=body, headers=auth, timeout=30)
    response.raise_for_status()
    target.known["revisable"] = [txid]
    free = httpx.post(f"{target.base_url}/loc", json={"tipoCob": "cob"}, headers=auth, timeout=30)
    free.raise_for_status()
    target.known["loc"] = [str(free.json()["id"]), str(response.json()["loc"]["id"])]
    due_txid = uuid.uuid4().hex
    due = {
        "calendario": {"dataDeVencimento": "2080-12-31"},
        "devedor": {"cpf": random_cpf(), "nome": "Conformance Debtor"},
        "valor": {"original": "5.00"},
    }
    response = httpx.put(f"{target.base_url}/cobv/{due_txid}", json=due, headers=auth, timeout=30)
    response.raise_for_status()
    target.known["due"] = [due_txid]
    batch_id, batch_txid = str(uuid.uuid4().int % 2**31), uuid.uuid4().hex
    batch = {"descricao": "Conformance", "cobsv": [due | {"txid": batch_txid}]}
    response = httpx.put(f"{target.base_url}/lotecobv/{batch_id}", json=batch, headers=auth, timeout=30)
    response.raise_for_status()
    target.known["batch"] = [batch_id]
    target.known["batch_txid"] = [batch_txid]
    target.known["received"] = target.known["e2eid"][:1]


@pytest.fixture(scope="session")
def standard_target(database_server: str) -> Iterator[Target]:
    with (
        tempfile.TemporaryDirectory(prefix="pixconf-") as folder,
        running_service(database_server, Path(folder)) as target,
    ):
        _prepare(target)
        yield target


def load_standard(target: Target) -> BaseSchema:
    schema = schemathesis.openapi.from_path(DOCUMENT)
    # The document's servers carry an `/api/` prefix of the central bank's example host; the
    # standard's paths are at the root of this service.
    schema.config.update(base_url=target.base_url)

    @schema.auth(refresh_interval=TOKEN_LIFETIME_USED)
    class Bearer:
        def get(self, _case: Case, _context: AuthContext) -> str:
            return target.token()

        def set(self, case: Case, data: str, _context: AuthContext) -> None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}", "Accept": ACCEPT}

    @schema.hook
    def filter_headers(_context: HookContext, headers: dict[str, str] | None) -> bool:
        # Framing headers belong to the transport (tests/fuzz/conftest.py says why).
        return not any(name.lower() in FRAMING for name in headers or {})

    return schema


@pytest.fixture(scope="session")
def standard_schema(standard_target: Target) -> BaseSchema:
    return load_standard(standard_target)
