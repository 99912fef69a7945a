"""Every model fit the Lesson makes, through the app's fit cache (:mod:`pages._app.fitting`).

Models come from the method registry (:data:`mlviz.methods.METHODS`) with the step's
settings, so a Lesson step and a method page with the same settings share one cached fit.
Each function returns the fitted model (or result), or None when the fit failed: the
library's error has been shown then, and the cache never returns another data set's,
another page's or other label columns' result.
"""

from __future__ import annotations

from typing import Any

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
