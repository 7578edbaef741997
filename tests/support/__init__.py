"""Helpers the tests share, by purpose: ``clients`` (accounts, certificates, tokens), ``databases``
(looking behind the API, databases of a test's own), ``processes`` (``pixweb`` processes).

Nothing here holds a database: a helper that needs one is handed it (or a unit-of-work factory on
it, the ``pg_uow`` fixture of ``tests/conftest.py``).
"""

from tests.support.clients import (
    HASHER,
    Client,
    add_external_key,
    bearer,
    certificate_header,
    fund,
    new_client,
    random_cnpj,
    random_cpf,
)
from tests.support.databases import (
    PostgresUnits,
    fetch_rows,
    ledger_report,
    opened_database,
    scratch_database,
)
from tests.support.processes import (
    free_port,
    migrated_by_command,
    process_env,
    serving,
    stop_popen,
    stop_process,
)

__all__ = [
    "HASHER",
    "Client",
    "PostgresUnits",
    "add_external_key",
    "bearer",
    "certificate_header",
    "fetch_rows",
    "free_port",
    "fund",
    "ledger_report",
    "migrated_by_command",
    "new_client",
    "opened_database",
    "process_env",
    "random_cnpj",
    "random_cpf",
    "scratch_database",
    "serving",
    "stop_popen",
    "stop_process",
]
