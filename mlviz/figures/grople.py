"""Figures of the GroPLE page: the group-sparse latent factor matrix V^k and convergence.

Kumar et al., "Group Preserving Label Embedding" (paper 001,
``../shared/papers/001_20309f7d22cfebb1.txt``): the l2,1 penalty of Eq. (4) zeroes whole
rows of each group's V^k, so labels of one group share which latent dimensions they use.
:func:`vk_heatmap` draws V in the style of the paper's Figure 1 ("non-zero rows shown as
shaded rows and a gap artificially created to distinguish between different V^k's").
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from mlviz.figures._style import TITLE_CHARS, add_layout_items, legible, number_axis, plain_all
from mlviz.metrics import METRICS
from mlviz.wording import counted

__all__ = [
    "versus_baseline",
    "MAX_NAMED_LABELS",
    "lambda1_range_caption",
    "lesson_lambda1_note",
    "lambda2_opening",
    "lambda_options",
    "objective_figure",
    "round_up",
    "row_pattern_caption",
    "vk_column_layout",
    "vk_group_heatmap",
    "vk_heatmap",
]

# Group names are written above the heatmap only while they stay legible.
_MAX_ANNOTATED_GROUPS = 30
# Label names stand upright beyond this many: slanted at -60° medical's 45 overlap each other.
UPRIGHT_BEYOND = 30
#: Label columns V^k's heatmap names: beyond it the page shows one column per group and one
#: group's most frequent labels on request. Upright at font 10, 45 names (medical) stay apart
#: on a 1280 px page; a drill-down into a group of 49 labels overlapped
#: (tests/test_browser_labels.py).
MAX_NAMED_LABELS = 45

# Red-blue with a grey (not white) middle: a tiny but non-zero entry must not look like the
# white of an exactly-zero (blank) row.
_DIVERGING = [
    [0.0, "#b2182b"],
    [0.25, "#ef8a62"],
    [0.5, "#d9d9d9"],
    [0.75, "#67a9cf"],
    [1.0, "#2166ac"],
]


def vk_column_layout(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Heatmap columns of :func:`vk_heatmap`: labels grouped, one gap column between groups.

    Groups appear in ascending id order; labels keep their original order within a group.

    Parameters
    ----------
    groups : ndarray of int, shape (n_labels,)

    Returns
    -------
    label_of_column : ndarray of intp, shape (n_labels + n_groups - 1,)
        Original label index shown in each heatmap column, -1 for a gap column.
    group_of_column : ndarray of intp, same shape
        Position (0..n_groups-1, ascending id) of the column's group, -1 for a gap column.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.grople import vk_column_layout
    >>> label_of_column, group_of_column = vk_column_layout(np.array([1, 0, 1]))
    >>> label_of_column.tolist(), group_of_column.tolist()
    ([1, -1, 0, 2], [0, -1, 1, 1])
    """
    groups = np.asarray(groups)
    label_of_column: list[int] = []
    group_of_column: list[int] = []
    for position, gid in enumerate(np.unique(groups)):
        if position:
            label_of_column.append(-1)
            group_of_column.append(-1)
        members = np.flatnonzero(groups == gid)
        label_of_column.extend(members.tolist())
        group_of_column.extend([position] * members.size)
    return np.asarray(label_of_column, dtype=np.intp), np.asarray(group_of_column, dtype=np.intp)


def _row_support(V: np.ndarray, groups: np.ndarray, row_support) -> np.ndarray:
    """Non-zero rows of each V^k (n_groups, d), checked against ``row_support`` when given."""
    group_ids = np.unique(groups)
    computed = np.stack([np.any(V[:, groups == gid] != 0, axis=1) for gid in group_ids])
    if row_support is None:
        return computed
    given = np.asarray([np.asarray(r, dtype=bool).ravel() for r in row_support])
    if given.shape != computed.shape:
        raise ValueError(
            f"vk_heatmap: row_support must hold one boolean array of length d={V.shape[0]} per "
            f"group ({len(group_ids)} groups); got shape {given.shape}."
        )
    mismatch = np.argwhere(given != computed)
    if mismatch.size:
        k, row = mismatch[0]
        state = "non-zero" if given[k, row] else "zero"
        raise ValueError(
            f"vk_heatmap: row_support says row {row} of V^k for group {group_ids[k]} is {state}, "
            f"but V has {'only zeros' if given[k, row] else 'non-zero entries'} there "
            f"({len(mismatch)} disagreeing rows in all). Pass the row_support_ of the model that "
            "produced V."
        )
    return given


