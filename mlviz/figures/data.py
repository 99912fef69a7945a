"""Figures of the Data page: label frequency long tail, co-occurrence, cardinality."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from mlviz.figures._style import legible, plain, plain_all
from mlviz.stats import is_tail
from mlviz.wording import percent_text


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
        tickfont=dict(size=11 if len(names) <= 30 else 10),
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
