"""The four journeys by which a payer authorizes a recurrence, over HTTP: the receiver on the
standard's face, the payer in the sandbox."""

from __future__ import annotations

from datetime import timedelta

from pixcore import brcode
from tests.e2e.recurrences.conftest import STD, Receiver, available, later


async def test_journey_1_a_request_accepted_then_another_refused(receiver: Receiver) -> None:
    rec = await receiver.recurrence()
    assert rec["status"] == "CRIADA"
    assert rec["ativacao"] == {"tipoJornada": "AGUARDANDO_DEFINICAO"}
    expires = (receiver.api.clock.now() + timedelta(days=3)).isoformat()
    body = {
        "idRec": rec["idRec"],
        "calendario": {"dataExpiracaoSolicitacao": expires},
        "destinatario": {
            "cpf": receiver.payer["document"],
            "conta": "123456",
            "ispbParticipante": receiver.payer["ispb"],
        },
    }
    created = await receiver.call("POST", "/solicrec", json=body)
    assert created.status_code == 201, created.text
    request = created.json()
    assert request["status"] == "CRIADA"
    assert request["recPayload"]["idRec"] == rec["idRec"]
    answered = await receiver.http.post(
        f"/sandbox/solicrec/{request['idSolicRec']}/answer", json={"accept": True}, headers=receiver.auth
    )
    assert answered.status_code == 200, answered.text
    assert answered.json() == {"idRec": rec["idRec"], "status": "APROVADA", "tipoJornada": "JORNADA_1"}
    read = (await receiver.call("GET", f"/solicrec/{request['idSolicRec']}")).json()
    assert [line["status"] for line in read["atualizacao"]] == ["CRIADA", "ENVIADA", "RECEBIDA", "ACEITA"]
    shown = (await receiver.call("GET", f"/rec/{rec['idRec']}")).json()
    assert shown["status"] == "APROVADA"
    assert shown["pagador"] == {"cpf": receiver.payer["document"], "ispbParticipante": receiver.payer["ispb"]}
    assert [r["idSolicRec"] for r in shown["solicitacao"]] == [request["idSolicRec"]]

    other = await receiver.recurrence()
    refused = await receiver.call("POST", "/solicrec", json=body | {"idRec": other["idRec"]})
    answer = await receiver.http.post(
        f"/sandbox/solicrec/{refused.json()['idSolicRec']}/answer",
        json={"accept": False},
        headers=receiver.auth,
    )
    assert answer.json()["status"] == "REJEITADA"
    closed = (await receiver.call("GET", f"/rec/{other['idRec']}")).json()
    assert closed["encerramento"] == {
        "rejeicao": {"codigo": "AP13", "descricao": "Autorização recusada pelo usuário pagador"}
    }


async def test_journey_2_the_recurrences_own_code(receiver: Receiver) -> None:
    rec = await receiver.located_recurrence()
    assert rec["loc"]["location"].endswith("/qr/v2/rec/" + rec["loc"]["location"].rsplit("/", 1)[1])
    qr = await receiver.code_of(rec["idRec"])
    assert qr["jornada"] == "JORNADA_2"
    code = brcode.decode(qr["pixCopiaECola"])
    assert code.recurrence == rec["loc"]["location"]
    assert code.key is None
    assert code.location is None
    answered = await receiver.authorize(rec["idRec"])
    assert answered.status_code == 200, answered.text
    assert answered.json()["tipoJornada"] == "JORNADA_2"


async def test_journey_3_pays_the_immediate_charge_from_the_payers_balance(receiver: Receiver) -> None:
    txid = "jornada3cob" + receiver.client.opened.client_id[:20].replace("_", "0").replace("-", "0")
    txid = "".join(c for c in txid if c.isalnum())[:35].ljust(26, "0")
    cob = {"calendario": {"expiracao": 3600}, "valor": {"original": "20.00"}}
    cob["chave"] = receiver.client.opened.keys[0].value  # type: ignore[assignment]
    made = await receiver.call("PUT", f"/cob/{txid}", json=cob)
    assert made.status_code == 201, made.text
    rec = await receiver.located_recurrence(ativacao={"dadosJornada": {"txid": txid}})
    await receiver.set_balance(50.0)
    before = await available(receiver)
    qr = await receiver.code_of(rec["idRec"], txid)
    assert qr["jornada"] == "JORNADA_3"
    composed = brcode.decode(qr["pixCopiaECola"])
    assert composed.location == made.json()["location"]
    assert composed.recurrence == rec["loc"]["location"]
    answered = await receiver.authorize(rec["idRec"], txid)
    assert answered.status_code == 200, answered.text
    assert answered.json()["tipoJornada"] == "JORNADA_3"
    assert (await receiver.call("GET", f"/cob/{txid}")).json()["status"] == "CONCLUIDA"
    assert await available(receiver) == before + 2000
    payer = await receiver.http.get(
        f"/sandbox/payers/{receiver.payer['ispb']}/{receiver.payer['document']}", headers=receiver.auth
    )
    assert payer.json()["balance"] == 30.0