def vk_heatmap(
    V: np.ndarray,
    groups: np.ndarray,
    label_names: Sequence[str],
    *,
    row_support: Sequence[np.ndarray] | np.ndarray | None = None,
    absolute: bool = False,
    title: str | None = None,
    title_width: int = TITLE_CHARS,
) -> go.Figure:
    """The latent factor matrix V, columns grouped into the V^k blocks (paper 001, Figure 1).

    Parameters
    ----------
    V : ndarray, shape (d, n_labels)
        Decoding matrix, rows latent dimensions, columns labels in the original order
        (``GroPLE.V_``); ``V[:, groups == k]`` is V^k.
    groups : ndarray of int, shape (n_labels,)
        Group of each label (``GroPLE.groups_``).
    label_names : sequence of str, length n_labels
    row_support : sequence of boolean arrays or ndarray (n_groups, d), optional
        ``row_support[j][i]`` is True when row i of the j-th group's V^k (groups in ascending
        id order) is non-zero, as ``GroPLE.row_support_``. When given it must agree exactly
        with the zero rows of V; a mismatch raises ValueError instead of drawing a misleading
        picture.
    absolute : bool, default=False
        Draw |V| on a sequential scale instead of V on a diverging scale centred at 0. The
        diverging scale is grey, not white, at 0, so a tiny non-zero entry never looks like
        the white of a blank (exactly zero) row.
    title : str, optional
        Replaces the title's first part ("Group sparsity of V: blank rows are exactly zero");
        the count of group rows used is always appended.
    title_width : int, default=TITLE_CHARS
        Characters per title line: the default fits a half-width column; a page drawing the
        figure across its width passes ``WIDE_TITLE_CHARS``.

    Returns
    -------
    plotly.graph_objects.Figure
        One heatmap trace with ``z`` of shape (d, n_labels + n_groups - 1): the columns of
        V in the order of :func:`vk_column_layout`, one all-NaN gap column between groups,
        and NaN (drawn blank) over every row that is exactly zero within its group. Blank
        cells are never an exact zero of a non-zero row: such entries keep their value 0.

    Notes
    -----
    "Zero" means exactly 0.0: the proximal step of the l2,1 norm sets rows to exact zeros,
    so no tolerance is applied and a tiny but non-zero row stays visible.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.grople import GroPLE
    >>> from mlviz.figures.grople import vk_heatmap
    >>> model = GroPLE(n_components=5, n_groups=4, random_state=0).fit(X, Y)
    >>> fig = vk_heatmap(model.V_, model.groups_, ds.label_names, row_support=model.row_support_)
    >>> len(fig.data), len(fig.data[0].z), len(fig.data[0].z[0])  # d rows, L + K - 1 columns
    (1, 5, 25)
    """
    V = np.asarray(V, dtype=float)
    if V.ndim != 2:
        raise ValueError(f"vk_heatmap: V must be a 2-D (d, n_labels) matrix; got shape {V.shape}.")
    d, n_labels = V.shape
    groups = np.asarray(groups)
    if groups.shape != (n_labels,) or not np.issubdtype(groups.dtype, np.integer):
        raise ValueError(
            f"vk_heatmap: groups must be one integer group id per label column of V "
            f"({n_labels}); got shape {groups.shape}, dtype {groups.dtype}."
        )
    names = plain_all(label_names)  # user text: shown, never rendered as HTML
    if len(names) != n_labels:
        raise ValueError(f"vk_heatmap: {len(names)} label names for {n_labels} columns of V.")
    support = _row_support(V, groups, row_support)
    label_of_column, group_of_column = vk_column_layout(groups)
    is_gap = label_of_column < 0
    values = np.abs(V) if absolute else V
    z = np.full((d, label_of_column.size), np.nan)
    z[:, ~is_gap] = values[:, label_of_column[~is_gap]]
    for position in range(support.shape[0]):
        columns = np.flatnonzero(group_of_column == position)
        z[np.ix_(~support[position], columns)] = np.nan
    column_names = np.array(
        ["" if g else names[i] for i, g in zip(label_of_column, is_gap, strict=True)]
    )
    group_ids = np.unique(groups)
    column_hover = np.array(
        [
            "gap between groups" if g < 0 else f"{column_names[c]} (group {group_ids[g]})"
            for c, g in enumerate(group_of_column)
        ]
    )
    # one string per cell: heatmap hover cannot index per-column data by %{x} alone
    customdata = np.broadcast_to(column_hover[None, :], (d, column_hover.size))
    scale = np.nanmax(np.abs(z)) if np.isfinite(z).any() else 1.0
    heatmap = (
        dict(colorscale="Viridis", zmin=0, zmax=scale)
        if absolute
        else dict(colorscale=_DIVERGING, zmid=0, zmin=-scale, zmax=scale)
    )
    columns_x = np.arange(label_of_column.size)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=columns_x,
            y=np.arange(1, d + 1),
            customdata=customdata,
            hoverongaps=False,
            colorbar=dict(title="|V|" if absolute else "V"),
            hovertemplate="label %{customdata}<br>latent dimension "
            "%{y}<br>value %{z:.3g}<extra></extra>",
            **heatmap,
        )
    )
    if len(group_ids) <= _MAX_ANNOTATED_GROUPS:
        add_layout_items(  # add_annotation per group: O(n²) in plotly
            fig,
            annotations=[
                dict(
                    x=np.flatnonzero(group_of_column == position).mean(),
                    y=1.0,
                    yref="paper",
                    yanchor="bottom",
                    showarrow=False,
                    text=f"V<sup>{gid}</sup><br>{int(support[position].sum())}/{d}",
                    font=dict(size=10),
                )
                for position, gid in enumerate(group_ids)
            ],
        )
    used = int(support.sum())
    fig.update_layout(
        title=dict(
            text=f"{title or 'Group sparsity of V: blank rows are exactly zero'} "
            f"({used} of {support.size} group rows used)",
            y=0.98,
        ),
        xaxis=dict(
            title="label, grouped by cluster (gaps separate the groups V<sup>k</sup>)",
            tickmode="array",
            tickvals=columns_x[~is_gap],
            ticktext=column_names[~is_gap].tolist(),
            tickangle=-60 if int((~is_gap).sum()) <= UPRIGHT_BEYOND else -90,
            # upright names stay apart at this size up to MAX_NAMED_LABELS of the label
            # clusters figures (the page's drill-down cap)
            tickfont=dict(size=10) if int((~is_gap).sum()) > UPRIGHT_BEYOND else None,
        ),
        yaxis=dict(title="latent dimension", autorange="reversed"),
        plot_bgcolor="white",
        margin=dict(t=80, b=10),
    )
    return legible(fig, title_width=title_width, legend=False)


