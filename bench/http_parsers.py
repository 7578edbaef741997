"""What the HTTP/1.1 protocol costs: the bare floor (``bench/_echo_app.py``, a Litestar POST echoing a
msgspec struct) on one uvicorn process with uvloop, under each protocol, driven by wrk:

* ``httptools``: uvicorn's own httptools protocol (no cap on a request's head);
* ``limited``: ``pixweb.http_protocol.LimitedHttpToolsProtocol``, what ``pixweb serve`` runs (the
  same parser, the head capped at ``PIX_MAX_HEADER_BYTES``, the parser's 400 in the error shape);
* ``h11``: uvicorn's h11 protocol, which has a cap of its own (``h11_max_incomplete_event_size``).

The protocols take turns, ``--rounds`` times, so that a change in the machine's load falls on all of
them alike; the table gives each run's throughput and the server's CPU a request (the steadier
figure on a shared machine), and the median of each per protocol.

    .venv/bin/python bench/http_parsers.py [--duration 5] [--connections 16] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import msgspec
from _cpu import CpuMeter  # bench/ is on sys.path
from _servers import child, free_port
from _wrk import WrkResult, ensure_wrk, run_wrk

HERE = Path(__file__).resolve().parent
PROTOCOLS = {
    "httptools": "httptools",
    "limited": "pixweb.http_protocol:LimitedHttpToolsProtocol",
    "h11": "h11",
}
BODY = msgspec.json.encode({"pixKey": "+5561912345678", "payment": {"currency": "BRL", "amount": "0.01"}})


def serve(protocol: str, port: int) -> None:
    import uvicorn

    sys.path.insert(0, str(HERE))
    uvicorn.run(
        "_echo_app:app",
        port=port,
        log_level="warning",
        access_log=False,
        loop="uvloop",
        http=PROTOCOLS[protocol],
        h11_max_incomplete_event_size=64 * 1024,
    )


def measure(protocol: str, args: argparse.Namespace, folder: Path) -> tuple[float, float]:
    """(requests a second, the server's CPU microseconds a request) of one run."""
    port = free_port()
    command = [sys.executable, str(Path(__file__).resolve()), "--serve", protocol, str(port)]
    url = f"http://127.0.0.1:{port}"
    with child(command, None, folder / f"{protocol}.log", ready_url=f"{url}/pid") as process:

        def run(seconds: float) -> WrkResult:
            headers = {"content-type": "application/json"}
            return run_wrk(
                f"{url}/dict/pix",
                connections=args.connections,
                seconds=seconds,
                body=BODY,
                headers=headers,
                unique_keys=False,
            )

        run(1)  # warm-up
        meter = CpuMeter(process.pid, "-")
        before = meter.sample()
        result = run(args.duration)
        server = meter.spent(before, meter.sample(), load=result.cpu).get("server", float("nan"))
    return result.requests / result.seconds, server / result.requests * 1e6


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--serve":
        serve(sys.argv[2], int(sys.argv[3]))
        return
    import tempfile

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--duration", type=float, default=5.0, help="seconds measured per run (default 5)")
    parser.add_argument("--connections", type=int, default=16, help="wrk's connections (default 16)")
    parser.add_argument("--rounds", type=int, default=3, help="turns of every protocol (default 3)")
    args = parser.parse_args()
    ensure_wrk()
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in PROTOCOLS}
    with tempfile.TemporaryDirectory(prefix="pixbench-") as folder:
        for round_ in range(args.rounds):
            for name in PROTOCOLS:
                rate, cpu = measure(name, args, Path(folder))
                runs[name].append((rate, cpu))
                print(
                    f"  round {round_ + 1}, {name}: {rate:,.0f} requests/s, {cpu:.0f} us CPU a request",
                    flush=True,
                )
    print(f"\n| protocol | {' | '.join(f'run {n + 1}' for n in range(args.rounds))} | median |")
    print(f"|---|{'---:|' * (args.rounds + 1)}")
    for name, figures in runs.items():
        cells = " | ".join(f"{rate:,.0f} /s, {cpu:.0f} us" for rate, cpu in figures)
        rates, cpus = [rate for rate, _ in figures], [cpu for _, cpu in figures]
        print(f"| {name} | {cells} | {statistics.median(rates):,.0f} /s, {statistics.median(cpus):.0f} us |")


if __name__ == "__main__":
    main()
