"""Multi-label evaluation metrics used by the four papers, with their edge cases stated.

Papers (``../shared/papers``): 001 GroPLE (accuracy, example F1, macro F1, micro F1, §5.2),
002 CLEMS (F1, Accuracy, hard rank loss, §4), 003 ML-KNN (Hamming loss, one-error, coverage,
ranking loss, average precision, Eqs. 1-5), 004 PLST (Hamming loss, §2).

Two kinds of metric:

* **bipartition** metrics compare a 0/1 prediction ``Y_pred`` with the truth ``Y_true``:
  :func:`hamming_loss`, :func:`subset_accuracy`, :func:`accuracy`, :func:`example_f1`,
  :func:`micro_f1`, :func:`macro_f1`, :func:`rank_loss_hard`;
* **ranking** metrics use real-valued scores ``Y_score`` (higher = more relevant):
  :func:`one_error`, :func:`coverage`, :func:`ranking_loss`, :func:`average_precision`,
  :func:`macro_auc`, and the top-k measures of work on tail labels (Jain, Prabhu & Varma,
  KDD 2016): :func:`precision_at_k`, :func:`ndcg_at_k` and their propensity-scored versions
  :func:`psprecision_at_k`, :func:`psndcg_at_k` (weights :func:`inverse_propensity`).

Edge-case conventions (each repeated in the function's docstring):

* An instance whose truth and prediction are both empty has F1 = Jaccard = 1 (nothing to find,
  nothing wrongly claimed); an empty truth with a non-empty prediction scores 0. Micro F1 is 1
  when nothing at all is present or predicted.
* Macro F1 (and :func:`per_label_f1`, :func:`per_label_scores`) gives a label never present and
  never predicted ``zero_division``, default 0: scikit-learn's default, and what the GroPLE
  paper's macro-F1 numbers imply (``docs/REPRODUCTION.md``). Pass ``zero_division=1`` for
  "nothing to find, nothing wrongly claimed".
* Tail metrics (:func:`tail_head_scores`, and :func:`evaluate` with ``tail_threshold``) split
  the labels by :func:`mlviz.stats.tail_labels`, the one tail definition of mlviz.
* Ranking metrics exclude instances on which they are undefined, as M.-L. Zhang's MATLAB
  evaluation code (distributed with ML-KNN and LIFT) does for one-error, ranking loss and
  average precision: instances whose truth has no relevant label are excluded from one-error,
  coverage and average precision (no label can be "proper", and the maximum rank over an empty
  set does not exist); instances whose truth is empty *or full* are excluded from ranking loss
  (there is no (relevant, irrelevant) pair to order). Zhang's code drops full-truth instances
  from one-error and average precision too; we keep them, as both are well defined there (0 and
  1) — yeast, the ML-KNN paper's data, has no empty or full label set, so the paper's numbers
  are unaffected. If no instance is left the metric is ``nan``.
* Macro AUC averages only over labels whose truth column has both classes (the AUC of a label
  with no positives, or no negatives, is undefined); ``nan`` if there is none.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn import metrics as skm

from mlviz._validation import check_label_matrix, csr_labels
from mlviz.costs import _cost_from_counts, paired_costs
from mlviz.stats import tail_labels

__all__ = [
    "AT_K_METRICS",
    "EVALUATE_KEYS",
    "Evaluator",
    "METRICS",
    "MetricInfo",
    "TAIL_KEYS",
    "accuracy",
    "average_precision",
    "coverage",
    "evaluate",
    "example_f1",
    "bin_by_frequency",
    "finite_scores",
    "frequency_bin_contributions",
    "label_contributions",
    "hamming_loss",
    "inverse_propensity",
    "macro_auc",
    "macro_f1",
    "micro_f1",
    "ndcg_at_k",
    "one_error",
    "per_label_f1",
    "per_label_scores",
    "precision_at_k",
    "psndcg_at_k",
    "psprecision_at_k",
    "rank_loss_hard",
    "ranking_loss",
    "recall_at_k",
    "subset_accuracy",
    "tail_head_scores",
]


@dataclass(frozen=True)
class MetricInfo:
    """How to display a metric: its label, direction, whether it needs scores, its source.

    Examples
    --------
    >>> from mlviz.metrics import METRICS
    >>> info = METRICS["hamming_loss"]
    >>> info.greater_is_better, info.needs_scores
    (False, False)
    """

    name: str
    label: str
    greater_is_better: bool
    needs_scores: bool
    paper: str
    #: Decimals shown: 4 for the rates and shares in [0, 1]; 3 for the measures that count
    #: labels or pairs (coverage, the hard rank loss), as paper 003 prints coverage ("6.291").
    decimals: int = 4

    @property
    def arrow(self) -> str:
        """``"↑"`` when higher is better, ``"↓"`` otherwise (the papers' notation)."""
        return "↑" if self.greater_is_better else "↓"

    @property
    def d3_format(self) -> str:
        """The value's format in a plotly hover template, e.g. ``%{y:.4f}``'s ``.4f``.

        Examples
        --------
        >>> from mlviz.metrics import METRICS
        >>> METRICS["hamming_loss"].d3_format, METRICS["coverage"].d3_format
        (',.4f', ',.3f')
        """
        return f",.{self.decimals}f"

    def format(self, value: float) -> str:
        """The value as the app shows it.

        Examples
        --------
        >>> from mlviz.metrics import METRICS
        >>> METRICS["micro_f1"].format(0.5), METRICS["coverage"].format(859.42)
        ('0.5000', '859.420')
        >>> METRICS["rank_loss_hard"].format(7167.0)
        '7,167.000'
        """
        return f"{value:,.{self.decimals}f}"


_GROPLE = "001 GroPLE (Kumar et al.)"
_CLEMS = "002 CLEMS (Huang & Lin)"
_MLKNN = "003 ML-KNN (Zhang & Zhou)"
_PLST = "004 PLST (Tai & Lin)"
_TAIL = "labels split by training frequency (mlviz.stats.tail_labels)"
_JAIN = "Jain, Prabhu & Varma, KDD 2016 §3"

METRICS: dict[str, MetricInfo] = {
    info.name: info
    for info in (
        MetricInfo("hamming_loss", "Hamming loss", False, False, f"{_MLKNN} Eq. 1; {_PLST}"),
        MetricInfo("subset_accuracy", "Subset accuracy", True, False, f"{_CLEMS} (0/1 loss)"),
        MetricInfo("accuracy", "Accuracy (Jaccard)", True, False, f"{_GROPLE}; {_CLEMS}"),
        MetricInfo("example_f1", "Example-based F1", True, False, f"{_GROPLE}; {_CLEMS}"),
        MetricInfo("micro_f1", "Micro F1", True, False, _GROPLE),
        MetricInfo("macro_f1", "Macro F1", True, False, _GROPLE),
        MetricInfo("one_error", "One-error", False, True, f"{_MLKNN} Eq. 2"),
        MetricInfo("coverage", "Coverage", False, True, f"{_MLKNN} Eq. 3", decimals=3),
        MetricInfo("ranking_loss", "Ranking loss", False, True, f"{_MLKNN} Eq. 4"),
        MetricInfo("average_precision", "Average precision", True, True, f"{_MLKNN} Eq. 5"),
        MetricInfo("macro_auc", "Macro AUC", True, True, "area under the ROC curve per label"),
        MetricInfo("precision_at_1", "P@1", True, True, _JAIN),
        MetricInfo("precision_at_3", "P@3", True, True, _JAIN),
        MetricInfo("ndcg_at_3", "nDCG@3", True, True, _JAIN),
        MetricInfo("psprecision_at_1", "PSP@1 (propensity-scored)", True, True, f"{_JAIN}.1"),
        MetricInfo("psprecision_at_3", "PSP@3 (propensity-scored)", True, True, f"{_JAIN}.1"),
        MetricInfo("psndcg_at_3", "PSnDCG@3 (propensity-scored)", True, True, f"{_JAIN}.1"),
        MetricInfo("rank_loss_hard", "Rank loss (hard)", False, False, f"{_CLEMS} §4", decimals=3),
        MetricInfo("tail_macro_f1", "Tail macro F1", True, False, _TAIL),
        MetricInfo("head_macro_f1", "Head macro F1", True, False, _TAIL),
        MetricInfo("tail_recall", "Tail recall (micro)", True, False, _TAIL),
    )
}

#: The keys :func:`evaluate` returns, in display order: the bipartition ones always, the
#: ranking ones (the last eleven: five of paper 003 and the top-k ones of
#: :data:`AT_K_METRICS`) only with scores.
EVALUATE_KEYS: tuple[str, ...] = (
    "hamming_loss",
    "subset_accuracy",
    "accuracy",
    "example_f1",
    "micro_f1",
    "macro_f1",
    "one_error",
    "coverage",
    "ranking_loss",
    "average_precision",
    "macro_auc",
    "precision_at_1",
    "precision_at_3",
    "ndcg_at_3",
    "psprecision_at_1",
    "psprecision_at_3",
    "psndcg_at_3",
)

#: The keys :func:`evaluate` adds when given a ``tail_threshold`` (:func:`tail_head_scores`).
TAIL_KEYS: tuple[str, ...] = ("tail_macro_f1", "head_macro_f1", "tail_recall")


def _check_pair(Y_true, Y_pred) -> tuple[np.ndarray, np.ndarray]:
    Y_true = check_label_matrix(Y_true, name="Y_true", dtype=np.int8)
    Y_pred = check_label_matrix(Y_pred, name="Y_pred", dtype=np.int8)
    if Y_true.shape != Y_pred.shape:
        raise ValueError(
            f"Y_true and Y_pred must have the same shape; got {Y_true.shape} and {Y_pred.shape}."
        )
    if Y_true.shape[0] == 0:
        raise ValueError("Y_true has no rows: there is nothing to evaluate.")
    return Y_true, Y_pred


def _check_scores(Y_true, Y_score) -> tuple[np.ndarray, np.ndarray]:
    Y_true = check_label_matrix(Y_true, name="Y_true", dtype=np.int8)
    Y_score = _score_matrix(Y_score, Y_true.shape)
    if Y_true.shape[0] == 0:
        raise ValueError("Y_true has no rows: there is nothing to evaluate.")
    return Y_true, Y_score


def _score_matrix(Y_score, shape: tuple[int, int]) -> np.ndarray:
    """Y_score as finite float64 of the truth's ``shape`` (no copy when it already is)."""
    Y_score = np.asarray(Y_score, dtype=np.float64)
    if Y_score.shape != shape:
        raise ValueError(
            f"Y_score must have the same shape as Y_true; got {Y_score.shape} and "
            f"{shape}. Pass decision_function(X) (one column per label)."
        )
    if not np.isfinite(Y_score).all():
        raise ValueError(
            "Y_score contains NaN or infinite values; scores must be finite. A score file's "
            "-inf (a label the model did not list) becomes finite, still below every listed "
            "score, with mlviz.metrics.finite_scores."
        )
    return Y_score


# --------------------------------------------------------------------------- bipartition

# Example-based accuracy and F1 come from the per-instance costs of mlviz.costs, so that a
# CLEMS cost and the metric it targets cannot disagree; scikit-learn's jaccard_score /
# f1_score(average="samples") would read an (N, 1) indicator matrix as a binary target and
# refuse. Micro, macro and per-label scores are scikit-learn's, see _as_sklearn_target.


def _as_sklearn_target(Y_true: np.ndarray, Y_pred: np.ndarray) -> tuple[Any, Any, list | None]:
    """Arguments for scikit-learn's set-wise metrics that keep a label matrix multi-label.

    scikit-learn reads an (N, 1) indicator matrix as a *binary* target, and then micro/macro
    averages would run over both classes (0 and 1) instead of over the one label. For one
    label column, pass the column and ask for the positive class only (``labels=[1]``).

    Wider matrices go as CSR: scikit-learn's multilabel checks then read the stored ones
    only, where on a dense indicator matrix they sort all N x L entries (``np.unique``)
    for every call; the scores are the same (tested). At 4,832 x 983 with 2 % ones,
    ``precision_recall_fscore_support`` took 166 ms dense and 44 ms with the conversion.
    """
    if Y_true.shape[1] == 1:
        return Y_true[:, 0], Y_pred[:, 0], [1]
    return csr_labels(Y_true, np.int8), csr_labels(Y_pred, np.int8), None


def _check_zero_division(zero_division: float) -> float:
    is_nan = isinstance(zero_division, float) and math.isnan(zero_division)
    if not (is_nan or zero_division in (0, 1)):
        raise ValueError(
            f"zero_division must be 0, 1 or nan (the score of a label never present and never "
            f"predicted); got {zero_division!r}."
        )
    return float(zero_division)


def hamming_loss(Y_true, Y_pred) -> float:
    """Fraction of misclassified instance-label pairs (paper 003 Eq. 1; paper 004 §2).

    ``hloss = 1/(N L) Σ_i |h(x_i) Δ Y_i|`` (Δ: symmetric difference). Lower is better.
    Well defined for every input, including empty label sets.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    >>> Y_pred = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1]])
    >>> from mlviz.metrics import hamming_loss
    >>> round(hamming_loss(Y_true, Y_pred), 3)  # 3 of 9 entries wrong
    0.333
    """
    Y_true, Y_pred = _check_pair(Y_true, Y_pred)
    true, pred, _ = _as_sklearn_target(Y_true, Y_pred)
    return float(skm.hamming_loss(true, pred))


def subset_accuracy(Y_true, Y_pred) -> float:
    """Fraction of instances whose predicted label set equals the truth exactly (1 - 0/1 loss).

    Higher is better. An empty prediction of an empty truth counts as exact.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    >>> Y_pred = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1]])
    >>> from mlviz.metrics import subset_accuracy
    >>> round(subset_accuracy(Y_true, Y_pred), 3)
    0.333
    """
    Y_true, Y_pred = _check_pair(Y_true, Y_pred)
    true, pred, _ = _as_sklearn_target(Y_true, Y_pred)
    return float(skm.accuracy_score(true, pred))


def accuracy(Y_true, Y_pred) -> float:
    """Example-based accuracy, the mean Jaccard index (paper 001 §5.2; paper 002 §4).

    ``Accuracy = 1/N Σ_i |y_i ∧ ŷ_i| / |y_i ∨ ŷ_i|``. Higher is better.
    Convention: an instance with empty truth *and* empty prediction scores 1 (the union is
    empty); an empty truth with a non-empty prediction scores 0. Equals scikit-learn's
    ``jaccard_score(average="samples", zero_division=1)`` for L > 1, and
    ``1 - mean(cost_matrix(..., "accuracy") diagonal)``, the CLEMS Accuracy cost.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    >>> Y_pred = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1]])
    >>> from mlviz.metrics import accuracy
    >>> round(accuracy(Y_true, Y_pred), 3)  # Jaccard 1/2, 1, 1/3
    0.611
    """
    Y_true, Y_pred = _check_pair(Y_true, Y_pred)
    return float(1.0 - paired_costs(Y_true, Y_pred, "accuracy").mean())


def example_f1(Y_true, Y_pred) -> float:
    """Example-based F1 (paper 001 §5.2; paper 002 §4).

    ``F1 = 1/N Σ_i 2|y_i ∧ ŷ_i| / (|y_i| + |ŷ_i|)`` (the harmonic mean of per-instance precision
    and recall). Higher is better. Convention: an instance with empty truth and empty prediction
    scores 1; if only one of them is empty it scores 0. Equals scikit-learn's
    ``f1_score(average="samples", zero_division=1)`` for L > 1, and one minus the mean CLEMS F1
    cost.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    >>> Y_pred = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1]])
    >>> from mlviz.metrics import example_f1
    >>> round(example_f1(Y_true, Y_pred), 3)  # F1 2/3, 1, 1/2
    0.722
    """
    Y_true, Y_pred = _check_pair(Y_true, Y_pred)
    return float(1.0 - paired_costs(Y_true, Y_pred, "f1").mean())


def micro_f1(Y_true, Y_pred) -> float:
    """Micro-averaged F1 (paper 001 §5.2): ``2ΣTP / (2ΣTP + ΣFP + ΣFN)`` over all labels.

    Higher is better. Convention: 1 when nothing is present and nothing predicted at all.
    scikit-learn's ``f1_score(average="micro", zero_division=1)``.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    >>> Y_pred = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1]])
    >>> from mlviz.metrics import micro_f1
    >>> round(micro_f1(Y_true, Y_pred), 3)  # 2*3 / (2*3 + 1 + 2)
    0.667
    """
    Y_true, Y_pred = _check_pair(Y_true, Y_pred)
    true, pred, labels = _as_sklearn_target(Y_true, Y_pred)
    return float(skm.f1_score(true, pred, labels=labels, average="micro", zero_division=1))


def per_label_f1(Y_true, Y_pred, *, zero_division: float = 0) -> np.ndarray:
    """F1 of each label column, ``2TP_j / (2TP_j + FP_j + FN_j)``, shape (L,).

    Convention: a label that is never present and never predicted has F1 = ``zero_division``
    (default 0, scikit-learn's default and what the GroPLE paper's macro-F1 numbers imply; 1
    reads "nothing to find, no false alarm"; nan leaves it undefined); never present but
    predicted, or present but never predicted, gives 0. scikit-learn's
    ``f1_score(average=None)``. For precision, recall and AUC as well see
    :func:`per_label_scores`.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    >>> Y_pred = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1]])
    >>> from mlviz.metrics import per_label_f1
    >>> per_label_f1(Y_true, Y_pred).round(3).tolist()
    [1.0, 0.667, 0.0]
    """
    zero_division = _check_zero_division(zero_division)
    Y_true, Y_pred = _check_pair(Y_true, Y_pred)
    true, pred, labels = _as_sklearn_target(Y_true, Y_pred)
    return np.asarray(
        skm.f1_score(true, pred, labels=labels, average=None, zero_division=zero_division),
        dtype=float,
    )


def macro_f1(Y_true, Y_pred, *, zero_division: float = 0) -> float:
    """Macro-averaged F1 (paper 001 §5.2): the mean over labels of :func:`per_label_f1`.

    ``MacroF1 = 1/L Σ_j 2 p_j r_j / (p_j + r_j)``. Higher is better. Convention: a label never
    present and never predicted contributes ``zero_division`` (default 0, see
    :func:`per_label_f1`); all labels are averaged, none dropped (with ``zero_division=nan``
    such labels are left out of the mean, as scikit-learn does). On data with many rare labels
    (medical, genbase) the choice moves macro F1 a lot, because a test fold misses many labels
    entirely (``docs/REPRODUCTION.md`` compares both on medical).

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    >>> Y_pred = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1]])
    >>> from mlviz.metrics import macro_f1
    >>> round(macro_f1(Y_true, Y_pred), 3)
    0.556
    """
    zero_division = _check_zero_division(zero_division)
    Y_true, Y_pred = _check_pair(Y_true, Y_pred)
    true, pred, labels = _as_sklearn_target(Y_true, Y_pred)
    return float(
        skm.f1_score(true, pred, labels=labels, average="macro", zero_division=zero_division)
    )


def per_label_scores(
    Y_true,
    Y_pred,
    *,
    Y_score=None,
    zero_division: float = 0,
    label_names: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Precision, recall, F1 (and AUC with scores) of every label: where a model loses labels.

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n_samples, n_labels)
        0/1 truth and hard prediction, e.g. out-of-fold predictions of
        :func:`mlviz.evaluation.cross_validate` (``return_predictions=True``).
    Y_score : array-like of shape (n_samples, n_labels), optional
        Real-valued scores; adds the ``auc`` column.
    zero_division : {0, 1, nan}, default=0
        Precision of a label never predicted, recall of a label never present, and F1 of a
        label never present and never predicted (scikit-learn's ``zero_division``).
    label_names : sequence of str, optional
        Index of the table; default the column numbers 0..n_labels-1.

    Returns
    -------
    pandas.DataFrame
        One row per label (index ``label``), columns ``support`` (positives in ``Y_true``),
        ``predicted`` (positives in ``Y_pred``), ``precision``, ``recall``, ``f1`` from
        scikit-learn's ``precision_recall_fscore_support``, and with scores ``auc`` from
        ``roc_auc_score``: NaN for a label whose truth has a single class (AUC undefined).

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    >>> Y_pred = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1]])
    >>> from mlviz.metrics import per_label_scores
    >>> per_label_scores(Y_true, Y_pred, label_names=['a', 'b', 'c'])[['support', 'f1']].round(3)
           support     f1
    label
    a            2  1.000
    b            2  0.667
    c            1  0.000
    """
    zero_division = _check_zero_division(zero_division)
    Y_true, Y_pred = _check_pair(Y_true, Y_pred)
    n_labels = Y_true.shape[1]
    if label_names is None:
        index = pd.RangeIndex(n_labels, name="label")
    else:
        names = [str(name) for name in label_names]
        if len(names) != n_labels:
            raise ValueError(
                f"per_label_scores: {len(names)} label names for {n_labels} label columns."
            )
        index = pd.Index(names, name="label")
    true, pred, labels = _as_sklearn_target(Y_true, Y_pred)
    precision, recall, f1, _ = skm.precision_recall_fscore_support(
        true, pred, labels=labels, average=None, zero_division=zero_division
    )
    table = pd.DataFrame(
        {
            "support": Y_true.sum(axis=0, dtype=np.int64),
            "predicted": Y_pred.sum(axis=0, dtype=np.int64),
            "precision": precision,
            "recall": recall,
            "f1": f1,
        },
        index=index,
    )
    if Y_score is not None:
        Y_true, Y_score = _check_scores(Y_true, Y_score)
        table["auc"] = _per_label_auc(Y_true, Y_score)
    return table


def tail_head_scores(
    Y_true, Y_pred, tail_threshold: float, *, Y_train=None, zero_division: float = 0
) -> dict[str, float]:
    """Macro F1 over the tail labels and over the head labels, and micro recall over the tail.

    Tail labels are those whose relative frequency in ``Y_train`` (or, without it, in
    ``Y_true``) is below ``tail_threshold`` (:func:`mlviz.stats.tail_labels`, the single tail
    definition); head labels are the others (frequency at or above the threshold).

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n_samples, n_labels)
    tail_threshold : float in (0, 1] or "adaptive"
        Share of the training instances, e.g. 0.05 (the fixed rule), or ``"adaptive"``: the
        rarest labels of ``Y_train`` that together hold at most 5 % of its label occurrences
        (:func:`mlviz.stats.tail_cutoff`).
    Y_train : array-like of shape (n_train, n_labels), optional
        Training labels whose frequencies define the tail; in cross-validation the fold's
        training labels. Default ``Y_true``.
    zero_division : {0, 1, nan}, default=0
        As in :func:`macro_f1`.

    Returns
    -------
    dict
        ``tail_macro_f1``, ``head_macro_f1``: the mean of :func:`per_label_f1` over the tail
        (head) labels, NaN when there is no tail (head) label. ``tail_recall``: ΣTP / Σ(TP + FN)
        over the tail labels, the share of tail-label occurrences found; NaN when there is no
        tail label or no tail label occurs in ``Y_true``.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    >>> Y_pred = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1]])
    >>> from mlviz.metrics import tail_head_scores
    >>> # label c, on 1 of 3 rows, is the tail
    >>> scores = tail_head_scores(Y_true, Y_pred, tail_threshold=0.5)
    >>> {key: round(value, 3) for key, value in scores.items()}
    {'tail_macro_f1': 0.0, 'head_macro_f1': 0.833, 'tail_recall': 0.0}
    """
    Y_true, Y_pred = _check_pair(Y_true, Y_pred)
    reference = Y_true
    if Y_train is not None:
        reference = check_label_matrix(Y_train, name="Y_train")
        if reference.shape[1] != Y_true.shape[1]:
            raise ValueError(
                f"Y_train has {reference.shape[1]} label columns but Y_true has "
                f"{Y_true.shape[1]}; give the training labels of the same problem."
            )
    is_tail = np.zeros(Y_true.shape[1], dtype=bool)
    is_tail[tail_labels(reference, _fixed_or_none(tail_threshold))] = True
    f1 = per_label_f1(Y_true, Y_pred, zero_division=zero_division)
    tail_recall = math.nan
    if is_tail.any():
        true, pred, labels = _as_sklearn_target(Y_true[:, is_tail], Y_pred[:, is_tail])
        tail_recall = float(
            skm.recall_score(true, pred, labels=labels, average="micro", zero_division=np.nan)
        )
    return {
        "tail_macro_f1": _mean_defined(f1[is_tail]),
        "head_macro_f1": _mean_defined(f1[~is_tail]),
        "tail_recall": tail_recall,
    }


def _fixed_or_none(tail_threshold):
    """``tail_threshold`` for :func:`mlviz.stats.tail_labels`: ``"adaptive"`` is its default
    rule (None), a number the fixed rule's threshold."""
    if isinstance(tail_threshold, str):
        if tail_threshold != "adaptive":
            raise ValueError(
                f"tail_threshold must be a share of the instances in (0, 1] or 'adaptive'; got "
                f"{tail_threshold!r}."
            )
        return None
    return tail_threshold


