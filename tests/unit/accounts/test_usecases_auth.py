"""issue_token, run on the in-memory fakes: the order of its checks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import pytest

from pixcore.accounts.accounts_service import link_certificate
from pixcore.accounts.credentials_service import revoke_certificate
from pixcore.accounts.rules import CertificateInfo, OpenedAccount
from pixcore.accounts.token_service import (
    TOKEN_LIFETIME_SECONDS,
    check_credentials,
    issue_operator_token,
    issue_token,
)
from pixcore.clock import ManualClock
from pixcore.errors import (
    AuthenticationError,
    CertificateNotLinked,
    CertificateRevoked,
    InvalidCertificate,
    InvalidCredentials,
    PermissionDenied,
)
from pixcore.testing import (
    InlineVerifier,
    InMemoryStore,
    IssueCall,
    PlainHasher,
    RecordingTokenIssuer,
)
from tests.unit.usecase_helpers import (
    OTHER_CPF,
    certificate_for,
    open_test_account,
)

# -- issue_token -------------------------------------------------------------


@dataclass
class Scene:
    """An account with its credential and a linked, currently valid certificate."""

    store: InMemoryStore
    hasher: PlainHasher
    issuer: RecordingTokenIssuer
    clock: ManualClock
    opened: OpenedAccount
    certificate: CertificateInfo

    async def issue(
        self,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
        certificate: CertificateInfo | None = None,
    ) -> str:
        token = await issue_token(
            self.store.unit_of_work,
            InlineVerifier(self.hasher),
            self.issuer,
            self.clock,
            client_id=self.opened.client_id if client_id is None else client_id,
            client_secret=self.opened.client_secret if client_secret is None else client_secret,
            certificate=self.certificate if certificate is None else certificate,
        )
        assert token.account_id == self.opened.account.id
        return token.access_token


@pytest.fixture
async def scene(
    store: InMemoryStore, hasher: PlainHasher, issuer: RecordingTokenIssuer, clock: ManualClock
) -> Scene:
    opened = await open_test_account(store, hasher)
    certificate = certificate_for(clock)
    await link_certificate(
        store.unit_of_work, account_id=opened.account.id, certificate=certificate, clock=clock
    )
    return Scene(store, hasher, issuer, clock, opened, certificate)


async def test_a_token_is_issued_for_the_account_certificate_and_clock_time(scene: Scene) -> None:
    scene.clock.advance(90)

    token = await issue_token(
        scene.store.unit_of_work,
        InlineVerifier(scene.hasher),
        scene.issuer,
        scene.clock,
        client_id=scene.opened.client_id,
        client_secret=scene.opened.client_secret,
        certificate=scene.certificate,
    )

    call = IssueCall(scene.opened.account.id, scene.certificate.fingerprint, scene.clock.now())
    assert scene.issuer.calls == [call]
    assert token.access_token == f"token:{call.account_id}:{call.fingerprint}:{call.issued_at.isoformat()}"
    assert token.account_id == scene.opened.account.id
    assert (token.expires_in, token.token_type) == (TOKEN_LIFETIME_SECONDS, "Bearer")


async def test_an_unknown_client_is_refused_and_still_spends_a_hash(scene: Scene) -> None:
    expired = certificate_for(scene.clock, "stranger", days=-1)  # and unlinked: credentials come first
    hashes_before = scene.hasher.hash_calls

    with pytest.raises(InvalidCredentials) as caught:
        await scene.issue(client_id="pix_unknown", certificate=expired)

    assert isinstance(caught.value, AuthenticationError)
    assert scene.hasher.hash_calls == hashes_before + 1  # no client-id oracle by timing
    assert scene.issuer.calls == []


async def test_a_wrong_secret_is_refused_before_the_certificate_is_looked_at(scene: Scene) -> None:
    expired = certificate_for(scene.clock, "stranger", days=-1)

    with pytest.raises(InvalidCredentials):
        await scene.issue(client_secret=scene.opened.client_secret + "x")
    with pytest.raises(InvalidCredentials):
        await scene.issue(client_secret="", certificate=expired)

    assert scene.issuer.calls == []


async def test_the_secret_of_another_client_is_refused(scene: Scene) -> None:
    other = await open_test_account(scene.store, scene.hasher, document=OTHER_CPF)

    with pytest.raises(InvalidCredentials):
        await scene.issue(client_secret=other.client_secret)


async def test_an_expired_certificate_is_refused_before_the_link_is_checked(scene: Scene) -> None:
    unlinked = certificate_for(scene.clock, "unlinked")
    scene.clock.advance(timedelta(days=366).total_seconds())

    with pytest.raises(InvalidCertificate):
        await scene.issue()
    with pytest.raises(InvalidCertificate):
        await scene.issue(certificate=unlinked)

    assert scene.issuer.calls == []


async def test_a_certificate_not_yet_valid_is_refused(scene: Scene) -> None:
    now = scene.clock.now()
    future = CertificateInfo(
        fingerprint=scene.certificate.fingerprint,
        subject=scene.certificate.subject,
        not_before=now + timedelta(seconds=1),
        not_after=now + timedelta(days=30),
    )

    with pytest.raises(InvalidCertificate):
        await scene.issue(certificate=future)


async def test_the_validity_period_includes_both_ends(scene: Scene) -> None:
    now = scene.clock.now()
    exact = CertificateInfo(scene.certificate.fingerprint, scene.certificate.subject, now, now)

    assert await scene.issue(certificate=exact)
    scene.clock.advance(0.001)
    with pytest.raises(InvalidCertificate):
        await scene.issue(certificate=exact)


async def test_an_unlinked_certificate_is_not_linked(scene: Scene) -> None:
    with pytest.raises(CertificateNotLinked) as caught:
        await scene.issue(certificate=certificate_for(scene.clock, "unlinked"))

    assert isinstance(caught.value, PermissionDenied)
    assert scene.issuer.calls == []


async def test_a_certificate_of_another_account_is_not_linked(scene: Scene) -> None:
    other = await open_test_account(scene.store, scene.hasher, document=OTHER_CPF)
    theirs = certificate_for(scene.clock, "theirs")
    await link_certificate(
        scene.store.unit_of_work, account_id=other.account.id, certificate=theirs, clock=scene.clock
    )

    with pytest.raises(CertificateNotLinked):
        await scene.issue(certificate=theirs)

    assert scene.issuer.calls == []


# -- before_secret: what the caller's rate limit keys on -----------------------


class Refused(Exception):
    """What a rate limit raises in these tests."""


async def _heard(
    scene: Scene, *, client_id: str | None = None, certificate: CertificateInfo | None = None
) -> bool:
    """What ``before_secret`` hears for an attempt with the wrong secret (refused by the hook)."""
    heard: list[bool] = []
    verified_before = scene.hasher.verify_calls

    def hook(own: bool) -> None:
        heard.append(own)
        raise Refused

    with pytest.raises(Refused):
        await issue_token(
            scene.store.unit_of_work,
            InlineVerifier(scene.hasher),
            scene.issuer,
            scene.clock,
            client_id=scene.opened.client_id if client_id is None else client_id,
            client_secret="wrong",
            certificate=scene.certificate if certificate is None else certificate,
            before_secret=hook,
        )
    assert scene.hasher.verify_calls == verified_before  # refused before any hash
    assert scene.issuer.calls == []
    assert len(heard) == 1
    return heard[0]


async def test_before_secret_hears_own_only_for_the_client_s_linked_certificate_in_force(
    scene: Scene,
) -> None:
    other = await open_test_account(scene.store, scene.hasher, document=OTHER_CPF)
    theirs = certificate_for(scene.clock, "theirs")
    await link_certificate(
        scene.store.unit_of_work, account_id=other.account.id, certificate=theirs, clock=scene.clock
    )

    assert await _heard(scene) is True
    assert await _heard(scene, certificate=certificate_for(scene.clock, "self-signed")) is False
    assert await _heard(scene, certificate=theirs) is False  # linked, to another account
    assert await _heard(scene, client_id=other.client_id) is False  # ours, with their client id
    assert await _heard(scene, client_id="pix_unknown") is False
    scene.clock.advance(timedelta(days=366).total_seconds())
    assert await _heard(scene) is False  # expired


async def test_before_secret_hears_a_revoked_certificate_is_not_own(scene: Scene) -> None:
    await revoke_certificate(
        scene.store.unit_of_work,
        scene.clock,
        account_id=scene.opened.account.id,
        fingerprint=scene.certificate.fingerprint,
    )
    assert await _heard(scene) is False


async def test_a_hook_that_lets_the_attempt_through_changes_nothing(scene: Scene) -> None:
    heard: list[bool] = []
    token = await issue_token(
        scene.store.unit_of_work,
        InlineVerifier(scene.hasher),
        scene.issuer,
        scene.clock,
        client_id=scene.opened.client_id,
        client_secret=scene.opened.client_secret,
        certificate=scene.certificate,
        before_secret=heard.append,
    )
    assert heard == [True]
    assert token.account_id == scene.opened.account.id


# -- issue_operator_token (pixweb admin token) ---------------------------------


async def operator_token(scene: Scene, account_id: int, certificate: CertificateInfo) -> str:
    issued = await issue_operator_token(
        scene.store.unit_of_work, scene.issuer, scene.clock, account_id=account_id, certificate=certificate
    )
    assert issued.account_id == account_id
    return issued.access_token


async def test_the_operator_gets_a_token_bound_to_the_linked_certificate(scene: Scene) -> None:
    assert await operator_token(scene, scene.opened.account.id, scene.certificate)
    assert [call.fingerprint for call in scene.issuer.calls] == [scene.certificate.fingerprint]


async def test_the_operator_s_token_has_the_certificate_checks_of_the_endpoint(scene: Scene) -> None:
    account = scene.opened.account.id
    with pytest.raises(CertificateNotLinked):
        await operator_token(scene, account, certificate_for(scene.clock, "unlinked"))
    with pytest.raises(CertificateNotLinked):  # linked, but to this account, not to another
        await operator_token(scene, account + 1, scene.certificate)
    await revoke_certificate(
        scene.store.unit_of_work, scene.clock, account_id=account, fingerprint=scene.certificate.fingerprint
    )
    with pytest.raises(CertificateRevoked):
        await operator_token(scene, account, scene.certificate)
    expired = certificate_for(scene.clock, "old")
    await link_certificate(
        scene.store.unit_of_work, account_id=account, certificate=expired, clock=scene.clock
    )
    scene.clock.advance(400 * 86_400)
    with pytest.raises(InvalidCertificate):
        await operator_token(scene, account, expired)
    assert scene.issuer.calls == []


# -- check_credentials (the console's sign-in) ---------------------------------


async def test_check_credentials_gives_the_account_of_the_client_and_needs_no_certificate(
    scene: Scene,
) -> None:
    verifier = InlineVerifier(scene.hasher)
    account_id = await check_credentials(
        scene.store.unit_of_work,
        verifier,
        client_id=scene.opened.client_id,
        client_secret=scene.opened.client_secret,
    )
    assert account_id == scene.opened.account.id
    assert scene.issuer.calls == []  # no token issued


@pytest.mark.parametrize("wrong", ["secret", "client id"])
async def test_check_credentials_refuses_a_wrong_secret_or_unknown_client_alike(
    scene: Scene, wrong: str
) -> None:
    with pytest.raises(InvalidCredentials):
        await check_credentials(
            scene.store.unit_of_work,
            InlineVerifier(scene.hasher),
            client_id="nobody" if wrong == "client id" else scene.opened.client_id,
            client_secret="wrong" if wrong == "secret" else scene.opened.client_secret,
        )
