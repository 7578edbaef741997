"""A primary and a synchronous standby of the test's own, from the PostgreSQL packaged on this
machine (Debian's ``/usr/lib/postgresql/<version>/bin``), on free TCP ports of 127.0.0.1, in a
temporary folder.

The standby is made with ``pg_basebackup -R`` and streams from the primary, which names it in
``synchronous_standby_names`` with ``synchronous_commit = on``: a commit is acknowledged only once
the standby has the WAL on disk. The test may then kill the primary (every one of its processes,
SIGKILL) and promote the standby, as an operator or a failover tool would.

PostgreSQL's programs refuse to run as root: when the test does, they run as the ``postgres``
user (``runuser``), which is given the folder.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncpg
import pytest

from tests.faults.processes import free_port

STANDBY_NAME = "standby1"


def postgres_bin() -> Path | None:
    """The newest packaged PostgreSQL's ``bin`` folder, or None if there is none."""
    found = sorted(
        (folder for folder in Path("/usr/lib/postgresql").glob("*/bin") if (folder / "initdb").exists()),
        key=lambda folder: int(folder.parent.name) if folder.parent.name.isdigit() else 0,
    )
    return found[-1] if found else None


def _children(pid: int) -> list[int]:
    """Every process whose parent is ``pid`` (read from ``/proc``)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


class Server:
    """One PostgreSQL server: its data folder, port and log."""

    def __init__(self, pair: ReplicatedPair, name: str) -> None:
        self.pair, self.name = pair, name
        self.pgdata = pair.folder / name
        self.port = free_port()
        self.log = pair.folder / f"{name}.log"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@{self.host}/{database}"

    def pid(self) -> int:
        return int((self.pgdata / "postmaster.pid").read_text().splitlines()[0])

    def configure(self, **settings: str) -> None:
        with (self.pgdata / "postgresql.auto.conf").open("a") as conf:
            conf.writelines(f"{name} = '{value}'\n" for name, value in settings.items())

    def start(self) -> None:
        self.pair.run("pg_ctl", "-w", "-t", "60", "-D", str(self.pgdata), "-l", str(self.log), "start")

    def kill(self) -> None:
        """SIGKILL to the postmaster and every process it started: the machine is gone."""
        postmaster = self.pid()
        doomed = [postmaster, *_children(postmaster)]
        for pid in doomed:
            os.kill(pid, signal.SIGKILL)

    def promote(self) -> None:
        self.pair.run("pg_ctl", "promote", "-w", "-t", "60", "-D", str(self.pgdata))

    def stop(self) -> None:
        """Immediate shutdown, if it runs (clean-up)."""
        if (self.pgdata / "postmaster.pid").exists():
            self.pair.run("pg_ctl", "-m", "immediate", "-w", "-D", str(self.pgdata), "stop", check=False)


class ReplicatedPair:
    """``primary`` with ``standby`` streaming from it synchronously (:meth:`start`)."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="pixfault-ha-"))
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(self.folder, "postgres", "postgres")
        self.primary = Server(self, "primary")
        self.standby = Server(self, "standby")

    def run(self, program: str, *args: str, check: bool = True) -> None:
        argv = [str(self.bin_dir / program), *args]
        if self.as_postgres:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False, cwd=self.folder)
        if check and done.returncode != 0:
            raise AssertionError(f"{program} {' '.join(args)} exited {done.returncode}: {done.stderr}")

    def url(self, database: str, attrs: str = "read-write") -> str:
        """The service's URL: both servers, whichever is the primary (``target_session_attrs``)."""
        hosts = f"{self.primary.host},{self.standby.host}"
        return f"postgresql://postgres@{hosts}/{database}?target_session_attrs={attrs}"

    def start(self, **standby_settings: str) -> None:
        """Both servers, streaming; ``standby_settings``: more of the standby's configuration
        (``recovery_min_apply_delay="2s"``: a standby that lags)."""
        primary, standby = self.primary, self.standby
        self.run("initdb", "-D", str(primary.pgdata), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        primary.configure(
            port=str(primary.port),
            listen_addresses="127.0.0.1",
            unix_socket_directories=str(self.folder),
            wal_level="replica",
            max_wal_senders="5",
            max_connections="100",
            synchronous_standby_names=STANDBY_NAME,
            synchronous_commit="on",
        )
        primary.start()
        self.run(
            "pg_basebackup", "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres",
            "-D", str(standby.pgdata), "-R", "-X", "stream", "-c", "fast",
        )  # fmt: skip
        # -R wrote primary_conninfo; written again (later lines win) to carry the name the primary
        # waits for. The primary's synchronous_standby_names came with the copy: once promoted,
        # the standby would wait for a standby of its own that never comes, and hold every commit.
        # Emptied, it runs alone after the failover (as Patroni's synchronous_mode does, until a
        # new standby is attached).
        standby.configure(
            port=str(standby.port),
            synchronous_standby_names="",
            primary_conninfo=(
                f"host=127.0.0.1 port={primary.port} user=postgres application_name={STANDBY_NAME}"
            ),
            **standby_settings,
        )
        standby.start()

    async def wait_synchronous(self, within: float = 60.0) -> None:
        """Until the primary reports the standby streaming, synchronous."""
        async with asyncio.timeout(within):
            while True:
                conn = await asyncpg.connect(self.primary.url())
                try:
                    state = await conn.fetchval(
                        "SELECT sync_state FROM pg_stat_replication WHERE application_name = $1",
                        STANDBY_NAME,
                    )
                finally:
                    await conn.close()
                if state == "sync":
                    return
                await asyncio.sleep(0.2)

    def cleanup(self) -> None:
        for server in (self.standby, self.primary):
            server.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextmanager
def replicated_pair(**standby_settings: str) -> Iterator[ReplicatedPair]:
    """A started pair (``standby_settings`` as :meth:`ReplicatedPair.start`'s), cleaned up after.
    Without Debian's PostgreSQL it is a failure, not a skip: the suites' promise needs both."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        pytest.fail(
            "no packaged PostgreSQL (/usr/lib/postgresql/<version>/bin): install Debian's `postgresql`"
            " package (apt-get install postgresql) to run the replication tests"
        )
    servers = ReplicatedPair(bin_dir)
    try:
        servers.start(**standby_settings)
        yield servers
    finally:
        servers.cleanup()
