"""The extreme classification papers' tail figure: each method's contribution to P@k (R@k,
PSP@k) from bins of labels of equal total training count (pyxclib ``utils/analysis.py``,
``decile_contribution_plot``), drawn from :func:`mlviz.metrics.frequency_bin_contributions`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from mlviz.figures._style import legible, method_color, plain
from mlviz.wording import counted

__all__ = ["frequency_bin_figure", "frequency_bin_table"]

_METRIC_NAMES = {"P": "P", "R": "R", "PSP": "PSP"}
ALL_LABELS = "all labels"


def _check_tables(tables: Mapping[str, pd.DataFrame]) -> None:
    if not tables:
        raise ValueError("tables is empty: give one frequency_bin_contributions table a method.")
    first = next(iter(tables.values()))
    for name, table in tables.items():
        missing = {"bin", "labels", "mean_train_count", "contribution"} - set(table.columns)
        if missing:
            raise ValueError(
                f"the table of {name!r} lacks {sorted(missing)}: pass the output of "
                "mlviz.metrics.frequency_bin_contributions."
            )
        if not table["labels"].equals(first["labels"]):
            raise ValueError(
                "the methods' tables have different bins: compute every table with the same "
                "Y_train and n_bins."
            )


def frequency_bin_table(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The figure's numbers as one long table (the CSV download): one row per method and bin,
    then one ``bin = "all labels"`` row per method holding the whole metric.

    Parameters
    ----------
    tables : dict of str -> DataFrame
        Method name -> :func:`mlviz.metrics.frequency_bin_contributions` (same bins).

    Returns
    -------
    pandas.DataFrame
        Columns ``method``, ``bin`` (1 = most frequent, as text so "all labels" fits),
        ``labels``, ``min_train_count``, ``max_train_count``, ``mean_train_count``,
        ``contribution``.

    Examples
    --------
    >>> import pandas as pd
    >>> from mlviz.figures.bins import frequency_bin_table
    >>> bins = pd.DataFrame({"bin": [1, 2], "labels": [1, 2], "min_train_count": [3.0, 1.0],
    ...     "max_train_count": [3.0, 2.0], "mean_train_count": [3.0, 1.5],
    ...     "contribution": [0.5, 0.25]})
    >>> frequency_bin_table({"PLST": bins})[["bin", "contribution"]].values.tolist()
    [['1', 0.5], ['2', 0.25], ['all labels', 0.75]]
    """
    _check_tables(tables)
    parts = []
    for name, table in tables.items():
        rows = table.reindex(
            columns=[
                "bin",
                "labels",
                "min_train_count",
                "max_train_count",
                "mean_train_count",
                "contribution",
            ]
        ).copy()
        rows["bin"] = rows["bin"].astype(str)
        counts = table["mean_train_count"].to_numpy()
        total = {
            "bin": ALL_LABELS,
            "labels": int(table["labels"].sum()),
            "min_train_count": float(np.nanmin(table["min_train_count"]))
            if table["min_train_count"].notna().any()
            else np.nan,
            "max_train_count": float(np.nanmax(table["max_train_count"]))
            if table["max_train_count"].notna().any()
            else np.nan,
            "mean_train_count": float(
                np.nansum(counts * table["labels"].to_numpy()) / max(int(table["labels"].sum()), 1)
            ),
            "contribution": float(table["contribution"].sum()),
        }
        rows = pd.concat([rows, pd.DataFrame([total])], ignore_index=True)
        rows.insert(0, "method", str(name))
        parts.append(rows)
    return pd.concat(parts, ignore_index=True)


def _tick(row) -> str:
    if row["labels"] == 0:
        return f"bin {int(row['bin'])}<br>no label"
    return (
        f"bin {int(row['bin'])}<br>{counted(int(row['labels']), 'label')}<br>"
        f"mean {row['mean_train_count']:.3g} train"
    )


def frequency_bin_figure(
    tables: Mapping[str, pd.DataFrame], *, metric: str = "P", k: int = 5
) -> go.Figure:
    """Grouped bars: each method's contribution to the metric from each frequency bin.

    Bins run from the tail (rarest labels, left) to the head, then an "all labels" group with
    the whole metric; methods side by side in their colours. Each bin's tick and hover say
    how many labels it holds and their mean training count.

    Parameters
    ----------
    tables : dict of str -> DataFrame
        Method name -> :func:`mlviz.metrics.frequency_bin_contributions` (same bins).
    metric : {"P", "R", "PSP"}, default="P"
        For the titles only.
    k : int, default=5
        For the titles only.

    Examples
    --------
    >>> import pandas as pd
    >>> from mlviz.figures.bins import frequency_bin_figure
    >>> bins = pd.DataFrame({"bin": [1, 2], "labels": [1, 2], "min_train_count": [3.0, 1.0],
    ...     "max_train_count": [3.0, 2.0], "mean_train_count": [3.0, 1.5],
    ...     "contribution": [0.5, 0.25]})
    >>> fig = frequency_bin_figure({"PLST": bins, "BR": bins}, metric="P", k=1)
    >>> len(fig.data), fig.data[0].y.tolist()  # tail bin first, then the head, then all labels
    (2, [0.25, 0.5, 0.75])
    """
    _check_tables(tables)
    long = frequency_bin_table(tables)
    name = f"{_METRIC_NAMES.get(metric, metric)}@{k}"
    first = next(iter(tables.values()))
    ordered = first.iloc[::-1]  # tail (last bin) first
    ticks = [_tick(row) for _, row in ordered.iterrows()] + [ALL_LABELS]
    fig = go.Figure()
    for method, table in tables.items():
        rows = long[long["method"] == str(method)]
        values = np.concatenate(
            [table["contribution"].to_numpy()[::-1], [rows["contribution"].iloc[-1]]]
        )
        hover = [
            f"{plain(method)}<br>{tick}<br>contribution {value:.4f}"
            for tick, value in zip(ticks, values, strict=True)
        ]
        fig.add_trace(
            go.Bar(
                x=ticks,
                y=values,
                name=plain(method),
                marker_color=method_color(str(method)),
                hovertext=hover,
                hoverinfo="text",
            )
        )
    n_bins = len(first)
    fig.update_layout(
        barmode="group",
        title=(
            f"Contribution to {name} by training frequency: {counted(n_bins, 'bin')} of about "
            "equal total training count, rarest labels left"
        ),
        xaxis_title="labels by training frequency (tail → head), then all labels",
        yaxis_title=f"contribution to {name}",
        margin=dict(t=60, b=10),
    )
    return legible(fig)
