"""Figures of the PLST page: label spectrum, encoding error, loss vs M, one decoded instance.

Tai & Lin, "Multi-label Classification with Principal Label Space Transformation" (paper 004,
``../shared/papers/004_e362ca4c9100d29e.txt``), in mlviz's notation: L labels (the paper writes
K), label index j, M regressors, reference point o, projection P (M × L), regressor outputs
h = r(x), decoded point ``ỹ = o + Pᵀ r(x)`` (Algorithm 8) and round-based decoding
``ŷ_j = [ỹ_j ≥ 1/2]`` (Eq. 2). PLST keeps the M leading right singular vectors of the
mean-shifted label matrix, so its training encoding error is ``Σ_{m>M} σ_m²`` (section 3.3).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mlviz.figures._current import mark_current
from mlviz.figures._style import TITLE_CHARS, legible, method_color, plain
from mlviz.stats import labels_to_show

#: Labels a per-label bar figure names; beyond it the figure shows a stated top-N (40 names
#: stay apart on a 1280 px page: tests/test_browser_labels.py).
MAX_NAMED_LABELS = 40
# pixels by which subplot titles are lifted off the plot's top edge, clear of its top tick label
_PANEL_TITLE_LIFT = 10

__all__ = [
    "decoding_figure",
    "decoding_steps_table",
    "encoding_error_figure",
    "loss_vs_m_figure",
    "spectrum_figure",
]


def _vector(values, name: str, where: str) -> np.ndarray:
    array = np.asarray(values, dtype=float)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{where}: {name} must be a non-empty 1-D array; got shape {array.shape}.")
    return array


def spectrum_figure(singular_values: np.ndarray, *, current: int | None = None) -> go.Figure:
    """Share of label variance per principal direction and its cumulative share.

    Parameters
    ----------
    singular_values : ndarray, shape (L,) or shorter
        Singular values σ_1 ≥ σ_2 ≥ … of the mean-shifted training label matrix
        ``Y − 1 oᵀ`` (paper 004, section 3.3); sorted here in case they are not.

    Returns
    -------
    plotly.graph_objects.Figure
        Trace 0 (bars): ``σ_m² / Σ σ²`` against m = 1..; trace 1 (line): the cumulative
        share, i.e. the fraction of the training encoding error removed by keeping M = m
        directions.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.linear import PLST
    >>> from mlviz.figures.linear import spectrum_figure
    >>> model = PLST(4).fit(X, Y)
    >>> fig = spectrum_figure(model.singular_values_, current=4)
    >>> len(fig.data), round(float(fig.data[1].y[-1]), 3)  # the cumulative share ends at 1
    (2, 1.0)
    """
    sigma = np.sort(np.abs(_vector(singular_values, "singular_values", "spectrum_figure")))[::-1]
    energy = sigma**2
    total = energy.sum()
    if total <= 0:
        raise ValueError(
            "spectrum_figure: all singular values are zero (every training instance has the "
            "same label set), so there is no spectrum to show."
        )
    share = energy / total
    m = np.arange(1, sigma.size + 1)
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=m,
            y=share,
            name="σ_m² share",
            marker_color="#1f77b4",
            customdata=sigma,
            hovertemplate="m = %{x}<br>σ_m = %{customdata:.4g}<br>share %{y:.2%}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=m,
            y=np.cumsum(share),
            name="cumulative share",
            mode="lines+markers",
            line=dict(color="#d62728"),
            hovertemplate="first %{x} directions keep %{y:.2%}<extra></extra>",
        )
    )
    fig.update_layout(
        title="Label-space spectrum<br><sup>how much label variation each principal direction "
        "keeps</sup>",
        xaxis_title="principal direction m",
        yaxis_title="share of Σσ² (label variance)",
        yaxis_tickformat=".0%",
        yaxis_range=[0, 1.05],
        margin=dict(t=70, b=10),
    )
    if current is not None:
        mark_current(fig, current, "M", where="spectrum_figure")
    return legible(fig)


def _m_values(n: int, m_values, where: str) -> np.ndarray:
    if m_values is None:
        return np.arange(1, n + 1)
    m_values = np.asarray(m_values)
    if m_values.shape != (n,):
        raise ValueError(
            f"{where}: m_values must have one entry per error value ({n}); got shape "
            f"{m_values.shape}."
        )
    return m_values


def encoding_error_figure(
    train_error: np.ndarray,
    test_error: np.ndarray | None = None,
    *,
    m_values: np.ndarray | None = None,
    method: str = "PLST",
    current: int | None = None,
) -> go.Figure:
    """Mean encoding error against the number of directions M (paper 004, Fig. 10).

    The encoding error of an instance is the second term of the bound (3),
    ``‖y − o − Pᵀ P (y − o)‖²``; Fig. 10 shows its mean on the test set.

    Parameters
    ----------
    train_error, test_error : ndarray, shape (n,)
        Mean encoding error on the training / test set. By default entry ``m − 1`` belongs to
        M = m (so a length-L array covers M = 1..L); pass ``m_values`` for other M, e.g.
        ``np.arange(L + 1)`` when entry 0 is the error of M = 0 (reference point only).
        ``PLST.encoding_error(Y).mean(axis=0)`` has L + 1 entries (M = 0..L): pass it with
        ``m_values=np.arange(L + 1)``, or drop entry 0.
    m_values : ndarray, shape (n,), optional
        The M of each entry.
    method : str, default="PLST"
        Name in the legend (e.g. "PBR" to draw the same figure for partial BR).
    current : int, optional
        The M in use, marked "you are here".

    Returns
    -------
    plotly.graph_objects.Figure
        Trace 0: training error, trace 1 (when given): test error, both against M.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.linear import encoding_error_figure
    >>> train_error, test_error = np.array([0.2, 0.1, 0.05]), np.array([0.25, 0.15, 0.1])
    >>> fig = encoding_error_figure(train_error, test_error=test_error, current=2)
    >>> [trace.name for trace in fig.data]
    ['PLST, training set', 'PLST, test set']
    """
    train_error = _vector(train_error, "train_error", "encoding_error_figure")
    m = _m_values(train_error.size, m_values, "encoding_error_figure")
    fig = go.Figure(
        go.Scatter(
            x=m,
            y=train_error,
            mode="lines+markers",
            name=f"{method}, training set",
            hovertemplate="M = %{x}<br>encoding error %{y:.4f}<extra></extra>",
        )
    )
    if test_error is not None:
        test_error = _vector(test_error, "test_error", "encoding_error_figure")
        if test_error.shape != train_error.shape:
            raise ValueError(
                f"encoding_error_figure: test_error has {test_error.size} values but train_error "
                f"has {train_error.size}; give both for the same M values."
            )
        fig.add_trace(
            go.Scatter(
                x=m,
                y=test_error,
                mode="lines+markers",
                name=f"{method}, test set",
                line=dict(dash="dash"),
                hovertemplate="M = %{x}<br>encoding error %{y:.4f}<extra></extra>",
            )
        )
    fig.update_layout(
        title="Encoding error<br><sup>how far the label vectors lie from the M-dimensional "
        "flat</sup>",
        xaxis_title="number of directions M",
        yaxis_title="mean ‖y − o − PᵀP(y − o)‖²",
        margin=dict(t=70, b=10),
    )
    if current is not None:
        mark_current(fig, current, "M", where="encoding_error_figure")
    return legible(fig)


def loss_vs_m_figure(
    df: pd.DataFrame,
    *,
    metric: str = "hamming_loss",
    current: int | None = None,
    title_width: int = TITLE_CHARS,
) -> go.Figure:
    """Test loss against M, one line per method (paper 004, Figs. 2 and 9).

    Parameters
    ----------
    df : pandas.DataFrame
        Columns ``method, M, hamming_loss`` and optionally ``kind`` in {"learned", "ideal"}
        (the ideal learner of Fig. 9 predicts h exactly) and ``sd`` (drawn as error bars).
        Rows without ``kind`` count as "learned".
    metric : str, default="hamming_loss"
        Column holding the loss.
    current : int, optional
        The M in use, marked "you are here".
    title_width : int, default=TITLE_CHARS
        Characters per title line: the default fits a half-width column; a page drawing the
        figure across its width passes ``WIDE_TITLE_CHARS``.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per (method, kind) in order of first appearance, points sorted by M;
        ideal-learner traces are dashed.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from mlviz.figures.linear import loss_vs_m_figure
    >>> df = pd.DataFrame({"method": "PLST", "M": [8, 2, 4], "hamming_loss": [0.08, 0.12, 0.10]})
    >>> fig = loss_vs_m_figure(df, metric="hamming_loss", current=4)
    >>> len(fig.data), np.asarray(fig.data[0].x).tolist()  # points sorted by M
    (1, [2, 4, 8])
    """
    missing = {"method", "M", metric} - set(df.columns)
    if missing:
        raise ValueError(
            f"loss_vs_m_figure: df lacks column(s) {sorted(missing)}; expected "
            f"method, M, {metric}[, kind, sd]."
        )
    data = df.copy()
    data["kind"] = data["kind"].fillna("learned") if "kind" in data.columns else "learned"
    unknown = set(data["kind"]) - {"learned", "ideal"}
    if unknown:
        raise ValueError(
            f"loss_vs_m_figure: kind must be 'learned' or 'ideal'; got {sorted(map(str, unknown))}."
        )
    fig = go.Figure()
    for (method, kind), part in data.groupby(["method", "kind"], sort=False):
        part = part.sort_values("M", kind="stable")
        colour = method_color(method)
        error_y = (
            dict(type="data", array=part["sd"].to_numpy(float), visible=True)
            if "sd" in part.columns
            else None
        )
        fig.add_trace(
            go.Scatter(
                x=part["M"].to_numpy(),
                y=part[metric].to_numpy(float),
                mode="lines+markers",
                name=f"{method} (ideal learner)" if kind == "ideal" else str(method),
                line=dict(color=colour, dash="dash" if kind == "ideal" else "solid"),
                error_y=error_y,
                hovertemplate=f"{method}, {kind}<br>M = %{{x}}<br>"
                f"{metric} %{{y:.4f}}<extra></extra>",
            )
        )
    pretty = metric.replace("_", " ")
    fig.update_layout(
        title=f"Test {pretty} against the number of regressors M",
        xaxis_title="number of regressors M",
        yaxis_title=f"test {pretty} (lower is better)" if "loss" in metric else f"test {pretty}",
        margin=dict(t=50, b=10),
    )
    if current is not None:
        mark_current(fig, current, "M", where="loss_vs_m_figure")
    return legible(fig, title_width=title_width)


def _check_label_vectors(where: str, label_names, **vectors) -> tuple[list[str], dict]:
    arrays = {k: _vector(v, k, where) for k, v in vectors.items()}
    n_labels = len(label_names)
    for name, array in arrays.items():
        if array.size != n_labels:
            raise ValueError(
                f"{where}: {name} has {array.size} entries but there are {n_labels} "
                "label names; give one value per label."
            )
    return [str(n) for n in label_names], arrays


def decoding_steps_table(
    y_tilde: np.ndarray,
    y_hat: np.ndarray,
    y_true: np.ndarray,
    label_names: Sequence[str],
) -> pd.DataFrame:
    """Round-based decoding of one instance, one row per label (paper 004, Algorithm 8).

    Parameters
    ----------
    y_tilde : ndarray, shape (L,)
        Decoded point ``ỹ = o + Pᵀ h``.
    y_hat : ndarray of 0/1, shape (L,)
        The model's prediction (``[ỹ ≥ 1/2]`` for PLST, PBR and BR, Eq. 2).
    y_true : ndarray of 0/1, shape (L,)
    label_names : sequence of str, length L

    Returns
    -------
    pandas.DataFrame
        Columns ``label, y_tilde, y_hat, y_true, correct`` (correct = ``y_hat == y_true``).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.linear import decoding_steps_table
    >>> y_tilde, y_hat, y_true = np.array([0.8, 0.3]), np.array([1, 0]), np.array([1, 1])
    >>> table = decoding_steps_table(y_tilde, y_hat, y_true, ["a", "b"])
    >>> table[["label", "y_hat", "correct"]].values.tolist()
    [['a', 1, True], ['b', 0, False]]
    """
    names, arrays = _check_label_vectors(
        "decoding_steps_table", label_names, y_tilde=y_tilde, y_hat=y_hat, y_true=y_true
    )
    y_hat_int = arrays["y_hat"].astype(np.int64)
    y_true_int = arrays["y_true"].astype(np.int64)
    for name, original, as_int in (
        ("y_hat", arrays["y_hat"], y_hat_int),
        ("y_true", arrays["y_true"], y_true_int),
    ):
        if np.any((original != as_int) | (as_int < 0) | (as_int > 1)):
            raise ValueError(f"decoding_steps_table: {name} must hold only 0 and 1.")
    table = pd.DataFrame(
        {
            "label": names,
            "y_tilde": arrays["y_tilde"],
            "y_hat": y_hat_int,
            "y_true": y_true_int,
            "correct": y_hat_int == y_true_int,
        }
    )
    return table


def _whole_step(n: int, max_ticks: int = 5) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... giving at most ``max_ticks`` ticks over 1..n
    (a whole-number axis that never crowds its ticks)."""
    scale = 1
    while True:
        for base in (1, 2, 5):
            if n / (base * scale) <= max_ticks:
                return base * scale
        scale *= 10