def objective_figure(
    history: Sequence[float] | np.ndarray,
    feature_history: Sequence[float] | np.ndarray | None = None,
) -> go.Figure:
    """Convergence: Eq. (4) per iteration of its solver [and Eq. (5) per APG iteration].

    Parameters
    ----------
    history : sequence of float
        Objective of the label embedding, Eq. (4), after each iteration of its solver
        (``GroPLE.objective_history_``), drawn at iterations 1..n.
    feature_history : sequence of float, optional
        Objective of the feature embedding, Eq. (5), per APG iteration
        (``GroPLE.feature_objective_history_``); drawn in a second panel.

    Returns
    -------
    plotly.graph_objects.Figure
        Each panel uses a log y axis when its values are positive and span a decade, linear
        otherwise (``mlviz.figures._style.number_axis``).

    Examples
    --------
    >>> from mlviz.figures.grople import objective_figure
    >>> fig = objective_figure([10.0, 4.0, 3.5, 3.4], feature_history=[2.0, 1.0, 0.9])
    >>> len(fig.data)
    2
    """
    series = [("label embedding, Eq. (4)", "iteration", history)]
    if feature_history is not None:
        series.append(("feature embedding, Eq. (5)", "APG iteration", feature_history))
    fig = make_subplots(
        rows=1, cols=len(series), subplot_titles=[s[0] for s in series], horizontal_spacing=0.12
    )
    for col, (name, x_title, values) in enumerate(series, start=1):
        values = np.asarray(values, dtype=float).ravel()
        if values.size == 0:
            raise ValueError(f"objective_figure: the {name} history is empty (nothing fitted?).")
        fig.add_trace(
            go.Scatter(
                x=np.arange(1, values.size + 1),
                y=values,
                mode="lines+markers",
                name=name,
                marker=dict(size=4),
                hovertemplate=f"{x_title} %{{x}}<br>objective %{{y:.6g}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        fig.update_xaxes(title_text=x_title, row=1, col=col)
        axis = number_axis(values)
        fig.update_yaxes(
            title_text="objective" + (" (log scale)" if axis["type"] == "log" else ""),
            row=1,
            col=col,
            **axis,
        )
    fig.update_layout(
        title="GroPLE convergence: the objective should only go down",
        showlegend=False,
        margin=dict(t=70, b=10),
    )
    return legible(fig, legend=False)


def vk_group_heatmap(
    V: np.ndarray,
    groups: np.ndarray,
    *,
    row_support: Sequence[np.ndarray] | np.ndarray | None = None,
) -> go.Figure:
    """V aggregated by group: one column per V^k, for more labels than can be named.

    With hundreds of labels :func:`vk_heatmap` cannot name its columns; the pattern it shows
    (which latent rows each group uses) needs only one column per group. Cell (i, k) is the
    root mean square of row i of V^k over the group's labels, blank when that row is exactly
    zero, so the blank rows are those of :func:`vk_heatmap`.

    Parameters
    ----------
    V : ndarray, shape (d, n_labels)
        ``GroPLE.V_``.
    groups : ndarray of int, shape (n_labels,)
        ``GroPLE.groups_``.
    row_support : sequence of boolean arrays or ndarray (n_groups, d), optional
        ``GroPLE.row_support_``, checked against V as in :func:`vk_heatmap`.

    Returns
    -------
    plotly.graph_objects.Figure
        One heatmap trace, ``z`` of shape (d, n_groups) in ascending group id order, every
        column named "V^k (n labels)"; the title states the aggregation.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.grople import vk_group_heatmap
    >>> V = np.arange(12.0).reshape(2, 6)
    >>> fig = vk_group_heatmap(V, np.array([0, 0, 1, 1, 2, 2]))
    >>> np.asarray(fig.data[0].z).shape, list(fig.data[0].x)
    ((2, 3), ['V<sup>0</sup> (2)', 'V<sup>1</sup> (2)', 'V<sup>2</sup> (2)'])
    """
    V = np.asarray(V, dtype=float)
    if V.ndim != 2:
        raise ValueError(
            f"vk_group_heatmap: V must be a 2-D (d, n_labels) matrix; got shape {V.shape}."
        )
    d, n_labels = V.shape
    groups = np.asarray(groups)
    if groups.shape != (n_labels,) or not np.issubdtype(groups.dtype, np.integer):
        raise ValueError(
            f"vk_group_heatmap: groups must be one integer group id per label column of V "
            f"({n_labels}); got shape {groups.shape}, dtype {groups.dtype}."
        )
    support = _row_support(V, groups, row_support)
    group_ids, sizes = np.unique(groups, return_counts=True)
    rms = np.stack(
        [np.sqrt(np.mean(V[:, groups == gid] ** 2, axis=1)) for gid in group_ids], axis=1
    )
    z = np.where(support.T, rms, np.nan)
    names = [f"V<sup>{gid}</sup> ({size})" for gid, size in zip(group_ids, sizes, strict=True)]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=names,
            y=np.arange(1, d + 1),
            hoverongaps=False,
            colorscale="Viridis",
            zmin=0,
            colorbar=dict(title="RMS"),
            hovertemplate="%{x} labels<br>latent dimension %{y}<br>RMS of the row "
            "%{z:.3g}<extra></extra>",
        )
    )
    used = int(support.sum())
    fig.update_layout(
        title=dict(
            text=f"Group sparsity of V, one column per group ({used:,} of {support.size:,} group "
            "rows used)<br><sup>"
            f"{n_labels:,} labels in {len(group_ids)} groups: each cell is the RMS of a latent "
            "row over the group's labels; blank rows are exactly zero</sup>",
            y=0.98,
        ),
        xaxis=dict(
            title="group V<sup>k</sup> (number of labels)",
            type="category",
            tickmode="array",
            tickvals=names,
            ticktext=names,
            tickangle=-60 if len(group_ids) > 12 else 0,
        ),
        yaxis=dict(title="latent dimension", autorange="reversed"),
        plot_bgcolor="white",
        margin=dict(t=90, b=10),
    )
    return legible(fig, legend=False)


