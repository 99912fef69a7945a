"""Figures of the Data page: label frequency long tail, co-occurrence, cardinality, and an
UpSet view of the most common label sets."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mlviz.figures._style import legible, plain, plain_all
from mlviz.stats import is_tail
from mlviz.wording import counted, percent_text


def label_frequency_figure(
    frequencies: np.ndarray, label_names: Sequence[str], tail_threshold: float
) -> go.Figure:
    """Bars of label frequency (share of instances), sorted descending, tail labels coloured.

    Parameters
    ----------
    frequencies : ndarray of shape (n_labels,)
        Fraction of instances carrying each label.
    label_names : sequence of str
    tail_threshold : float
        Labels with frequency strictly below this are drawn as tail labels.

    Examples
    --------
    >>> from mlviz.figures.data import label_frequency_figure
    >>> fig = label_frequency_figure([0.5, 0.02, 0.3], ["a", "b", "c"], tail_threshold=0.05)
    >>> list(fig.data[0].x), fig.layout.title.text
    (['a', 'c', 'b'], 'Label frequencies (1 of 3 labels in the tail)')
    """
    frequencies = np.asarray(frequencies, dtype=float)
    order = np.argsort(-frequencies, kind="stable")
    names = [plain(label_names[i]) for i in order]  # user text: shown, never rendered
    values = frequencies[order]
    in_tail = is_tail(values, tail_threshold)
    fig = go.Figure(
        go.Bar(
            x=names,
            y=values,
            marker_color=np.where(in_tail, "#d62728", "#1f77b4"),
            hovertemplate="%{x}<br>frequency %{y:.3%}<extra></extra>",
        )
    )
    fig.add_hline(
        y=tail_threshold,
        line_dash="dash",
        line_color="#d62728",
        annotation_text=f"tail threshold {percent_text(tail_threshold)}",
    )
    fig.update_layout(
        title=f"Label frequencies ({int(in_tail.sum())} of {len(values)} labels in the tail)",
        xaxis_title="label (most frequent first)",
        yaxis_title="share of instances",
        yaxis_tickformat=".0%",
        margin=dict(t=50, b=10),
    )
    return legible(fig, legend=False)


def cooccurrence_figure(
    matrix: np.ndarray,
    label_names: Sequence[str],
    *,
    title: str = "Label co-occurrence",
    hide_diagonal: bool = True,
) -> go.Figure:
    """Heatmap of a label × label co-occurrence matrix (counts or a normalised version).

    Every row and column is named (a category axis would skip names when crowded), so pass
    no more labels than can be read (the Data page passes the most frequent 50 and says so
    in ``title``); the figure grows with the number of labels.

    The diagonal holds each label with itself (its own count in counts mode, 1 when
    normalised), far above any pair: with it on the colour scale every off-diagonal cell of a
    long-tailed set is drawn near white. With ``hide_diagonal`` (the default) the diagonal
    cells are left blank, the colours run from 0 to the largest off-diagonal value, and a
    subtitle says so; hovering a cell still gives its value, the diagonal's included.

    Parameters
    ----------
    matrix : ndarray, shape (n, n)
    label_names : sequence of str, length n
    title : str
    hide_diagonal : bool, default=True

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.data import cooccurrence_figure
    >>> from mlviz.stats import cooccurrence
    >>> Y = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1]])
    >>> fig = cooccurrence_figure(cooccurrence(Y), ["a", "b", "c"])
    >>> np.asarray(fig.data[0].z).shape, fig.layout.title.text.split("<br>")[0]
    ((3, 3), 'Label co-occurrence')
    >>> float(np.nansum(np.diag(np.asarray(fig.data[0].z, dtype=float))))  # diagonal blank
    0.0
    """
    matrix = np.asarray(matrix, dtype=float)
    names = plain_all(label_names)  # user text: shown, never rendered as HTML
    z, scale = matrix, {}
    if hide_diagonal and len(names) > 1:
        diagonal = np.eye(len(names), dtype=bool)
        z = np.where(diagonal, np.nan, matrix)
        top = float(np.nanmax(z)) if np.isfinite(z).any() else 0.0
        scale = dict(zmin=0.0, zmax=top if top > 0 else 1.0)
        title += (
            "<br><sup>diagonal (each label with itself) left blank; colours run from 0 to the "
            f"largest pair, {top:.3g}</sup>"
        )
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=names,
            y=names,
            customdata=matrix,
            colorscale="Blues",
            hoverongaps=True,
            hovertemplate="%{y} & %{x}: %{customdata:.3g}<extra></extra>",
            **scale,
        )
    )
    axis = dict(
        type="category",
        tickmode="array",
        tickvals=names,
        ticktext=names,
        tickfont=dict(size=11 if len(names) <= 20 else 10),
    )
    fig.update_layout(
        title=title,
        xaxis=axis,
        yaxis=dict(autorange="reversed", **axis),
        margin=dict(t=50, b=10),
        height=max(450, 250 + 14 * len(names)),
    )
    return legible(fig, legend=False)


def cardinality_figure(Y: np.ndarray) -> go.Figure:
    """Histogram of the number of labels per instance.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.data import cardinality_figure
    >>> fig = cardinality_figure(np.array([[1, 1, 0], [1, 0, 0], [0, 0, 0]]))
    >>> len(fig.data)
    1
    """
    counts = np.asarray(Y).sum(axis=1).astype(int)
    sizes, occurrences = np.unique(counts, return_counts=True)
    fig = go.Figure(
        go.Bar(
            x=sizes,
            y=occurrences,
            hovertemplate="%{y} instances with %{x} labels<extra></extra>",
        )
    )
    fig.update_layout(
        title="Labels per instance",
        xaxis_title="number of labels",
        yaxis_title="instances",
        xaxis_dtick=1,
        margin=dict(t=50, b=10),
    )
    return legible(fig, legend=False)


#: Most label rows :func:`labelset_upset_figure` draws: sets are taken in order of count
#: while the labels they hold fit, so each row keeps a legible height and its whole name.
UPSET_MAX_LABELS = 120
_UPSET_ROW_PX = 18


def labelset_upset_figure(
    labelsets: pd.DataFrame,
    label_counts,
    label_names: Sequence[str],
    *,
    top: int = 20,
    max_labels: int = UPSET_MAX_LABELS,
) -> go.Figure:
    """An UpSet view of the most common label sets: which labels each holds, how often.

    Columns are the ``top`` most common label sets (fewer when their labels would exceed
    ``max_labels`` rows); the dot matrix marks each set's labels (rows: only the labels that
    occur in a shown set, most frequent first), bars above give each set's instances and bars
    on the right each shown label's instances (its size over the whole data set). The title
    counts the sets and instances not shown; ``layout.meta`` holds ``shown_sets``,
    ``not_shown_sets`` and ``not_shown_instances``.

    Parameters
    ----------
    labelsets : DataFrame
        :func:`mlviz.stats.labelset_counts` (columns ``labelset`` and ``count``, most common
        first); its counting is one pass over the bit-packed rows.
    label_counts : array-like of int, shape (L,)
        Instances per label (:func:`mlviz.stats.label_frequencies`).
    label_names : sequence of str
    top : int, default=20
        Label sets to show at most.
    max_labels : int, default=UPSET_MAX_LABELS
        Label rows to draw at most.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.stats import label_frequencies, labelset_counts
    >>> from mlviz.figures.data import labelset_upset_figure
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 0, 0]])
    >>> fig = labelset_upset_figure(labelset_counts(Y), label_frequencies(Y), ["a", "b", "c"],
    ...                             top=2)
    >>> fig.data[0].y.tolist()  # instances of the two shown sets
    [2, 1]
    >>> fig.layout.meta["not_shown_sets"], fig.layout.meta["not_shown_instances"]
    (2, 2)
    """
    if top < 1 or max_labels < 1:
        raise ValueError(f"top and max_labels must be at least 1; got {top} and {max_labels}.")
    label_counts = np.asarray(label_counts).ravel()
    if len(label_names) != label_counts.size:
        raise ValueError(f"{len(label_names)} label names for {label_counts.size} label counts.")
    chosen, members = [], set()
    for index, labelset in enumerate(labelsets["labelset"].head(int(top))):
        grown = members | set(labelset)
        if len(grown) > max_labels:
            break
        chosen.append(index)
        members = grown
    shown = labelsets.iloc[chosen]
    counts = shown["count"].to_numpy()
    # rows: most frequent label on top (plotly draws the first category at the bottom)
    rows = sorted(members, key=lambda j: (-label_counts[j], j))
    row_of = {label: position for position, label in enumerate(reversed(rows))}
    n_rows = len(rows)
    columns = [f"set {i + 1}" for i in range(len(shown))]
    names = [plain(label_names[j]) for j in reversed(rows)]
    not_sets = int(len(labelsets) - len(shown))
    not_instances = int(labelsets["count"].sum() - counts.sum())
    fig = make_subplots(
        rows=2,
        cols=2,
        shared_xaxes=True,
        shared_yaxes=True,
        column_widths=[0.78, 0.22],
        row_heights=[0.35, 0.65] if n_rows else [0.9, 0.1],
        horizontal_spacing=0.02,
        vertical_spacing=0.02,
    )
    set_text = [
        ", ".join(plain(label_names[j]) for j in labelset) if labelset else "∅ (no label)"
        for labelset in shown["labelset"]
    ]
    fig.add_trace(
        go.Bar(
            x=columns,
            y=counts,
            marker_color="#1f77b4",
            hovertext=[f"{t}<br>{c:,} instances" for t, c in zip(set_text, counts, strict=True)],
            hoverinfo="text",
        ),
        row=1,
        col=1,
    )
    if n_rows:
        grid_x = [c for c in columns for _ in range(n_rows)]
        grid_y = [name for _ in columns for name in names]
        fig.add_trace(
            go.Scatter(
                x=grid_x,
                y=grid_y,
                mode="markers",
                marker=dict(color="#e0e0e0", size=9),
                hoverinfo="skip",
            ),
            row=2,
            col=1,
        )
        for column, labelset, text in zip(columns, shown["labelset"], set_text, strict=True):
            if not labelset:
                continue
            ys = [names[row_of[j]] for j in sorted(labelset, key=lambda j: row_of[j])]
            fig.add_trace(
                go.Scatter(
                    x=[column] * len(ys),
                    y=ys,
                    mode="markers+lines",
                    marker=dict(color="#333333", size=10),
                    line=dict(color="#333333", width=2),
                    hovertext=text,
                    hoverinfo="text",
                ),
                row=2,
                col=1,
            )
        sizes = label_counts[list(reversed(rows))]
        fig.add_trace(
            go.Bar(
                x=sizes,
                y=names,
                orientation="h",
                marker_color="#7f7f7f",
                hovertext=[f"{n}<br>{s:,} instances" for n, s in zip(names, sizes, strict=True)],
                hoverinfo="text",
            ),
            row=2,
            col=2,
        )
    more = (
        f"; … {counted(not_sets, 'more label set')} on "
        f"{counted(not_instances, 'instance')} not shown"
        if not_sets
        else ""
    )
    fig.update_layout(
        title=(
            f"The {counted(len(shown), 'most common label set')} of {len(labelsets):,}"
            f" ({int(counts.sum()):,} instances){more}"
        ),
        showlegend=False,
        height=300 + _UPSET_ROW_PX * n_rows,
        meta={
            "shown_sets": len(shown),
            "not_shown_sets": not_sets,
            "not_shown_instances": not_instances,
        },
        margin=dict(t=70, b=10),
    )
    fig.update_yaxes(title_text="instances", row=1, col=1)
    fig.update_yaxes(automargin=True, tickfont=dict(size=12), dtick=1, row=2, col=1)
    fig.update_xaxes(title_text="label set", row=2, col=1)
    fig.update_xaxes(title_text="instances per label", row=2, col=2)
    return legible(fig, legend=False)
