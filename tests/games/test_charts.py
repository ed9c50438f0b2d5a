"""The server-rendered net chart: accessible SVG, colour plus marker per player."""

import re
import xml.etree.ElementTree as ET

from games.money import CURRENCIES
from games.sessions.charts import COLOURS, MAX_POINTS, net_chart

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(str(svg))


def test_chart_is_accessible_svg_with_title_desc_and_legend():
    svg = net_chart(
        # Nets in cents (a quarter-ante table): the labels read in dollars and cents.
        [("ann", [0, 325, 700]), ("ben", [0, -100, -425]), ("cal", [0, -225, -275])],
        ["start", "1", "2"],
        currency=CURRENCIES["USD"],
        title="Net per player over Friday",
    )
    root = parse(svg)
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == "chart-title chart-desc"
    assert root.find(f"{SVG}title").text == "Net per player over Friday"
    desc = root.find(f"{SVG}desc").text
    assert desc == "2 steps. At the end: ann +$7; ben \u2212$4.25; cal \u2212$2.75."
    legend = [
        t.text
        for t in root.iter(f"{SVG}text")
        if t.text and t.text.startswith(("ann", "ben", "cal"))
    ]
    assert legend == ["ann +$7", "ben \u2212$4.25", "cal \u2212$2.75"]
    assert "hand 2" in str(svg)  # the last step is labelled


def test_each_player_has_its_own_colour_and_marker_shape():
    series = [(f"p{i}", [0, i, -i]) for i in range(8)]
    svg = str(net_chart(series, ["start", "1", "2"]))
    root = parse(svg)
    lines = list(root.iter(f"{SVG}polyline"))
    assert [line.get("stroke") for line in lines] == list(COLOURS)
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "series"]
    signatures = set()
    for g in groups:
        first = next(c for c in g if c.tag not in (f"{SVG}polyline", f"{SVG}title"))
        signatures.add(_shape(first))
    assert len(signatures) == 8  # no two players share a marker shape


def _shape(element: ET.Element) -> tuple:
    """What a marker looks like, colour left out."""
    tag = element.tag.removeprefix(SVG)
    if tag == "circle":
        return (tag, element.get("fill") == "none")
    if tag == "polygon":
        points = [tuple(map(float, p.split(","))) for p in element.get("points").split()]
        return (tag, len(points), points[0][1] < points[1][1])
    if tag == "path":
        return (tag, "H" in element.get("d"))
    return (tag,)


def test_names_are_escaped():
    svg = str(net_chart([("<b>eve</b> & co", [0, 1])], ["start", "1"]))
    assert "<b>" not in svg and "&lt;b&gt;eve&lt;/b&gt; &amp; co" in svg
    parse(svg)


def test_empty_session_still_renders():
    root = parse(net_chart([("ann", [0]), ("ben", [0])], ["start"]))
    assert root.find(f"{SVG}desc").text == "No hands recorded yet."
    assert not list(root.iter(f"{SVG}polyline"))


def test_long_session_is_sampled_but_keeps_the_last_point():
    count = 2001
    values = list(range(count))
    root = parse(net_chart([("ann", values)], ["start"] + [str(i) for i in range(1, count)]))
    (line,) = list(root.iter(f"{SVG}polyline"))
    points = line.get("points").split()
    assert len(points) <= MAX_POINTS + 1
    # The last point is the final net, at the right edge and the top of the plot.
    x, y = map(float, points[-1].split(","))
    assert x == max(float(p.split(",")[0]) for p in points)
    assert y == min(float(p.split(",")[1]) for p in points)
    assert "ann +$20." in root.find(f"{SVG}desc").text  # 2,000 cents, in the default USD


def test_chips_currency_reads_after_the_number():
    svg = str(net_chart([("ann", [0, 12])], ["start", "1"], currency="chips"))
    assert re.search(r"ann \+12 chips", svg)


def test_a_long_axis_amount_keeps_its_minus_sign_in_the_picture():
    """The axis labels end at the plot's left edge: at a fixed 46px, "−10,25 $" (fi, es,
    sq) began left of the picture and the reader saw "10,25 $", a loss read as a win.
    Each label needs about 7px a character at the chart's 11px font."""
    from django.utils.translation import override

    with override("fi"):
        svg = net_chart(
            [("ann", [0, 1500, 1350]), ("dee", [0, -500, -1025])],
            ["start", "1", "2"],
            currency=CURRENCIES["USD"],
        )
    root = parse(svg)
    axis = [t for t in root.iter(f"{SVG}text") if t.get("text-anchor") == "end"]
    low = next(t for t in axis if t.text and t.text.startswith("\u221210,25"))
    assert float(low.get("x")) >= 7 * len(low.text)
    # The plot and its zero line start right of the labels, not under them.
    zero = [ln for ln in root.iter(f"{SVG}line") if ln.get("stroke-opacity") == "0.55"]
    assert float(zero[0].get("x1")) > float(low.get("x"))


def test_a_short_axis_amount_keeps_the_charts_usual_left_edge():
    svg = net_chart([("ann", [0, 500, -100])], ["start", "1", "2"], currency=CURRENCIES["USD"])
    lines = list(parse(svg).iter(f"{SVG}line"))
    assert {ln.get("x1") for ln in lines} == {"46"}


def _legend(svg: str) -> list[tuple[float, str]]:
    root = ET.fromstring(str(svg))
    ns = {"s": "http://www.w3.org/2000/svg"}
    legend = root.find("s:g[@class='legend']", ns)
    return [(float(t.get("x")), t.text or "") for t in legend.findall("s:text", ns)]


def test_the_legend_takes_one_column_when_an_entry_would_run_into_its_neighbour():
    """Finnish chips ("0 pelimerkkiä") beside long names ran into the next column."""
    short = net_chart([("ann", [0, 4]), ("ben", [0, -4])], ["start", "1"])
    assert len({x for x, _ in _legend(short)}) == 2  # two columns
    names = ["Keturah Melançon", "Célestine Hébert", "Émile Guidry", "Isidore Fontenot"]
    long = net_chart([(n, [0, 120]) for n in names], ["start", "1"], currency="chips")
    entries = _legend(long)
    assert len({x for x, _ in entries}) == 1  # one column
    assert [t.split(" +")[0] for _, t in entries] == names  # whole names, amounts kept
    huge = net_chart([("x" * 80, [0, 5]), ("ben", [0, -5])], ["start", "1"])
    first = _legend(huge)[0][1]
    assert first.endswith("+$0.05") and "…" in first and len(first) * 7 <= 360 - 24
