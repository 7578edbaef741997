"""Batches of due-date charges: ``PUT/PATCH/GET /lotecobv/{id}`` and ``GET /lotecobv``
(docs/decisions/due-batches.md). Errors are the standard's problem+json
(``LoteCobVOperacaoInvalida``, ``LoteCobVNaoEncontrado``, ``LoteCobVConsultaInvalida``); each refused
charge of a batch carries its own ``problema``, as ``PUT``/``PATCH /cobv/{txid}`` answer it.

The items of ``cobsv`` are decoded one by one, so that a charge whose body has a wrong type is
refused alone (NEGADA, every mistake listed) while the others are created.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, TypeVar

import msgspec
from litestar import Controller, Request, Response, get, patch, put
from litestar.di import NamedDependency
from litestar.openapi.spec import Example, OpenAPIType
from litestar.params import Parameter

from pixcore.charges.batch_service import (
    BatchChange,
    BatchCharge,
    create_due_batch,
    put_due_batch,
    read_due_batch,
    revise_due_batch,
    search_due_batches,
)
from pixcore.charges.batches import MAX_CHARGES, MAX_DESCRIPTION, BatchField, DueBatch
from pixcore.charges.cobv_requests import DueChargeRequest
from pixcore.charges.parts import DUE_REVISION, Text
from pixcore.clock import Clock
from pixcore.errors import BatchNotFound, InvalidQuery, ValidationError
from pixcore.identifiers import TXID_PATTERN
from pixcore.queries.standard import BatchQuery, parse_batch_id
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.due_terms import text
from pixinfra.settings import Settings
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer, json_body
from pixweb.api.fields import doc, raw, whole
from pixweb.api.listing import QUERIES
from pixweb.api.schemas import WireStruct
from pixweb.api.standard import parameters_example
from pixweb.body_errors import problems_of
from pixweb.charges.batch_out import LoteOut, LotesOut, batch_out, batches_out
from pixweb.charges.mapping import due_fields, due_revision_fields
from pixweb.charges.schemas import CobVIn, CobVPatchIn
from pixweb.field_paths import wire_paths
from pixweb.problems import PROBLEMS, problem_responses
from pixweb.standard import on_standard_face
from pixweb.standard.bodies import items_of
from pixweb.wire import PixResponse, encode_json

__all__ = ["DueBatchController"]

S = TypeVar("S", bound=msgspec.Struct)

_WRITE_PROBLEMS = {400: "LoteCobVOperacaoInvalida", 404: "LoteCobVNaoEncontrado"}
_READ_PROBLEMS = {400: "LoteCobVConsultaInvalida", 404: "LoteCobVNaoEncontrado"}
_LIST_PROBLEMS = {400: "LoteCobVConsultaInvalida"}

_TXID = "fb2761260e554ad593c7226beb5cb650"
_OTHER_TXID = "7978c0c97ea847e78e8849634473c1f1"
_ITEMS_DOC = (
    f"Up to {MAX_CHARGES} charges, each the body of `PUT /cobv/{{txid}}` (`PATCH` there) with its"
    " `txid` (26 to 35 letters and digits, once in the batch)."
)


# Each item is decoded on its own (a charge whose body breaks the schema is refused alone), so the
# list's items are documented as objects, described in words; their text fields and maxima are those
# of PUT/PATCH /cobv/{txid} (tests/security/test_lotecobv_hostile.py sends them hostile text).
_ITEM = {
    "type": "object",
    "required": ["txid"],
    "properties": {"txid": {"type": "string", "maxLength": 35, "pattern": whole(TXID_PATTERN)}},
    "additionalProperties": True,
}
_ITEMS = doc(
    _ITEMS_DOC, max_items=MAX_CHARGES, schema={"one_of": None, "type": OpenAPIType.ARRAY, "items": _ITEM}
)


class LoteCobVIn(WireStruct):
    """The standard's body of ``PUT /lotecobv/{id}``."""

    descricao: Annotated[
        Any, raw("Required: what the batch is.", kind=OpenAPIType.STRING, max_length=MAX_DESCRIPTION)
    ] = None
    cobsv: Annotated[list[Any] | None, _ITEMS, items_of(CobVIn, "txid")] = None


class LoteCobVPatchIn(WireStruct):
    """The standard's body of ``PATCH /lotecobv/{id}``: some charges of the batch, each a change."""

    descricao: Annotated[
        Any, raw("A new description of the batch.", kind=OpenAPIType.STRING, max_length=MAX_DESCRIPTION)
    ] = None
    cobsv: Annotated[list[Any] | None, _ITEMS, items_of(CobVPatchIn, "txid")] = None


BATCH_PATHS = wire_paths(
    {
        BatchField.ID: "id",
        BatchField.DESCRIPTION: "descricao",
        BatchField.CHARGES: "cobsv",
        BatchField.CHARGE_TXID: "cobsv[].txid",
    }
)
"""Where :class:`LoteCobVIn` and :class:`LoteCobVPatchIn` (and the path, ``id``) carry a batch's
fields (``[]``: a charge's place)."""


