"""The operator's list of accounts (``pixweb admin account list``): one query, oldest first."""

from __future__ import annotations

from typing import Any

import asyncpg

from pixcore.clock import format_timestamp

__all__ = ["list_accounts"]

_ACCOUNTS = """
SELECT a.id, a.name, a.document, a.ispb, a.branch, a.number, a.street, a.city, a.state,
       a.postal_code, a.created_at,
       coalesce((SELECT array_agg(k.key_value ORDER BY k.id) FROM pix_keys k WHERE k.account_id = a.id),
                '{}') AS keys,
       coalesce((SELECT array_agg(c.client_id ORDER BY c.created_at, c.client_id)
                   FROM client_credentials c WHERE c.account_id = a.id), '{}') AS client_ids
  FROM accounts a
 ORDER BY a.id
"""


async def list_accounts(
    conn: asyncpg.Connection[Any] | asyncpg.pool.PoolConnectionProxy[Any],
) -> list[dict[str, Any]]:
    """Every account with its holder's address, keys and client ids (never a secret)."""
    rows = await conn.fetch(_ACCOUNTS)
    return [
        {
            "accountId": row["id"],
            "name": row["name"],
            "document": row["document"],
            "ispb": row["ispb"],
            "branch": row["branch"],
            "number": row["number"],
            "city": row["city"],
            "address": {
                "street": row["street"],
                "city": row["city"],
                "state": row["state"],
                "postalCode": row["postal_code"],
            },
            "keys": list(row["keys"]),
            "clientIds": list(row["client_ids"]),
            "createdAt": format_timestamp(row["created_at"]),
        }
        for row in rows
    ]
