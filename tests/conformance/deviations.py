"""The service's deliberate deviations from the central bank's standard, each as narrow as it can
be said: which operation, which status or which field, which schema keyword. docs/standard-api.md
lists the same deviations, with their reasons, for readers; a check of the suite forgives an
answer only when one of these names it exactly."""

from __future__ import annotations

from dataclasses import dataclass

from pixcore import brcode
from pixcore.errors import InvalidBrCode


def _is_br_code(text: str) -> bool:
    try:
        brcode.decode(text)
    except InvalidBrCode:
        return False
    return True


@dataclass(frozen=True)
class SchemaDeviation:
    """A response field that breaks one keyword of the standard's schema, on purpose."""

    name: str
    operations: frozenset[str]
    field: str
    """The last name of the field's path (``location``)."""
    keyword: str
    """The JSON Schema keyword the field breaks (``maxLength``)."""

    def forgives(self, label: str, path: list[str | int], keyword: str, value: object) -> bool:
        return (
            label in self.operations
            and bool(path)
            and path[-1] == self.field
            and keyword == self.keyword
            # Only the BR Code (decisions §6): a long location that is not one is still a failure.
            and isinstance(value, str)
            and _is_br_code(value)
        )


@dataclass(frozen=True)
class StatusDeviation:
    """A status the standard does not document for an operation, answered on purpose."""

    name: str
    operations: frozenset[str]
    status: int
    problem_type: str
    """The problem's ``type`` the answer must carry (so only that case is forgiven)."""


CHARGE_OPERATIONS = frozenset({"PUT /cob/{txid}", "POST /cob", "PATCH /cob/{txid}", "GET /cob/{txid}"})

SCHEMA_DEVIATIONS = [
    # decisions §6: `location` (and `loc.location`) carries the BR Code itself, up to 512
    # characters, where the standard has a payload URL of at most 77.
    SchemaDeviation("location holds the BR Code", CHARGE_OPERATIONS, "location", "maxLength"),
]

STATUS_DEVIATIONS = [
    # Our specification (decisions "Charges"): revising or cancelling a charge that is not ATIVA is a
    # 422, where the standard says 400 CobOperacaoInvalida.
    StatusDeviation(
        "a charge that is not ATIVA is a 422",
        frozenset({"PATCH /cob/{txid}"}),
        422,
        "https://pix.bcb.gov.br/api/v2/error/OperacaoInvalida",
    ),
]

REFUSED_ON_PURPOSE = {
    # decisions "Charges" (PATCH /cob/{txid}) and §1: a field the standard's schema does not define
    # is a 400 naming it, never silently ignored; the standard's schemas allow any other field.
    "a field the standard does not define": r"([\w.]+: )?Object contains unknown field `[^`]*`",
}
"""Valid data by the standard's schemas that the service refuses (400) on purpose, by the detail
of the violation it gives."""
