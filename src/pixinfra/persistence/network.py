"""PostgreSQL repository of the service as a network participant: the payments received through
the SPI (``network_receipts``) and the cursor of the network's messages (``network_cursor``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pixcore.accounts.rules import Counterpart
from pixcore.network.rules import IncomingPayment, MedLink, NetworkReceipt, ReceiptState
from pixinfra.persistence.repository import Repository
from pixinfra.persistence.sql import compose

__all__ = ["PostgresNetwork"]

_COLUMNS = """end_to_end_id, account_id, amount, payer_name, payer_document, payer_ispb, payer_bank,
    payer_branch, payer_account, branch, account_number, tax_id, pix_key, description, state, transaction_id,
    accepted_at, finished_at"""


def _receipt(row: Any) -> NetworkReceipt:
    payer = Counterpart(
        row["payer_name"],
        row["payer_document"],
        row["payer_ispb"],
        row["payer_bank"] or "",
        row["payer_branch"] or "",
        row["payer_account"] or "",
    )
    payment = IncomingPayment(
        end_to_end_id=row["end_to_end_id"],
        amount=row["amount"],
        payer=payer,
        branch=row["branch"],
        account_number=row["account_number"],
        tax_id=row["tax_id"],
        key=row["pix_key"],
        description=row["description"],
    )
    return NetworkReceipt(
        payment=payment,
        account_id=row["account_id"],
        state=ReceiptState(row["state"]),
        accepted_at=row["accepted_at"],
        transaction_id=row["transaction_id"],
        finished_at=row["finished_at"],
    )


class PostgresNetwork(Repository):
    async def accept(self, receipt: NetworkReceipt) -> bool:
        payment, payer = receipt.payment, receipt.payment.payer
        inserted = await self._conn.fetchval(
            """
            INSERT INTO network_receipts (end_to_end_id, account_id, amount, payer_name, payer_document,
                payer_ispb, payer_bank, payer_branch, payer_account, branch, account_number, tax_id,
                pix_key, description, state, accepted_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
            ON CONFLICT (end_to_end_id) DO NOTHING
            RETURNING true
            """,
            payment.end_to_end_id,
            receipt.account_id,
            payment.amount,
            payer.name,
            payer.document,
            payer.ispb,
            payer.bank_name or None,
            payer.branch or None,
            payer.account_number or None,
            payment.branch,
            payment.account_number,
            payment.tax_id,
            payment.key,
            payment.description,
            receipt.state.value,
            receipt.accepted_at,
        )
        return bool(inserted)

    async def receipt(self, end_to_end_id: str) -> NetworkReceipt | None:
        row = await self._conn.fetchrow(
            compose("SELECT ", _COLUMNS, " FROM network_receipts WHERE end_to_end_id = $1"), end_to_end_id
        )
        return None if row is None else _receipt(row)

    async def lock_accepted(self, end_to_end_id: str) -> NetworkReceipt | None:
        row = await self._conn.fetchrow(
            compose(
                "SELECT ",
                _COLUMNS,
                " FROM network_receipts WHERE end_to_end_id = $1 AND state = 'ACCEPTED' FOR UPDATE",
            ),
            end_to_end_id,
        )
        return None if row is None else _receipt(row)

    async def finish(
        self, end_to_end_id: str, state: ReceiptState, transaction_id: int | None, at: datetime
    ) -> None:
        await self._conn.execute(
            "UPDATE network_receipts SET state = $2, transaction_id = $3, finished_at = $4"
            " WHERE end_to_end_id = $1",
            end_to_end_id,
            state.value,
            transaction_id,
            at,
        )

    async def return_received(self, return_id: str) -> bool:
        found: bool = await self._conn.fetchval(
            "SELECT EXISTS (SELECT FROM refunds WHERE rtr_id = $1 AND kind = 'received')", return_id
        )
        return found

    async def transfer_account(self, end_to_end_id: str) -> int | None:
        found: int | None = await self._conn.fetchval(
            "SELECT account_id FROM transfers WHERE end_to_end_id = $1", end_to_end_id
        )
        return found

    async def counterpart_of(self, transaction_id: int) -> Counterpart | None:
        row = await self._conn.fetchrow(
            """
            SELECT counterpart_name, counterpart_document, counterpart_ispb, counterpart_bank,
                   counterpart_branch, counterpart_account
              FROM transactions WHERE id = $1
            """,
            transaction_id,
        )
        if row is None or row["counterpart_name"] is None:
            return None
        return Counterpart(
            row["counterpart_name"],
            row["counterpart_document"],
            row["counterpart_ispb"],
            row["counterpart_bank"] or "",
            row["counterpart_branch"] or "",
            row["counterpart_account"] or "",
        )

    async def cursor(self) -> int:
        found = await self._conn.fetchval("SELECT after FROM network_cursor WHERE id = 1")
        return int(found or 0)

    async def advance(self, cursor: int) -> None:
        await self._conn.execute(
            "INSERT INTO network_cursor (id, after) VALUES (1, $1)"
            " ON CONFLICT (id) DO UPDATE SET after = greatest(network_cursor.after, EXCLUDED.after)",
            cursor,
        )

    async def link_med(self, link: MedLink) -> None:
        await self._conn.execute(
            "INSERT INTO network_med (refund_id, case_id, account_id, end_to_end_id, report_id)"
            " VALUES ($1::uuid, $2, $3, $4, $5::uuid)",
            link.refund_id,
            link.case_id,
            link.account_id,
            link.end_to_end_id,
            link.report_id,
        )

    async def med_link(self, refund_id: str) -> MedLink | None:
        row = await self._conn.fetchrow(
            "SELECT refund_id::text, case_id, account_id, end_to_end_id, report_id::text"
            " FROM network_med WHERE refund_id = $1::uuid",
            refund_id,
        )
        return None if row is None else MedLink(*row.values())

    async def med_links(self) -> list[MedLink]:
        rows = await self._conn.fetch(
            "SELECT refund_id::text, case_id, account_id, end_to_end_id, report_id::text"
            " FROM network_med WHERE closed_at IS NULL ORDER BY case_id"
        )
        return [MedLink(*row.values()) for row in rows]

    async def close_med(self, refund_id: str, at: datetime) -> None:
        await self._conn.execute(
            "UPDATE network_med SET closed_at = $2 WHERE refund_id = $1::uuid AND closed_at IS NULL",
            refund_id,
            at,
        )
