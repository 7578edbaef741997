"""pixservice: where the processes are composed, and nothing else.

The packages depend one way (``docs/architecture.md``; import-linter checks it in ``make test``)::

    pixservice  ->  pixweb, pixnotify  ->  pixinfra  ->  pixcore

``pixweb`` (the API) and ``pixnotify`` (webhook delivery) do not import each other. The ``pixweb``
command is composed here: its ``serve`` runs the API with ``pixnotify``'s delivery loop inside it.
``pixnotify`` needs no composing: its command is its own (``pixnotify.cli``).
"""

from __future__ import annotations
