"""PostgreSQL, as every process of the service uses it: one injected :class:`pool.Database` per
process, the embedded server when no URL is set (:mod:`database`, :mod:`embedded`,
:mod:`supervisor`), migrations (Piccolo, while migrating only) and :mod:`availability`. The SQL
itself (the adapters of the ports) is in :mod:`pixinfra.persistence`."""
