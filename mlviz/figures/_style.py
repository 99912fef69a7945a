"""The app's categorical colours, in one place: one fixed colour per method on every chart.

Also the other categorical palettes (label groups, principal directions), so that no figure
builder defines colours of its own.

A method keeps its colour whichever methods a chart shows and in whatever order (PLST is
orange in the Compare bars, in the dimension sweep and on the PLST page's loss-vs-M curve).
Figure builders look colours up here and define no palette of their own;
``tests/test_figures_style.py`` fails if one does.
"""

from __future__ import annotations

import hashlib
import html
import re
import textwrap

from plotly.colors import qualitative

from mlviz.methods import METHODS, VARIANTS

__all__ = [
    "DIRECTION_COLORS",
    "GROUP_COLORS",
    "METHOD_COLORS",
    "REASON_COLORS",
    "NO_GROUP_COLOR",
    "TITLE_CHARS",
    "WIDE_TITLE_CHARS",
    "PROJECTOR_FONT",
    "for_projector",
    "number_axis",
    "legible",
    "title_height",
    "method_color",
    "method_colors",
    "plain",
    "plain_all",
    "add_layout_items",
    "count_marker_sizes",
    "merge_layout",
    "wide_title_update",
    "widen_title",
    "wrap_title",
]

#: The methods of mlviz, each with its colour (:data:`mlviz.methods.METHODS`: d3's category10,
#: which plotly also ships); a variant (:data:`mlviz.methods.VARIANTS`) is a lighter shade of its
#: method's hue.
METHOD_COLORS: dict[str, str] = {
    name: method.color for name, method in (*METHODS.items(), *VARIANTS.items())
}

# Colours for names outside METHOD_COLORS (a user's own estimator): distinct from the above.
_FALLBACK_COLORS: tuple[str, ...] = (
    "#bcbd22",  # olive
    "#7f7f7f",  # grey
    "#393b79",  # indigo
    "#637939",  # moss
    "#843c39",  # dark red
    "#7b4173",  # plum
    "#3182bd",  # steel blue
    "#e6550d",  # burnt orange
)

#: Label groups (clusters): 24 dark categorical colours, readable as text on white; groups
#: beyond 24 reuse them (``mlviz.figures.label_clusters.group_colour``).
GROUP_COLORS: tuple[str, ...] = tuple(qualitative.Dark24)

#: Points that belong to no group (the empty label set, group id -1): neutral grey.
NO_GROUP_COLOR = "#7f7f7f"

#: Successive principal directions drawn in one chart (the hypercube page's PLST arrows).
DIRECTION_COLORS: tuple[str, ...] = ("#d62728", "#ff7f0e", "#2ca02c")


# one colour per reason a label is lost (mlviz.per_label.loss_reasons), the same on every
# figure: found labels grey-green, causes warm
REASON_COLORS = {
    "no positive": "#d9d9d9",
    "kept": "#74c476",
    "not represented": "#d62728",
    "no scores": "#9e9e9e",
    "not learnable": "#7f3b08",
    "ranked but not predicted": "#ff7f0e",
    "too rare to judge": "#bdbdbd",
    "weakly ranked": "#fdd0a2",
}


def plain(name) -> str:
    """User text (a label, feature, group or data set name) as plotly shows it: literally.

    plotly renders a subset of HTML in every text it draws (titles, axis titles, tick labels,
    hover labels, legend entries, text marks): a label named ``<a href="http://evil.example">x</a>``
    becomes a link, ``<b>`` bold and ``a<br>b`` two lines (issue 24). ``& < >`` become entities,
    which plotly turns back into the characters for display (``&lt;`` shows ``<``), so the
    name shows character for character, ``&amp;`` included. Quotes stay as they are: plotly
    decodes only ``&amp; &lt; &gt;``, a few named symbols and numeric entities, so ``&quot;``
    would show literally; with ``<`` escaped no tag, hence no attribute, can start anyway
    (``tests/test_figures_user_text.py`` reads plotly.js's entity table).

    Apply it where user text enters a figure builder, never to the builder's own markup
    (``<br>``, ``<sup>``, ``<span style=…>`` it writes itself). Builders that measure names
    (tick widths, title wrapping) measure the escaped text: a name with ``& < >`` counts a few
    characters more than it shows, which only widens its margin. Not cut: builders that name
    many labels cap how many they name, and :mod:`pages._app.plain` cuts text for markdown.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from mlviz.figures._style import plain
    >>> plain('<a href="http://evil.example">x</a> & <b>y</b>')
    '&lt;a href="http://evil.example"&gt;x&lt;/a&gt; &amp; &lt;b&gt;y&lt;/b&gt;'
    >>> plain("&amp;")  # shown as typed, not as "&"
    '&amp;amp;'
    >>> import json  # the figure's JSON (to_json writes "<" as "\\u003c": read it back)
    >>> json.loads(go.Figure(go.Bar(x=[plain("<b>bold</b>")], y=[1])).to_json())["data"][0]["x"]
    ['&lt;b&gt;bold&lt;/b&gt;']
    """
    return html.escape(str(name), quote=False)


