"""``pixnet`` as an operator runs it: participants registered by command, ``pixnet serve`` answering
over mutual TLS, refusals of bad settings in a sentence, a clean stop on SIGTERM."""

from __future__ import annotations

import asyncio
import json
import os
import ssl
import sys
import uuid
from pathlib import Path

import httpx
import trustme

from pixwire import xml
from pixwire.signatures import sign, verify
from tests.support import random_cpf
from tests.support.databases import fetch_rows, scratch_database
from tests.support.processes import free_port, stop_process

PIXNET = Path(sys.executable).parent / "pixnet"


async def _pixnet(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        str(PIXNET), *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_participants_by_command_then_the_dict_served_over_mutual_tls(
    database_server: str, tmp_path: Path
) -> None:
    ca = trustme.CA(key_type=trustme.KeyType.RSA)
    network = ca.issue_cert("127.0.0.1", key_type=trustme.KeyType.RSA)
    bank = ca.issue_cert("11111111.participants.pix.example", key_type=trustme.KeyType.RSA)
    files = {}
    for name, blob in {
        "ca.pem": ca.cert_pem,
        "network.pem": network.cert_chain_pems[0],
        "network.key": network.private_key_pem,
        "bank.pem": bank.cert_chain_pems[0],
        "bank.key": bank.private_key_pem,
    }.items():
        files[name] = tmp_path / name
        blob.write_to_path(str(files[name]))
    port = free_port()
    async with scratch_database(database_server, "pixnet_cli") as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PIX_", "PIXNET_"))}
        env |= {"PIXNET_DATABASE_URL": url, "PIXNET_PORT": str(port)}

        code, out, err = await _pixnet(
            env, "admin", "participant", "add", "11111111", "Bank A", str(files["bank.pem"])
        )
        assert code == 0, err
        added = json.loads(out)
        assert (added["ispb"], len(added["fingerprint"])) == ("11111111", 64)
        code, _, err = await _pixnet(
            env, "admin", "participant", "add", "1111", "Bank A", str(files["bank.pem"])
        )
        assert code == 2
        assert "an ISPB is 8 digits" in err
        code, _, err = await _pixnet(
            env, "admin", "participant", "add", "22222222", "B", str(files["bank.key"])
        )
        assert code == 2
        assert "not a PEM certificate" in err
        code, out, _ = await _pixnet(env, "admin", "participant", "list")
        assert [json.loads(line)["ispb"] for line in out.splitlines()] == ["11111111"]

        code, out, err = await _pixnet(env, "admin", "settlement", "fund", "11111111", "1000.00")
        assert code == 0, err
        assert json.loads(out)["balance"] == "1000.00"
        code, _, err = await _pixnet(env, "admin", "settlement", "withdraw", "11111111", "1000.01")
        assert code == 1
        assert "holds 100000 centavos, less than 100001" in err
        code, _, err = await _pixnet(env, "admin", "settlement", "fund", "11111111", "10.5")
        assert code == 2
        assert "an amount like 1000.00" in err
        code, _, err = await _pixnet(env, "admin", "settlement", "fund", "33333333", "1.00")
        assert code == 1
        assert "no participant has the ISPB 33333333" in err
        code, out, err = await _pixnet(env, "admin", "settlement", "withdraw", "11111111", "0.50")
        assert code == 0, err
        code, out, _ = await _pixnet(env, "admin", "settlement", "show")
        assert [json.loads(line) for line in out.splitlines()] == [{"ispb": "11111111", "balance": "999.50"}]
        code, out, err = await _pixnet(env, "admin", "ledger", "check")
        assert code == 0, err
        report = json.loads(out)
        assert (report["ok"], report["held"], report["funded"]) == (True, 99_950, 99_950)
        await fetch_rows(url, "UPDATE settlement_accounts SET balance = balance + 1")  # money from nowhere
        code, out, _ = await _pixnet(env, "admin", "ledger", "check")
        assert code == 1
        assert json.loads(out)["mismatchedAccounts"] == [
            {"ispb": "11111111", "balance": 99_951, "moved": 99_950}
        ]
        await fetch_rows(url, "UPDATE settlement_accounts SET balance = balance - 1")

        code, _, err = await _pixnet(env, "serve")
        assert code == 2
        assert "PIXNET_CERTIFICATE is required" in err
        assert "Traceback" not in err

        env |= {
            "PIXNET_CERTIFICATE": str(files["network.pem"]),
            "PIXNET_PRIVATE_KEY": str(files["network.key"]),
            "PIXNET_CA_CERTIFICATE": str(files["ca.pem"]),
        }
        server = await asyncio.create_subprocess_exec(
            str(PIXNET), "serve", env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
        )
        try:
            context = ssl.create_default_context()
            ca.configure_trust(context)
            context.load_cert_chain(str(files["bank.pem"]), str(files["bank.key"]))
            async with httpx.AsyncClient(base_url=f"https://127.0.0.1:{port}", verify=context) as client:
                for _ in range(200):
                    try:
                        await client.get("/api/v1/entries/nobody@example.com")
                        break
                    except httpx.ConnectError:
                        await asyncio.sleep(0.1)
                email = f"ana.{uuid.uuid4().hex[:8]}@example.com"
                body = f"""<CreateEntryRequest><Entry><Key>{email}</Key><KeyType>EMAIL</KeyType>
                  <Account><Participant>11111111</Participant><Branch>0001</Branch>
                    <AccountNumber>42</AccountNumber><AccountType>CACC</AccountType>
                    <OpeningDate>2024-01-10T03:00:00Z</OpeningDate></Account>
                  <Owner><Type>NATURAL_PERSON</Type><TaxIdNumber>{random_cpf()}</TaxIdNumber>
                    <Name>Ana Lima</Name></Owner></Entry>
                  <Reason>USER_REQUESTED</Reason><RequestId>{uuid.uuid4()}</RequestId></CreateEntryRequest>"""
                request = sign(
                    xml.parse(body.encode()),
                    key_pem=bank.private_key_pem.bytes(),
                    cert_pem=bank.cert_chain_pems[0].bytes(),
                )
                created = await client.post("/api/v1/entries/", content=xml.serialize(request))
                assert created.status_code == 201, created.text
                root = verify(created.content, cert_pem=network.cert_chain_pems[0].bytes())
                assert root.findtext("Entry/Key") == email
        finally:
            code = await stop_process(server, "pixnet serve")
        assert code == 0
        assert [row["key"] for row in await fetch_rows(url, "SELECT key FROM entries")] == [email]
