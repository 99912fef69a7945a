"""Every model fit the Lesson makes, through the app's fit cache (:mod:`pages._app.fitting`).

Models come from the method registry (:data:`mlviz.methods.METHODS`) with the step's
settings, so a Lesson step and a method page with the same settings share one cached fit.
Each function returns the fitted model (or result), or None when the fit failed: the
library's error has been shown then, and the cache never returns another data set's,
another page's or other label columns' result.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from mlviz import hypercube
from mlviz.clems import CLEMS
from mlviz.grople import GroPLE, LambdaBounds
from mlviz.label_clustering import LabelClustering
from mlviz.linear import PLST
from mlviz.methods import METHODS
from mlviz.metrics import per_label_f1 as _per_label_f1
from mlviz.mlknn import MLkNN
from pages._app import experiment, fitting, grople_bounds, source
from pages._lesson.state import Lesson


def _fit(c: Lesson, label: str, method: str, **settings: Any) -> Any:
    """A registry method fitted on the training split (the pages' fit when settings match):
    the step's settings over the registry's at the step's preset (:meth:`Lesson.opening`)."""
    return fitting.fit(METHODS[method].make(**{**c.opening(method), **settings}), label=label)


def fits_this_data(model: Any) -> bool:
    """False when there is no model: :func:`fitting.fit` never returns another data set's."""
    return model is not None


def _occupied_vertices() -> tuple[np.ndarray, np.ndarray]:
    return hypercube.occupied_vertices(source.current_dataset().Y)


def occupied_vertices(c: Lesson) -> tuple[np.ndarray, np.ndarray] | None:
    """Step 1: the distinct label sets of the whole data set and their counts."""
    del c  # the whole loaded data set
    return fitting.compute(_occupied_vertices, label="Occupied label sets", uses_split=False)


def _vertex_pca(vertices: np.ndarray, counts: np.ndarray):
    return hypercube.project_vertices(
        vertices, counts, method="pca", n_components=2, random_state=0
    )


def vertex_projection(
    vertices: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """Step 1: the label sets along the first two principal directions, and the loadings."""
    return fitting.compute(
        _vertex_pca,
        {"vertices": vertices, "counts": counts},
        label="Projection of the label sets",
        uses_split=False,
    )


class Biplot(NamedTuple):
    """What step 1's biplot draws (a tuple: the cache keys each part by the computation
    that made it, so the shared figure hashes none of them on a rerun)."""

    coords: np.ndarray
    vertices: np.ndarray
    counts: np.ndarray
    edges: np.ndarray
    #: the drawn label axes (scaled loadings) and their label columns, or None and ()
    arrows: np.ndarray | None
    axes: tuple[int, ...]
    title: str
    longest_axis: int | None


def _biplot(
    vertices: np.ndarray,
    counts: np.ndarray,
    projection,
    axes: bool,
    max_sets: int,
    max_axes: int,
    axis_share: float,
) -> Biplot:
    """The drawn sets, their one-label edges and (with ``axes``) the longest label axes, once
    per data set and choice (recomputed and hashed for the figure's key on every rerun, they
    were a sixth of the step's)."""
    coords, loadings = projection
    n_sets, L = vertices.shape
    shown = min(n_sets, max_sets)
    edges = hypercube.hamming_edges(vertices[:shown])
    title = "Occupied label sets along PLST's first two principal directions"
    if shown < n_sets:
        title += f"<br><sup>the {shown} most frequent of {n_sets:,} label sets</sup>"
    arrows, longest, top = None, (), None
    if axes:
        length = np.linalg.norm(loadings, axis=1)
        # short axes pile up unreadably at the origin: draw the long ones only
        long_enough = np.flatnonzero(length >= axis_share * length.max())
        chosen = np.sort(long_enough[np.argsort(-length[long_enough], kind="stable")][:max_axes])
        # a biplot's arrows are drawn to the cloud's scale, so their names spread out
        reach = np.abs(coords[:shown]).max()
        scale = 0.9 * reach / length.max() if reach > 0 and length.max() > 0 else 1.0
        # the builder shows their names as text (escaped), never as plotly's HTML
        arrows, longest = scale * loadings[chosen], tuple(int(j) for j in chosen)
        title += (
            f"<br><sup>label axes × {scale:.2g}"
            + (
                f"; the {len(chosen)} of {L} labels whose axis is at least "
                f"{axis_share:.0%} of the longest"
                if len(chosen) < L
                else ""
            )
            + "</sup>"
        )
        top = int(np.argmax(length))
    return Biplot(
        coords[:shown], vertices[:shown], counts[:shown], edges, arrows, longest, title, top
    )


def biplot(
    vertices: np.ndarray,
    counts: np.ndarray,
    projection,
    *,
    axes: bool,
    max_sets: int,
    max_axes: int,
    axis_share: float,
) -> Biplot | None:
    """Step 1: the ``max_sets`` most frequent sets along the projection, their one-label
    edges and (with ``axes``) the up to ``max_axes`` label axes at least ``axis_share`` of
    the longest, scaled to the cloud (:func:`_biplot`)."""
    return fitting.compute(
        _biplot,
        {
            "vertices": vertices,
            "counts": counts,
            "projection": projection,
            "axes": axes,
            "max_sets": max_sets,
            "max_axes": max_axes,
            "axis_share": axis_share,
        },
        label="The biplot",
        uses_split=False,
        small=True,
    )


def plst(c: Lesson, m: int) -> PLST | None:
    return _fit(c, "PLST", "PLST", M=m)


def clustering(c: Lesson, k: int, affinity: str) -> LabelClustering | None:
    del c
    return fitting.fit(
        LabelClustering(n_groups=k, affinity=affinity, random_state=0), label="Label clustering"
    )


def grople(c: Lesson, d: int, lambda1: float, lambda2: float) -> GroPLE | None:
    k, affinity = c.groups_settings()
    settings = {"d": d, "K": k, "affinity": affinity, "lambda1": lambda1, "lambda2": lambda2}
    return _fit(c, "GroPLE", "GroPLE", **settings)


def _step3_groups(c: Lesson) -> np.ndarray | None:
    """Step 3's label groups, on which step 4's GroPLE fits (None if they failed)."""
    if c.L < 3:
        return np.zeros(c.L, dtype=int)
    model = clustering(c, *c.groups_settings())
    return None if model is None else model.labels_


def grople_lambda_bounds(c: Lesson, d: int) -> LambdaBounds | None:
    """Both λ bounds of step 4's fit at ``d`` on step 3's groups
    (:func:`pages._app.grople_bounds.lambda_bounds`: the GroPLE page's own)."""
    groups = _step3_groups(c)
    return None if groups is None else grople_bounds.lambda_bounds(d, groups)


def grople_lambda1_max(bounds: LambdaBounds, lambda2: float) -> float | None:
    """λ1 above which step 4's fit is zero at ``lambda2`` (the GroPLE page's, as above)."""
    return grople_bounds.lambda1_max(bounds, lambda2)


def clems(c: Lesson, m: int, cost: str) -> CLEMS | None:
    return _fit(c, "CLEMS", "CLEMS", M=m, cost=cost)


def mlknn(c: Lesson, k: int) -> MLkNN | None:
    return _fit(c, "ML-KNN", "ML-KNN", k=k)


def _test_f1(method: str, model: Any) -> np.ndarray:
    del method  # what the result is (see fitting.compute's identity)
    split = experiment.current_split()
    predictions = model.predict(split.X_test)
    # nan: a label neither present nor predicted has no F1 (not a perfect 1, not a 0)
    return _per_label_f1(split.Y_test, predictions, zero_division=np.nan)


def per_label_f1(c: Lesson, method: str, params: dict[str, Any]) -> np.ndarray | None:
    """Step 7: ``method``'s test F1 per label, with the settings of its step."""
    model = _fit(c, method, method, **params)
    if model is None:
        return None
    # after a failure the last good result is the same method's
    return fitting.compute(
        _test_f1, {"method": method, "model": model}, label=f"{method} (F1)", identity=("method",)
    )
