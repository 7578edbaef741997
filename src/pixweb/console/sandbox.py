"""The sandbox's page: add an outside key to the directory with its behaviour (``/sandbox/dict``),
open, accept and reject a MED (``/sandbox/med``), and the shared clock, whose form only a
``--sandbox-admin`` account sees (``/sandbox/clock``; a forged post from another is 403 there
as here). The same rules as ``pixweb.sandbox.routes`` and ``pixweb.sandbox.returns``."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.params import FromPath

from pixcore.accounts.accounts_service import require_sandbox_admin
from pixcore.clock import Clock
from pixcore.errors import (
    InvalidClockMove,
    InvalidIdentifier,
    NotFound,
    NotSandboxAdmin,
    OwnInstitution,
    PixError,
    ValidationError,
)
from pixcore.identifiers import validate_e2eid_path
from pixcore.ledger import require_outside
from pixcore.refunds.med import MedReason
from pixcore.refunds.med_service import accept_med, open_med, reject_med
from pixcore.transfers.rules import BEHAVIORS, DirectoryEntry
from pixcore.unit_of_work import UnitOfWorkFactory
from pixinfra.settings import Settings
from pixweb.api.deps import Injected
from pixweb.console.language import noop
from pixweb.console.money_forms import whole_number
from pixweb.console.statuses import status_for
from pixweb.console.web import FormErrors, account_of, language_of, missing_fields, page
from pixweb.errors import status_of
from pixweb.field_paths import on_the_wire
from pixweb.refunds.refunds import refund_out
from pixweb.sandbox.clock import ClockKeeper
from pixweb.sandbox.directory import SandboxDirectory
from pixweb.sandbox.returns import med_out

__all__ = ["add_key", "advance_clock", "decide_med", "new_med", "sandbox"]

DICT_FIELDS = {
    "pix_key": ("pixKey",),
    "ispb": ("ispb", "ISPB"),
    "name": ("name",),
    "document": ("document",),
    "bank_name": ("bankName",),
    "branch": ("branch",),
    "account_number": ("accountNumber",),
    "behavior": ("behavior",),
}
MED_FIELDS = {"end_to_end_id": ("e2eid",), "reason": ("reason",)}
CLOCK_FIELDS = {"advance_seconds": ("advanceSeconds",)}
CLOCK_KINDS: dict[type[PixError], str] = {InvalidClockMove: "advance_seconds"}
DICT_REQUIRED = ("pix_key", "name", "document", "ispb")
DICT_DEFAULTS = {
    "pix_key": "",
    "ispb": "12345678",
    "name": "Outside Receiver",
    "document": "11144477735",
    "bank_name": "SANDBOX BANK",
    "branch": "0001",
    "account_number": "1",
    "behavior": "settle",
}
FORMS = ("dict", "med", "clock")
BEHAVIOR_WORDS = {"settle": noop("settle"), "reject": noop("reject")}
"""How a directory key's institution answers, as the page says it (the API's values)."""


def _text(form: Any, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""


def _require_sandbox(settings: Settings) -> None:
    if not settings.sandbox:
        raise NotFound("The sandbox is off in this service.")


async def _is_admin(request: Request[Any, Any, Any], uow: UnitOfWorkFactory) -> bool:
    try:
        await require_sandbox_admin(uow, account_of(request))
    except NotSandboxAdmin:
        return False
    return True


async def _sandbox_page(
    request: Request[Any, Any, Any],
    uow: UnitOfWorkFactory,
    clock: Clock,
    *,
    status_code: int = 200,
    typed: dict[str, dict[str, str]] | None = None,
    errors: dict[str, FormErrors] | None = None,
    notice: str | None = None,
    case: Any = None,
) -> Response[Any]:
    given = typed or {}
    return page(
        request,
        "sandbox.html",
        status_code=status_code,
        title=language_of(request).gettext("Sandbox"),
        typed={
            "dict": given.get("dict", DICT_DEFAULTS),
            "med": given.get("med", {"end_to_end_id": "", "reason": MedReason.MED_FRAUDE.value}),
            "clock": given.get("clock", {"advance_seconds": ""}),
        },
        errors={name: (errors or {}).get(name, FormErrors()) for name in FORMS},
        behaviors=BEHAVIORS,
        behavior_words=BEHAVIOR_WORDS,
        reasons=[reason.value for reason in MedReason],
        notice=notice,
        case=case,
        admin=await _is_admin(request, uow),
        now=clock.now(),
    )


@get("/sandbox", name="console:sandbox", include_in_schema=False)
async def sandbox(
    request: Request[Any, Any, Any],
    *,
    settings: Injected[Settings],
    uow: Injected[UnitOfWorkFactory],
    clock: Injected[Clock],
) -> Response[Any]:
    _require_sandbox(settings)
    return await _sandbox_page(request, uow, clock)


@post("/sandbox/dict", name="console:sandbox-dict", include_in_schema=False, status_code=200)
async def add_key(
    request: Request[Any, Any, Any],
    *,
    uow: Injected[UnitOfWorkFactory],
    clock: Injected[Clock],
    sandbox_directory: Injected[SandboxDirectory],
    settings: Injected[Settings],
) -> Response[Any]:
    """``POST /sandbox/dict``: an outside key, and how its institution answers a transfer."""
    _require_sandbox(settings)
    form = await request.form()
    typed = {name: _text(form, name) for name in DICT_FIELDS}
    if missing := missing_fields(typed, DICT_REQUIRED):
        return await _sandbox_page(
            request, uow, clock, status_code=400, typed={"dict": typed}, errors={"dict": missing}
        )
    try:
        entry = DirectoryEntry.parse(
            pix_key=typed["pix_key"],
            ispb=typed["ispb"],
            name=typed["name"],
            document=typed["document"],
            bank_name=typed["bank_name"],
            branch=typed["branch"],
            account_number=typed["account_number"],
            behavior=typed["behavior"],
        )
        require_outside(entry.ispb, settings.ispb)
        await sandbox_directory.add(entry)
    except PixError as exc:
        errors = FormErrors(exc, DICT_FIELDS, {OwnInstitution: "ispb"})
        return await _sandbox_page(
            request, uow, clock, status_code=status_of(exc), typed={"dict": typed}, errors={"dict": errors}
        )
    lang = language_of(request)
    notice = lang.gettext(
        "The key %(key)s is in the directory: transfers to it %(behavior)s.",
        key=entry.key.value,
        behavior=lang.gettext(BEHAVIOR_WORDS[entry.behavior]),
    )
    return await _sandbox_page(request, uow, clock, notice=notice)


def _med_errors(exc: PixError) -> FormErrors:
    errors = FormErrors(exc, MED_FIELDS)
    if not exc.details and isinstance(exc, InvalidIdentifier | NotFound):
        errors.by_field["end_to_end_id"] = [on_the_wire(exc)[0]]  # as users read it
    return errors


@post("/sandbox/med", name="console:sandbox-med", include_in_schema=False, status_code=200)
async def new_med(
    request: Request[Any, Any, Any],
    *,
    settings: Injected[Settings],
    clock: Injected[Clock],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """``POST /sandbox/med``: a MED case against one of the account's receipts."""
    _require_sandbox(settings)
    form = await request.form()
    typed = {"end_to_end_id": _text(form, "end_to_end_id"), "reason": _text(form, "reason")}
    if missing := missing_fields(typed, ("end_to_end_id",)):
        return await _sandbox_page(
            request, uow, clock, status_code=400, typed={"med": typed}, errors={"med": missing}
        )
    try:
        case = await open_med(
            uow,
            clock,
            account_id=account_of(request),
            end_to_end_id=validate_e2eid_path(typed["end_to_end_id"]),
            reason=MedReason.parse(typed["reason"]),
        )
    except PixError as exc:
        return await _sandbox_page(
            request,
            uow,
            clock,
            status_code=status_of(exc),
            typed={"med": typed},
            errors={"med": _med_errors(exc)},
        )
    return await _sandbox_page(
        request,
        uow,
        clock,
        status_code=201,
        case=med_out(case),
        notice=language_of(request).gettext("MED case %(id)s opened.", id=case.id),
    )


