"""The document is as strict as the service: requests that schemathesis generates
as valid from the document alone (positive data, no hostile text, no prepared values) are not
refused with a 400, except for the rules a schema cannot say, listed in
docs/decisions/openapi-fuzzing.md and below, each as the message the service gives for it.

A 400 whose every detail is one of those rules passes; any other 400 names a rule the document
misses. Marked ``fuzz`` (a running service; ``make fuzz``, ``.ci/run``); ``PIX_FUZZ_EXAMPLES``
examples per operation.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import AuthContext, Case, GenerationMode, HookContext
from schemathesis.schemas import BaseSchema

from pixcore.errors import InvalidAmount
from pixweb.edge import NUL, SURROGATE, TOO_DEEP
from tests.fuzz.conftest import EXAMPLES, TOKEN_LIFETIME_USED
from tests.fuzz.service import Target
from tests.fuzz.test_openapi_fuzz import _operations

pytestmark = pytest.mark.fuzz

AMOUNT = InvalidAmount().message

# The rules no JSON Schema of the document says, each as the 400's detail (or message) that names
# it; docs/decisions/openapi-fuzzing.md, lists the same rules for readers.
UNSTATED = {
    # Text the service cannot store (docs/decisions/hostile-text.md), in any string, known field or not.
    "text with a NUL, a lone surrogate, or JSON nested too deep": (
        rf"Invalid request: the body ({NUL}|{SURROGATE}|{TOO_DEEP})\."
    ),
    # A key or document of the right layout whose check digits are wrong (or all one digit).
    "the check digits of a CPF or CNPJ": (
        r"(pixKey|chave|document|payer\.document|creditorDocument|devedor\.(cpf|cnpj)): "
        r"(Invalid PIX key\.|Invalid CPF or CNPJ\.|invalid CNPJ"
        r"|an 11-digit key is a CPF, and this CPF is invalid"
        r"|must be a valid CPF of exactly 11 digits|must be a valid CNPJ of 14 characters)"
        r"|Invalid CPF or CNPJ\."
        r"|cnpj: must be a valid CNPJ of 14 characters"
    ),
    # JSON Schema's integer takes 1.0; the service takes whole numbers written as integers only.
    "an integer written with a fraction (1.0)": r"[\w.]+: must be .*(seconds|0 or 1|whole number).*",
    "an amount as a JSON number has at most 2 decimals and is at least 0.01": (
        rf"([\w.]+: )?({re.escape(AMOUNT)}|amount must have at most 2 decimals)"
    ),
    "a string amount above zero": r"valor(\.original)?: .*(positive|greater than zero).*",
    "a real date and time, in the supported range": (
        r"(startDate|endDate|startDate, endDate): "
        r"(must be an ISO 8601 date or date and time|out of the supported range)"
    ),
    "endDate after startDate, at most 31 days apart": (
        r"endDate: must (not be before startDate|be at most 31 days after startDate)"
    ),
    "a debtor: a name with a document, not both cpf and cnpj": r"devedor(\.nome)?: .*",
    # and the rest of a debtor (e-mail, address) only with a document: whom it would describe
    "a debtor's e-mail and address only with a document": (
        r"devedor\.(email|logradouro|cidade|uf|cep): needs devedor\.cpf or devedor\.cnpj"
    ),
    "pixKey or pixCopiaECola, not both; pixKey with an amount": r"((pixKey|amount): )?Give pixCopiaECola.*",
    "a BR Code that is a valid one": r".*(BR Code|pixCopiaECola).*",
    # The URL grammar (no credentials, no fragment, a port above 0, a valid host name) and a host
    # that resolves to public addresses.
    "a webhook URL that is a well-formed https URL of a public host": r"url: .*",
    "a webhook header the delivery sets itself": r"headers: header '.*' may not be set",
    # (the name quoted as Python's repr quotes it: in double quotes when it holds a single one)
    "a webhook header named once (names compare without case)": r"headers: header (['\"]).*\1 is given twice",
    "a charge's key is one of the account's keys": r"chave: not a key of your account",
    # PUT /webhook/{chave}: the key is the account's, the URL one the service sends to.
    "a key webhook's key is one of the account's keys": r"chave: not a key of this account",
    "a key webhook's URL is a well-formed https URL of a public host": r"webhookUrl: .*",
    "text that is only spaces where a value is required": r"[\w.]+: (required, )?1 to [0-9]+ characters",
    "creditorDocument when priority is HIGH": r"creditorDocument: required when priority is HIGH",
    # PATCH /cob/{txid} (the standard's CobRevisada): every field is optional, but not all at once,
    # and the status cancels alone.
    "a revision changes something": r"the body changes nothing: give a field to revise, or status",
    "a cancellation comes alone": r"status: a charge is cancelled alone, not together with other changes",
    # GET /cob, GET /pix: the window and the document filter.
    "fim not before inicio": r"fim: must not be before inicio",
    "a date and time that exist (month 13, 25 o'clock)": (
        r"(inicio|fim): must be a valid RFC 3339 date-time within years 1 to 9999"
    ),
    "cpf or cnpj, not both": r"cpf, cnpj: give one of them, not both",
    # PUT/PATCH /cobv/{txid} (docs/due-charges.md): the terms' rules between fields and days.
    "a due date that exists and is not before today": (
        r"calendario\.dataDeVencimento: (must not be before today.*|required, a date YYYY-MM-DD that exists)"
    ),
    "a last day to pay within the calendar and a charge's int32 expiry": (
        r"calendario\.validadeAposVencimento: the last day to pay"
        r" (would fall after 9999-12-31|must fall within.*)"
    ),
    "the amount due at its highest within the service's maximum": r"valor: with multa and juros .*",
    # multa and abatimento take 1 to 2 (the document says 1 to 8, juros'), none takes 1.0
    "each modality's own range, as an integer": r"valor\.\w+\.modalidade: required, 1 to [268]",
    "a rebate or discount below the whole": (
        r"valor\.(abatimento|desconto)[\w.\[\]]*:"
        r" (a percentage below 100\.00|must be below valor\.original.*)"
    ),
    "a discount's dates or value as its modality says": (
        r"valor\.desconto(\.valorPerc|\.descontoDataFixa)?:"
        r" (must be left out with modalidade.*|required with modalidade.*|required, a string of .*)"
    ),
    "a discount's dates not after the due date, each once": (
        r"valor\.desconto\.descontoDataFixa\[\d+\]\.data: (must not be after calendario\.dataDeVencimento"
        r"|each date at most once|required, a date YYYY-MM-DD that exists)"
    ),
    "a cobv's debtor is required": r"devedor: required, a cpf or cnpj with nome",
    # A cob's valor.retirada (docs/standard-api.md): one of saque and troco, a fixed one above zero,
    # and how it binds valor.original and its modality.
    "a withdrawal as the standard's description says": (
        r"valor\.(retirada|original|modalidadeAlteracao|retirada\.(saque|troco)\.valor): "
        r"(exactly one of saque and troco|must be (0|0\.00|above 0\.00) with (saque|troco)"
        r"|must be above 0\.00 unless modalidadeAlteracao is 1)"
    ),
    "a cobv's original amount above zero": r"valor\.original: must be above zero",
    "a cobv's days after the due date written as an integer (not 1.0)": (
        r"calendario\.validadeAposVencimento: a whole number of days, 0 to 2147483647"
    ),
    # The standard's own error list (`CobConsultaInvalida`, `CobVConsultaInvalida`): a revision the
    # charge never had; and one made before the service kept revisions (docs/decisions/charge-revisions.md).
    "a revision the charge has": (
        r"revisao: (the charge has no revision -?\d+ \(its revisions are 0 to \d+\)"
        r"|revision \d+ of the charge was not kept .*)"
    ),
    # docs/decisions/locations.md: `loc.id` names a location of the account (ids from 1), of the
    # charge's tipoCob, serving no other charge; the standard's schema gives only an int64.
    "a location of the account, free, of the charge's type": (
        r"loc\.id: (no location of your account has this id|the location is of tipoCob \w+, not \w+"
        r"|the location serves the charge \w+|must be an integer from 1 to \d+)"
    ),
    # PUT/PATCH /lotecobv/{id} (docs/decisions/due-batches.md): the batch's own rules.
    "a txid once in a batch": r"cobsv\[\d+\]\.txid: \w+ is given more than once in the batch",
    "a PATCH names only the batch's charges": r"cobsv\[\d+\]\.txid: \w+ is not a charge of batch -?\d+",
    "a batch id the account has is not made again": (
        r"id: a batch with this id exists already; revise its charges with PATCH"
    ),
}
PATTERNS = [re.compile(pattern, re.IGNORECASE | re.DOTALL) for pattern in UNSTATED.values()]


def _details(body: dict[str, Any]) -> list[str]:
    """Each broken rule, as ``field: why``: our error shape's ``details`` (or its message), or on
    the standard's routes its problem+json ``violacoes`` (``propriedade``, ``razao``)."""
    if "violacoes" in body or "type" in body:
        violations = body.get("violacoes") or []
        found = [
            f"{v['propriedade']}: {v['razao']}" if v.get("propriedade") else v.get("razao", "")
            for v in violations
        ]
        return found or [str(body.get("detail", ""))]
    return body.get("details") or [body.get("message", "")]


