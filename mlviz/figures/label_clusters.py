"""Figures of the Label clusters page: reordered affinity, spectrum, K sweep, group tables.

The quantities come from the spectral label clustering of GroPLE (paper 001, section 3,
``../shared/papers/001_20309f7d22cfebb1.txt``) with any of :class:`mlviz.LabelClustering`'s
affinities: the affinity between label columns, the spectrum of the normalised affinity
``D^{-1/2} A D^{-1/2}``, the group of each label, and the evidence of
:func:`mlviz.label_clustering.group_diagnostics` and
:func:`mlviz.label_clustering.clustering_stability`. Everything enters as plain arrays or
data frames, so the figures do not depend on the estimator.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mlviz.figures._style import GROUP_COLORS, TITLE_CHARS, add_layout_items, legible, plain_all
from mlviz.stats import is_tail

__all__ = [
    "MAX_NAMED_LABELS",
    "affinity_heatmap",
    "cluster_order",
    "cluster_table",
    "coassignment_figure",
    "drill_down_members",
    "eigenvalue_figure",
    "group_affinity",
    "group_affinity_heatmap",
    "group_colour",
    "group_table",
    "never_cooccurring_groups",
    "stability_figure",
]

#: Up to this many labels the label-level heatmap names every row and column; above it the
#: page shows the group-level summary and a drill-down into one group. 45 keeps medical's
#: labels on one named heatmap; upright at font 9 they stay apart on a 1280 px page, while a
#: 60-label drill-down overlapped (tests/test_browser_labels.py).
MAX_NAMED_LABELS = 45
# Group names are written above the heatmap only while they stay legible.
_MAX_ANNOTATED_GROUPS = 30


def group_colour(group: int) -> str:
    """Categorical colour of a group id (the same on every figure and table of the page).

    Examples
    --------
    >>> from mlviz.figures.label_clusters import group_colour
    >>> group_colour(0) == group_colour(0), group_colour(0) != group_colour(1)
    (True, True)
    """
    return GROUP_COLORS[int(group) % len(GROUP_COLORS)]


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

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.label_clusters import cluster_order
    >>> cluster_order(np.array([1, 0, 1, 0]), frequencies=np.array([0.1, 0.2, 0.3, 0.4])).tolist()
    [3, 1, 2, 0]
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
    *,
    frequencies: np.ndarray | None = None,
    title: str = "Label affinity, labels grouped by cluster",
    max_labels: int = MAX_NAMED_LABELS,
) -> go.Figure:
    """Heatmap of the label affinity matrix with rows and columns ordered by group.

    Parameters
    ----------
    affinity : ndarray, shape (n_labels, n_labels)
        Symmetric affinity between label columns (``LabelClustering.affinity_``, zero
        diagonal).
    groups : ndarray of int, shape (n_labels,)
        Group id of each label (original column order).
    label_names : sequence of str, length n_labels
    frequencies : ndarray, shape (n_labels,), optional
        Share of instances carrying each label; orders labels within a group (most
        frequent first).
    title : str
    max_labels : int, default=MAX_NAMED_LABELS
        Largest number of labels drawn with a name on every row and column; more raise a
        ValueError (use :func:`group_affinity_heatmap`, or pass the labels of one group).

    Returns
    -------
    plotly.graph_objects.Figure
        One heatmap trace whose ``z`` is ``affinity[order][:, order]`` with
        ``order = cluster_order(groups, frequencies)``; every row and column is named, and
        the names are coloured by group (:func:`group_colour`). Each group's diagonal block
        is outlined in its colour (one rectangle shape per group) and thin black lines
        (one vertical and one horizontal per boundary) separate consecutive groups.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.label_clustering import label_affinity
    >>> from mlviz.figures.label_clusters import affinity_heatmap
    >>> fig = affinity_heatmap(label_affinity(Y), groups, ds.label_names)
    >>> len(fig.data[0].z), len(fig.data[0].x)
    (22, 22)
    """
    affinity = np.asarray(affinity, dtype=float)
    if affinity.ndim != 2 or affinity.shape[0] != affinity.shape[1]:
        raise ValueError(
            f"affinity_heatmap: affinity must be a square label × label matrix; got shape "
            f"{affinity.shape}."
        )
    n_labels = affinity.shape[0]
    # user text: shown, never rendered as HTML (checked for repeats as given)
    names = plain_all(_check_names(label_names, n_labels, "affinity_heatmap"))
    groups = _check_groups(groups, n_labels, "affinity_heatmap")
    if n_labels > max_labels:
        raise ValueError(
            f"affinity_heatmap: {n_labels} labels cannot all be named legibly (at most "
            f"{max_labels}); draw group_affinity_heatmap, or one group's labels."
        )
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
    coloured = [
        f'<span style="color:{group_colour(g)}">{name}</span>'
        for name, g in zip(ordered_names, ordered_groups, strict=True)
    ]
    customdata = np.broadcast_to(ordered_groups[:, None], (n_labels, n_labels))
    hover = "row %{y} (group %{customdata})<br>column %{x}<br>affinity %{z:.3f}<extra></extra>"
    fig = go.Figure(
        go.Heatmap(
            z=affinity[np.ix_(order, order)],
            x=ordered_names,
            y=ordered_names,
            customdata=customdata,
            colorscale="Blues",
            colorbar=dict(title="affinity", thickness=12),
            hovertemplate=hover,
        )
    )
    # positions are category indices: a boundary sits half-way between two labels
    boundaries = np.flatnonzero(np.diff(ordered_groups) != 0) + 0.5
    line = dict(color="black", width=1)
    shapes = []
    for b in boundaries:
        shapes.append(dict(type="line", x0=b, x1=b, y0=-0.5, y1=n_labels - 0.5, line=line))
        shapes.append(dict(type="line", y0=b, y1=b, x0=-0.5, x1=n_labels - 0.5, line=line))
    group_ids, starts, sizes = np.unique(ordered_groups, return_index=True, return_counts=True)
    for gid, start, size in zip(group_ids, starts, sizes, strict=True):
        shapes.append(
            dict(
                type="rect",
                x0=start - 0.5,
                x1=start + size - 0.5,
                y0=start - 0.5,
                y1=start + size - 0.5,
                line=dict(color=group_colour(gid), width=3),
            )
        )
    annotations = []
    if len(group_ids) <= _MAX_ANNOTATED_GROUPS:
        for gid, start, size in zip(group_ids, starts, sizes, strict=True):
            annotations.append(
                dict(
                    x=start + (size - 1) / 2,
                    y=1.0,
                    yref="paper",
                    yanchor="bottom",
                    text=f"{gid}",
                    showarrow=False,
                    font=dict(size=11, color=group_colour(gid)),
                )
            )
    add_layout_items(fig, shapes=shapes, annotations=annotations)  # add_shape: O(n²)
    n_groups = len(group_ids)
    tick_size = 11 if n_labels <= 30 else 9
    axis = dict(
        type="category",
        tickmode="array",
        tickvals=ordered_names,
        ticktext=coloured,
        tickfont=dict(size=tick_size),
    )
    fig.update_layout(
        title=dict(
            text=f"{title} ({n_labels:,} labels, {n_groups} group{'s' if n_groups != 1 else ''})",
            y=0.98,
        ),
        # upright names beyond 30 labels: slanted ones overlap their neighbours' at this spacing
        xaxis=dict(
            title="label (grouped; group id above)",
            tickangle=-60 if n_labels <= 30 else -90,
            **axis,
        ),
        yaxis=dict(title=None, autorange="reversed", **axis),
        margin=dict(t=80, b=10, l=10, r=10),
    )
    fig = legible(fig, legend=False)
    # Rows get 1.6 font heights each, whatever the title and the column names take: with a
    # fixed 260 px for both, a 19-label drill-down under a two-line title left 11 px a row and
    # every row name ran into the next at 1280 px (tests/test_browser_labels.py). Column names
    # take their length (~0.62 em a character) times the sine of their angle, plus the title.
    angle = 60 if n_labels <= 30 else 90
    longest = max(len(n) for n in ordered_names)
    column_names = 0.62 * tick_size * longest * math.sin(math.radians(angle)) + 60
    rows = 1.6 * tick_size * n_labels
    fig.update_layout(height=max(420, math.ceil(fig.layout.margin.t + column_names + rows)))
    return fig


def drill_down_members(
    groups: np.ndarray,
    group: int,
    frequencies: np.ndarray,
    *,
    max_labels: int = MAX_NAMED_LABELS,
) -> tuple[np.ndarray, str]:
    """The labels a per-group drill-down names: all of ``group``'s, or its most frequent.

    Parameters
    ----------
    groups : ndarray of int, shape (n_labels,)
    group : int
        The group drilled into.
    frequencies : ndarray, shape (n_labels,)
        Picks the ``max_labels`` most frequent labels of a larger group (ties: lower index).
    max_labels : int, default=MAX_NAMED_LABELS

    Returns
    -------
    members : ndarray of int
        Label indices, ascending.
    note : str
        What the drill-down shows, for its title: "all 12 labels" or "the 60 most frequent
        of its 140 labels".

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.label_clusters import drill_down_members
    >>> groups, frequencies = np.array([0, 1, 1, 1]), np.array([0.5, 0.1, 0.3, 0.2])
    >>> members, note = drill_down_members(groups, group=1, frequencies=frequencies, max_labels=2)
    >>> members.tolist(), note
    ([2, 3], 'the 2 most frequent of its 3 labels')
    """
    groups = np.asarray(groups)
    members = np.flatnonzero(groups == group)
    if members.size == 0:
        raise ValueError(f"drill_down_members: no label is in group {group}.")
    if members.size <= max_labels:
        return members, f"all {members.size} label{'s' if members.size != 1 else ''}"
    frequencies = np.asarray(frequencies, dtype=float)
    kept = members[np.argsort(-frequencies[members], kind="stable")[:max_labels]]
    return np.sort(kept), f"the {max_labels} most frequent of its {members.size} labels"


def group_affinity(affinity: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Mean affinity between (and within) groups, shape (n_groups, n_groups).

    Entry (a, b) is the mean of ``affinity[i, j]`` over labels i in group a and j in group
    b, excluding i = j (the zero diagonal), so a single-label group has NaN on its own
    diagonal entry.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.label_clusters import group_affinity
    >>> A = np.array([[0.0, 1.0, 0.2], [1.0, 0.0, 0.4], [0.2, 0.4, 0.0]])
    >>> group_affinity(A, np.array([0, 0, 1])).round(3).tolist()
    [[1.0, 0.3], [0.3, nan]]
    """
    affinity = np.asarray(affinity, dtype=float)
    groups = np.asarray(groups)
    n_groups = int(groups.max()) + 1
    indicator = np.zeros((groups.size, n_groups))
    indicator[np.arange(groups.size), groups] = 1.0
    sums = indicator.T @ (affinity - np.diag(np.diag(affinity))) @ indicator
    sizes = indicator.sum(axis=0)
    pairs = np.outer(sizes, sizes) - np.diag(sizes)
    return np.divide(sums, pairs, out=np.full_like(sums, np.nan), where=pairs > 0)


