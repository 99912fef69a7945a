"""The offline Lesson file (:mod:`mlviz.figures.slides`) and projector fonts (issue 23, item 2).

Parsed with the standard library's HTML parser: the file must hold plotly.js once and inline,
no external script, every step title, every figure, and user text only escaped.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import plotly.graph_objects as go
import pytest
from plotly.offline import get_plotlyjs

from mlviz.figures import linear
from mlviz.figures._style import (
    PROJECTOR_FONT,
    TITLE_CHARS,
    WIDE_TITLE_CHARS,
    for_projector,
    legible,
    title_height,
    wrap_title,
)
from mlviz.figures.slides import SLIDE_SIZE, Step, lesson_html
from mlviz.io.export import safe_filename

EVIL = "<script>alert('x')</script>"


class _Parts(HTMLParser):
    """Every tag, the src of every script, the text of every h2."""

    def __init__(self):
        super().__init__()
        self.tags, self.script_src, self.h2, self._in_h2 = [], [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        if tag == "script" and "src" in attrs:
            self.script_src.append(attrs["src"])
        self._in_h2 = tag == "h2"

    def handle_endtag(self, tag):
        if tag == "h2":
            self._in_h2 = False

    def handle_data(self, data):
        if self._in_h2:
            self.h2.append(data)


def _steps():
    bars = go.Figure(go.Bar(x=["a", EVIL], y=[1, 2]), layout_title_text="bars")
    return [
        Step(
            title="1 · The label hypercube",
            formulas=[r"\mathbf{y}\in\{0,1\}^{L}", r"a<b\ \&\ c"],
            text=["Every label set is a **corner**."],
            figures=[("lesson_cube", bars)],
            notice=[f"The most frequent set is {EVIL}.", "**3** sets occur once."],
            settings={"lesson_cube_axes": True, EVIL: EVIL},
        ),
        Step(title=f"2 · PLST {EVIL}", formulas=[r"\tilde{y}"], figures=[]),
    ]


def test_lesson_file_is_one_offline_page_with_every_step():
    page = lesson_html(f"my data {EVIL}", _steps(), dataset="my data (v2).csv")
    parts = _Parts()
    parts.feed(page)
    parts.close()
    assert parts.script_src == [], "an external script"
    assert "<script src" not in page.lower()
    assert page.count(get_plotlyjs()[:2000]) == 1, "plotly.js not inlined exactly once"
    assert parts.h2 == ["1 · The label hypercube", f"2 · PLST {EVIL}"]
    assert page.count('class="plotly-graph-div"') == 1
    assert page.count("No figure: this step drew none") == 1  # step 2 has none, and says so
    # user text is escaped everywhere it is written as HTML (the figure's JSON escapes "<")
    assert EVIL not in page.replace(get_plotlyjs(), "")
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    # the app's own emphasis becomes bold; formulas are MathML with their escaped source
    assert "<strong>3</strong> sets occur once." in page
    assert page.count("<math ") == 3 and "<pre class='latex'>" not in page
    assert "<mi>𝐲</mi><mo>∈</mo>" in page  # \mathbf{y} as the bold character MathML Core draws
    assert r'<annotation encoding="application/x-tex">a&lt;b\ \&amp;\ c</annotation>' in page
    # each figure saves at slide size, named lesson-figure-dataset with safe characters
    name = "lesson-cube-my-data-v2-.csv"
    assert page.count(name) >= 3  # the modebar's camera, the PNG and the SVG button
    assert f'"width": {SLIDE_SIZE[0]}' in page or f'"width":{SLIDE_SIZE[0]}' in page
    assert "'svg'" in page or '"svg"' in page


def test_a_formula_mathml_cannot_draw_is_shown_as_its_source_and_says_so():
    page = lesson_html("t", [Step("1 · x", formulas=[r"\frac{1}{", r"\text{</mtext><b>x</b>}"])])
    assert page.count("<pre class='latex'") == 2
    assert page.count("could not be drawn offline") == 2
    assert "<b>x</b>" not in page and "&lt;/mtext&gt;&lt;b&gt;x&lt;/b&gt;" in page


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (("lesson", "plst_decoding", "yeast"), "lesson-plst_decoding-yeast"),
        (("plst", "spectrum", "../../etc/passwd"), "plst-spectrum-etc-passwd"),
        (("", "x y", "é.arff"), "x-y-arff"),
        (("///",), "figure"),
    ],
)
def test_slide_filename_is_safe(parts, expected):
    name = safe_filename(*parts, sep="-", fallback="figure")
    assert name == expected
    assert re.fullmatch(r"[A-Za-z0-9._-]+", name)


def test_projector_fonts_grow_and_the_title_keeps_room():
    fig = linear.spectrum_figure(np.linspace(3.0, 0.1, 22), current=4)
    before = fig.to_plotly_json()
    big = for_projector(fig)
    assert fig.to_plotly_json() == before, "the original figure was changed"
    assert big.layout.font.size == PROJECTOR_FONT["base"] > 12
    assert big.layout.title.font.size == PROJECTOR_FONT["title"] > 17
    assert big.layout.xaxis.title.font.size == PROJECTOR_FONT["axis_title"]
    # the title lines, wrapped to the larger font, fit the top margin reserved for them
    text = big.layout.title.text
    assert big.layout.margin.t >= title_height(text, PROJECTOR_FONT["title"])
    assert big.layout.margin.t > fig.layout.margin.t
    main = [line for line in text.split("<br>") if not line.startswith("<su")]
    assert all(len(line) <= int(TITLE_CHARS * 17 / PROJECTOR_FONT["title"]) for line in main)


@pytest.mark.parametrize("title_width", [TITLE_CHARS, WIDE_TITLE_CHARS])
def test_projector_rewraps_a_title_to_the_same_pixel_width(title_width):
    long = (
        "A title of a chart that is much longer than one line of a chart in the page's "
        "half-width column and longer still than a line of a chart as wide as the page"
    )
    fig = legible(go.Figure(layout_title_text=long), title_width=title_width)
    lines = fig.layout.title.text.split("<br>")
    big = for_projector(fig).layout.title.text.split("<br>")
    limit = int(title_width * 17 / PROJECTOR_FONT["title"])
    assert all(len(line) <= limit for line in big), big
    # the sentence is wrapped anew at the narrower width: never fewer lines, never orphans
    assert len(big) >= len(lines) and "<br>".join(big) == wrap_title(long, limit)
    # a short title stays on one line: it had room at the default font, it has room now
    short = for_projector(legible(go.Figure(layout_title_text="Label frequencies")))
    assert short.layout.title.text == "Label frequencies"