def plain_all(names) -> list[str]:
    """:func:`plain` of each of ``names`` (label names of an axis, a legend, hover texts).

    Examples
    --------
    >>> from mlviz.figures._style import plain_all
    >>> plain_all(["a<br>b", 3])
    ['a&lt;br&gt;b', '3']
    """
    return [plain(name) for name in names]


def method_color(name: str) -> str:
    """The colour of a method: fixed for mlviz's methods, else derived from the name.

    Parameters
    ----------
    name : str
        Display name, e.g. "PLST" or "ML-KNN".

    Returns
    -------
    str
        A hex colour. Unknown names get a colour from a separate list chosen by a hash of the
        name, so it is the same in every chart and every session (Python's ``hash`` is salted
        per process, hence SHA-256); two unknown names may share one.

    Examples
    --------
    >>> from mlviz.figures._style import method_color
    >>> method_color("PLST") == method_color("PLST"), method_color("PLST") != method_color("CLEMS")
    (True, True)
    >>> method_color("my method").startswith("#")  # unknown names: a fixed colour from the name
    True
    """
    name = str(name)
    if name in METHOD_COLORS:
        return METHOD_COLORS[name]
    digest = int(hashlib.sha256(name.encode("utf-8")).hexdigest(), 16)
    return _FALLBACK_COLORS[digest % len(_FALLBACK_COLORS)]


def method_colors(names) -> dict[str, str]:
    """``{name: method_color(name)}`` for several methods.

    Examples
    --------
    >>> from mlviz.figures._style import method_color, method_colors
    >>> colours = method_colors(["PLST", "ML-KNN"])
    >>> list(colours), colours["PLST"] == method_color("PLST")
    (['PLST', 'ML-KNN'], True)
    """
    return {name: method_color(name) for name in names}


#: Characters of a title line that fit a half-width column at 1280 x 720 (about 400 px of plot
#: at plotly's 17 px title font; measured by ``tests/test_browser.py``'s projector check).
TITLE_CHARS = 48

#: Characters of a title line that fit a figure spanning the page's full width at 1280 x 720
#: (twice the half-width column's, with the same margin of safety).
WIDE_TITLE_CHARS = 2 * TITLE_CHARS

#: plotly's default title font size (px), which :data:`TITLE_CHARS` was measured with.
_TITLE_SIZE = 17

#: Font sizes (px) of a figure on a projector (:func:`for_projector`): plotly's defaults are
#: 12 (ticks, legend), 14 (axis titles) and 17 (title), too small at the back of a classroom.
PROJECTOR_FONT = {"base": 15, "axis_title": 18, "title": 21}

# a markup tag such as <b> or </sub>; a bare "<" (as in "frequency < 5%") is text
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_TAGGED = re.compile(r"^\s*<(sub|sup|b|i)>(.*)</\1>\s*$", re.DOTALL)


def wrap_title(title: str, width: int = TITLE_CHARS) -> str:
    """Break a plotly title into lines of at most ``width`` characters at spaces.

    Lines already split by ``<br>`` are wrapped one by one; a line wholly inside one tag
    (``<sub>…</sub>``) keeps the tag on every piece. A line with tags in its middle is left
    alone (breaking inside a tag would show the markup).

    Examples
    --------
    >>> from mlviz.figures._style import wrap_title
    >>> wrap_title("Share of label variance per principal direction", width=20)
    'Share of label<br>variance per<br>principal direction'
    """
    lines = []
    for line in re.split(r"<br\s*/?>", str(title)):
        tagged = _TAGGED.match(line)
        tag, inner = (tagged.group(1), tagged.group(2)) if tagged else (None, line)
        if _TAG.search(inner) or len(inner) <= width:
            lines.append(line)
            continue
        pieces = textwrap.wrap(inner, width=width, break_long_words=False)
        lines += [f"<{tag}>{piece}</{tag}>" if tag else piece for piece in pieces]
    return "<br>".join(lines)


