"""Figures of the CLEMS page: the MDS embedding of the candidate label sets, a Shepard diagram.

Huang & Lin, "Cost-sensitive Label Embedding for Multi-label Classification" (paper 002,
``../shared/papers/002_a9fa9cac89b97038.txt``): the candidate set S (the distinct training
label vectors) is embedded by weighted MDS so that embedded distances approximate the
costs (Eq. 1 for a symmetric cost). For an asymmetric cost the mirroring trick (section
3.3) embeds every candidate twice, as ground truth u^(t) and as prediction u^(p), and only
the truth-prediction distances carry the cost (Eq. 2). ``mlviz.CLEMS`` regresses to the
truth-role points and decodes to the nearest *prediction-role* point (the authors' code; the
paper's section 3.3 text swaps the roles, see the ``CLEMS`` docstring), so the nearest
candidates are ringed in the prediction role here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from mlviz.figures._style import count_marker_sizes, integer_ticks, legible, plain_all

__all__ = [
    "MAX_SHEPARD_POINTS",
    "embedding_figure",
    "fitted_embedding_figure",
    "shepard_figure",
    "shepard_pairs",
]

#: Largest number of pairs :func:`shepard_figure` draws; beyond it, a fixed-seed subsample.
MAX_SHEPARD_POINTS = 20_000
#: Characters of pair names :func:`shepard_figure` puts in the hover text at most (about a MB
#: of the figure sent to every browser that shows it). Each pair's text names both label
#: sets: at 20,000 pairs of 983-label sets (names cut at 160 characters, 161 on average) the
#: figure was 7.2 MB, 0.65 MB of it without the names; yeast's 2.6 MB (stop 53).
MAX_SHEPARD_HOVER_CHARS = 1_000_000
#: Fewest pairs drawn when names make the hover text long (a Shepard diagram of a few
#: thousand pairs still shows their spread about y = x).
MIN_SHEPARD_POINTS = 2_000


def _marker_sizes(counts: np.ndarray) -> np.ndarray:
    """Label-set diameters (px): areas proportional to the training instances (5 to 30 px)."""
    return count_marker_sizes(counts, largest=30, smallest=5)


def _xy(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First two coordinates; a 1-D embedding (M = 1) is drawn on the line y = 0."""
    if points.shape[1] >= 2:
        return points[:, 0], points[:, 1]
    return points[:, 0], np.zeros(points.shape[0])


def _points(array, n: int, name: str) -> np.ndarray:
    array = np.asarray(array, dtype=float)
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2 or array.shape[0] != n:
        raise ValueError(
            f"embedding_figure: {name} must have shape (n_candidates={n}, M); got {array.shape}."
        )
    return array


