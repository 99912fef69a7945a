"""GroPLE's λ bounds, where the λ sliders of the GroPLE page and of the Lesson end.

Every V^k is zero from λ2_max on, and above λ1_max at the chosen λ2, on the training split
(:func:`mlviz.grople.lambda2_max`, :func:`mlviz.grople.lambda1_max`). Both bounds start where
the app's GroPLE fits start (seed 0, as the registry's: the same U_0), from one
:class:`mlviz.grople.LambdaBounds` per d and label groups. Both pages call these same cached
functions.
"""

from __future__ import annotations

import numpy as np

from mlviz.grople import LambdaBounds
from pages._app import experiment, fitting


def _lambda_bounds(d: int, groups: np.ndarray) -> LambdaBounds:
    return LambdaBounds(experiment.current_split().Y_train, groups, d, random_state=0)


def _lambda1_max(bounds: LambdaBounds, lambda2: float) -> float:
    return bounds.lambda1_max(lambda2)


def lambda_bounds(d: int, groups: np.ndarray) -> LambdaBounds | None:
    """What both bounds read at ``d`` and the label ``groups`` (None if it failed: the page
    shows why), kept for the λ moves that follow."""
    return fitting.compute(_lambda_bounds, {"d": d, "groups": groups}, label="λ ranges")


def lambda1_max(bounds: LambdaBounds, lambda2: float) -> float | None:
    """λ1_max at ``lambda2`` (inf at λ2 = 0: no λ1 makes V zero; None if it failed)."""
    return fitting.compute(
        _lambda1_max, {"bounds": bounds, "lambda2": float(lambda2)}, label="λ1 range"
    )
