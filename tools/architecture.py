"""Draw the packages and their imports, from the code: ``docs/architecture.svg``.

    make diagram          (needs Graphviz's ``dot``; the test suite does not)

The graph is grimp's (the library import-linter checks the contracts with): every import in
``src/``, also the lazy ones inside functions. A node is a sub-package (``pixweb.api``) or the
modules directly in a package taken together (``pixweb``: app, cli, ...); an arrow is "imports".
Clusters are the five packages, drawn in their layers. ``tests/unit/codebase/test_architecture.py``
checks that the committed SVG has exactly the arrows the code has now.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "docs" / "architecture.svg"
PACKAGES = ("pixservice", "pixweb", "pixnotify", "pixinfra", "pixcore")  # top to bottom
LAYERS = (("pixservice",), ("pixweb", "pixnotify"), ("pixinfra",), ("pixcore",))
COLOURS = {
    "pixservice": "#f3e8ff",
    "pixweb": "#e0f2fe",
    "pixnotify": "#dcfce7",
    "pixinfra": "#fef9c3",
    "pixcore": "#fee2e2",
}


def node_of(module: str, packages: set[str]) -> str:
    """``pixweb.charges.cob`` and ``pixweb.api`` -> ``pixweb.api``; ``pixweb.app`` -> ``pixweb``
    (the top-level modules of a package, together)."""
    parts = module.split(".")
    if len(parts) >= 3 or (len(parts) == 2 and module in packages):
        return ".".join(parts[:2])
    return parts[0]


def graph() -> tuple[dict[str, set[str]], set[tuple[str, str]]]:
    """The nodes (with the modules each stands for, by short name) and the arrows between them."""
    sys.path.insert(0, str(ROOT / "src"))
    imports = grimp.build_graph(*PACKAGES, cache_dir=None)  # a stale cache once hid a package
    members: dict[str, set[str]] = defaultdict(set)
    arrows: set[tuple[str, str]] = set()
    packages = {module.rsplit(".", 1)[0] for module in imports.modules if "." in module}
    for module in imports.modules:
        node = node_of(module, packages)
        tail = module.removeprefix(node).lstrip(".")
        if tail and "." not in tail:
            members[node].add(tail)
        else:
            members.setdefault(node, set())
        for imported in imports.find_modules_directly_imported_by(module):
            target = node_of(imported, packages)
            if target != node:
                arrows.add((node, target))
    return dict(members), arrows


def _label(node: str, modules: set[str]) -> str:
    if node in PACKAGES:
        shown = sorted(m for m in modules if not m.startswith("_"))
        lines, line = [], ""
        for name in shown:
            if len(line) + len(name) > 34:
                lines.append(line.rstrip(", "))
                line = ""
            line += name + ", "
        lines.append(line.rstrip(", "))
        return f"{node} (modules)\\n" + "\\n".join(lines)
    return node


def dot_source() -> str:
    members, arrows = graph()
    out = [
        "digraph architecture {",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=12, newrank=true, nodesep=0.25, ranksep=0.6];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10, fillcolor=white];',
        '  edge [color="#64748b", arrowsize=0.6];',
    ]
    for package in PACKAGES:
        out.append(f'  subgraph "cluster_{package}" {{')
        out.append(
            f'    label="{package}"; style="rounded,filled"; fillcolor="{COLOURS[package]}"; color="#94a3b8";'
        )
        inside = sorted(n for n in members if n.split(".")[0] == package)
        out.extend(f'    "{node}" [label="{_label(node, members[node])}"];' for node in inside)
        out.append("  }")
    # The layers top to bottom: every node of a layer above every node of the next one.
    for upper, lower in itertools.pairwise(LAYERS):
        below = sorted(n for n in members if n.split(".")[0] in lower)
        for node in sorted(n for n in members if n.split(".")[0] in upper):
            out.extend(f'  "{node}" -> "{other}" [style=invis];' for other in below)
    out.extend(f'  "{a}" -> "{b}";' for a, b in sorted(arrows))
    out.append("}")
    return "\n".join(out) + "\n"


def main() -> None:
    graphviz = ["dot", "-Tsvg"]  # found on the PATH, as `make diagram`'s user installed it
    svg = subprocess.run(graphviz, input=dot_source(), capture_output=True, text=True, check=True).stdout  # noqa: S603
    SVG.write_text(svg)
    print(f"wrote {SVG.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