def embedding_figure(
    embedding_truth: np.ndarray,
    embedding_pred: np.ndarray | None,
    counts: np.ndarray,
    sizes: np.ndarray,
    labelset_text: Sequence[str],
    symmetric: bool,
    *,
    predicted: np.ndarray | None = None,
    nearest: Sequence[int] | np.ndarray | None = None,
    nearest_costs: Sequence[float] | np.ndarray | None = None,
    title: str | None = None,
) -> go.Figure:
    """2-D view (first two coordinates) of the embedded candidate label sets.

    Parameters
    ----------
    embedding_truth : ndarray, shape (n_candidates, M)
        u^(t), the candidates in their ground-truth role (``CLEMS.embedding_truth_``, the
        regression targets). For a symmetric cost this is the one embedding of each
        candidate.
    embedding_pred : ndarray, shape (n_candidates, M), or None
        u^(p), the prediction role (``CLEMS.embedding_pred_``, where decoding searches);
        asymmetric costs only, ignored and may be None when ``symmetric``.
    counts : ndarray of int, shape (n_candidates,)
        Training instances with each candidate label set; marker area grows with it
        (diameter ~ sqrt(count)).
    sizes : ndarray of int, shape (n_candidates,)
        Number of labels in each set; the marker colour.
    labelset_text : sequence of str, length n_candidates
        Readable label set (e.g. ``mlviz.figures.hypercube.labelset_text``) for the hover.
    symmetric : bool
        One trace (circles) when True; two traces when False: circles for the truth role,
        crosses for the prediction role.
    predicted : ndarray, shape (M,), optional
        A test instance's predicted embedded point z̃ (black star).
    nearest : sequence of int, optional
        Indices of the candidates nearest to ``predicted`` among the prediction-role points
        (``CLEMS.explain(x).candidates["candidate"]``), nearest first; ringed in red at
        their prediction-role position, the first one is the decoded label set.
    nearest_costs : sequence of float, optional
        Cost of each ``nearest`` candidate against the instance's true label set, for the
        hover.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces: truth role (``x, y`` = first two columns of ``embedding_truth``),
        [prediction role], [predicted point], [nearest candidates].

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.clems import CLEMS
    >>> model = CLEMS(n_components=2, random_state=0).fit(X, Y)
    >>> from mlviz.figures.clems import embedding_figure
    >>> from mlviz.figures.hypercube import labelset_text
    >>> text = labelset_text(model.candidates_, ds.label_names)
    >>> fig = embedding_figure(model.embedding_truth_, model.embedding_pred_,
    ...                        model.candidate_counts_, model.candidates_.sum(axis=1), text,
    ...                        symmetric=not model.mirrored_)
    >>> len(fig.data), len(fig.data[0].x) == len(model.candidates_)
    (1, True)
    """
    truth = np.asarray(embedding_truth, dtype=float)
    if truth.ndim == 1:
        truth = truth.reshape(-1, 1)
    n = truth.shape[0]
    truth = _points(truth, n, "embedding_truth")
    counts = np.asarray(counts)
    sizes = np.asarray(sizes)
    text = plain_all(labelset_text)  # label names are user text: shown, never rendered
    for name, values in (("counts", counts), ("sizes", sizes), ("labelset_text", text)):
        if len(values) != n:
            raise ValueError(
                f"embedding_figure: {name} has {len(values)} entries for {n} candidate label sets."
            )
    hover = [
        f"{t}<br>{c} training instances<br>{s} labels"
        for t, c, s in zip(text, counts, sizes, strict=True)
    ]
    marker = dict(
        size=_marker_sizes(counts),
        color=sizes,
        colorscale="Viridis",
        cmin=sizes.min(),
        cmax=max(sizes.max(), sizes.min() + 1),
        colorbar=dict(title="labels in set", **integer_ticks(sizes.min(), sizes.max())),
    )
    fig = go.Figure()
    x, y = _xy(truth)
    role = "label sets" if symmetric else "label sets as ground truth (t)"
    fig.add_trace(
        go.Scatter(
            x=x,
            y=y,
            mode="markers",
            name=role,
            text=hover,
            marker={**marker, "line": dict(width=0.5, color="white"), "opacity": 0.85},
            hovertemplate="%{text}<extra>" + ("" if symmetric else "truth role") + "</extra>",
        )
    )
    decode_points = truth
    if not symmetric:
        if embedding_pred is None:
            raise ValueError(
                "embedding_figure: an asymmetric cost needs embedding_pred (the "
                "prediction role u^(p)); pass symmetric=True for a symmetric cost."
            )
        pred = _points(embedding_pred, n, "embedding_pred")
        if pred.shape[1] != truth.shape[1]:
            raise ValueError(
                f"embedding_figure: embedding_pred has M={pred.shape[1]} but "
                f"embedding_truth has M={truth.shape[1]}."
            )
        decode_points = pred
        px, py = _xy(pred)
        fig.add_trace(
            go.Scatter(
                x=px,
                y=py,
                mode="markers",
                name="label sets as prediction (p)",
                text=hover,
                marker={
                    **marker,
                    "symbol": "x",
                    "showscale": False,
                    "opacity": 0.85,
                },
                hovertemplate="%{text}<extra>prediction role</extra>",
            )
        )
    if predicted is not None:
        point = np.asarray(predicted, dtype=float).ravel()
        if point.size != truth.shape[1]:
            raise ValueError(
                f"embedding_figure: predicted has {point.size} coordinates but the "
                f"embedding has M={truth.shape[1]}."
            )
        fig.add_trace(
            go.Scatter(
                x=[point[0]],
                y=[point[1] if point.size > 1 else 0.0],
                mode="markers",
                name="predicted point z̃",
                marker=dict(symbol="star", size=18, color="black"),
                hovertemplate="predicted point z̃<extra></extra>",
            )
        )
    if nearest is not None:
        nearest = np.asarray(nearest, dtype=np.intp).ravel()
        if nearest.size and (nearest.min() < 0 or nearest.max() >= n):
            raise ValueError(f"embedding_figure: nearest holds indices outside 0..{n - 1}.")
        costs = None if nearest_costs is None else np.asarray(nearest_costs, dtype=float).ravel()
        if costs is not None and costs.size != nearest.size:
            raise ValueError(
                f"embedding_figure: {costs.size} nearest_costs for {nearest.size} "
                "nearest candidates."
            )
        ring_text = [
            f"#{rank + 1}{' (decoded)' if rank == 0 else ''}: {text[i]}"
            + ("" if costs is None else f"<br>cost vs truth {costs[rank]:.3f}")
            for rank, i in enumerate(nearest)
        ]
        nx, ny = _xy(decode_points[nearest])
        fig.add_trace(
            go.Scatter(
                x=nx,
                y=ny,
                mode="markers",
                name="nearest candidates (decoding)",
                text=ring_text,
                marker=dict(
                    symbol="circle-open",
                    size=_marker_sizes(counts)[nearest] + 8,
                    color="#d62728",
                    line=dict(width=2.5),
                ),
                hovertemplate="%{text}<extra></extra>",
            )
        )
    m = truth.shape[1]
    if title is None:
        title = f"MDS embedding of the {n:,} candidate label sets"
        if not symmetric:
            title += " (asymmetric cost: each set embedded twice)"
        if m > 2:
            # the 2-D view hides the other coordinates: nearest in M-D may not look nearest
            title += f"<br><sup>coordinates 1-2 of M = {m}; distances use all {m}</sup>"
    fig.update_layout(
        title=title,
        xaxis_title="embedding coordinate 1",
        yaxis_title="embedding coordinate 2" if m > 1 else "(M = 1: one coordinate only)",
        # the legend below the axis title: at the right it would cover the colour bar
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0),
        margin=dict(t=50, b=110),
    )
    fig.update_yaxes(scaleanchor="x", scaleratio=1)
    return legible(fig, legend=False)


