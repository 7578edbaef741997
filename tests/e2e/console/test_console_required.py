"""Required fields: marked (``required``, ``aria-required`` and a ``*`` the legend line explains),
and, when a form comes with one empty (the browser's own check bypassed), refused beside that
field with its own message, what was typed kept, the use case not asked."""

from __future__ import annotations

import re

import pytest

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.e2e.console.test_console import csrf_of, sign_in
from tests.support import new_client

LEGEND = '<p class="help legend-required">Fields marked <span class="required">*</span> are required.</p>'
FORMS = [
    # page, form's action, its required fields, an optional field typed to be kept
    (
        "/console/cash-in",
        "/console/cash-in",
        {"amount", "description", "payer_name", "payer_document", "external_id"},
        ("expiration", "600"),
    ),
    ("/console/charges", "/console/charges", {"amount"}, ("payer_request", "Order 9")),
    ("/console/send", "/console/send", {"pix_key", "amount"}, ("description", "Rent")),
    ("/console/receive", "/console/receive", {"pix_key", "amount"}, ("payer_name", "Ana Payer")),
    (
        "/console/refunds",
        "/console/refunds",
        {"end_to_end_id", "amount", "refund_id"},
        ("description", "Sorry"),
    ),
    ("/console/webhooks", "/console/webhooks", {"url"}, ("headers", "X-A: 1")),
    (
        "/console/sandbox",
        "/console/sandbox/dict",
        {"pix_key", "name", "document", "ispb"},
        ("bank_name", "My Bank"),
    ),
    ("/console/sandbox", "/console/sandbox/med", {"end_to_end_id"}, ("reason", "MED_FRAUDE")),
    ("/console/sandbox", "/console/sandbox/clock", {"advance_seconds"}, None),
]


def marked(html: str) -> set[str]:
    """The fields a page marks required: the attribute, its ARIA twin and the visible ``*``."""
    names = set(re.findall(r'<input id="f-(\w+)"[^>]* required aria-required="true"', html))
    for name in names:
        assert re.search(
            rf'<label for="f-{name}">[^<]*<span class="required" aria-hidden="true">\*</span>', html
        )
    return names


def shown_missing(html: str) -> set[str]:
    return set(
        re.findall(r'<p class="error" id="m-(\w+)" data-missing>Required: fill in this field\.</p>', html)
    )


@pytest.mark.parametrize("case", FORMS, ids=[f[1] for f in FORMS])
async def test_an_empty_required_field_is_refused_beside_it_and_the_rest_kept(
    pg_uow: UnitOfWorkFactory, api: Api, case: tuple[str, str, set[str], tuple[str, str] | None]
) -> None:
    page, action, required, kept = case
    client = await new_client(pg_uow, sandbox_admin=True)
    await sign_in(api.client, client)
    form = await api.client.get(page)
    assert LEGEND in form.text
    assert required <= marked(form.text)
    assert shown_missing(form.text) == set()  # held hidden until needed
    data = {"csrf": csrf_of(form)} | dict.fromkeys(required, "  ")
    if key := re.search(r'name="idempotency_key" value="([^"]+)"', form.text):
        data["idempotency_key"] = key.group(1)
    if kept:
        data[kept[0]] = kept[1]
    refused = await api.client.post(action, data=data)
    assert refused.status_code == 400, refused.text
    assert shown_missing(refused.text) == required
    for name in required:
        assert re.search(
            rf'<input id="f-{name}"[^>]* aria-describedby="m-{name}[ "][^>]* aria-invalid="true">',
            refused.text,
        )
    assert "Some required fields are empty" in refused.text  # the form's alert says why
    if kept:
        assert kept[1] in refused.text


async def test_sign_in_with_an_empty_field_says_so_and_counts_no_attempt(
    api: Api, pg_uow: UnitOfWorkFactory
) -> None:
    client = await new_client(pg_uow)
    form = await api.client.get("/console/sign-in")
    assert LEGEND in form.text
    assert marked(form.text) == {"client_id", "client_secret"}
    for _ in range(3):
        refused = await api.client.post(
            "/console/sign-in", data={"csrf": csrf_of(form), "client_id": client.opened.client_id}
        )
        assert refused.status_code == 400
        assert shown_missing(refused.text) == {"client_secret"}
        assert f'value="{client.opened.client_id}"' in refused.text
    signed = await sign_in(api.client, client)  # no failed attempt was counted against the client
    assert signed.status_code == 303


async def test_a_form_filled_in_has_no_missing_message(pg_uow: UnitOfWorkFactory, api: Api) -> None:
    client = await new_client(pg_uow)
    await sign_in(api.client, client)
    charges = await api.client.get("/console/charges")
    wrong = await api.client.post("/console/charges", data={"csrf": csrf_of(charges), "amount": "abc"})
    assert wrong.status_code == 400
    assert shown_missing(wrong.text) == set()  # a value the rule refuses: the rule's own message
    assert 'id="e-amount"' in wrong.text
