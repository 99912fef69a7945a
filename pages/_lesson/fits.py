"""Every model fit the Lesson makes, through the app's fit cache (``shared.fit``).

Each function takes the run's :class:`~pages._lesson.state.Lesson` and the step's settings
and returns the fitted model (or result), or None when the fit failed: the library's error
has been shown then. ``shared.fit`` never returns another data set's result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mlviz import hypercube
from mlviz.clems import CLEMS
from mlviz.grople import GroPLE, lambda2_max
from mlviz.label_clustering import LabelClustering
from mlviz.linear import PLST
from mlviz.metrics import per_label_f1 as _per_label_f1
from mlviz.mlknn import MLkNN
from pages import _shared as shared
from pages._lesson.methods import LESSON_LAMBDA1, make_estimator
from pages._lesson.state import Lesson


def _fit(label: str, name: str, params: dict[str, Any], fn: Callable[[], Any]) -> Any:
    """Fit through the shared cache; on a library error it is shown and None returned."""
    return shared.fit(name, params, lambda _: fn(), label=label)


def fits_this_data(model: Any) -> bool:
    """False when there is no model: :func:`shared.fit` never returns another data set's."""
    return model is not None


def occupied_vertices(c: Lesson) -> tuple[np.ndarray, np.ndarray] | None:
    """Step 1: the distinct label sets of the whole data set and their counts."""
    return shared.fit(
        "lesson-vertices",
        {},
        lambda _: hypercube.occupied_vertices(c.ds.Y),
        label="Occupied label sets",
        uses_split=False,
    )


def vertex_projection(
    vertices: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """Step 1: the label sets along the first two principal directions, and the loadings."""
    return shared.fit(
        "lesson-vertex-pca",
        {},
        lambda _: hypercube.project_vertices(
            vertices, counts, method="pca", n_components=2, random_state=0
        ),
        label="Projection of the label sets",
        uses_split=False,
    )


def plst(c: Lesson, m: int) -> PLST | None:
    split = c.split
    return _fit(
        "PLST",
        "lesson-plst",
        {"M": m},
        lambda: PLST(n_components=m).fit(split.X_train, split.Y_train),
    )


def clustering(c: Lesson, k: int, affinity: str) -> LabelClustering | None:
    split = c.split
    return _fit(
        "Label clustering",
        "lesson-groups",
        {"K": k, "affinity": affinity},
        lambda: LabelClustering(n_groups=k, affinity=affinity, random_state=0).fit(split.Y_train),
    )


def grople(c: Lesson, d: int, lambda2: float) -> GroPLE | None:
    split = c.split
    k, affinity = c.groups_settings()
    return _fit(
        "GroPLE",
        "lesson-grople",
        {"d": d, "lambda2": lambda2, "K": k, "affinity": affinity},
        lambda: GroPLE(
            n_components=d,
            n_groups=k,
            label_affinity=affinity,
            lambda1=LESSON_LAMBDA1,
            lambda2=lambda2,
            random_state=0,
        ).fit(split.X_train, split.Y_train),
    )


def grople_lambda2_max(c: Lesson, d: int) -> float | None:
    """λ2 from which step 4's fit is zero (:func:`mlviz.grople.lambda2_max`), step 3's groups."""
    split = c.split
    k, affinity = c.groups_settings()
    model = clustering(c, k, affinity) if c.L >= 3 else None
    if c.L >= 3 and model is None:
        return None
    groups = model.labels_ if model is not None else np.zeros(c.L, dtype=int)
    return _fit(
        "λ2 range",
        "lesson-grople-lambda2-max",
        {"d": d, "K": k, "affinity": affinity},
        lambda: lambda2_max(split.Y_train, groups, d, random_state=0),  # the fit's U_0
    )


def clems(c: Lesson, m: int, cost: str) -> CLEMS | None:
    split = c.split
    return _fit(
        "CLEMS",
        "lesson-clems",
        {"M": m, "cost": cost},
        lambda: CLEMS(n_components=m, cost=cost, random_state=0).fit(split.X_train, split.Y_train),
    )


def mlknn(c: Lesson, k: int) -> MLkNN | None:
    split = c.split
    return _fit(
        "ML-KNN", "lesson-mlknn", {"k": k}, lambda: MLkNN(k=k).fit(split.X_train, split.Y_train)
    )


def per_label_f1(c: Lesson, method: str, params: dict[str, Any]) -> np.ndarray | None:
    """Step 7: ``method``'s test F1 per label, with the settings of its step."""
    split = c.split

    def fit_predict() -> np.ndarray:
        estimator = make_estimator(method, params)
        predictions = estimator.fit(split.X_train, split.Y_train).predict(split.X_test)
        # nan: a label neither present nor predicted has no F1 (not a perfect 1, not a 0)
        return _per_label_f1(split.Y_test, predictions, zero_division=np.nan)

    # one name per method: after a failed fit the last good result is the same method's
    return shared.fit(
        f"lesson-per-label-f1-{method}", params, lambda _: fit_predict(), label=f"{method} (F1)"
    )