def decoding_figure(
    y_tilde: np.ndarray,
    y_true: np.ndarray,
    label_names: Sequence[str],
    *,
    h: np.ndarray | None = None,
    max_labels: int = MAX_NAMED_LABELS,
    title_width: int = TITLE_CHARS,
) -> go.Figure:
    """Bars of ỹ per label with the rounding threshold 1/2 and the true labels marked.

    Parameters
    ----------
    y_tilde : ndarray, shape (L,)
        Decoded point ``ỹ = o + Pᵀ r(x)``; bars at or above 0.5 are predicted (Eq. 2) and
        drawn orange, the others grey.
    y_true : ndarray of 0/1, shape (L,)
        Truth, drawn as diamonds at height 1 (label present) or 0 (absent); a bar on the
        wrong side of the line is an error.
    label_names : sequence of str, length L
    h : ndarray, shape (M,), optional
        The regressor outputs r(x); when given, a left panel shows them as bars.
    max_labels : int, default=MAX_NAMED_LABELS
        With more labels than this, only ``max_labels`` bars are drawn, each named: the
        instance's true and predicted labels first, then the highest ỹ
        (:func:`mlviz.stats.labels_to_show`); the title says so. The count of
        wrong labels in the title is over all L labels.
    title_width : int, default=TITLE_CHARS
        Characters per title line: the default fits a half-width column; a page drawing the
        figure across its width passes ``WIDE_TITLE_CHARS``.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces in order: [h bars,] ỹ bars, truth markers.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.linear import decoding_figure
    >>> fig = decoding_figure(np.array([0.8, 0.3, 0.6]), np.array([1, 1, 0]), ["a", "b", "c"])
    >>> len(fig.data), np.asarray(fig.data[0].y).tolist()
    (2, [0.8, 0.3, 0.6])
    """
    names, arrays = _check_label_vectors(
        "decoding_figure", label_names, y_tilde=y_tilde, y_true=y_true
    )
    y_tilde, y_true = arrays["y_tilde"], arrays["y_true"]
    if not np.isin(y_true, (0, 1)).all():
        raise ValueError("decoding_figure: y_true must hold only 0 and 1.")
    predicted = y_tilde >= 0.5
    wrong = int(np.sum(predicted != (y_true == 1)))
    n_labels = len(names)
    shown = labels_to_show(y_tilde, predicted | (y_true == 1), max_labels)
    names = [plain(names[j]) for j in shown]  # user text: shown, never rendered as HTML
    y_tilde, y_true, predicted = y_tilde[shown], y_true[shown], predicted[shown]
    if h is not None:
        h = _vector(h, "h", "decoding_figure")
        fig = make_subplots(
            rows=1,
            cols=2,
            column_widths=[0.18, 0.82],
            horizontal_spacing=0.14,  # room for the right panel's y title between the panels
            subplot_titles=(
                "1. regressor outputs h = r(x)",
                "2. decoded ỹ = o + Pᵀh, rounded at 1/2",
            ),
        )
        fig.add_trace(
            go.Bar(
                x=np.arange(1, h.size + 1),
                y=h,
                name="h_m",
                marker_color="#9467bd",
                hovertemplate="h_%{x} = %{y:.3f}<extra></extra>",
            ),
            row=1,
            col=1,
        )
        # whole m only, at most ~5 ticks: the panel is narrow, and M is about L / 2 by
        # default (492 directions on a delicious-shaped set overlapped at dtick 1)
        fig.update_xaxes(title_text="direction m", dtick=_whole_step(h.size), row=1, col=1)
        fig.update_yaxes(title_text="h_m", row=1, col=1)
        col = 2
    else:
        fig = make_subplots(rows=1, cols=1)
        col = 1
    fig.add_trace(
        go.Bar(
            x=names,
            y=y_tilde,
            name="ỹ (decoded score)",
            marker_color=np.where(predicted, "#ff7f0e", "#b0b0b0"),
            customdata=predicted.astype(int),
            hovertemplate="%{x}<br>ỹ = %{y:.3f}<br>predicted %{customdata}<extra></extra>",
        ),
        row=1,
        col=col,
    )
    fig.add_trace(
        go.Scatter(
            x=names,
            y=y_true,
            mode="markers",
            name="truth (1 = has the label)",
            marker=dict(symbol="diamond", size=10, color="black"),
            hovertemplate="%{x}: truth %{y:.0f}<extra></extra>",
        ),
        row=1,
        col=col,
    )
    fig.add_hline(
        y=0.5,
        line_dash="dash",
        line_color="#d62728",
        row=1,
        col=col,
        annotation_text="round at 1/2",
        annotation_position="top left",
    )
    # a category axis skips names when crowded: name every bar, upright when many
    many = len(names) > 20
    fig.update_xaxes(
        title_text="label",
        type="category",
        tickmode="array",
        tickvals=names,
        tickangle=-90 if many else None,
        tickfont=dict(size=10) if len(names) > 30 else None,
        row=1,
        col=col,
    )
    fig.update_yaxes(title_text="ỹ<sub>j</sub> (≥ 0.5 → predicted)", row=1, col=col)
    title = f"One instance decoded step by step: {wrong} of {n_labels} labels wrong"
    if len(names) < n_labels:
        title += (
            f"<br><sup>{len(names)} of {n_labels} labels shown: its true and predicted ones, "
            "then the highest ỹ</sup>"
        )
    fig.update_layout(
        title=title,
        # the legend under the names: at the right it would take the width the names need
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0),
        margin=dict(t=0, b=80),
        height=560 if many else 480,
    )
    if h is not None:
        # the panel titles stand clear of the top tick label (half of which rises above the
        # plot); legible() puts them in a band of their own under the title's lines, and so
        # does every later re-wrap (widen_title, for_projector)
        fig.update_annotations(yshift=_PANEL_TITLE_LIFT, selector=dict(yref="paper", y=1.0))
    legible(fig, title_width=title_width, legend=False)
    return fig
