"""The header's language switch: ``POST /console/language`` keeps the chosen language in a
cookie (over ``Accept-Language``) and goes back to the page it was sent from. Like every form,
it carries the console's CSRF token; signed out too (the sign-in page has the switch)."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, post

from pixweb.console.language import LANGUAGES
from pixweb.console.web import error_page, language_of, redirect, safe_next, set_language

__all__ = ["switch_language"]


@post("/language", name="console:language", include_in_schema=False, status_code=200)
async def switch_language(request: Request[Any, Any, Any]) -> Response[Any]:
    form = await request.form()
    code, back = form.get("lang"), form.get("next")
    if not isinstance(code, str) or code not in LANGUAGES:
        lang = language_of(request)
        title, message = (
            lang.gettext("Unknown language"),
            lang.gettext("The console speaks Portuguese (pt_BR) and English (en)."),
        )
        return error_page(request, 400, title, message)
    return set_language(request, redirect(request, safe_next(back if isinstance(back, str) else None)), code)
