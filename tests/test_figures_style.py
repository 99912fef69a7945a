"""One fixed colour per method on every chart, and no figure builder with a palette of its own."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from mlviz.figures._style import METHOD_COLORS, method_color, method_colors

FIGURES = Path(__file__).resolve().parents[1] / "mlviz" / "figures"
STYLE_MODULE = "_style.py"

_COLOUR = re.compile(
    r"^(#[0-9a-fA-F]{3,8}|(rgb|rgba|hsl|hsla)\(.*\)|"
    r"red|green|blue|orange|purple|brown|pink|gr[ae]y|olive|cyan|magenta|black|navy|teal)$"
)
_PALETTE_NAMES = {
    "qualitative",  # plotly.colors.qualitative / px.colors.qualitative
    "DEFAULT_PLOTLY_COLORS",
    "colorway",
    "color_discrete_sequence",
    "color_discrete_map",
}


def _is_colour(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and bool(_COLOUR.match(node.value.strip()))
    )


def palette_violations(source: str) -> list[str]:
    """Where a module defines categorical colours of its own (a list or dict of colours,
    plotly's qualitative palettes, a colorway); continuous colour scales are allowed."""
    found = []
    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", "?")
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            if sum(_is_colour(e) for e in node.elts) >= 2:
                found.append(f"line {line}: a list of colours")
        elif isinstance(node, ast.Dict):
            if sum(_is_colour(v) for v in node.values) >= 2:
                found.append(f"line {line}: a dict of colours")
        elif isinstance(node, ast.Attribute) and node.attr in _PALETTE_NAMES:
            found.append(f"line {line}: .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and any(
            alias.name in _PALETTE_NAMES for alias in node.names
        ):
            found.append(f"line {line}: imports a plotly palette")
        elif isinstance(node, ast.keyword) and node.arg in _PALETTE_NAMES:
            found.append(f"line {line}: {node.arg}=")
    return found


@pytest.mark.parametrize(
    "path",
    [p for p in sorted(FIGURES.glob("*.py")) if p.name != STYLE_MODULE],
    ids=lambda p: p.name,
)
def test_no_figure_builder_defines_its_own_palette(path):
    violations = palette_violations(path.read_text())
    assert not violations, (
        f"mlviz/figures/{path.name} defines colours of its own ({'; '.join(violations)}); "
        "look them up in mlviz.figures._style (method_color, METHOD_COLORS) instead."
    )


@pytest.mark.parametrize(
    "snippet",
    [
        "from plotly.colors import qualitative\nP = qualitative.D3",
        "import plotly.express as px\nP = px.colors.qualitative.Plotly",
        "P = ['#1f77b4', '#ff7f0e']",
        "COLOURS = {'PLST': 'rgb(255, 127, 14)', 'BR': 'blue'}",
        "fig.update_layout(colorway=X)",
    ],
)
def test_the_palette_check_catches_palettes(snippet):
    assert palette_violations(snippet)


def test_the_palette_check_allows_single_colours_and_scales():
    allowed = (
        "marker_color = '#1f77b4'\n"
        "scale = [[0.0, '#b2182b'], [0.5, '#d9d9d9'], [1.0, '#2166ac']]\n"
        "c = np.where(is_tail, '#d62728', '#1f77b4')\n"
        "m = dict(color='black', size=6)\n"
    )
    assert palette_violations(allowed) == []


def test_method_colours_are_fixed_distinct_and_deterministic():
    assert len(set(METHOD_COLORS.values())) == len(METHOD_COLORS)
    for name in ("BR", "PLST", "PBR", "CPLST", "CS", "ML-KNN", "CLEMS", "GroPLE"):
        assert method_color(name) == METHOD_COLORS[name]
    unknown = method_color("my own estimator")
    assert unknown not in METHOD_COLORS.values()
    assert method_color("my own estimator") == unknown
    # the same in a fresh interpreter (Python's own hash() is salted per process)
    code = "from mlviz.figures._style import method_color; print(method_color('my own estimator'))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=FIGURES.parents[1],
    )
    assert out.stdout.strip() == unknown
    assert method_colors(["CLEMS", "BR"]) == {"CLEMS": "#17becf", "BR": "#1f77b4"}


