"""The methods, costs and label affinities the Lesson offers, and how it builds each method.

Every method list and display label of the lesson is here, so that a method registry can
replace this module alone.
"""

from __future__ import annotations

from typing import Any

from mlviz.clems import CLEMS
from mlviz.grople import GroPLE
from mlviz.linear import PLST, BinaryRelevance
from mlviz.mlknn import MLkNN

COSTS = {
    "f1": "F1 (1 − F1)",
    "accuracy": "Accuracy (1 − Jaccard)",
    "hamming": "Hamming",
    "rank_loss": "Rank loss (asymmetric)",
}
AFFINITY_NAMES = {
    "heat": "heat kernel (paper)",
    "cooccurrence": "co-occurrence (Jaccard)",
    "correlation": "correlation",
}
METHODS = ["BR", "PLST", "GroPLE", "CLEMS", "ML-KNN"]
# PLST's basis of the label space and the label affinity of steps 3-4 are L x L matrices
# (8 L^2 bytes, 800 MB at 10,000 labels): above this those steps say so, as the PLST page does.
MAX_LABELS_SQUARE = 2_000
SQUARE_IN_LABELS = ("BR", "PLST", "GroPLE")

# Step 4 fits λ1 = 1 (not the paper's 0.001) and opens at λ2 = 10: only λ1^(1/3) λ2^(2/3)
# matters for how many rows switch off, and at the paper's pair every group of the planted
# sample uses every row. Measured on the planted sample at the step's defaults (d = 22, K = 10,
# heat kernel): 1-7 rows per group, 10 different row sets, micro-F1 0.771 (BR 0.753;
# docs/GROPLE.md).
LESSON_LAMBDA1 = 1.0


def make_estimator(method: str, params: dict[str, Any]) -> Any:
    """An unfitted estimator of ``method`` with the settings of its step (step 7)."""
    return {
        "BR": lambda: BinaryRelevance(),
        "PLST": lambda: PLST(n_components=params.get("M", 1)),
        "GroPLE": lambda: GroPLE(
            n_components=params.get("d", 1),
            n_groups=params.get("K", 1),
            label_affinity=params.get("affinity", "heat"),
            lambda1=LESSON_LAMBDA1,
            lambda2=params.get("lambda2", 10.0),
            random_state=0,
        ),
        "CLEMS": lambda: CLEMS(
            n_components=params.get("M", 2), cost=params.get("cost", "f1"), random_state=0
        ),
        "ML-KNN": lambda: MLkNN(k=params.get("k", 1)),
    }[method]()
