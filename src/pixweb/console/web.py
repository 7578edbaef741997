"""What every console page shares: its session, its CSRF check, the sign-in requirement, and
how a page, a form's errors and a redirect are rendered.

The console is a client of the same use cases as the API; the only things it adds are the
browser's: a session cookie instead of a bearer token, and a CSRF token in every form.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, urlsplit

from litestar import Request, Response
from litestar.datastructures import Cookie
from litestar.exceptions import ValidationException
from litestar.response import Redirect, Template

from pixcore.accounts.accounts_service import get_account
from pixcore.accounts.sessions import LIFETIME, SessionState
from pixcore.accounts.sessions_service import ConsoleSessions
from pixcore.errors import PixError
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.allow import answer_options
from pixweb.api.deps import provided
from pixweb.console.domain_text import in_language
from pixweb.console.language import COOKIE as LANGUAGE_COOKIE
from pixweb.console.language import LANGUAGES, Language, choose, noop
from pixweb.console.session import COOKIE, PRE_COOKIE, ConsoleSession
from pixweb.errors import status_of
from pixweb.field_paths import on_the_wire
from pixweb.security.certificates import read_certificate_header

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "FormErrors",
    "account_of",
    "before_console_request",
    "console_exception",
    "console_refusal",
    "end_session",
    "error_page",
    "language_of",
    "missing_fields",
    "page",
    "presented_fingerprint",
    "redirect",
    "safe_next",
    "session_of",
    "set_language",
    "start_session",
]

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
)
SIGN_IN = "/console/sign-in"
LANGUAGE = "/console/language"
OPEN_PATHS = (SIGN_IN, LANGUAGE)
CHECK_FIELDS = noop("Some fields need correcting: see the message beside each.")
MAX_HERE = 500  # a longer address is not repeated in the page: the switch goes back to its path
LANGUAGE_LIFETIME = 365 * 24 * 3600  # the switch's choice is kept a year
CSRF_FIELD = "csrf"
CERT_HEADER = "x-ssl-client-cert"
_UNREADABLE = "unreadable"  # the fingerprint of a certificate header that does not parse: none matches


def _settings(request: Request[Any, Any, Any]) -> Settings:
    """The settings, for the hooks and renderers every page goes through (outside injection's reach)."""
    settings: Settings = provided(request, "settings")
    return settings


def session_of(request: Request[Any, Any, Any]) -> ConsoleSession:
    session: ConsoleSession = request.state.console_session
    return session


def language_of(request: Request[Any, Any, Any]) -> Language:
    """The request's language: the switch's cookie, else ``Accept-Language``, else Brazilian Portuguese."""
    chosen: Language | None = getattr(request.state, "console_language", None)
    if chosen is None:
        chosen = choose(request.cookies.get(LANGUAGE_COOKIE), request.headers.get("accept-language"))
        request.state.console_language = chosen
    return chosen


def account_of(request: Request[Any, Any, Any]) -> int:
    """The signed-in account (the hook sent everyone else to the sign-in page)."""
    account = session_of(request).account_id
    if account is None:
        raise TypeError("console page reached without a session")
    return account


def safe_next(target: str | None) -> str:
    """Where to go after sign-in: a console path of this site, never another site's."""
    if not target or not target.startswith("/console") or target.startswith("//"):
        return "/console"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or "\\" in target:
        return "/console"
    return target


def _cookie(request: Request[Any, Any, Any], key: str, value: str, lifetime: int) -> Cookie:
    """A console cookie: the console's paths only, out of scripts' reach, secure over https."""
    settings = _settings(request)
    secure = (
        request.url.scheme == "https" or settings.public_url.startswith("https://") or settings.production
    )
    return Cookie(
        key=key, value=value, path="/console", max_age=lifetime, httponly=True, samesite="lax", secure=secure
    )


def set_language(request: Request[Any, Any, Any], response: Response[Any], code: str) -> Response[Any]:
    """The switch's choice, kept by the browser: every page of the console in ``code`` from now on."""
    if code not in LANGUAGES:
        raise ValueError(code)
    response.set_cookie(_cookie(request, LANGUAGE_COOKIE, code, LANGUAGE_LIFETIME))
    return response


def _with_session(request: Request[Any, Any, Any], response: Response[Any]) -> Response[Any]:
    """The cookies a response gives: a new session's token (sign-in), its removal (sign-out), and
    before sign-in the CSRF token of the sign-in form. The session's own timing is on the server."""
    session = session_of(request)

    def cookie(key: str, value: str) -> Cookie:
        return _cookie(request, key, value, int(LIFETIME.total_seconds()))

    if session.issued is not None:
        response.set_cookie(cookie(COOKIE, session.issued))
        response.delete_cookie(key=PRE_COOKIE, path="/console")
    elif session.account_id is None:
        response.set_cookie(cookie(PRE_COOKIE, session.csrf))
    if session.signed_out:
        response.delete_cookie(key=COOKIE, path="/console")
    response.headers["Cache-Control"] = "no-store"
    return response


def presented_fingerprint(request: Request[Any, Any, Any]) -> str | None:
    """The fingerprint of the request's ``X-SSL-Client-Cert`` (None without one; a value no
    certificate has when it does not parse)."""
    header = request.headers.get(CERT_HEADER)
    if header is None:
        return None
    try:
        return read_certificate_header(header).fingerprint
    except PixError:
        return _UNREADABLE


async def start_session(request: Request[Any, Any, Any], sessions: ConsoleSessions, account_id: int) -> None:
    """Sign-in succeeded: a new session (never the browser's old one), bound in production mode to
    the certificate the sign-in presented."""
    token, session = await sessions.start(account_id, fingerprint=presented_fingerprint(request))
    request.state.console_session = ConsoleSession(csrf=session.csrf, account_id=account_id, issued=token)


async def end_session(request: Request[Any, Any, Any], sessions: ConsoleSessions) -> None:
    """Sign-out: the browser's session ends on the server, and its cookie goes."""
    await sessions.end(request.cookies.get(COOKIE))
    request.state.console_session = ConsoleSession(csrf=ConsoleSession.anonymous().csrf, signed_out=True)


def _here(request: Request[Any, Any, Any], status_code: int) -> str:
    """Where the language switch comes back to: this page, if it is one to open again (a GET that
    found what it asked for); the overview otherwise (a refused form, a record not found: a page
    repeats no path or query it refused)."""
    if request.method != "GET" or status_code >= 300:
        return "/console"
    query = request.url.query
    here = request.url.path + (f"?{query}" if query else "")
    return here if len(here) <= MAX_HERE else request.url.path


def _in_language(value: Any, lang: Language) -> Any:
    """A form's errors (or a page's forms' errors) in the page's language; anything else as is."""
    if isinstance(value, FormErrors):
        return value.translated(lang)
    if isinstance(value, dict) and any(isinstance(item, FormErrors) for item in value.values()):
        return {name: _in_language(item, lang) for name, item in value.items()}
    return value


def page(
    request: Request[Any, Any, Any], template: str, *, status_code: int = 200, **context: Any
) -> Response[Any]:
    """``template`` in the request's language (``lang``; errors of forms translated as far as the
    catalogs know the domain's words)."""
    session = session_of(request)
    lang = language_of(request)
    base = {
        "csrf": session.csrf,
        "account_id": session.account_id,
        "holder": session.holder,
        "sandbox": _settings(request).sandbox,
        "path": request.url.path,
        "here": _here(request, status_code),
        "lang": lang,
        "languages": LANGUAGES,
    }
    shown = {name: _in_language(value, lang) for name, value in context.items()}
    return _with_session(
        request, Template(template, context=base | shown, status_code=status_code, media_type="text/html")
    )


def error_page(request: Request[Any, Any, Any], status_code: int, title: str, message: str) -> Response[Any]:
    """A page that says only what went wrong (``title`` and ``message`` in the page's language)."""
    return page(request, "error.html", status_code=status_code, title=title, message=message)


def redirect(request: Request[Any, Any, Any], url: str) -> Response[Any]:
    return _with_session(request, Redirect(path=url, status_code=303))


class FormErrors:
    """A use case's error as a form shows it: each detail beside the field it names, the rest on top.

    ``fields`` maps a form field to the names its details start with (the API's names,
    as ``payment.amount`` or ``valor.original``)."""

    def __init__(
        self,
        error: PixError | None = None,
        fields: Mapping[str, Iterable[str]] | None = None,
        kinds: Mapping[type[PixError], str] | None = None,
    ) -> None:
        """``kinds``: the field an error without details belongs to, by its class (``InvalidPixKey``)."""
        fields = fields or {}
        message, details = on_the_wire(error) if error is not None else (None, [])
        self.message = message
        self.missing: set[str] = set()
        """The required fields left empty: the form says so beside each (``macros.html``)."""
        self.by_field: dict[str, list[str]] = {}
        self.other: list[str] = []
        if error is not None and message is not None and not details:
            field = next((f for kind, f in (kinds or {}).items() if isinstance(error, kind)), None)
            if field is not None:
                self.by_field[field] = [message]
        for detail in details:
            name = next(
                (
                    field
                    for field, prefixes in fields.items()
                    if any(detail.startswith(prefix) for prefix in prefixes)
                ),
                None,
            )
            (self.by_field.setdefault(name, []) if name else self.other).append(detail)

    def __bool__(self) -> bool:
        return self.message is not None or bool(self.missing)

    def translated(self, lang: Language) -> FormErrors:
        """The same errors in ``lang``, as far as the catalogs know the domain's words."""
        copy = FormErrors()
        copy.missing = set(self.missing)
        copy.message = in_language(self.message, lang) if self.message is not None else None
        copy.by_field = {
            field: [in_language(text, lang) for text in texts] for field, texts in self.by_field.items()
        }
        copy.other = [in_language(text, lang) for text in self.other]
        return copy

    def replacing(self, field: str, message: str | None) -> FormErrors:
        """``message`` (the console's own, a catalog text) beside ``field`` instead of the rules'
        words, the message on top pointing at the fields; unchanged when ``message`` is None."""
        if message is not None:
            self.by_field[field] = [message]
            self.message = CHECK_FIELDS
        return self

    def of(self, field: str) -> list[str]:
        return self.by_field.get(field, [])


def missing_fields(typed: Mapping[str, str], required: Iterable[str]) -> FormErrors:
    """The required fields of a form that came empty (the browser checks first, but a form may
    come without its check): falsy when none is, and then the use case judges the rest."""
    errors = FormErrors()
    errors.missing = {name for name in required if not typed.get(name)}
    return errors


async def _read_session(request: Request[Any, Any, Any]) -> ConsoleSession:
    """The browser's session if it opens the console; otherwise signed out, with the CSRF token of
    its pre-sign-in cookie."""
    production = _settings(request).production
    sessions: ConsoleSessions = provided(request, "console_sessions")
    opened = await sessions.open(
        request.cookies.get(COOKIE),
        presented=presented_fingerprint(request) if production else None,
        bound=production,
    )
    if opened.state is SessionState.LIVE and opened.session is not None:
        uow: UnitOfWorkFactory = provided(request, "uow")
        account = await get_account(uow, opened.session.account_id)
        return ConsoleSession(csrf=opened.session.csrf, account_id=account.id, holder=account.name)
    expired = opened.state is not None and opened.state.expired
    return ConsoleSession.anonymous(request.cookies.get(PRE_COOKIE), expired=expired)


async def before_console_request(request: Request[Any, Any, Any]) -> Response[Any] | None:
    """Read the session, send the signed-out to sign in, refuse a form without its CSRF token.

    A router's ``before_request`` replaces the app's, so ``OPTIONS`` is answered here as there."""
    if (options := await answer_options(request)) is not None:
        return options
    session = await _read_session(request)
    request.state.console_session = session
    if session.account_id is None and request.url.path not in OPEN_PATHS:
        wanted = request.url.path if request.method == "GET" else "/console"
        if request.method == "GET" and request.url.query:
            wanted += "?" + request.url.query
        return redirect(request, f"{SIGN_IN}?next={quote(wanted, safe='')}")
    if request.method == "POST":
        form = await request.form()
        sent = form.get(CSRF_FIELD)
        if not isinstance(sent, str) or not hmac.compare_digest(sent.encode(), session.csrf.encode()):
            lang = language_of(request)
            return error_page(
                request,
                403,
                lang.gettext("Form expired"),
                lang.gettext(
                    "This form is out of date or was not sent by this console: open the page again."
                ),
            )
    return None


def console_refusal(request: Request[Any, Any, Any], _exc: ValidationException) -> Response[Any]:
    """A request the edge refused before any page saw it (a NUL byte, bytes that are not UTF-8:
    ``pixweb.edge``) as a console page, never the API's JSON. The browser's Back keeps what was typed."""
    if not hasattr(request.state, "console_session"):
        request.state.console_session = ConsoleSession.anonymous()
    lang = language_of(request)
    message = lang.gettext(
        "The form holds text the service cannot store (a NUL byte, or bytes that are not UTF-8):"
        " go back, correct it and send it again."
    )
    return error_page(request, 400, lang.gettext("Cannot read this form"), message)


def console_exception(request: Request[Any, Any, Any], exc: PixError) -> Response[Any]:
    """A use case's error outside a form (a charge of another account: 404) as a console page."""
    if not hasattr(request.state, "console_session"):
        request.state.console_session = ConsoleSession.anonymous()
    lang = language_of(request)
    title = lang.gettext("Not found") if status_of(exc) == 404 else lang.gettext("Cannot do that")
    return error_page(request, status_of(exc), title, in_language(on_the_wire(exc)[0], lang))