def _mean_defined(values: np.ndarray) -> float:
    """Mean of the non-NaN values (NaN F1s come from ``zero_division=nan``); NaN if none."""
    values = values[~np.isnan(values)]
    return float(values.mean()) if values.size else math.nan


def rank_loss_hard(Y_true, Y_pred) -> float:
    """CLEMS's rank loss of a hard 0/1 prediction, averaged over instances (paper 002 §4).

    Per instance, over pairs (j, l) with ``y_j = 1 > y_l = 0``: 1 if ``ŷ_j < ŷ_l``, 1/2 if
    ``ŷ_j = ŷ_l``; *not* normalised by the number of pairs (the paper's sum), so values can
    exceed 1. Instances with empty or full truth contribute 0 and are kept in the mean, as in the
    authors' code. It is the mean of the diagonal of
    ``mlviz.costs.cost_matrix(Y_true, Y_pred, "rank_loss")`` (computed by
    :func:`mlviz.costs.paired_costs` without the N x N matrix). Lower is better.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    >>> Y_pred = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1]])
    >>> from mlviz.metrics import rank_loss_hard
    >>> round(rank_loss_hard(Y_true, Y_pred), 3)
    0.667
    """
    Y_true, Y_pred = _check_pair(Y_true, Y_pred)
    return float(paired_costs(Y_true, Y_pred, "rank_loss").mean())


