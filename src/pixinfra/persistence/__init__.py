"""The API's PostgreSQL adapters of the ports of :mod:`pixcore.ports`: the unit of work and its
repositories, the queries, certificate status and the ledger check; all SQL on asyncpg, through
the process's :class:`pixinfra.postgres.pool.Database`."""