def _colours_by_name(fig) -> dict[str, str]:
    found = {}
    for trace in fig.data:
        colour = trace.marker.color if trace.type in ("bar", "scatter") else None
        if trace.type == "scatter" and trace.mode and "lines" in trace.mode:
            colour = trace.line.color
        if trace.name is not None and isinstance(colour, str):
            found.setdefault(trace.name, colour)
    return found


@pytest.mark.parametrize("order", [["BR", "PLST", "CLEMS"], ["CLEMS", "PLST", "BR"]])
def test_every_method_chart_uses_the_fixed_colours_whatever_the_order(order):
    from mlviz.figures.compare import metric_bars, metric_vs_param_figure, per_label_figure
    from mlviz.figures.evaluation import cd_diagram
    from mlviz.figures.linear import loss_vs_m_figure

    summary = pd.DataFrame(
        [
            {"method": m, "metric": "accuracy", "mean": 0.5 + i / 10, "sd": 0.01}
            for i, m in enumerate(order)
        ]
    )
    sweep = pd.DataFrame(
        [
            {"method": m, "d": d, "metric": "accuracy", "value": 0.5}
            for m in order
            for d in (1, 2)
            for _ in range(2)
        ]
    )
    loss = pd.DataFrame([{"method": m, "M": d, "hamming_loss": 0.2} for m in order for d in (1, 2)])
    table = pd.DataFrame(
        {"label": ["a", "b"], "frequency": [0.1, 0.5], **{f"F1 {m}": [0.2, 0.8] for m in order}}
    )
    figures = [
        metric_bars(summary),
        metric_vs_param_figure(sweep, "d", "accuracy"),
        loss_vs_m_figure(loss),
        per_label_figure(table, order),
    ]
    for fig in figures:
        colours = _colours_by_name(fig)
        for method in order:
            assert colours[method] == METHOD_COLORS[method], (fig.layout.title.text, method)
    cd = cd_diagram({m: float(i + 1) for i, m in enumerate(order)}, 1.0)
    label_colours = {
        a.text.split(" (")[0]: a.font.color
        for a in cd.layout.annotations
        if a.font.color is not None
    }
    assert label_colours == {m: METHOD_COLORS[m] for m in order}
    assert np.all([c in METHOD_COLORS.values() for c in label_colours.values()])


def test_wrap_title_breaks_long_lines_and_keeps_tags():
    from mlviz.figures._style import wrap_title

    title = (
        "Label space spectrum: how much label variation each principal direction keeps"
        "<br><sub>largest 31 of 45 shown; the eigengap suggests K = 2 groups here</sub>"
    )
    wrapped = wrap_title(title, 40)
    lines = wrapped.split("<br>")
    assert len(lines) == 4
    assert all(len(re.sub(r"<[^>]*>", "", line)) <= 40 for line in lines)
    assert lines[-1].startswith("<sub>") and lines[-1].endswith("</sub>")
    assert re.sub(r"<[^>]*>|\s", "", wrapped) == re.sub(r"<[^>]*>|\s", "", title)
    assert wrap_title("short", 40) == "short"


def test_wrap_title_wraps_a_line_with_a_bare_less_than_sign():
    from mlviz.figures._style import wrap_title

    line = "shaded: tail labels (frequency < 5%), the rarest at the top of every panel"
    assert wrap_title(f"<sub>{line}</sub>", 40) == (
        "<sub>shaded: tail labels (frequency < 5%),</sub><br>"
        "<sub>the rarest at the top of every panel</sub>"
    )
    # a tag in the middle of a line is still left alone (breaking inside it shows the markup)
    tagged = "the decoded point o + P<sup>T</sup>h per label, rounded at one half"
    assert wrap_title(tagged, 40) == tagged


def test_legible_puts_the_legend_right_of_the_plot():
    import plotly.graph_objects as go

    from mlviz.figures._style import legible

    fig = go.Figure(go.Scatter(x=[1], y=[1]))
    fig.update_layout(title="t " * 40, legend=dict(orientation="h", y=-0.2))
    legible(fig)
    assert fig.layout.legend.x > 1 and fig.layout.legend.orientation == "v"
    assert "<br>" in fig.layout.title.text
    assert fig.layout.margin.t >= 22 + 22 * (fig.layout.title.text.count("<br>") + 1)


