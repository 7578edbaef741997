"""``GET /cob/{txid}?revisao=N`` and ``GET /cobv/{txid}?revisao=N`` end to end: each revision reads
back as that revision's answer was (status as written, no payment), the current one as the charge
is now, and a revision the charge never had (or one not kept) is the standard's error, in our
shape on the old ``/cob/{txid}`` unless problem+json is asked for (docs/decisions/charge-revisions.md)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from pixcore.business_days import next_business_day
from pixcore.charges.cobv import payer_day
from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.support import Client, bearer, fetch_rows, new_client, random_cpf

PROBLEM = "application/problem+json"
TYPES = "https://pix.bcb.gov.br/api/v2/error/"


@pytest.fixture
async def owner(pg_uow: UnitOfWorkFactory, api: Api) -> tuple[Client, dict[str, str]]:
    client = await new_client(pg_uow)
    return client, await bearer(api.client, client)


def _txid() -> str:
    return random_cpf() + random_cpf() + "abcdefgh"  # 30 letters and digits, unique enough


async def _ok(response: Any, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    return body


async def _revised(api: Api, auth: dict[str, str], path: str, change: dict[str, Any]) -> dict[str, Any]:
    return await _ok(await api.client.patch(path, json=change, headers=auth))


async def test_each_revision_of_a_cob_reads_back_as_it_was_answered(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    path = f"/cob/{_txid()}"
    body = {"calendario": {"expiracao": 3600}, "valor": {"original": "10.00"}, "solicitacaoPagador": "A"}
    created = await _ok(await api.client.put(path, json=body, headers=auth), 201)
    first = await _revised(api, auth, path, {"valor": {"original": "12.50"}, "solicitacaoPagador": "B"})
    second = await _revised(api, auth, path, {"calendario": {"expiracao": 7200}})
    assert (created["revisao"], first["revisao"], second["revisao"]) == (0, 1, 2)

    async def at(revision: str) -> dict[str, Any]:
        return await _ok(await api.client.get(path, params={"revisao": revision}, headers=auth))

    assert await at("0") == created
    assert await at("1") == first
    assert await at("2") == second == await _ok(await api.client.get(path, headers=auth))
    assert await at("") == second  # empty is no value, as in every query of the standard
    assert (await at("00001"))["valor"]["original"] == "12.50"  # int32 digits as pixcore reads them

    # Paid: the current revision is the charge as it is now, the earlier ones stay as written.
    paid = await api.client.post(
        "/sandbox/payments", json={"pixCopiaECola": second["location"]}, headers=auth
    )
    assert paid.status_code == 201, paid.text
    now = await at("2")
    assert now["status"] == "CONCLUIDA"
    assert [pix["endToEndId"] for pix in now["pix"]] == [paid.json()["endToEndId"]]
    assert await at("1") == first
    assert "pix" not in await at("0")


async def test_a_cancelled_cob_keeps_the_revision_that_cancelled_it(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    path = f"/cob/{_txid()}"
    created = await _ok(
        await api.client.put(
            path, json={"calendario": {"expiracao": 60}, "valor": {"original": "3.00"}}, headers=auth
        ),
        201,
    )
    cancelled = await _revised(api, auth, path, {"status": "REMOVIDA_PELO_USUARIO_RECEBEDOR"})
    assert cancelled["revisao"] == 1
    api.clock.advance(61)  # revision 0's expiry passes: a past revision is history, not re-judged
    auth = await bearer(api.client, owner[0])
    old = await _ok(await api.client.get(path, params={"revisao": "0"}, headers=auth))
    assert old == created
    assert old["status"] == "ATIVA"
    current = await _ok(await api.client.get(path, params={"revisao": "1"}, headers=auth))
    assert current["status"] == "REMOVIDA_PELO_USUARIO_RECEBEDOR"


@pytest.mark.parametrize(
    ("revisao", "reason"),
    [
        ("1", "revisao: the charge has no revision 1 (its revisions are 0 to 0)"),
        ("-1", "revisao: the charge has no revision -1 (its revisions are 0 to 0)"),
        ("2147483647", "revisao: the charge has no revision 2147483647 (its revisions are 0 to 0)"),
        ("2147483648", "revisao: must be an integer from -2147483648 to 2147483647"),
        ("one", "revisao: must be an integer from -2147483648 to 2147483647"),
        ("1.0", "revisao: must be an integer from -2147483648 to 2147483647"),
        ("+1", "revisao: must be an integer from -2147483648 to 2147483647"),
        ("\u0661", "revisao: must be an integer from -2147483648 to 2147483647"),  # an Arabic-Indic 1
    ],
)
async def test_a_revision_the_charge_never_had_is_a_400_in_either_shape(
    api: Api, owner: tuple[Client, dict[str, str]], revisao: str, reason: str
) -> None:
    _, auth = owner
    txid = _txid()
    body = {"calendario": {"expiracao": 3600}, "valor": {"original": "1.00"}}
    await _ok(await api.client.put(f"/cob/{txid}", json=body, headers=auth), 201)

    ours = await api.client.get(f"/cob/{txid}", params={"revisao": revisao}, headers=auth)
    assert ours.status_code == 400
    assert ours.headers["content-type"].startswith("application/json")
    assert ours.json()["details"] == [reason]

    asked = await api.client.get(
        f"/cob/{txid}", params={"revisao": revisao}, headers=auth | {"Accept": PROBLEM}
    )
    assert asked.status_code == 400
    assert asked.headers["content-type"].startswith(PROBLEM)
    problem = asked.json()
    assert problem["type"] == TYPES + "CobConsultaInvalida"
    assert problem["violacoes"] == [{"propriedade": "revisao", "razao": reason.removeprefix("revisao: ")}]


async def test_revisao_given_twice_is_a_400_and_another_accounts_charge_is_not_found(
    pg_uow: UnitOfWorkFactory, api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    path = f"/cob/{_txid()}"
    await _ok(
        await api.client.put(
            path, json={"calendario": {"expiracao": 3600}, "valor": {"original": "1.00"}}, headers=auth
        ),
        201,
    )
    twice = await api.client.get(f"{path}?revisao=0&revisao=0", headers=auth)
    assert twice.status_code == 400
    assert twice.json()["details"] == ["revisao: given more than once"]

    other = await bearer(api.client, await new_client(pg_uow))
    for revisao in ("0", "5"):
        response = await api.client.get(path, params={"revisao": revisao}, headers=other)
        assert response.status_code == 404, response.text


async def test_a_revision_made_before_revisions_were_kept_is_the_standards_error(
    api: Api, owner: tuple[Client, dict[str, str]], migrated_database: str
) -> None:
    """A charge revised before the migration has only its current revision (the migration could
    not rebuild the others): forgetting revision 0 here stands for that."""
    _, auth = owner
    path = f"/cob/{_txid()}"
    created = await _ok(
        await api.client.put(
            path, json={"calendario": {"expiracao": 3600}, "valor": {"original": "1.00"}}, headers=auth
        ),
        201,
    )
    await _revised(api, auth, path, {"valor": {"original": "2.00"}})
    forgotten = await fetch_rows(
        migrated_database,
        "DELETE FROM charge_revisions r USING charges c"
        " WHERE c.id = r.charge_id AND c.txid = $1 AND r.revision = 0 RETURNING r.revision",
        created["txid"],
    )
    assert [row["revision"] for row in forgotten] == [0]
    response = await api.client.get(path, params={"revisao": "0"}, headers=auth | {"Accept": PROBLEM})
    assert response.status_code == 400
    assert response.json()["violacoes"] == [
        {
            "propriedade": "revisao",
            "razao": "revision 0 of the charge was not kept (made before revisions were kept)",
        }
    ]
    assert (await _ok(await api.client.get(path, params={"revisao": "1"}, headers=auth)))["revisao"] == 1


def _due(api: Api) -> date:
    return next_business_day(payer_day(api.clock.now()) + timedelta(days=5))


async def test_each_revision_of_a_cobv_reads_back_with_its_terms(
    api: Api, owner: tuple[Client, dict[str, str]]
) -> None:
    _, auth = owner
    path = f"/cobv/{_txid()}"
    due = _due(api)
    body = {
        "calendario": {"dataDeVencimento": due.isoformat(), "validadeAposVencimento": 10},
        "devedor": {"cpf": random_cpf(), "nome": "João Souza"},
        "valor": {"original": "100.00", "multa": {"modalidade": 2, "valorPerc": "2.00"}},
    }
    created = await _ok(await api.client.put(path, json=body, headers=auth), 201)
    later = next_business_day(due + timedelta(days=3)).isoformat()
    revised = await _revised(
        api,
        auth,
        path,
        {"calendario": {"dataDeVencimento": later}, "valor": {"original": "150.00", "multa": None}},
    )
    assert revised["revisao"] == 1

    old = await _ok(await api.client.get(path, params={"revisao": "0"}, headers=auth))
    assert old == created
    assert old["valor"]["multa"] == {"modalidade": 2, "valorPerc": "2.00"}
    assert old["calendario"]["dataDeVencimento"] == due.isoformat()
    assert await _ok(await api.client.get(path, params={"revisao": "1"}, headers=auth)) == revised

    # /cobv is a route of the standard: its errors are always problem+json.
    missing = await api.client.get(path, params={"revisao": "2"}, headers=auth)
    assert missing.status_code == 400
    assert missing.headers["content-type"].startswith(PROBLEM)
    assert missing.json()["type"] == TYPES + "CobVConsultaInvalida"
    assert missing.json()["violacoes"] == [
        {"propriedade": "revisao", "razao": "the charge has no revision 2 (its revisions are 0 to 1)"}
    ]
    # A cob's txid is no cobv's, at any revision.
    cob = f"/cob/{_txid()}"
    await _ok(
        await api.client.put(
            cob, json={"calendario": {"expiracao": 3600}, "valor": {"original": "1.00"}}, headers=auth
        ),
        201,
    )
    wrong = await api.client.get(cob.replace("/cob/", "/cobv/"), params={"revisao": "0"}, headers=auth)
    assert wrong.status_code == 404
