"""The DICT's entry documents on the wire (``pixnet.wire``): read with every door shut, signed
and verified both ways, refusals as the DICT's ``problem``."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import UTC, datetime

import pytest
import trustme

from pixcore.keys import PixKeyType
from pixnet.directory.entries import create_entry
from pixwire import xml
from pixwire.dict.documents import (
    ERROR_BASE,
    PROBLEM_NAMESPACE,
    create_entry_request,
    create_entry_response,
    delete_entry_request,
    get_entry_response,
    problem_document,
    read_create_entry,
    read_delete_entry,
    read_entry_response,
    read_problem,
)
from pixwire.dict.model import DeleteEntry, DictProblem, EntryReason, ErrorType, OwnerType
from pixwire.dict.statistics import Statistics
from pixwire.signatures import SignatureRefused, sign, verify
from tests.support import random_cpf
from tests.unit.network.stores import MemoryStore

NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)
CA = trustme.CA(key_type=trustme.KeyType.RSA)


class Party:
    """A key pair and its certificate: a participant, or the DICT."""

    def __init__(self, name: str) -> None:
        issued = CA.issue_cert(name, key_type=trustme.KeyType.RSA)
        self.key = issued.private_key_pem.bytes()
        self.cert = issued.cert_chain_pems[0].bytes()


BANK, OTHER, DICT = Party("11111111.pix.example"), Party("22222222.pix.example"), Party("dict.pix.example")


def request_xml(
    cpf: str, *, key_type: str = "EMAIL", key: str = "maria@example.com", opened: str = "2020-01-10T03:00:00Z"
) -> bytes:
    key_line = f"<Key>{key}</Key>" if key else ""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<CreateEntryRequest>
  <Entry>
    {key_line}
    <KeyType>{key_type}</KeyType>
    <Account>
      <Participant>11111111</Participant><Branch>0001</Branch><AccountNumber>0007654321</AccountNumber>
      <AccountType>CACC</AccountType><OpeningDate>{opened}</OpeningDate>
    </Account>
    <Owner><Type>NATURAL_PERSON</Type><TaxIdNumber>{cpf}</TaxIdNumber><Name>Maria Silva</Name></Owner>
  </Entry>
  <Reason>USER_REQUESTED</Reason>
  <RequestId>a946d533-7f22-42a5-9a9b-e87cd55c0f4d</RequestId>
</CreateEntryRequest>""".encode()


def signed(body: bytes, party: Party = BANK) -> bytes:
    return xml.serialize(sign(xml.parse(body), key_pem=party.key, cert_pem=party.cert))


def test_a_signed_request_is_read_judged_and_answered_signed() -> None:
    cpf = random_cpf()
    arrived = verify(signed(request_xml(cpf)), cert_pem=BANK.cert)  # the DICT knows the bank's certificate
    asked = read_create_entry(arrived)
    assert asked.entry.key == "maria@example.com"
    assert asked.entry.key_type is PixKeyType.EMAIL
    assert asked.entry.owner.type is OwnerType.NATURAL_PERSON
    assert asked.entry.owner.tax_id == cpf
    assert asked.entry.account.opened_at == datetime(2020, 1, 10, 3, tzinfo=UTC)
    assert asked.reason is EntryReason.USER_REQUESTED
    made = asyncio.run(create_entry(MemoryStore(), asked, requester="11111111", now=NOW))

    answer = xml.serialize(
        sign(
            create_entry_response(made, correlation_id="a" * 32, now=NOW),
            key_pem=DICT.key,
            cert_pem=DICT.cert,
        )
    )
    read = verify(answer, cert_pem=DICT.cert)  # and the bank, the DICT's
    assert read.tag == "CreateEntryResponse"
    assert read.findtext("Entry/Key") == "maria@example.com"
    assert read.findtext("Entry/Owner/TaxIdNumber") == cpf
    assert read.findtext("Entry/CreationDate") == "2026-11-29T12:00:00.000Z"
    assert read.findtext("CorrelationId") == "a" * 32


def test_a_signature_that_is_not_the_senders_or_covers_other_content_is_refused() -> None:
    body = signed(request_xml(random_cpf()))
    with pytest.raises(SignatureRefused):
        verify(body, cert_pem=OTHER.cert)  # signed by the bank, claimed by another participant
    with pytest.raises(SignatureRefused):
        verify(body.replace(b"USER_REQUESTED", b"RECONCILIATION"), cert_pem=BANK.cert)
    with pytest.raises(SignatureRefused, match="not signed"):
        verify(request_xml(random_cpf()), cert_pem=BANK.cert)


