"""A due-date charge's console page: the amount due today with its parts, and its terms in words,
as ``pixcore.charges.cobv`` computes them on the payer's day."""

from __future__ import annotations

import re
from datetime import timedelta

from pixcore.charges.cob_service import get_charge
from pixcore.charges.cobv import amount_breakdown, payer_day
from pixcore.unit_of_work import UnitOfWorkFactory
from pixweb.console.language import language
from tests.e2e.conftest import Api
from tests.e2e.console.test_console import sign_in
from tests.support import bearer, new_client


def shown(page: str, element: str) -> str:
    """The text of the element with id ``element`` (a ``p``, a ``dd`` or a whole ``dl``)."""
    tag = re.search(rf'<(\w+)[^>]*id="{element}"', page)
    assert tag is not None, page
    found = re.search(rf'id="{element}"[^>]*>(.*?)</{tag.group(1)}>', page, flags=re.S)
    assert found is not None, page
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found.group(1))).strip()


def spaced(text: str) -> str:
    """``text`` with its spaces as :func:`shown` gives them (Babel writes a no-break space)."""
    return re.sub(r"\s+", " ", text)


async def test_a_late_cobv_shows_what_is_due_today_and_its_terms(
    pg_uow: UnitOfWorkFactory, own_api: Api
) -> None:
    api = own_api  # its clock moves
    owner = await new_client(pg_uow)
    auth = await bearer(api.client, owner)
    due = payer_day(api.clock.now()) + timedelta(days=3)
    body = {
        "calendario": {"dataDeVencimento": due.isoformat(), "validadeAposVencimento": 30},
        "devedor": {"cpf": "52998224725", "nome": "João Souza"},
        "valor": {
            "original": "200.00",
            "multa": {"modalidade": 2, "valorPerc": "2.00"},
            "juros": {"modalidade": 3, "valorPerc": "1.00"},
            "abatimento": {"modalidade": 1, "valorPerc": "10.00"},
        },
    }
    txid = "consoledue0000000000000001"
    assert (await api.client.put(f"/cobv/{txid}", json=body, headers=auth)).status_code == 201
    api.clock.advance(timedelta(days=12).total_seconds())
    await sign_in(api.client, owner)

    page = (await api.client.get(f"/console/charges/{txid}")).text
    charge = await get_charge(pg_uow, account_id=owner.account_id, txid=txid)
    assert charge.due is not None
    parts = amount_breakdown(charge.due, payer_day(api.clock.now()))
    english = language("en")
    assert shown(page, "due-today") == spaced(english.money(parts.final))
    assert parts.fine > 0
    assert parts.interest > 0
    listed = shown(page, "due-parts")
    for label, cents in (("Rebate", parts.rebate), ("Fine", parts.fine), ("Interest", parts.interest)):
        assert f"{label} " in listed
        assert spaced(english.money(cents)) in listed
    terms = shown(page, "due-terms")
    assert "2.00% of the value, once, after the due date" in terms
    assert "1.00% a month, counted in calendar days" in terms
    assert shown(page, "payable-until") == spaced(english.day(charge.due.last_payable_day()))

    api.client.cookies.set("pix_console_lang", "pt_BR")
    portuguese = (await api.client.get(f"/console/charges/{txid}")).text
    assert shown(portuguese, "due-today") == spaced(language("pt_BR").money(parts.final))
    assert "1,00% ao mês, em dias corridos" in shown(portuguese, "due-terms")

    api.clock.advance(timedelta(days=40).total_seconds())  # past its last payable day
    closed = (await api.client.get(f"/console/charges/{txid}")).text
    assert shown(closed, "due-today").startswith("Não pode mais ser paga")
