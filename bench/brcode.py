"""Encode and decode throughput of the BR Code codec, against a plain reference codec written inline.

What is measured: operations per second, one operation being one code, of
``pixcore.brcode`` (``encode`` a ``BrCode``, ``decode`` a text, and the round
trip ``decode(encode(code))``) over a mix of codes:

* a static code as the service would write it: an e-mail key, an amount, a
  description and a txid;
* a dynamic code: point of initiation ``12`` and a location URL
  ``pix.example.com/qr/v2/<32 hex>``;
* the valid vectors of ``tests/data/brcode-vectors.json`` (BCB and API
  examples: static, dynamic, recurrence, FSS), unless ``--no-vectors``.

Baseline, measured in the same run on the same codes: a plain implementation
of the same TLV and CRC16-CCITT-FALSE in this file. Its encoder concatenates
id, length and value over a dict of fields (templates 26, 62 and 80 are nested
dicts), appends ``6304`` and the CRC; its decoder checks the CRC, then walks
the data objects into the same dicts. Its CRC is the textbook bit-by-bit one.
It validates nothing else and converts nothing (the amount stays text), so
the ratio prices pixcore's rules (lengths, key, amount, URLs, mandatory
fields, building a ``BrCode``) against its table-driven CRC. Before timing,
both sides must agree: the baseline encodes each code's fields to the very
text pixcore writes, and decodes each text to the fields of pixcore's
``BrCode``. The CRC alone is timed too, for both, over the same texts.

Each figure is the median of ``--repeat`` repetitions, each one pass over
the mix repeated for about ``--seconds`` (the count of passes is calibrated
once, then one untimed repetition warms up each case), timed with
``time.perf_counter``; the repetitions of the cases are interleaved.

    .venv/bin/python bench/brcode.py [--seconds 0.3] [--repeat 7] [--no-vectors]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _figures import Figure, add_summary_option, write_summary  # bench/ is on sys.path

from pixcore.brcode import BrCode, crc16, decode, encode

VECTORS = Path(__file__).resolve().parents[1] / "tests" / "data" / "brcode-vectors.json"

STATIC = BrCode(
    merchant_name="Padaria Boa Vista",
    merchant_city="SAO PAULO",
    key="pagamentos@padaria.example.com",
    amount=4_590,
    description="Pedido 4821 - 2 cafes e 1 bolo",
    reference="PEDIDO4821",
)
DYNAMIC = BrCode(
    merchant_name="Padaria Boa Vista",
    merchant_city="SAO PAULO",
    location="pix.example.com/qr/v2/9d36b84fc70b478fb95c12a7e5a1c2f3",
    point_of_initiation="12",
)

# ------------------------------------------------------------------------------------ the baseline

Fields = dict[str, Any]  # id -> value (str), or -> Fields for the templates 26, 62 and 80
TEMPLATES = frozenset({"26", "62", "80"})


def plain_crc16(data: bytes) -> int:
    """CRC16-CCITT-FALSE, bit by bit: poly 0x1021, init 0xFFFF, no reflection, no final XOR."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def _table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
        table.append(crc)
    return table


PLAIN_TABLE = _table()


def table_crc16(data: bytes) -> int:
    """The same CRC, a byte at a time from a 256-entry table (what pixcore does)."""
    crc = 0xFFFF
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ PLAIN_TABLE[(crc >> 8) ^ byte]
    return crc


def plain_tlv(fields: Fields) -> str:
    text = ""
    for tag, value in fields.items():
        raw = plain_tlv(value) if isinstance(value, dict) else value
        text += tag + f"{len(raw):02d}" + raw
    return text


def plain_encode(fields: Fields, checksum: Callable[[bytes], int] = plain_crc16) -> str:
    body = plain_tlv(fields) + "6304"
    return body + f"{checksum(body.encode('ascii')):04X}"


