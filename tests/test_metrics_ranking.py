"""Ranking loss and average precision equal scikit-learn's exactly (mlviz.metrics ranks all
instances at once instead of scikit-learn's per-instance loop; same numbers, bit for bit)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import label_ranking_average_precision_score, label_ranking_loss

from mlviz import metrics as M


def random_case(seed: int, n_samples: int, n_labels: int, density: float, decimals: int):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n_samples, n_labels)) < density).astype(np.uint8)
    Y[0] = 0  # an empty truth
    Y[1] = 1  # a full truth
    scores = np.round(rng.normal(size=(n_samples, n_labels)), decimals)  # ties when rounded
    scores[2] = 0.0  # every label tied
    scores[3, ::2] = -0.0  # -0.0 and 0.0 are the same score
    scores[3, 1::2] = 0.0
    return Y, scores


def sklearn_on_kept_rows(func, Y, scores, exclude_full: bool) -> float:
    n_relevant = Y.sum(axis=1)
    keep = n_relevant > 0
    if exclude_full:
        keep &= n_relevant < Y.shape[1]
    return float(func(Y[keep], scores[keep])) if keep.any() else math.nan


CASES = [
    # seed, instances, labels, label density, score decimals
    (0, 60, 8, 0.3, 0),
    (1, 60, 8, 0.3, 3),
    (2, 200, 40, 0.1, 1),
    (3, 50, 300, 0.6, 1),  # rows with > 128 relevant labels: numpy's pairwise sums nest
    (4, 30, 2, 0.5, 0),
    (5, 120, 983, 0.02, 2),  # the delicious shape's label count and cardinality
]


@pytest.mark.parametrize(("seed", "n_samples", "n_labels", "density", "decimals"), CASES)
def test_ranking_loss_equals_scikit_learn_exactly(seed, n_samples, n_labels, density, decimals):
    Y, scores = random_case(seed, n_samples, n_labels, density, decimals)
    expected = sklearn_on_kept_rows(label_ranking_loss, Y, scores, exclude_full=True)
    assert M.ranking_loss(Y, scores) == expected


@pytest.mark.parametrize(("seed", "n_samples", "n_labels", "density", "decimals"), CASES)
def test_average_precision_equals_scikit_learn_exactly(
    seed, n_samples, n_labels, density, decimals
):
    Y, scores = random_case(seed, n_samples, n_labels, density, decimals)
    expected = sklearn_on_kept_rows(
        label_ranking_average_precision_score, Y, scores, exclude_full=False
    )
    assert M.average_precision(Y, scores) == expected


def test_single_label_column_and_all_excluded_rows():
    Y = np.array([[1], [0], [1]])
    scores = np.array([[0.2], [0.9], [0.1]])
    assert M.average_precision(Y, scores) == 1.0  # the only label is relevant: rank 1
    assert math.isnan(M.ranking_loss(Y, scores))  # no (relevant, irrelevant) pair anywhere
    assert math.isnan(M.average_precision(np.zeros((2, 3)), np.ones((2, 3))))


def test_hand_worked_ties():
    # relevant {0, 2}; scores 0.5, 0.5, 0.5, 0.1: labels 0-2 tied at the top.
    # Ranking loss: pairs (0,1), (0,3), (2,1), (2,3); the two with label 1 are ties (wrong):
    #   2/4. Average precision: both relevant labels have rank 3 (worst of the tie) and 2
    #   relevant labels at or above: (2/3 + 2/3) / 2 = 2/3.
    Y, scores = [[1, 0, 1, 0]], [[0.5, 0.5, 0.5, 0.1]]
    assert M.ranking_loss(Y, scores) == 0.5
    assert M.average_precision(Y, scores) == 2 / 3


@pytest.mark.parametrize("n_relevant", [3, 9, 17, 130, 290])
def test_one_instance_average_precision_is_scikit_learns_mean_to_the_last_bit(n_relevant):
    """With one instance the result is that instance's mean, nothing averaged away: it must
    add its ratios in numpy's pairwise order, as scikit-learn's ``mean`` does."""
    rng = np.random.default_rng(n_relevant)
    Y = np.zeros((1, 300), dtype=np.uint8)
    Y[0, rng.choice(300, n_relevant, replace=False)] = 1
    for _ in range(20):
        scores = rng.random((1, 300))
        expected = label_ranking_average_precision_score(Y, scores)
        assert M.average_precision(Y, scores) == expected


def test_instances_with_equally_many_relevant_labels_keep_their_own_means():
    """Equally sized instances are averaged together (one row-wise mean); two of them with
    many relevant labels leave the per-instance rounding visible in the result."""
    rng = np.random.default_rng(7)
    Y = np.zeros((2, 300), dtype=np.uint8)
    Y[0, rng.choice(300, 200, replace=False)] = 1
    Y[1, rng.choice(300, 200, replace=False)] = 1
    for _ in range(20):
        scores = rng.random((2, 300))
        expected = label_ranking_average_precision_score(Y, scores)
        assert M.average_precision(Y, scores) == expected