def fitted_embedding_figure(
    model,
    labelset_text: Sequence[str],
    *,
    predicted: np.ndarray | None = None,
    nearest: Sequence[int] | np.ndarray | None = None,
    nearest_costs: Sequence[float] | np.ndarray | None = None,
    title: str | None = None,
) -> go.Figure:
    """:func:`embedding_figure` of a fitted :class:`mlviz.clems.CLEMS` (its candidates,
    their counts and sizes, both embeddings and whether the cost was mirrored).

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.clems import CLEMS
    >>> model = CLEMS(n_components=2, random_state=0).fit(X, Y)
    >>> from mlviz.figures.clems import fitted_embedding_figure
    >>> from mlviz.figures.hypercube import labelset_text
    >>> fig = fitted_embedding_figure(model, labelset_text(model.candidates_, ds.label_names))
    >>> len(fig.data[0].x) == len(model.candidates_)
    True
    """
    return embedding_figure(
        model.embedding_truth_,
        model.embedding_pred_,
        model.candidate_counts_,
        model.candidates_.sum(axis=1),
        labelset_text,
        not model.mirrored_,
        predicted=predicted,
        nearest=nearest,
        nearest_costs=nearest_costs,
        title=title,
    )


def shepard_pairs(n: int, mirrored: bool) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i, j) the Shepard diagram compares, before any subsampling.

    Symmetric: every unordered off-diagonal pair once (i < j, row-major). Mirrored: every
    ordered truth-prediction pair (i, j), diagonal included, because the mirrored stress
    (Eq. 2) weighs all of them, including c(y_i, y_i) = 0 against d(u_i^(t), u_i^(p)).

    Examples
    --------
    >>> from mlviz.figures.clems import shepard_pairs
    >>> rows, cols = shepard_pairs(3, mirrored=False)
    >>> rows.tolist(), cols.tolist()
    ([0, 0, 1], [1, 2, 2])
    """
    if mirrored:
        rows, cols = np.divmod(np.arange(n * n), n)
        return rows, cols
    return np.triu_indices(n, k=1)


def shepard_figure(
    cost: np.ndarray,
    distances: np.ndarray,
    stress: float,
    *,
    dissimilarity: str = "sqrt",
    mirrored: bool = False,
    max_points: int = MAX_SHEPARD_POINTS,
    labelset_text: Sequence[str] | None = None,
    stress_name: str = "stress",
    max_hover_chars: int | None = MAX_SHEPARD_HOVER_CHARS,
) -> go.Figure:
    """Target dissimilarity against embedded distance for every compared pair; y = x is perfect.

    Parameters
    ----------
    cost : ndarray, shape (n, n)
        ``cost[i, j] = c(y_i, y_j)``, y_i as ground truth and y_j as prediction.
    distances : ndarray, shape (n, n) or (2n, 2n)
        Symmetric cost: distances between the embedded candidates. Mirrored: ``distances[i,
        j] = d(u_i^(t), u_j^(p))``, or the full (2n, 2n) distance matrix of the mirrored
        objects, truth role first, of which the top-right block is used.
    stress : float
        The MDS stress reached, shown in the title as given.
    dissimilarity : {"sqrt", "cost"}, default="sqrt"
        Target dissimilarity of the MDS: ``sqrt(cost)`` or the cost itself. Paper 002
        (section 3.2) uses the cost; the square root is the variant of the authors' later
        journal version and mlviz's default.
    mirrored : bool, default=False
        Whether the embedding used the mirroring trick (asymmetric cost, section 3.3).
    max_points : int, default=MAX_SHEPARD_POINTS
        More pairs than this are subsampled **deterministically**: a fixed-seed
        (``numpy.random.default_rng(0)``) choice of ``max_points`` pairs without
        replacement, kept in pair order, so the same inputs always give the same picture.
        Pass a larger value to draw every pair.
    labelset_text : sequence of str, optional
        Readable candidate label sets for the hover.
    stress_name : str, default="stress"
        What ``stress`` is, for the title (e.g. "Kruskal stress-1" for ``CLEMS.stress1_``).
    max_hover_chars : int or None, default=MAX_SHEPARD_HOVER_CHARS
        With ``labelset_text``, at most about this many characters of names in the hover
        text: fewer pairs are drawn (``max_hover_chars`` over the average length of a pair's
        text, but at least :data:`MIN_SHEPARD_POINTS`), subsampled as above. None: no bound.
        The title says how many pairs are drawn.

    Returns
    -------
    plotly.graph_objects.Figure
        Trace 0 holds the pairs (``x`` dissimilarity, ``y`` distance, ``customdata`` the
        index pair); trace 1 is the line y = x.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.clems import shepard_figure
    >>> cost = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.25], [0.5, 0.25, 0.0]])
    >>> fig = shepard_figure(cost, np.sqrt(cost), stress=0.0)  # a perfect embedding: on y = x
    >>> len(fig.data), len(fig.data[0].x)
    (2, 3)
    """
    if dissimilarity not in ("sqrt", "cost"):
        raise ValueError(
            f"shepard_figure: dissimilarity must be 'sqrt' or 'cost'; got {dissimilarity!r}."
        )
    cost = np.asarray(cost, dtype=float)
    distances = np.asarray(distances, dtype=float)
    if cost.ndim != 2 or cost.shape[0] != cost.shape[1]:
        raise ValueError(f"shepard_figure: cost must be a square matrix; got shape {cost.shape}.")
    n = cost.shape[0]
    if mirrored and distances.shape == (2 * n, 2 * n):
        distances = distances[:n, n:]
    if distances.shape != (n, n):
        expected = f"({n}, {n})" + (f" or ({2 * n}, {2 * n})" if mirrored else "")
        raise ValueError(
            f"shepard_figure: distances must have shape {expected} to match cost; "
            f"got {distances.shape}."
        )
    if np.any(cost < 0):
        raise ValueError("shepard_figure: costs must be non-negative.")
    names = None
    if labelset_text is not None:
        names = np.asarray(plain_all(labelset_text), dtype=object)  # user text, shown as is
        if names.size != n:
            raise ValueError(f"shepard_figure: {names.size} labelset_text entries for {n} sets.")
        if max_hover_chars is not None:
            # a pair's text is two names and " → "; pairs are drawn uniformly, so on average
            pair_chars = 2 * float(np.mean([len(name) for name in names])) + 3
            max_points = min(max_points, max(MIN_SHEPARD_POINTS, int(max_hover_chars / pair_chars)))
    rows, cols = shepard_pairs(n, mirrored)
    total = rows.size
    if total > max_points:
        keep = np.sort(np.random.default_rng(0).choice(total, size=max_points, replace=False))
        rows, cols = rows[keep], cols[keep]
    target = cost[rows, cols]
    if dissimilarity == "sqrt":
        target = np.sqrt(target)
    embedded = distances[rows, cols]
    if names is not None:
        hover = np.char.add(np.char.add(names[rows].astype(str), " → "), names[cols].astype(str))
        text, template = hover, "%{text}<br>"
    else:
        text, template = None, "pair (%{customdata[0]}, %{customdata[1]})<br>"
    x_title = (
        "target dissimilarity √c(yᵢ, yⱼ)"
        if dissimilarity == "sqrt"
        else "target dissimilarity c(yᵢ, yⱼ)"
    )
    fig = go.Figure(
        go.Scattergl(
            x=target,
            y=embedded,
            mode="markers",
            name="pairs of label sets",
            customdata=np.column_stack([rows, cols]),
            text=text,
            marker=dict(size=4, opacity=0.35, color="#1f77b4"),
            hovertemplate=template + "target %{x:.3f}<br>distance %{y:.3f}<extra></extra>",
        )
    )
    top = float(max(target.max(initial=0.0), embedded.max(initial=0.0))) or 1.0
    fig.add_trace(
        go.Scatter(
            x=[0, top],
            y=[0, top],
            mode="lines",
            name="perfect fit (y = x)",
            line=dict(color="#d62728", dash="dash"),
            hoverinfo="skip",
        )
    )
    shown = f"{rows.size:,} of {total:,} pairs" if rows.size < total else f"{total:,} pairs"
    roles = "; truth role against prediction role" if mirrored else ""
    fig.update_layout(
        title=f"Shepard diagram: {stress_name} = {stress:.4g} ({shown}{roles})",
        xaxis_title=x_title,
        yaxis_title="distance in the embedding",
        margin=dict(t=50, b=10),
    )
    return legible(fig)
