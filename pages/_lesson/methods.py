"""The methods the Lesson teaches, read from the method registry (:mod:`mlviz.methods`).

The Lesson keeps no method, cost or affinity list of its own: names, display labels, label
caps and the estimators all come from :data:`mlviz.methods.METHODS`, so a step and the method's
own page fit the same model for the same settings (one cached fit).
"""

from __future__ import annotations

from mlviz.methods import AFFINITY_LABELS, COST_LABELS, METHODS

__all__ = ["AFFINITY_LABELS", "COST_LABELS", "LESSON_LAMBDA1", "LESSON_METHODS", "TAUGHT_IN"]

#: The step that teaches each method (step 7 compares them, with binary relevance).
TAUGHT_IN = {"plst": "PLST", "grople": "GroPLE", "clems": "CLEMS", "mlknn": "ML-KNN"}
#: Step 7's methods: the baseline, then each taught method in the order of the steps.
LESSON_METHODS = [METHODS["BR"].name, *TAUGHT_IN.values()]
assert set(LESSON_METHODS) <= set(METHODS)

# Step 4 fits λ1 = 1 (not the paper's 0.001) and opens at λ2 = 10: only λ1^(1/3) λ2^(2/3)
# matters for how many rows switch off, and at the paper's pair every group of the planted
# sample uses every row. Measured on the planted sample at the step's defaults (d = 22, K = 10,
# heat kernel): 1-7 rows per group, 10 different row sets, micro-F1 0.771 (BR 0.753;
# docs/GROPLE.md).
LESSON_LAMBDA1 = 1.0
