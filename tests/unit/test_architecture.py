"""``docs/architecture.svg`` is the code's picture: the arrows it draws are the imports between
the packages' parts now (``make diagram`` redraws it), and they respect the layers."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import architecture  # noqa: E402 - tools/ is not a package

LAYER = {package: rank for rank, layer in enumerate(architecture.LAYERS) for package in layer}


def drawn_arrows(svg: str) -> set[tuple[str, str]]:
    titles = re.findall(r'<g id="edge\d+" class="edge">\s*<title>(.*?)</title>', svg)
    pairs = [html.unescape(title).split("->") for title in titles]
    return {(a, b) for a, b in pairs}


def test_the_diagram_draws_the_imports_the_code_has() -> None:
    _, arrows = architecture.graph()
    assert len(arrows) > 20
    drawn = drawn_arrows(architecture.SVG.read_text())
    assert drawn == arrows, "docs/architecture.svg is out of date: run `make diagram`"


def test_every_arrow_points_down_or_within_its_package() -> None:
    _, arrows = architecture.graph()
    for source, target in arrows:
        a, b = source.split(".")[0], target.split(".")[0]
        assert a == b or LAYER[a] < LAYER[b], f"{source} -> {target} goes up or sideways"


def test_each_package_is_drawn() -> None:
    members, _ = architecture.graph()
    assert {node.split(".")[0] for node in members} == set(architecture.PACKAGES)
    assert "pixinfra.persistence" in members  # a regular package: grimp (and import-linter) see it