# --------------------------------------------------------------------------- ranking


def _rows_with_some_relevant(Y_true: np.ndarray, *, exclude_full: bool) -> np.ndarray:
    n_relevant = Y_true.sum(axis=1)
    keep = n_relevant > 0
    if exclude_full:
        keep &= n_relevant < Y_true.shape[1]
    return keep


def one_error(Y_true, Y_score) -> float:
    """How often the top-ranked label is not relevant (paper 003 Eq. 2). Lower is better.

    ``one-error = 1/p Σ_i [argmax_y f(x_i, y) ∉ Y_i]``.

    Conventions: instances with no relevant label are excluded (every choice would be an
    error; Zhang's evaluation code drops them). Ties for the top score are resolved by their
    expectation under a uniformly random tie-break: an instance contributes the fraction of its
    top-scoring labels that are irrelevant, so the result does not depend on the label order
    (``argmax`` with its first-index rule would; Zhang's code counts no error if any tied top
    label is relevant). Without ties all three agree. ``nan`` if no instance has a relevant label.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0]])
    >>> Y_score = np.array([[0.9, 0.2, 0.4], [0.8, 0.6, 0.1]])
    >>> from mlviz.metrics import one_error
    >>> one_error(Y_true, Y_score)  # row 2 ranks label a first
    0.5
    """
    Y_true, Y_score = _check_scores(Y_true, Y_score)
    keep = _rows_with_some_relevant(Y_true, exclude_full=False)
    if not keep.any():
        return float("nan")
    Y_true, Y_score = Y_true[keep], Y_score[keep]
    at_top = Y_score == Y_score.max(axis=1, keepdims=True)
    irrelevant_at_top = (at_top & (Y_true == 0)).sum(axis=1)
    return float(np.mean(irrelevant_at_top / at_top.sum(axis=1)))


def coverage(Y_true, Y_score) -> float:
    """How far down the ranking one must go to cover all relevant labels (paper 003 Eq. 3).

    ``coverage = 1/p Σ_i max_{y ∈ Y_i} rank_f(x_i, y) - 1`` with rank 1 for the top label, i.e.
    scikit-learn's ``coverage_error - 1``. Lower is better; 0 when every instance has a single
    relevant label ranked first.

    Conventions: tied scores share the *worst* rank among them (scikit-learn's rule); instances
    with no relevant label are excluded (the maximum over an empty set is undefined; scikit-learn
    would count them as 0 - 1 = -1). ``nan`` if no instance has a relevant label.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0]])
    >>> Y_score = np.array([[0.9, 0.2, 0.4], [0.8, 0.6, 0.1]])
    >>> from mlviz.metrics import coverage
    >>> coverage(Y_true, Y_score)
    1.0
    """
    Y_true, Y_score = _check_scores(Y_true, Y_score)
    keep = _rows_with_some_relevant(Y_true, exclude_full=False)
    if not keep.any():
        return float("nan")
    if Y_true.shape[1] == 1:
        # the only label is relevant and ranked first; scikit-learn rejects a single column
        return 0.0
    return float(skm.coverage_error(Y_true[keep], Y_score[keep])) - 1.0


def _row_ranks(relevant: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, ...]:
    """Every relevant (row, label) pair: its row, its rank, and the relevant labels at or above.

    For a relevant label k of row i, ``rank = |{j : s_ij >= s_ik}|`` (tied scores share the
    worst rank, scikit-learn's rule) and ``relevant_at_or_above = |{j relevant : s_ij >=
    s_ik}|`` (see :class:`_RelevantPairs`).

    Returns
    -------
    rows, rank, relevant_at_or_above : ndarrays of shape (n_relevant_pairs,)
    """
    pairs = _RelevantPairs(relevant)
    _, _, rank, relevant_at_or_above = pairs.ranks(scores)
    return pairs.rows, rank, relevant_at_or_above


