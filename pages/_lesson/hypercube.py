"""Step 1: the label hypercube {0,1}^L and the few corners a data set occupies (PLST, §2)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from mlviz.figures import hypercube as cube_figures
from pages._lesson import fits
from pages._lesson.state import (
    Lesson,
    chart,
    explain,
    formula,
    shared_figure,
    try_this,
    user_text,
)
from pages._lesson.text import count, labelset, legend_at_bottom, notice

MAX_DRAWN_SETS = 300  # label sets drawn in step 1 (the most frequent ones)
MAX_AXES = 12  # label axes drawn in step 1's biplot (the longest ones) ...
AXIS_SHARE = 0.25  # ... of those at least this share of the longest axis


def show(c: Lesson) -> None:
    ds, L = c.ds, c.L
    formula(
        r"\mathbf{y}\in\{0,1\}^{L}\ \text{(a vertex of the hypercube)},\qquad "
        r"\Delta(\hat{\mathbf{y}},\mathbf{y})=\frac{1}{L}\sum_{l=1}^{L}"
        r"[\![\hat{y}_l\neq y_l]\!]\ \text{(Hamming loss)}"
    )
    explain(
        "Every label set is a corner of the cube $\\{0,1\\}^L$, and the Hamming loss counts "
        "the labels in which two corners differ. A data set occupies only a few of the $2^L$ "
        "corners (PLST paper, §2): the sparsity every label embedding exploits."
    )
    occupied = fits.occupied_vertices(c)
    if occupied is None:
        return
    vertices, counts = occupied
    n_sets = len(vertices)
    possible = (
        f"$2^{{{L}}}$ = {2**L:,}"
        if L <= 40
        else f"$2^{{{L}}} \\approx 10^{{{L * np.log10(2):.0f}}}$"
    )
    points = [
        f"**{n_sets:,}** of the {possible} possible label sets occur in the "
        f"{ds.n_samples:,} instances.",
        f"The most frequent set, {labelset(vertices[0], c.names)}, holds "
        f"{_share(int(counts[0]), int(counts.sum()))} of the instances; "
        + (
            count(int((counts == 1).sum()), "set occurs", "sets occur") + " only once."
            if (counts == 1).any()
            else "every set occurs at least twice."
        ),
    ]
    if L == 3:
        _corners(c, vertices, counts, points)
    else:
        _projection(c, vertices, counts, points)


def _share(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a percentage that is never rounded to 0 % (one set of 1,500
    instances is 0.067 %, not "0%")."""
    share = part / whole
    return f"{share:.0%}" if share >= 0.01 else f"{100 * share:.2g}%"


def _corners(c: Lesson, vertices: np.ndarray, counts: np.ndarray, points: list[str]) -> None:
    """Three labels: the cube itself, with PLST's plane (M = 2) on request."""
    names, n_sets = c.names, len(vertices)
    key = "lesson_cube_directions"
    c.ensure(key, lambda v: isinstance(v, bool))
    draw = c.bound(st.checkbox, "Draw PLST's two principal directions through o", key=key)
    try_this(
        "hypercube",
        "draw PLST's principal directions",
        {key: True},
        why_disabled="They are drawn." if draw else "",
    )
    plst = fits.plst(c, 2)
    if not fits.fits_this_data(plst):
        return
    chart(
        cube_figures.cube_figure(
            vertices,
            counts,
            names,
            offset=plst.offset_,
            directions=plst.components_[:2] if draw else None,
        ),
        key="lesson_cube",
    )
    empty = 8 - n_sets
    points.append(
        f"{count(empty, 'of the 8 corners is', 'of the 8 corners are')} empty (hollow)."
        if empty
        else "All 8 corners are occupied."
    )
    if draw:
        kept = float(plst.explained_variance_ratio_.sum())  # NaN without label variance
        points.append(
            "The lines are the plane PLST keeps with M = 2 through the mean o (×): "
            + (
                f"it keeps {kept:.0%} of the label variance."
                if np.isfinite(kept)
                else "every instance has the same label set, so there is no variance to keep."
            )
        )
    notice(points)


def _projection_figure(coords, vertices, counts, edges, names, arrows, arrow_names, title):
    """The biplot of :func:`_projection`, built once per data set and settings for every
    session (:func:`pages._lesson.state.shared_figure`): a class opens this step together."""
    fig = cube_figures.hypercube_figure(
        coords,
        vertices,
        counts,
        edges,
        names,
        loadings=arrows,
        title=title,
        arrow_names=arrow_names,
    )
    fig.update_layout(xaxis_title="principal direction 1", yaxis_title="principal direction 2")
    return legend_at_bottom(fig)


def _projection(c: Lesson, vertices: np.ndarray, counts: np.ndarray, points: list[str]) -> None:
    """More labels: the occupied label sets along PLST's first two directions (a biplot)."""
    names = c.names
    key = "lesson_cube_axes"
    c.ensure(key, lambda v: isinstance(v, bool))
    axes = c.bound(st.checkbox, "Draw each label's axis (biplot)", key=key)
    try_this(
        "hypercube",
        "draw each label's axis",
        {key: True},
        why_disabled="The axes are drawn." if axes else "",
    )
    projection = fits.vertex_projection(vertices, counts)
    if projection is None:
        return
    view = fits.biplot(
        vertices,
        counts,
        projection,
        axes=bool(axes),
        max_sets=MAX_DRAWN_SETS,
        max_axes=MAX_AXES,
        axis_share=AXIS_SHARE,
    )
    if view is None:
        return
    if view.longest_axis is not None:
        points.append(
            "The longest axis is **"
            f"{user_text(names[view.longest_axis])}**: the two directions follow it most. Short "
            "axes are labels this 2-D view (PLST with M = 2) hardly sees."
        )
    edges = view.edges
    fig = shared_figure(
        _projection_figure,
        view.coords,
        view.vertices,
        view.counts,
        edges,
        names,
        view.arrows,
        [names[j] for j in view.axes],
        view.title,
    )
    chart(fig, key="lesson_hypercube")
    points.append(
        (
            count(len(edges), "pair of the drawn sets is", "pairs of the drawn sets are")
            + " one label apart (grey lines). "
            if len(edges)
            else "No two drawn sets are one label apart. "
        )
        + "Sets drawn on top of each other differ only along directions this view leaves out."
    )
    notice(points)