def plain_walk(text: str, templates: frozenset[str]) -> Fields:
    fields: Fields = {}
    position = 0
    while position < len(text):
        tag = text[position : position + 2]
        size = int(text[position + 2 : position + 4])
        value = text[position + 4 : position + 4 + size]
        if len(value) != size:
            raise ValueError(f"field {tag} is truncated")
        fields[tag] = plain_walk(value, frozenset()) if tag in templates else value
        position += 4 + size
    return fields


def plain_decode(text: str, checksum: Callable[[bytes], int] = plain_crc16) -> Fields:
    """The data objects of ``text`` but the CRC (63), which is checked."""
    body, crc = text[:-4], text[-4:]
    if not body.endswith("6304") or f"{checksum(body.encode('ascii')):04X}" != crc:
        raise ValueError("CRC mismatch")
    return plain_walk(body[:-4], TEMPLATES)


def fields_of(code: BrCode) -> Fields:
    """The baseline's input for ``code``: its data objects in canonical order (not timed)."""
    optional = (("01", code.key), ("25", code.location), ("02", code.description), ("03", code.fss))
    account = {"00": code.gui} | {tag: value for tag, value in optional if value is not None}
    top: Fields = {"00": "01", "26": account, "52": code.mcc, "53": "986", "58": "BR"}
    top |= {"59": code.merchant_name, "60": code.merchant_city, **dict(code.extra)}
    if code.point_of_initiation is not None:
        top["01"] = code.point_of_initiation
    if code.amount is not None:
        top["54"] = f"{code.amount // 100}.{code.amount % 100:02d}"
    if code.reference is not None:
        top["62"] = {"05": code.reference}
    if code.recurrence is not None:
        top["80"] = {"00": code.gui, "25": code.recurrence}
    return {tag: top[tag] for tag in sorted(top)}


# ------------------------------------------------------------------------------------ measuring


def the_mix(*, vectors: bool) -> list[BrCode]:
    codes = [STATIC, DYNAMIC]
    if vectors:
        for vector in json.loads(VECTORS.read_text(encoding="utf-8")):
            if not vector.get("negative"):
                codes.append(decode(vector["code"]))
                assert encode(codes[-1]) == vector["code"], vector["kind"]
    return codes


def check_agreement(codes: list[BrCode], texts: list[str], inputs: list[Fields]) -> None:
    """The two codecs write the same texts and read the same fields, or there is nothing to compare."""
    for code, text, fields in zip(codes, texts, inputs, strict=True):
        assert plain_encode(fields) == text, f"encoders differ:\n{plain_encode(fields)}\n{text}"
        assert plain_decode(text) == fields_of(decode(text)) == fields, f"decoders differ on {text}"
        assert decode(plain_encode(fields)) == code
        assert plain_encode(fields, table_crc16) == text
        assert plain_decode(text, table_crc16) == fields
        body = text[:-4].encode("ascii")
        assert crc16(text[:-4]) == f"{plain_crc16(body):04X}" == f"{table_crc16(body):04X}" == text[-4:]


SIDES = ("pixcore", "baseline", "baseline, table CRC")
OPERATIONS = ("encode", "decode", "round trip", "crc16 alone")


def cases(
    codes: list[BrCode], texts: list[str], inputs: list[Fields]
) -> dict[tuple[str, str], Callable[[], None]]:
    """Per operation and side, one pass over the mix."""
    bodies = [text[:-4] for text in texts]
    raw_bodies = [body.encode("ascii") for body in bodies]

    def pixcore_encode() -> None:
        for code in codes:
            encode(code)

    def pixcore_decode() -> None:
        for text in texts:
            decode(text)

    def pixcore_round_trip() -> None:
        for code in codes:
            decode(encode(code))

    def pixcore_crc() -> None:
        for body in bodies:
            crc16(body)

    found: dict[tuple[str, str], Callable[[], None]] = {
        ("encode", "pixcore"): pixcore_encode,
        ("decode", "pixcore"): pixcore_decode,
        ("round trip", "pixcore"): pixcore_round_trip,
        ("crc16 alone", "pixcore"): pixcore_crc,
    }
    for side, checksum in ((SIDES[1], plain_crc16), (SIDES[2], table_crc16)):

        def baseline_encode(checksum: Callable[[bytes], int] = checksum) -> None:
            for fields in inputs:
                plain_encode(fields, checksum)

        def baseline_decode(checksum: Callable[[bytes], int] = checksum) -> None:
            for text in texts:
                plain_decode(text, checksum)

        def baseline_round_trip(checksum: Callable[[bytes], int] = checksum) -> None:
            for fields in inputs:
                plain_decode(plain_encode(fields, checksum), checksum)

        def baseline_crc(checksum: Callable[[bytes], int] = checksum) -> None:
            for raw in raw_bodies:
                checksum(raw)

        found |= {
            ("encode", side): baseline_encode,
            ("decode", side): baseline_decode,
            ("round trip", side): baseline_round_trip,
            ("crc16 alone", side): baseline_crc,
        }
    return {(operation, side): found[operation, side] for operation in OPERATIONS for side in SIDES}


