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
