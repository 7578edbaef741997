"""A path outside every route matches no route at all. Under a resource only the standard's API
has (``/webhook``, ``/cobv``, ``/lotecobv``, ``/loc``) the 404 is still the standard's
problem+json, as every route there documents; under the resources our specification shares
(``/cob``, ``/pix``) it keeps our error shape unless problem+json is asked for
(docs/decisions/standard-api.md). An encoded slash stays in its segment (``pixweb.paths``): the
segment is judged by its route, as any text of the wrong form."""

from __future__ import annotations

import pytest

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.security.conftest import assert_error, signed_in

PROBLEM = "application/problem+json"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/cobv/a%2Fb/c"),
        ("get", "/loc/1%2Ftxid/x"),
        ("delete", "/webhook/a/b"),
        ("patch", "/lotecobv/1/2"),
    ],
)
async def test_a_path_outside_every_route_of_the_standard_is_its_404(
    pg_uow: UnitOfWorkFactory, api: Api, method: str, path: str
) -> None:
    signed = await signed_in(pg_uow, api.client)
    response = await api.client.request(method, path, headers=signed.auth)
    assert response.status_code == 404, response.text
    assert response.headers["content-type"].startswith(PROBLEM), response.headers
    body = response.json()
    assert body["status"] == 404
    assert body["type"] == "https://pix.bcb.gov.br/api/v2/error/NaoEncontrado"


@pytest.mark.parametrize(
    "case",
    [
        ("get", "/webhook/a%2Fb", None, 404, "WebhookNaoEncontrado"),
        ("delete", "/webhook/a%2Fb", None, 404, "WebhookNaoEncontrado"),
        ("put", "/webhook/a%2Fb", {"webhookUrl": "https://127.0.0.1:9/h"}, 400, "WebhookOperacaoInvalida"),
        ("patch", "/lotecobv/1%2F2", {"cobsv": []}, 404, "LoteCobVNaoEncontrado"),
        ("delete", "/webhook/0%2F0%00", None, 400, "RequisicaoInvalida"),
    ],
)
async def test_an_encoded_slash_is_judged_by_its_route(
    pg_uow: UnitOfWorkFactory, api: Api, case: tuple[str, str, dict[str, object] | None, int, str]
) -> None:
    method, path, body, status, kind = case
    signed = await signed_in(pg_uow, api.client)
    response = await api.client.request(method, path, headers=signed.auth, json=body)
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM), response.headers
    assert response.json()["type"] == f"https://pix.bcb.gov.br/api/v2/error/{kind}"


async def test_a_path_outside_every_route_of_a_shared_resource_keeps_our_shape(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    signed = await signed_in(pg_uow, api.client)
    assert_error(await api.client.get("/cob/a%2Fb/c", headers=signed.auth), 404)
    asked = await api.client.get("/cob/a%2Fb/c", headers=signed.auth | {"accept": PROBLEM})
    assert asked.status_code == 404
    assert asked.headers["content-type"].startswith(PROBLEM)
