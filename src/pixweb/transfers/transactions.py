"""Transaction queries: ``/api/transactions``, the pix-key list and look-up, and the
status record ``/api/pix/transaction/{id}``.

Query parameters arrive as raw strings and are parsed here, once, by ``pixcore.queries.rules``
(one 400 lists every broken rule): the use cases receive a typed ``ListQuery`` and ``PixKey``.
Only the caller's own records are ever read; another account's is "not found".
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get
from litestar.openapi.spec import Example, OpenAPIType
from litestar.params import Parameter, QueryParameter

from pixcore.clock import Clock, format_timestamp
from pixcore.identifiers import E2EID_PATH_PATTERN
from pixcore.keys import KEY_PATTERN, MAX_KEY_LENGTH
from pixcore.money import cents_to_decimal, format_amount_string
from pixcore.queries.query_service import find_by_pix_key, get_transaction, list_by_pix_key, list_transactions
from pixcore.queries.rules import (
    DATE_PATTERN,
    DEFAULT_SIZE,
    MAX_EXTERNAL_ID,
    MAX_PAGE,
    ListField,
    ListKind,
    TransactionPage,
    TransactionQueries,
    TransactionView,
    display_status,
    display_type,
    movement_of,
    parse_list_query,
    parse_query_pix_key,
)
from pixcore.records import TransactionStatus, TransactionType
from pixweb.api.deps import Injected, principal_of
from pixweb.api.docs import answer
from pixweb.api.fields import MaybeTimestamp, MoneyText, Timestamp, doc, whole
from pixweb.errors import error_responses
from pixweb.field_paths import wire_paths
from pixweb.paths import segment_text

__all__ = ["TransactionController"]


def _integer(high: int, default: int) -> dict[str, Any]:
    """The documented schema of a number that arrives as text: ``pixcore.queries.rules`` parses it, so
    that its 400 lists every broken rule; the document states the integer it must be."""
    return {"one_of": None, "type": OpenAPIType.INTEGER, "minimum": 1, "maximum": high, "default": default}


Page = Annotated[
    str | None,
    QueryParameter(
        name="page",
        description="Page number, from 1. Default 1.",
        schema_extra=_integer(MAX_PAGE, 1),
        examples=[Example(value=1)],
    ),
]
LIST_PATHS = wire_paths(
    {
        ListField.PAGE: "page",
        ListField.SIZE: "size",
        ListField.STATUS: "status",
        ListField.TYPE: "type",
        ListField.START: "startDate",
        ListField.END: "endDate",
        ListField.EXTERNAL_ID: "externalId",
        ListField.END_TO_END_ID: "endToEndId",
        ListField.KEY: "pixKey",
    }
)
"""The query string's names of a transaction list's parameters (the deliveries' ``startDate`` and
``endDate`` too) and the path's ``{pixKey}``."""

