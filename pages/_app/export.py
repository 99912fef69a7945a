"""Export: charts whose modebar saves an SVG, the page's HTML report and CSV downloads.

Every download of the app goes through this module: :func:`csv_button` (tables, written by
:func:`mlviz.io.export.safe_csv`, so no cell can be read as a spreadsheet formula) and
:func:`report_button` and :func:`html_button` (self-contained HTML files); their file
names come from :func:`mlviz.io.export.safe_filename`. ``tests/test_exports.py`` checks that
no page calls ``st.download_button`` itself.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from mlviz.figures._style import merge_layout, wide_title_update, widen_title
from pages._app import experiment, links, source

_FIGURES_KEY = "_view_figures"
# A download button's click does not rerun the page. With a rerun, the run registers the
# button's file function under a new id and drops the one the click had asked for; when the
# rerun got there first (a busy server), the file never came (Streamlit's media file manager:
# "a click that still holds the old id fails"). Seen twice in CI, stops 44 and 46. Nothing on
# a page depends on the click either, and a class downloading 30 files is 30 reruns saved.
_NO_RERUN = "ignore"


def start_run() -> None:
    """Forget the figures of the previous run (the router calls it first)."""
    st.session_state[_FIGURES_KEY] = {}


class _DrawnFigure(go.Figure):
    """A shared figure as ``st.plotly_chart`` reads it, its JSON written once.

    ``st.plotly_chart`` reads a figure only through ``to_dict()``
    (``plotly.tools.return_figure_from_figure_or_data``) and writes that dict with
    ``plotly.io.to_json`` on every run of every session, cached or not (issue 33: the CLEMS
    page's Shepard diagram, 1.5 MB of JSON, was written and escaped on each rerun, ~10 ms of
    the page's ~80 ms, stop 45). This is an empty figure holding that dict, made once from
    the figure, as a :class:`_WrittenFigure`: plotly writes it from the JSON it already holds.
    The shared cache thus keeps each drawn figure twice, as a dict and as its JSON.
    """

    def __init__(self, fig: go.Figure, layout_update: dict | None = None) -> None:
        super().__init__()  # nothing but the dict below is read when it is drawn
        spec = fig.to_dict()
        if layout_update is not None:
            spec["layout"] = merge_layout(spec.get("layout", {}), layout_update)
        self._drawn_dict = _WrittenFigure(spec)

    @classmethod
    def wide(cls, fig: go.Figure) -> _DrawnFigure:
        """The drawn form of ``widen_title(fig)``, made from ``fig``'s dict: no copy of the
        figure through plotly's validation (13-17 ms a figure, even a small one: the Label
        clusters page redraws three on every move of its K slider, issue 33); the same
        figure sent, key for key (``tests/test_serve.py``)."""
        return cls(fig, wide_title_update(fig))

    def to_dict(self) -> dict:
        return self._drawn_dict


class _WrittenFigure(dict):
    """A figure's dict that ``plotly.io.to_json`` writes from its JSON, written once.

    ``plotly.io.to_json`` asks the object it writes for ``to_plotly_json()`` (the hook of
    Dash's components) and dumps the result with orjson: here that is the dict's own JSON
    (``plotly.io.to_json`` of the dict, with plotly's escapes of ``<``, ``>``, ``/``) as an
    ``orjson.Fragment``, which orjson copies as it is, and in which plotly's escaping then
    finds nothing to replace. The text is the figure's own to the character
    (``tests/test_serve.py``). The dict keeps the figure: plotly's other engine (``json``)
    and Streamlit's size checks read it as a figure.
    """

    def __init__(self, spec: dict) -> None:
        super().__init__(spec)
        self._json = orjson.Fragment(pio.to_json(spec, validate=False).encode())

    def to_plotly_json(self) -> orjson.Fragment:
        return self._json


def chart(fig: Any, *, key: str, wide: bool = True, **kwargs: Any) -> None:
    """``st.plotly_chart`` whose modebar exports the figure at slide size (1600 × 900).

    ``wide``: the chart spans the main area, so its title is wrapped to the page's width
    (:func:`mlviz.figures._style.widen_title`; builders wrap for a half-width column). Pass
    ``wide=False`` for a chart inside a column (``tests/test_architecture.py`` checks it).

    The key names the figure (``"plst_spectrum"`` on the PLST page gives
    ``plst-spectrum-yeast.png``); the camera button of plotly's modebar downloads it in the
    sidebar's chosen format, PNG or SVG (:func:`pages._app.presentation.image_options`).
    While presenting the chart gets larger fonts. The figure is also kept for
    :func:`report_button`.
    """
    from pages._app import fitting, presentation, router

    # slide-sized PNG or SVG named page-figure-dataset; larger fonts while presenting
    stem = presentation.figure_name(key, router.current_page(), source.loaded_dataset().name)
    config = {
        "toImageButtonOptions": presentation.image_options(stem),
        **kwargs.pop("config", {}),
    }
    widen_later = False  # for the report: the wide copy is made only if it is downloaded
    if presentation.is_on():
        if wide:
            fig = fitting.figure_variant(fig, "wide", widen_title)
        shown = fitting.figure_variant(fig, "projector", presentation.restyle)
        shown = fitting.figure_variant(shown, "drawn", _DrawnFigure, share_only=True)
    elif wide:
        shown = fitting.figure_variant(fig, "drawn wide", _DrawnFigure.wide, share_only=True)
        if shown is fig:  # built in this run, not shared: no drawn form, a widened copy
            shown = fig = widen_title(fig)
        else:
            widen_later = True
    else:
        shown = fitting.figure_variant(fig, "drawn", _DrawnFigure, share_only=True)
    st.plotly_chart(shown, key=key, config=config, **kwargs)
    st.session_state.setdefault(_FIGURES_KEY, {})[key] = (fig, widen_later)


def report_button(
    title: str, parameters: dict[str, Any] | None = None, *, page_file: str | None = None
) -> None:
    """A download button: this page's figures (drawn by :func:`chart`) and settings as HTML.

    The settings are the data set, the split and every widget value bound to the URL on this
    page, plus ``parameters``. The HTML is built only when the button is pressed. The file is
    named after ``page_file`` (default: the page the router runs).
    """
    from mlviz.figures.report import export_filename
    from pages._app import router

    figures = dict(st.session_state.get(_FIGURES_KEY, {}))
    if not figures:
        return
    ds = source.loaded_dataset()
    settings = {
        "data set": st.session_state.get(source.SOURCE_LABEL_KEY, ds.name),
        "split": experiment.split_settings(),
    }
    settings.update(links.view_params())
    settings.update(parameters or {})
    settings["link"] = "?" + "&".join(
        f"{k}={v}" for k in st.query_params for v in st.query_params.get_all(k)
    )
    page = Path(page_file).stem if page_file else router.current_page() or "view"
    html_button(
        "Download this view (HTML report)",
        lambda: html_report(
            f"{ds.name} — {title}",
            {name: widen_title(fig) if later else fig for name, (fig, later) in figures.items()},
            settings,
        ),
        file_name=export_filename(ds.name, page, "report") + ".html",
        key="report_download",
        help="Every figure of this page (interactive) and the settings that made them, in one "
        "self-contained HTML file (plotly.js included: it opens without internet).",
    )


def html_button(
    label: str,
    build: Callable[[], str],
    *,
    file_name: str,
    key: str,
    help: str | None = None,
    container: Any = st,
) -> None:
    """A download button for an HTML file that ``build`` writes when the file is requested.

    ``file_name`` must come from :func:`mlviz.io.export.safe_filename` (or a function that
    uses it). Streamlit calls ``build`` outside the session's run, so it must not read
    ``st.session_state``: give it what it needs through its closure.
    """
    container.download_button(
        label,
        data=build,
        file_name=file_name,
        mime="text/html",
        key=key,
        help=help,
        on_click=_NO_RERUN,
    )


def csv_button(
    label: str,
    table: pd.DataFrame,
    *,
    name: tuple[str, ...],
    key: str | None = None,
    help: str | None = None,
) -> None:
    """A download button for ``table`` as CSV, safe to open in a spreadsheet.

    The cells go through :func:`mlviz.io.export.safe_csv` (a text cell or column name that
    starts with ``=``, ``+``, ``-``, ``@``, tab or CR gets a leading ``'``; numbers are
    untouched) and the file name is :func:`mlviz.io.export.safe_filename` of ``name`` (e.g.
    ``(ds.name, "per_label")``: an upload's stem may hold any character).

    The CSV is written when the button is pressed, not on every run (the Data page wrote its
    two tables on every rerun, ~10 % of a rerun on the sample): Streamlit calls the
    function outside the run, on a copy of ``table`` taken now, so a later change to the
    frame does not reach the file.
    """
    from functools import partial

    from mlviz.io.export import safe_csv, safe_filename

    st.download_button(
        label,
        partial(safe_csv, table.copy()),
        file_name=safe_filename(*name, extension="csv"),
        mime="text/csv",
        key=key,
        help=help,
        on_click=_NO_RERUN,
    )


def html_report(title: str, figures: dict[str, Any], settings: dict[str, Any]) -> str:
    """:func:`mlviz.figures.report.html_report` (imported when the button is pressed)."""
    from mlviz.figures.report import html_report as build

    return build(title, figures, settings)
