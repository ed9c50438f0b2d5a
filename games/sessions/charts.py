"""Server-rendered SVG charts: no JavaScript, readable without colour.

`net_chart` draws each player's net over a session as a line. It is accessible: the SVG
has a <title> and a <desc> (who ends where), every line has its own colour *and* marker
shape, and the legend names each player next to both.

Its words and numbers are the reader's (the active language): the title, the description,
the step labels (the steps arrive as "start", hand numbers and "close", and are named
here) and every amount, through ``games.money.format_money`` ("+1,25 €" on a Finnish page).
The plot starts right of its longest axis label, so a long amount ("−10,25 $") keeps its
minus sign in the picture.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from games.money import DEFAULT_CURRENCY, Currency, format_money

# Okabe–Ito: told apart by most colour-blind readers; markers differ too.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#7a6a00", "#555555")
MARKERS = ("circle", "square", "triangle", "diamond", "down", "cross", "plus", "star")

WIDTH, HEIGHT = 360, 220
LEFT, RIGHT, TOP, BOTTOM = 46, 10, 12, 26  # LEFT: the least; a longer axis label widens it
# Width of one character of an axis label (font-size 11: DejaVu Sans digits are 0.64em).
LABEL_CHAR_W = 7.0
LEGEND_ROW = 20
# Width of one character of a legend entry (font-size 12), a little over DejaVu Sans's
# average, so an entry estimated to fit does fit.
LEGEND_CHAR_W = 7.0
MAX_POINTS = 300  # a long session is sampled to this many points per line
MAX_MARKERS = 12  # markers per line, spread evenly, the last point always marked


def _marker(kind: str, x: float, y: float, colour: str) -> str:
    r = 4.0
    style = f'fill="{colour}" stroke="{colour}"'
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" {style}/>'
    if kind == "square":
        return f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r}" height="{2 * r}" {style}/>'
    if kind == "triangle":
        pts = f"{x:.1f},{y - r - 1:.1f} {x - r - 1:.1f},{y + r:.1f} {x + r + 1:.1f},{y + r:.1f}"
        return f'<polygon points="{pts}" {style}/>'
    if kind == "down":
        pts = f"{x:.1f},{y + r + 1:.1f} {x - r - 1:.1f},{y - r:.1f} {x + r + 1:.1f},{y - r:.1f}"
        return f'<polygon points="{pts}" {style}/>'
    if kind == "diamond":
        pts = f"{x:.1f},{y - r - 1:.1f} {x + r + 1:.1f},{y:.1f} {x:.1f},{y + r + 1:.1f} {x - r - 1:.1f},{y:.1f}"
        return f'<polygon points="{pts}" {style}/>'
    if kind == "cross":
        return (
            f'<path d="M{x - r:.1f},{y - r:.1f}L{x + r:.1f},{y + r:.1f}'
            f'M{x - r:.1f},{y + r:.1f}L{x + r:.1f},{y - r:.1f}" stroke="{colour}" '
            f'stroke-width="2.2" fill="none"/>'
        )
    if kind == "plus":
        return (
            f'<path d="M{x - r - 1:.1f},{y:.1f}H{x + r + 1:.1f}M{x:.1f},{y - r - 1:.1f}V{y + r + 1:.1f}" '
            f'stroke="{colour}" stroke-width="2.2" fill="none"/>'
        )
    # star: a small asterisk with a hollow centre
    return (
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r}" fill="none" stroke="{colour}" '
        f'stroke-width="2"/><circle cx="{x:.1f}" cy="{y:.1f}" r="1.5" fill="{colour}"/>'
    )


def _step_name(label: str) -> str:
    """A step as the axis names it: the start, "hand 12", the close."""
    if label == "start":
        return pgettext("net chart, before the first hand", "start")
    if label == "close":
        return pgettext("net chart, the session closed", "close")
    if label.isdigit():
        return _("hand %(number)s") % {"number": label}
    return label


def _sample(count: int) -> list[int]:
    """Indices of the points to draw: all of them, or an even spread ending at the last."""
    if count <= MAX_POINTS:
        return list(range(count))
    step = (count - 1) / (MAX_POINTS - 1)
    picked = sorted({round(i * step) for i in range(MAX_POINTS)} | {count - 1})
    return picked


def _legend_text(name: str, amount: str) -> str:
    """A legend entry, "name amount", its name cut short ("…") where the whole would
    not fit one column."""
    room = int((WIDTH - 24) / LEGEND_CHAR_W)
    if len(name) + 1 + len(amount) <= room:
        return f"{name} {amount}"
    keep = max(room - len(amount) - 2, 1)
    return f"{name[:keep]}… {amount}"


# radon D: one piece, as it draws one SVG whose axes, lines and legend share one scale
# (x_at, y_at) and one layout (columns, left edge) decided at its top.
def net_chart(
    series: Sequence[tuple[str, Sequence[int]]],
    labels: Sequence[str],
    *,
    currency: Currency | str = DEFAULT_CURRENCY,
    title: str | None = None,
) -> SafeString:
    """An SVG line chart of each player's net (minor units) after each step.

    ``series`` is ``[(name, [net after step 0, step 1, …])]``, every list as long as
    ``labels`` (the steps: "start", hand numbers, "close").
    """
    count = len(labels)
    title = title or _("Net per player")
    money = lambda v: format_money(v, currency, signed=True)  # noqa: E731
    finals = [(name, values[-1] if values else 0) for name, values in series]
    desc = (
        _("No hands recorded yet.")
        if count <= 1
        else ngettext(
            "%(count)s step. At the end: %(finals)s.",
            "%(count)s steps. At the end: %(finals)s.",
            count - 1,
        )
        % {
            "count": count - 1,
            "finals": "; ".join(f"{name} {money(v)}" for name, v in finals),
        }
    )
    # Two columns when every entry fits half the width, else one (long names, or a
    # currency written out: "Keturah Melançon 0 pelimerkkiä" ran into its neighbour);
    # an entry too long even for one column keeps its amount and cuts the name.
    entries = [_legend_text(name, money(value)) for name, value in finals]
    columns = 2 if all(len(e) * LEGEND_CHAR_W <= WIDTH / 2 - 24 for e in entries) else 1
    legend_rows = (len(series) + columns - 1) // columns
    total_height = HEIGHT + legend_rows * LEGEND_ROW + 6
    out = [
        f'<svg class="net-chart" viewBox="0 0 {WIDTH} {total_height}" role="img" '
        f'aria-labelledby="chart-title chart-desc" xmlns="http://www.w3.org/2000/svg" '
        f'preserveAspectRatio="xMidYMid meet">',
        f'<title id="chart-title">{escape(title)}</title>',
        f'<desc id="chart-desc">{escape(desc)}</desc>',
    ]
    values = [v for _, vals in series for v in vals] or [0]
    low, high = min(min(values), 0), max(max(values), 0)
    if low == high:
        low, high = low - 1, high + 1
    # The axis labels sit left of the plot, anchored at its edge: the edge moves right for a
    # long label ("−10,25 $", "-$10.50") so its minus sign is not cut off the picture.
    steps = sorted({high, 0, low})
    left = max(LEFT, round(6 + LABEL_CHAR_W * max(len(money(v)) for v in steps)))
    plot_w = WIDTH - left - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM

    def x_at(i: int) -> float:
        return left + (plot_w * i / (count - 1) if count > 1 else plot_w / 2)

    def y_at(v: int) -> float:
        return TOP + plot_h * (high - v) / (high - low)

    # Axes: zero line, top and bottom values, first and last step.
    out.append('<g class="axes" font-size="11" fill="currentColor">')
    for v in steps:
        y = y_at(v)
        dash = "" if v == 0 else ' stroke-dasharray="3 3"'
        out.append(
            f'<line x1="{left}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="currentColor" stroke-opacity="{0.55 if v == 0 else 0.25}"{dash}/>'
        )
        out.append(
            f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{escape(money(v))}</text>'
        )
    if count > 1:
        first, last_text = _step_name(str(labels[0])), _step_name(str(labels[-1]))
        out.append(f'<text x="{left}" y="{HEIGHT - 8}" text-anchor="start">{escape(first)}</text>')
        out.append(
            f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 8}" text-anchor="end">{escape(last_text)}</text>'
        )
    out.append("</g>")

    picked = _sample(count)
    for n, (name, vals) in enumerate(series):
        colour = COLOURS[n % len(COLOURS)]
        marker = MARKERS[n % len(MARKERS)]
        out.append(f'<g class="series" aria-hidden="true"><title>{escape(name)}</title>')
        if count > 1:
            pts = " ".join(f"{x_at(i):.1f},{y_at(vals[i]):.1f}" for i in picked)
            out.append(
                f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2" '
                f'stroke-linejoin="round"/>'
            )
        every = max(1, -(-len(picked) // MAX_MARKERS))
        marked = picked[::every]
        if picked and picked[-1] not in marked:
            marked.append(picked[-1])
        for i in marked:
            out.append(_marker(marker, x_at(i), y_at(vals[i]), colour))
        out.append("</g>")

    # Legend: marker, colour and name, with the final net.
    out.append('<g class="legend" font-size="12" fill="currentColor">')
    for n, text in enumerate(entries):
        colour = COLOURS[n % len(COLOURS)]
        marker = MARKERS[n % len(MARKERS)]
        col, row = n % columns, n // columns
        x = 8 + col * (WIDTH / 2)
        y = HEIGHT + 6 + row * LEGEND_ROW + 8
        out.append(_marker(marker, x + 6, y, colour))
        out.append(f'<text x="{x + 16:.1f}" y="{y + 4:.1f}">{escape(text)}</text>')
    out.append("</g></svg>")
    return mark_safe("".join(out))
