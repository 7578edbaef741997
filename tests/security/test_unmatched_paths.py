"""A path text that leaves its route (an encoded slash in ``/webhook/{chave}``) matches no route at
all. Under a resource only the standard's API has (``/webhook``, ``/cobv``, ``/lotecobv``,
``/loc``) the 404 is still the standard's problem+json, as every route there documents; under
the resources our specification shares (``/cob``, ``/pix``) it keeps our error shape unless
problem+json is asked for (docs/decisions/standard-api.md)."""

from __future__ import annotations

import pytest

from pixcore.unit_of_work import UnitOfWorkFactory
from tests.e2e.conftest import Api
from tests.security.conftest import assert_error, signed_in

PROBLEM = "application/problem+json"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("delete", "/webhook/0%2F0%00"),
        ("get", "/webhook/a%2Fb"),
        ("put", "/webhook/a%2Fb"),
        ("get", "/cobv/a%2Fb/c"),
        ("patch", "/lotecobv/1%2F2"),
        ("get", "/loc/1%2Ftxid/x"),
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


async def test_a_path_outside_every_route_of_a_shared_resource_keeps_our_shape(
    pg_uow: UnitOfWorkFactory, api: Api
) -> None:
    signed = await signed_in(pg_uow, api.client)
    assert_error(await api.client.get("/cob/a%2Fb/c", headers=signed.auth), 404)
    asked = await api.client.get("/cob/a%2Fb/c", headers=signed.auth | {"accept": PROBLEM})
    assert asked.status_code == 404
    assert asked.headers["content-type"].startswith(PROBLEM)