def group_affinity_heatmap(
    affinity: np.ndarray,
    groups: np.ndarray,
    *,
    title: str = "Mean affinity between label groups",
) -> go.Figure:
    """Group-level summary of a large affinity matrix: one cell per pair of groups.

    Parameters
    ----------
    affinity : ndarray, shape (n_labels, n_labels)
    groups : ndarray of int, shape (n_labels,)
        Group ids 0..G-1.

    Returns
    -------
    plotly.graph_objects.Figure
        A heatmap with ``z = group_affinity(affinity, groups)``; axes name each group with
        its size ("group 3 (12)"), coloured by :func:`group_colour`.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.label_clustering import label_affinity
    >>> from mlviz.figures.label_clusters import group_affinity_heatmap
    >>> fig = group_affinity_heatmap(label_affinity(Y), groups)
    >>> list(fig.data[0].x)
    ['group 0 (6)', 'group 1 (6)', 'group 2 (5)', 'group 3 (5)']
    """
    affinity = np.asarray(affinity, dtype=float)
    if affinity.ndim != 2 or affinity.shape[0] != affinity.shape[1]:
        raise ValueError(
            f"group_affinity_heatmap: affinity must be square; got shape {affinity.shape}."
        )
    groups = _check_groups(groups, affinity.shape[0], "group_affinity_heatmap")
    z = group_affinity(affinity, groups)
    sizes = np.bincount(groups, minlength=z.shape[0])
    names = [f"group {g} ({sizes[g]})" for g in range(z.shape[0])]
    coloured = [f'<span style="color:{group_colour(g)}">{n}</span>' for g, n in enumerate(names)]
    axis = dict(type="category", tickmode="array", tickvals=names, ticktext=coloured)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=names,
            y=names,
            colorscale="Blues",
            colorbar=dict(title="mean<br>affinity", thickness=12),
            hovertemplate="%{y} × %{x}<br>mean affinity %{z:.3f}<extra></extra>",
        )
    )
    fig.update_layout(
        title=dict(
            text=f"{title} ({affinity.shape[0]} labels in {z.shape[0]} groups; size in brackets)",
            y=0.98,
        ),
        xaxis=dict(title="group (number of labels)", tickangle=-60, **axis),
        yaxis=dict(title=None, autorange="reversed", **axis),
        margin=dict(t=60, b=10, l=10, r=10),
        height=max(420, 260 + 18 * z.shape[0]),
    )
    return legible(fig, legend=False)