def title_height(text: str, size: float = _TITLE_SIZE) -> int:
    """Pixels of top margin a title of these lines takes, placed as :func:`legible` does.

    plotly places a multi-line title by its first line, so its lower lines fall on the plot;
    the top margin is sized from the lines instead (``<sub>``/``<sup>`` lines are smaller).
    ``size`` is the title's font size (plotly's default 17 px; :func:`for_projector`'s is
    larger); line heights scale with it.

    Examples
    --------
    >>> from mlviz.figures._style import title_height
    >>> title_height("one line") < title_height("two<br>lines")
    True
    >>> title_height("one line") < title_height("one line", size=24)
    True
    """
    lines = re.split(r"<br\s*/?>", str(text))
    small = sum(1 for line in lines if re.match(r"\s*<su[bp]>", line))
    scale = size / _TITLE_SIZE
    return round(22 + scale * (22 * (len(lines) - small) + 15 * small))


def legible(fig, *, title_width: int = TITLE_CHARS, legend: bool = True):
    """Make a figure readable on a projector: wrapped title, legend off the axes.

    The title is wrapped to ``title_width`` characters a line and the top margin grows to
    hold its lines, so it is never cut at the plot's edge nor drawn over the plot. With
    ``legend=True`` the legend stands in a column right of the plot, where plotly reserves
    its own margin: a legend below the plot (``y < 0``) is drawn over rotated tick names
    and axis titles, whose heights plotly does not add to the legend's offset.

    The title as written and the margin before wrapping are kept in ``layout.meta``, so a
    later re-wrap (:func:`widen_title`, :func:`for_projector`) starts from the sentence, not
    from these lines: re-wrapping wrapped lines leaves one-word orphans.

    Returns the same figure, changed in place.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from mlviz.figures._style import legible
    >>> fig = go.Figure(layout_title_text="A title much longer than one short line of a figure")
    >>> fig = legible(fig, title_width=20)
    >>> fig.layout.title.text.count("<br>")
    2
    >>> legible(fig, title_width=60).layout.title.text.count("<br>")  # from the sentence
    0
    """
    update = _title_update(fig, title_width)
    if update is not None:
        fig.update_layout(**update)
    if legend:
        fig.update_layout(
            legend=dict(orientation="v", x=1.02, xanchor="left", y=1, yanchor="top", yref="paper")
        )
    return fig


def _title_update(fig, title_width: int) -> dict | None:
    """The layout update by which :func:`legible` wraps ``fig``'s title to ``title_width``
    characters a line (None without a title); ``fig`` itself is not changed."""
    title = fig.layout.title.text
    if not title:
        return None
    saved = _saved_title(fig)
    source, base_top = (saved["text"], saved["margin_t"]) if saved else (title, fig.layout.margin.t)
    text = wrap_title(source, title_width)
    top = max(title_height(text) + panel_title_band(fig), base_top or 0)
    meta = dict(fig.layout.meta) if isinstance(fig.layout.meta, dict) else {}
    meta[_TITLE_META] = {
        "text": source,
        "width": title_width,
        "wrapped": text,
        "margin_t": base_top,
        "top": top,
    }
    return {
        "title": {
            "text": text,
            "yref": "container",
            "y": 1,
            "yanchor": "top",
            "pad": {"t": 10},
            "automargin": False,
        },
        "margin": {"t": top},
        "meta": meta,
    }


#: Pixels above a top row of subplots that their titles take (plotly's 16 px annotation font
#: and a gap), under the figure's title.
PANEL_TITLE_BAND = 30


def panel_title_band(fig) -> int:
    """Pixels of top margin the titles of the top row of subplots need under the title.

    ``make_subplots`` draws subplot titles as annotations anchored by their bottom at the top
    of the subplot (``yref="paper"``, ``y=1``), inside the top margin, where the figure's title
    is too: without this band the title's last line is drawn over them. 0 without such titles.

    Examples
    --------
    >>> from plotly.subplots import make_subplots
    >>> from mlviz.figures._style import panel_title_band
    >>> panel_title_band(make_subplots(rows=1, cols=2, subplot_titles=("a", "b")))
    30
    >>> panel_title_band(make_subplots(rows=1, cols=2))
    0
    """
    shifts = [
        a.yshift or 0
        for a in fig.layout.annotations
        if a.text
        and a.yref == "paper"
        and a.y is not None
        and a.y >= 0.999
        and a.yanchor == "bottom"
    ]
    return PANEL_TITLE_BAND + max(0, max(shifts)) if shifts else 0