class _RelevantPairs:
    """The relevant (row, label) pairs of a truth matrix, and each pair's slot in its row.

    What every ranking of scores against the same truth reuses, so an :class:`Evaluator`
    finds them once rather than once per scored model (``np.nonzero`` of an N x L matrix
    costs about as much as sorting its scores).
    """

    def __init__(self, relevant: np.ndarray) -> None:
        n_rows, self.n_labels = relevant.shape
        self.rows, self.columns = np.nonzero(relevant)
        self.sizes = np.bincount(self.rows, minlength=n_rows)
        starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]])
        self.slots = np.arange(self.rows.size) - starts[self.rows]
        self.width = max(1, int(self.sizes.max(initial=0)))

    def ranks(self, scores: np.ndarray) -> tuple[np.ndarray, ...]:
        """Each pair's score, the sorted score rows, its rank and relevant labels at or above.

        Each row is sorted once (unstable sort: only values matter), the relevant scores of
        each row once more, and both counts come from a binary search of every relevant score
        in its own row, all rows at once (:func:`_count_below`).

        Returns
        -------
        values : ndarray of shape (n_relevant_pairs,)
        ordered : ndarray of shape (n_rows, n_labels)
            Each row of ``scores`` in ascending order.
        rank, relevant_at_or_above : ndarrays of shape (n_relevant_pairs,)
        """
        values = scores[self.rows, self.columns]
        ordered = np.sort(scores, axis=1)
        # the relevant scores of each row, padded with -inf (below every finite score)
        ordered_relevant = np.full((len(self.sizes), self.width), -np.inf)
        ordered_relevant[self.rows, self.slots] = values
        ordered_relevant.sort(axis=1)
        rank = self.n_labels - _count_below(ordered, self.rows, values)
        relevant_at_or_above = self.width - _count_below(ordered_relevant, self.rows, values)
        return values, ordered, rank, relevant_at_or_above


