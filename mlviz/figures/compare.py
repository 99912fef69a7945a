"""Figures of the Compare page: metric bars, a metric against a parameter, per-label F1.

The inputs are the tidy tables of :mod:`mlviz.evaluation`: ``aggregate`` gives one row per
(method, metric) with ``mean`` and ``sd``; the same with a parameter column gives the GroPLE
paper's Figure 5 style curve (``../shared/papers/001_20309f7d22cfebb1.txt``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from mlviz.metrics import METRICS

__all__ = ["metric_bars", "metric_title", "metric_vs_param_figure", "per_label_f1_figure"]

_PALETTE = qualitative.D3  # plotly's copy of the d3 category10 colours


def metric_title(metric: str) -> str:
    """Display name with its direction, e.g. "Hamming loss ↓"; unknown metrics as given."""
    info = METRICS.get(metric)
    return f"{info.label} {info.arrow}" if info is not None else metric


def _colours(methods: Sequence[str]) -> dict[str, str]:
    return {m: _PALETTE[i % len(_PALETTE)] for i, m in enumerate(methods)}


def _require(df: pd.DataFrame, columns: Sequence[str], where: str, hint: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{where}: the table lacks column(s) {missing}; {hint}")


def metric_bars(summary_df: pd.DataFrame, *, n_cols: int = 3) -> go.Figure:
    """One panel per metric, one bar per method, error bars ± sd.

    Metrics have different scales and directions, so each gets its own panel (titled with
    ↑ for higher-is-better, ↓ for lower-is-better).

    Parameters
    ----------
    summary_df : pandas.DataFrame
        Tidy summary with columns ``method, metric, mean, sd`` (``mlviz.evaluation.aggregate``
        output); a missing or NaN sd (a single fold) draws no error bar.
    n_cols : int, default=3
        Panels per row.

    Returns
    -------
    plotly.graph_objects.Figure
        Panels in order of first appearance of each metric; within a panel, one bar trace
        per method (legend shown once), ``y`` the means and ``error_y.array`` the sds.
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
    colours = _colours(methods)
    n_cols = max(1, min(int(n_cols), len(metrics)))
    n_rows = math.ceil(len(metrics) / n_cols)
    fig = make_subplots(
        rows=n_rows,
        cols=n_cols,
        subplot_titles=[metric_title(m) for m in metrics],
        vertical_spacing=0.5 / n_rows if n_rows > 1 else 0.1,
    )
    for position, metric in enumerate(metrics):
        row, col = divmod(position, n_cols)
        part = summary_df[summary_df["metric"] == metric]
        for method in methods:
            rows = part[part["method"] == method]
            if rows.empty:
                continue
            if len(rows) > 1:
                raise ValueError(
                    f"metric_bars: {len(rows)} rows for method {method!r} and metric "
                    f"{metric!r}; give one summary row per pair."
                )
            mean = float(rows["mean"].iloc[0])
            sd = float(rows["sd"].iloc[0]) if "sd" in rows.columns else float("nan")
            fig.add_trace(
                go.Bar(
                    x=[str(method)],
                    y=[mean],
                    name=str(method),
                    legendgroup=str(method),
                    showlegend=position == 0,
                    marker_color=colours[method],
                    error_y=dict(
                        type="data",
                        array=[sd if np.isfinite(sd) else 0.0],
                        visible=bool(np.isfinite(sd)),
                    ),
                    hovertemplate=f"{method}<br>{metric_title(metric)}: %{{y:.4f}}"
                    + (f" ± {sd:.4f}" if np.isfinite(sd) else "")
                    + "<extra></extra>",
                ),
                row=row + 1,
                col=col + 1,
            )
    fig.update_xaxes(showticklabels=False)
    fig.update_layout(
        title="Metrics per method (mean ± sd over folds; ↑ higher is better, ↓ lower is better)",
        height=max(300, 260 * n_rows),
        legend=dict(orientation="h", y=-0.08),
        margin=dict(t=80, b=10),
    )
    return fig


