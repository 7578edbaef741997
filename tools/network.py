"""``make network``: a PIX network and two institutions on this machine.

* the network, ``pixnet serve`` on https://127.0.0.1:16422 (its DICT and SPI), its database an
  embedded PostgreSQL under ``<folder>/pixnet``;
* institution A (ISPB 11111111) on http://127.0.0.1:8001 and B (ISPB 22222222) on
  http://127.0.0.1:8002: two ``pixweb serve``, each a participant (``PIX_NETWORK_URL``), each with
  its embedded PostgreSQL under ``<folder>/bank-a`` and ``<folder>/bank-b`` and its demo account
  (key ``demo.<ISPB>@pix.example``, registered in the network's DICT).

The first run makes the certificates (``pixnet admin pki init``), registers both institutions and
puts 1,000,000.00 in each settlement account; a later run reuses the folder. Each process's output
goes to ``<folder>/<name>.log``, and its settings to ``<folder>/<name>.env`` (an operator's command
reads them: ``(set -a; . .pixnetwork/pixnet.env; .venv/bin/pixnet admin settlement show)``).
Ctrl-C (or SIGTERM) stops the three.

    .venv/bin/python tools/network.py [--folder .pixnetwork] [--ports 16422,8001,8002]

``PIXNETWORK_DATABASE_URL`` (a PostgreSQL server's URL) puts the three databases on that server
instead (``pixnet``, ``bank_a``, ``bank_b``, or with ``PIXNETWORK_DATABASE_PREFIX`` before each).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

BIN = Path(sys.executable).parent
NETWORK_PORT = 16422
SETTLEMENT_FUNDS = "1000000.00"


@dataclass(frozen=True)
class Bank:
    name: str
    ispb: str
    port: int

    @property
    def folder_name(self) -> str:
        return f"bank-{self.name.lower()}"


BANKS = (Bank("A", "11111111", 8001), Bank("B", "22222222", 8002))


def _ports(text: str) -> tuple[int, int, int]:
    try:
        network, a, b = (int(port) for port in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            "three ports: the network's, A's and B's (16422,8001,8002)"
        ) from None
    return network, a, b


def _database(name: str) -> dict[str, str]:
    """The database settings of one process: on ``PIXNETWORK_DATABASE_URL``'s server, or none (an
    embedded server in its folder)."""
    server = os.environ.get("PIXNETWORK_DATABASE_URL", "").strip()
    if not server:
        return {}
    parts = urlsplit(server)
    prefix = os.environ.get("PIXNETWORK_DATABASE_PREFIX", "")
    return {"url": urlunsplit((parts.scheme, parts.netloc, "/" + prefix + name, parts.query, parts.fragment))}


def _run(command: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)  # noqa: S603 - ours
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[:4])} failed ({done.returncode}):\n{done.stderr.strip()}")
    return done.stdout


def _wait_port(port: int, process: subprocess.Popen[bytes], name: str, log: Path, within: float = 90) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"{name} stopped at start ({process.returncode}); its log: {log}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    sys.exit(f"{name} did not listen on {port} within {within:.0f} s; its log: {log}")


def _start(
    name: str, command: list[str], env: dict[str, str], folder: Path
) -> tuple[subprocess.Popen[bytes], Path]:
    log = folder / f"{name}.log"
    with log.open("ab") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)  # noqa: S603 - ours
    return process, log


def _write_settings(path: Path, env: dict[str, str], prefix: str) -> None:
    """The process's settings (``prefix``...) as a file a shell reads: ``set -a; . path``."""
    path.write_text("".join(f"{k}={shlex.quote(v)}\n" for k, v in env.items() if k.startswith(prefix)))


