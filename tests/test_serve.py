"""serve.py (the classroom launcher) and the per-figure copies shared by every session."""

from __future__ import annotations

import sys

import plotly.graph_objects as go
import plotly.io as pio

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


def test_a_drawn_figure_takes_orjsons_direct_path_and_writes_the_same_json():
    """One value orjson cannot write as it is makes plotly clean the whole figure in Python
    on every draw (the CLEMS page's Shepard diagram: 20,000 hover texts); the drawn copy is
    converted once and writes the same JSON."""
    import numpy as np
    import orjson

    from mlviz.figures.clems import shepard_figure

    rng = np.random.default_rng(0)
    cost = rng.random((30, 30))
    cost = (cost + cost.T) / 2
    np.fill_diagonal(cost, 0.0)
    names = [f"{{label_{i}, <b>tag</b> → ü}}" for i in range(30)]
    values = np.array([1.5, np.nan, -0.0, 1e-300, 3.0], dtype=np.float32)
    figures = [
        shepard_figure(cost, np.sqrt(cost), stress=0.1, labelset_text=names),
        go.Figure(
            go.Scatter(
                x=np.arange(10)[::2],  # not contiguous
                y=values,
                text=np.array(["a", "b", None, "d", "e"], dtype=object),
                customdata=np.column_stack([np.arange(5), np.arange(5)]),
            ),
            layout_title_text="t </script>",
        ),
    ]
    for fig in figures:
        spec = fig.to_dict()
        try:  # the figure as built is one that plotly cleans value by value
            orjson.dumps(spec, option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS)
            raise AssertionError("this figure needs no cleaning: it tests nothing")
        except TypeError:
            pass
        drawn = _DrawnFigure(fig)
        orjson.dumps(drawn.to_dict(), option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS)
        sent = pio.to_json(drawn, validate=False)  # what st.plotly_chart sends
        # the same text as plotly's own JSON of the figure, value by value cleaned
        assert sent == pio.to_json(fig, validate=False)
