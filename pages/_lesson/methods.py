"""The methods the Lesson teaches, read from the method registry (:mod:`mlviz.methods`).

The Lesson keeps no method, cost or affinity list of its own: names, display labels, label
caps and the estimators all come from :data:`mlviz.methods.METHODS`, so a step and the method's
own page fit the same model for the same settings (one cached fit).
"""

from __future__ import annotations

from mlviz.methods import AFFINITY_LABELS, COST_LABELS, METHODS, SELECTIONS

__all__ = ["AFFINITY_LABELS", "COST_LABELS", "LESSON_METHODS", "LESSON_PRESETS", "TAUGHT_IN"]

#: The step that teaches each method (step 7 compares them, with binary relevance).
TAUGHT_IN = {"plst": "PLST", "grople": "GroPLE", "clems": "CLEMS", "mlknn": "ML-KNN"}
#: Step 7's methods (the registry's selection): the baseline, then each taught method in the
#: order of the steps.
LESSON_METHODS = list(SELECTIONS["lesson"])
assert LESSON_METHODS == ["BR", *TAUGHT_IN.values()]

#: The registry preset each step runs (:attr:`mlviz.methods.Method.presets`): the method's
#: default, as on Compare and its page, except CLEMS's step 5, which draws the embedding and
#: runs the "picture" preset (M = 2), as the CLEMS page does; each step's caption says which.
LESSON_PRESETS = {
    name: ("picture" if name == "CLEMS" else METHODS[name].default_preset)
    for name in LESSON_METHODS
}
