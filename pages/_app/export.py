"""Export: charts whose modebar saves an SVG, the page's HTML report and CSV downloads.

Every download of the app goes through this module: :func:`csv_button` (tables, written by
:func:`mlviz.io.export.safe_csv`, so no cell can be read as a spreadsheet formula) and
:func:`report_button` (a self-contained HTML file); their file names come from
:func:`mlviz.io.export.safe_filename`. ``tests/test_exports.py`` checks that no page calls
``st.download_button`` itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from pages._app import experiment, links, source

_FIGURES_KEY = "_view_figures"


def start_run() -> None:
    """Forget the figures of the previous run (the router calls it first)."""
    st.session_state[_FIGURES_KEY] = {}


def chart(fig: Any, *, key: str, **kwargs: Any) -> None:
    """``st.plotly_chart`` whose modebar exports the figure as ``<data set>_<key>.svg``.

    The key names the figure (``"plst_spectrum"`` gives ``yeast_plst_spectrum.svg``); the
    camera button of plotly's modebar downloads it (SVG, scalable for slides; plotly's PNG
    export is the "download as PNG" entry of the same modebar in a browser without SVG). The
    figure is also kept for :func:`report_button`.
    """
    from mlviz.figures.report import export_filename

    stem = export_filename(source.loaded_dataset().name, *key.split("_"))
    config = {
        "toImageButtonOptions": {"format": "svg", "filename": stem, "scale": 2},
        **kwargs.pop("config", {}),
    }
    st.plotly_chart(fig, key=key, config=config, **kwargs)
    st.session_state.setdefault(_FIGURES_KEY, {})[key] = fig


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
    st.download_button(
        "Download this view (HTML report)",
        data=lambda: html_report(f"{ds.name} — {title}", figures, settings),
        file_name=export_filename(ds.name, page, "report") + ".html",
        mime="text/html",
        key="report_download",
        help="Every figure of this page (interactive) and the settings that made them, in one "
        "self-contained HTML file (plotly.js included: it opens without internet).",
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
    """
    from mlviz.io.export import safe_csv, safe_filename

    st.download_button(
        label,
        safe_csv(table),
        file_name=safe_filename(*name, extension="csv"),
        mime="text/csv",
        key=key,
        help=help,
    )


def html_report(title: str, figures: dict[str, Any], settings: dict[str, Any]) -> str:
    """:func:`mlviz.figures.report.html_report` (imported when the button is pressed)."""
    from mlviz.figures.report import html_report as build

    return build(title, figures, settings)