StatusFilter = Annotated[
    str | None,
    QueryParameter(
        name="status",
        description="PENDING, CONFIRMED or ERROR (raw values).",
        schema_extra={"enum": [status.value for status in TransactionStatus]},
        examples=[Example(value="CONFIRMED")],
    ),
]
TypeFilter = Annotated[
    str | None,
    QueryParameter(
        name="type",
        description="PAYMENT, WITHDRAW, REFUND_IN or REFUND_OUT (raw values).",
        schema_extra={"enum": [kind.value for kind in TransactionType]},
        examples=[Example(value="PAYMENT")],
    ),
]
_DATE = {"pattern": whole(DATE_PATTERN)}
EndDate = Annotated[
    str | None,
    QueryParameter(
        name="endDate",
        description="ISO 8601 date or date and time (UTC if naive), inclusive; a date alone means its"
        " whole day. Default: now. At most 31 days after startDate.",
        schema_extra=_DATE,
        examples=[Example(value="2026-03-15")],
    ),
]
PixKeyPath = Annotated[
    str,
    Parameter(
        description="A PIX key: the account's receiving key or a counterpart's.",
        schema_extra={"pattern": whole(KEY_PATTERN), "max_length": MAX_KEY_LENGTH},
        examples=[Example(value="maria.silva@example.com")],
    ),
]
_COUNTERPART = {
    "name": "Maria Silva",
    "document": "***.482.247-**",
    "bank": {
        "bankISPB": "98765432",
        "bankName": "SANDBOX BANK",
        "bankCode": None,
        "accountBranch": "0001",
        "accountNumber": "123456",
    },
}
_TRANSACTION = {
    "transactionId": "1042",
    "externalId": None,
    "status": "Confirmada",
    "operationType": "Pix enviado",
    "movementType": "DEBIT",
    "originalAmount": 150.25,
    "feeAmount": 0,
    "finalAmount": 150.25,
    "endToEndId": "E12345678202603151432aB3dE5fG7hJ",
    "createdAt": "2026-03-15T14:32:08.125Z",
    "processedAt": "2026-03-15T14:32:11.480Z",
    "counterpart": _COUNTERPART,
}
_LIST = {
    "data": [_TRANSACTION],
    "metadata": {"page": 1, "size": 20, "total": 1, "totalPages": 1, "hasNext": False, "hasPrevious": False},
}
_STATUS_RECORD = {
    "id": "1042",
    "externalId": None,
    "type": "WITHDRAW",
    "status": "CONFIRMED",
    "originalAmount": "150.25",
    "feeAmount": "0.00",
    "finalAmount": "150.25",
    "e2eId": "E12345678202603151432aB3dE5fG7hJ",
    "counterpartName": "Maria Silva",
    "counterpartDocument": "***.482.247-**",
    "counterpartAccountBankCode": None,
    "counterpartAccountBranch": "0001",
    "counterpartAccountNumber": "123456",
    "counterpartAccountIspb": "98765432",
    "counterpartAccountBankName": "SANDBOX BANK",
    "createdAt": "2026-03-15T14:32:08.125Z",
    "updatedAt": "2026-03-15T14:32:11.480Z",
    "processedAt": "2026-03-15T14:32:11.480Z",
}


class BankOut(msgspec.Struct, rename={"bank_ispb": "bankISPB"}, gc=False):
    bank_ispb: Annotated[str | None, doc("The counterpart's institution (ISPB).")]
    bankName: Annotated[str | None, doc("Its name.")]  # noqa: N815 - the wire's names
    bankCode: Annotated[str | None, doc("Not recorded: always null (the ISPB names the institution).")]  # noqa: N815
    accountBranch: Annotated[str | None, doc("The counterpart's branch.")]  # noqa: N815
    accountNumber: Annotated[str | None, doc("The counterpart's account number.")]  # noqa: N815


class CounterpartOut(msgspec.Struct, gc=False):
    name: Annotated[str | None, doc("The counterpart's name.")]
    document: Annotated[str | None, doc("Its CPF or CNPJ, masked.")]
    bank: Annotated[BankOut, doc("Its institution and account.")]


# The list items are untracked by the garbage collector (gc=False): trees of strings, numbers
# and these structs, never part of a cycle. A 1,000-record page would otherwise add 3,000
# objects to every collection that runs while it is built.
class TransactionOut(msgspec.Struct, rename="camel", gc=False):
    transaction_id: Annotated[str, doc("The transaction id.")]
    external_id: Annotated[str | None, doc("The client's id (cash-in), if any.")]
    status: Annotated[str, doc("The status, for display (Pendente, Confirmada, Erro).")]
    operation_type: Annotated[str, doc("What it is, for display.")]
    movement_type: Annotated[str, doc("CREDIT or DEBIT.")]
    original_amount: Annotated[Decimal, doc("The amount, in reais.")]
    fee_amount: Annotated[Decimal, doc("The fee, in reais (0).")]
    final_amount: Annotated[Decimal, doc("What moved, in reais.")]
    end_to_end_id: Annotated[str | None, doc("The PIX's end-to-end id.")]
    created_at: Annotated[Timestamp, doc("When it was created (UTC, ISO 8601).")]
    processed_at: Annotated[MaybeTimestamp, doc("When it settled or failed.")]
    counterpart: Annotated[CounterpartOut, doc("Who is on the other side.")]


