"""The web console (docs/decisions/console.md): server-rendered pages on the same use cases as the API.

``routes`` mounts it (``create_app``, when ``PIX_CONSOLE`` is on); ``session`` is its cookie,
``web`` what every page shares (the session, CSRF, sign-in requirement, rendering). This module
imports none of them: ``pixweb.services`` imports ``session`` while ``routes`` imports the services.
"""