#: ``layout.meta`` key under which :func:`legible` keeps the title as written.
_TITLE_META = "mlviz_title"


def _saved_title(fig) -> dict | None:
    """What :func:`legible` kept of the title, if the title is still the one it wrapped."""
    meta = fig.layout.meta
    saved = meta.get(_TITLE_META) if isinstance(meta, dict) else None
    if isinstance(saved, dict) and saved.get("wrapped") == fig.layout.title.text:
        return saved
    return None


def widen_title(fig, title_width: int = WIDE_TITLE_CHARS):
    """A copy of ``fig`` whose title is wrapped anew to ``title_width`` characters a line,
    for a figure drawn wider than its builder assumed (across the page, not in a column).

    Only a title :func:`legible` wrapped is re-wrapped, from the sentence it kept; any other
    figure comes back as it was.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from mlviz.figures._style import legible, widen_title
    >>> fig = legible(go.Figure(layout_title_text="Occupied label sets along the first two "
    ...                         "principal directions of the label space"))
    >>> fig.layout.title.text.count("<br>"), widen_title(fig).layout.title.text.count("<br>")
    (1, 0)
    >>> widen_title(fig).layout.margin.t < fig.layout.margin.t
    True
    """
    import plotly.graph_objects as go

    if _saved_title(fig) is None:
        return fig
    return legible(go.Figure(fig), title_width=title_width, legend=False)


def add_layout_items(fig, *, shapes=(), annotations=()):
    """Append ``shapes`` and ``annotations`` (dicts, as ``add_shape`` and ``add_annotation``
    take them) to ``fig``'s layout in one assignment each; returns ``fig``.

    plotly's ``add_shape``, ``add_vrect`` and ``add_annotation`` validate every item already
    in the figure again on each call, so n calls cost O(n²): 20 ``add_vrect`` took 308 ms
    against 10 ms at once (issue 33: the ML-KNN posterior figure shades each predicted
    label). Give the references ``add_vrect`` would (``xref="x"``, ``yref="y domain"``).

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from mlviz.figures._style import add_layout_items
    >>> fig = go.Figure()
    >>> fig = add_layout_items(fig, shapes=[dict(type="line", x0=0, x1=1, y0=0, y1=1)] * 3)
    >>> len(fig.layout.shapes)
    3
    """
    if len(shapes):
        fig.layout.shapes = (*fig.layout.shapes, *shapes)
    if len(annotations):
        fig.layout.annotations = (*fig.layout.annotations, *annotations)
    return fig


def wide_title_update(fig, title_width: int = WIDE_TITLE_CHARS) -> dict | None:
    """What :func:`widen_title` changes, as a layout update, without copying ``fig``: None
    when it would return ``fig`` as it was.

    A copy of a figure goes through plotly's validation of every property, data included
    (13-17 ms for each of the Label clusters page's three figures at 983 labels, issue 33);
    a figure already written as a dict (``fig.to_dict()``) takes this update instead,
    merged the way ``update_layout`` merges it (:func:`merge_layout`).

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from mlviz.figures._style import legible, merge_layout, wide_title_update, widen_title
    >>> fig = legible(go.Figure(layout_title_text="Occupied label sets along the first two "
    ...                         "principal directions of the label space"))
    >>> spec = fig.to_dict()
    >>> spec["layout"] = merge_layout(spec["layout"], wide_title_update(fig))
    >>> spec == widen_title(fig).to_dict()
    True
    >>> wide_title_update(go.Figure(layout_title_text="not wrapped by legible")) is None
    True
    """
    if _saved_title(fig) is None:
        return None
    return _title_update(fig, title_width)


def merge_layout(layout: dict, update: dict) -> dict:
    """``layout`` (a figure dict's, as ``to_dict()`` writes it) with ``update`` merged as
    ``Figure.update_layout`` merges it: nested dicts key by key, any other value replaced, and
    ``meta`` (a free-form property, not one of plotly's nested objects) replaced whole. A new
    dict; ``layout`` is not changed, and what the update does not touch is shared.

    Examples
    --------
    >>> from mlviz.figures._style import merge_layout
    >>> merge_layout({"title": {"text": "a", "x": 0.5}, "height": 400}, {"title": {"text": "b"}})
    {'title': {'text': 'b', 'x': 0.5}, 'height': 400}
    """
    return _merged(layout, update, top=True)