def round_up(value: float, digits: int = 3) -> float:
    """``value`` (> 0) rounded up to ``digits`` significant digits: never below it.

    Examples
    --------
    >>> from mlviz.figures.grople import round_up
    >>> round_up(67.9073), round_up(963.2), round_up(1449.24)
    (68.0, 964.0, 1450.0)
    """
    exponent = math.floor(math.log10(value))
    unit = 10.0 ** (exponent - digits + 1)
    rounded = float(f"{math.ceil(value / unit * (1 - 1e-12)) * unit:.{digits + 1}g}")
    return rounded if rounded >= value else float(f"{rounded + unit:.{digits + 1}g}")


def lambda_options(grid: Sequence[float], bound: float | None) -> list[float]:
    """A λ slider's options on the loaded data: ``grid`` up to ``bound``, and the bound.

    ``bound`` is where the model stops changing (:func:`mlviz.grople.lambda2_max` for λ2,
    :func:`mlviz.grople.lambda1_max` for λ1: from there on every V^k is zero). The options are
    the grid's values below it, the grid continued log-spaced (1, 3, 10, 30, … per decade) from
    its top up to the bound when the bound lies beyond it, and last the bound rounded up to
    three significant digits (:func:`round_up`): the first option at which V is zero, so the
    slider spans the whole range where the model changes. A bound at or below the grid's
    smallest value leaves that value only (a slider needs one option; every value gives
    V = 0); no bound (None, or infinite: λ2 = 0 for λ1) leaves the grid.

    Examples
    --------
    >>> from mlviz.figures.grople import lambda_options
    >>> lambda_options([0.0, 0.1, 1.0, 10.0, 100.0], 12.5)  # the bound within the grid
    [0.0, 0.1, 1.0, 10.0, 12.5]
    >>> lambda_options([0.0, 1.0, 10.0, 100.0], 964.2)  # beyond it: 300, then the bound
    [0.0, 1.0, 10.0, 100.0, 300.0, 965.0]
    """
    values = sorted(float(v) for v in grid)
    if bound is None or not np.isfinite(bound):
        return values
    below = [v for v in values if v < bound]
    if not below:
        return values[:1]
    top = values[-1]
    steps = [
        m * 10.0**e
        for e in range(math.floor(math.log10(max(top, 1e-12))), math.ceil(math.log10(bound)) + 1)
        for m in (1.0, 3.0)
    ]
    beyond = sorted(float(f"{v:.3g}") for v in steps if top < v < bound)
    return below + beyond + [round_up(float(bound))]


