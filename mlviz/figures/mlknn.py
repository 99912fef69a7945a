"""Figures of the ML-KNN page: one instance's MAP decision per label and its neighbours.

Zhang & Zhou, "ML-KNN" (paper 003, ``../shared/papers/003_c185b3d2437bdbdd.txt``): for each
label l the count C_t(l) of the k neighbours carrying l (Eq. 6) is the evidence; the label
is predicted when ``P(H_1^l) P(E^l_{C_t(l)} | H_1^l) ≥ P(H_0^l) P(E^l_{C_t(l)} | H_0^l)``
(Eq. 7-8, ties positive), and the posterior ``r_t(l)`` (Fig. 1 step 18) is the first
product over their sum.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mlviz.figures._style import TITLE_CHARS, add_layout_items, legible, number_axis, plain_all
from mlviz.stats import labels_to_show

#: Labels the per-label figure names; beyond it the figure shows a stated top-N (40 upright
#: names stay apart on a 1280 px page, 50 overlapped: tests/test_browser_labels.py).
MAX_NAMED_LABELS = 40

__all__ = ["neighbors_table", "posterior_figure"]

_REQUIRED = (
    "label",
    "count",
    "score_pos",
    "score_neg",
    "posterior",
    "decision",
)


_RIGHT_AXIS_MARGIN = 100


def _posterior_table(table: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in _REQUIRED if c not in table.columns]
    if missing:
        raise ValueError(
            f"posterior_figure: the table lacks column(s) {missing}; expected {list(_REQUIRED)} "
            "e.g. MLkNN.explain(x).table."
        )
    return table


def posterior_figure(
    table: pd.DataFrame,
    *,
    log_y: bool = True,
    max_labels: int = MAX_NAMED_LABELS,
    title_width: int = TITLE_CHARS,
) -> go.Figure:
    """Both MAP products per label as grouped bars, the posterior as markers (paper 003, Eq. 8).

    Parameters
    ----------
    table : pandas.DataFrame, one row per label
        Columns ``label``, ``count`` (C_t(l)), ``score_pos`` (P(H1)P(E|H1)),
        ``score_neg`` (P(H0)P(E|H0)), ``posterior`` and ``decision`` (0/1);
        ``score_pos`` / ``score_neg`` (the names of ``MLkNN.explain(x).table``) are
        accepted for the two products.
    log_y : bool, default=True
        Log scale for the products (they span orders of magnitude for rare labels) when
        they are positive and span a decade; linear otherwise.
    max_labels : int, default=MAX_NAMED_LABELS
        With more labels than this, only ``max_labels`` are drawn, each named: the predicted
        ones first, then the highest posterior (:func:`mlviz.stats.labels_to_show`);
        the title says so and still counts the predicted labels over all of them.
    title_width : int, default=TITLE_CHARS
        Characters per title line: the default fits a half-width column; a page drawing the
        figure across its width passes ``WIDE_TITLE_CHARS``.

    Returns
    -------
    plotly.graph_objects.Figure
        Trace 0: bars of P(H1)P(E|H1); trace 1: bars of P(H0)P(E|H0); trace 2: posterior
        markers on the right axis (0..1), filled for predicted labels; labels decided
        positive are shaded and their names bold.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from mlviz.figures.mlknn import posterior_figure
    >>> table = pd.DataFrame({"label": ["a", "b"], "count": [4, 1], "score_pos": [0.3, 0.02],
    ...                       "score_neg": [0.05, 0.4], "posterior": [0.857, 0.048],
    ...                       "decision": [1, 0]})
    >>> fig = posterior_figure(table)
    >>> len(fig.data), np.asarray(fig.data[2].y).tolist()
    (3, [0.857, 0.048])
    """
    data = _posterior_table(table)
    n_labels, n_predicted = len(data), int(data["decision"].to_numpy().astype(bool).sum())
    shown = labels_to_show(
        data["posterior"].to_numpy(float), data["decision"].to_numpy().astype(bool), max_labels
    )
    data = data.iloc[shown]
    names = plain_all(data["label"])  # user text: shown, never rendered as HTML
    counts = data["count"].to_numpy()
    pos = data["score_pos"].to_numpy(float)
    neg = data["score_neg"].to_numpy(float)
    posterior = data["posterior"].to_numpy(float)
    decision = data["decision"].to_numpy().astype(bool)
    x = np.arange(len(names))
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    hover = "%{customdata}<br>%{y:.3g}<extra>%{fullData.name}</extra>"
    custom = [f"{n}: {c} of k neighbours have it" for n, c in zip(names, counts, strict=True)]
    fig.add_trace(
        go.Bar(
            x=x,
            y=pos,
            name="has label: P(H₁)·P(E|H₁)",
            marker_color="#2ca02c",
            customdata=custom,
            hovertemplate=hover,
        ),
        secondary_y=False,
    )
    fig.add_trace(
        go.Bar(
            x=x,
            y=neg,
            name="lacks label: P(H₀)·P(E|H₀)",
            marker_color="#7f7f7f",
            customdata=custom,
            hovertemplate=hover,
        ),
        secondary_y=False,
    )
    fig.add_trace(
        go.Scatter(
            x=x,
            y=posterior,
            mode="markers",
            name="posterior P(H₁|E) (right axis)",
            marker=dict(
                symbol=np.where(decision, "diamond", "diamond-open"),
                size=11,
                color="#d62728",
                line=dict(width=1.5, color="#d62728"),
            ),
            customdata=np.where(decision, "predicted", "not predicted"),
            text=names,
            hovertemplate="%{text}: posterior %{y:.3f}, %{customdata}<extra></extra>",
        ),
        secondary_y=True,
    )
    shade = dict(fillcolor="#2ca02c", opacity=0.1, line_width=0, layer="below")
    add_layout_items(  # add_vrect per label: O(n²) in plotly
        fig,
        shapes=[
            dict(type="rect", x0=p - 0.5, x1=p + 0.5, xref="x", y0=0, y1=1, yref="y domain") | shade
            for p in np.flatnonzero(decision)
        ],
    )
    fig.add_hline(y=0.5, line_dash="dot", line_color="#d62728", secondary_y=True)
    ticktext = [f"<b>{n}</b>" if d else n for n, d in zip(names, decision, strict=True)]
    fig.update_xaxes(
        title_text="label (shaded, bold: predicted)",
        tickmode="array",
        tickvals=x,
        ticktext=ticktext,
        tickangle=-90 if len(names) > 20 else -45,  # at -45° many names overlap
        tickfont=dict(size=10) if len(names) > 30 else None,
    )
    # powers of ten only: plotly's own log ticks read "5, 2, 0.1, 5, 2"
    axis = number_axis(np.concatenate([pos, neg])) if log_y else number_axis([])
    fig.update_yaxes(
        title_text="prior × likelihood" + (" (log scale)" if axis["type"] == "log" else ""),
        secondary_y=False,
        **axis,
    )
    # explicit ticks: an overlaying axis would otherwise sync its ticks to the log axis
    fig.update_yaxes(
        title_text="posterior P(H₁|E)",
        range=[0, 1.05],
        tickmode="array",
        tickvals=[0, 0.25, 0.5, 0.75, 1],
        secondary_y=True,
        showgrid=False,
    )
    title = (
        f"ML-KNN per label: predicted when green ≥ grey ({n_predicted} of {n_labels} labels "
        "predicted)"
    )
    if len(names) < n_labels:
        title += (
            f"<br><sup>{len(names)} of {n_labels} labels shown: the predicted ones, then the "
            "highest posterior</sup>"
        )
    fig.update_layout(
        title=title,
        barmode="group",
        # the legend under the names: at the right it would take the width the names need
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0),
        # the right axis's ticks and title need ~90 px: at plotly's 80 the title was cut at
        # the figure's edge (automargin on that axis did not widen it in chromium)
        margin=dict(t=50, b=80, r=_RIGHT_AXIS_MARGIN),
        height=560 if len(names) > 20 else 480,
    )
    return legible(fig, title_width=title_width, legend=False)


def neighbors_table(
    indices: np.ndarray,
    distances: np.ndarray,
    Y_neighbors: np.ndarray,
    label_names: Sequence[str],
) -> pd.DataFrame:
    """The k nearest training instances of one query and their labels.

    Parameters
    ----------
    indices : ndarray of int, shape (k,)
        Training row of each neighbour, nearest first (``MLkNN.explain(x).neighbors``).
    distances : ndarray, shape (k,)
    Y_neighbors : ndarray of 0/1, shape (k, n_labels)
        Their label rows (``Y_train[indices]``).
    label_names : sequence of str, length n_labels

    Returns
    -------
    pandas.DataFrame, one row per neighbour
        Columns ``rank`` (1 = nearest), ``train_row``, ``distance``, ``n_labels``,
        ``label_set`` (readable, "∅" when empty), then one 0/1 column per label; the
        column sums of the label columns are the counts C_t(l) of Eq. (6).

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.mlknn import neighbors_graph
    >>> from mlviz.figures.mlknn import neighbors_table
    >>> graph = neighbors_graph(X[:1], X[1:], n_neighbors=3)
    >>> indices, distances = graph.indices, graph.data
    >>> table = neighbors_table(indices, distances, Y[1:][indices], ds.label_names)
    >>> table["rank"].tolist(), bool((table["n_labels"] == Y[1:][indices].sum(axis=1)).all())
    ([1, 2, 3], True)
    """
    indices = np.asarray(indices).ravel()
    distances = np.asarray(distances, dtype=float).ravel()
    Y_neighbors = np.asarray(Y_neighbors)
    names = [str(n) for n in label_names]
    k = indices.size
    if distances.size != k:
        raise ValueError(f"neighbors_table: {distances.size} distances for {k} neighbours.")
    if Y_neighbors.ndim != 2 or Y_neighbors.shape != (k, len(names)):
        raise ValueError(
            f"neighbors_table: Y_neighbors must have shape (k={k}, n_labels={len(names)}); got "
            f"{Y_neighbors.shape}."
        )
    if not np.isin(Y_neighbors, (0, 1)).all():
        raise ValueError("neighbors_table: Y_neighbors must hold only 0 and 1.")
    Y_neighbors = Y_neighbors.astype(np.uint8)
    fixed = {
        "rank": np.arange(1, k + 1),
        "train_row": indices,
        "distance": distances,
        "n_labels": Y_neighbors.sum(axis=1).astype(np.int64),
        "label_set": [
            ", ".join(names[j] for j in np.flatnonzero(row)) if row.any() else "∅"
            for row in Y_neighbors
        ],
    }
    clash = sorted(set(fixed) & set(names))
    if clash:
        raise ValueError(
            f"neighbors_table: label name(s) {clash} collide with the table's own "
            "columns; rename the labels."
        )
    table = pd.DataFrame(fixed)
    labels = pd.DataFrame(Y_neighbors, columns=names)
    return pd.concat([table, labels], axis=1)
