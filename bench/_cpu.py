"""CPU seconds of the machine and of the parties of a benchmark run, from Linux's /proc.

The server is a process and its descendants (``pixweb serve --workers N``: the supervisor and its
workers); PostgreSQL backends are told by their process title, which names the database; the
load generator is wrk (its CPU from ``wait4``, handed in) or, for the SQL baselines, this process.
What is left of the machine's busy time (WAL writer, checkpointer, anything else) is "other"."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CpuMeter", "CpuSample"]


@dataclass(frozen=True)
class CpuSample:
    busy: float  # CPU seconds the whole machine spent since boot (not idle, iowait or steal)
    server: dict[int, float]  # the server process and its descendants, by pid
    own: float  # this process
    backends: dict[int, float]  # PostgreSQL backends of the bench database, by pid


class CpuMeter:
    def __init__(self, server_pid: int | None, database: str) -> None:
        self.server_pid = server_pid
        self.title = f" {database} ".encode()
        self.hertz = os.sysconf("SC_CLK_TCK")

    def _stat(self, pid: int | str) -> tuple[int, float]:
        """(parent pid, CPU seconds) of a process."""
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[1]), (int(fields[11]) + int(fields[12])) / self.hertz  # ppid; utime + stime

    def sample(self) -> CpuSample | None:
        try:
            ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
        except OSError:
            return None  # not Linux: no CPU figures
        parents: dict[int, int] = {}
        cpu: dict[int, float] = {}
        backends: dict[int, float] = {}
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError, ValueError, IndexError):
                pid = int(entry.name)
                parents[pid], cpu[pid] = self._stat(pid)
                if self.title in Path(entry.path, "cmdline").read_bytes():
                    backends[pid] = cpu[pid]
        server: dict[int, float] = {}
        if self.server_pid is not None:
            tree = {self.server_pid}
            grown = True
            while grown:
                more = {pid for pid, parent in parents.items() if parent in tree} - tree
                tree |= more
                grown = bool(more)
            server = {pid: cpu[pid] for pid in tree if pid in cpu}
        own = os.times()
        busy = (sum(ticks[:3]) + ticks[5] + ticks[6]) / self.hertz  # user nice system irq softirq
        return CpuSample(busy, server, own.user + own.system, backends)

    @staticmethod
    def spent(
        before: CpuSample | None, after: CpuSample | None, load: float | None = None
    ) -> dict[str, float]:
        """CPU seconds between two samples: server, load (``load`` given: wrk's; else this
        process's), postgres (our backends), other."""
        if before is None or after is None:
            return {}

        def grew(a: dict[int, float], b: dict[int, float]) -> float:
            return sum(seconds - a.get(pid, 0.0) for pid, seconds in b.items())

        server, postgres = grew(before.server, after.server), grew(before.backends, after.backends)
        generator = load if load is not None else after.own - before.own
        other = max(0.0, after.busy - before.busy - server - generator - postgres)
        return {"server": server, "load": generator, "postgres": postgres, "other": other}