def _merged(layout: dict, update: dict, *, top: bool = False) -> dict:
    merged = dict(layout)
    for key, value in update.items():
        if (
            isinstance(value, dict)
            and isinstance(merged.get(key), dict)
            and not (top and key == "meta")
        ):
            merged[key] = _merged(merged[key], value)
        else:
            merged[key] = value
    return merged


def standalone(fig):
    """``fig`` for a file opened without the app: plotly's own template in place of
    Streamlit's (a copy; any other figure comes back as it was).

    Importing Streamlit makes its template plotly's default, so every figure built in the app
    carries it: its colours are placeholders (``#000001``, ``#000002`` …) that only the app's
    browser code replaces with the theme's, and it has no ``automargin``, so in an exported
    file the axes' margins no longer grow to hold the tick labels (the label-groups heatmap
    drew its names outside the figure).

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from mlviz.figures._style import standalone
    >>> fig = go.Figure(layout_template=go.layout.Template(layout_colorway=["#000001"]))
    >>> standalone(fig).layout.template.layout.xaxis.automargin
    True
    >>> plain = go.Figure(layout_template="simple_white")
    >>> standalone(plain) is plain
    True
    """
    import plotly.graph_objects as go
    import plotly.io as pio

    colorway = fig.layout.template.layout.colorway or ()
    if not (colorway and str(colorway[0]).lower() == "#000001"):
        return fig
    return go.Figure(fig).update_layout(template=pio.templates["plotly"])


def number_axis(values) -> dict:
    """Axis settings that print the numbers in ``values`` readably.

    Spanning at least a decade (all positive): a log axis with one tick per power of ten,
    written 10⁻³ (plotly's own log ticks between decades read "5, 2, 0.1, 5, 2"). Otherwise
    a linear axis with plain digits and thousands separators ("26,933.2", not "26.9332k").

    Examples
    --------
    >>> from mlviz.figures._style import number_axis
    >>> number_axis([0.001, 0.01, 10.0]).get("type"), number_axis([0.2, 0.4]).get("type")
    ('log', 'linear')
    """
    import numpy as np

    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    positive = values.size > 0 and bool(np.all(values > 0))
    if positive and values.max() / values.min() >= 10:
        return dict(type="log", dtick=1, exponentformat="power", minor=dict(showgrid=False))
    return dict(type="linear", exponentformat="none", separatethousands=True)


def integer_ticks(low, high, max_ticks: int = 8) -> dict:
    """Ticks on whole numbers from ``low`` (counts: "1.5 labels" reads wrong), few enough to
    read: every integer while ``high - low`` is at most ``max_ticks``, else every n-th, so at
    most ``max_ticks + 1`` ticks. For a colour bar (one tick per integer from 6 to 37
    overlapped on a 983-label set) or an axis.

    Examples
    --------
    >>> from mlviz.figures._style import integer_ticks
    >>> integer_ticks(1, 3), integer_ticks(6, 37)
    ({'tick0': 1, 'dtick': 1}, {'tick0': 6, 'dtick': 4})
    """
    import math

    step = max(1, math.ceil((float(high) - float(low)) / max_ticks))
    return {"tick0": int(low), "dtick": step}


#: Diameter (px) of the marker of a label set seen once, when the most frequent set still fits
#: its figure's largest marker (:func:`count_marker_sizes`).
ONCE_MARKER_PX = 8.0


def count_marker_sizes(counts, *, largest: float, smallest: float, once: float = ONCE_MARKER_PX):
    """Marker diameters (px) for points that stand for ``counts`` instances each: areas
    proportional to the counts, on one scale whatever the data set.

    A count of 1 is ``once`` px wide as long as the largest count fits in ``largest`` px;
    when it does not, every diameter shrinks by the same factor, so areas stay proportional.
    No marker is narrower than ``smallest`` (a count of 0, or a rare set beside very
    frequent ones): the diameter is ``c * sqrt(count)`` above that floor.

    Scaled to the largest count instead (``largest * sqrt(count / max)``), a set seen once was
    drawn as wide as the most frequent set whenever every set was seen once: on a 983-label
    set whose 1,050 candidate label sets each occur once, CLEMS's embedding became one disc of
    overlapping 30 px markers.

    Examples
    --------
    >>> from mlviz.figures._style import count_marker_sizes
    >>> count_marker_sizes([1, 4, 16], largest=36, smallest=6).tolist()  # 8 px per sqrt(count)
    [8.0, 16.0, 32.0]
    >>> count_marker_sizes([1, 1, 1], largest=36, smallest=6).tolist()  # all seen once: small
    [8.0, 8.0, 8.0]
    >>> count_marker_sizes([0, 1, 100], largest=30, smallest=5).tolist()  # 3 px per sqrt
    [5.0, 5.0, 30.0]
    """
    import numpy as np

    counts = np.asarray(counts, dtype=float)
    if counts.size == 0:
        return counts
    top = max(float(counts.max()), 1.0)
    per_root = min(float(once), float(largest) / np.sqrt(top))
    return np.maximum(float(smallest), per_root * np.sqrt(np.maximum(counts, 0.0)))