def lambda1_range_caption(lambda1_max: float, lambda2: float, options: Sequence[float]) -> str:
    """Why a λ1 slider ends where it does, from :func:`mlviz.grople.lambda1_max` at ``lambda2``.

    ``options`` are the slider's (:func:`lambda_options`). Finite bound: above it Algorithm
    1's second V step, and so the whole fit, is zero; the slider's last option is the bound
    (rounded up). Infinite (λ2 = 0): no λ1 makes V zero, the slider keeps its fixed grid.

    Examples
    --------
    >>> from mlviz.figures.grople import lambda1_range_caption
    >>> lambda1_range_caption(1449.0, 10.0, [1.0, 1000.0, 1450.0])[:52]
    'λ1 above 1.45e+03 makes every V^k zero at λ2 = 10 on'
    """
    largest = max(float(v) for v in options)
    if not np.isfinite(lambda1_max):
        return (
            f"At λ2 = {lambda2:g} no λ1 makes V zero (nothing penalises V's rows): a larger λ1 "
            "only shrinks U while V grows, so the slider keeps its grid, up to "
            f"{largest:g}. A fit that then predicts no label (Z's ℓ1 penalty β removes "
            "the features of a small U) is shown as an error."
        )
    if min(float(v) for v in options) >= lambda1_max:
        return (
            f"Every λ1 of the slider is above λ1_max = {lambda1_max:.3g} at λ2 = {lambda2:g}: "
            "Algorithm 1's second V step, and so the fit, is zero. Lower λ2."
        )
    return (
        f"λ1 above {lambda1_max:.3g} makes every V^k zero at λ2 = {lambda2:g} on this training "
        "split (λ1_max: Algorithm 1's second V step is then exactly zero, after one U step and "
        f"one rescaling), so the slider ends at {largest:g}, the first of its values where V is "
        "zero. Fits below the bound can still end with V = 0 or predict no label; such a fit is "
        "shown as an error."
    )


