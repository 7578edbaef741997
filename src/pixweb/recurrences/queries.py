"""The query strings of Pix Automático's lists, ``GET /rec``, ``GET /cobr`` and ``GET /locrec``,
built of the standard's other lists' pieces (:mod:`pixweb.api.listing`: the window, the
document, the page, ``locationPresente``, a parameter given twice or empty refused as there);
declared here are only their own parameters. The texts go to ``pixcore.recurrences``' parsers,
which judge them all at once, ``status`` and ``convenio`` as any text on the standard's face."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from litestar import Request
from litestar.di import NamedDependency

from pixcore.recurrences import (
    ChargeListQuery,
    LocationListQuery,
    RecurrenceListQuery,
    RecurrenceStatus,
    RecurringChargeStatus,
    parse_charge_list_query,
    parse_location_list_query,
    parse_recurrence_list_query,
)
from pixcore.recurrences.queries import REC_ID_PATTERN
from pixweb.api.listing import (
    Document,
    LocationPresent,
    Paging,
    Window,
    list_dependencies,
    parameters_of,
    period_text,
)
from pixweb.api.standard import FLAG, QueryParameter, given_once
from pixweb.standard.face import on_standard_face

__all__ = ["RECURRING_QUERIES"]

Agreement = Annotated[
    str | None, QueryParameter("convenio", "Only this agreement (at most 60 characters).", "12345")
]
RecurrenceState = Annotated[
    str | None,
    QueryParameter(
        "status", "Only recurrences in this status now.", "APROVADA", schema={"enum": list(RecurrenceStatus)}
    ),
]
ChargeState = Annotated[
    str | None,
    QueryParameter(
        "status",
        "Only recurring charges in this status.",
        "ATIVA",
        schema={"enum": list(RecurringChargeStatus)},
    ),
]
RecId = Annotated[
    str | None,
    QueryParameter(
        "idRec",
        "Only the charges of this recurrence.",
        "RR1234567820240115abcdefghijk",
        pattern=REC_ID_PATTERN,
    ),
]
RecPresent = Annotated[
    str | None,
    QueryParameter("idRecPresente", "true or false: serving (or not) a recurrence.", "true", schema=FLAG),
]


def _as_text(request: Request[Any, Any, Any], query: Callable[..., Any]) -> bool:
    """Each of ``query``'s parameters given once; whether ``status`` and ``convenio`` are any text
    (the standard's face)."""
    given_once(request, parameters_of(query))
    return on_standard_face(request.scope)


def recurrence_query(
    request: Request[Any, Any, Any],
    window: NamedDependency[Window],
    location_presente: LocationPresent = None,
    status: RecurrenceState = None,
    convenio: Agreement = None,
    *,
    document: NamedDependency[Document],
    paging: NamedDependency[Paging],
) -> RecurrenceListQuery:
    """``GET /rec``'s query."""
    return parse_recurrence_list_query(
        period_text(window, paging, document),
        location_present=location_presente,
        status=status,
        agreement=convenio,
        any_text=_as_text(request, recurrence_query),
    )


def charge_query(
    request: Request[Any, Any, Any],
    window: NamedDependency[Window],
    id_rec: RecId = None,
    status: ChargeState = None,
    convenio: Agreement = None,
    *,
    document: NamedDependency[Document],
    paging: NamedDependency[Paging],
) -> ChargeListQuery:
    """``GET /cobr``'s query."""
    return parse_charge_list_query(
        period_text(window, paging, document),
        rec_id=id_rec,
        status=status,
        agreement=convenio,
        any_text=_as_text(request, charge_query),
    )


def location_query(
    request: Request[Any, Any, Any],
    window: NamedDependency[Window],
    id_rec_presente: RecPresent = None,
    convenio: Agreement = None,
    *,
    paging: NamedDependency[Paging],
) -> LocationListQuery:
    """``GET /locrec``'s query."""
    return parse_location_list_query(
        period_text(window, paging),
        rec_present=id_rec_presente,
        agreement=convenio,
        any_text=_as_text(request, location_query),
    )


RECURRING_QUERIES = {
    "rec": list_dependencies(recurrence_query),
    "cobr": list_dependencies(charge_query),
    "locrec": list_dependencies(location_query),
}
"""Each list's ``dependencies``: its parsed query as the handler's ``filters``."""
