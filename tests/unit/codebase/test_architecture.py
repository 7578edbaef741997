"""``docs/architecture.svg`` is the code's picture: the arrows it draws are the imports between
the packages' parts now (``make diagram`` redraws it), and they respect the layers."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
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


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges.get(target, ())))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_through_others() -> None:
    """No import cycle between modules (lazy and type-checking imports included): a cycle means two
    modules that cannot be read, or moved, one without the other."""
    sys.path.insert(0, str(ROOT / "src"))
    import grimp

    graph = grimp.build_graph(*architecture.PACKAGES, cache_dir=None)
    edges = {module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules}
    cycles = _cycles(edges)
    assert not cycles, cycles