def lesson_lambda1_note(lambda1: float, lambda2: float, lambda1_max: float) -> str:
    """One sentence on a fixed λ1 against :func:`mlviz.grople.lambda1_max` at ``lambda2``.

    Examples
    --------
    >>> from mlviz.figures.grople import lesson_lambda1_note
    >>> lesson_lambda1_note(1.0, 10.0, 1449.0)
    ' At λ2 = 10 every V^k would also be zero for λ1 above 1.45e+03 (λ1_max); λ1 = 1 is below.'
    """
    if not np.isfinite(lambda1_max):
        return f" At λ2 = {lambda2:g} no λ1 makes V zero."
    relation = "below" if lambda1 < lambda1_max else "above it: V is zero"
    return (
        f" At λ2 = {lambda2:g} every V^k would also be zero for λ1 above {lambda1_max:.3g} "
        f"(λ1_max); λ1 = {lambda1:g} is {relation}."
    )


#: Share of λ2_max below which a view opens. At λ1 = 1, fits at 0.08-0.3 λ2_max predicted
#: (planted, medical, genbase, yeast, emotions) while 0.5-0.7 λ2_max ended at V = 0 or
#: predicted nothing on planted, medical and genbase (docs/GROPLE.md): a margin of 2 to that.
OPENING_SHARE_OF_LAMBDA2_MAX = 0.25


def lambda2_opening(grid: Sequence[float], lambda2_max: float | None, preferred: float) -> float:
    """The λ2 a view opens at: ``preferred``, or the largest grid value at most
    ``OPENING_SHARE_OF_LAMBDA2_MAX * lambda2_max`` when that is smaller (small data sets,
    where ``preferred`` would end at V = 0). Always a value of ``grid``.

    Examples
    --------
    >>> from mlviz.figures.grople import lambda2_opening
    >>> lambda2_opening([0.0, 0.1, 1.0, 10.0], lambda2_max=100.0, preferred=10.0)
    10.0
    >>> lambda2_opening([0.0, 0.1, 1.0, 10.0], lambda2_max=12.5, preferred=10.0)  # 10 > 12.5 / 4
    1.0
    """
    values = sorted(float(v) for v in grid)
    ceiling = preferred
    if lambda2_max is not None:
        ceiling = min(ceiling, OPENING_SHARE_OF_LAMBDA2_MAX * lambda2_max)
    below = [v for v in values if v <= ceiling]
    return below[-1] if below else values[0]