def _unexplained(body: dict[str, Any]) -> list[str]:
    details = _details(body)
    return [detail for detail in details if not any(p.fullmatch(detail) for p in PATTERNS)]


def _positive_schema(target: Target) -> BaseSchema:
    schema = schemathesis.openapi.from_url(f"{target.base_url}/schema/openapi.json")

    @schema.auth(refresh_interval=TOKEN_LIFETIME_USED)
    class Bearer:
        def get(self, _case: Case, _context: AuthContext) -> str:
            return target.token()

        def set(self, case: Case, data: str, _context: AuthContext) -> None:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}

    @schema.hook
    def map_headers(context: HookContext, headers: dict[str, Any] | None) -> dict[str, Any] | None:
        label = context.operation.label if context.operation else ""
        if label in {"POST /api/auth/token", "POST /oauth/token"}:
            # The certificate header is a PEM (a rule of its own): the signed-in client's, always.
            return {**(headers or {}), "X-SSL-Client-Cert": target.account.cert_header}
        return headers

    @schema.hook
    def filter_headers(_context: HookContext, headers: dict[str, Any] | None) -> bool:
        framing = {"content-length", "transfer-encoding", "host", "connection"}
        return not any(name.lower() in framing for name in headers or {})

    return schema


@pytest.fixture(scope="module")
def positive_schema(fuzz_target: Target) -> BaseSchema:
    return _positive_schema(fuzz_target)


@pytest.mark.parametrize("label", _operations())
def test_valid_data_of_the_document_is_not_refused(positive_schema: BaseSchema, label: str) -> None:
    method, path = label.split(" ", 1)
    operation = positive_schema[path][method]
    refused: list[str] = []
    answered: list[int] = []

    @given(case=operation.as_strategy(GenerationMode.POSITIVE, auth_storage=positive_schema.auth))
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    def send(case: Case) -> None:
        response = case.call()
        answered.append(response.status_code)
        assert response.status_code < 500, response.text[:300]
        if response.status_code == 400:
            body = json.loads(response.content)
            if unexplained := _unexplained(body):
                refused.append(f"{unexplained} for {case.path_parameters} {case.query} {case.body!r}"[:600])

    send()
    assert answered, "no request was sent"
    assert refused == [], "\n".join(refused[:10])
