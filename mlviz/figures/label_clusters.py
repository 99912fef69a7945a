"""Figures of the Label clusters page: reordered affinity, eigenvalue spectrum, cluster table.

The quantities come from the spectral label clustering of GroPLE (paper 001, section 3,
``../shared/papers/001_20309f7d22cfebb1.txt``): the heat-kernel affinity between label
columns, the spectrum of the normalised affinity ``D^{-1/2} A D^{-1/2}`` and the group of each
label. Everything enters as plain arrays (e.g. ``LabelClustering.affinity_``,
``.eigenvalues_``, ``.labels_``), so the figures do not depend on the estimator.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

__all__ = ["affinity_heatmap", "cluster_order", "cluster_table", "eigenvalue_figure"]

# Group names are written above the heatmap only while they stay legible.
_MAX_ANNOTATED_GROUPS = 30


def _check_names(label_names: Sequence[str], n_labels: int, where: str) -> list[str]:
    names = [str(name) for name in label_names]
    if len(names) != n_labels:
        raise ValueError(
            f"{where}: label_names has {len(names)} names but there are {n_labels} labels; "
            "pass one name per label column."
        )
    if len(set(names)) != len(names):
        repeated = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(
            f"{where}: label names must be unique (they label the axes); repeated: {repeated[:5]}."
        )
    return names


def _check_groups(groups, n_labels: int, where: str) -> np.ndarray:
    groups = np.asarray(groups)
    if groups.shape != (n_labels,):
        raise ValueError(
            f"{where}: groups must hold one group id per label ({n_labels}); got shape "
            f"{groups.shape}."
        )
    if not np.issubdtype(groups.dtype, np.integer):
        raise ValueError(f"{where}: group ids must be integers; got dtype {groups.dtype}.")
    return groups


def cluster_order(groups: np.ndarray, frequencies: np.ndarray | None = None) -> np.ndarray:
    """Label order that puts groups one after another (ascending group id).

    Within a group, labels are sorted by decreasing frequency when ``frequencies`` is given
    (ties keep the original column order), otherwise they keep the original column order.

    Parameters
    ----------
    groups : ndarray of int, shape (n_labels,)
    frequencies : ndarray, shape (n_labels,), optional

    Returns
    -------
    ndarray of intp, shape (n_labels,)
        Original column indices in display order.
    """
    groups = np.asarray(groups)
    if frequencies is None:
        return np.lexsort((np.arange(groups.size), groups))
    frequencies = np.asarray(frequencies, dtype=float)
    # lexsort sorts by the last key first: group, then -frequency, then original index
    return np.lexsort((np.arange(groups.size), -frequencies, groups))


def affinity_heatmap(
    affinity: np.ndarray,
    groups: np.ndarray,
    label_names: Sequence[str],
    frequencies: np.ndarray | None = None,
    *,
    title: str = "Label affinity, labels grouped by cluster",
) -> go.Figure:
    """Heatmap of the label affinity matrix with rows and columns ordered by group.

    Parameters
    ----------
    affinity : ndarray, shape (n_labels, n_labels)
        Symmetric affinity between label columns, e.g. the self-tuned heat kernel
        ``A_ij = exp(-||y_i - y_j||² / (σ_i σ_j))`` of GroPLE section 3 (zero diagonal).
    groups : ndarray of int, shape (n_labels,)
        Group id of each label (original column order).
    label_names : sequence of str, length n_labels
    frequencies : ndarray, shape (n_labels,), optional
        Share of instances carrying each label; orders labels within a group (most
        frequent first). The per-label frequencies belong in :func:`cluster_table` next to
        the figure: an (L, L) hover array would cost L² strings on large label sets.

    Returns
    -------
    plotly.graph_objects.Figure
        One heatmap trace whose ``z`` is ``affinity[order][:, order]`` with
        ``order = cluster_order(groups, frequencies)``; thin black lines (layout shapes,
        one vertical and one horizontal per boundary) separate consecutive groups.
    """
    affinity = np.asarray(affinity, dtype=float)
    if affinity.ndim != 2 or affinity.shape[0] != affinity.shape[1]:
        raise ValueError(
            f"affinity_heatmap: affinity must be a square label × label matrix; got shape "
            f"{affinity.shape}."
        )
    n_labels = affinity.shape[0]
    names = _check_names(label_names, n_labels, "affinity_heatmap")
    groups = _check_groups(groups, n_labels, "affinity_heatmap")
    if frequencies is not None:
        frequencies = np.asarray(frequencies, dtype=float)
        if frequencies.shape != (n_labels,):
            raise ValueError(
                f"affinity_heatmap: frequencies must have one value per label ({n_labels}); "
                f"got shape {frequencies.shape}."
            )
    order = cluster_order(groups, frequencies)
    ordered_names = [names[i] for i in order]
    ordered_groups = groups[order]
    hover = "row %{y}<br>column %{x}<br>affinity %{z:.3f}<extra></extra>"
    fig = go.Figure(
        go.Heatmap(
            z=affinity[np.ix_(order, order)],
            x=ordered_names,
            y=ordered_names,
            colorscale="Blues",
            colorbar=dict(title="affinity"),
            hovertemplate=hover,
        )
    )
    # positions are category indices: a boundary sits half-way between two labels
    boundaries = np.flatnonzero(np.diff(ordered_groups) != 0) + 0.5
    line = dict(color="black", width=1)
    for b in boundaries:
        fig.add_shape(type="line", x0=b, x1=b, y0=-0.5, y1=n_labels - 0.5, line=line)
        fig.add_shape(type="line", y0=b, y1=b, x0=-0.5, x1=n_labels - 0.5, line=line)
    group_ids, starts, sizes = np.unique(ordered_groups, return_index=True, return_counts=True)
    if len(group_ids) <= _MAX_ANNOTATED_GROUPS:
        for gid, start, size in zip(group_ids, starts, sizes, strict=True):
            fig.add_annotation(
                x=start + (size - 1) / 2,
                y=1.0,
                yref="paper",
                yanchor="bottom",
                text=f"group {gid}",
                showarrow=False,
                font=dict(size=10),
            )
    n_groups = len(group_ids)
    fig.update_layout(
        title=dict(text=f"{title} ({n_groups} group{'s' if n_groups != 1 else ''})", y=0.98),
        xaxis=dict(title="label (grouped by cluster)", type="category", tickangle=-60),
        yaxis=dict(title="label (grouped by cluster)", type="category", autorange="reversed"),
        margin=dict(t=80, b=10),
    )
    return fig


def eigenvalue_figure(
    eigenvalues: np.ndarray,
    suggested_k: int | None = None,
    *,
    max_shown: int | None = None,
) -> go.Figure:
    """Spectrum of the normalised affinity with the eigengap's suggested number of groups.

    Parameters
    ----------
    eigenvalues : ndarray, shape (n_labels,)
        Eigenvalues of ``D^{-1/2} A D^{-1/2}`` in any order; drawn sorted descending against
        the 1-based index k (trace 0: x = 1..n, y = sorted values).
    suggested_k : int, optional
        K with the largest gap ``λ_K − λ_{K+1}`` (e.g. ``LabelClustering.suggest_n_groups``).
        When given, the pair (λ_K, λ_{K+1}) is drawn as a red segment (trace 1) and a
        dotted vertical line sits at K + 0.5.
    max_shown : int, optional
        Show only the first ``max_shown`` eigenvalues (the tail of a large spectrum is flat).

    Returns
    -------
    plotly.graph_objects.Figure
    """
    values = np.sort(np.asarray(eigenvalues, dtype=float).ravel())[::-1]
    if values.size == 0:
        raise ValueError("eigenvalue_figure: no eigenvalues given.")
    if max_shown is not None:
        values = values[: max(int(max_shown), 1)]
    index = np.arange(1, values.size + 1)
    fig = go.Figure(
        go.Scatter(
            x=index,
            y=values,
            mode="lines+markers",
            name="eigenvalue λ_k",
            hovertemplate="k = %{x}<br>λ_k = %{y:.4f}<extra></extra>",
        )
    )
    title = "Spectrum of the normalised label affinity"
    if suggested_k is not None:
        k = int(suggested_k)
        if not 1 <= k < values.size:
            raise ValueError(
                f"eigenvalue_figure: suggested_k={suggested_k} must lie in 1..{values.size - 1} "
                "(the gap λ_K − λ_{K+1} needs both eigenvalues shown)."
            )
        gap = values[k - 1] - values[k]
        fig.add_trace(
            go.Scatter(
                x=[k, k + 1],
                y=[values[k - 1], values[k]],
                mode="lines+markers",
                name=f"largest gap λ_{k} − λ_{k + 1} = {gap:.3f}",
                line=dict(color="#d62728", width=3),
                marker=dict(size=9, color="#d62728"),
                hoverinfo="skip",
            )
        )
        fig.add_vline(
            x=k + 0.5,
            line_dash="dot",
            line_color="#d62728",
            annotation_text=f"suggested K = {k}",
            annotation_position="top right",
        )
        title += f": the eigengap suggests K = {k} group{'s' if k != 1 else ''}"
    fig.update_layout(
        title=title,
        xaxis_title="k (eigenvalues sorted from largest)",
        yaxis_title="eigenvalue λ_k",
        legend=dict(orientation="h", y=-0.2),
        margin=dict(t=50, b=10),
    )
    return fig


def cluster_table(
    groups: np.ndarray,
    label_names: Sequence[str],
    frequencies: np.ndarray,
    tail_threshold: float,
) -> pd.DataFrame:
    """One row per label: its group, frequency and whether it is a tail label.

    Parameters
    ----------
    groups : ndarray of int, shape (n_labels,)
    label_names : sequence of str, length n_labels
    frequencies : ndarray, shape (n_labels,)
        Share of instances carrying each label.
    tail_threshold : float
        A label is a tail label when its frequency is strictly below this (as on the Data
        page).

    Returns
    -------
    pandas.DataFrame
        Columns ``group, label, frequency, is_tail``, sorted by group (ascending), then
        frequency (descending), ties in original column order; the index is the label's
        original column index.
    """
    frequencies = np.asarray(frequencies, dtype=float)
    if frequencies.ndim != 1:
        raise ValueError(f"cluster_table: frequencies must be 1-D; got shape {frequencies.shape}.")
    n_labels = frequencies.shape[0]
    names = _check_names(label_names, n_labels, "cluster_table")
    groups = _check_groups(groups, n_labels, "cluster_table")
    order = cluster_order(groups, frequencies)
    table = pd.DataFrame(
        {
            "group": groups[order],
            "label": [names[i] for i in order],
            "frequency": frequencies[order],
            "is_tail": frequencies[order] < tail_threshold,
        },
        index=pd.Index(order, name="column"),
    )
    return table