def _count_below(ordered: np.ndarray, rows: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``|{j : ordered[r, j] < v}|`` for each (r, v) in zip(rows, values); rows sorted.

    ``np.searchsorted(ordered[r], v)`` for every pair at once: a branch-free binary search
    run on all pairs together, ~log2(n_columns) vectorised steps instead of one call per row
    (NumPy has no row-wise searchsorted). Each step tries to advance every pair by the same
    power of two, so no pair needs its own bounds and no step checks which pairs are done.
    """
    n_columns = ordered.shape[1]
    if n_columns == 0:
        return np.zeros(rows.size, dtype=np.intp)
    flat = ordered.reshape(-1)
    start = rows.astype(np.intp) * n_columns - 1  # flat index of column "count - 1"
    count = np.zeros(rows.size, dtype=np.intp)
    step = 1 << max(n_columns.bit_length() - 1, 0)  # the largest power of two <= n_columns
    while step:
        candidate = count + step
        # advance where the candidate count's last element is still below the value (a
        # candidate past the row's end reads the row's last element and is then refused)
        advance = flat[start + np.minimum(candidate, n_columns)] < values
        advance &= candidate <= n_columns
        count += step * advance
        step >>= 1
    return count


def ranking_loss(Y_true, Y_score) -> float:
    """Average fraction of (relevant, irrelevant) label pairs ordered wrongly (paper 003 Eq. 4).

    ``rloss = 1/p Σ_i |{(y1, y2) ∈ Y_i × Ȳ_i : f(x_i, y1) <= f(x_i, y2)}| / (|Y_i| |Ȳ_i|)``.
    Lower is better. A tie counts as a wrongly ordered pair (``<=``, as in Zhang's evaluation
    code and scikit-learn's ``label_ranking_loss``).

    Convention: instances whose truth is empty or full are excluded (no pair exists;
    scikit-learn would count them as 0 and keep them in the mean). ``nan`` if none is left.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0]])
    >>> Y_score = np.array([[0.9, 0.2, 0.4], [0.8, 0.6, 0.1]])
    >>> from mlviz.metrics import ranking_loss
    >>> ranking_loss(Y_true, Y_score)  # row 1: no pair wrong; row 2: b below a, above c
    0.25
    """
    Y_true, Y_score = _check_scores(Y_true, Y_score)
    keep = _rows_with_some_relevant(Y_true, exclude_full=True)
    if not keep.any():
        return float("nan")
    # scikit-learn's label_ranking_loss, with its per-instance sort replaced by _row_ranks
    # (one sort per row): the same integer pair counts, divisions and mean. The excluded
    # rows lose their relevant labels instead of being copied out of Y_score.
    relevant = Y_true.astype(bool)
    relevant[~keep] = False
    n_labels = relevant.shape[1]
    n_relevant = np.count_nonzero(relevant, axis=1)[keep]
    _, labels_at_least, relevant_at_least = _row_ranks(relevant, Y_score)
    starts = np.concatenate([[0], np.cumsum(n_relevant)[:-1]])  # each row's first pair
    wrongly_ordered = np.add.reduceat(labels_at_least - relevant_at_least, starts)
    loss = wrongly_ordered.astype(np.float64)
    loss /= (n_labels - n_relevant) * n_relevant
    return float(np.average(loss))


def average_precision(Y_true, Y_score) -> float:
    """Average fraction of relevant labels ranked at or above each relevant label (003 Eq. 5).

    ``avgprec = 1/p Σ_i 1/|Y_i| Σ_{y ∈ Y_i} |{y' ∈ Y_i : rank(y') <= rank(y)}| / rank(y)``,
    which is scikit-learn's ``label_ranking_average_precision_score``. Higher is better.

    Conventions: tied scores share the worst rank among them (scikit-learn's rule); instances
    with no relevant label are excluded (the inner mean is over an empty set; scikit-learn
    would score them 1). An instance with every label relevant scores 1 under any ranking and
    is kept. ``nan`` if no instance has a relevant label.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0]])
    >>> Y_score = np.array([[0.9, 0.2, 0.4], [0.8, 0.6, 0.1]])
    >>> from mlviz.metrics import average_precision
    >>> round(average_precision(Y_true, Y_score), 3)
    0.75
    """
    Y_true, Y_score = _check_scores(Y_true, Y_score)
    keep = _rows_with_some_relevant(Y_true, exclude_full=False)
    if not keep.any():
        return float("nan")
    # scikit-learn's label_ranking_average_precision_score with its two rankings per instance
    # replaced by _row_ranks: the same ratios, per-instance means and running sum.
    # Rows without a relevant label have no entries, so they need not be copied out.
    relevant = Y_true.astype(bool)
    n_labels = relevant.shape[1]
    n_relevant = np.count_nonzero(relevant, axis=1)[keep]
    _, labels_at_least, relevant_at_least = _row_ranks(relevant, Y_score)
    ratios = relevant_at_least.astype(np.float64) / labels_at_least.astype(np.float64)
    # Each instance's mean over its relevant labels, in label order as scikit-learn takes
    # it; instances with equally many relevant labels at once, one row each (a row-wise
    # mean adds in the same order as the mean of that row alone).
    means = np.ones(len(n_relevant))  # every label relevant: 1 under any ranking
    starts = np.concatenate([[0], np.cumsum(n_relevant)[:-1]])  # each row's first ratio
    for size in np.unique(n_relevant[n_relevant < n_labels]):
        rows = np.flatnonzero(n_relevant == size)
        means[rows] = ratios[starts[rows, None] + np.arange(size)].mean(axis=1)
    total = 0.0
    for mean in means.tolist():  # scikit-learn's running sum, in the same order
        total += mean
    return total / len(means)


# --------------------------------------------------------------------------- top-k (tail)
# Precision@k, nDCG@k and their propensity-scored versions, the measures of extreme
# multi-label classification that reward getting rare labels right (Jain, Prabhu & Varma,
# "Extreme multi-label loss functions for recommendation, tagging, ranking & other missing
# label applications", KDD 2016, §3 and Eqs. in §3.1).


def inverse_propensity(Y, *, A: float = 0.55, B: float = 1.5) -> np.ndarray:
    """Jain et al.'s (KDD 2016) inverse propensity of every label, ``1 / p_l``.

    ``1/p_l = 1 + C (N_l + B)^(-A)`` with ``C = (log N - 1)(B + 1)^A`` (natural logarithm),
    N the number of instances and N_l those carrying label l. The paper fits A and B per data
    set; A = 0.55, B = 1.5 are its values for data sets other than Wikipedia and Amazon, and
    the default of pyxclib and napkinXC. A label that never occurs gets the largest weight,
    ``1 + C B^(-A)``. For N < e (fewer than 3 instances) C is negative and the weights fall
    below 1: the model is not meant for such data.

    Parameters
    ----------
    Y : array-like of shape (N, L)
        0/1 labels the propensities are estimated on: the training labels.
    A, B : float, default=0.55, 1.5

    Returns
    -------
    ndarray of float, shape (L,)

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.metrics import inverse_propensity
    >>> Y = np.zeros((100, 2), dtype=int); Y[:50, 0] = 1; Y[:2, 1] = 1
    >>> inverse_propensity(Y).round(3).tolist()  # the rare label weighs more
    [1.683, 3.996]
    """
    Y = check_label_matrix(Y, name="Y")
    n_samples = Y.shape[0]
    if n_samples == 0:
        raise ValueError("Y has no rows: propensities need at least one instance.")
    if not (A > 0 and B >= 0):
        raise ValueError(f"inverse_propensity needs A > 0 and B >= 0; got A={A!r}, B={B!r}.")
    counts = np.asarray(Y.sum(axis=0), dtype=np.float64).ravel()
    C = (math.log(n_samples) - 1.0) * (B + 1.0) ** A
    return 1.0 + C * (counts + B) ** (-A)


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer (the top k of each ranking); got {k!r}.")
    return int(k)


def _discounts(n_positions: int, kind: str) -> np.ndarray:
    """Cumulative position weights: ``out[j] = Σ_{p < j} d(p)``, positions p from 0.

    ``kind="precision"``: d = 1; ``"dcg"``: d(p) = 1 / log2(p + 2) (rank p + 1).
    """
    positions = np.arange(n_positions, dtype=np.float64)
    weights = np.ones(n_positions) if kind == "precision" else 1.0 / np.log2(positions + 2.0)
    return np.concatenate([[0.0], np.cumsum(weights)])


class _TopK:
    """Where each relevant label of each instance ranks: one sort of the scores for every k.

    For relevant (i, l) with score s: ``higher`` = labels scored strictly above s (a) and
    ``tied`` = labels scored exactly s, itself included (t >= 1), from binary searches of each
    relevant score in its sorted row (:func:`_count_below`), so no N x L ranking is built and
    :func:`evaluate` sorts the scores once for all six top-k measures.

    Ties: a label tied with t - 1 others for the positions a .. a + t - 1 takes each of them
    with probability 1/t, as under a uniformly random tie-break, so its expected position
    weight is ``(D[min(a + t, k)] - D[min(a, k)]) / t`` with D the cumulative weights of
    :func:`_discounts`. The result does not depend on the label order (a first-index
    ``argsort`` rule would) and equals the usual top-k sum when no score ties.
    """

    def __init__(self, Y_true: np.ndarray, Y_score: np.ndarray) -> None:
        self.n_rows, self.n_labels = Y_true.shape
        self.rows, self.columns = np.nonzero(Y_true)
        values = Y_score[self.rows, self.columns]
        ordered = np.sort(Y_score, axis=1)
        below = _count_below(ordered, self.rows, values)  # scores < s
        at_or_below = _count_below(ordered, self.rows, np.nextafter(values, np.inf))
        self.higher = self.n_labels - at_or_below
        self.tied = at_or_below - below
        self.n_relevant = np.bincount(self.rows, minlength=self.n_rows)

    def expected(self, k: int, kind: str) -> np.ndarray:
        """Per relevant (row, label) pair, its expected position weight in the top k."""
        cumulative = _discounts(self.n_labels, kind)
        upper = cumulative[np.minimum(self.higher + self.tied, k)]
        return (upper - cumulative[np.minimum(self.higher, k)]) / self.tied

    def gain(self, k: int, kind: str, gains: np.ndarray | None = None) -> np.ndarray:
        """Per instance, Σ over its relevant labels of gain × expected weight in the top k."""
        expected = self.expected(k, kind)
        if gains is not None:
            expected = expected * gains[self.columns]
        return np.bincount(self.rows, weights=expected, minlength=self.n_rows)


def _best_top_k_gain(top: _TopK, k: int, kind: str, gains: np.ndarray) -> np.ndarray:
    """Per instance, the largest top-k sum any ranking can reach: its relevant labels' gains in
    decreasing order at the first min(k, |y_i|) positions."""
    rows, values = top.rows, gains[top.columns]
    order = np.lexsort((-values, rows))  # by row, largest gain first
    rows, values = rows[order], values[order]
    starts = np.searchsorted(rows, rows, side="left")
    position = np.arange(rows.size) - starts
    keep = position < k
    weights = _discounts(k, kind)
    step = np.diff(weights)  # d(p) for p < k
    return np.bincount(
        rows[keep], weights=values[keep] * step[position[keep]], minlength=top.n_rows
    )


def _precision_at_k(top: _TopK, k: int) -> float:
    return float(np.mean(top.gain(k, "precision") / k))


def _ndcg_at_k(top: _TopK, k: int) -> float:
    keep = top.n_relevant > 0
    if not keep.any():
        return float("nan")
    return float(np.mean(top.gain(k, "dcg")[keep] / _ideal_dcg(top.n_relevant[keep], k)))


def _psprecision_at_k(top: _TopK, k: int, weights: np.ndarray) -> float:
    total = _best_top_k_gain(top, k, "precision", weights).sum()
    if total <= 0:
        return float("nan")
    return float(top.gain(k, "precision", weights).sum() / total)


def _psndcg_at_k(top: _TopK, k: int, weights: np.ndarray) -> float:
    keep = top.n_relevant > 0
    if not keep.any():
        return float("nan")
    ideal = _ideal_dcg(top.n_relevant[keep], k)
    gain = top.gain(k, "dcg", weights)[keep] / ideal
    best = _best_top_k_gain(top, k, "dcg", weights)[keep] / ideal
    return float(gain.sum() / best.sum())


def _ideal_dcg(n_relevant: np.ndarray, k: int) -> np.ndarray:
    """IDCG@k of unit gains: Σ_{p < min(k, |y_i|)} 1 / log2(p + 2)."""
    cumulative = _discounts(k, "dcg")
    return cumulative[np.minimum(n_relevant, k)]


def _propensity_weights(Y_true: np.ndarray, inverse_propensities, Y_train) -> np.ndarray:
    if inverse_propensities is not None:
        weights = np.asarray(inverse_propensities, dtype=np.float64).ravel()
        if weights.shape != (Y_true.shape[1],) or not np.all(np.isfinite(weights)):
            raise ValueError(
                f"inverse_propensities must hold {Y_true.shape[1]} finite values, one per label; "
                f"got shape {weights.shape}."
            )
        return weights
    reference = Y_true if Y_train is None else check_label_matrix(Y_train, name="Y_train")
    if reference.shape[1] != Y_true.shape[1]:
        raise ValueError(
            f"Y_train has {reference.shape[1]} label columns but Y_true has {Y_true.shape[1]}."
        )
    return inverse_propensity(reference)


def finite_scores(Y_score) -> np.ndarray:
    """``Y_score`` with ``-inf`` replaced by one value below every finite score.

    A top-k score file (:func:`mlviz.io.load_scores`) gives ``-inf`` to the labels a model did
    not list; the score metrics need finite values. The replacement keeps every order the
    matrix states: unlisted labels stay below every listed one (in every row, since one
    value below the matrix's lowest finite score is used) and tie among themselves, so
    P@k, nDCG@k, AUC, ranking loss and the rest are what ``-inf`` means. That value is the
    lowest finite score minus 1 (minus the smallest step when 1 is lost to rounding), 0 - 1
    when no score is finite.

    Raises
    ------
    ValueError
        NaN or ``+inf`` in ``Y_score``: their place in a ranking is unknown.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.metrics import finite_scores
    >>> finite_scores(np.array([[0.9, -np.inf], [-np.inf, 0.2]])).tolist()
    [[0.9, -0.8], [-0.8, 0.2]]
    """
    scores = np.array(Y_score, dtype=np.float64)
    if np.isnan(scores).any() or np.isposinf(scores).any():
        raise ValueError(
            "Y_score contains NaN or +inf; only -inf (not scored) can be made finite. Write "
            "-inf for a label the model did not score."
        )
    unlisted = np.isneginf(scores)
    if unlisted.any():
        lowest = float(scores[~unlisted].min()) if (~unlisted).any() else 0.0
        floor = lowest - 1.0
        if not floor < lowest:
            floor = float(np.nextafter(lowest, -np.inf))
        scores[unlisted] = floor
    return scores


def precision_at_k(Y_true, Y_score, *, k: int = 1) -> float:
    """Precision@k: the mean share of relevant labels among each instance's k top-scored ones.

    ``P@k = 1/N Σ_i 1/k Σ_{l ∈ rank_k(s_i)} y_il`` (Jain et al., KDD 2016, §3; the measure of
    the extreme classification repository). Higher is better.

    Conventions: every instance counts, one with no relevant label scores 0 (as in pyxclib and
    napkinXC); with k > L the top k is all L labels and the sum is still divided by k. Tied
    scores at the k-th position are broken uniformly at random *in expectation* (each tied
    label counts with the probability it lands in the top k), so the result does not depend
    on the label order; without ties this is the plain top-k count.

    Parameters
    ----------
    Y_true : array-like of shape (N, L)
        0/1 truth.
    Y_score : array-like of shape (N, L)
        Real-valued scores, higher = more relevant (``decision_function(X)``).
    k : int, default=1

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.metrics import precision_at_k
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0]])
    >>> Y_score = np.array([[0.9, 0.2, 0.4], [0.8, 0.6, 0.1]])
    >>> precision_at_k(Y_true, Y_score, k=1), precision_at_k(Y_true, Y_score, k=2)
    (0.5, 0.75)
    """
    k = _check_k(k)
    Y_true, Y_score = _check_scores(Y_true, Y_score)
    return _precision_at_k(_TopK(Y_true, Y_score), k)


def recall_at_k(Y_true, Y_score, *, k: int = 5) -> float:
    """Recall@k: the mean share of each instance's relevant labels found in its top k.

    ``R@k = 1/N Σ_i 1/|y_i| Σ_{l ∈ rank_k(s_i)} y_il``, an instance with no relevant label
    counting 0 (as pyxclib's ``_pointwise_eval`` and napkinXC's ``recall_at_k`` with
    ``zero_division=0``). Ties as :func:`precision_at_k`. Higher is better.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.metrics import recall_at_k
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0]])
    >>> Y_score = np.array([[0.9, 0.2, 0.4], [0.8, 0.6, 0.1]])
    >>> recall_at_k(Y_true, Y_score, k=1), recall_at_k(Y_true, Y_score, k=2)
    (0.25, 1.0)
    """
    k = _check_k(k)
    Y_true, Y_score = _check_scores(Y_true, Y_score)
    top = _TopK(Y_true, Y_score)
    found = top.expected(k, "precision") / top.n_relevant[top.rows]
    return float(found.sum() / top.n_rows)


def _check_top_k_scores(Y_true, Y_score) -> tuple[np.ndarray, np.ndarray]:
    """As :func:`_check_scores`, but -inf allowed: an external model's top-k file leaves the
    labels it did not rank at -inf (below every score, tied with each other)."""
    Y_true = check_label_matrix(Y_true, name="Y_true", dtype=np.int8)
    Y_score = np.asarray(Y_score, dtype=np.float64)
    if Y_score.shape != Y_true.shape:
        raise ValueError(
            f"Y_score must have the same shape as Y_true; got {Y_score.shape} and "
            f"{Y_true.shape} (one row per test instance, one column per label)."
        )
    if np.isnan(Y_score).any() or np.isposinf(Y_score).any():
        raise ValueError(
            "Y_score contains NaN or +inf; scores must be finite or -inf (a label the model "
            "did not rank). Replace NaN with -inf: np.nan_to_num(Y_score, nan=-np.inf)."
        )
    if Y_true.shape[0] == 0:
        raise ValueError("Y_true has no rows: there is nothing to evaluate.")
    return Y_true, Y_score


def _frequency_bins(train_counts: np.ndarray, n_bins: int) -> list[np.ndarray]:
    """pyxclib's split (``utils/analysis.py``, ``_split_based_on_frequency``), vectorised.

    Labels in decreasing training count (stable: equal counts keep column order); the
    running count of a bin starts at its first label's count, and a label whose addition
    takes it past ``sum(counts) // n_bins`` opens the next bin (while fewer than n_bins are
    open). The first label can open bin 2 by itself, leaving bin 1 empty, as in pyxclib.
    Each boundary is one binary search of the cumulative counts (≤ n_bins searches).
    """
    order = np.argsort(-train_counts, kind="stable")
    cumulative = np.cumsum(train_counts[order])
    threshold = int(train_counts.sum()) // n_bins
    starts, before, lowest = [0], 0, 0  # before: the running count's offset in cumulative
    while len(starts) < n_bins:
        # first position j >= lowest whose running count cumulative[j] - before > threshold
        j = max(int(np.searchsorted(cumulative, threshold + before, side="right")), lowest)
        if j >= order.size:
            break
        starts.append(j)
        before, lowest = (cumulative[j - 1] if j > 0 else 0), j + 1
    return np.split(order, starts[1:])


_BIN_METRICS = ("P", "R", "PSP")


def frequency_bin_contributions(
    Y_true,
    Y_score,
    *,
    Y_train,
    k: int = 5,
    n_bins: int = 10,
    metric: str = "P",
) -> pd.DataFrame:
    """How much of P@k (R@k, PSP@k) comes from labels of each training-frequency bin.

    The extreme classification papers' "contribution by decile" figure (pyxclib
    ``utils/analysis.py``, ``decile_contribution_plot``). The labels are sorted by decreasing
    training count and cut into bins of about equal *total* count: a new bin starts when the
    running count passes ``sum(counts) // n_bins`` (pyxclib's rule exactly; equal counts keep
    column order, a stable sort; the first bin is empty when the most frequent label alone
    passes the threshold; there may be fewer than ``n_bins`` bins). A label's contribution is
    its share of the metric's sum: for P@k the test instances where it is relevant and in the
    top k, over ``k · N``; for R@k each such instance weighs ``1 / (|y_i| N)``; for PSP@k
    ``q_l / Σ_i best_i`` with :func:`psprecision_at_k`'s inverse propensities (estimated on
    ``Y_train``) and normaliser. The bins' contributions sum to :func:`precision_at_k`,
    :func:`recall_at_k`, :func:`psprecision_at_k` (ties counted in expectation, as there).

    Parameters
    ----------
    Y_true : array-like of shape (N, L)
        0/1 truth of the test instances.
    Y_score : array-like of shape (N, L)
        Scores, higher = more relevant; ``-inf`` for labels a top-k model did not rank.
    Y_train : array-like of shape (n_train, L)
        Training labels: their counts order and bin the labels (and give PSP's propensities).
    k : int, default=5
    n_bins : int, default=10
    metric : {"P", "R", "PSP"}, default="P"

    Returns
    -------
    pandas.DataFrame
        One row per bin, the most frequent bin first: ``bin`` (1 = most frequent),
        ``labels`` (labels in the bin), ``min_train_count``, ``max_train_count``,
        ``mean_train_count`` (over all its labels, never-seen ones at 0; pyxclib's axis
        label leaves those out), ``train_positives`` (their summed training count) and
        ``contribution``. An empty bin has 0 labels, NaN counts and contribution 0.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.metrics import frequency_bin_contributions
    >>> Y_train = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1]])  # counts 3, 2, 1: threshold 3
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0]])
    >>> Y_score = np.array([[0.9, 0.2, 0.4], [0.8, 0.6, -np.inf]])
    >>> table = frequency_bin_contributions(Y_true, Y_score, Y_train=Y_train, k=1, n_bins=2)
    >>> table["labels"].tolist(), table["mean_train_count"].tolist()
    ([1, 2], [3.0, 1.5])
    >>> table["contribution"].tolist()  # row 1's top label is relevant: 1 / (k · N)
    [0.5, 0.0]
    """
    if metric not in _BIN_METRICS:
        raise ValueError(f"metric must be one of {_BIN_METRICS}; got {metric!r}.")
    k = _check_k(k)
    values = label_contributions(Y_true, Y_score, Y_train=Y_train, ks=(k,), metrics=(metric,))
    counts = check_label_matrix(Y_train, name="Y_train").sum(axis=0)
    return bin_by_frequency(values[f"{metric}@{k}"].to_numpy(), counts, n_bins=n_bins)


def label_contributions(
    Y_true,
    Y_score,
    *,
    Y_train,
    ks: Sequence[int] = (5,),
    metrics: Sequence[str] = ("P",),
) -> pd.DataFrame:
    """Every label's share of P@k, R@k and PSP@k: the numbers the frequency bins sum.

    One sort of the scores serves every k and metric (so a page can keep L numbers per
    method for each, drop the N x L scores, and bin them later at any bin count with
    :func:`bin_by_frequency`). The contributions are those of
    :func:`frequency_bin_contributions`: per label, for P@k the test instances where it is
    relevant and in the top k over ``k · N``; for R@k each such instance weighs
    ``1 / (|y_i| N)``; for PSP@k ``q_l / Σ_i best_i`` (inverse propensities from
    ``Y_train``). Each column sums to the metric (ties in expectation, as there).

    Parameters
    ----------
    Y_true, Y_score, Y_train
        As :func:`frequency_bin_contributions` (``-inf`` scores allowed).
    ks : sequence of int, default=(5,)
    metrics : sequence of {"P", "R", "PSP"}, default=("P",)

    Returns
    -------
    pandas.DataFrame
        One row per label (column order), one column ``"<metric>@<k>"`` per pair.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.metrics import finite_scores, label_contributions, precision_at_k
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0]])
    >>> Y_score = np.array([[0.9, 0.2, 0.4], [0.8, 0.6, -np.inf]])
    >>> table = label_contributions(Y_true, Y_score, Y_train=Y_true, ks=(1, 2))
    >>> table["P@2"].tolist()  # row 1 finds labels 0 and 2, row 2 label 1: each 1 / (2 · 2)
    [0.25, 0.25, 0.25]
    >>> float(table["P@2"].sum()) == precision_at_k(Y_true, finite_scores(Y_score), k=2)
    True
    """
    unknown = [m for m in metrics if m not in _BIN_METRICS]
    if unknown or not metrics:
        raise ValueError(f"metrics must be a non-empty selection of {_BIN_METRICS}; got {metrics}.")
    ks = [_check_k(k) for k in ks]
    if not ks:
        raise ValueError("ks is empty: give at least one k.")
    Y_true, Y_score = _check_top_k_scores(Y_true, Y_score)
    Y_train = check_label_matrix(Y_train, name="Y_train")
    if Y_train.shape[1] != Y_true.shape[1]:
        raise ValueError(
            f"Y_train has {Y_train.shape[1]} label columns but Y_true has {Y_true.shape[1]}."
        )
    top = _TopK(Y_true, Y_score)
    q = inverse_propensity(Y_train) if "PSP" in metrics else None
    columns = {}
    for metric in metrics:
        for k in ks:
            weight = top.expected(k, "precision")
            if metric == "P":
                weight = weight / (k * top.n_rows)
            elif metric == "R":
                weight = weight / (top.n_relevant[top.rows] * top.n_rows)
            else:
                total = _best_top_k_gain(top, k, "precision", q).sum()
                weight = (
                    weight * q[top.columns] / total if total > 0 else np.full(weight.shape, np.nan)
                )
            columns[f"{metric}@{k}"] = np.bincount(
                top.columns, weights=weight, minlength=top.n_labels
            )
    return pd.DataFrame(columns)


def bin_by_frequency(label_values, train_counts, *, n_bins: int = 10) -> pd.DataFrame:
    """Sum per-label numbers over pyxclib's frequency bins: the table of
    :func:`frequency_bin_contributions` from :func:`label_contributions` (one column).

    Parameters
    ----------
    label_values : array-like of shape (L,)
        A number per label (its contribution), in column order.
    train_counts : array-like of shape (L,)
        Each label's training count: they order and cut the labels (the rule of
        :func:`frequency_bin_contributions`).
    n_bins : int, default=10

    Returns
    -------
    pandas.DataFrame
        As :func:`frequency_bin_contributions`.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.metrics import bin_by_frequency
    >>> table = bin_by_frequency([0.5, 0.1, 0.2], [3, 2, 1], n_bins=2)  # threshold 3
    >>> table["labels"].tolist(), table["contribution"].round(2).tolist()
    ([1, 2], [0.5, 0.3])
    """
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer; got {n_bins!r}.")
    values = np.asarray(label_values, dtype=float)
    counts = np.asarray(train_counts)
    if values.ndim != 1 or counts.shape != values.shape:
        raise ValueError(
            f"label_values and train_counts must be 1-D of one length (a number per label); "
            f"got shapes {values.shape} and {counts.shape}."
        )
    rows = []
    for number, members in enumerate(_frequency_bins(counts, int(n_bins)), 1):
        member_counts = counts[members]
        empty = members.size == 0
        rows.append(
            {
                "bin": number,
                "labels": int(members.size),
                "min_train_count": np.nan if empty else float(member_counts.min()),
                "max_train_count": np.nan if empty else float(member_counts.max()),
                "mean_train_count": np.nan if empty else float(member_counts.mean()),
                "train_positives": float(member_counts.sum()),
                "contribution": float(values[members].sum()),
            }
        )
    return pd.DataFrame(rows)


def ndcg_at_k(Y_true, Y_score, *, k: int = 3) -> float:
    """nDCG@k: discounted gain of the top k over the best possible, averaged over instances.

    ``DCG@k_i = Σ_{l ∈ rank_k(s_i)} y_il / log2(rank(l) + 1)`` and
    ``nDCG@k_i = DCG@k_i / Σ_{r=1}^{min(k, |y_i|)} 1 / log2(r + 1)`` (Jain et al., KDD 2016,
    §3). Higher is better; 1 when every instance's relevant labels fill its top ranks.

    Conventions: instances with no relevant label are excluded (0 / 0; pyxclib and napkinXC
    count them as 0); ``nan`` if none is left. Ties as :func:`precision_at_k`: expected gain
    under a uniformly random tie-break.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.metrics import ndcg_at_k
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0]])
    >>> Y_score = np.array([[0.9, 0.2, 0.4], [0.8, 0.6, 0.1]])
    >>> round(ndcg_at_k(Y_true, Y_score, k=2), 4)  # row 1: 1; row 2: (1/log2 3) / 1
    0.8155
    """
    k = _check_k(k)
    Y_true, Y_score = _check_scores(Y_true, Y_score)
    return _ndcg_at_k(_TopK(Y_true, Y_score), k)


def psprecision_at_k(
    Y_true, Y_score, *, k: int = 1, inverse_propensities=None, Y_train=None
) -> float:
    """Propensity-scored precision@k, normalised by the best achievable value.

    Jain et al. (KDD 2016, §3.1) weight each relevant label in the top k by its inverse
    propensity q_l (:func:`inverse_propensity`): ``PSP@k_i = 1/k Σ_{l ∈ rank_k(s_i)} y_il q_l``,
    an unbiased estimate of precision when rare labels go missing from the truth more often.
    As the paper's tables and pyxclib/napkinXC (``normalize=True``) report it, the sum over
    instances is divided by the sum of the best achievable values (each instance's top
    min(k, |y_i|) weights among its relevant labels, over k):
    ``PSP@k = Σ_i PSP@k_i / Σ_i best_i``, in [0, 1]. Higher is better; it rises when the rare
    labels are the ones ranked right.

    Conventions: ties as :func:`precision_at_k`; ``nan`` when no instance has a relevant label.

    Parameters
    ----------
    Y_true, Y_score : array-like of shape (N, L)
    k : int, default=1
    inverse_propensities : array-like of shape (L,), optional
        Default :func:`inverse_propensity` of ``Y_train`` (or of ``Y_true`` without it).
    Y_train : array-like of shape (n_train, L), optional
        The training labels the propensities are estimated on, as in the paper.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.metrics import psprecision_at_k
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0]])
    >>> Y_score = np.array([[0.9, 0.2, 0.4], [0.8, 0.6, 0.1]])
    >>> q = np.array([1.0, 2.0, 4.0])
    >>> psprecision_at_k(Y_true, Y_score, k=1, inverse_propensities=q)  # 1 / (4 + 2)
    0.16666666666666666
    """
    k = _check_k(k)
    Y_true, Y_score = _check_scores(Y_true, Y_score)
    weights = _propensity_weights(Y_true, inverse_propensities, Y_train)
    return _psprecision_at_k(_TopK(Y_true, Y_score), k, weights)


def psndcg_at_k(Y_true, Y_score, *, k: int = 3, inverse_propensities=None, Y_train=None) -> float:
    """Propensity-scored nDCG@k, normalised by the best achievable value.

    ``PSDCG@k_i = Σ_{l ∈ rank_k(s_i)} y_il q_l / log2(rank(l) + 1)`` (Jain et al., KDD 2016,
    §3.1), divided per instance by the unit-gain ideal DCG of :func:`ndcg_at_k`; then, as for
    :func:`psprecision_at_k`, the sum over instances is divided by the same sum for the best
    ranking (each instance's relevant labels by decreasing q_l): the formulation of napkinXC's
    ``psndcg_at_k(normalize=True)``. pyxclib leaves out the per-instance ideal DCG; the two
    agree when every instance has at least k relevant labels. Higher is better, in [0, 1].

    Conventions: instances with no relevant label contribute nothing (0 to both sums); ``nan``
    when no instance has one. Ties as :func:`precision_at_k`.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.metrics import psndcg_at_k
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0]])
    >>> Y_score = np.array([[0.9, 0.2, 0.4], [0.8, 0.6, 0.1]])
    >>> q = np.array([1.0, 2.0, 4.0])
    >>> round(psndcg_at_k(Y_true, Y_score, k=1, inverse_propensities=q), 4)  # 1 / (4 + 2)
    0.1667
    """
    k = _check_k(k)
    Y_true, Y_score = _check_scores(Y_true, Y_score)
    weights = _propensity_weights(Y_true, inverse_propensities, Y_train)
    return _psndcg_at_k(_TopK(Y_true, Y_score), k, weights)


#: The top-k keys :func:`evaluate` adds with scores: name -> (function, k). Propensities are
#: estimated on the training labels when given (``Y_train``), else on the truth.
AT_K_METRICS: dict[str, tuple[Any, int]] = {
    "precision_at_1": (precision_at_k, 1),
    "precision_at_3": (precision_at_k, 3),
    "ndcg_at_3": (ndcg_at_k, 3),
    "psprecision_at_1": (psprecision_at_k, 1),
    "psprecision_at_3": (psprecision_at_k, 3),
    "psndcg_at_3": (psndcg_at_k, 3),
}
# the same measures from one shared _TopK (evaluate sorts the scores once for all six)
_AT_K_FROM_RANKS = {
    precision_at_k: lambda top, k, weights: _precision_at_k(top, k),
    ndcg_at_k: lambda top, k, weights: _ndcg_at_k(top, k),
    psprecision_at_k: _psprecision_at_k,
    psndcg_at_k: _psndcg_at_k,
}


def macro_auc(Y_true, Y_score) -> float:
    """Mean over labels of the area under the ROC curve of that label's scores.

    Each label's AUC is the probability that a random positive instance scores above a random
    negative one, ties counting 1/2 (scikit-learn's ``roc_auc_score``). Higher is better.

    Convention: labels whose truth column has no positive or no negative instance (AUC
    undefined) are left out of the mean; ``nan`` if every label is such a label.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0]])
    >>> Y_score = np.array([[0.9, 0.2, 0.4], [0.8, 0.6, 0.1]])
    >>> from mlviz.metrics import macro_auc
    >>> round(macro_auc(Y_true, Y_score), 3)
    1.0
    """
    Y_true, Y_score = _check_scores(Y_true, Y_score)
    auc = _per_label_auc(Y_true, Y_score)
    if np.isnan(auc).all():
        return float("nan")
    return float(np.nanmean(auc))


def _per_label_auc(Y_true: np.ndarray, Y_score: np.ndarray) -> np.ndarray:
    """ROC AUC of every label column at once; NaN where a column has a single class.

    The Mann-Whitney form: a positive wins against each negative scored below it and half
    wins against each tied one. Counted with one sort of each score column and two binary
    searches of its positives' scores: over the positives, (#scores below + #scores at or
    below) / 2 counts every comparison once (ties and itself half), and the positives'
    comparisons among themselves add exactly n+²/2, so ``AUC = (that sum − n+²/2) / (n+ n−)``.
    The counts are half-integers, exact in float64, so this equals ``roc_auc_score`` (and the
    mid-rank formula) exactly. scikit-learn's per-label loop took ~20 s per call at 1,000
    labels, a mid-rank ``rankdata`` of the whole matrix ~0.6 s at 3,221 × 983
    (benchmarks/bench_scale.py).
    """
    positive = Y_true.astype(bool)
    n_positive = np.count_nonzero(positive, axis=0)
    n_negative = Y_true.shape[0] - n_positive
    defined = np.flatnonzero((n_positive > 0) & (n_negative > 0))
    auc = np.full(Y_true.shape[1], np.nan)
    if defined.size == 0:
        return auc
    columns = np.ascontiguousarray(Y_score[:, defined].T)  # one row per label
    ordered = np.sort(columns, axis=1)
    positive_columns = np.ascontiguousarray(positive[:, defined].T)
    for row, label in enumerate(defined):
        scores = columns[row, positive_columns[row]]
        below = np.searchsorted(ordered[row], scores, side="left").sum()
        at_or_below = np.searchsorted(ordered[row], scores, side="right").sum()
        n_pos, n_neg = float(n_positive[label]), float(n_negative[label])
        auc[label] = ((below + at_or_below) / 2 - n_pos * n_pos / 2) / (n_pos * n_neg)
    return auc


# --------------------------------------------------------------------------- all at once

_RANKING = {
    "one_error": one_error,
    "coverage": coverage,
    "ranking_loss": ranking_loss,
    "average_precision": average_precision,
    "macro_auc": macro_auc,
}


class Evaluator:
    """The metrics of :func:`evaluate` for many predictions of one truth, truth checked once.

    A sweep scores a dozen values of M per method against the same test labels, and
    cross-validation scores every method against the same fold; :func:`evaluate` is
    ``Evaluator(Y_true, ...).score(Y_pred, Y_score)``.

    Why the bipartition metrics are counted here and not by scikit-learn: each of
    scikit-learn's ``f1_score``, ``hamming_loss``, ``accuracy_score`` call re-validates both
    matrices (target-type detection, label unions) and rebuilds the multi-label confusion
    matrix: ~0.5 s of CPU per :func:`evaluate` at 3,221 × 983 (1.4 s under load at 4,832 ×
    983, issue 14), against ~0.01 s here (benchmarks/bench_scale.py, ``plst_sweep``). Every
    bipartition metric is a function of four counts, taken here in one pass over
    ``Y_true ∧ Y_pred``: per label TP_j, predicted_j (FP_j = predicted_j − TP_j) and
    positives_j (FN_j = positives_j − TP_j); per instance |y_i ∧ ŷ_i|, |ŷ_i| and |y_i|.
    The single-metric functions (:func:`micro_f1`, :func:`macro_f1`, :func:`hamming_loss`,
    :func:`subset_accuracy`) stay scikit-learn's and are the reference:
    ``tests/test_metrics.py`` checks that both agree with scikit-learn on random and
    degenerate data. Of the ranking metrics, coverage, ranking loss and average precision
    and one-error come from one sort of each score row (:class:`_RelevantPairs`, whose
    relevant pairs are found once per truth) instead of scikit-learn's per-instance loops,
    checked against the functions of the same name, ties included; macro AUC is that
    function.

    Parameters
    ----------
    Y_true : array-like of shape (n_samples, n_labels)
        0/1 truth.
    zero_division : {0, 1, nan}, default=0
        As in :func:`evaluate`.
    tail_threshold : float in (0, 1] or "adaptive", optional
        As in :func:`evaluate`: adds the tail metrics (:func:`tail_head_scores`).
    Y_train : array-like of shape (n_train, n_labels), optional
        Training labels that define the tail (with ``tail_threshold``) and on which the
        inverse propensities of the propensity-scored measures are estimated (default
        ``Y_true``).

    Attributes
    ----------
    Y_true : ndarray of bool, shape (n_samples, n_labels)
    positives : ndarray of int64, shape (n_labels,)
        Positive instances per label (TP + FN).
    set_sizes : ndarray of int64, shape (n_samples,)
        Labels per instance, |y_i|.
    is_tail : ndarray of bool, shape (n_labels,) or None
        The tail labels, with ``tail_threshold``.

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    >>> Y_pred = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1]])
    >>> from mlviz.metrics import Evaluator
    >>> evaluator = Evaluator(Y_true)
    >>> round(evaluator.score(Y_pred)["hamming_loss"], 3)
    0.333
    """

    def __init__(
        self,
        Y_true,
        *,
        zero_division: float = 0,
        tail_threshold: float | None = None,
        Y_train=None,
    ) -> None:
        self.zero_division = _check_zero_division(zero_division)
        checked = check_label_matrix(Y_true, name="Y_true")
        if checked.shape[0] == 0:
            raise ValueError("Y_true has no rows: there is nothing to evaluate.")
        self._Y_true_checked = checked
        self._Y_train = Y_train
        self._inverse_propensities: np.ndarray | None = None
        self._pairs: _RelevantPairs | None = None  # the ranking metrics' pairs, on first use
        self.Y_true = checked.astype(bool)
        self.positives = np.count_nonzero(self.Y_true, axis=0)
        self.set_sizes = np.count_nonzero(self.Y_true, axis=1)
        self.is_tail = None
        if tail_threshold is not None:
            reference = checked
            if Y_train is not None:
                reference = check_label_matrix(Y_train, name="Y_train")
                if reference.shape[1] != checked.shape[1]:
                    raise ValueError(
                        f"Y_train has {reference.shape[1]} label columns but Y_true has "
                        f"{checked.shape[1]}; give the training labels of the same problem."
                    )
            self.is_tail = np.zeros(checked.shape[1], dtype=bool)
            self.is_tail[tail_labels(reference, _fixed_or_none(tail_threshold))] = True

    def _check_prediction(self, Y_pred) -> np.ndarray:
        """Y_pred as a bool matrix of the truth's shape; 0/1 checked without a float copy."""
        if sp.issparse(Y_pred):
            Y_pred = Y_pred.toarray()
        array = np.asarray(Y_pred)
        if not (array.ndim == 2 and (array.dtype == bool or array.dtype.kind in "iuf")):
            array = check_label_matrix(array, name="Y_pred")  # raises the specific error
        elif array.dtype != bool and np.any((array != 0) & (array != 1)):
            check_label_matrix(array, name="Y_pred")  # raises, naming the first bad cell
        if array.shape != self.Y_true.shape:
            raise ValueError(
                f"Y_true and Y_pred must have the same shape; got {self.Y_true.shape} and "
                f"{array.shape}."
            )
        return array.astype(bool, copy=False)

    def score(self, Y_pred, Y_score=None, *, only: Sequence[str] | None = None) -> dict[str, float]:
        """All metrics of ``Y_pred`` (and ``Y_score``), keyed and ordered as :func:`evaluate`.

        ``only`` keeps those keys, in that order, and skips the ranking work no kept key
        needs: macro AUC (a ROC curve per label) and the top-k measures are computed only
        when asked for (a page that shows the paper's five ML-KNN metrics at ~1,000 labels
        pays for one sort of the scores, not for 983 ROC curves).
        """
        if only is not None:
            known = set(EVALUATE_KEYS) | set(TAIL_KEYS)
            unknown = [name for name in only if name not in known]
            if unknown:
                raise ValueError(
                    f"Evaluator.score: unknown metric(s) {unknown}; choose from {sorted(known)}."
                )
        predicted = self._check_prediction(Y_pred)
        hits = self.Y_true & predicted
        tp = np.count_nonzero(hits, axis=0)
        predicted_per_label = np.count_nonzero(predicted, axis=0)
        both = np.count_nonzero(hits, axis=1)
        predicted_sizes = np.count_nonzero(predicted, axis=1)
        n_samples, n_labels = self.Y_true.shape
        n_true, n_predicted, n_hits = self.positives.sum(), predicted_per_label.sum(), tp.sum()
        results = {
            "hamming_loss": float((n_true + n_predicted - 2 * n_hits) / (n_samples * n_labels)),
            "subset_accuracy": float(np.mean((both == self.set_sizes) & (both == predicted_sizes))),
            "accuracy": float(
                1.0
                - _cost_from_counts(
                    "accuracy", both, self.set_sizes, predicted_sizes, n_labels
                ).mean()
            ),
            "example_f1": float(
                1.0
                - _cost_from_counts("f1", both, self.set_sizes, predicted_sizes, n_labels).mean()
            ),
            # 2TP / (2TP + FP + FN) = 2TP / (positives + predicted); 1 when both are 0
            "micro_f1": float(2 * n_hits / (n_true + n_predicted)) if n_true + n_predicted else 1.0,
        }
        f1 = self._per_label_f1(tp, predicted_per_label)
        results["macro_f1"] = _mean_defined(f1)
        if self.is_tail is not None:
            tail_positives = self.positives[self.is_tail].sum()
            results.update(
                {
                    "tail_macro_f1": _mean_defined(f1[self.is_tail]),
                    "head_macro_f1": _mean_defined(f1[~self.is_tail]),
                    "tail_recall": float(tp[self.is_tail].sum() / tail_positives)
                    if tail_positives
                    else math.nan,
                }
            )
        if Y_score is not None:
            results.update(self._ranking(Y_score, only))
        if only is None:
            return results
        missing = [name for name in only if name not in results]
        if missing:
            raise ValueError(
                f"Evaluator.score: {missing} need scores (Y_score) or a tail_threshold."
            )
        return {name: results[name] for name in only}

    def _ranking(self, Y_score, only: Sequence[str] | None = None) -> dict[str, float]:
        """The ranking metrics from one sort of each row of the scores (:class:`_RelevantPairs`).

        Equal to :func:`one_error`, :func:`coverage`, :func:`ranking_loss`,
        :func:`average_precision` and :func:`macro_auc` (same exclusions, same tie rules);
        scikit-learn's ranking loss and average precision loop over the rows in Python. The
        truth was checked once, in ``__init__``: only the scores are checked here.
        """
        scores = _score_matrix(Y_score, self.Y_true.shape)
        n_labels = self.Y_true.shape[1]
        has_relevant = self.set_sizes > 0
        if not has_relevant.any():
            names = ("one_error", "coverage", "ranking_loss", "average_precision")
            results = dict.fromkeys(names, math.nan)
        else:
            if self._pairs is None:  # once per truth
                self._pairs = _RelevantPairs(self.Y_true[has_relevant])
            rows = self._pairs.rows
            kept = scores if has_relevant.all() else scores[has_relevant]
            values, ordered, rank, relevant_at_or_above = self._pairs.ranks(kept)
            sizes = self.set_sizes[has_relevant]
            n_kept = len(sizes)
            # one-error: the share of each row's top-scoring labels that are irrelevant (the
            # tie rule of one_error), the top being the last of each sorted row
            top_score = ordered[:, -1]
            n_top = n_labels - _count_below(ordered, np.arange(n_kept), top_score)
            relevant_top = np.bincount(rows, weights=values == top_score[rows], minlength=n_kept)
            results = {"one_error": float(np.mean((n_top - relevant_top) / n_top))}
            # coverage: the worst rank of a relevant label, minus 1 (rank 1 is the top)
            worst = np.zeros(n_kept, dtype=np.intp)
            np.maximum.at(worst, rows, rank)
            results["coverage"] = float(np.mean(worst) - 1.0)
            # ranking loss: irrelevant labels scored at or above each relevant one, per pair
            n_irrelevant = n_labels - sizes
            has_pairs = n_irrelevant > 0
            if has_pairs.any():
                reversed_pairs = np.bincount(
                    rows, weights=rank - relevant_at_or_above, minlength=n_kept
                )
                results["ranking_loss"] = float(
                    np.mean(reversed_pairs[has_pairs] / (sizes * n_irrelevant)[has_pairs])
                )
            else:
                results["ranking_loss"] = math.nan
            precision_sums = np.bincount(
                rows, weights=relevant_at_or_above / rank, minlength=n_kept
            )
            results["average_precision"] = float(np.mean(precision_sums / sizes))
        truth = self._Y_true_checked
        if only is None or "macro_auc" in only:
            results["macro_auc"] = macro_auc(truth, scores)
        if only is not None and not set(only) & set(AT_K_METRICS):
            return results
        if self._inverse_propensities is None:  # once per truth: it checks Y_train
            self._inverse_propensities = _propensity_weights(truth, None, self._Y_train)
        top = _TopK(truth, scores)
        for name, (function, k) in AT_K_METRICS.items():
            results[name] = _AT_K_FROM_RANKS[function](top, k, self._inverse_propensities)
        return results

    def _per_label_f1(self, tp: np.ndarray, predicted: np.ndarray) -> np.ndarray:
        """2TP_j / (positives_j + predicted_j), ``zero_division`` where both are 0."""
        denominator = (self.positives + predicted).astype(np.float64)
        f1 = np.full(denominator.shape, self.zero_division)
        np.divide(2.0 * tp, denominator, out=f1, where=denominator > 0)
        return f1


