"""Tables that fit the page at 1280 x 720 (issue 15)."""

from __future__ import annotations

import numpy as np
import streamlit as st

#: Pixel width of a numeric column in ``fitted_table``: wide enough for "0.1234" and a short
#: header (the full header is the column's tooltip).
NUMBER_COLUMN_PX = 70
#: Rough width of one character of a table cell (14 px font), to tell when text would be cut.
LABEL_CHAR_PX = 7
#: Row height that lets Streamlit wrap a text cell (it wraps only above 4rem = 64 px): four
#: lines of ~20 px.
WRAP_ROW_PX = 84


def fitted_table(
    table,
    *,
    column_config: dict | None = None,
    text_width: str | int = "medium",
    number_format: str = "%.4g",
    **kwargs,
) -> None:
    """``st.dataframe`` whose columns fit the container at 1280 × 720 (issue 15).

    Numbers get a narrow column with a compact format and their header as tooltip; text
    columns a fixed width (long text is cut in the cell, shown whole on hover). Entries of
    ``column_config`` override these defaults column by column.
    """
    import pandas as pd

    frame = table.data if hasattr(table, "data") and hasattr(table, "format") else table
    config: dict = {}
    for name in frame.columns:
        values = frame[name]
        label = str(name)
        if pd.api.types.is_bool_dtype(values) or pd.api.types.is_integer_dtype(values):
            config[label] = st.column_config.NumberColumn(width=NUMBER_COLUMN_PX, help=label)
        elif pd.api.types.is_numeric_dtype(values):
            config[label] = st.column_config.NumberColumn(
                width=NUMBER_COLUMN_PX, format=number_format, help=label
            )
        else:
            config[label] = st.column_config.TextColumn(width=text_width, help=label)
    config.update(column_config or {})
    st.dataframe(table, column_config=config, width="stretch", **kwargs)


def group_table(diagnostics, *, latent_rows_used: np.ndarray | None = None) -> None:
    """The label groups as a table: one row per group, its verdict, then its labels.

    ``diagnostics`` is :func:`mlviz.label_clustering.group_diagnostics`'s table; the Label
    clusters and GroPLE pages both show it. ``latent_rows_used`` (GroPLE: latent rows of
    each group's V^k) becomes a second column.
    """
    from mlviz.figures.label_clusters import group_table as display_table

    table = display_table(diagnostics)
    # Pixel widths wide enough for each header, summing to less than the main area at
    # 1280 × 720 (~820 px; Streamlit stretches them to fill it): no header is cut, and the
    # labels (long text, whole on hover) take what is left.
    widths = {"group": 55, "n_labels": 70, "support": 65}
    widths |= {"co-occurring pairs": 125, "mean Jaccard": 100, "tail share": 75, "stability": 70}
    if latent_rows_used is not None:
        table.insert(1, "latent rows used", latent_rows_used)
        widths["latent rows used"] = 120
    formats = {
        "co-occurring pairs": "%.2f",
        "mean Jaccard": "%.3f",
        "tail share": "%.2f",
        "stability": "%.2f",
    }
    config = {
        column: st.column_config.NumberColumn(format=formats.get(column), width=width, help=column)
        for column, width in widths.items()
        if column in table.columns
    }
    config["verdict"] = st.column_config.TextColumn(width=115, help="verdict")
    # the verdict column names one of mlviz.label_clustering.VERDICTS ("never co-occur" is
    # the longest); the labels take what is left of ~820 px
    labels_px = 130 if latent_rows_used is None else 60
    config["labels"] = st.column_config.TextColumn(width=labels_px, help="labels")
    # a cell longer than its column wraps onto up to four lines instead of being cut after a
    # few characters ("A1, A2, A3, A" at 1280 px): Streamlit wraps text only in rows taller
    # than 4rem (64 px); the whole list stays on hover
    longest = max((len(str(v)) for v in table["labels"]), default=0)
    wrap = longest * LABEL_CHAR_PX > labels_px
    fitted_table(
        table, hide_index=True, column_config=config, row_height=WRAP_ROW_PX if wrap else None
    )