class MetadataOut(msgspec.Struct, rename="camel"):
    page: Annotated[int, doc("This page, from 1.")]
    size: Annotated[int, doc("Items per page.")]
    total: Annotated[int, doc("Matching records in all.")]
    total_pages: Annotated[int, doc("Pages in all.")]
    has_next: Annotated[bool, doc("Whether a next page exists.")]
    has_previous: Annotated[bool, doc("Whether a previous page exists.")]


class TransactionListOut(msgspec.Struct):
    data: Annotated[list[TransactionOut], doc("The page's records, newest first.")]
    metadata: Annotated[MetadataOut, doc("Where the page is.")]


class StatusRecordOut(msgspec.Struct, rename="camel"):
    id: Annotated[str, doc("The transaction id.")]
    external_id: Annotated[str | None, doc("The client's id (cash-in), if any.")]
    type: Annotated[str, doc("PAYMENT, WITHDRAW, REFUND_IN or REFUND_OUT.")]
    status: Annotated[str, doc("PENDING, CONFIRMED or ERROR.")]
    original_amount: Annotated[MoneyText, doc("The amount in reais, 2 decimals.")]
    fee_amount: Annotated[MoneyText, doc("The fee in reais, 2 decimals.")]
    final_amount: Annotated[MoneyText, doc("What moved in reais, 2 decimals.")]
    e2e_id: Annotated[str | None, doc("The PIX's end-to-end id.")]
    counterpart_name: Annotated[str | None, doc("The counterpart's name.")]
    counterpart_document: Annotated[str | None, doc("Its CPF or CNPJ, masked.")]
    counterpart_account_bank_code: Annotated[str | None, doc("Not recorded: always null.")]
    counterpart_account_branch: Annotated[str | None, doc("Its branch.")]
    counterpart_account_number: Annotated[str | None, doc("Its account number.")]
    counterpart_account_ispb: Annotated[str | None, doc("Its institution (ISPB).")]
    counterpart_account_bank_name: Annotated[str | None, doc("Its institution's name.")]
    created_at: Annotated[Timestamp, doc("When it was created (UTC, ISO 8601).")]
    updated_at: Annotated[Timestamp, doc("When it last changed.")]
    processed_at: Annotated[MaybeTimestamp, doc("When it settled or failed.")]


def _timestamp(moment: datetime) -> str:
    """``format_timestamp``, with a fast path for what the database returns (UTC): a large page
    formats thousands of these. Same text either way (a test compares them)."""
    if moment.tzinfo is UTC:
        return moment.isoformat(timespec="milliseconds")[:-6] + "Z"
    return format_timestamp(moment)


def _maybe_timestamp(moment: datetime | None) -> str | None:
    return _timestamp(moment) if moment is not None else None


def _amount_string(cents: int) -> str:
    # A credit's fee never exceeds its amount; should one, the sign is shown rather than a failure.
    return format_amount_string(cents) if cents >= 0 else "-" + format_amount_string(-cents)


# The display texts by raw value, looked up once here: a 1,000-record page asks 3,000 times.
_STATUS_TEXT = {status: display_status(status) for status in TransactionStatus}
_TYPE_TEXT = {kind: display_type(kind) for kind in TransactionType}
_MOVEMENT_TEXT = {kind: movement_of(kind).value for kind in TransactionType}


def transaction_out(view: TransactionView) -> TransactionOut:
    """A list item (and the pix-key look-up): display values, amounts as numbers, document masked."""
    return TransactionOut(
        transaction_id=str(view.id),
        external_id=view.external_id,
        status=_STATUS_TEXT[view.status],
        operation_type=_TYPE_TEXT[view.type],
        movement_type=_MOVEMENT_TEXT[view.type],
        original_amount=cents_to_decimal(view.amount),
        fee_amount=cents_to_decimal(view.fee),
        final_amount=cents_to_decimal(view.final_amount),
        end_to_end_id=view.end_to_end_id,
        created_at=_timestamp(view.created_at),
        processed_at=_maybe_timestamp(view.processed_at),
        counterpart=CounterpartOut(
            name=view.counterpart_name,
            document=view.masked_document,
            bank=BankOut(
                bank_ispb=view.counterpart_ispb,
                bankName=view.counterpart_bank,
                bankCode=None,  # not recorded: the ISPB identifies the institution
                accountBranch=view.counterpart_branch,
                accountNumber=view.counterpart_account,
            ),
        ),
    )


