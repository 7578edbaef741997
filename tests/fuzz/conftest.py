"""Fixtures of the fuzz suite: the running service and its OpenAPI document, loaded by schemathesis
with a bearer token and hooks that mix identifiers of existing resources into generated requests."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import strategies as st
from schemathesis import AuthContext, Case, HookContext
from schemathesis.schemas import BaseSchema

from tests.fuzz.hostile import hostile_body, hostile_parameters
from tests.fuzz.service import Target, running_service
from tests.fuzz.valid import (
    fresh_path_values,
    valid_bodies,
    with_client_certificate,
    with_idempotency_key,
)

# Examples per operation (a tenth of it: scenarios of the stateful test). `make fuzz` runs the default;
# `.ci/run` a bounded run.
EXAMPLES = int(os.environ.get("PIX_FUZZ_EXAMPLES", "300"))
TOKEN_LIFETIME_USED = 120  # seconds a token is reused; a 401 (the sandbox clock moved) fetches another


@pytest.fixture(scope="session")
def fuzz_target(database_server: str) -> Iterator[Target]:
    with (
        tempfile.TemporaryDirectory(prefix="pixfuzz-") as folder,
        running_service(database_server, Path(folder)) as target,
    ):
        yield target


def _with_known(
    values: dict[str, Any],
    known: dict[str, list[str]],
    fresh: dict[str, st.SearchStrategy[str]] | None = None,
) -> st.SearchStrategy[dict[str, Any]]:
    """``values`` as generated, or with some entries replaced by values that exist (``known``) or
    by well-formed values that do not exist yet (``fresh``)."""
    fresh = fresh or {}
    choices = {
        name: st.one_of(
            st.sampled_from([value, *known.get(name, [])]), *([fresh[name]] if name in fresh else [])
        )
        for name, value in values.items()
        if known.get(name) or name in fresh
    }
    if not choices:
        return st.just(values)
    return st.fixed_dictionaries(choices).map(lambda drawn: {**values, **drawn})


FRAMING = frozenset({"content-length", "transfer-encoding", "host", "connection"})


def load_schema(target: Target) -> BaseSchema:
    schema = schemathesis.openapi.from_url(f"{target.base_url}/schema/openapi.json")

    @schema.auth(refresh_interval=TOKEN_LIFETIME_USED)
    class Bearer:
        def get(self, _case: Case, _context: AuthContext) -> str:
            return target.token()

        def set(self, case: Case, data: str, _context: AuthContext) -> None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}

    fresh = fresh_path_values()

    @schema.hook
    def flatmap_path_parameters(
        context: HookContext, path_parameters: dict[str, Any]
    ) -> st.SearchStrategy[dict[str, Any]]:
        return _with_known(path_parameters or {}, target.known, fresh).flatmap(hostile_parameters)

    @schema.hook
    def flatmap_query(context: HookContext, query: dict[str, Any] | None) -> st.SearchStrategy[Any]:
        return hostile_parameters(query)

    accepted = valid_bodies(target)

    @schema.hook
    def flatmap_body(context: HookContext, body: Any) -> st.SearchStrategy[Any]:
        generated = _with_known(body, target.bodies) if isinstance(body, dict) else st.just(body)
        valid = accepted.get(context.operation.label) if context.operation else None
        mixed = generated if valid is None else st.one_of(generated, valid)
        # Text the service cannot store, in any field.
        is_json = context.operation is None or context.operation.label != "POST /oauth/token"
        return mixed.flatmap(lambda drawn: hostile_body(drawn, json=is_json))

    @schema.hook
    def filter_headers(_context: HookContext, headers: dict[str, Any] | None) -> bool:
        # Framing headers belong to the transport: a generated empty Content-Length makes a message
        # that is not HTTP, which the server's parser refuses (plain 400) before any app sees it.
        return not any(name.lower() in FRAMING for name in headers or {})

    @schema.hook
    def flatmap_headers(context: HookContext, headers: dict[str, Any] | None) -> st.SearchStrategy[Any]:
        label = context.operation.label if context.operation else ""
        if label == "POST /dict/pix":
            return with_idempotency_key(headers)
        if label in {"POST /api/auth/token", "POST /oauth/token"}:
            return with_client_certificate(target, headers)
        return st.just(headers)

    return schema


@pytest.fixture(scope="session")
def fuzz_schema(fuzz_target: Target) -> BaseSchema:
    return load_schema(fuzz_target)
