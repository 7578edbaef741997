"""The credentials' life cycle on the in-memory fakes: a new secret, a revoked certificate, and
the validity period that ``link_certificate`` checks against the service clock."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

import pytest

from pixcore.accounts.accounts_service import link_certificate
from pixcore.accounts.credentials_service import revoke_certificate, revoke_secret, rotate_secret
from pixcore.accounts.rules import (
    REVOKED_SECRET,
    CertificateInfo,
    LinkedCertificate,
    NewAccount,
    OpenedAccount,
)
from pixcore.accounts.sessions import SessionState
from pixcore.accounts.sessions_service import ConsoleSessions
from pixcore.accounts.token_service import check_credentials, issue_token
from pixcore.clock import ManualClock
from pixcore.errors import (
    AccountNotFound,
    AuthenticationError,
    CertificateNotFound,
    CertificateRevoked,
    CredentialNotFound,
    InvalidCertificate,
    InvalidCredentials,
    InvalidIdentifier,
)
from pixcore.testing import InlineVerifier, InMemoryStore, PlainHasher, RecordingTokenIssuer
from tests.unit.usecase_helpers import HOLDER_CNPJ, ISPB, OTHER_CPF, certificate_for, open_test_account


@dataclass
class Holder:
    store: InMemoryStore
    hasher: PlainHasher
    clock: ManualClock
    opened: OpenedAccount
    certificate: CertificateInfo

    @property
    def account_id(self) -> int:
        return self.opened.account.id

    async def token(self, secret: str | None = None, certificate: CertificateInfo | None = None) -> str:
        issued = await issue_token(
            self.store.unit_of_work,
            InlineVerifier(self.hasher),
            RecordingTokenIssuer(),
            self.clock,
            client_id=self.opened.client_id,
            client_secret=self.opened.client_secret if secret is None else secret,
            certificate=certificate or self.certificate,
        )
        return issued.access_token


@pytest.fixture
async def holder(store: InMemoryStore, hasher: PlainHasher, clock: ManualClock) -> Holder:
    opened = await open_test_account(store, hasher)
    certificate = certificate_for(clock)
    await link_certificate(
        store.unit_of_work, account_id=opened.account.id, certificate=certificate, clock=clock
    )
    return Holder(store, hasher, clock, opened, certificate)


# -- rotate_secret ---------------------------------------------------------------


async def test_a_rotated_secret_replaces_the_old_one_for_the_same_client_id(holder: Holder) -> None:
    rotated = await rotate_secret(holder.store.unit_of_work, holder.hasher, account_id=holder.account_id)

    assert rotated.account_id == holder.account_id
    assert rotated.client_id == holder.opened.client_id
    assert rotated.client_secret != holder.opened.client_secret
    assert len(rotated.client_secret) >= 32
    with pytest.raises(InvalidCredentials):
        await holder.token()  # the old secret
    assert await holder.token(secret=rotated.client_secret)
    stored = holder.store.credentials[rotated.client_id]
    assert rotated.client_secret not in stored.secret_hash  # kept only as a hash
    assert list(holder.store.credentials) == [holder.opened.client_id]  # replaced, not added


async def test_rotating_twice_leaves_only_the_last_secret(holder: Holder) -> None:
    first = await rotate_secret(holder.store.unit_of_work, holder.hasher, account_id=holder.account_id)
    second = await rotate_secret(holder.store.unit_of_work, holder.hasher, account_id=holder.account_id)

    with pytest.raises(InvalidCredentials):
        await holder.token(secret=first.client_secret)
    assert await holder.token(secret=second.client_secret)


async def test_rotating_the_secret_of_an_unknown_account_changes_nothing(holder: Holder) -> None:
    before = dict(holder.store.credentials)

    with pytest.raises(AccountNotFound):
        await rotate_secret(holder.store.unit_of_work, holder.hasher, account_id=holder.account_id + 1)

    assert holder.store.credentials == before
    assert await holder.token()


# -- revoke_certificate -----------------------------------------------------------


async def test_a_revoked_certificate_obtains_no_token(holder: Holder) -> None:
    holder.clock.advance(60)

    revoked = await revoke_certificate(
        holder.store.unit_of_work,
        holder.clock,
        account_id=holder.account_id,
        fingerprint=holder.certificate.fingerprint,
    )

    assert revoked == LinkedCertificate(holder.certificate.fingerprint, holder.account_id, holder.clock.now())
    with pytest.raises(CertificateRevoked) as caught:
        await holder.token()
    assert isinstance(caught.value, AuthenticationError)  # 401, as an expired certificate


async def test_revoking_again_keeps_the_first_moment(holder: Holder) -> None:
    first = await revoke_certificate(
        holder.store.unit_of_work,
        holder.clock,
        account_id=holder.account_id,
        fingerprint=holder.certificate.fingerprint,
    )
    holder.clock.advance(3600)

    again = await revoke_certificate(
        holder.store.unit_of_work,
        holder.clock,
        account_id=holder.account_id,
        fingerprint=holder.certificate.fingerprint,
    )

    assert again.revoked_at == first.revoked_at


async def test_the_fingerprint_may_be_written_as_openssl_prints_it(holder: Holder) -> None:
    hex_pairs = holder.certificate.fingerprint.upper()
    openssl = ":".join(hex_pairs[i : i + 2] for i in range(0, len(hex_pairs), 2))

    revoked = await revoke_certificate(
        holder.store.unit_of_work, holder.clock, account_id=holder.account_id, fingerprint=openssl
    )

    assert revoked.fingerprint == holder.certificate.fingerprint
    with pytest.raises(CertificateRevoked):
        await holder.token()


@pytest.mark.parametrize("fingerprint", ["", "abc", "g" * 64, "a" * 63, "a" * 65, "x" + "a" * 63])
async def test_a_malformed_fingerprint_is_refused(holder: Holder, fingerprint: str) -> None:
    with pytest.raises(InvalidIdentifier):
        await revoke_certificate(
            holder.store.unit_of_work, holder.clock, account_id=holder.account_id, fingerprint=fingerprint
        )
    assert await holder.token()


async def test_an_unknown_fingerprint_is_not_found(holder: Holder) -> None:
    with pytest.raises(CertificateNotFound):
        await revoke_certificate(
            holder.store.unit_of_work,
            holder.clock,
            account_id=holder.account_id,
            fingerprint=certificate_for(holder.clock, "never linked").fingerprint,
        )


async def test_a_certificate_of_another_account_is_not_found_and_stays_in_force(holder: Holder) -> None:
    other = await open_test_account(holder.store, holder.hasher, document=OTHER_CPF)

    with pytest.raises(CertificateNotFound):
        await revoke_certificate(
            holder.store.unit_of_work,
            holder.clock,
            account_id=other.account.id,
            fingerprint=holder.certificate.fingerprint,
        )

    assert holder.store.certificates[holder.certificate.fingerprint].revoked_at is None
    assert await holder.token()


async def test_revoking_for_an_unknown_account_is_account_not_found(holder: Holder) -> None:
    with pytest.raises(AccountNotFound):
        await revoke_certificate(
            holder.store.unit_of_work,
            holder.clock,
            account_id=holder.account_id + 1,
            fingerprint=holder.certificate.fingerprint,
        )


# -- link_certificate: the validity period and revocation ----------------------------


async def test_an_expired_certificate_is_not_linked(holder: Holder) -> None:
    expired = certificate_for(holder.clock, "expired", days=-1)

    with pytest.raises(InvalidCertificate, match="expired"):
        await link_certificate(
            holder.store.unit_of_work, account_id=holder.account_id, certificate=expired, clock=holder.clock
        )

    assert expired.fingerprint not in holder.store.certificates


async def test_a_certificate_not_yet_valid_is_not_linked(holder: Holder) -> None:
    now = holder.clock.now()
    future = CertificateInfo("ab" * 32, "CN=future", now + timedelta(seconds=1), now + timedelta(days=30))

    with pytest.raises(InvalidCertificate, match="not yet valid"):
        await link_certificate(
            holder.store.unit_of_work, account_id=holder.account_id, certificate=future, clock=holder.clock
        )

    assert future.fingerprint not in holder.store.certificates


async def test_the_service_clock_decides_expiry_at_link(holder: Holder) -> None:
    certificate = certificate_for(holder.clock, "a month", days=30)
    holder.clock.advance(timedelta(days=31).total_seconds())  # the sandbox moved time on

    with pytest.raises(InvalidCertificate):
        await link_certificate(
            holder.store.unit_of_work,
            account_id=holder.account_id,
            certificate=certificate,
            clock=holder.clock,
        )


async def test_a_revoked_certificate_cannot_be_linked_again(holder: Holder) -> None:
    await revoke_certificate(
        holder.store.unit_of_work,
        holder.clock,
        account_id=holder.account_id,
        fingerprint=holder.certificate.fingerprint,
    )

    with pytest.raises(CertificateRevoked):
        await link_certificate(
            holder.store.unit_of_work,
            account_id=holder.account_id,
            certificate=holder.certificate,
            clock=holder.clock,
        )

    assert holder.store.certificates[holder.certificate.fingerprint].revoked_at is not None


# -- console sessions end with the credentials -------------------------------------------


async def _two_sessions(holder: Holder) -> tuple[ConsoleSessions, list[str], str]:
    """Two sessions of the holder's account and one of another account; their tokens."""
    sessions = ConsoleSessions(holder.store.unit_of_work, holder.clock)
    mine = [(await sessions.start(holder.account_id))[0] for _ in range(2)]
    other = await open_test_account(holder.store, holder.hasher, document=OTHER_CPF)
    theirs, _ = await sessions.start(other.account.id)
    return sessions, mine, theirs