def timed(one_pass: Callable[[], None], passes: int) -> float:
    started = time.perf_counter()
    for _ in range(passes):
        one_pass()
    return time.perf_counter() - started


def calibrate(one_pass: Callable[[], None], seconds: float) -> int:
    """Passes that take about ``seconds``."""
    passes = 1
    while (elapsed := timed(one_pass, passes)) < seconds / 10:
        passes *= 10
    return max(1, round(passes * seconds / elapsed))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=0.3, help="per repetition and case (default 0.3)")
    parser.add_argument("--repeat", type=int, default=7, help="repetitions, median kept (default 7)")
    parser.add_argument("--no-vectors", action="store_true", help="only the static and the dynamic code")
    add_summary_option(parser)
    args = parser.parse_args()
    if args.seconds <= 0 or args.repeat < 1:
        parser.error("--seconds must be positive and --repeat at least 1")

    codes = the_mix(vectors=not args.no_vectors)
    texts = [encode(code) for code in codes]
    inputs = [fields_of(code) for code in codes]
    check_agreement(codes, texts, inputs)

    runs = cases(codes, texts, inputs)
    passes = {name: calibrate(one_pass, args.seconds) for name, one_pass in runs.items()}
    for name, one_pass in runs.items():
        timed(one_pass, passes[name])  # warm-up
    rates: dict[tuple[str, str], list[float]] = {name: [] for name in runs}
    for _ in range(args.repeat):
        for name, one_pass in runs.items():
            rates[name].append(passes[name] * len(codes) / timed(one_pass, passes[name]))

    median = {case: statistics.median(values) for case, values in rates.items()}
    print(
        f"BR Code codec, Python {platform.python_version()}: {len(codes)} codes per pass "
        f"({sum(map(len, texts)) // len(texts)} characters on average), "
        f"median of {args.repeat} repetitions of about {args.seconds:g} s"
    )
    print("both codecs write the same texts and read the same fields: checked")
    print("baseline: bit-by-bit CRC; baseline, table CRC: the same with pixcore's table-driven CRC")
    print()
    print(
        f"{'operation':<12} {'pixcore ops/s':>14} {'baseline ops/s':>15} {'pixcore/baseline':>17}"
        f" {'table-CRC baseline ops/s':>25} {'pixcore/table-CRC':>18}"
    )
    for operation in OPERATIONS:
        ours, base, table = (median[operation, side] for side in SIDES)
        print(
            f"{operation:<12} {ours:>14,.0f} {base:>15,.0f} {ours / base:>17.2f}"
            f" {table:>25,.0f} {ours / table:>18.2f}"
        )
    spread = max((max(values) - min(values)) / median[case] for case, values in rates.items())
    print(f"\nlargest spread of a case across repetitions: {spread:.0%} of its median")
    write_summary(
        args.summary,
        [
            Figure(
                "brcode",
                operation,
                median[operation, SIDES[0]],
                "ops/s",
                baseline=median[operation, SIDES[1]],
            )
            for operation in OPERATIONS
        ],
    )


if __name__ == "__main__":
    main()
