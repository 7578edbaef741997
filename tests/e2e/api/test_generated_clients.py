"""Clients generated from the served document work.

* Python: ``openapi-python-client`` (a dev dependency, pinned in uv.lock) generates a client from
  the document ``pixweb serve`` serves, without a warning, run as the README says (its settings
  file, clients/python/openapi-python-client.yaml, and its default hooks: ``ruff`` on the PATH),
  and the README tour runs through its typed functions and models against that server: token,
  balances, sandbox payment, transfer, charge, payment, refund, MED, cash-in, queries and
  webhooks. Amounts are exact: the generator gives a ``float`` for every JSON number (it has no
  decimal type), so a number is compared by its shortest text (the text the service wrote) and in
  the raw answer read with ``Decimal``; a money string is compared as the string it is. The
  notifications the server sends to a local receiver during the tour are validated against the
  document's ``webhooks`` schemas and read with the client's generated models.
* TypeScript: ``openapi-typescript``'s output compiles under ``tsc --strict`` together with
  ``clients/typescript/tour.ts``, the same calls typed through ``openapi-fetch`` (pinned in
  clients/typescript/package-lock.json, installed with ``npm ci``).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from pixcore.unit_of_work import UnitOfWorkFactory
from pixcore.webhooks.rules import REGISTRABLE, EventType
from tests.e2e.api.test_readme import ROOT
from tests.integration.receiver import Receiver, running_receiver
from tests.support import free_port, new_client, process_env, random_cpf, serving
from tests.support.json_schema import ExactValidator

TYPESCRIPT = ROOT / "clients" / "typescript"
PYTHON_CLIENT = ROOT / "clients" / "python"
GENERATOR = Path(sys.executable).parent / "openapi-python-client"


@pytest.fixture
async def server(migrated_database: str, tmp_path: Path) -> AsyncIterator[str]:
    """``pixweb serve`` on a free port, delivering webhooks to private hosts; its base URL."""
    port = free_port()
    env = process_env(migrated_database, tmp_path / "data", PIX_NORM_SETTLEMENT_DELAY="0")
    async with serving(env, port) as base:
        yield base


async def served_document(base: str) -> dict[str, Any]:
    async with httpx.AsyncClient() as http:
        response = await http.get(f"{base}/schema/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


@pytest.fixture
def fresh_import() -> Iterator[list[str]]:
    """Packages imported from a test folder, forgotten afterwards."""
    names: list[str] = []
    yield names
    for module in [m for m in sys.modules if any(m == n or m.startswith(n + ".") for n in names)]:
        del sys.modules[module]


def generate_python_client(document: dict[str, Any], folder: Path) -> str:
    """The README's command, in ``folder``: the environment's tools on the PATH, as ``uv run``
    has them (the generator's default hooks run ``ruff`` on its output)."""
    (folder / "openapi.json").write_text(json.dumps(document))
    settings = PYTHON_CLIENT / "openapi-python-client.yaml"
    run = subprocess.run(
        [str(GENERATOR), "generate", "--path", "openapi.json", "--meta", "none"]  # noqa: RUF005
        + ["--output-path", "pixclient", "--config", str(settings)],
        cwd=folder,
        env={**os.environ, "PATH": f"{GENERATOR.parent}{os.pathsep}{os.environ.get('PATH', '')}"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "warning" not in output.lower(), output
    return output


async def wait_for_paths(receiver: Receiver, paths: set[str], within: float = 60) -> None:
    async with asyncio.timeout(within):
        while not paths <= {r.path for r in receiver.received}:  # noqa: ASYNC110 - polls the receiver
            await asyncio.sleep(0.1)


async def test_the_tour_through_the_generated_python_client(
    pg_uow: UnitOfWorkFactory, server: str, migrated_database: str, tmp_path: Path, fresh_import: list[str]
) -> None:
    document = await served_document(server)
    generate_python_client(document, tmp_path)
    sys.path.insert(0, str(tmp_path))
    fresh_import.append("pixclient")
    try:
        pix = importlib.import_module("pixclient")
        api = {
            name: importlib.import_module(f"pixclient.api.{group}.{name}")
            for group, names in {
                "authentication": ["create_token", "get_jwks"],
                "balance": ["get_account_balances", "get_balance"],
                "cash_in": ["create_cash_in"],
                "charges": ["create_charge", "get_charge"],
                "refunds": ["request_refund", "get_refund"],
                "sandbox": ["sandbox_add_key", "sandbox_pay", "sandbox_receive_refund"]  # noqa: RUF005
                + ["sandbox_open_med", "sandbox_accept_med"],
                "transactions": [
                    "list_transactions",
                    "get_transaction_status",
                    "list_transactions_by_pix_key",
                ],
                "transfers": ["create_pix_transfer"],
                "webhooks": [
                    "get_webhook_secret",
                    "register_webhook",
                    "list_webhooks",
                    "list_webhook_deliveries",
                    "get_webhook_delivery",
                    "test_webhook",
                ],
            }.items()
            for name in names
        }
        models = importlib.import_module("pixclient.models")
    finally:
        sys.path.remove(str(tmp_path))
    # Nothing dropped: a function for every operation, a model for every component.
    generated = {path.stem for path in (tmp_path / "pixclient" / "api").glob("*/*.py")}
    operation_ids = [
        operation["operationId"]
        for item in document["paths"].values()
        for method, operation in item.items()
        if method in ("get", "put", "post", "patch", "delete")
    ]
    assert [o for o in operation_ids if re.sub(r"(?<!^)(?=[A-Z])", "_", o).lower() not in generated] == []
    assert [name for name in document["components"]["schemas"] if not hasattr(models, name)] == []

    async def call(name: str, expected: type, **kwargs: Any) -> Any:
        response = await api[name].asyncio_detailed(**kwargs)
        assert isinstance(response.parsed, expected), (name, response.status_code, response.content)
        raw[name] = json.loads(response.content, parse_float=Decimal)
        return response.parsed

    raw: dict[str, Any] = {}  # each operation's last answer as sent, its numbers exact

    account = await new_client(pg_uow)
    async with pix.Client(base_url=server) as public:  # no token: security []
        token = await call(
            "create_token",
            models.TokenResponse,
            client=public,
            body=models.TokenRequest(
                client_id=account.opened.client_id, client_secret=account.opened.client_secret
            ),
            x_ssl_client_cert=account.cert_header,
        )
        assert (token.token_type, token.expires_in) == ("Bearer", 1800)
        keys = await call("get_jwks", models.Jwks, client=public)
        assert keys.keys[0].kty == "EC"
    client = pix.AuthenticatedClient(base_url=server, token=token.access_token)

    async with client, running_receiver() as receiver:
        secret = (await call("get_webhook_secret", models.SecretOut, client=client)).secret
        registered = [
            await call(
                "register_webhook",
                models.RegisteredOut,
                client=client,
                body=models.WebhookIn(
                    url=receiver.url(f"/{event}"),  # plain http:// to loopback: PIX_WEBHOOK_ALLOW_PRIVATE
                    event_type=models.WebhookInEventType(event),
                ),
            )
            for event in REGISTRABLE
        ]
        listed = await call("list_webhooks", models.WebhookList, client=client)
        assert sorted(w.id for w in listed.webhooks) == sorted(r.id for r in registered)
        assert all(isinstance(w.created_at, datetime) for w in listed.webhooks)

        balances = await call("get_account_balances", models.AccountBalances, client=client)
        assert isinstance(balances.data[0].event_date, datetime)
        key = account.opened.keys[0].value
        receipt = await call(
            "sandbox_pay",
            models.SandboxPaymentOut,
            client=client,
            body=models.SandboxPaymentIn(pix_key=key, amount=100.07),
        )
        assert len(receipt.end_to_end_id) == 32
        outside = f"joao.{uuid.uuid4().hex[:12]}@otherbank.example"
        await call(
            "sandbox_add_key",
            models.DirectoryOut,
            client=client,
            body=models.DirectoryIn(
                pix_key=outside, ispb="12345678", name="Joao Souza", document="11144477735"
            ),
        )
        transfer = await call(
            "create_pix_transfer",
            models.TransferOut,
            client=client,
            body=models.TransferIn(pix_key=outside, payment=models.TransferPaymentIn(amount=2.86)),
            x_idempotency_key=str(uuid.uuid4()),
        )
        assert (transfer.type_, exact(transfer.payment.amount)) == ("PENDING", Decimal("2.86"))
        assert raw["create_pix_transfer"]["payment"]["amount"] == Decimal("2.86")
        assert isinstance(transfer.event_date, datetime)
        # 100.07 - 2.86 is 97.21000000000001 in floats; the service's 97.21 is exact.
        balance = await call("get_balance", models.StandardBalance, client=client)
        assert exact(balance.net_balance) == Decimal("97.21")
        assert raw["get_balance"]["netBalance"] == Decimal("97.21")
        balances = await call("get_account_balances", models.AccountBalances, client=client)
        assert exact(balances.data[0].balance_amount.available) == Decimal("97.21")
        assert raw["get_account_balances"]["data"][0]["balanceAmount"]["available"] == Decimal("97.21")

        txid = uuid.uuid4().hex[:30]
        charge = await call(
            "create_charge",
            models.CobOut,
            client=client,
            txid=txid,
            body=models.CobIn(
                calendario=models.CalendarioIn(expiracao=3600),
                valor=models.ValorIn(original="12.00"),
                solicitacao_pagador="Pedido 1",
            ),
        )
        assert charge.status == "ATIVA"
        paid_by = await call(
            "sandbox_pay",
            models.SandboxPaymentOut,
            client=client,
            body=models.SandboxPaymentIn(pix_copia_e_cola=charge.location),
        )
        paid = await call("get_charge", models.CobOut, client=client, txid=txid)
        assert paid.status == "CONCLUIDA"
        assert [p.end_to_end_id for p in paid.pix] == [paid_by.end_to_end_id]
        refund = await call(
            "request_refund",
            models.RefundOut,
            client=client,
            e2eid=paid_by.end_to_end_id,
            refund_id="tour1",
            body=models.RefundIn(valor="2.00"),
        )
        assert refund.valor == "2.00"  # a money string: exact as it is
        cash_in = await call(
            "create_cash_in",
            models.CashInOut,
            client=client,
            body=models.CashInIn(
                transaction=models.CashInTransactionIn(
                    value=10.0, description="tour", external_id=uuid.uuid4().hex, expiration_time=3600
                ),
                payer=models.CashInPayerIn(full_name="Ana Lima", document=random_cpf()),
            ),
        )
        assert (cash_in.status, isinstance(cash_in.expiration_date, datetime)) == ("PENDING", True)

        await wait_for_paths(receiver, {"/cash_out"})  # the transfer settled: it can be returned
        await call(
            "sandbox_receive_refund",
            models.RefundOut,
            client=client,
            body=models.ReturnIn(end_to_end_id=transfer.end_to_end_id, amount=1.5),
        )
        case = await call(
            "sandbox_open_med",
            models.MedOut,
            client=client,
            body=models.MedIn(end_to_end_id=receipt.end_to_end_id, reason=models.MedInReason("MED_FRAUDE")),
        )
        await call("sandbox_accept_med", models.MedOut, client=client, case_id=case.id)

        page = await call("list_transactions", models.TransactionListOut, client=client, page=1, size=50)
        assert page.metadata.page == 1
        assert str(transfer.id) in {t.transaction_id for t in page.data}
        status = await call(
            "get_transaction_status", models.StatusRecordOut, client=client, id=str(transfer.id)
        )
        assert status.e_2_e_id == transfer.end_to_end_id
        await call("list_transactions_by_pix_key", models.TransactionListOut, client=client, pix_key=outside)

        expected = {"/cash_in", "/cash_out", "/refund_in", "/refund_out", "/med_created", "/med_accepted"}
        await wait_for_paths(receiver, expected)
        deliveries = await call("list_webhook_deliveries", models.DeliveryList, client=client, limit=100)
        assert {d.event_type.value for d in deliveries.deliveries} >= {p[1:] for p in expected}
        # The newest may still be on its way (a second refund_in, say); one already tried has its log.
        first = next(d for d in deliveries.deliveries if d.attempts)
        detail = await call(
            "get_webhook_delivery", models.DeliveryDetailOut, client=client, delivery_id=first.id
        )
        assert (detail.id, detail.message_id) == (first.id, first.message_id)
        assert detail.attempt_log
        assert isinstance(detail.attempt_log[0].attempted_at, datetime)
        # A test event: signed, sent now, answered with its outcome.
        cash_in = dict(zip(REGISTRABLE, registered, strict=True))[EventType.CASH_IN]
        tested = await call("test_webhook", models.TestEventOut, client=client, webhook_id=cash_in.id)
        assert (tested.success, tested.status_code, tested.error) == (True, 200, None), tested
        await wait_for_paths(receiver, expected | {"/cash_in"})
        async with asyncio.timeout(30):
            while not any(b'"PING"' in r.body for r in receiver.received):  # noqa: ASYNC110 - polls
                await asyncio.sleep(0.1)

        notification_models = {
            "TRANSFER": models.TransferNotification,
            "RECEIVE": models.ReceiveNotification,
            "REFUND": models.RefundNotification,
            "MED": models.MedNotification,
            "PING": models.PingNotification,
        }
        seen: set[str] = set()
        for received in receiver.received:
            body = received.verify(secret)
            assert isinstance(body, dict)
            kind = body["type"]
            assert received.path[1:] in document["webhooks"][kind]["post"]["x-event-types"]
            schema = document["webhooks"][kind]["post"]["requestBody"]["content"]["application/json"][
                "schema"
            ]
            validator = ExactValidator(
                {**schema, "components": document["components"]}, format_checker=jsonschema.FormatChecker()
            )
            validator.validate(body)
            parsed = notification_models[kind].from_dict(body)
            assert parsed.type_.value == kind
            if kind == "PING":
                assert parsed.data.webhook_id == cash_in.id
            else:
                assert parsed.data.end_to_end_id == body["data"]["endToEndId"]
            seen.add(kind)
        assert seen == set(notification_models)


def exact(number: float) -> Decimal:
    """A JSON number the generated model holds as a float, as the text the service wrote: the
    shortest text of a float is that text when it has at most 15 significant digits."""
    return Decimal(repr(number))


def npm() -> str:
    found = shutil.which("npm")
    if found is None:
        pytest.fail(
            "npm is not on the PATH: the TypeScript client check needs Node 20 and npm (see docs/testing.md)"
        )
    return found


async def test_the_typescript_client_compiles_under_strict(server: str, tmp_path: Path) -> None:
    document = await served_document(server)
    work = tmp_path / "typescript"
    shutil.copytree(TYPESCRIPT, work, ignore=shutil.ignore_patterns("node_modules", "generated"))
    (work / "openapi.json").write_text(json.dumps(document))
    steps = [
        [npm(), "ci", "--no-audit", "--no-fund"],
        [
            npm(),
            "exec",
            "--",
            "openapi-typescript",
            "openapi.json",
            "--default-non-nullable",
            "false",
            "--output",
            "generated/schema.d.ts",
        ],
        [npm(), "exec", "--", "tsc", "--strict", "--noEmit", "-p", "tsconfig.json"],
    ]
    for step in steps:
        run = subprocess.run(step, cwd=work, capture_output=True, text=True, timeout=300, check=False)  # noqa: ASYNC221 - the loop has nothing else to run
        assert run.returncode == 0, f"{' '.join(step[1:])}: {run.stdout}{run.stderr}"
    generated = (work / "generated" / "schema.d.ts").read_text()
    assert "webhooks" in generated
    assert "TransferPaymentIn" in generated
    assert "SandboxPaymentIn" in generated