async def _states(sessions: ConsoleSessions, tokens: list[str]) -> list[SessionState | None]:
    return [(await sessions.open(token)).state for token in tokens]


async def test_a_new_secret_ends_the_accounts_console_sessions_in_its_transaction(holder: Holder) -> None:
    sessions, mine, theirs = await _two_sessions(holder)
    commits = holder.store.commits
    await rotate_secret(
        holder.store.unit_of_work, holder.hasher, account_id=holder.account_id, clock=holder.clock
    )
    assert holder.store.commits == commits + 1  # one transaction: the secret and the sessions
    assert await _states(sessions, mine) == [SessionState.ENDED, SessionState.ENDED]
    assert await _states(sessions, [theirs]) == [SessionState.LIVE]


async def test_a_revoked_certificate_ends_the_accounts_console_sessions(holder: Holder) -> None:
    sessions, mine, theirs = await _two_sessions(holder)
    commits = holder.store.commits
    await revoke_certificate(
        holder.store.unit_of_work,
        holder.clock,
        account_id=holder.account_id,
        fingerprint=holder.certificate.fingerprint,
    )
    assert holder.store.commits == commits + 1
    assert await _states(sessions, mine) == [SessionState.ENDED, SessionState.ENDED]
    assert await _states(sessions, [theirs]) == [SessionState.LIVE]