def row_pattern_caption(row_support: np.ndarray, lambda2: float, lambda2_max: float) -> str:
    """What the V^k heatmap of a fitted GroPLE shows, counted from its ``row_support_``.

    Every number is read from ``row_support`` (n_groups, d); the sentence about λ2 states the
    bound of :func:`mlviz.grople.lambda2_max` (a fact about the data and the fit's start),
    not a promise that a larger λ2 switches more rows off: Eq. (4) is not convex, so the
    rows used need not fall monotonically with λ2.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.grople import row_pattern_caption
    >>> support = np.array([[1, 1, 0, 0], [0, 1, 1, 0]], dtype=bool)  # 2 groups, d = 4
    >>> text = row_pattern_caption(support, lambda2=1.0, lambda2_max=5.0)
    >>> "the groups use 2 rows each" in text, "2 of the 2 groups have rows of their own" in text
    (True, True)
    """
    support = np.asarray(row_support, dtype=bool)
    n_groups, n_latent = support.shape
    per_group = support.sum(axis=1)
    users = support.sum(axis=0)
    n_dead, n_shared, n_single = (
        int((users == 0).sum()),
        int((users > 1).sum()),
        int((users == 1).sum()),
    )
    with_own = int((support & (users == 1)[None, :]).any(axis=1).sum())
    patterns = len({row.tobytes() for row in support})
    fewest, most = int(per_group.min()), int(per_group.max())
    used_range = f"{fewest}" if fewest == most else f"{fewest}–{most}"
    text = (
        f"Each column block is one of the {n_groups} label groups' V^k (paper Figure 1), "
        f"headed by the number of latent rows it uses out of d = {n_latent}; rows are the "
        "latent dimensions, and a blank row is exactly zero for every label of its group (the "
        f"ℓ2,1 penalty switches whole rows off). Here the groups use {used_range} rows each; "
        f"{counted(n_shared, 'row is', plural='rows are')} used by two or more groups, "
        f"{n_single} by one group only" + (f", {n_dead} by none" if n_dead else "") + ". "
    )
    if not support.any():
        text += "No group uses any row: V is zero and the model predicts from no feature."
    elif with_own:
        text += (
            f"{with_own} of the {n_groups} groups "
            + ("has rows of its own " if with_own == 1 else "have rows of their own ")
            + f"({patterns} different row patterns): the pattern of the paper's Figure 1."
        )
    elif n_groups > 1 and patterns > 1:
        text += f"No group has a row of its own, but the groups use {patterns} different row sets."
    else:
        text += (
            "No group has a row of its own: at these settings the groups share every latent "
            "dimension they use, unlike the paper's Figure 1 (each group its own few rows)."
        )
    relation = "at or above" if lambda2 >= lambda2_max else "below"
    text += (
        f" λ2 = {lambda2:g} is {relation} λ2_max = {lambda2_max:.3g}, the value from which the "
        "fit's first V step, and so the whole fit, is zero on this training split."
    )
    return text


#: The example- and label-based scores of the paper's Table 2 on which a model is compared with
#: its baseline (higher is better for each).
VERSUS_METRICS = ("accuracy", "example_f1", "micro_f1", "macro_f1")


def versus_baseline(
    scores: dict[str, dict[str, float]],
    *,
    method: str = "GroPLE",
    baseline: str = "BR",
    metrics: Sequence[str] = VERSUS_METRICS,
) -> tuple[list[str], str]:
    """Where ``method`` scores below ``baseline``, and one sentence with the numbers.

    Parameters
    ----------
    scores : dict of str -> dict of str -> float
        Per model, :func:`mlviz.metrics.evaluate`'s scores on one test split.
    method, baseline : str
        Keys of ``scores``.
    metrics : sequence of str
        Scores to compare, each higher-is-better.

    Returns
    -------
    below : list of str
        The metrics on which ``method`` is strictly below ``baseline``.
    text : str
        Every compared metric with both numbers (plain text: no markdown).

    Examples
    --------
    >>> from mlviz.figures.grople import versus_baseline
    >>> scores = {"GroPLE": {"accuracy": 0.197, "micro_f1": 0.31},
    ...           "BR": {"accuracy": 0.272, "micro_f1": 0.30}}
    >>> versus_baseline(scores, metrics=["accuracy", "micro_f1"])
    (['accuracy'], 'Accuracy (Jaccard) 0.197 vs 0.272, Micro F1 0.310 vs 0.300')
    """
    below = [m for m in metrics if scores[method][m] < scores[baseline][m]]
    text = ", ".join(
        f"{METRICS[m].label} {scores[method][m]:.3f} vs {scores[baseline][m]:.3f}" for m in metrics
    )
    return below, text
