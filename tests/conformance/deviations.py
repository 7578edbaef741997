"""The service's deliberate deviations from the central bank's standard, each as narrow as it can
be said: which operation, which status or which field, which schema keyword. docs/standard-api.md
lists the same deviations, with their reasons, for readers; a check of the suite forgives an
answer only when one of these names it exactly."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pixcore import brcode
from pixcore.errors import InvalidBrCode
from tests.conformance.operations import IMPLEMENTED


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
            # Only the BR Code: a long location that is not one is still a failure.
            and isinstance(value, str)
            and _is_br_code(value)
        )


@dataclass(frozen=True)
class StatusDeviation:
    """A status the standard does not document for an operation, answered on purpose."""

    name: str
    operations: frozenset[str]
    status: int
    problem_type: str | None
    """The problem's ``type`` an error must carry (so only that case is forgiven)."""
    like: str | None = None
    """For a success: the documented status whose content it must have (``"201"``)."""


CHARGE_OPERATIONS = frozenset(
    {"PUT /cob/{txid}", "POST /cob", "PATCH /cob/{txid}", "GET /cob/{txid}", "GET /cob"}
)
DUE_CHARGE_OPERATIONS = frozenset({"PUT /cobv/{txid}", "PATCH /cobv/{txid}", "GET /cobv/{txid}", "GET /cobv"})
BATCH_WRITES = frozenset({"PUT /lotecobv/{id}", "PATCH /lotecobv/{id}"})

SCHEMA_DEVIATIONS = [
    # Our specification: `location` (and `loc.location`) carries the BR Code itself, up to 512
    # characters, where the standard has a payload URL of at most 77.
    SchemaDeviation(
        "location holds the BR Code", CHARGE_OPERATIONS | DUE_CHARGE_OPERATIONS, "location", "maxLength"
    ),
]
RECEIVER_ADDRESS = frozenset({"logradouro", "uf", "cep"})
"""docs/decisions/due-charges.md: the service keeps no street address of an account, so
a cobv's ``recebedor`` has its name, document and city only."""

TYPE = "https://pix.bcb.gov.br/api/v2/error/"
REFUND = frozenset({"PUT /pix/{e2eid}/devolucao/{id}"})

STATUS_DEVIATIONS = [
    # Our specification (docs/decisions/charges.md): revising or cancelling a charge that is not ATIVA is a
    # 422, where the standard says 400 CobOperacaoInvalida.
    StatusDeviation(
        "a charge that is not ATIVA is a 422",
        frozenset({"PATCH /cob/{txid}"}),
        422,
        TYPE + "OperacaoInvalida",
    ),
    # Our specification (docs/decisions/charges.md): a txid names one charge of the account; a PUT of a
    # txid in use is a 409, where the standard's PUT would revise an ATIVA charge (PATCH does here).
    StatusDeviation(
        "a txid in use is a 409", frozenset({"PUT /cob/{txid}"}), 409, TYPE + "RequisicaoInvalida"
    ),
    # The same for a due-date charge (docs/decisions/due-charges.md: one txid space), where
    # the standard's PUT of an ATIVA cobv would revise it: PATCH /cobv/{txid} revises here.
    StatusDeviation(
        "a cobv's txid in use is a 409", frozenset({"PUT /cobv/{txid}"}), 409, TYPE + "CobVOperacaoInvalida"
    ),
    # Our specification: a refund id already used with another body is a 409 (the same body
    # returns the refund, 200); past the 89-day window a refund is a 422. The standard says 400.
    StatusDeviation("a refund id in use is a 409", REFUND, 409, TYPE + "RequisicaoInvalida"),
    StatusDeviation("a refund past 89 days is a 422", REFUND, 422, TYPE + "OperacaoInvalida"),
    # Our specification: the same refund asked again (same id and body) returns it with 200,
    # as it is, rather than 201 (nothing is created).
    StatusDeviation("a refund asked again is a 200", REFUND, 200, None, like="201"),
]


@dataclass(frozen=True)
class RefusalDeviation:
    """Data valid by the standard's schemas that the service refuses with a 400, on purpose: the
    violation's detail (``propriedade: razao``) it gives, in full."""

    name: str
    operations: frozenset[str]
    detail: str
    """A regular expression the whole detail matches."""

    def forgives(self, label: str, detail: str) -> bool:
        return label in self.operations and re.fullmatch(self.detail, detail, re.DOTALL) is not None


