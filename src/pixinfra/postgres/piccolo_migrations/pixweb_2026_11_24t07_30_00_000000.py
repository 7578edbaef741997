"""Indexes of the standard Pix API's lists: ``GET /cob``, ``GET /pix`` and a charge's payment.

* ``charges_account_created_idx``: ``GET /cob`` reads one account's charges created in a window
  (``inicio`` to ``fim``), oldest first: one range of (account, ``created_at``, id); the optional
  filters (debtor, status) are checked on the rows of that range only.
* ``transactions_received_idx``: ``GET /pix`` reads one account's received PIX (CONFIRMED PAYMENT
  records) by ``processed_at``, the moment the money arrived: a partial index of those records.
* ``charges_transaction_idx``: the charge a receipt paid (its ``txid``, the ``txid`` filter and
  ``txIdPresente``) found by the receipt's record, instead of reading every charge.
"""

from __future__ import annotations

from piccolo.apps.migrations.auto.migration_manager import MigrationManager

from pixinfra.postgres.sql_migration import sql_migration

ID = "2026-11-24T07:30:00:000000"
VERSION = "1.38.0"
DESCRIPTION = "indexes of GET /cob, GET /pix and of the charge a receipt paid"

SQL = """
CREATE INDEX charges_account_created_idx ON charges (account_id, created_at, id);
CREATE INDEX transactions_received_idx ON transactions (account_id, processed_at, id)
    WHERE type = 'PAYMENT' AND status = 'CONFIRMED';
CREATE INDEX charges_transaction_idx ON charges (transaction_id) WHERE transaction_id IS NOT NULL;
"""


async def forwards() -> MigrationManager:
    return sql_migration(ID, DESCRIPTION, SQL)
