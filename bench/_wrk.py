"""wrk, the C load generator, as the benchmarks drive it: installed if missing (Debian's package),
one Lua script that gives every request a unique ``x-idempotency-key`` (a UUID v4 made of the
run's nonce, wrk's thread and a counter) and reports its figures as one JSON line.

The method, body and headers come from the environment of the wrk process (``WRK_METHOD``,
``WRK_BODY``, ``WRK_HEADERS``: a JSON object, flattened into ``name: value`` lines), so the
script stays one file."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["WrkResult", "ensure_wrk", "run_wrk"]

SCRIPT = r"""
wrk.method = os.getenv("WRK_METHOD") or "POST"
wrk.body = os.getenv("WRK_BODY")
for line in string.gmatch(os.getenv("WRK_HEADERS") or "", "[^\n]+") do
  local name, value = string.match(line, "^([^:]+): (.*)$")
  wrk.headers[name] = value
end

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end

local nonce, unique, counter = 0, false, 0
function init(args)
  nonce = tonumber(args[1], 16)
  unique = args[2] == "1"
end

function request()
  if unique then
    counter = counter + 1
    wrk.headers["x-idempotency-key"] = string.format(
      "%08x-%04x-4000-8000-%012x", nonce, tid or 0, counter)
  end
  return wrk.format()
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '\nWRK-JSON {"requests": %d, "duration_us": %d, "non2xx": %d, "socket_errors": %d,'
      .. ' "p50_us": %d, "p99_us": %d}\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"""


@dataclass(frozen=True)
class WrkResult:
    requests: int  # answered, any status
    seconds: float
    failed: int  # non-2xx answers and socket errors
    p50_ms: float
    p99_ms: float
    cpu: float  # CPU seconds wrk itself spent

    @property
    def ok(self) -> int:
        return max(0, self.requests - self.failed)

    @property
    def rate(self) -> float:
        return self.ok / self.seconds if self.seconds else 0.0


def ensure_wrk() -> str:
    """The path of ``wrk``, installed with apt-get (Debian's package) if it is missing."""
    found = shutil.which("wrk")
    if found:
        return found
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    print("wrk is missing: installing Debian's package (apt-get install wrk)", flush=True)
    subprocess.run([*sudo, "apt-get", "install", "-y", "wrk"], check=True)  # noqa: S603
    found = shutil.which("wrk")
    if not found:
        raise SystemExit("wrk could not be installed: install it (apt-get install wrk) and run again")
    return found


def run_wrk(
    url: str,
    *,
    connections: int,
    seconds: float,
    body: bytes,
    headers: dict[str, str],
    unique_keys: bool,
    threads: int = 1,
) -> WrkResult:
    """``seconds`` of POSTs of ``body`` to ``url`` on ``connections`` keep-alive connections."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(SCRIPT)
    env = os.environ | {
        "WRK_METHOD": "POST",
        "WRK_BODY": body.decode(),
        "WRK_HEADERS": "\n".join(f"{name}: {value}" for name, value in headers.items()),
    }
    command = [
        ensure_wrk(),
        f"-t{min(threads, connections)}",
        f"-c{connections}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "30s",
        "-s",
        script.name,
        url,
        "--",
        secrets.token_hex(4),
        "1" if unique_keys else "0",
    ]
    try:
        process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # noqa: S603
        assert process.stdout is not None
        output = process.stdout.read().decode(errors="replace")
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    finally:
        Path(script.name).unlink(missing_ok=True)
    line = next((ln for ln in output.splitlines() if ln.startswith("WRK-JSON ")), None)
    if process.returncode != 0 or line is None:
        raise SystemExit(f"wrk failed (exit {process.returncode}):\n{output}")
    figures = json.loads(line.removeprefix("WRK-JSON "))
    return WrkResult(
        requests=figures["requests"],
        seconds=figures["duration_us"] / 1e6,
        failed=figures["non2xx"] + figures["socket_errors"],
        p50_ms=figures["p50_us"] / 1000,
        p99_ms=figures["p99_us"] / 1000,
        cpu=usage.ru_utime + usage.ru_stime,
    )