async def test_a_revoked_secret_ends_the_sessions_and_no_secret_passes_until_a_new_one(
    holder: Holder,
) -> None:
    sessions, mine, theirs = await _two_sessions(holder)
    client_id = await revoke_secret(holder.store.unit_of_work, holder.clock, account_id=holder.account_id)
    assert client_id == holder.opened.client_id
    assert await _states(sessions, mine) == [SessionState.ENDED, SessionState.ENDED]
    assert await _states(sessions, [theirs]) == [SessionState.LIVE]
    verifier = InlineVerifier(holder.hasher)
    for secret in (holder.opened.client_secret, REVOKED_SECRET):
        with pytest.raises(InvalidCredentials):
            await check_credentials(
                holder.store.unit_of_work, verifier, client_id=client_id, client_secret=secret
            )
    assert verifier.decoys == 2  # answered as an unknown client: no revoked-client oracle
    rotated = await rotate_secret(holder.store.unit_of_work, holder.hasher, account_id=holder.account_id)
    assert rotated.client_id == client_id
    assert await holder.token(rotated.client_secret)


async def test_revoking_the_secret_of_no_account_or_of_an_account_without_one_is_refused(
    holder: Holder,
) -> None:
    with pytest.raises(AccountNotFound):
        await revoke_secret(holder.store.unit_of_work, holder.clock, account_id=holder.account_id + 1)
    async with holder.store.unit_of_work() as tx:
        account = await tx.accounts.add(NewAccount(ISPB, "No Client", HOLDER_CNPJ, "RECIFE"))
        await tx.commit()
    with pytest.raises(CredentialNotFound):
        await revoke_secret(holder.store.unit_of_work, holder.clock, account_id=account.id)