def list_out(page: TransactionPage) -> TransactionListOut:
    return TransactionListOut(
        data=[transaction_out(view) for view in page.items],
        metadata=MetadataOut(
            page=page.page,
            size=page.size,
            total=page.total,
            total_pages=page.total_pages,
            has_next=page.has_next,
            has_previous=page.has_previous,
        ),
    )


def status_record_out(view: TransactionView) -> StatusRecordOut:
    """The raw status record: raw type and status, amounts as strings, document masked."""
    return StatusRecordOut(
        id=str(view.id),
        external_id=view.external_id,
        type=view.type.value,
        status=view.status.value,
        original_amount=_amount_string(view.amount),
        fee_amount=_amount_string(view.fee),
        final_amount=_amount_string(view.final_amount),
        e2e_id=view.end_to_end_id,
        counterpart_name=view.counterpart_name,
        counterpart_document=view.masked_document,
        counterpart_account_bank_code=None,
        counterpart_account_branch=view.counterpart_branch,
        counterpart_account_number=view.counterpart_account,
        counterpart_account_ispb=view.counterpart_ispb,
        counterpart_account_bank_name=view.counterpart_bank,
        created_at=_timestamp(view.created_at),
        updated_at=_timestamp(view.updated_at),
        processed_at=_maybe_timestamp(view.processed_at),
    )


