"""Figures of the Compare page: metrics per method, a metric against a parameter, per label.

The inputs are the tidy tables of :mod:`mlviz.evaluation`: ``aggregate`` gives one row per
(method, metric) with ``mean`` and ``sd``; the same with a parameter column gives the GroPLE
paper's Figure 5 style curve (``../shared/papers/001_20309f7d22cfebb1.txt``);
``per_label_comparison`` gives the per-label table of out-of-fold scores. Every method keeps
its colour from :mod:`mlviz.figures._style`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mlviz.figures._current import mark_current
from mlviz.figures._style import (
    REASON_COLORS,
    WIDE_TITLE_CHARS,
    legible,
    method_color,
    plain,
    plain_all,
    title_height,
)
from mlviz.metrics import METRICS
from mlviz.per_label import LOSS_REASONS
from mlviz.stats import is_tail
from mlviz.wording import counted, percent_text

__all__ = [
    "loss_reasons_figure",
    "metric_bars",
    "metric_title",
    "metric_vs_param_figure",
    "per_label_figure",
]

# A panel's value axis starts at 0 unless its values span less than this share of the
# largest one; then it is zoomed to the values (and says so), or 0.196 and 0.204 look equal.
_ZOOM_BELOW = 0.25
_TAIL_FILL = "rgba(214, 39, 40, 0.10)"
# pixels above a row of subplots that their titles (plotly annotations) take, with a gap
_PANEL_TITLE_BAND = 30


def metric_title(metric: str) -> str:
    """Display name with its direction, e.g. "Hamming loss ↓"; unknown metrics as given.

    Examples
    --------
    >>> from mlviz.figures.compare import metric_title
    >>> metric_title("hamming_loss"), metric_title("micro_f1")
    ('Hamming loss ↓', 'Micro F1 ↑')
    """
    info = METRICS.get(metric)
    return f"{info.label} {info.arrow}" if info is not None else metric


def _value_format(metric: str) -> str:
    """The metric's number format in hover texts (:attr:`mlviz.metrics.MetricInfo.d3_format`:
    coverage counts labels, so three decimals); four decimals for a metric mlviz does not
    know."""
    info = METRICS.get(metric)
    return info.d3_format if info is not None else ".4f"


def _value_range(low: float, high: float) -> tuple[list[float] | None, bool]:
    """Axis range for values in [low, high] (means ± sd): from 0, or zoomed when they are close.

    Returns the range (None: let plotly choose from 0) and whether it is zoomed.
    """
    if not (np.isfinite(low) and np.isfinite(high)) or low <= 0:
        return None, False
    if high - low >= _ZOOM_BELOW * high:
        return [0.0, high * 1.08], False
    pad = max(0.15 * (high - low), 1e-3 * high)
    return [low - pad, high + pad], True


def _require(df: pd.DataFrame, columns: Sequence[str], where: str, hint: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{where}: the table lacks column(s) {missing}; {hint}")


def metric_bars(summary_df: pd.DataFrame, *, n_cols: int = 3) -> go.Figure:
    """One panel per metric, one dot per method with a ± sd whisker.

    Metrics have different scales and directions, so each gets its own panel (titled with
    ↑ for higher-is-better, ↓ for lower-is-better). Dots rather than bars: a panel whose
    values lie close together (spread under a quarter of the largest value) gets a value axis
    zoomed to them, which a bar's length would misrepresent; such panels say "zoomed axis,
    not from 0" in their title. The others start at 0.

    Parameters
    ----------
    summary_df : pandas.DataFrame
        Tidy summary with columns ``method, metric, mean, sd`` (``mlviz.evaluation.aggregate``
        output); a missing or NaN sd (a single fold) draws no whisker; a NaN mean (metric
        undefined) draws nothing.
    n_cols : int, default=3
        Panels per row.

    Returns
    -------
    plotly.graph_objects.Figure
        Panels in order of first appearance of each metric; within a panel, one marker trace
        per method in its fixed colour (legend shown once), ``y`` the mean and
        ``error_y.array`` the sd.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({"method": ["PLST", "PLST", "ML-KNN", "ML-KNN"],
    ...                         "fold": [0, 1, 0, 1], "metric": "hamming_loss",
    ...                         "value": [0.10, 0.12, 0.09, 0.11]})
    >>> from mlviz.evaluation import aggregate
    >>> from mlviz.figures.compare import metric_bars
    >>> fig = metric_bars(aggregate(results))
    >>> [trace.name for trace in fig.data]
    ['PLST', 'ML-KNN']
    """
    _require(
        summary_df,
        ("method", "metric", "mean"),
        "metric_bars",
        "pass mlviz.evaluation.aggregate(results) (columns method, metric, mean, sd).",
    )
    if summary_df.empty:
        raise ValueError("metric_bars: the summary table is empty (no results to show).")
    metrics = list(dict.fromkeys(summary_df["metric"]))
    methods = list(dict.fromkeys(summary_df["method"]))
    n_cols = max(1, min(int(n_cols), len(metrics)))
    n_rows = math.ceil(len(metrics) / n_cols)
    panels = []
    for metric in metrics:
        part = summary_df[summary_df["metric"] == metric]
        duplicated = part["method"].duplicated()
        if duplicated.any():
            method = part["method"][duplicated].iloc[0]
            raise ValueError(
                f"metric_bars: several rows for method {method!r} and metric {metric!r}; "
                "give one summary row per pair."
            )
        mean = part["mean"].to_numpy(float)
        sd = part["sd"].to_numpy(float) if "sd" in part.columns else np.full(len(part), np.nan)
        defined = np.isfinite(mean)
        low, high = (
            mean[defined] - np.nan_to_num(sd[defined]),
            mean[defined] + np.nan_to_num(sd[defined]),
        )
        axis_range, zoomed = _value_range(low.min(), high.max()) if defined.any() else (None, False)
        panels.append((metric, part, axis_range, zoomed))
    titles = [
        metric_title(metric) + ("<br><sub>zoomed axis, not from 0</sub>" if zoomed else "")
        for metric, _, _, zoomed in panels
    ]
    fig = make_subplots(
        rows=n_rows,
        cols=n_cols,
        subplot_titles=titles,
        vertical_spacing=min(0.12, 0.6 / n_rows) if n_rows > 1 else 0.1,
        horizontal_spacing=0.08,
    )
    shown_in_legend: set[str] = set()
    for position, (metric, part, axis_range, _) in enumerate(panels):
        row, col = divmod(position, n_cols)
        for method in methods:
            rows = part[part["method"] == method]
            if rows.empty or not np.isfinite(float(rows["mean"].iloc[0])):
                continue
            mean = float(rows["mean"].iloc[0])
            sd = float(rows["sd"].iloc[0]) if "sd" in rows.columns else float("nan")
            shown = _value_format(metric)
            fig.add_trace(
                go.Scatter(
                    x=[str(method)],
                    y=[mean],
                    mode="markers",
                    name=str(method),
                    legendgroup=str(method),
                    showlegend=method not in shown_in_legend,
                    marker=dict(color=method_color(method), size=11),
                    error_y=dict(
                        type="data",
                        array=[sd if np.isfinite(sd) else 0.0],
                        visible=bool(np.isfinite(sd)),
                        color=method_color(method),
                    ),
                    hovertemplate=f"{method}<br>{metric_title(metric)}: %{{y:{shown}}}"
                    + (f" ± {sd:{shown}}" if np.isfinite(sd) else "")
                    + "<extra></extra>",
                ),
                row=row + 1,
                col=col + 1,
            )
            shown_in_legend.add(method)
        if axis_range is not None:
            fig.update_yaxes(range=axis_range, row=row + 1, col=col + 1)
    fig.update_xaxes(showticklabels=False, categoryorder="array", categoryarray=methods)
    height = max(320, 240 * n_rows + 60)
    # title, then the legend, then the panel titles: each in its own band of the top margin
    fig.update_layout(
        title=dict(
            text="Metrics per method: mean ± sd over folds (↑ higher is better, ↓ lower is better)",
            yref="container",
            y=1 - 10 / height,
            yanchor="top",
        ),
        height=height,
        legend=dict(
            orientation="h",
            yref="container",
            y=1 - 44 / height,
            yanchor="top",
            x=0,
            xanchor="left",
        ),
        margin=dict(t=120, b=20),
    )
    return fig


def metric_vs_param_figure(
    df: pd.DataFrame,
    param: str,
    metric: str,
    *,
    current: float | None = None,
    current_name: str | None = None,
) -> go.Figure:
    """Mean ± sd of one metric per method against a parameter (GroPLE paper, Fig. 5 style).

    Parameters
    ----------
    df : pandas.DataFrame
        Either a summary with columns ``method, <param>, metric, mean[, sd]`` (one row per
        method, parameter value and metric) or raw results with columns
        ``method, <param>, metric, value`` (one row per fold), which are averaged here
        (sd with ddof=1, as ``mlviz.evaluation.aggregate``).
    param : str
        Parameter column, e.g. "n_components" (the paper's d); numeric values are drawn on a
        numeric axis in increasing order.
    metric : str
        Which metric to show (a value of the ``metric`` column).
    current : float, optional
        The parameter value in use on the page, marked "you are here".
    current_name : str, optional
        Its symbol in the marker's label (e.g. "M/d"); default ``param``.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per method: ``x`` the parameter values (sorted), ``y`` the means,
        ``error_y.array`` the sds.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from mlviz.figures.compare import metric_vs_param_figure
    >>> summary = pd.DataFrame({"method": "GroPLE", "n_components": [5, 10, 20],
    ...                         "metric": "micro_f1", "mean": [0.40, 0.45, 0.47],
    ...                         "sd": [0.02, 0.02, 0.01]})
    >>> fig = metric_vs_param_figure(summary, param="n_components", metric="micro_f1", current=10)
    >>> np.asarray(fig.data[0].x).tolist(), np.asarray(fig.data[0].y).tolist()
    ([5, 10, 20], [0.4, 0.45, 0.47])
    """
    _require(
        df,
        ("method", param, "metric"),
        "metric_vs_param_figure",
        f"expected method, {param}, metric and mean[, sd] (or value per fold).",
    )
    part = df[df["metric"] == metric]
    if part.empty:
        known = sorted(map(str, df["metric"].unique()))
        raise ValueError(
            f"metric_vs_param_figure: no rows for metric {metric!r}; the table has {known}."
        )
    if "mean" not in part.columns:
        _require(
            part,
            ("value",),
            "metric_vs_param_figure",
            "give either mean[, sd] columns or one value per fold.",
        )
        part = part.groupby(["method", param], sort=False)["value"].agg(["mean", "std"])
        part = part.rename(columns={"std": "sd"}).reset_index()
    methods = list(dict.fromkeys(part["method"]))
    shown = _value_format(metric)
    fig = go.Figure()
    for method in methods:
        rows = part[part["method"] == method].sort_values(param, kind="stable")
        sd = rows["sd"].to_numpy(float) if "sd" in rows.columns else np.full(len(rows), np.nan)
        fig.add_trace(
            go.Scatter(
                x=rows[param].to_numpy(),
                y=rows["mean"].to_numpy(float),
                mode="lines+markers",
                name=str(method),
                line=dict(color=method_color(method)),
                error_y=dict(
                    type="data", array=np.nan_to_num(sd), visible=bool(np.isfinite(sd).any())
                ),
                customdata=sd,
                hovertemplate=f"{method}<br>{param} = %{{x}}<br>"
                f"mean %{{y:{shown}}} ± %{{customdata:{shown}}}<extra></extra>",
            )
        )
    fig.update_layout(
        title=f"{metric_title(metric)} against {param} (mean ± sd over folds)",
        xaxis_title=param,
        yaxis_title=metric_title(metric),
        margin=dict(t=50, b=10),
    )
    if current is not None:
        mark_current(fig, current, current_name or param, where="metric_vs_param_figure")
    return legible(fig)


def per_label_figure(
    table: pd.DataFrame,
    methods: Sequence[str],
    *,
    metric: str = "F1",
    tail_threshold: float | None = None,
    max_labels: int = 60,
) -> go.Figure:
    """Per-label scores of several methods, labels sorted by frequency: where rare labels fail.

    One row per label (rarest at the top), a first panel with the label's frequency and one
    panel per method with its score, in the method's fixed colour. Tail labels (below
    ``tail_threshold``) are shaded across all panels; every shown label is named on the axis.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`mlviz.evaluation.per_label_comparison` output: columns ``label``,
        ``frequency`` and ``"<metric> <method>"`` for each method; rows in any order.
    methods : sequence of str
        Methods to draw, one panel each, in this order.
    metric : str, default="F1"
        Which score ("F1", "recall", "precision" or "AUC": the column prefix).
    tail_threshold : float, optional
        Shades the labels whose frequency is below it (the sidebar's tail threshold).
    max_labels : int, default=60
        With more labels than this, the ``max_labels // 2`` rarest and the
        ``max_labels - max_labels // 2`` most frequent are drawn, with a gap row between them,
        and the title says how many are left out (all are in the table).

    Returns
    -------
    plotly.graph_objects.Figure
        Trace 0: frequency bars; then one marker trace per method (``y`` the label names, ``x``
        the scores; NaN scores, undefined, are left out).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.evaluation import OutOfFoldPredictions, per_label_comparison
    >>> from mlviz.figures.compare import per_label_figure
    >>> Y = np.array([[1, 0], [1, 1], [1, 0], [0, 0]])
    >>> Y_pred = np.array([[1, 0], [1, 0], [1, 0], [0, 0]])
    >>> predictions = {"PLST": OutOfFoldPredictions(Y_pred=Y_pred, Y_score=None)}
    >>> table = per_label_comparison(predictions, Y, label_names=["x", "y"])
    >>> fig = per_label_figure(table, ["PLST"], tail_threshold=0.3)
    >>> len(fig.data), np.asarray(fig.data[1].y).tolist()
    (2, [0.0, 1.0])
    """
    _require(
        table,
        ("label", "frequency"),
        "per_label_figure",
        "pass mlviz.evaluation.per_label_comparison(...).",
    )
    methods = [str(m) for m in methods]
    if not methods:
        raise ValueError("per_label_figure: no methods to draw; give at least one.")
    columns = [f"{metric} {m}" for m in methods]
    _require(table, columns, "per_label_figure", f"no {metric!r} scores for those methods.")
    if max_labels < 2:
        raise ValueError(f"per_label_figure: max_labels must be at least 2; got {max_labels}.")
    ordered = table.sort_values("frequency", kind="stable").reset_index(drop=True)
    n_labels = len(ordered)
    if n_labels == 0:
        raise ValueError("per_label_figure: the table has no labels.")
    left_out = max(0, n_labels - max_labels)
    if left_out:
        n_rare = max_labels // 2
        ordered = pd.concat([ordered.iloc[:n_rare], ordered.iloc[n_rare + left_out :]])
    names = plain_all(ordered["label"])  # user text: shown, never rendered as HTML
    frequency = ordered["frequency"].to_numpy(float)
    # rows from the top: rarest first; a gap row marks the labels left out
    positions = np.arange(len(ordered), dtype=float)
    if left_out:
        positions[max_labels // 2 :] += 1.0
    tick_text = list(names) + ([f"… {left_out} labels not shown …"] if left_out else [])
    tick_vals = list(positions) + ([float(max_labels // 2)] if left_out else [])

    n_panels = len(methods) + 1
    widths = [1.3] + [1.0] * len(methods)
    fig = make_subplots(
        rows=1,
        cols=n_panels,
        shared_yaxes=True,
        column_widths=[w / sum(widths) for w in widths],
        horizontal_spacing=min(0.02, 0.2 / n_panels),
        subplot_titles=["frequency"] + plain_all(methods),
    )
    fig.add_trace(
        go.Bar(
            x=frequency,
            y=positions,
            orientation="h",
            marker_color="#9e9e9e",
            name="frequency",
            showlegend=False,
            customdata=names,
            hovertemplate="%{customdata}<br>frequency %{x:.2%}<extra></extra>",
        ),
        row=1,
        col=1,
    )
    for panel, (method, column) in enumerate(zip(methods, columns, strict=True), start=2):
        values = ordered[column].to_numpy(float)
        keep = np.isfinite(values)
        fig.add_trace(
            go.Scatter(
                x=values[keep],
                y=positions[keep],
                mode="markers",
                name=plain(method),
                showlegend=False,
                marker=dict(color=method_color(method), size=8, line=dict(width=0)),
                # the method's name too is user text (an uploaded model's): data, not template
                customdata=np.asarray([f"{plain(method)}<br>{n}" for n in names], dtype=object)[
                    keep
                ],
                hovertemplate=f"%{{customdata}}<br>{metric} %{{x:.3f}}<extra></extra>",
            ),
            row=1,
            col=panel,
        )
        fig.update_xaxes(range=[-0.05, 1.05], tickvals=[0, 0.5, 1], row=1, col=panel)
    tail_note = ""
    if tail_threshold is not None:
        in_tail = is_tail(frequency, tail_threshold)
        if in_tail.any():
            top = float(positions[in_tail].max()) + 0.5
            for panel in range(1, n_panels + 1):
                fig.add_hrect(
                    y0=-0.5,
                    y1=top,
                    fillcolor=_TAIL_FILL,
                    line_width=0,
                    layer="below",
                    row=1,
                    col=panel,
                )
            tail_note = (
                f"; shaded: the {counted(int(in_tail.sum()), 'tail label')} "
                f"(frequency < {percent_text(tail_threshold)})"
            )
        else:
            tail_note = f"; no tail label (none below {percent_text(tail_threshold)})"
        fig.add_vline(
            x=tail_threshold, line=dict(color="#d62728", dash="dot", width=1), row=1, col=1
        )
    shown = (
        f"the {max_labels // 2} rarest and {max_labels - max_labels // 2} most frequent of "
        f"{n_labels:,} labels (all in the table)"
        if left_out
        else f"all {n_labels:,} labels"
    )
    fig.update_yaxes(
        tickvals=tick_vals,
        ticktext=tick_text,
        autorange=False,
        range=[max(tick_vals) + 0.7, -0.7],
        automargin=True,
        row=1,
        col=1,
    )
    fig.update_xaxes(tickformat=".0%", nticks=3, row=1, col=1)
    fig.update_layout(
        title=dict(
            text=f"Per-label {metric} of each method, rarest label at the top<br>"
            f"<sub>{shown}{tail_note}</sub>",
        ),
        height=int(150 + 20 * len(tick_vals)),
        bargap=0.25,
        margin=dict(t=0, b=30, l=10, r=10),
        plot_bgcolor="white",
    )
    fig.update_xaxes(showgrid=True, gridcolor="#eeeeee", zeroline=False)
    # the page draws this figure across its width; the panel titles stand in a band of their
    # own under the title's lines, so the subtitle never touches them
    legible(fig, title_width=WIDE_TITLE_CHARS, legend=False)
    fig.update_layout(margin_t=title_height(fig.layout.title.text) + _PANEL_TITLE_BAND)
    return fig


def loss_reasons_figure(
    reasons: dict[str, pd.DataFrame], labels: Sequence[int] | np.ndarray | None = None
) -> go.Figure:
    """Why each method loses the chosen labels: one stacked bar of reason counts per method.

    Parameters
    ----------
    reasons : dict of str -> pandas.DataFrame
        Method -> :func:`mlviz.per_label.loss_reasons` (a ``reason`` column, one row per label
        in column order).
    labels : sequence of int, optional
        Row positions of the labels to count (the tail labels); default every label.

    Returns
    -------
    plotly.graph_objects.Figure
        One horizontal bar trace per reason of :data:`mlviz.per_label.LOSS_REASONS` that
        occurs (``x`` the counts per method, ``y`` the methods), stacked; the title gives the
        number of labels counted.

    Examples
    --------
    >>> import pandas as pd
    >>> from mlviz.figures.compare import loss_reasons_figure
    >>> reasons = {"PLST": pd.DataFrame({"reason": ["kept", "not represented", "kept"]}),
    ...            "BR": pd.DataFrame({"reason": ["kept", "not learnable", "kept"]})}
    >>> fig = loss_reasons_figure(reasons, labels=[1, 2])
    >>> [(t.name, list(t.x)) for t in fig.data]
    [('kept', [1, 1]), ('not represented', [1, 0]), ('not learnable', [0, 1])]
    """
    if not reasons:
        raise ValueError("loss_reasons_figure: no method to draw; give at least one.")
    methods = list(reasons)
    sizes = {len(table) for table in reasons.values()}
    if len(sizes) != 1:
        raise ValueError(f"loss_reasons_figure: the methods' tables differ in length {sizes}.")
    rows = np.arange(sizes.pop()) if labels is None else np.asarray(labels, dtype=int)
    counts = {
        method: table["reason"].iloc[rows].value_counts() for method, table in reasons.items()
    }
    fig = go.Figure()
    for reason in LOSS_REASONS:
        values = [int(counts[m].get(reason, 0)) for m in methods]
        if not any(values):
            continue
        fig.add_trace(
            go.Bar(
                x=values,
                y=plain_all(methods),  # an uploaded model's name is user text
                orientation="h",
                name=reason,
                marker_color=REASON_COLORS[reason],
                hovertemplate=f"%{{y}}: %{{x}} labels {reason}<extra></extra>",
            )
        )
    what = "labels" if labels is None else "tail labels"
    fig.update_layout(
        barmode="stack",
        title=dict(text=f"Why each method loses the {len(rows)} {what}"),
        xaxis=dict(title=f"{what} (of {len(rows)})", rangemode="tozero"),
        yaxis=dict(autorange="reversed", automargin=True),
        height=int(140 + 40 * len(methods)),
        plot_bgcolor="white",
        legend=dict(orientation="h", y=-0.25),
    )
    legible(fig)
    return fig
