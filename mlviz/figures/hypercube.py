"""Figures of the Hypercube page: occupied vertices of {0,1}^L and PLST's directions."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

import numpy as np
import plotly.graph_objects as go
import scipy.sparse as sp

from mlviz.figures._style import (
    DIRECTION_COLORS,
    GROUP_COLORS,
    NO_GROUP_COLOR,
    count_marker_sizes,
    integer_ticks,
    legible,
    plain,
    plain_all,
)

#: Label names listed in one label set's text until it is this long; the rest are counted.
#: A label set of an upload with thousands of labels can hold 1,500 of them: listed in full,
#: the CLEMS page's hover texts were hundreds of MB and took a minute to draw (issue 24).
MAX_LABELSET_CHARS = 160


def labelset_text(
    vertices: np.ndarray, label_names: Sequence[str], *, max_chars: int = MAX_LABELSET_CHARS
) -> list[str]:
    """Human-readable label set of each vertex ('∅' for the empty set).

    Names are listed in label order while the text stays within ``max_chars`` characters
    (at least one name is listed, cut to ``max_chars`` if it alone is longer: an upload's
    name can be 100,000 characters, and the CLEMS page pairs these texts for every candidate
    pair); the others are counted ("… +1,497 more").

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.hypercube import labelset_text
    >>> labelset_text(np.array([[1, 0, 1], [0, 0, 0]]), ["a", "b", "c"])
    ['{a, c}', '∅']
    >>> labelset_text(np.ones((1, 5)), ["alpha", "beta", "gamma", "delta", "eps"], max_chars=14)
    ['{alpha, beta, … +3 more}']
    >>> labelset_text(np.ones((1, 2)), ["x" * 100_000, "b"], max_chars=6)
    ['{xxxxx…, … +1 more}']
    """
    # Vectorised over CSR (the CLEMS page lists ~12,000 candidate sets of 983 labels, and a
    # loop over every row's labels was ~0.15 s of its first run): each name is converted and
    # cut once, and a row lists its first names while the running length allows (the length
    # before a name plus the name's own is increasing along a row, so the names listed are
    # those where it is within max_chars, and at least one).
    rows = sp.csr_matrix(vertices) if sp.issparse(vertices) else sp.csr_matrix(np.asarray(vertices))
    rows.eliminate_zeros()
    rows.sort_indices()
    cut = [str(name) for name in label_names]
    cut = [n if len(n) <= max_chars else n[: max(1, max_chars - 1)] + "…" for n in cut]
    lengths = np.fromiter((len(n) for n in cut), dtype=np.int64, count=len(cut))
    widths = lengths[rows.indices] + 2  # each name and its ", "
    running = np.cumsum(widths)
    counts = np.diff(rows.indptr)
    row_start = np.zeros(len(counts), dtype=np.int64)
    nonempty = counts > 0
    row_start[nonempty] = (running - widths)[rows.indptr[:-1][nonempty]]
    # within its row: the length of the names before this one and of this one
    reach = running - 2 - np.repeat(row_start, counts)
    fits = (reach <= max_chars).astype(np.int64)
    listed = np.add.reduceat(fits, rows.indptr[:-1][nonempty]) if nonempty.any() else 0
    n_listed = np.zeros(len(counts), dtype=np.int64)
    n_listed[nonempty] = np.maximum(listed, 1)
    names = np.array(cut, dtype=object)[rows.indices].tolist()
    texts = []
    for first, count, shown in zip(
        rows.indptr[:-1].tolist(), counts.tolist(), n_listed.tolist(), strict=True
    ):
        if count == 0:
            texts.append("∅")
            continue
        rest = count - shown
        body = ", ".join(names[first : first + shown])
        texts.append("{" + body + (f", … +{rest:,} more" if rest else "") + "}")
    return texts


def _marker_sizes(counts: np.ndarray) -> np.ndarray:
    """Vertex diameters (px): areas proportional to the instances (6 to 36 px)."""
    return count_marker_sizes(counts, largest=36, smallest=6)


def _edge_lines(coords: np.ndarray, edges: np.ndarray) -> list[np.ndarray]:
    """Coordinates of all edges as one polyline per axis, separated by None (NaN) gaps."""
    if len(edges) == 0:
        return [np.array([]) for _ in range(coords.shape[1])]
    seg = np.full((len(edges), 3, coords.shape[1]), np.nan)
    seg[:, 0] = coords[edges[:, 0]]
    seg[:, 1] = coords[edges[:, 1]]
    flat = seg.reshape(-1, coords.shape[1])
    return [flat[:, d] for d in range(coords.shape[1])]


def hypercube_figure(
    coords: np.ndarray,
    vertices: np.ndarray,
    counts: np.ndarray,
    edges: np.ndarray,
    label_names: Sequence[str],
    *,
    color: np.ndarray | None = None,
    color_title: str = "labels in set",
    loadings: np.ndarray | None = None,
    title: str = "Occupied vertices of the label hypercube",
    axis_titles: Sequence[str] = ("projection axis 1", "projection axis 2", "projection axis 3"),
    equal_aspect: bool = False,
    max_arrow_names: int = 12,
    arrow_names: Sequence[str] | None = None,
) -> go.Figure:
    """Occupied vertices as nodes (size ~ sqrt(count)), Hamming-1 edges as lines.

    Parameters
    ----------
    coords : ndarray, shape (n_vertices, 2 or 3)
    vertices : ndarray of 0/1, shape (n_vertices, n_labels)
    counts : ndarray, shape (n_vertices,)
    edges : ndarray of int, shape (n_edges, 2)
    color : ndarray, shape (n_vertices,), optional
        Colour value per vertex; default the number of labels in the set (a continuous
        scale). Integer values given here are categories (group ids, as from
        ``mlviz.hypercube.dominant_group``): one categorical colour and legend entry each,
        with -1 named "empty label set".
    loadings : ndarray, shape (n_labels, 2 or 3), optional
        Direction of each label axis in the projection, drawn as arrows from the origin
        (a biplot) when given. As in a biplot the arrows are scaled together so that the
        longest reaches 90 % of the farthest vertex coordinate (unit-length loadings
        under a cloud several units wide would pile their names on the origin); the legend
        states the factor.
    axis_titles : sequence of str
        Titles of the projection's axes.
    equal_aspect : bool, default=False
        One unit the same length on both axes (2-D). Off by default: the projection then
        uses the column's width; distances along the two axes are not comparable.
    max_arrow_names : int, default=12
        Name at most this many label arrows, the longest first (names of short arrows pile
        up at the origin). In 2-D an arrow's name is also left off where it would be drawn
        over the name of a longer arrow (estimated for the projector's layout); every tip
        still shows its label's name on hover, and the legend says how many are named.
    arrow_names : sequence of str, optional
        The label of each row of ``loadings`` when they are some labels' axes only (the
        Lesson draws the longest); default ``label_names``, one arrow per label.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.hypercube import hypercube_figure
    >>> from mlviz.hypercube import hamming_edges, occupied_vertices, project_vertices
    >>> Y = np.array([[1, 0, 0], [1, 1, 0], [1, 1, 0], [0, 0, 1]])
    >>> vertices, counts = occupied_vertices(Y)
    >>> coords, loadings = project_vertices(vertices, counts, method="pca")
    >>> fig = hypercube_figure(coords, vertices, counts, hamming_edges(vertices), ["a", "b", "c"])
    >>> len(hamming_edges(vertices)), len(fig.data) >= 2
    (1, True)
    """
    coords = np.asarray(coords, dtype=float)
    dim = coords.shape[1]
    # label names are user text: cut by their own length, then shown, never rendered as HTML
    text = plain_all(labelset_text(vertices, label_names))
    categorical = color is not None and np.issubdtype(np.asarray(color).dtype, np.integer)
    color = np.asarray(vertices).sum(axis=1) if color is None else np.asarray(color)
    counts = np.asarray(counts)
    hover = np.array([f"{t}<br>{c} instances" for t, c in zip(text, counts, strict=True)])
    edge_axes = _edge_lines(coords, np.asarray(edges, dtype=int).reshape(-1, 2))
    sizes = _marker_sizes(counts) / (2 if dim == 3 else 1)
    scatter = go.Scatter3d if dim == 3 else go.Scatter
    fig = go.Figure()
    fig.add_trace(
        scatter(
            **dict(zip("xyz", edge_axes, strict=False)),
            mode="lines",
            line=dict(color="rgba(120,120,120,0.45)", width=2 if dim == 3 else 1),
            hoverinfo="skip",
            name="one label apart",
        )
    )
    if categorical:
        for group in np.unique(color):
            rows = color == group
            name = "−1: empty label set" if group == -1 else f"{color_title} {group}"
            fig.add_trace(
                scatter(
                    **dict(zip("xyz", coords[rows].T, strict=False)),
                    mode="markers",
                    marker=dict(
                        size=sizes[rows],
                        color=(
                            GROUP_COLORS[int(group) % len(GROUP_COLORS)]
                            if group >= 0
                            else NO_GROUP_COLOR
                        ),
                        line=dict(width=0.5, color="white"),
                    ),
                    text=hover[rows],
                    hovertemplate="%{text}<extra></extra>",
                    name=name,
                )
            )
    else:
        fig.add_trace(
            scatter(
                **dict(zip("xyz", coords.T, strict=False)),
                mode="markers",
                marker=dict(
                    size=sizes,
                    color=color,
                    colorscale="Viridis",
                    # below the legend, in the same column right of the plot
                    colorbar=dict(
                        title=color_title,
                        y=0,
                        yanchor="bottom",
                        len=0.6,
                        # counts of labels: whole-number ticks, at most 6 on a bar 0.6 of
                        # the plot high (one per count from 1 to 11 overlapped on yeast
                        # while presenting, 1280 x 720)
                        **(
                            integer_ticks(color.min(), color.max(), max_ticks=5)
                            if np.issubdtype(color.dtype, np.integer)
                            else {}
                        ),
                    ),
                    line=dict(width=0.5, color="white"),
                ),
                text=hover,
                hovertemplate="%{text}<extra></extra>",
                name="label sets",
            )
        )
    if loadings is not None:
        loadings = np.asarray(loadings, dtype=float)
        longest, reach = np.linalg.norm(loadings, axis=1).max(), np.abs(coords).max()
        scale = 0.9 * reach / longest if longest > 0 and reach > 0 else 1.0
        tips = scale * loadings
        # what the plot shows (plotly's autorange holds every point and every arrow's tip)
        shown = np.vstack([coords, tips, np.zeros((1, dim))])
        extent = np.array([shown.min(axis=0), shown.max(axis=0)])
        names = label_names if arrow_names is None else arrow_names
        if len(names) != len(loadings):
            raise ValueError(
                f"hypercube_figure: {len(loadings)} label axes but {len(names)} names for them; "
                "pass arrow_names when the axes are some labels' only."
            )
        _add_label_arrows(fig, tips, names, max_arrow_names, scale, extent)
    fig.update_layout(
        title=title,
        showlegend=True,
        margin=dict(t=50, l=10, r=10, b=10),
    )
    if dim == 2:
        fig.update_xaxes(title_text=axis_titles[0])
        fig.update_yaxes(title_text=axis_titles[1])
        if equal_aspect:
            fig.update_yaxes(scaleanchor="x", scaleratio=1)
    else:
        fig.update_scenes(
            xaxis_title=axis_titles[0], yaxis_title=axis_titles[1], zaxis_title=axis_titles[2]
        )
    return legible(fig)


#: The plot area a 2-D biplot gets at the projector's 1280 x 720 with the sidebar open (px,
#: measured on yeast: ~470 x 290), and the box of a name at plotly's 12 px font (~7 px per
#: character, one 16 px line): where two names' boxes would meet, the shorter arrow's name
#: is left off. A wider plot (sidebar collapsed, a wider window) only moves names apart.
_BIPLOT_PLOT_PX = (460.0, 280.0)
#: An arrow's name is cut to this many characters (an upload's name can be 100,000 long).
MAX_ARROW_NAME_CHARS = 80
_NAME_CHAR_PX, _NAME_LINE_PX, _NAME_GAP_PX = 7.0, 16.0, 4.0


def _names_that_fit(
    tips: np.ndarray, names: Sequence[str], extent: np.ndarray, max_names: int
) -> tuple[np.ndarray, np.ndarray]:
    """Which arrows to name on a 2-D biplot, and on which side of its tip each name goes.

    The longest arrows first, at most ``max_names``: a name goes beside its tip, outward
    (right of a tip right of the origin, left otherwise), or on the other side when the
    outward side would run past the plot's edge (plotly cuts it there); it is kept only if
    that box lies within the plot's width and meets none of the names kept before it.
    ``extent`` is ``[[x_min, y_min], [x_max, y_max]]`` of what the plot shows. Returns the
    named indices (sorted) and, for every tip, ``True`` where its name goes right of it.

    Plotly places text without avoiding collisions or the plot's edges, so on yeast the names
    of arrows that point alike were drawn over each other, and on ~1,000 labels a name at the
    right edge was cut; the boxes are estimated in pixels from the plot area of the
    projector layout (``_BIPLOT_PLOT_PX``). Every tip names its label on hover.

    Examples
    --------
    >>> import numpy as np
    >>> tips = np.array([[1.0, 0.0], [0.98, 0.01], [-0.5, 0.0]])
    >>> extent = np.array([[-1.0, -1.0], [1.0, 1.0]])
    >>> named, right = _names_that_fit(tips, ["a", "b", "c"], extent, max_names=12)
    >>> named.tolist(), right.tolist()  # b sits on a; names at the right edge go left
    ([0, 2], [False, False, False])
    """
    plot_w, plot_h = _BIPLOT_PLOT_PX
    span = np.where(extent[1] > extent[0], extent[1] - extent[0], 1.0)
    pixels = (tips - extent[0]) / span * np.array(_BIPLOT_PLOT_PX)
    pixels[:, 1] = plot_h - pixels[:, 1]  # screen y grows downwards
    right = tips[:, 0] >= 0
    kept: list[int] = []
    boxes: list[tuple[float, float, float, float]] = []
    for i in np.argsort(-np.linalg.norm(tips, axis=1), kind="stable"):
        if len(kept) == max_names:
            break
        width = _NAME_CHAR_PX * len(names[i])
        x, y = pixels[i]
        # outward, unless that runs past the plot's left or right edge (above and below,
        # plotly's autorange leaves room for a line around every point)
        outward = x + _NAME_GAP_PX + width <= plot_w if right[i] else x - _NAME_GAP_PX >= width
        right[i] = right[i] if outward else not right[i]
        left = x + _NAME_GAP_PX if right[i] else x - _NAME_GAP_PX - width
        box = (left, left + width, y - _NAME_LINE_PX / 2, y + _NAME_LINE_PX / 2)
        inside = box[0] >= 0 and box[1] <= plot_w
        if inside and all(
            box[0] >= other[1] or other[0] >= box[1] or box[2] >= other[3] or other[2] >= box[3]
            for other in boxes
        ):
            kept.append(int(i))
            boxes.append(box)
    return np.sort(np.array(kept, dtype=int)), right


def _add_label_arrows(
    fig: go.Figure,
    loadings: np.ndarray,
    label_names: Sequence[str],
    max_names: int,
    scale: float = 1.0,
    extent: np.ndarray | None = None,
) -> None:
    dim = loadings.shape[1]
    cut = [str(name) for name in label_names]
    cut = [
        n if len(n) <= MAX_ARROW_NAME_CHARS else n[: MAX_ARROW_NAME_CHARS - 1] + "…" for n in cut
    ]
    every = plain_all(cut)  # user text: shown, never rendered
    if dim == 2 and extent is not None:
        # boxes as wide as the names read, not as their escaped text
        named, right = _names_that_fit(loadings, cut, extent, max_names)
        names_legend = (
            "label names"
            if len(named) == len(loadings)
            else f"names of {len(named)} of {len(loadings)} arrows"
        )
    else:
        lengths = np.linalg.norm(loadings, axis=1)
        named = np.sort(np.argsort(-lengths, kind="stable")[:max_names])
        right = loadings[:, 0] >= 0
        names_legend = (
            "label names"
            if len(named) == len(loadings)
            else f"names of the {len(named)} longest of {len(loadings)} arrows"
        )
    names = [every[i] for i in named]
    axes_legend = "label axes" + (f" (× {scale:.2g})" if abs(scale - 1) > 0.01 else "")
    xs, ys, zs = [], [], []
    for tip in loadings:
        tips = np.vstack([np.zeros(dim), tip])
        xs += [*tips[:, 0], None]
        ys += [*tips[:, 1], None]
        if dim == 3:
            zs += [*tips[:, 2], None]
    if dim == 3:
        fig.add_trace(
            go.Scatter3d(
                x=xs,
                y=ys,
                z=zs,
                mode="lines",
                name=axes_legend,
                line=dict(color="#d62728", width=3),
                hoverinfo="skip",
            )
        )
        fig.add_trace(
            go.Scatter3d(
                x=loadings[named, 0],
                y=loadings[named, 1],
                z=loadings[named, 2],
                mode="text",
                text=names,
                name=names_legend,
                textfont=dict(color="#d62728"),
            )
        )
    else:
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                name=axes_legend,
                line=dict(color="#d62728", width=1.5),
                hoverinfo="skip",
            )
        )
        shown = np.zeros(len(loadings), dtype=bool)
        shown[named] = True
        fig.add_trace(
            go.Scatter(
                x=loadings[:, 0],
                y=loadings[:, 1],
                mode="text",
                # every tip answers a hover with its label's name; the names that fit are shown
                text=[name if on else "" for name, on in zip(every, shown, strict=True)],
                hovertext=every,
                hovertemplate="%{hovertext}<extra>label axis</extra>",
                name=names_legend,
                textfont=dict(color="#d62728"),
                # outward from the origin, so names of neighbouring arrows part, unless that
                # runs past the plot's edge (_names_that_fit)
                textposition=np.where(right, "middle right", "middle left"),
            )
        )


def cube_figure(
    vertices: np.ndarray,
    counts: np.ndarray,
    label_names: Sequence[str],
    *,
    offset: np.ndarray | None = None,
    directions: np.ndarray | None = None,
    title: str = "The label cube {0,1}³",
) -> go.Figure:
    """A literal 3-D cube for 3-label data, with PLST's principal directions through o.

    Parameters
    ----------
    vertices, counts : occupied vertices (n, 3) and their instance counts.
    offset : ndarray, shape (3,), optional
        PLST's reference point o (the label mean).
    directions : ndarray, shape (M, 3), optional
        PLST's principal directions (rows of P), drawn as lines o ± t p_m.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.figures.hypercube import cube_figure
    >>> from mlviz.hypercube import occupied_vertices
    >>> vertices, counts = occupied_vertices(np.array([[1, 0, 0], [1, 1, 0], [0, 0, 1]]))
    >>> fig = cube_figure(vertices, counts, ["a", "b", "c"])
    >>> fig.layout.title.text
    'The label cube {0,1}³'
    """
    if np.asarray(vertices).shape[1] != 3:
        raise ValueError("cube_figure draws 3-label data only; use hypercube_figure otherwise.")
    corners = np.array(list(product([0, 1], repeat=3)), dtype=float)
    cube_edges = np.array(
        [
            (i, j)
            for i in range(8)
            for j in range(i + 1, 8)
            if np.abs(corners[i] - corners[j]).sum() == 1
        ]
    )
    ex, ey, ez = _edge_lines(corners, cube_edges)
    fig = go.Figure(
        go.Scatter3d(
            x=ex,
            y=ey,
            z=ez,
            mode="lines",
            name="cube edges",
            line=dict(color="rgba(150,150,150,0.6)", width=2),
            hoverinfo="skip",
        )
    )
    occupied = {tuple(v) for v in np.asarray(vertices, dtype=int)}
    empty = np.array([c for c in corners if tuple(c.astype(int)) not in occupied])
    if len(empty):
        fig.add_trace(
            go.Scatter3d(
                x=empty[:, 0],
                y=empty[:, 1],
                z=empty[:, 2],
                mode="markers",
                name="empty vertex",
                marker=dict(size=4, color="white", line=dict(color="gray", width=1)),
                text=plain_all(labelset_text(empty, label_names)),
                hovertemplate="%{text}: no instances",
            )
        )
    V = np.asarray(vertices, dtype=float)
    text = plain_all(labelset_text(V, label_names))  # user text: shown, never rendered
    fig.add_trace(
        go.Scatter3d(
            x=V[:, 0],
            y=V[:, 1],
            z=V[:, 2],
            mode="markers+text",
            name="occupied vertex",
            marker=dict(size=_marker_sizes(counts) / 2, color=V.sum(axis=1), colorscale="Viridis"),
            text=text,
            textposition="top center",
            customdata=np.asarray(counts),
            hovertemplate="%{text}: %{customdata} instances",
        )
    )
    if offset is not None:
        o = np.asarray(offset, dtype=float)
        fig.add_trace(
            go.Scatter3d(
                x=[o[0]],
                y=[o[1]],
                z=[o[2]],
                mode="markers",
                name="o (mean)",
                marker=dict(size=6, color="black", symbol="x"),
            )
        )
        if directions is not None:
            for m, p in enumerate(np.asarray(directions, dtype=float)):
                ends = np.vstack([o - 0.8 * p, o + 0.8 * p])
                fig.add_trace(
                    go.Scatter3d(
                        x=ends[:, 0],
                        y=ends[:, 1],
                        z=ends[:, 2],
                        mode="lines",
                        name=f"principal direction {m + 1}",
                        line=dict(color=DIRECTION_COLORS[m % len(DIRECTION_COLORS)], width=6),
                    )
                )
    fig.update_layout(
        title=title,
        scene=dict(
            xaxis_title=plain(label_names[0]),
            yaxis_title=plain(label_names[1]),
            zaxis_title=plain(label_names[2]),
            aspectmode="cube",
        ),
        margin=dict(t=50, l=0, r=0, b=0),
    )
    return legible(fig, legend=False)