def metric_vs_param_figure(df: pd.DataFrame, param: str, metric: str) -> go.Figure:
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

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per method: ``x`` the parameter values (sorted), ``y`` the means,
        ``error_y.array`` the sds.
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
        part = (
            part.groupby(["method", param], sort=False)["value"]
            .agg(mean="mean", sd=lambda v: v.std(ddof=1))
            .reset_index()
        )
    methods = list(dict.fromkeys(part["method"]))
    colours = _colours(methods)
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
                line=dict(color=colours[method]),
                error_y=dict(
                    type="data", array=np.nan_to_num(sd), visible=bool(np.isfinite(sd).any())
                ),
                customdata=sd,
                hovertemplate=f"{method}<br>{param} = %{{x}}<br>"
                "mean %{y:.4f} ± %{customdata:.4f}<extra></extra>",
            )
        )
    fig.update_layout(
        title=f"{metric_title(metric)} against {param} (mean ± sd over folds)",
        xaxis_title=param,
        yaxis_title=metric_title(metric),
        legend=dict(orientation="h", y=-0.2),
        margin=dict(t=50, b=10),
    )
    return fig


def per_label_f1_figure(
    frequencies: np.ndarray,
    f1_by_method: Mapping[str, np.ndarray],
    label_names: Sequence[str],
    *,
    tail_threshold: float | None = None,
) -> go.Figure:
    """Per-label F1 against label frequency (log x), one colour per method: tail diagnosis.

    Parameters
    ----------
    frequencies : ndarray, shape (n_labels,)
        Share of training instances carrying each label. Labels with frequency 0 cannot sit
        on a log axis; they are left out and counted in the title.
    f1_by_method : mapping of method name to ndarray, shape (n_labels,)
        F1 of each label on the test data (e.g. ``mlviz.metrics.per_label_f1``); NaN entries
        (F1 undefined) are left out.
    label_names : sequence of str, length n_labels
    tail_threshold : float, optional
        Draws a dotted vertical line at this frequency (the Data page's tail threshold).

    Returns
    -------
    plotly.graph_objects.Figure
        One marker trace per method, ``x`` = frequencies and ``y`` = F1 of the plotted
        labels (in label order), ``text`` = their names; then the threshold line, if any.
    """
    frequencies = np.asarray(frequencies, dtype=float).ravel()
    names = np.asarray([str(n) for n in label_names], dtype=object)
    n_labels = frequencies.size
    if names.size != n_labels:
        raise ValueError(
            f"per_label_f1_figure: {names.size} label names for {n_labels} frequencies."
        )
    if not f1_by_method:
        raise ValueError("per_label_f1_figure: f1_by_method is empty; give at least one method.")
    colours = _colours(list(f1_by_method))
    on_axis = frequencies > 0
    fig = go.Figure()
    for method, f1 in f1_by_method.items():
        f1 = np.asarray(f1, dtype=float).ravel()
        if f1.size != n_labels:
            raise ValueError(
                f"per_label_f1_figure: {method!r} has {f1.size} F1 values for {n_labels} labels."
            )
        keep = on_axis & np.isfinite(f1)
        fig.add_trace(
            go.Scatter(
                x=frequencies[keep],
                y=f1[keep],
                mode="markers",
                name=str(method),
                text=names[keep],
                marker=dict(color=colours[method], size=8, opacity=0.7),
                hovertemplate=f"{method}<br>%{{text}}<br>frequency %{{x:.3%}}<br>F1 %{{y:.3f}}"
                "<extra></extra>",
            )
        )
    if tail_threshold is not None and tail_threshold > 0:
        # a trace, not add_vline: shapes on a log axis are placed in log10 units
        fig.add_trace(
            go.Scatter(
                x=[tail_threshold, tail_threshold],
                y=[0, 1],
                mode="lines",
                name=f"tail threshold {100 * tail_threshold:g}%",
                line=dict(color="#7f7f7f", dash="dot"),
                hoverinfo="skip",
            )
        )
    dropped = int((~on_axis).sum())
    note = f" ({dropped} labels absent from training not shown)" if dropped else ""
    fig.update_layout(
        title=f"Per-label F1 against label frequency: do rare labels fail?{note}",
        xaxis=dict(
            title="label frequency in training data (log scale)", type="log", tickformat=".2~%"
        ),
        yaxis=dict(title="F1 of the label on test data", range=[-0.03, 1.03]),
        legend=dict(orientation="h", y=-0.2),
        margin=dict(t=50, b=10),
    )
    return fig