def _decoded(item: object, struct: type[S], judge: Callable[[S], object]) -> S | ValidationError:
    """One charge of ``cobsv`` as ``struct`` (its ``txid`` aside), or every mistake of it."""
    if not isinstance(item, dict):
        return ValidationError("Invalid due-date charge: not an object", details=["cobv: must be an object"])
    body = {name: value for name, value in item.items() if name != "txid"}
    try:
        return msgspec.convert(body, struct, strict=False)
    except msgspec.ValidationError as exc:
        problems = problems_of(encode_json(body), struct, judge) or [str(exc)]
        return ValidationError("Invalid due-date charge: " + "; ".join(problems), details=problems)


def _txid(item: object) -> Text:
    """The ``txid`` of one item of ``cobsv``, its type judged (None: left out, or not an object)."""
    return text(item.get("txid")) if isinstance(item, dict) else None


def _charges(items: list[Any] | None, now: datetime) -> list[BatchCharge] | None:
    """``cobsv``'s charges, each decoded on its own (None: no ``cobsv``)."""
    if items is None:
        return None

    def judge(body: CobVIn) -> object:
        return DueChargeRequest.parse(due_fields(body), now=now)

    charges = []
    for item in items:
        decoded = _decoded(item, CobVIn, judge)
        fields = decoded if isinstance(decoded, ValidationError) else due_fields(decoded)
        charges.append(BatchCharge(_txid(item), fields))
    return charges


def _changes(items: list[Any] | None) -> list[BatchChange]:
    changes = []
    for item in items or ():
        decoded = _decoded(item, CobVPatchIn, lambda body: due_revision_fields(body).cancels(DUE_REVISION))
        fields = decoded if isinstance(decoded, ValidationError) else due_revision_fields(decoded)
        changes.append(BatchChange(_txid(item), fields))
    return changes


BatchId = Annotated[
    str,
    Parameter(
        description=(
            "The batch's id, chosen by the client: an int32 (`loteCobVId` of `GET /cobv`). Any"
            " other text is a 400 (a write) or names no batch (404)."
        ),
        schema_extra={"type": OpenAPIType.INTEGER, "format": "int32"},
        examples=[Example(value=17)],
    ),
]


def _writable_id(text: str) -> int:
    try:
        value = parse_batch_id(text)
    except InvalidQuery as exc:
        raise ValidationError("Invalid batch id: " + exc.message, details=["id: " + exc.message]) from None
    if value is None:
        raise ValidationError("Invalid batch id", details=["id: required"])
    return value


def _known_id(text: str) -> int:
    """The id of a batch to find: a text that is no int32 names no batch (404)."""
    try:
        value = parse_batch_id(text)
    except InvalidQuery:
        raise BatchNotFound() from None
    if value is None:
        raise BatchNotFound()
    return value


_COBV = {
    "calendario": {"dataDeVencimento": "2026-12-31", "validadeAposVencimento": 30},
    "devedor": {"cpf": "52998224725", "nome": "João Souza"},
    "valor": {"original": "100.00"},
    "solicitacaoPagador": "Informar matrícula",
}
_BATCH_IN = {
    "descricao": "Cobranças dos alunos do turno vespertino",
    "cobsv": [_COBV | {"txid": _TXID}, _COBV | {"txid": _OTHER_TXID, "devedor": {"nome": "Manoel Silva"}}],
}
_BATCH_OUT = {
    "id": 17,
    "descricao": "Cobranças dos alunos do turno vespertino",
    "criacao": "2026-11-24T14:32:08.125Z",
    "cobsv": [
        {"txid": _TXID, "status": "CRIADA", "criacao": "2026-11-24T14:32:08.125Z"},
        {
            "txid": _OTHER_TXID,
            "status": "NEGADA",
            "problema": {
                "type": "https://pix.bcb.gov.br/api/v2/error/CobVOperacaoInvalida",
                "title": "Bad Request",
                "status": 400,
                "detail": "Invalid due-date charge: devedor.nome: needs devedor.cpf or devedor.cnpj",
                "violacoes": [{"razao": "needs devedor.cpf or devedor.cnpj", "propriedade": "devedor.nome"}],
            },
        },
    ],
}
_PATCH_IN = {"cobsv": [{"txid": _TXID, "valor": {"original": "110.00"}}]}


def _accepted(batch: DueBatch, standard: bool) -> Response[Any]:
    """A write's 202: ours with the batch (each charge's outcome at once); the standard's, as its
    document says, with no body (``GET /lotecobv/{id}`` reads the outcome)."""
    if standard:
        return Response(content=b"", status_code=202, media_type="application/json")
    return PixResponse(batch_out(batch), status_code=202)


