"""Figures of the evaluation view: the critical-difference (CD) diagram of Demšar (2006).

The GroPLE paper (``../shared/papers/001_20309f7d22cfebb1.txt``, Figure 4) draws one per
metric: average ranks on an axis (best to the left), the Nemenyi critical difference as a
scale bar, and thick bars joining the methods that are not significantly different.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import plotly.graph_objects as go

from mlviz.evaluation import nemenyi_groups
from mlviz.figures._style import legible, method_color

__all__ = ["cd_diagram"]

_LINE = "#444"
_GROUP = "#d62728"


def cd_diagram(
    average_ranks: Mapping[str, float],
    critical_difference: float,
    *,
    title: str | None = None,
) -> go.Figure:
    """Critical-difference diagram from average ranks and the Nemenyi CD.

    Parameters
    ----------
    average_ranks : mapping or pandas.Series, method name -> average rank (1 = best)
        e.g. ``friedman_nemenyi(...).average_ranks``.
    critical_difference : float
        Nemenyi CD, e.g. ``friedman_nemenyi(...).critical_difference``.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Axis from 1 to k at the top, lower (better) ranks to the left. The better half of
        the methods is labelled on the left, the rest on the right, each label reading
        "name (rank)" in the method's fixed colour. Groups of methods whose ranks differ by
        less than the CD are joined by thick bars (traces named "not significantly different").

    Examples
    --------
    >>> from mlviz.figures.evaluation import cd_diagram
    >>> fig = cd_diagram({"PLST": 1.4, "CLEMS": 2.1, "ML-KNN": 2.5}, critical_difference=1.05)
    >>> sorted(annotation.text for annotation in fig.layout.annotations)
    ['1', '2', '3', 'CD = 1.050', 'CLEMS (2.10)', 'ML-KNN (2.50)', 'PLST (1.40)']
    """
    ranks = dict(
        sorted(((str(k), float(v)) for k, v in dict(average_ranks).items()), key=lambda kv: kv[1])
    )
    n_methods = len(ranks)
    if n_methods < 2:
        raise ValueError(f"a CD diagram needs at least 2 methods; got {n_methods}.")
    if not math.isfinite(critical_difference) or critical_difference <= 0:
        raise ValueError(
            f"critical_difference must be a positive number; got {critical_difference}."
        )

    low, high = 1.0, float(max(n_methods, math.ceil(max(ranks.values()))))
    names = list(ranks)
    n_left = math.ceil(n_methods / 2)
    row_step = 1.0
    fig = go.Figure()
    annotations = []

    def line(xs, ys, *, width=1.0, color=_LINE, name=None, hover=None):
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line={"color": color, "width": width},
                name=name,
                hoverinfo="text" if hover else "skip",
                text=hover,
                showlegend=False,
            )
        )

    # the rank axis
    line([low, high], [0, 0], width=1.5)
    for tick in range(int(low), int(high) + 1):
        line([tick, tick], [0, 0.15])
        annotations.append(
            {"x": tick, "y": 0.25, "text": str(tick), "showarrow": False, "yanchor": "bottom"}
        )

    # the CD scale bar above the axis, starting at rank 1
    line([low, low + critical_difference], [1.0, 1.0], width=2)
    for end in (low, low + critical_difference):
        line([end, end], [0.9, 1.1], width=2)
    annotations.append(
        {
            "x": low + critical_difference / 2,
            "y": 1.15,
            "text": f"CD = {critical_difference:.3f}",
            "showarrow": False,
            "yanchor": "bottom",
        }
    )

    # one elbow per method: down from its rank, then out to the side where its label sits
    for i, name in enumerate(names):
        rank = ranks[name]
        on_left = i < n_left
        depth = -(i + 1 if on_left else n_methods - i) * row_step - 0.5
        edge = low - 0.35 if on_left else high + 0.35
        colour = method_color(name)
        line([rank, rank, edge], [0, depth, depth], color=colour, hover=f"{name}: {rank:.3f}")
        annotations.append(
            {
                "x": edge,
                "y": depth,
                "text": f"{name} ({rank:.2f})",
                "font": {"color": colour},
                "showarrow": False,
                "xanchor": "right" if on_left else "left",
            }
        )

    # thick bars: groups not significantly different, stacked just below the axis
    for g, group in enumerate(nemenyi_groups(ranks, critical_difference)):
        y = -0.25 - 0.22 * g
        line(
            [ranks[group[0]] - 0.03, ranks[group[-1]] + 0.03],
            [y, y],
            width=5,
            color=_GROUP,
            name="not significantly different",
            hover=", ".join(group),
        )

    bottom = -(max(n_left, n_methods - n_left) + 1) * row_step
    fig.update_layout(
        title=title,
        annotations=annotations,
        xaxis={"visible": False, "range": [low - 2.6, high + 2.6]},
        yaxis={"visible": False, "range": [bottom, 1.8]},
        plot_bgcolor="white",
        height=int(160 + 32 * max(n_left, n_methods - n_left)),
        margin={"l": 20, "r": 20, "t": 50 if title else 20, "b": 10},
    )
    return legible(fig, legend=False)