def _prepare_network(folder: Path, pki: Path, base: dict[str, str], network_port: int) -> dict[str, str]:
    """The certificates (once), both institutions registered, their settlement accounts funded
    (once): the network's environment."""
    if not (pki / "ca.pem").exists():
        print("making the network's certificates in", pki)
        _run(
            [
                str(BIN / "pixnet"),
                "admin",
                "pki",
                "init",
                str(pki),
                *(f"--participant={b.ispb}" for b in BANKS),
            ],
            base,
        )
    network_env = base | {
        "PIXNET_DATA_DIR": str(folder / "pixnet"),
        "PIXNET_PORT": str(network_port),
        "PIXNET_CERTIFICATE": str(pki / "network.pem"),
        "PIXNET_PRIVATE_KEY": str(pki / "network.key"),
        "PIXNET_CA_CERTIFICATE": str(pki / "ca.pem"),
    }
    if url := _database("pixnet").get("url"):
        network_env["PIXNET_DATABASE_URL"] = url
    _write_settings(folder / "pixnet.env", network_env, "PIXNET_")
    pixnet = str(BIN / "pixnet")
    for bank in BANKS:
        _run(
            [
                pixnet,
                "admin",
                "participant",
                "add",
                bank.ispb,
                f"Banco {bank.name}",
                str(pki / f"participant-{bank.ispb}.pem"),
            ],
            network_env,
        )
    balances = {
        json.loads(line)["ispb"]: json.loads(line)["balance"]
        for line in _run([pixnet, "admin", "settlement", "show"], network_env).splitlines()
    }
    for bank in BANKS:
        if balances.get(bank.ispb) in {None, "0.00"}:
            _run([pixnet, "admin", "settlement", "fund", bank.ispb, SETTLEMENT_FUNDS], network_env)
    return network_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=Path(".pixnetwork"))
    parser.add_argument("--ports", type=_ports, default=(NETWORK_PORT, 8001, 8002))
    arguments = parser.parse_args()
    folder: Path = arguments.folder.resolve()
    network_port, *bank_ports = arguments.ports
    banks = [Bank(bank.name, bank.ispb, port) for bank, port in zip(BANKS, bank_ports, strict=True)]
    folder.mkdir(parents=True, exist_ok=True)
    pki = folder / "pki"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PIX_", "PIXNET_"))}

    network_env = _prepare_network(folder, pki, base, network_port)
    pixnet = str(BIN / "pixnet")

    children: list[tuple[str, subprocess.Popen[bytes]]] = []

    def stop(*_: object) -> None:
        for _, child in reversed(children):
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for name, child in reversed(children):
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                print(f"{name} did not stop within 30 s: killed")
                child.kill()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    process, log = _start("pixnet", [pixnet, "serve"], network_env, folder)
    children.append(("pixnet", process))
    _wait_port(network_port, process, "pixnet serve", log)
    for bank in banks:
        env = base | {
            "PIX_DATA_DIR": str(folder / bank.folder_name),
            "PIX_PORT": str(bank.port),
            "PIX_ISPB": bank.ispb,
            "PIX_INSTITUTION_NAME": f"Banco {bank.name}",
            "PIX_WEBHOOK_ALLOW_PRIVATE": "on",
            "PIX_NETWORK_URL": f"https://127.0.0.1:{network_port}",
            "PIX_NETWORK_CERTIFICATE": str(pki / f"participant-{bank.ispb}.pem"),
            "PIX_NETWORK_PRIVATE_KEY": str(pki / f"participant-{bank.ispb}.key"),
            "PIX_NETWORK_CA_CERTIFICATE": str(pki / "ca.pem"),
            "PIX_NETWORK_SIGNER_CERTIFICATE": str(pki / "network.pem"),
        }
        if url := _database(bank.folder_name.replace("-", "_")).get("url"):
            env["PIX_DATABASE_URL"] = url
        _write_settings(folder / f"{bank.folder_name}.env", env, "PIX_")
        process, log = _start(bank.folder_name, [str(BIN / "pixweb"), "serve", "--demo"], env, folder)
        children.append((bank.folder_name, process))
        _wait_port(bank.port, process, f"pixweb serve ({bank.folder_name})", log)
    print(f"the network: https://127.0.0.1:{network_port} (DICT and SPI), log {folder / 'pixnet.log'}")
    for bank in banks:
        demo = json.loads((folder / bank.folder_name / "demo" / "client.json").read_text())
        settings = folder / f"{bank.folder_name}.env"
        print(
            f"institution {bank.name} (ISPB {bank.ispb}): http://127.0.0.1:{bank.port}, demo account"
            f" {demo['accountId']}, key {', '.join(demo['keys'])}; settings in {settings}"
        )
    print("ready; Ctrl-C stops the network and both institutions", flush=True)
    while True:
        for name, child in children:
            if child.poll() is not None:
                print(f"{name} stopped ({child.returncode}): stopping the others")
                stop()
        time.sleep(0.5)


if __name__ == "__main__":
    main()
