"""PostgreSQL, as every process of the service uses it: one injected :class:`pool.Database` per
process, the embedded server when no URL is set (:mod:`database`, :mod:`embedded`,
:mod:`supervisor`), migrations (Piccolo, while migrating only), :mod:`availability`, and the SQL
the API and the notifier share (:mod:`webhook_sql`)."""