def evaluate(
    Y_true,
    Y_pred,
    *,
    Y_score=None,
    zero_division: float = 0,
    tail_threshold: float | None = None,
    Y_train=None,
) -> dict[str, float]:
    """All metrics that apply, keyed as in :data:`EVALUATE_KEYS` (and :data:`TAIL_KEYS`).

    Parameters
    ----------
    Y_true, Y_pred : array-like of shape (n_samples, n_labels)
        0/1 truth and hard prediction.
    Y_score : array-like of shape (n_samples, n_labels), optional
        Real-valued scores (higher = more relevant), e.g. ``decision_function(X)``. When given,
        the ranking metrics (one_error, coverage, ranking_loss, average_precision, macro_auc)
        and the top-k ones of :data:`AT_K_METRICS` (P@1, P@3, nDCG@3, PSP@1, PSP@3,
        PSnDCG@3) are added. Without scores they are absent (a hard 0/1 prediction has no
        ranking: its ties would decide every top k).
    zero_division : {0, 1, nan}, default=0
        Macro F1's value for a label never present and never predicted (see
        :func:`per_label_f1`); also used by the tail and head macro F1.
    tail_threshold : float in (0, 1] or "adaptive", optional
        When given (a fixed share of the instances, or ``"adaptive"``, the rule of
        :func:`mlviz.stats.tail_cutoff` on the training labels), add ``tail_macro_f1``,
        ``head_macro_f1`` and ``tail_recall`` (:func:`tail_head_scores`).
    Y_train : array-like of shape (n_train, n_labels), optional
        Training labels whose frequencies define the tail (with ``tail_threshold``) and give
        the inverse propensities of ``psprecision_at_k`` / ``psndcg_at_k``
        (:func:`inverse_propensity`, as Jain et al. estimate them on the training set);
        default ``Y_true``.

    Returns
    -------
    dict of str to float
        Bipartition metrics always; then the tail metrics (:data:`TAIL_KEYS`) only with a
        threshold; then the ranking metrics only with scores. Directions and display labels
        are in :data:`METRICS`. Undefined metrics (see their docstrings) are ``nan``. The
        values equal the single-metric functions (:func:`hamming_loss`, ...); they are
        computed from shared counts (see :class:`Evaluator`, which scores many predictions
        of one truth).

    Examples
    --------
    >>> import numpy as np
    >>> Y_true = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    >>> Y_pred = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 1]])
    >>> from mlviz.metrics import evaluate
    >>> scores = evaluate(Y_true, Y_pred)
    >>> round(scores["hamming_loss"], 3), round(scores["micro_f1"], 3)
    (0.333, 0.667)
    """
    evaluator = Evaluator(
        Y_true, zero_division=zero_division, tail_threshold=tail_threshold, Y_train=Y_train
    )
    return evaluator.score(Y_pred, Y_score)
