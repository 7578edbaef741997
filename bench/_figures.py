"""The figures a benchmark hands to ``bench/run_all.py``: with ``--summary FILE`` each script writes
the lines of the common table (figure, baseline measured in the same run, ratio, target) as JSON."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = ["Figure", "add_summary_option", "write_summary"]


@dataclass(frozen=True)
class Figure:
    benchmark: str
    case: str
    value: float
    unit: str
    baseline: float | None = None
    higher_is_better: bool = True
    target: str = ""
    met: bool | None = None

    @property
    def ratio(self) -> float | None:
        """Ours against the baseline, oriented so that 1.0 is as good and more is better."""
        if not self.baseline or not self.value:
            return None
        return self.value / self.baseline if self.higher_is_better else self.baseline / self.value


def add_summary_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--summary", type=Path, help="also write the figures as JSON here (bench/run_all.py)")


def write_summary(path: Path | None, figures: list[Figure]) -> None:
    if path is not None:
        path.write_text(json.dumps([asdict(f) for f in figures], indent=1), encoding="utf-8")
