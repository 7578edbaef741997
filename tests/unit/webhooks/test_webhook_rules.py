"""Webhook registration rules: URL, event type, custom headers, secrets, addresses."""

from __future__ import annotations

import base64
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pixcore.errors import InvalidWebhook, ValidationError
from pixcore.webhooks.rules import (
    BLOCKED_HEADERS,
    MAX_HEADER_NAME,
    MAX_HEADER_VALUE,
    MAX_HEADERS,
    MAX_URL_LENGTH,
    REGISTRABLE,
    RESERVED_HEADERS,
    EventType,
    Registration,
    header_problems,
    is_secret,
    new_webhook_secret,
    parse_event_type,
    parse_headers,
    parse_webhook_url,
    refused_addresses,
)
from tests.unit.wire_rendering import wire_details, wire_message

TOKEN_CHARS = string.ascii_letters + string.digits + "!#$%&'*+-.^_`|~"
VALUE_CHARS = "".join(chr(c) for c in range(0x20, 0x7F)) + "\t"


# -- URLs ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "url", "host", "port"),
    [
        ("https://hooks.example.com/pix", "https://hooks.example.com/pix", "hooks.example.com", 443),
        ("HTTPS://Hooks.Example.COM:443", "https://hooks.example.com/", "hooks.example.com", 443),
        ("https://203.0.113.9:8443/a?b=c&d", "https://203.0.113.9:8443/a?b=c&d", "203.0.113.9", 8443),
        ("https://[2001:db8::1]/x", "https://[2001:db8::1]/x", "2001:db8::1", 443),
        ("https://localhost:9000/h", "https://localhost:9000/h", "localhost", 9000),
        ("https://a_b.example./p%20q", "https://a_b.example./p%20q", "a_b.example.", 443),
    ],
)
def test_urls_are_parsed_and_normalised(raw: str, url: str, host: str, port: int) -> None:
    parsed = parse_webhook_url(raw)
    assert (parsed.url, parsed.host, parsed.port) == (url, host, port)


def test_ip_literals_carry_their_address() -> None:
    assert str(parse_webhook_url("https://127.0.0.1/").address) == "127.0.0.1"
    assert str(parse_webhook_url("https://[::1]:8443/").address) == "::1"
    assert parse_webhook_url("https://example.com/").address is None


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("http://hooks.example.com/pix", "HTTPS"),
        ("ftp://hooks.example.com/pix", "HTTPS"),
        ("hooks.example.com/pix", "HTTPS"),
        ("", "printable ASCII"),
        ("https://", "no host"),
        ("https:///path", "no host"),
        ("https://exa mple.com/", "printable ASCII"),
        ("https://example.com/\n", "printable ASCII"),
        ("https://exämple.com/", "printable ASCII"),
        ("https://user:pw@example.com/", "credentials"),
        ("https://user@example.com/", "credentials"),
        ("https://example.com/#frag", "fragment"),
        ("https://example.com/#", "fragment"),
        ("https://example.com:0/", "port 0"),
        ("https://example.com:99999/", "not a valid URL"),
        ("https://example.com:http/", "not a valid URL"),
        ("https://ex..ample.com/", "host name"),
        ("https://-example.com/", "host name"),
        ("https://ex%61mple.com/", "host name"),
        ("https://" + "a" * 64 + ".com/", "host name"),
        ("https://[::1/", "not a valid URL"),
        ("https://[example.com]/", "IPv6"),
    ],
)
def test_bad_urls_are_refused(raw: str, reason: str) -> None:
    with pytest.raises(InvalidWebhook) as caught:
        parse_webhook_url(raw)
    assert reason in caught.value.message
    assert isinstance(caught.value, ValidationError)


@given(st.integers(min_value=1, max_value=MAX_URL_LENGTH + 50))
def test_url_length_limit(length: int) -> None:
    prefix = "https://example.com/"
    raw = prefix + "a" * (length - len(prefix))
    if length <= MAX_URL_LENGTH:
        assert parse_webhook_url(raw).url == raw
    else:
        with pytest.raises(InvalidWebhook, match="at most"):
            parse_webhook_url(raw)


@given(st.integers(min_value=1, max_value=65535))
def test_every_real_port_is_kept_except_the_default(port: int) -> None:
    parsed = parse_webhook_url(f"https://example.com:{port}/h")
    assert parsed.port == port
    assert parsed.url == ("https://example.com/h" if port == 443 else f"https://example.com:{port}/h")


def test_localhost_names_are_local() -> None:
    assert parse_webhook_url("https://localhost/").is_local_name
    assert parse_webhook_url("https://LOCALHOST./").is_local_name
    assert parse_webhook_url("https://api.localhost/").is_local_name
    assert not parse_webhook_url("https://localhost.example.com/").is_local_name


# -- event types -----------------------------------------------------------------


def test_the_seven_event_types() -> None:
    names = ["cash_in", "cash_out", "refund_in", "refund_out", "med_created", "med_accepted", "med_rejected"]
    assert [parse_event_type(name).value for name in names] == names
    assert [kind.value for kind in REGISTRABLE] == names
    # The standard's own registrations: a key's (PUT /webhook/{chave}), /webhookrec's, /webhookcobr's.
    assert set(EventType) == {*REGISTRABLE, EventType.PIX, EventType.REC, EventType.COBR}


@pytest.mark.parametrize(
    "raw", ["pix", "rec", "cobr", "", "CASH_IN", "Cash_in", "cashin", "RECEIVE", " cash_in", "med"]
)
def test_other_event_types_are_refused(raw: str) -> None:
    with pytest.raises(InvalidWebhook, match="must be one of cash_in, cash_out"):
        parse_event_type(raw)


# -- headers -------------------------------------------------------------------------


