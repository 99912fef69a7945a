"""serve.py (the classroom launcher) and the per-figure copies shared by every session."""

from __future__ import annotations

import contextlib
import sys

import plotly.graph_objects as go
import plotly.io as pio
import plotly.tools

import serve
from pages._app import fitting
from pages._app.export import _DrawnFigure


def test_page_imports_find_the_libraries_the_pages_import_inside_functions_too():
    imports = serve.page_imports()
    modules = {module for module, _ in imports}
    assert "streamlit" in modules
    assert ("pages._app", ("router",)) in imports  # app.py: from pages._app import router
    assert any(module.startswith("sklearn") for module in modules)
    assert not any(module.startswith(".") for module in modules)


def test_preload_imports_them_without_failures():
    assert serve.preload() == []
    assert "plotly.graph_objects" in sys.modules and "pages._app.fitting" in sys.modules


def test_prepare_opens_every_page_and_fills_the_shared_figure_cache():
    fitting._figures.clear()
    assert len(fitting._figures()) == 0
    assert serve.prepare() == []
    assert len(fitting._figures()) > 0


def test_a_variant_is_made_once_for_a_shared_figure_and_each_time_otherwise():
    store = fitting._FigureStore()
    shared = store.get_or_build(("k",), lambda: go.Figure(layout_title_text="a"))
    calls = []

    def wider(fig):
        calls.append(fig)
        return go.Figure(fig, layout_title_text="b")

    first = store.variant(shared, "wide", wider)
    assert store.variant(shared, "wide", wider) is first and len(calls) == 1
    assert first.layout.title.text == "b" and shared.layout.title.text == "a"
    # a variant of a variant is shared too; a figure the store does not hold is not
    assert store.variant(first, "drawn", _DrawnFigure) is store.variant(
        first, "drawn", _DrawnFigure
    )
    own = go.Figure()
    assert store.variant(own, "wide", wider) is not store.variant(own, "wide", wider)
    assert store.variant(own, "drawn", _DrawnFigure, share_only=True) is own


def test_a_drawn_figure_serialises_as_its_figure():
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4], text=["a", "b"]), layout_title_text="t")
    drawn = _DrawnFigure(fig)
    assert drawn.to_dict() == fig.to_dict()
    assert pio.to_json(drawn, validate=False) == pio.to_json(fig, validate=False)


def test_a_drawn_figure_writes_its_json_once_the_same_text_as_plotlys():
    """``st.plotly_chart`` writes every figure on every run (``plotly.io.to_json``); a drawn
    figure hands plotly the JSON written when it was made: the text of the figure itself,
    escapes included, whichever engine plotly uses."""
    import numpy as np

    from mlviz.figures.clems import shepard_figure

    rng = np.random.default_rng(0)
    cost = rng.random((30, 30))
    cost = (cost + cost.T) / 2
    np.fill_diagonal(cost, 0.0)
    names = [f"{{label_{i}, <b>tag</b> → ü \u2028 a/b}}" for i in range(30)]
    values = np.array([1.5, np.nan, -0.0, 1e-300, 3.0], dtype=np.float32)
    figures = [
        shepard_figure(cost, np.sqrt(cost), stress=0.1, labelset_text=names),
        go.Figure(
            go.Scatter(
                x=np.arange(10)[::2],  # not contiguous
                y=values,
                text=np.array(["a", "b", None, "d", "e"], dtype=object),
                customdata=np.column_stack([np.arange(5), np.arange(5)]),
                uid="a-uid",  # plotly leaves uids out of the JSON
            ),
            layout_title_text="t </script>",
        ),
    ]
    for fig in figures:
        expected = pio.to_json(fig, validate=False)
        drawn = _DrawnFigure(fig)
        # what st.plotly_chart sends: the figure's dict, written by plotly.io
        spec = plotly.tools.return_figure_from_figure_or_data(drawn, validate_figure=True)
        assert pio.to_json(spec, validate=False) == expected
        assert pio.to_json(drawn, validate=False) == expected
        # written once: a later change to the dict does not reach the text
        spec["layout"]["title"] = {"text": "changed"}
        assert pio.to_json(spec, validate=False) == expected
        with _plotly_engine("json"):  # plotly's other engine reads the dict as a figure
            assert pio.to_json(_DrawnFigure(fig), validate=False) == pio.to_json(
                fig, validate=False
            )


def _wide_cases():
    """Figures as builders leave them: a plain title, subplot titles under it (the band
    legible() keeps free), a meta of the builder's own, a title changed after legible(), no
    title, and a real builder's heatmap."""
    import numpy as np
    from plotly.subplots import make_subplots

    from mlviz.figures._style import legible
    from mlviz.figures.label_clusters import affinity_heatmap

    long = "Group sparsity of V: blank rows are exactly zero (13 of 28 group rows used) " * 2
    panels = make_subplots(rows=1, cols=2, subplot_titles=("left panel", "right panel"))
    panels.update_layout(title_text=long, margin=dict(t=40, l=7), title_font_size=19)
    meta = go.Figure(layout_title_text=long, layout_meta={"mine": [1, 2], "n": 3})
    changed = legible(go.Figure(layout_title_text=long))
    changed.update_layout(title_text="changed after legible()")
    rng = np.random.default_rng(0)
    affinity = rng.random((40, 40))
    affinity = (affinity + affinity.T) / 2
    np.fill_diagonal(affinity, 1.0)
    heatmap = affinity_heatmap(affinity, np.arange(40) % 3, [f"label_{i}" for i in range(40)])
    return {
        "plain": legible(go.Figure(go.Bar(x=[1, 2], y=[3, 4]), layout_title_text=long)),
        "panels": legible(panels),
        "meta": legible(meta),
        "changed after legible()": changed,
        "no title": legible(go.Figure(go.Scatter(x=[1], y=[2]))),
        "affinity heatmap": heatmap,
    }


def test_a_wide_drawn_figure_is_widen_titles_figure_without_its_copy():
    """The page's charts are drawn wide from the figure's dict with the title's layout update
    (no copy through plotly's validation): the JSON sent is the widened copy's, value for
    value (plotly orders a copy's keys as it set them, and a copy drops an empty object such
    as a heatmap's ``yaxis.title: {}``, which plotly.js reads as unset), and the figure is not
    changed."""
    import json

    from mlviz.figures._style import widen_title

    def pruned(value):
        if isinstance(value, dict):
            kept = {k: pruned(v) for k, v in value.items()}
            return {k: v for k, v in kept.items() if v != {}}
        if isinstance(value, list):
            return [pruned(v) for v in value]
        return value

    for name, fig in _wide_cases().items():
        before = pio.to_json(fig, validate=False)
        expected = pruned(json.loads(pio.to_json(widen_title(fig), validate=False)))
        drawn = json.loads(pio.to_json(_DrawnFigure.wide(fig), validate=False))
        assert pruned(drawn) == expected, name
        assert pio.to_json(fig, validate=False) == before, name
    # the case that changes something: its title is re-wrapped wider, on fewer lines
    plain = _wide_cases()["plain"]
    wide = _DrawnFigure.wide(plain).to_dict()["layout"]
    assert wide["title"]["text"].count("<br>") < plain.layout.title.text.count("<br>")
    assert wide["margin"]["t"] < plain.layout.margin.t


@contextlib.contextmanager
def _plotly_engine(engine: str):
    before = pio.json.config.default_engine
    pio.json.config.default_engine = engine
    try:
        yield
    finally:
        pio.json.config.default_engine = before