@post(
    "/sandbox/med/{case_id:int}/{decision:str}",
    name="console:sandbox-med-decide",
    include_in_schema=False,
    status_code=200,
)
async def decide_med(
    request: Request[Any, Any, Any],
    case_id: FromPath[int],
    decision: FromPath[str],
    *,
    clock: Injected[Clock],
    settings: Injected[Settings],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """Accept (the blocked amount goes back to the payer as a refund) or reject a MED case."""
    _require_sandbox(settings)
    account_id = account_of(request)
    if decision == "accept":
        outcome = await accept_med(uow, clock, account_id=account_id, case_id=case_id, ispb=settings.ispb)
    elif decision == "reject":
        outcome = await reject_med(uow, clock, account_id=account_id, case_id=case_id)
    else:
        raise NotFound("No such decision: accept or reject.")
    shown = med_out(outcome.case, refund_out(outcome.refund) if outcome.refund else None)
    lang = language_of(request)
    word = lang.gettext(status_for("med", shown.status).label)
    notice = lang.gettext("MED case %(id)s: %(status)s.", id=case_id, status=word)
    return await _sandbox_page(request, uow, clock, case=shown, notice=notice)


@post("/sandbox/clock", name="console:sandbox-clock", include_in_schema=False, status_code=200)
async def advance_clock(
    request: Request[Any, Any, Any],
    *,
    settings: Injected[Settings],
    clock: Injected[Clock],
    keeper: Injected[ClockKeeper],
    uow: Injected[UnitOfWorkFactory],
) -> Response[Any]:
    """``POST /sandbox/clock``: a sandbox administrator's only (403 for others, as the API)."""
    _require_sandbox(settings)
    await require_sandbox_admin(uow, account_of(request))
    form = await request.form()
    typed = {"advance_seconds": _text(form, "advance_seconds")}
    text = typed["advance_seconds"]
    if missing := missing_fields(typed, ("advance_seconds",)):
        return await _sandbox_page(
            request, uow, clock, status_code=400, typed={"clock": typed}, errors={"clock": missing}
        )
    if not whole_number(text.removeprefix("-")):
        problem = "advanceSeconds: a whole number of seconds"
        exc = ValidationError(f"Invalid clock move: {problem}", details=[problem])
        return await _sandbox_page(
            request,
            uow,
            clock,
            status_code=400,
            typed={"clock": typed},
            errors={"clock": FormErrors(exc, CLOCK_FIELDS)},
        )
    try:
        await keeper.advance(int(text))
    except PixError as exc:
        return await _sandbox_page(
            request,
            uow,
            clock,
            status_code=status_of(exc),
            typed={"clock": typed},
            errors={"clock": FormErrors(exc, CLOCK_FIELDS, CLOCK_KINDS)},
        )
    lang = language_of(request)
    notice = lang.gettext("The clock moved: it is now %(now)s.", now=lang.moment(clock.now()))
    return await _sandbox_page(request, uow, clock, notice=notice)
