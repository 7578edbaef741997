"""The overview's chart: money in and out per day, drawn by the server as SVG (no script).

Bars in integer centavos, scaled to the largest day; every bar carries its amount as a
``<title>`` (a tooltip, and what a screen reader says). Only numbers and dates reach the SVG.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

from pixcore.queries.rules import DayFlow
from pixweb.console.language import Language

__all__ = ["daily_chart"]

WIDTH, HEIGHT = 720, 220
LEFT, BOTTOM, TOP = 70, 24, 12


def daily_chart(days: Sequence[DayFlow], lang: Language) -> Markup:
    """One pair of bars per day of ``days`` (``pixcore.queries.query_service.daily_flows``), oldest
    first, its words, money and dates in ``lang`` (escaped: a catalog's text is text)."""
    title = escape(lang.gettext("Money in and out per day, last %(days)s days (UTC)", days=len(days)))
    words = {"in": escape(lang.gettext("in")), "out": escape(lang.gettext("out"))}
    zero = escape(lang.money(0))
    plot_w, plot_h = WIDTH - LEFT - 8, HEIGHT - BOTTOM - TOP
    peak = max([*(d.incoming for d in days), *(d.outgoing for d in days), 1])
    slot = plot_w / max(len(days), 1)
    bar = max(slot / 2 - 1, 1)
    parts = [
        (
            f'<svg class="chart" role="img" aria-labelledby="chart-title" viewBox="0 0 {WIDTH} {HEIGHT}" '
            f'xmlns="http://www.w3.org/2000/svg"><title id="chart-title">{title}</title>'
        ),
        f'<line class="axis" x1="{LEFT}" y1="{TOP + plot_h}" x2="{WIDTH - 8}" y2="{TOP + plot_h}"/>',
        (
            f'<text class="label" x="{LEFT - 6}" y="{TOP + 8}" text-anchor="end">'
            f"{escape(lang.money(peak))}</text>"
        ),
        f'<text class="label" x="{LEFT - 6}" y="{TOP + plot_h}" text-anchor="end">{zero}</text>',
    ]
    for n, flow in enumerate(days):
        day, x = flow.day, LEFT + n * slot
        for offset, kind, cents in ((0.0, "in", flow.incoming), (bar, "out", flow.outgoing)):
            height = plot_h * cents / peak
            parts.append(
                f'<rect class="bar-{kind}" x="{x + offset:.1f}" y="{TOP + plot_h - height:.1f}" '
                f'width="{bar:.1f}" height="{height:.1f}"><title>{escape(lang.day(day))} {words[kind]}: '
                f"{escape(lang.money(cents))}</title></rect>"
            )
        if n % 5 == 0 or n == len(days) - 1:
            parts.append(
                f'<text class="label" x="{x + bar:.1f}" y="{HEIGHT - 6}" text-anchor="middle">'
                f"{escape(lang.day_month(day))}</text>"
            )
    parts.append("</svg>")
    return Markup("".join(parts))  # noqa: S704 - numbers, dates and catalog words, escaped here