def eigenvalue_figure(
    eigenvalues: np.ndarray,
    suggested_k: int | None = None,
    *,
    chosen_k: int | None = None,
    max_shown: int | None = None,
    n_labels: int | None = None,
    title_width: int = TITLE_CHARS,
) -> go.Figure:
    """Spectrum of the normalised affinity with the eigengap's suggestion and the chosen K.

    Parameters
    ----------
    eigenvalues : ndarray
        Eigenvalues of ``D^{-1/2} A D^{-1/2}`` in any order (all of them, or the leading
        ones); drawn sorted descending against the 1-based index k (trace 0).
    suggested_k : int, optional
        K with the largest gap ``λ_K − λ_{K+1}`` (e.g. ``LabelClustering.suggest_n_groups``).
        When given, the pair (λ_K, λ_{K+1}) is drawn as a red segment (trace 1) and a
        dotted red vertical line sits at K + 0.5. Must lie in 1..(values shown − 1).
    chosen_k : int, optional
        The K in use, marked by a solid grey vertical line at K + 0.5 (must lie in
        1..values shown).
    max_shown : int, optional
        Show only the first ``max_shown`` eigenvalues (the tail of a large spectrum is flat).
    n_labels : int, optional
        Size of the full spectrum; when more than the values shown, the title says how many
        are shown.
    title_width : int, default=TITLE_CHARS
        Characters per title line (:func:`mlviz.figures._style.wrap_title`): the default fits
        a half-width column; a page drawing the figure across its full width passes
        ``WIDE_TITLE_CHARS``, so the title does not wrap as if in a narrow column.

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.label_clusters import eigenvalue_figure
    >>> eigenvalues = np.array([1.0, 0.98, 0.95, 0.4, 0.35, 0.3])  # the gap after 3
    >>> fig = eigenvalue_figure(eigenvalues, suggested_k=3, chosen_k=3)
    >>> len(fig.data[0].y)
    6
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
            line=dict(color="#1f77b4"),
            hovertemplate="k = %{x}<br>λ_k = %{y:.4f}<extra></extra>",
        )
    )
    total = values.size if n_labels is None else int(n_labels)
    title = "Spectrum of the normalised affinity"
    notes = [f"largest {values.size} of {total} shown"] if total > values.size else []
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
            annotation_font_color="#d62728",
        )
        notes.append(f"the eigengap suggests K = {k} group{'s' if k != 1 else ''}")
    if chosen_k is not None:
        k = int(chosen_k)
        if not 1 <= k <= values.size:
            raise ValueError(
                f"eigenvalue_figure: chosen_k={chosen_k} must lie in 1..{values.size} (the "
                "eigenvalues shown)."
            )
        # the note on the side away from the suggestion's line, which it would cross one K
        # away (seen on a 983-label set); to the left near the right edge of the axis
        right = (suggested_k is None or k >= int(suggested_k)) and k + 4 <= values.size
        fig.add_vline(
            x=k + 0.5,
            line_color="#555555",
            line_width=2,
            annotation_text=f"chosen K = {k}",
            annotation_position="bottom right" if right else "bottom left",
        )
    if notes:
        title += "<br><sub>" + "; ".join(notes) + "</sub>"
    fig.update_layout(
        title=dict(text=title, y=0.97),
        xaxis_title="k (largest first)",
        yaxis_title="eigenvalue λ_k",
        # the legend under the axis title: the page draws this figure in a narrow column,
        # where a legend at the right squeezes the plot and meets the line annotations
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0),
        margin=dict(t=50, b=100, l=10, r=10),
        height=460,
    )
    return legible(fig, title_width=title_width, legend=False)


def stability_figure(
    sweep: pd.DataFrame, *, chosen_k: int | None = None, suggested_k: int | None = None
) -> go.Figure:
    """K sweep: stability of the partition and within-group co-occurrence, against K.

    Parameters
    ----------
    sweep : pandas.DataFrame
        The output of :func:`mlviz.label_clustering.clustering_stability`: columns
        ``n_groups``, ``stability``, ``stability_std``, ``cooccurrence_rate``,
        ``n_never_cooccurring``.
    chosen_k : int, optional
        Marked by a grey vertical line on both panels.
    suggested_k : int, optional
        The K of :func:`mlviz.label_clustering.stable_n_groups`, marked by a star on the
        adjusted curve (last trace).

    Returns
    -------
    plotly.graph_objects.Figure
        Two panels sharing the K axis. Top: mean ARI between bootstrap and full-data
        partitions (trace 0) with ± one standard deviation as error bars. Bottom: share of
        within-group label pairs that co-occur (trace 1); Ks with groups whose labels never
        co-occur are drawn as red crosses (trace 2) with their number in the hover. When the
        sweep has a null (``null_stability`` not NaN), the top panel also draws the null's
        stability (trace 3, dashed grey) and the adjusted stability, data minus null
        (trace 4), and a star at ``suggested_k`` (trace 5).

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> import numpy as np
    >>> from mlviz.label_clustering import clustering_stability
    >>> from mlviz.figures.label_clusters import stability_figure
    >>> sweep = clustering_stability(Y, n_groups=[2, 4], n_resamples=3, random_state=0)
    >>> fig = stability_figure(sweep, chosen_k=4)
    >>> np.asarray(fig.data[0].x).tolist()
    [2, 4]
    """
    needed = {"n_groups", "stability", "stability_std", "cooccurrence_rate", "n_never_cooccurring"}
    missing = needed - set(sweep.columns)
    if missing:
        raise ValueError(
            f"stability_figure: the sweep lacks columns {sorted(missing)}; pass the result of "
            "clustering_stability."
        )
    if sweep.empty:
        raise ValueError("stability_figure: the sweep has no K.")
    ks = sweep["n_groups"].to_numpy()
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        # room between the panels for the lower one's title, clear of the upper's "0" tick
        # and lifted off the lower's "1" tick (at 0.08 the three touched)
        vertical_spacing=0.14,
        subplot_titles=(
            "stability (mean bootstrap ARI): data, null, adjusted",
            "share of within-group label pairs that co-occur",
        ),
    )
    fig.update_annotations(yshift=8)
    fig.add_trace(
        go.Scatter(
            x=ks,
            y=sweep["stability"],
            error_y=dict(type="data", array=sweep["stability_std"], thickness=1),
            mode="lines+markers",
            name="stability",
            hovertemplate="K = %{x}<br>mean ARI %{y:.3f}<extra></extra>",
        ),
        row=1,
        col=1,
    )
    never = sweep["n_never_cooccurring"].to_numpy()
    fig.add_trace(
        go.Scatter(
            x=ks,
            y=sweep["cooccurrence_rate"],
            mode="lines+markers",
            name="co-occurring pairs",
            line=dict(color="#2ca02c"),
            customdata=never,
            hovertemplate="K = %{x}<br>co-occurring pairs %{y:.3f}<br>groups that never "
            "co-occur: %{customdata}<extra></extra>",
        ),
        row=2,
        col=1,
    )
    flagged = never > 0
    fig.add_trace(
        go.Scatter(
            x=ks[flagged],
            y=sweep["cooccurrence_rate"].to_numpy()[flagged],
            mode="markers",
            name="K with a group whose labels never co-occur",
            marker=dict(symbol="x", size=10, color="#d62728"),
            customdata=never[flagged],
            hovertemplate="K = %{x}: %{customdata} group(s) never co-occur<extra></extra>",
        ),
        row=2,
        col=1,
    )
    has_null = "null_stability" in sweep and not sweep["null_stability"].isna().all()
    low = float(np.nanmin(sweep["stability"]))
    if has_null:
        fig.add_trace(
            go.Scatter(
                x=ks,
                y=sweep["null_stability"],
                mode="lines",
                name="null: labels shuffled independently",
                line=dict(color="#888888", dash="dash"),
                hovertemplate="K = %{x}<br>null stability %{y:.3f}<extra></extra>",
            ),
            row=1,
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=ks,
                y=sweep["adjusted_stability"],
                mode="lines+markers",
                name="adjusted: data − null",
                line=dict(color="#9467bd"),
                hovertemplate="K = %{x}<br>adjusted stability %{y:.3f}<extra></extra>",
            ),
            row=1,
            col=1,
        )
        if suggested_k is not None:
            at = sweep["n_groups"] == int(suggested_k)
            fig.add_trace(
                go.Scatter(
                    x=ks[at.to_numpy()],
                    y=sweep.loc[at, "adjusted_stability"],
                    mode="markers",
                    name=f"most stable against the null: K = {int(suggested_k)}",
                    marker=dict(symbol="star", size=14, color="#9467bd"),
                    hovertemplate="K = %{x}: largest adjusted stability<extra></extra>",
                ),
                row=1,
                col=1,
            )
        low = min(low, float(np.nanmin(sweep[["null_stability", "adjusted_stability"]])))
    if chosen_k is not None:
        for row in (1, 2):
            fig.add_vline(x=int(chosen_k), line_color="#555555", line_width=1, row=row, col=1)
    fig.update_yaxes(range=[min(0.0, low - 0.05), 1.05], row=1, col=1)
    fig.update_yaxes(range=[-0.05, 1.05], row=2, col=1)
    fig.update_xaxes(title_text="number of groups K", row=2, col=1, dtick=2)
    fig.update_layout(
        title=dict(text=f"K sweep, K = {ks.min()}..{ks.max()}", y=0.98),
        margin=dict(t=70, b=10, l=10, r=10),
        height=520,
    )
    return legible(fig)


def never_cooccurring_groups(diagnostics: pd.DataFrame) -> pd.DataFrame:
    """Rows of a :func:`group_diagnostics` table whose two or more labels never co-occur.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.label_clustering import group_diagnostics
    >>> from mlviz.figures.label_clusters import never_cooccurring_groups
    >>> Y = np.array([[1, 0, 1], [0, 1, 1], [1, 0, 0]])  # labels 0 and 1 never together
    >>> never_cooccurring_groups(group_diagnostics(Y, np.array([0, 0, 1])))["group"].tolist()
    [0]
    """
    return diagnostics[(diagnostics["n_labels"] > 1) & (diagnostics["cooccurrence_rate"] == 0)]


def group_table(diagnostics: pd.DataFrame, *, max_names: int = 8) -> pd.DataFrame:
    """The group diagnostics as a display table, with a verdict in words per group.

    Parameters
    ----------
    diagnostics : pandas.DataFrame
        The output of :func:`mlviz.label_clustering.group_diagnostics`.
    max_names : int, default=8
        Label names listed per group; longer groups end with "… (+n more)".

    Returns
    -------
    pandas.DataFrame
        Columns ``group, n_labels, support, co-occurring pairs, mean Jaccard, tail share,
        stability, verdict, labels`` (the numbers first, the long list of names last);
        ``labels`` is one string; ``verdict`` is the diagnostics' own (see
        :func:`mlviz.label_clustering.group_verdict`).

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.label_clustering import group_diagnostics
    >>> from mlviz.figures.label_clusters import group_table
    >>> table = group_table(group_diagnostics(Y, groups, label_names=ds.label_names))
    >>> len(table), table.columns.tolist()[-2:]
    (4, ['verdict', 'labels'])
    """

    def names(labels) -> str:
        shown = ", ".join(str(n) for n in labels[:max_names])
        extra = len(labels) - max_names
        return shown + (f" … (+{extra} more)" if extra > 0 else "")

    if "verdict" in diagnostics:
        verdict = diagnostics["verdict"].tolist()
    else:  # a table from before the verdicts: the two facts it holds
        never = set(never_cooccurring_groups(diagnostics)["group"])
        verdict = [
            "never co-occur" if g in never else ("singleton" if n == 1 else "")
            for g, n in zip(diagnostics["group"], diagnostics["n_labels"], strict=True)
        ]
    stability = (
        diagnostics["stability"]
        if "stability" in diagnostics
        else np.full(len(diagnostics), np.nan)
    )
    return pd.DataFrame(
        {
            "group": diagnostics["group"],
            "n_labels": diagnostics["n_labels"],
            "support": diagnostics["support"],
            "co-occurring pairs": diagnostics["cooccurrence_rate"],
            "mean Jaccard": diagnostics["mean_jaccard"],
            "tail share": diagnostics["tail_share"],
            "stability": stability,
            "verdict": verdict,
            "labels": [names(list(ls)) for ls in diagnostics["labels"]],
        }
    )


def coassignment_figure(
    coassignment: np.ndarray,
    groups: np.ndarray,
    label_names: Sequence[str],
    *,
    verdicts: Sequence[str] | None = None,
) -> go.Figure:
    """Per-label bootstrap co-assignment, one column of points per group.

    Parameters
    ----------
    coassignment : ndarray of shape (n_labels,)
        :func:`mlviz.label_clustering.label_coassignment` (NaN for labels alone in their
        group: not drawn).
    groups : ndarray of int, shape (n_labels,)
        The partition it judges.
    label_names : sequence of str
        Shown on hover (any number of labels: nothing is written on the axis).
    verdicts : sequence of str, optional
        One verdict per group id (``group_diagnostics``'s column), written under the group.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per group with at least one drawn label (x: the group, y: the share of
        resamples' group mates kept), in the group's colour; a dashed line at each group's
        mean (its ``stability``) as a shape.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.label_clusters import coassignment_figure
    >>> fig = coassignment_figure(np.array([1.0, 0.5, np.nan]), np.array([0, 0, 1]), "abc")
    >>> [np.asarray(t.y).tolist() for t in fig.data]
    [[1.0, 0.5]]
    """
    coassignment = np.asarray(coassignment, dtype=float)
    groups = _check_groups(groups, coassignment.size, "coassignment_figure")
    names = plain_all(_check_names(label_names, coassignment.size, "coassignment_figure"))
    n_groups = int(groups.max()) + 1 if groups.size else 0
    fig = go.Figure()
    ticks = []
    for g in range(n_groups):
        members = np.flatnonzero((groups == g) & ~np.isnan(coassignment))
        verdict = f"<br>{verdicts[g]}" if verdicts is not None else ""
        ticks.append(f"{g}{verdict}")
        if members.size == 0:
            continue
        # spread the points of a group sideways by rank, so that equal values stay visible
        offsets = (np.arange(members.size) / max(members.size - 1, 1) - 0.5) * 0.5
        fig.add_trace(
            go.Scatter(
                x=g + offsets,
                y=coassignment[members],
                mode="markers",
                marker=dict(color=group_colour(g), size=7),
                name=f"group {g}",
                text=[names[j] for j in members],
                hovertemplate="%{text}<br>kept with its group mates in %{y:.0%} of "
                "resamples<extra></extra>",
            )
        )
        mean = float(coassignment[members].mean())
        fig.add_shape(
            type="line",
            x0=g - 0.35,
            x1=g + 0.35,
            y0=mean,
            y1=mean,
            line=dict(color=group_colour(g), dash="dash", width=2),
        )
    fig.update_xaxes(
        tickmode="array",
        tickvals=list(range(n_groups)),
        ticktext=ticks,
        title_text="group",
        range=[-0.6, n_groups - 0.4],
    )
    fig.update_yaxes(range=[-0.05, 1.05], title_text="share of group mates kept")
    fig.update_layout(
        title="How often each label stays with its group across bootstrap resamples",
        showlegend=False,
        height=360,
        margin=dict(t=60, b=10, l=10, r=10),
    )
    return legible(fig)


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

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.label_clusters import cluster_table
    >>> frequencies = np.array([0.5, 0.2, 0.01])
    >>> groups = np.array([1, 0, 1])
    >>> table = cluster_table(groups, ["a", "b", "c"], frequencies, tail_threshold=0.05)
    >>> table[["group", "label", "is_tail"]].values.tolist()
    [[0, 'b', False], [1, 'a', False], [1, 'c', True]]
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
            "is_tail": is_tail(frequencies[order], tail_threshold),
        },
        index=pd.Index(order, name="column"),
    )
    return table