class DueBatchController(Controller):
    path = "/lotecobv"
    tags = ["Batches of due-date charges"]  # noqa: RUF012 - Litestar reads class attributes

    @put(
        "/{batch_id:str}",
        operation_id="createDueBatch",
        responses=answer(202, LoteOut, "The batch: each charge CRIADA or NEGADA", _BATCH_OUT)
        | problem_responses(_WRITE_PROBLEMS, 400, 401, 413),
        status_code=202,
        summary="Create a batch of due-date charges",
        description=(
            "The standard's `PUT /lotecobv/{id}`: each charge of `cobsv` is judged as `PUT"
            " /cobv/{txid}` judges it and created (CRIADA) or refused (NEGADA, with its `problema`)"
            " on its own, all inside the request (none is left EM_PROCESSAMENTO), in one"
            f" transaction. At most {MAX_CHARGES} charges. An id the account has is a 400"
            " (`LoteCobVOperacaoInvalida`): revise its charges with `PATCH`. Answers 202 with the"
            " batch (the standard defines no body)."
        ),
        opt={PROBLEMS: _WRITE_PROBLEMS},
    )
    async def create(
        self,
        request: Request[Any, Any, Any],
        batch_id: BatchId,
        data: Annotated[LoteCobVIn, json_body("The batch.", _BATCH_IN, required=["descricao", "cobsv"])],
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[LoteOut]:
        now = clock.now()
        standard = on_standard_face(request.scope)
        # Ours: an id in use is a 400 (its charges are revised with PATCH); the standard's PUT
        # creates or revises the charges it gives.
        batch = await (put_due_batch if standard else create_due_batch)(
            uow,
            clock,
            account_id=principal_of(request).account_id,
            batch_id=_writable_id(batch_id),
            description=text(data.descricao),
            charges=_charges(data.cobsv, now),
            location_prefix=settings.location_prefix,
        )
        return _accepted(batch, standard)

    @patch(
        "/{batch_id:str}",
        operation_id="reviseDueBatch",
        responses=answer(202, LoteOut, "The batch, each charge given revised or refused", _BATCH_OUT)
        | problem_responses(_WRITE_PROBLEMS, 400, 401, 404, 413),
        status_code=202,
        summary="Revise charges of a batch of due-date charges",
        description=(
            "The standard's `PATCH /lotecobv/{id}`: each charge given (by its `txid`, one of the"
            " batch's) is revised or cancelled as `PATCH /cobv/{txid}` would; a refusal is that"
            " charge's `problema` (a CRIADA charge keeps its status and its terms). A txid that is"
            " not the batch's is a 400 (`LoteCobVOperacaoInvalida`); another account's batch, or"
            " none, is a 404 (`LoteCobVNaoEncontrado`)."
        ),
        opt={PROBLEMS: _WRITE_PROBLEMS},
    )
    async def revise(
        self,
        request: Request[Any, Any, Any],
        batch_id: BatchId,
        data: Annotated[LoteCobVPatchIn, json_body("The changes.", _PATCH_IN, required=["cobsv"])],
        *,
        clock: Injected[Clock],
        settings: Injected[Settings],
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[LoteOut]:
        batch = await revise_due_batch(
            uow,
            clock,
            account_id=principal_of(request).account_id,
            batch_id=_known_id(batch_id),
            description=text(data.descricao),
            changes=_changes(data.cobsv),
            location_prefix=settings.location_prefix,
        )
        return _accepted(batch, on_standard_face(request.scope))

    @get(
        "/{batch_id:str}",
        operation_id="getDueBatch",
        responses=answer(200, LoteOut, "The batch", _BATCH_OUT)
        | problem_responses(_READ_PROBLEMS, 400, 401, 404),
        summary="Read a batch of due-date charges",
        description=(
            "The batch with each charge's outcome. Another account's batch, or none, is a 404"
            " (`LoteCobVNaoEncontrado`)."
        ),
        opt={PROBLEMS: _READ_PROBLEMS},
    )
    async def read(
        self, request: Request[Any, Any, Any], batch_id: BatchId, *, uow: Injected[UnitOfWorkFactory]
    ) -> Response[LoteOut]:
        batch = await read_due_batch(
            uow, account_id=principal_of(request).account_id, batch_id=_known_id(batch_id)
        )
        return PixResponse(batch_out(batch))

    @get(
        "/",
        operation_id="listDueBatches",
        responses=answer(
            200,
            LotesOut,
            "A page of the account's batches, oldest first",
            {"parametros": parameters_example(), "lotes": [_BATCH_OUT]},
        )
        | problem_responses(_LIST_PROBLEMS, 400, 401),
        summary="List the account's batches of due-date charges",
        description=(
            "The standard's `GET /lotecobv`: the account's batches created between `inicio` and"
            " `fim` (both required, inclusive), oldest first; `paginacao.paginaAtual` from 0,"
            " `paginacao.itensPorPagina` 1 to 1000 (default 100). Errors are"
            " `application/problem+json` (`LoteCobVConsultaInvalida`)."
        ),
        opt={PROBLEMS: _LIST_PROBLEMS},
        dependencies=QUERIES["lotecobv"],
    )
    async def search(
        self,
        request: Request[Any, Any, Any],
        filters: NamedDependency[BatchQuery],
        *,
        uow: Injected[UnitOfWorkFactory],
    ) -> Response[LotesOut]:
        listing = await search_due_batches(uow, account_id=principal_of(request).account_id, query=filters)
        return PixResponse(batches_out(filters, listing))
