"""The network's PostgreSQL store: its own database, its own schema (``pixnet.store.schema``)."""