async def test_journey_4_a_due_date_charges_code(receiver: Receiver) -> None:
    txid = "jornada4cobv" + str(receiver.client.account_id).rjust(20, "0")
    due = later(receiver.today(), 10).isoformat()
    cobv = {
        "calendario": {"dataDeVencimento": due},
        "devedor": {"cpf": "52998224725", "nome": "João Souza"},
        "valor": {"original": "100.00"},
        "chave": receiver.client.opened.keys[0].value,
    }
    made = await receiver.call("PUT", f"/cobv/{txid}", json=cobv)
    assert made.status_code == 201, made.text
    rec = await receiver.located_recurrence()
    qr = await receiver.code_of(rec["idRec"], txid)
    assert qr["jornada"] == "JORNADA_4"
    answered = await receiver.authorize(rec["idRec"], txid)
    assert answered.json()["tipoJornada"] == "JORNADA_4"
    assert (await receiver.call("GET", f"/cobv/{txid}")).json()["status"] == "ATIVA"  # paid apart


async def test_the_payer_refuses_or_cancels(receiver: Receiver) -> None:
    refused = await receiver.located_recurrence()
    answer = await receiver.http.post(f"/sandbox/rec/{refused['idRec']}/refuse", headers=receiver.auth)
    assert answer.json()["status"] == "REJEITADA"
    rec = await receiver.located_recurrence()
    await receiver.authorize(rec["idRec"])
    charge = await receiver.charge(rec["idRec"], later(receiver.today(), 5))
    stranger = {"document": "52998224725", "ispb": receiver.payer["ispb"]}
    wrong = await receiver.http.post(
        f"/sandbox/rec/{rec['idRec']}/cancel", json={"payer": stranger}, headers=receiver.auth
    )
    assert wrong.status_code == 422, wrong.text
    cancelled = await receiver.http.post(
        f"/sandbox/rec/{rec['idRec']}/cancel", json={"payer": receiver.payer}, headers=receiver.auth
    )
    assert cancelled.json()["status"] == "CANCELADA"
    read = (await receiver.call("GET", f"/rec/{rec['idRec']}")).json()
    assert read["encerramento"]["cancelamento"]["codigo"] == "SLDB"
    after = (await receiver.call("GET", f"/cobr/{charge['txid']}")).json()
    assert after["status"] == "CANCELADA"
    assert after["encerramento"]["cancelamento"]["codigo"] == "CCLD"


async def test_the_payload_is_a_signed_recurrence_at_its_location(receiver: Receiver) -> None:
    rec = await receiver.located_recurrence()
    token = rec["loc"]["location"].rsplit("/", 1)[1]
    response = await receiver.http.get(f"/qr/v2/rec/{token}")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/jose")
    import base64
    import json

    body = response.text.split(".")[1]
    payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    assert payload["idRec"] == rec["idRec"]
    assert payload["recebedor"]["ispbParticipante"] == "99999999"
    assert payload["valor"] == {"valorRec": "35.00"}
    missing = await receiver.http.get("/qr/v2/rec/0123456789abcdef0123456789abcdef")
    assert missing.status_code == 404
    assert missing.json()["type"].endswith("/RecPayloadNaoEncontrado")
    await receiver.call("PATCH", f"/rec/{rec['idRec']}", json={"status": "CANCELADA"})
    closed = await receiver.http.get(f"/qr/v2/rec/{token}")
    assert closed.status_code == 400
    assert closed.json()["type"].endswith("/RecPayloadOperacaoInvalida")
    assert STD  # the payload is outside the prefix