def test_signing_takes_rsa_keys_only() -> None:
    ec = trustme.CA().issue_cert("ec.pix.example")
    with pytest.raises(TypeError, match="RSA"):
        sign(xml.parse(request_xml(random_cpf())), key_pem=ec.private_key_pem.bytes(), cert_pem=BANK.cert)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (
            (
                b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">'
                b'<!ENTITY b "&a;&a;&a;&a;">]><r>&b;</r>'
            ),
            "document type",
        ),
        (
            b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>',
            "document type",
        ),
        (b"<r>" + b"x" * (xml.MAX_BODY + 1) + b"</r>", "over"),
        (b"<r>\x00</r>", "well-formed"),
        (b"<r><a>1</a>", "well-formed"),
        (b"", "well-formed"),
    ],
)
def test_a_hostile_or_broken_body_is_refused_before_anything_reads_it(body: bytes, says: str) -> None:
    with pytest.raises(xml.BadXml, match=says):
        xml.parse(body)


def test_a_repeated_or_missing_element_is_a_bad_request() -> None:
    body = request_xml(random_cpf()).replace(b"<Reason>", b"<Reason>FRAUD</Reason><Reason>")
    with pytest.raises(xml.BadXml, match="Reason is given 2 times"):
        read_create_entry(xml.parse(body))
    with pytest.raises(xml.BadXml, match="RequestId is required"):
        read_create_entry(
            xml.parse(body.replace(b"<RequestId>", b"<Other>").replace(b"</RequestId>", b"</Other>"))
        )


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"key_type": "NICKNAME"}, "KeyType"),
        ({"opened": "yesterday"}, "Account.OpeningDate"),
        ({"opened": "2020-01-10T03:00:00"}, "Account.OpeningDate"),
    ],
)
def test_a_value_out_of_its_domain_is_entry_invalid_naming_its_element(
    changes: dict[str, str], field: str
) -> None:
    with pytest.raises(DictProblem) as caught:
        read_create_entry(xml.parse(request_xml(random_cpf(), **changes)))
    assert caught.value.type is ErrorType.ENTRY_INVALID
    assert caught.value.violations[0][0] == field


def test_a_refusal_is_the_dicts_problem_document() -> None:
    doc = problem_document(
        ErrorType.ENTRY_INVALID,
        "Key: not a valid PIX key",
        correlation_id="b" * 32,
        violations=(("Key", "bad"),),
    )
    ns = {"p": PROBLEM_NAMESPACE}
    assert doc.tag == f"{{{PROBLEM_NAMESPACE}}}problem"
    assert doc.findtext("p:type", namespaces=ns) == ERROR_BASE + "EntryInvalid"
    assert doc.findtext("p:status", namespaces=ns) == "400"
    assert doc.findtext("p:violations/p:violation/p:property", namespaces=ns) == "Key"
    forbidden = problem_document(ErrorType.FORBIDDEN, "not yours", correlation_id="c" * 32)
    assert forbidden.findtext("p:status", namespaces=ns) == "403"
    assert forbidden.find("p:violations", namespaces=ns) is None


def test_a_participants_request_and_the_dicts_answer_read_back_as_they_were_written() -> None:
    asked = read_create_entry(verify(signed(request_xml(random_cpf())), cert_pem=BANK.cert))
    again = read_create_entry(xml.parse(xml.serialize(create_entry_request(asked))))
    assert again == asked
    made = asyncio.run(create_entry(MemoryStore(), asked, requester="11111111", now=NOW))
    for response in (
        create_entry_response(made, correlation_id="c" * 32, now=NOW),
        get_entry_response(made, Statistics(NOW, ()), correlation_id="c" * 32, now=NOW),
    ):
        read = read_entry_response(xml.parse(xml.serialize(response)))
        assert read == dataclasses.replace(made, request_id=read.request_id)  # a response has no RequestId
    deleted = DeleteEntry(key=made.key, participant="11111111", reason=EntryReason.FRAUD)
    assert read_delete_entry(xml.parse(xml.serialize(delete_entry_request(deleted))), made.key) == deleted


def test_a_problem_reads_back_as_its_refusal() -> None:
    document = problem_document(
        ErrorType.ENTRY_LIMIT_EXCEEDED, "the account holds 5 keys", correlation_id="x"
    )
    problem = read_problem(xml.parse(xml.serialize(document)))
    assert (problem.type, problem.detail) == (ErrorType.ENTRY_LIMIT_EXCEEDED, "the account holds 5 keys")
    with pytest.raises(xml.BadXml):
        read_problem(xml.parse(b"<problem/>"))