REFUSED_ON_PURPOSE = [
    # Text the service cannot store (a NUL) is a 400 wherever it is.
    RefusalDeviation(
        "no NUL in the query string",
        frozenset(IMPLEMENTED),
        r"Invalid request: the query string contains a NUL character\.",
    ),
    # docs/decisions/charges.md (PATCH /cob/{txid}) and the wire conventions: a field the standard's
    # schema does not define is a 400 naming it, never silently ignored (the standard's schemas allow
    # any other field).
    RefusalDeviation(
        "a field the standard does not define",
        CHARGE_OPERATIONS | DUE_CHARGE_OPERATIONS | {"PUT /webhook/{chave}"},
        r"([\w.]+: )?Object contains unknown field `.*`",
    ),
    # docs/decisions/due-batches.md: a batch is named by an int32 (the standard's
    # `loteCobVId` of GET /cobv; its answers give the id as an integer), though its path types it as text.
    RefusalDeviation(
        "a batch id is an int32",
        frozenset({"PUT /lotecobv/{id}"}),
        r"id: must be an integer from -2147483648 to 2147483647",
    ),
    # Every text has a maximum: a text without a maximum in the standard gets one (`descricao`: 140).
    RefusalDeviation(
        "a batch's description is at most 140 characters",
        BATCH_WRITES,
        r"descricao: a string of at most 140 characters",
    ),
    # docs/decisions/due-batches.md: at most 1000 charges in one batch (one transaction).
    RefusalDeviation(
        "at most 1000 charges in a batch", BATCH_WRITES, r"cobsv: at most 1000 charges in one batch"
    ),
    # Rules of the standard's own error list (`LoteCobVOperacaoInvalida`) that its schema cannot say:
    # a txid once in a batch; a PATCH names only charges of the batch; and (ours, decisions) an id
    # the account has is not made again (its charges are revised with PATCH).
    RefusalDeviation(
        "a txid once in a batch",
        BATCH_WRITES,
        r"cobsv\[\d+\]\.txid: \w+ is given more than once in the batch",
    ),
    RefusalDeviation(
        "a PATCH names the batch's charges",
        frozenset({"PATCH /lotecobv/{id}"}),
        r"cobsv\[\d+\]\.txid: \w+ is not a charge of batch -?\d+",
    ),
    RefusalDeviation(
        "a batch id in use is not made again",
        frozenset({"PUT /lotecobv/{id}"}),
        r"id: a batch with this id exists already; revise its charges with PATCH",
    ),
    # The standard types GET /cob's `status` as any text; one that is no charge status could only
    # ever list nothing, so it is a 400 naming the four (a typo is not an empty result).
    RefusalDeviation(
        "GET /cob's status is one of the four",
        frozenset({"GET /cob", "GET /cobv"}),
        # (A value longer than any status is cut short by the parameter's bound, with msgspec's words.)
        r"status: (must be one of ATIVA, CONCLUIDA, REMOVIDA_PELO_USUARIO_RECEBEDOR, REMOVIDA_PELO_PSP"
        r"|Expected `str` of length <= 64)",
    ),
]


EMPTY_IS_ABSENT = frozenset(
    {"GET /cob", "GET /pix", "GET /cobv", "GET /webhook", "GET /lotecobv", "GET /loc"}
)
"""pixcore.queries.standard: in the list queries an empty value (``?cpf=``) is the same as no
value, as HTML forms send them; the standard's patterns refuse the empty text. A 2xx to negative
data of these operations is forgiven only when every value that breaks its schema is empty."""


NULL_IS_ABSENT = frozenset(
    {"PUT /cob/{txid}", "POST /cob", "PATCH /cob/{txid}", "PUT /cobv/{txid}", "PATCH /cobv/{txid}"}
)
"""Our document and decisions ("Charges": a part left out or ``null`` is unchanged): in a charge's
body, ``null`` for an optional field is the same as leaving it out; the standard's schemas, with no
``nullable``, refuse it. A 2xx to negative data of these operations is forgiven only when the body
without its ``null`` fields is valid by the standard's schema."""

CHARGES_REFUSED_ALONE = BATCH_WRITES
"""The standard (``PUT /lotecobv/{id}``'s description and its example ``loteCobVResponse1``): each
charge of a batch is created or refused on its own, a charge that breaks the ``cobv`` schema with
its own ``problema``, the batch answered 202. A 2xx to negative data of these operations is
forgiven only when every fault of the body (its ``null`` fields aside, which a charge's body
reads as absent) lies inside an item of ``cobsv`` that the answer gives a ``problema``."""

CHAVE_OPTIONAL = frozenset({"PUT /cob/{txid}", "POST /cob"})
"""Our specification: ``chave`` may be left out of a new charge (the account's first key is
used); the standard requires it. Only that one ``required`` is forgiven, on these operations."""