def test_number_axis_log_only_over_a_decade():
    from mlviz.figures._style import number_axis

    assert number_axis([1e-4, 0.5])["type"] == "log"
    assert number_axis([2.0, 5.0])["type"] == "linear"
    assert number_axis([-1.0, 50.0])["type"] == "linear"


@pytest.mark.parametrize(
    "title",
    [
        "Occupied label sets along PLST's first two principal directions",
        "Group sparsity of V: blank rows are exactly zero (13 of 28 group rows used)",
        "MDS embedding of the 164 candidate label sets",
    ],
)
def test_projector_and_wide_titles_rewrap_the_sentence_not_its_lines(title):
    """Re-wrapping a title legible() already wrapped line by line left one-word orphans
    ("…PLST's first" / "two" / "principal directions"); it starts from the sentence."""
    from mlviz.figures._style import (
        PROJECTOR_FONT,
        TITLE_CHARS,
        WIDE_TITLE_CHARS,
        for_projector,
        legible,
        widen_title,
        wrap_title,
    )

    fig = legible(go.Figure(layout_title_text=title))
    narrower = int(TITLE_CHARS * 17 / PROJECTOR_FONT["title"])
    assert for_projector(fig).layout.title.text == wrap_title(title, narrower)
    wide = widen_title(fig)
    assert wide.layout.title.text == wrap_title(title, WIDE_TITLE_CHARS)
    assert fig.layout.title.text == wrap_title(title, TITLE_CHARS)  # the original is kept
    wider = int(WIDE_TITLE_CHARS * 17 / PROJECTOR_FONT["title"])
    assert for_projector(wide).layout.title.text == wrap_title(title, wider)
    # the margin follows the lines: fewer lines, no more room than they need
    assert wide.layout.margin.t <= fig.layout.margin.t
    # a title changed after legible() is re-wrapped as written (nothing stale is used)
    fig.update_layout(title_text="Another title")
    assert "Another" in for_projector(fig).layout.title.text


def test_layout_items_added_at_once_are_those_added_one_by_one():
    """add_layout_items appends in one assignment what add_shape / add_vrect / add_annotation
    append one call at a time (each call re-validates every item already there: O(n²)); the
    figure is the same, item for item, after items already in it."""
    from plotly.subplots import make_subplots

    from mlviz.figures._style import add_layout_items

    def base():
        fig = make_subplots(specs=[[{"secondary_y": True}]])
        fig.add_trace(go.Bar(x=[0, 1, 2], y=[1, 2, 3]))
        fig.add_hline(y=0.5, line_dash="dot")  # an item already there
        fig.add_annotation(x=0, y=1, text="first")
        return fig

    one_by_one, at_once = base(), base()
    for p in (0, 2):
        one_by_one.add_vrect(x0=p - 0.5, x1=p + 0.5, fillcolor="#2ca02c", opacity=0.1,
                             line_width=0, layer="below")  # fmt: skip
    one_by_one.add_shape(type="line", x0=0.5, x1=0.5, y0=0, y1=3, line=dict(width=1))
    for i in range(3):
        one_by_one.add_annotation(x=i, y=1.0, yref="paper", text=f"{i}", showarrow=False)
    shade = dict(fillcolor="#2ca02c", opacity=0.1, line_width=0, layer="below")
    add_layout_items(
        at_once,
        shapes=[
            *(
                dict(type="rect", x0=p - 0.5, x1=p + 0.5, xref="x", y0=0, y1=1, yref="y domain")
                | shade
                for p in (0, 2)
            ),
            dict(type="line", x0=0.5, x1=0.5, y0=0, y1=3, line=dict(width=1)),
        ],
        annotations=[
            dict(x=i, y=1.0, yref="paper", text=f"{i}", showarrow=False) for i in range(3)
        ],
    )
    assert at_once.to_plotly_json() == one_by_one.to_plotly_json()
    assert len(at_once.layout.shapes) == 4 and len(at_once.layout.annotations) == 4
    assert add_layout_items(at_once) is at_once  # nothing to add: unchanged
