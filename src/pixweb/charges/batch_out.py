"""The answers of the batch routes (``/lotecobv``): the standard's ``LoteCobVConsultado`` and
``LotesCobVConsultados``; each refused charge's ``problema`` is made as ``PUT``/``PATCH
/cobv/{txid}`` would answer it (:func:`pixweb.problems.problem_of`, status by
:func:`pixweb.errors.status_of`, each field its problems name at its wire path)."""

from __future__ import annotations

from typing import Annotated

from pixcore.charges.batch_service import BatchListing
from pixcore.charges.batches import BatchItem, DueBatch
from pixcore.clock import format_timestamp
from pixcore.queries.standard import BatchQuery
from pixweb.api.fields import Int32, Timestamp, doc
from pixweb.api.schemas import WireStruct
from pixweb.api.standard import PageOut
from pixweb.errors import status_of
from pixweb.field_paths import on_the_wire
from pixweb.problems import Problem, problem_of

__all__ = ["LoteItemOut", "LoteOut", "LoteQueryOut", "LotesOut", "batch_out", "batches_out"]

_ITEM_PROBLEMS = {
    400: "CobVOperacaoInvalida",
    404: "CobVNaoEncontrada",
    409: "CobVOperacaoInvalida",
    422: "CobVOperacaoInvalida",
}
"""The type of a charge's ``problema``: the one ``PUT``/``PATCH /cobv/{txid}`` would answer."""


class LoteItemOut(WireStruct, omit_defaults=True):
    """One charge of the batch: the outcome of its request."""

    txid: Annotated[str, doc("The charge's txid.")]
    status: Annotated[str, doc("CRIADA (it exists) or NEGADA (refused: see `problema`).")]
    problema: (
        Annotated[Problem, doc("Why the charge (or, on a CRIADA one, its latest revision) was refused.")]
        | None
    ) = None
    criacao: Annotated[Timestamp, doc("When the charge was created (CRIADA only).")] | None = None


class LoteOut(WireStruct):
    """The standard's ``LoteCobVConsultado``."""

    id: Annotated[Int32, doc("The batch's id (the client's).")]
    descricao: str
    criacao: Annotated[Timestamp, doc("When the batch was created.")]
    cobsv: Annotated[list[LoteItemOut], doc("Its charges, in the order of the request that made it.")]


class LoteQueryOut(WireStruct):
    """The standard's ``ParametrosConsultaLote``."""

    inicio: Timestamp
    fim: Timestamp
    paginacao: PageOut


class LotesOut(WireStruct):
    """The standard's ``LotesCobVConsultados``."""

    parametros: LoteQueryOut
    lotes: Annotated[list[LoteOut], doc("The batches of the page, oldest first.")]


def _item_problem(item: BatchItem) -> Problem | None:
    if item.refusal is None:
        return None
    error = item.refusal.error()
    message, details = on_the_wire(error)
    return problem_of(status_of(error), message, details or None, _ITEM_PROBLEMS)


def batch_out(batch: DueBatch) -> LoteOut:
    return LoteOut(
        id=batch.id,
        descricao=batch.description,
        criacao=format_timestamp(batch.created_at),
        cobsv=[
            LoteItemOut(
                txid=item.txid,
                status=item.status.value,
                problema=_item_problem(item),
                criacao=None if item.created_at is None else format_timestamp(item.created_at),
            )
            for item in batch.items
        ],
    )


def batches_out(query: BatchQuery, listing: BatchListing) -> LotesOut:
    page = query.page
    return LotesOut(
        parametros=LoteQueryOut(
            inicio=format_timestamp(query.start),
            fim=format_timestamp(query.end),
            paginacao=PageOut(
                pagina_atual=page.number,
                itens_por_pagina=page.size,
                quantidade_de_paginas=page.count(listing.total),
                quantidade_total_de_itens=listing.total,
            ),
        ),
        lotes=[batch_out(batch) for batch in listing.batches],
    )