class TransactionController(Controller):
    tags = ["Transactions"]  # noqa: RUF012 - Litestar reads class attributes

    @get(
        "/api/transactions",
        operation_id="listTransactions",
        responses=answer(200, TransactionListOut, "A page of transactions", _LIST)
        | error_responses(400, 401),
        summary="List the account's transactions",
        description=(
            "Newest first, filtered by status, type, a date window (at most 31 days), externalId or"
            " endToEndId. Pages are stable while new transactions arrive when `endDate` is fixed."
            " 400 lists every broken rule of the query at once."
        ),
    )
    async def list_transactions(
        self,
        request: Request[Any, Any, Any],
        *,
        clock: Injected[Clock],
        queries: Injected[TransactionQueries],
        page: Page = None,
        size: Annotated[
            str | None,
            QueryParameter(
                name="size",
                description="1 to 100. Default 20.",
                schema_extra=_integer(ListKind.TRANSACTIONS.max_size, DEFAULT_SIZE),
                examples=[Example(value=20)],
            ),
        ] = None,
        status: StatusFilter = None,
        kind: TypeFilter = None,
        start_date: Annotated[
            str | None,
            QueryParameter(
                name="startDate",
                description="ISO 8601, inclusive. Default: endDate minus 31 days.",
                schema_extra=_DATE,
                examples=[Example(value="2026-03-01")],
            ),
        ] = None,
        end_date: EndDate = None,
        external_id: Annotated[
            str | None,
            QueryParameter(
                name="externalId",
                description="Only the record with this externalId.",
                schema_extra={"max_length": MAX_EXTERNAL_ID},  # documented; pixcore judges it
                examples=[Example(value="order-2024-117")],
            ),
        ] = None,
        end_to_end_id: Annotated[
            str | None,
            QueryParameter(
                name="endToEndId",
                description="Only records with this endToEndId (32 letters and digits).",
                schema_extra={"pattern": whole(E2EID_PATH_PATTERN)},
                examples=[Example(value="E12345678202603151432aB3dE5fG7hJ")],
            ),
        ] = None,
    ) -> TransactionListOut:
        """Newest first. Pages are stable while new transactions arrive when ``endDate`` is fixed."""
        query = parse_list_query(
            ListKind.TRANSACTIONS,
            now=clock.now(),
            page=page,
            size=size,
            status=status,
            type=kind,
            start_date=start_date,
            end_date=end_date,
            external_id=external_id,
            end_to_end_id=end_to_end_id,
        )
        found = await list_transactions(queries, account_id=principal_of(request).account_id, query=query)
        return list_out(found)

    @get(
        "/api/pix/transactions/pix-key/{pix_key:str}",
        operation_id="listTransactionsByPixKey",
        responses=answer(200, TransactionListOut, "A page of transactions", _LIST)
        | error_responses(400, 401, 404),
        summary="List the account's transactions of one PIX key",
        description=(
            "Records whose key is `pixKey` (the account's receiving key or the counterpart's), newest"
            " first; the newest 1000 matches at most. Same filters as `/api/transactions` (a window"
            " of at most 31 days)."
        ),
    )
    async def list_by_pix_key(
        self,
        request: Request[Any, Any, Any],
        pix_key: PixKeyPath,
        *,
        clock: Injected[Clock],
        queries: Injected[TransactionQueries],
        page: Page = None,
        size: Annotated[
            str | None,
            QueryParameter(
                name="size",
                description="1 to 1000. Default 20.",
                schema_extra=_integer(ListKind.PIX_KEY.max_size, DEFAULT_SIZE),
                examples=[Example(value=20)],
            ),
        ] = None,
        status: StatusFilter = None,
        kind: TypeFilter = None,
        start_date: Annotated[
            str | None,
            QueryParameter(
                name="startDate",
                description="ISO 8601, inclusive. Default: endDate minus 30 days.",
                schema_extra=_DATE,
                examples=[Example(value="2026-03-01")],
            ),
        ] = None,
        end_date: EndDate = None,
    ) -> TransactionListOut:
        """Records whose key is ``pixKey`` (the account's receiving key or the counterpart's),
        newest first; the newest 1000 matches at most."""
        key = parse_query_pix_key(segment_text(pix_key))
        query = parse_list_query(
            ListKind.PIX_KEY,
            now=clock.now(),
            page=page,
            size=size,
            status=status,
            type=kind,
            start_date=start_date,
            end_date=end_date,
        )
        found = await list_by_pix_key(
            queries, account_id=principal_of(request).account_id, pix_key=key, query=query
        )
        return list_out(found)

    @get(
        "/api/pix/transactions/pix-key/{pix_key:str}/{identifier:str}",
        operation_id="getTransactionByPixKey",
        responses=answer(200, TransactionOut, "The transaction", _TRANSACTION)
        | error_responses(400, 401, 404),
        summary="One transaction of a PIX key, by endToEndId, id or externalId",
        description=(
            "The record of this key whose endToEndId, id or externalId is `identifier`; 404 when"
            " none is (or it is another account's)."
        ),
    )
    async def get_by_pix_key(
        self,
        request: Request[Any, Any, Any],
        pix_key: PixKeyPath,
        identifier: Annotated[
            str,
            Parameter(
                description="An endToEndId, a transaction id or an externalId.",
                schema_extra={"max_length": MAX_EXTERNAL_ID},  # documented; pixcore judges it
                examples=[Example(value="E12345678202603151432aB3dE5fG7hJ")],
            ),
        ],
        *,
        queries: Injected[TransactionQueries],
    ) -> TransactionOut:
        found = await find_by_pix_key(
            queries,
            account_id=principal_of(request).account_id,
            pix_key=parse_query_pix_key(segment_text(pix_key)),
            identifier=identifier,
        )
        return transaction_out(found)

    @get(
        "/api/pix/transaction/{id:str}",
        operation_id="getTransactionStatus",
        responses=answer(200, StatusRecordOut, "The status record", _STATUS_RECORD)
        | error_responses(400, 401, 404),
        summary="The status record of a transaction, by id or externalId",
        description=(
            "The raw record (type and status as stored, amounts as strings) of the transaction whose"
            " id or externalId is `id`; 404 when none is (or it is another account's)."
        ),
    )
    async def get_status(
        self,
        request: Request[Any, Any, Any],
        id: Annotated[  # noqa: A002
            str,
            Parameter(
                description="A transaction id or an externalId.",
                schema_extra={"max_length": MAX_EXTERNAL_ID},  # documented; pixcore judges it
                examples=[Example(value="1042")],
            ),
        ],
        *,
        queries: Injected[TransactionQueries],
    ) -> StatusRecordOut:
        found = await get_transaction(queries, account_id=principal_of(request).account_id, identifier=id)
        return status_record_out(found)
