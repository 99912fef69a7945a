"""Tail-label views of the method pages: one per method, labels sorted by training frequency.

Every figure takes a per-label table of :mod:`mlviz.per_label` (columns ``label``,
``train_count``, ``frequency``, ``tail`` and the method's own columns) and draws one point
per label at its rank by training frequency (most frequent first), so the tail -- relative
training frequency below the threshold, :func:`mlviz.stats.tail_labels` -- is the shaded
right end of the axis. Hovering names every label. The axis names every label up to
``max_named`` labels; beyond that it names at most ``max_named`` tail labels, the ones the
method loses most, spaced so the names do not overlap, and the figure says so.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mlviz.figures._style import method_color, number_axis, plain_all
from mlviz.wording import percent_text

__all__ = [
    "clems_tail_figure",
    "grople_tail_figure",
    "mlknn_tail_figure",
    "named_positions",
    "plst_tail_figure",
]

#: Names on a tail chart's axis: every label up to this many (medical's 45 all named), else a
#: spaced subset. Upright at font 10, names ceil(L / 45) positions apart stay clear of each
#: other on a 1280 px page for 159 and 983 labels; at 60 they overlapped
#: (tests/test_browser_labels.py).
MAX_NAMED = 45
# beyond this many labels, every one named, the names stand upright: slanted at -60° each name
# runs under its neighbours' at medical's 45 labels (as on the label clusters heatmap); a spaced
# subset (more than MAX_NAMED labels) stands upright however few its names
UPRIGHT_BEYOND = 30
# markers of two series for the same label sit this far left and right of its position
_DODGE = 0.18
# what a method is compared with (the truth, a training prior) is drawn in a neutral grey
_REFERENCE_COLOR = "#555555"
_REQUIRED = ("label", "train_count", "frequency", "tail")


def _sorted(table: pd.DataFrame, columns: tuple[str, ...], builder: str) -> pd.DataFrame:
    missing = [c for c in (*_REQUIRED, *columns) if c not in table.columns]
    if missing:
        raise ValueError(
            f"{builder}: the table lacks column(s) {missing}; build it with the matching "
            "function of mlviz.per_label."
        )
    if len(table) == 0:
        raise ValueError(f"{builder}: the table has no labels.")
    order = np.argsort(-table["frequency"].to_numpy(dtype=float), kind="stable")
    data = table.iloc[order].reset_index(drop=True)
    # label names are user text: every hover text, tick and note shows them, never renders them
    return data.assign(label=plain_all(data["label"]))


def named_positions(
    tail: np.ndarray, priority: np.ndarray, *, max_named: int = MAX_NAMED
) -> np.ndarray:
    """Axis positions whose label is written on the axis, ascending.

    Parameters
    ----------
    tail : ndarray of bool, shape (n_labels,)
        Tail membership in axis order.
    priority : ndarray of float, shape (n_labels,)
        Higher is named first (NaN last).
    max_named : int
        With at most this many labels every label is named. Otherwise tail labels are taken
        by decreasing priority, skipping any closer than ``n_labels / max_named`` positions
        to one already taken, so at most ``max_named`` names share the axis without overlap.

    Returns
    -------
    ndarray of int

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.tail import named_positions
    >>> tail = np.array([True, True, False, False])
    >>> named_positions(tail, priority=np.array([0.1, 0.9, 0.5, 0.2]), max_named=2).tolist()
    [1]
    """
    n_labels = tail.size
    if n_labels <= max_named:
        return np.arange(n_labels)
    gap = math.ceil(n_labels / max_named)
    key = np.where(np.isnan(priority), -np.inf, priority)
    candidates = np.flatnonzero(tail)
    candidates = candidates[np.argsort(-key[candidates], kind="stable")]
    taken: list[int] = []
    for position in candidates:
        if len(taken) == max_named:
            break
        if all(abs(position - other) >= gap for other in taken):
            taken.append(int(position))
    return np.sort(np.asarray(taken, dtype=int))


def _frame(
    fig: go.Figure,
    data: pd.DataFrame,
    tail_threshold: float,
    *,
    title: str,
    y_title: str,
    priority: np.ndarray,
    priority_text: str,
    max_named: int,
    tick_names: list[str] | None = None,
) -> go.Figure:
    """Tail shading, named ticks, axis titles and the note saying what is named."""
    n_labels = len(data)
    tail = data["tail"].to_numpy(dtype=bool)
    n_tail = int(tail.sum())
    names = tick_names if tick_names is not None else [str(n) for n in data["label"]]
    named = named_positions(tail, priority, max_named=max_named)
    # a spaced subset stands upright whatever its size: its gap of ceil(L / max_named)
    # positions is sized for upright names (slanted at -60°, 11 names 4 positions apart
    # overlapped on the 159-label generated set at 1280 px, tests/test_browser_labels.py)
    upright = n_labels > max_named or named.size > UPRIGHT_BEYOND
    if n_tail:
        start = int(np.flatnonzero(tail).min())
        fig.add_vrect(
            x0=start - 0.5,
            x1=n_labels - 0.5,
            fillcolor="grey",
            opacity=0.18,
            line_width=0,
            layer="below",
        )
        tail_text = (
            f"shaded: {n_tail} tail label{'s' if n_tail != 1 else ''} "
            f"(under {percent_text(tail_threshold)} of training instances)"
        )
    else:
        tail_text = (
            f"no tail label (none under {percent_text(tail_threshold)} of training instances)"
        )
    if n_labels <= max_named:
        name_text = "hover a point for its numbers"
    else:
        name_text = (
            f"axis names {named.size} of the {n_tail} tail labels ({priority_text}, spaced "
            f"apart); hover names all {n_labels} labels"
        )
    fig.add_annotation(
        text=f"{tail_text}; {name_text}",
        xref="paper",
        yref="paper",
        x=0,
        y=1.0,
        xanchor="left",
        yanchor="bottom",
        showarrow=False,
        font=dict(size=11),
    )
    fig.update_xaxes(
        title_text=f"{n_labels} labels by training frequency (most frequent first)",
        tickmode="array",
        tickvals=named,
        ticktext=[names[i] for i in named],
        tickangle=-90 if upright else -60,
        tickfont=dict(size=10) if upright else None,
        automargin=True,  # upright names need more room below the axis than slanted ones
        range=[-0.5 - 0.5, n_labels - 0.5 + 0.5],
        zeroline=False,
    )
    fig.update_yaxes(title_text=y_title)
    fig.update_layout(
        template="plotly_white",  # a white plot area, so the shaded tail stands out
        title=dict(text=title, y=0.96, yanchor="top"),
        legend=dict(orientation="h", x=0, y=1.06, xanchor="left", yanchor="bottom"),
        margin=dict(t=120, b=10),
        hovermode="closest",
        # upright names take ~170 px under the plot: a taller figure keeps the plot readable
        # (at plotly's 450 px the plot was ~100 px high and the ticks 0 and 1 of the CLEMS
        # counts touched)
        height=600 if upright else 500,
    )
    return fig


def _hover_frame(data: pd.DataFrame) -> list[str]:
    return [
        f"{name}<br>training: {count} ({100 * freq:.2f}%)" + (" · tail" if tail else "")
        for name, count, freq, tail in zip(
            data["label"], data["train_count"], data["frequency"], data["tail"], strict=True
        )
    ]


def _test_text(data: pd.DataFrame, predicted: str = "predicted") -> list[str]:
    return [
        f"test: {support} positive, {pred} predicted"
        for support, pred in zip(data["support"], data[predicted], strict=True)
    ]


def plst_tail_figure(
    table: pd.DataFrame,
    tail_threshold: float,
    *,
    n_components: int,
    method: str = "PLST",
    max_named: int = MAX_NAMED,
) -> go.Figure:
    """Per-label share of the encoding error left at M, labels by training frequency.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`mlviz.per_label.plst_label_table` (``unrepresented``, ``encoding_error``,
        ``predicted``, ``support`` besides the frequency columns).
    tail_threshold : float
        The threshold the table's ``tail`` column was computed with (stated on the figure).
    n_components : int
        M, for the title.
    method : str
        Name in the title and legend.

    Returns
    -------
    plotly.graph_objects.Figure
        Trace 0: labels predicted at least once on the test split; trace 1: labels never
        predicted there. y is ``unrepresented`` (0 = the M directions represent the label
        fully, 1 = not at all); labels constant in training (no variance) are not drawn.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> X_train, X_test, Y_train, Y_test = X[:100], X[100:], Y[:100], Y[100:]
    >>> from mlviz.linear import PLST
    >>> from mlviz.per_label import plst_label_table
    >>> from mlviz.figures.tail import plst_tail_figure
    >>> model = PLST(4).fit(X_train, Y_train)
    >>> table = plst_label_table(model, X_test, Y_test, Y_train, tail_threshold=0.05,
    ...                       label_names=ds.label_names)
    >>> fig = plst_tail_figure(table, tail_threshold=0.05, n_components=4)
    >>> len(fig.data)
    2
    """
    data = _sorted(
        table, ("unrepresented", "encoding_error", "predicted", "support"), "plst_tail_figure"
    )
    share = data["unrepresented"].to_numpy(dtype=float)
    never = data["predicted"].to_numpy() == 0
    hover = [
        f"{frame}<br>unrepresented: {100 * s:.1f}% of its variance<br>{test}"
        for frame, s, test in zip(_hover_frame(data), share, _test_text(data), strict=True)
    ]
    x = np.arange(len(data))
    fig = go.Figure()
    for name, mask, symbol in (
        (f"{method}: predicted on the test split", ~never, "circle"),
        (f"{method}: never predicted on the test split", never, "x"),
    ):
        fig.add_trace(
            go.Scatter(
                x=x[mask],
                y=share[mask],
                mode="markers",
                name=name,
                marker=dict(symbol=symbol, size=8, color=method_color(method)),
                text=np.asarray(hover, dtype=object)[mask],
                hovertemplate="%{text}<extra></extra>",
            )
        )
    n_constant = int(np.isnan(share).sum())
    title = f"{method}, M = {n_components}: what the M directions cannot represent, per label"
    if n_constant:
        title += (
            f"<br><sup>{n_constant} label{'s' if n_constant != 1 else ''} constant in training "
            "(no variance) not drawn</sup>"
        )
    _frame(
        fig,
        data,
        tail_threshold,
        title=title,
        y_title="unrepresented share of the label's variance",
        priority=share,
        priority_text="most unrepresented first",
        max_named=max_named,
    )
    fig.update_yaxes(range=[-0.03, 1.05])
    return fig


def _log_counts(counts: np.ndarray) -> np.ndarray:
    """Counts on a log axis with 0 drawn at 0.5, below the 1 (ticked "0")."""
    counts = np.asarray(counts, dtype=float)
    return np.where(counts > 0, counts, 0.5)


def _log_ticks(maximum: float) -> tuple[list[float], list[str]]:
    values, text = [0.5], ["0"]
    power = 1
    while power <= max(maximum, 1):
        for step in (1, 3):
            if step * power <= max(maximum, 1) * 3:
                values.append(step * power)
                text.append(f"{step * power:,}")
        power *= 10
    return values, text


def clems_tail_figure(
    table: pd.DataFrame,
    tail_threshold: float,
    *,
    method: str = "CLEMS",
    max_named: int = MAX_NAMED,
) -> go.Figure:
    """How many test rows carry each label in the truth and in the decoded candidate sets.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`mlviz.per_label.clems_label_table` (``true``, ``decoded``, ``candidate_sets``
        besides the frequency columns).
    tail_threshold : float
        The threshold the table's ``tail`` column was computed with.

    Returns
    -------
    plotly.graph_objects.Figure
        Trace 0: ``true`` (test rows with the label); trace 1: ``decoded`` (test rows whose
        decoded candidate set contains it), side by side per label on a log axis where 0
        is drawn at the bottom line (ticked "0").

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> X_train, X_test, Y_train, Y_test = X[:100], X[100:], Y[:100], Y[100:]
    >>> from mlviz.clems import CLEMS
    >>> from mlviz.per_label import clems_label_table
    >>> from mlviz.figures.tail import clems_tail_figure
    >>> model = CLEMS(n_components=3, random_state=0).fit(X_train, Y_train)
    >>> table = clems_label_table(model, X_test, Y_test, Y_train, tail_threshold=0.05,
    ...                       label_names=ds.label_names)
    >>> fig = clems_tail_figure(table, tail_threshold=0.05)
    >>> len(fig.data)
    2
    """
    data = _sorted(table, ("true", "decoded", "candidate_sets"), "clems_tail_figure")
    true = data["true"].to_numpy()
    decoded = data["decoded"].to_numpy()
    sets = data["candidate_sets"].to_numpy()
    frame = _hover_frame(data)
    x = np.arange(len(data))
    fig = go.Figure()
    for offset, values, name, what, color in (
        (-_DODGE, true, "in the truth (test rows)", "test rows with it", _REFERENCE_COLOR),
        (
            +_DODGE,
            decoded,
            f"in the sets {method} decoded to",
            "decoded sets with it",
            method_color(method),
        ),
    ):
        fig.add_trace(
            go.Scatter(
                x=x + offset,
                y=_log_counts(values),
                mode="markers",
                name=name,
                marker=dict(size=7, color=color),
                customdata=values,
                text=[
                    f"{f}<br>in {s} of the candidate sets" for f, s in zip(frame, sets, strict=True)
                ],
                hovertemplate=f"%{{text}}<br>{what}: %{{customdata}}<extra></extra>",
            )
        )
    under = np.where(true > 0, (true - decoded) / np.maximum(true, 1), np.nan)
    n_lost = int(((true > 0) & (decoded == 0)).sum())
    _frame(
        fig,
        data,
        tail_threshold,
        title=f"{method}: each label in the decoded candidate sets vs in the truth<br><sup>"
        f"{n_lost} label{'s' if n_lost != 1 else ''} present in the test truth never decoded</sup>",
        y_title="test rows (log scale; 0 at the bottom)",
        priority=under,
        priority_text="most under-decoded first",
        max_named=max_named,
    )
    tickvals, ticktext = _log_ticks(float(max(true.max(), decoded.max(), 1)))
    fig.update_yaxes(type="log", tickmode="array", tickvals=tickvals, ticktext=ticktext)
    return fig


def mlknn_tail_figure(
    table: pd.DataFrame,
    tail_threshold: float,
    *,
    method: str = "ML-KNN",
    max_named: int = MAX_NAMED,
) -> go.Figure:
    """ML-KNN's prior P(H₁) and test recall of each label, labels by training frequency.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`mlviz.per_label.mlknn_label_table` (``prior``, ``recall``, ``support``,
        ``predicted`` besides the frequency columns).
    tail_threshold : float
        The threshold the table's ``tail`` column was computed with.

    Returns
    -------
    plotly.graph_objects.Figure
        Trace 0: prior of every label, on its own right axis (``y2``, log scale when the
        priors span a decade: tail priors near 0.006 would sit on the zero line of the
        recall's 0..1 axis); trace 1: test recall of the labels with a positive in the test
        split, on the left axis (the others have no recall and are not drawn; the title says
        how many).

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> X_train, X_test, Y_train, Y_test = X[:100], X[100:], Y[:100], Y[100:]
    >>> from mlviz.mlknn import MLkNN
    >>> from mlviz.per_label import mlknn_label_table
    >>> from mlviz.figures.tail import mlknn_tail_figure
    >>> model = MLkNN(k=5).fit(X_train, Y_train)
    >>> table = mlknn_label_table(model, X_test, Y_test, Y_train, tail_threshold=0.05,
    ...                       label_names=ds.label_names)
    >>> fig = mlknn_tail_figure(table, tail_threshold=0.05)
    >>> len(fig.data), len(fig.data[0].y)
    (2, 22)
    """
    data = _sorted(table, ("prior", "recall", "support", "predicted"), "mlknn_tail_figure")
    prior = data["prior"].to_numpy(dtype=float)
    recall = data["recall"].to_numpy(dtype=float)
    tested = data["support"].to_numpy() > 0
    frame = _hover_frame(data)
    test = _test_text(data)
    x = np.arange(len(data))
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(
        go.Scatter(
            x=x - _DODGE,
            y=prior,
            mode="markers",
            name="prior P(H₁) (training, right axis)",
            marker=dict(size=7, symbol="diamond", color=_REFERENCE_COLOR),
            text=frame,
            hovertemplate="%{text}<br>prior P(H₁): %{y:.4f}<extra></extra>",
        ),
        secondary_y=True,
    )
    fig.add_trace(
        go.Scatter(
            x=(x + _DODGE)[tested],
            y=recall[tested],
            mode="markers",
            name=f"{method} test recall",
            marker=dict(size=7, color=method_color(method)),
            text=[
                f"{f}<br>{t}"
                for f, t in zip(np.asarray(frame)[tested], np.asarray(test)[tested], strict=True)
            ],
            hovertemplate="%{text}<br>recall: %{y:.3f}<extra></extra>",
        ),
        secondary_y=False,
    )
    n_untested = int((~tested).sum())
    title = f"{method}: prior P(H₁) and test recall per label"
    if n_untested:
        title += (
            f"<br><sup>{n_untested} label{'s' if n_untested != 1 else ''} without a test "
            "positive: no recall drawn</sup>"
        )
    _frame(
        fig,
        data,
        tail_threshold,
        title=title,
        y_title=f"{method} test recall",
        priority=np.where(tested, 1.0 - recall, np.nan),
        priority_text="lowest recall first",
        max_named=max_named,
    )
    fig.update_yaxes(range=[-0.03, 1.05], secondary_y=False)
    axis = number_axis(prior)
    fig.update_yaxes(
        title_text="prior P(H₁)" + (" (log scale)" if axis["type"] == "log" else ""),
        showgrid=False,
        secondary_y=True,
        **axis,
    )
    # the right axis's ticks and title need room: plotly's default right margin cuts the title
    fig.update_layout(margin_r=90)
    return fig


def grople_tail_figure(
    table: pd.DataFrame,
    tail_threshold: float,
    *,
    method: str = "GroPLE",
    baseline: str = "BR",
    max_named: int = MAX_NAMED,
) -> go.Figure:
    """Test F1 of each label for GroPLE (with the label's group) and a baseline, side by side.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`mlviz.per_label.grople_label_table` (``group``, ``f1``, ``baseline_f1``,
        ``support``, ``predicted``, ``baseline_predicted`` besides the frequency columns).
    tail_threshold : float
        The threshold the table's ``tail`` column was computed with.
    method, baseline : str
        Names in the legend.

    Returns
    -------
    plotly.graph_objects.Figure
        Trace 0: the method's F1, trace 1: the baseline's, dodged left and right of each
        label; the axis names carry the group (``name · g3``). Labels with undefined F1 (no
        test positive and never predicted) are not drawn.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> X_train, X_test, Y_train, Y_test = X[:100], X[100:], Y[:100], Y[100:]
    >>> from mlviz.grople import GroPLE
    >>> from mlviz.linear import BinaryRelevance
    >>> from mlviz.per_label import grople_label_table
    >>> from mlviz.figures.tail import grople_tail_figure
    >>> model = GroPLE(n_components=5, n_groups=4, random_state=0).fit(X_train, Y_train)
    >>> baseline = BinaryRelevance().fit(X_train, Y_train)
    >>> table = grople_label_table(model, baseline, X_test, Y_test, Y_train, tail_threshold=0.05,
    ...                       label_names=ds.label_names)
    >>> fig = grople_tail_figure(table, tail_threshold=0.05)
    >>> [trace.name for trace in fig.data]
    ['GroPLE test F1', 'BR test F1']
    """
    data = _sorted(
        table,
        ("group", "f1", "baseline_f1", "support", "predicted", "baseline_predicted"),
        "grople_tail_figure",
    )
    groups = data["group"].to_numpy()
    frame = [f"{f}<br>group {g}" for f, g in zip(_hover_frame(data), groups, strict=True)]
    x = np.arange(len(data))
    fig = go.Figure()
    for offset, f1_column, predicted, name in (
        (-_DODGE, "f1", "predicted", method),
        (+_DODGE, "baseline_f1", "baseline_predicted", baseline),
    ):
        f1 = data[f1_column].to_numpy(dtype=float)
        drawn = ~np.isnan(f1)
        text = [f"{f}<br>{t}" for f, t in zip(frame, _test_text(data, predicted), strict=True)]
        fig.add_trace(
            go.Scatter(
                x=(x + offset)[drawn],
                y=f1[drawn],
                mode="markers",
                name=f"{name} test F1",
                marker=dict(
                    size=7, symbol="circle" if offset < 0 else "square", color=method_color(name)
                ),
                text=np.asarray(text, dtype=object)[drawn],
                hovertemplate=f"%{{text}}<br>{name} F1: %{{y:.3f}}<extra></extra>",
            )
        )
    f1 = data["f1"].to_numpy(dtype=float)
    loss = data["baseline_f1"].to_numpy(dtype=float) - f1
    n_untested = int((data["support"].to_numpy() == 0).sum())
    title = f"{method} vs {baseline}: test F1 per label, with {method}'s label group"
    if n_untested:
        title += (
            f"<br><sup>{n_untested} label{'s' if n_untested != 1 else ''} without a test "
            "positive: F1 0 if predicted, else undefined and not drawn</sup>"
        )
    _frame(
        fig,
        data,
        tail_threshold,
        title=title,
        y_title="test F1",
        priority=loss,
        priority_text=f"largest {baseline} − {method} F1 first",
        max_named=max_named,
        tick_names=[f"{n} · g{g}" for n, g in zip(data["label"], groups, strict=True)],
    )
    fig.update_yaxes(range=[-0.03, 1.05])
    return fig