@given(st.lists(st.tuples(st.text(TOKEN_CHARS, min_size=1, max_size=20), st.text(VALUE_CHARS, max_size=40))))
def test_header_count_limit(items: list[tuple[str, str]]) -> None:
    items = [(f"x-{i}-{name}", value) for i, (name, value) in enumerate(items)]
    if len(items) <= MAX_HEADERS:
        assert parse_headers(items) == dict(items)
    else:
        with pytest.raises(InvalidWebhook, match=f"at most {MAX_HEADERS} headers"):
            parse_headers(items)


@pytest.mark.parametrize("blocked", sorted(BLOCKED_HEADERS | RESERVED_HEADERS))
@given(flips=st.lists(st.booleans(), min_size=20, max_size=20))
def test_blocked_names_are_refused_in_any_letter_case(blocked: str, flips: list[bool]) -> None:
    name = "".join(c.upper() if flip else c for c, flip in zip(blocked, flips, strict=False))
    assert name.lower() == blocked
    with pytest.raises(InvalidWebhook, match="may not be set"):
        parse_headers([(name, "x")])


@given(st.text(TOKEN_CHARS, min_size=1, max_size=MAX_HEADER_NAME + 10))
def test_any_token_is_a_valid_name_up_to_the_length_limit(name: str) -> None:
    problems = header_problems(name, "value")
    blocked = name.lower() in BLOCKED_HEADERS | RESERVED_HEADERS
    assert (problems == []) == (len(name) <= MAX_HEADER_NAME and not blocked)


@given(st.text(min_size=1, max_size=10).filter(lambda n: any(c not in TOKEN_CHARS for c in n)))
def test_names_outside_the_token_alphabet_are_refused(name: str) -> None:
    assert any("not an HTTP token" in p for p in header_problems(name, "v"))


@pytest.mark.parametrize("name", ["", "X Header", "X:Header", "X-Ä", "(x)", "x/y", "x\r\ny"])
def test_examples_of_bad_names(name: str) -> None:
    assert header_problems(name, "v") == [f"header name {name!r} is not an HTTP token"]


@given(st.text(VALUE_CHARS, max_size=MAX_HEADER_VALUE + 20))
def test_values_of_visible_ascii_are_fine_up_to_the_length_limit(value: str) -> None:
    assert (header_problems("X-Token", value) == []) == (len(value) <= MAX_HEADER_VALUE)


@pytest.mark.parametrize("bad", ["\r", "\n", "\x00", "\x7f", "\x1b", "é", "\u2028"])
@given(before=st.text(VALUE_CHARS, max_size=10), after=st.text(VALUE_CHARS, max_size=10))
def test_values_with_cr_lf_nul_or_other_controls_are_refused(bad: str, before: str, after: str) -> None:
    problems = header_problems("X-Token", before + bad + after)
    assert problems == ["the value of header 'X-Token' has control or non-ASCII characters"]


def test_the_same_name_twice_is_refused_in_any_case() -> None:
    with pytest.raises(InvalidWebhook, match="given twice"):
        parse_headers([("X-Token", "a"), ("x-token", "b")])


def test_names_keep_their_case() -> None:
    assert parse_headers([("X-Api-Key", "k"), ("authorization", "Bearer t")]) == {
        "X-Api-Key": "k",
        "authorization": "Bearer t",
    }


# -- the whole body ----------------------------------------------------------------


def test_registration_reports_every_broken_rule_at_once() -> None:
    with pytest.raises(InvalidWebhook) as caught:
        Registration.parse(url="http://x.com", event_type="nope", headers=[("Host", "a"), ("X-A", "b\nc")])
    details = wire_details(caught.value)
    assert details == [
        (
            "url: must be an HTTPS URL (http:// is accepted for loopback and private hosts only when the "
            "operator sets PIX_WEBHOOK_ALLOW_PRIVATE)"
        ),
        "eventType: must be one of " + ", ".join(t.value for t in REGISTRABLE),
        "headers: header 'Host' may not be set",
        "headers: the value of header 'X-A' has control or non-ASCII characters",
    ]
    assert wire_message(caught.value).startswith("Invalid webhook registration: url: must be an HTTPS URL (")


def test_a_valid_registration() -> None:
    registration = Registration.parse(
        url="https://Hooks.example.com/pix", event_type="refund_out", headers=[("X-Token", "abc")]
    )
    assert registration.url.url == "https://hooks.example.com/pix"
    assert registration.event_type is EventType.REFUND_OUT
    assert registration.headers == {"X-Token": "abc"}


# -- addresses and secrets ---------------------------------------------------------------


NON_PUBLIC = ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.0.1", "169.254.169.254", "100.64.0.1", "::1",
              "fe80::1", "fc00::1", "::ffff:127.0.0.1", "224.0.0.1", "0.0.0.0", "::", "not-an-address"]  # noqa: S104 # fmt: skip
PUBLIC = ["8.8.8.8", "203.0.114.1", "2606:4700::1111"]


def test_refused_addresses() -> None:
    assert refused_addresses(PUBLIC) == []
    assert refused_addresses(NON_PUBLIC) == NON_PUBLIC
    assert refused_addresses([*PUBLIC, "10.0.0.1"]) == ["10.0.0.1"]


def test_secrets_are_whsec_and_24_random_bytes() -> None:
    secrets = {new_webhook_secret() for _ in range(50)}
    assert len(secrets) == 50
    for secret in secrets:
        assert secret.startswith("whsec_")
        assert len(base64.b64decode(secret.removeprefix("whsec_"), validate=True)) == 24
        assert is_secret(secret)
    assert not is_secret("whsec_abc")
    assert not is_secret("sk_" + "A" * 32)
