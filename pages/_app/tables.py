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
#: Streamlit's dataframe header and default row height (px), the rows its "auto" height shows
#: at most, and room for a horizontal scroll bar under the last row.
HEADER_PX = ROW_PX = 35
MAX_SHOWN_ROWS = 10
SCROLLBAR_PX = 20


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


#: Sum of column widths that fits the main area at 1280 × 720 with the sidebar open (818 px
#: measured by tests/_browser.py) with a margin; Streamlit stretches narrower tables to fill it.
MAIN_AREA_PX = 800


def shared_width(n_columns: int, taken_px: int, *, least: int, most: int) -> int:
    """Pixel width of each of ``n_columns`` columns sharing what ``taken_px`` (the table's
    other columns) leaves of :data:`MAIN_AREA_PX`, kept within [``least``, ``most``].

    At ``least`` the table may be wider than the main area (it then scrolls sideways): a
    column narrower than that would cut every value.

    Examples
    --------
    >>> shared_width(4, 400, least=55, most=80), shared_width(8, 400, least=55, most=80)
    (80, 55)
    """
    return int(min(most, max(least, (MAIN_AREA_PX - taken_px) // max(1, n_columns))))


#: The group table's numeric columns: (header shown, pixel width, format, tooltip). Headers
#: are short so that the label names keep room; the tooltip says what the number is.
_GROUP_COLUMNS: dict[str, tuple[str, int, str | None, str]] = {
    "group": ("group", 55, None, "group id"),
    "latent rows used": (
        "rows used",
        80,
        None,
        "latent rows used: rows of the group's V^k that are not zero, out of d",
    ),
    "n_labels": ("n_labels", 70, None, "n_labels: labels in the group"),
    "support": ("support", 65, None, "support: instances carrying at least one of its labels"),
    "co-occurring pairs": (
        "co-occurring",
        95,
        "%.2f",
        "co-occurring pairs: share of the group's label pairs that occur together in at "
        "least one instance",
    ),
    "mean Jaccard": (
        "Jaccard",
        65,
        "%.3f",
        "mean Jaccard: mean Jaccard co-occurrence over the group's label pairs",
    ),
    "tail share": ("tail share", 75, "%.2f", "tail share: share of its labels in the tail"),
    "stability": (
        "stability",
        70,
        "%.2f",
        "stability: mean bootstrap co-assignment of its labels (1 = always grouped together)",
    ),
}
#: The verdict column's width: "never co-occur", the longest of
#: mlviz.label_clustering.VERDICTS, whole.
VERDICT_PX = 115
#: The labels column never narrower than this (about 14 characters a line).
MIN_LABELS_PX = 100


def label_width(names, *, taken_px: int) -> int:
    """Pixel width of a one-line label column: the longest of ``names`` whole (with the cell's
    padding), within [:data:`MIN_LABELS_PX`, what ``taken_px`` leaves of :data:`MAIN_AREA_PX`].

    A name longer than the upper bound is cut in its cell and shown whole on hover.

    Examples
    --------
    >>> label_width(["A1", "A22"], taken_px=420), label_width(["x" * 26], taken_px=420)
    (100, 203)
    >>> label_width(["x" * 90], taken_px=420)
    380
    """
    longest = max((len(str(name)) for name in names), default=0)
    wanted = (longest + _CELL_PADDING_CHARS) * LABEL_CHAR_PX
    return int(max(MIN_LABELS_PX, min(MAIN_AREA_PX - taken_px, wanted)))


#: Row height (px) that shows a cell's text on two lines: the least above 4rem, where
#: Streamlit starts to wrap (see WRAP_ROW_PX).
TWO_LINE_ROW_PX = 66
#: Narrowest column for a loss reason (mlviz.per_label.loss_reasons) wrapped onto two lines:
#: its longest word, "represented", whole.
MIN_REASON_PX = 100

#: Lines a wrapped cell shows in a row of WRAP_ROW_PX (the fifth would be cut half-way).
WRAP_LINES = 4
#: A cell's horizontal padding, in characters of LABEL_CHAR_PX.
_CELL_PADDING_CHARS = 3


def fit_lines(items, width_px: int, *, lines: int = WRAP_LINES, empty: str = "∅") -> str:
    r"""``items`` joined by ", ", cut so that the text fills at most ``lines`` wrapped lines of
    a ``width_px`` column; what does not fit is counted ("… (+3 more)").

    The wrap is simulated as the table draws it (greedy, at spaces, LABEL_CHAR_PX a
    character); the count is kept in one unbreakable piece so it never starts a line of its
    own that does not fit. Names are shown whole or not at all.

    Examples
    --------
    >>> from pages._app.tables import fit_lines
    >>> fit_lines(["alpha", "beta"], 400)
    'alpha, beta'
    >>> fit_lines([f"label_{i:02d}" for i in range(30)], 120, lines=2)
    'label_00, …\xa0(+29\xa0more)'
    >>> fit_lines([], 100)
    '∅'
    """
    names = [str(item) for item in items]
    if not names:
        return empty
    capacity = max(1, width_px // LABEL_CHAR_PX - _CELL_PADDING_CHARS)

    def fits(tokens: list[str]) -> bool:
        used, line = 0, 0
        for token in tokens:
            size = len(token)
            if line and line + 1 + size <= capacity:
                line += 1 + size
                continue
            used += max(1, -(-size // capacity))  # a token longer than a line takes several
            line = size % capacity or capacity
        return used <= lines

    tokens = [name + "," for name in names[:-1]] + [names[-1]]
    if fits(tokens):
        return ", ".join(names)
    # A prefix whose characters alone exceed the lines' cannot fit, so the search starts at
    # the longest one that might: it tried every prefix from the longest down, quadratic in
    # the group's size (72 ms for a group of 950 labels, drawn on every GroPLE and Label
    # clusters rerun; benchmarks/bench_page_helpers.py), for the same answer.
    budget = lines * capacity
    longest = int(np.searchsorted(np.cumsum([len(token) for token in tokens]), budget, "right"))
    for shown in range(min(len(names) - 1, longest), -1, -1):
        more = "…\u00a0(+" + str(len(names) - shown) + "\u00a0more)"
        kept = [name + "," for name in names[:shown]]
        if fits(kept + [more]):
            return " ".join(kept + [more])
    return "…\u00a0(" + str(len(names)) + "\u00a0labels)"


def label_set_column(name_lists, *, taken_px: int) -> tuple[list[str], int, int | None]:
    """A column of label sets that fits beside ``taken_px`` of other columns: each set's
    text (:func:`fit_lines`, whole names, the rest counted), the column's width and the row
    height (:data:`WRAP_ROW_PX` when some text wraps, else ``None``, Streamlit's default).

    Examples
    --------
    >>> from pages._app.tables import label_set_column
    >>> label_set_column([["a", "b"], []], taken_px=210)
    (['a, b', '∅'], 590, None)
    >>> many = [[f"tag_{i:03d}" for i in range(200)]]
    >>> texts, width, height = label_set_column(many, taken_px=210)
    >>> texts[0].endswith("more)"), height == WRAP_ROW_PX
    (True, True)
    """
    width = max(MIN_LABELS_PX, MAIN_AREA_PX - taken_px)
    texts = [fit_lines(names, width) for names in name_lists]
    wraps = any((len(text) + _CELL_PADDING_CHARS) * LABEL_CHAR_PX > width for text in texts)
    return texts, width, WRAP_ROW_PX if wraps else None


def _group_rows(diagnostics, latent_rows_used: np.ndarray | None, labels_px: int):
    """The group table's frame (labels fitted to ``labels_px``) and whether its rows wrap."""
    from mlviz.figures.label_clusters import group_table as display_table

    table = display_table(diagnostics)
    if latent_rows_used is not None:
        table.insert(1, "latent rows used", latent_rows_used)
    # a cell longer than its column wraps onto up to four lines instead of being cut after a
    # few characters ("A1, A2, A3, A" at 1280 px): Streamlit wraps text only in rows taller
    # than 4rem (64 px); the whole list stays on hover
    # the labels as many whole names as fit the rows' lines, the rest counted
    table["labels"] = [fit_lines(labels, labels_px) for labels in diagnostics["labels"]]
    longest = max((len(str(v)) for v in table["labels"]), default=0)
    return table, longest * LABEL_CHAR_PX > labels_px


def group_table(
    diagnostics, *, latent_rows_used: np.ndarray | None = None, stability: bool = True
) -> None:
    """The label groups as a table: one row per group, its verdict, then its labels.

    ``diagnostics`` is :func:`mlviz.label_clustering.group_diagnostics`'s table; the Label
    clusters and GroPLE pages both show it. ``latent_rows_used`` (GroPLE: latent rows of
    each group's V^k) becomes a second column. ``stability=False`` leaves the stability
    column out of the view (the frame keeps it), for diagnostics computed without a
    bootstrap co-assignment, whose stability is NaN in every row: the caller's caption says
    so. The frame is built once per grouping (:func:`pages._app.fitting.compute`: on every
    rerun it was a tenth of the GroPLE page's).
    """
    from pages._app import fitting

    shown = [c for c in (*_GROUP_COLUMNS, "verdict", "labels") if c != "stability" or stability]
    if latent_rows_used is None:
        shown.remove("latent rows used")
    # pixel widths wide enough for each (short) header, summing with the labels to at most
    # MAIN_AREA_PX: no header is cut and the table fits at 1280 × 720; the labels (long text,
    # whole on hover) take what is left
    config = {
        column: st.column_config.NumberColumn(header, width=width, format=fmt, help=tip)
        for column, (header, width, fmt, tip) in _GROUP_COLUMNS.items()
        if column in shown
    }
    config["verdict"] = st.column_config.TextColumn(width=VERDICT_PX, help="verdict")
    used = sum(_GROUP_COLUMNS[c][1] for c in config if c in _GROUP_COLUMNS) + VERDICT_PX
    labels_px = max(MIN_LABELS_PX, MAIN_AREA_PX - used)
    config["labels"] = st.column_config.TextColumn(width=labels_px, help="labels")
    rows = fitting.compute(
        _group_rows,
        {
            "diagnostics": diagnostics,
            "latent_rows_used": latent_rows_used,
            "labels_px": labels_px,
        },
        label="Group table",
        uses_split=False,
        small=True,
    )
    if rows is None:
        return
    table, wrap = rows
    fitted_table(
        table,
        hide_index=True,
        column_config=config,
        column_order=[c for c in shown if c in table.columns],
        row_height=WRAP_ROW_PX if wrap else None,
        height=table_height(len(table), WRAP_ROW_PX if wrap else ROW_PX),
    )


def table_height(n_rows: int, row_px: int = ROW_PX, max_rows: int = MAX_SHOWN_ROWS) -> int:
    """Pixel height of a dataframe showing ``min(n_rows, max_rows)`` rows whole.

    Streamlit's "auto" height leaves no room for the horizontal scroll bar, which then hides
    the last row of a table as wide as its column (the group tables, issue 31); this adds the
    bar's height and the border.

    Examples
    --------
    >>> from pages._app.tables import table_height
    >>> table_height(3), table_height(50) == table_height(10)
    (162, True)
    """
    return HEADER_PX + row_px * max(1, min(n_rows, max_rows)) + SCROLLBAR_PX + 2