def for_projector(fig):
    """A copy of ``fig`` with projector-sized fonts (:data:`PROJECTOR_FONT`).

    The base font (ticks, legend, hover, annotations without a size of their own), axis
    titles and the title grow; sizes a builder set explicitly for dense axes (many label
    names at 10 px) are kept, since there the names' spacing, not the font, is the limit.
    The title is re-wrapped to the same pixel width at the larger font: lines of at most
    :data:`TITLE_CHARS` (a half-width column) or :data:`WIDE_TITLE_CHARS` (the page's width)
    become that many pixels' worth of larger characters. The top margin grows to hold them.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from mlviz.figures._style import for_projector, legible
    >>> fig = legible(go.Figure(layout_title_text="Share of label variance per direction"))
    >>> big = for_projector(fig)
    >>> big.layout.title.font.size > 17 and fig.layout.title.font.size is None
    True
    >>> big.layout.margin.t > fig.layout.margin.t
    True
    """
    import plotly.graph_objects as go

    big = go.Figure(fig)
    sizes = PROJECTOR_FONT
    big.update_layout(font_size=sizes["base"])
    big.update_xaxes(title_font_size=sizes["axis_title"])
    big.update_yaxes(title_font_size=sizes["axis_title"])
    title = big.layout.title.text
    saved = _saved_title(big)
    if title:
        ratio = _TITLE_SIZE / sizes["title"]
        top = big.layout.margin.t
        if saved is not None:
            # the sentence legible() wrapped, so the narrower lines leave no one-word orphans;
            # the margin it had before legible made room for the title
            title = saved["text"]
            if top == saved["top"]:
                top = saved["margin_t"]
        lines = re.split(r"<br\s*/?>", str(title))
        # the main lines, at the same pixel width: fewer characters. <sub>/<sup> lines (70 %
        # of the title's size) had room to spare and keep their breaks.
        small = [bool(re.match(r"\s*<su[bp]>", line)) for line in lines]
        longest = max(
            (len(_TAG.sub("", line)) for line, s in zip(lines, small, strict=True) if not s),
            default=0,
        )
        # the width legible() wrapped to says how wide the figure is drawn; without it, lines
        # of at most TITLE_CHARS may stand in a half-width column, longer ones span the page
        if saved is not None:
            width = int(saved["width"] * ratio)
        else:
            width = int((TITLE_CHARS if longest <= TITLE_CHARS else WIDE_TITLE_CHARS) * ratio)
        text = "<br>".join(
            line if s else wrap_title(line, width) for line, s in zip(lines, small, strict=True)
        )
        # plotly places a title anchored at the container's top by its first baseline, with
        # the ascent of a 17 px font: a larger font needs that much more padding
        pad = 10 + round(2.5 * (sizes["title"] - _TITLE_SIZE))
        title_px = title_height(text, sizes["title"]) + pad - 10 + panel_title_band(big)
        margin_t = max(title_px, round((top or 0) / ratio))
        legend, height = big.layout.legend, big.layout.height
        if legend.yref == "container" and legend.yanchor == "top" and legend.y and height:
            # a legend in its own band under the title (a builder placed it for a one-line
            # title at 17 px) moves down by what the larger, re-wrapped title grew
            grow = max(0, title_px - title_height(str(big.layout.title.text), _TITLE_SIZE))
            legend_top = (1 - legend.y) * height + grow
            big.update_layout(legend_y=1 - legend_top / height)
            margin_t = max(margin_t, round(legend_top + 2.5 * sizes["base"] + 20))
        big.update_layout(
            title_text=text, title_font_size=sizes["title"], title_pad_t=pad, margin_t=margin_t
        )
    return big
