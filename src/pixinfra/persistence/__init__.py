"""The PostgreSQL adapters of ``pixcore``'s ports (``pixcore.unit_of_work`` and each feature's
``ports``), for the API and the notifier alike: the unit of work and its repositories, the queries,
certificate status, the ledger check
and the notifier's ``DeliveryStore`` (:mod:`deliveries`); all SQL on asyncpg, through the process's
:class:`pixinfra.postgres.pool.Database`. No HTTP or web module (an import-linter contract); a
statement's text is a literal or :func:`sql.compose` of fixed parts, every value a parameter."""
