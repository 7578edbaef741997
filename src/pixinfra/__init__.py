"""pixinfra: what the API (``pixweb``) and the notifier (``pixnotify``) share, and nothing else.

- :mod:`pixinfra.settings`: the one typed settings object, read from ``PIX_*`` variables.
- :mod:`pixinfra.postgres`: the process's :class:`~pixinfra.postgres.pool.Database`, the
  embedded server and its supervisor, migrations, and which errors mean "database unavailable".
- :mod:`pixinfra.runtime`: bringing the migrated database up for a process.
- :mod:`pixinfra.logs`: structured log lines, configured in one place.
- :mod:`pixinfra.event_payloads`: the JSON of the notifications, as the outbox stores them and
  the notifier sends them.

It imports ``pixcore`` and libraries, never ``pixweb`` or ``pixnotify`` (import-linter checks).
"""
