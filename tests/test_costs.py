"""mlviz.costs.cost_matrix against hand-worked cases and plain loops over the definitions."""

from __future__ import annotations

import numpy as np
import pytest

from mlviz.costs import COSTS, cost_matrix, is_symmetric, paired_costs


def _plain_cost(truth: np.ndarray, pred: np.ndarray, cost: str) -> float:
    """Each cost written label by label from paper 002 (§2, §4), as an independent reference."""
    K = len(truth)
    both = sum(1 for k in range(K) if truth[k] and pred[k])
    either = sum(1 for k in range(K) if truth[k] or pred[k])
    if cost == "f1":
        denominator = sum(truth) + sum(pred)
        return 0.0 if denominator == 0 else 1.0 - 2.0 * both / denominator
    if cost == "accuracy":
        return 0.0 if either == 0 else 1.0 - both / either
    if cost == "hamming":
        return sum(1 for k in range(K) if truth[k] != pred[k]) / K
    loss = 0.0
    for k in range(K):
        for l in range(K):
            if truth[k] > truth[l]:
                if pred[k] < pred[l]:
                    loss += 1.0
                elif pred[k] == pred[l]:
                    loss += 0.5
    return loss


@pytest.mark.parametrize(
    ("truth", "pred", "expected"),
    [
        # |a∧b| = 1, |a| = 2, |b| = 1: F1 = 2/3
        ([1, 1, 0], [1, 0, 0], {"f1": 1 / 3, "accuracy": 1 / 2, "hamming": 1 / 3}),
        # disjoint non-empty sets: F1 = Jaccard = 0; differ on all 3 labels
        ([1, 0, 0], [0, 1, 1], {"f1": 1.0, "accuracy": 1.0, "hamming": 1.0}),
        # both empty: F1 = Jaccard = 1 by convention, so every cost is 0
        ([0, 0, 0], [0, 0, 0], {"f1": 0.0, "accuracy": 0.0, "hamming": 0.0}),
        # empty truth, non-empty prediction: F1 = 0/1 = 0, Jaccard = 0/1 = 0
        ([0, 0, 0], [0, 1, 0], {"f1": 1.0, "accuracy": 1.0, "hamming": 1 / 3}),
        # |a∧b| = 2, |a| = 3, |b| = 3, |a∨b| = 4: F1 = 4/6, Jaccard = 2/4; differ on 2 of 5
        ([1, 1, 1, 0, 0], [0, 1, 1, 1, 0], {"f1": 1 / 3, "accuracy": 1 / 2, "hamming": 2 / 5}),
    ],
)
def test_symmetric_costs_hand_worked(truth, pred, expected):
    for cost, value in expected.items():
        C = cost_matrix([truth], [pred], cost)
        assert C.shape == (1, 1)
        assert C[0, 0] == pytest.approx(value), cost


@pytest.mark.parametrize(
    ("truth", "pred", "expected"),
    [
        # relevant {0, 1}, irrelevant {2}: pair (0,2) predicted 1 > 0 (fine), pair (1,2) tied 0 = 0
        ([1, 1, 0], [1, 0, 0], 0.5),
        # relevant {0}, irrelevant {1, 2}: both pairs reversed (0 < 1)
        ([1, 0, 0], [0, 1, 1], 2.0),
        # relevant {0}, irrelevant {1, 2, 3}: all three pairs tied at 0 -> 3 x 1/2
        ([1, 0, 0, 0], [0, 0, 0, 0], 1.5),
        # empty truth: no (relevant, irrelevant) pair exists, whatever the prediction
        ([0, 0, 0, 0], [1, 0, 0, 0], 0.0),
        # full truth: no pair either
        ([1, 1, 1], [0, 0, 0], 0.0),
        # relevant {0, 3}, irrelevant {1, 2}; prediction [0, 1, 0, 1]:
        # (0,1): 0<1 reversed 1; (0,2): 0=0 tie 1/2; (3,1): 1=1 tie 1/2; (3,2): 1>0 fine -> 2
        ([1, 0, 0, 1], [0, 1, 0, 1], 2.0),
    ],
)
def test_rank_loss_hand_worked(truth, pred, expected):
    assert cost_matrix([truth], [pred], "rank_loss")[0, 0] == pytest.approx(expected)


def test_rank_loss_is_asymmetric_and_others_symmetric():
    truth, pred = [1, 0, 0, 0], [0, 0, 0, 0]
    assert cost_matrix([truth], [pred], "rank_loss")[0, 0] == pytest.approx(1.5)
    assert cost_matrix([pred], [truth], "rank_loss")[0, 0] == 0.0
    assert not is_symmetric("rank_loss")

    rng = np.random.default_rng(3)
    A = rng.integers(0, 2, size=(30, 7))
    for cost in ("f1", "accuracy", "hamming"):
        assert is_symmetric(cost)
        C = cost_matrix(A, A, cost)
        np.testing.assert_allclose(C, C.T, atol=1e-12)
    R = cost_matrix(A, A, "rank_loss")
    assert not np.allclose(R, R.T)


@pytest.mark.parametrize("cost", COSTS)
def test_matches_plain_loops_on_random_sets(cost):
    rng = np.random.default_rng(0)
    # density spread so that empty, full and middling vectors all occur
    A = (rng.random((25, 6)) < rng.random((25, 1))).astype(int)
    B = (rng.random((20, 6)) < rng.random((20, 1))).astype(int)
    A[0] = 0
    B[0] = 0
    A[1] = 1
    expected = np.array([[_plain_cost(a, b, cost) for b in B] for a in A])
    np.testing.assert_allclose(cost_matrix(A, B, cost), expected, atol=1e-12)


@pytest.mark.parametrize("cost", COSTS)
def test_zero_diagonal_and_nonnegative(cost):
    rng = np.random.default_rng(1)
    A = rng.integers(0, 2, size=(40, 9))
    A[0] = 0
    C = cost_matrix(A, A, cost)
    np.testing.assert_array_equal(np.diag(C), 0.0)
    assert (C >= 0).all()


def test_distinct_vectors_have_positive_cost_except_rank_loss_on_empty_or_full_truth():
    # every vertex of the 3-cube against every other
    cube = np.array([[(v >> k) & 1 for k in range(3)] for v in range(8)])
    off_diagonal = ~np.eye(8, dtype=bool)
    for cost in ("f1", "accuracy", "hamming"):
        assert (cost_matrix(cube, cube, cost)[off_diagonal] > 0).all()
    R = cost_matrix(cube, cube, "rank_loss")
    degenerate_truth = cube.sum(axis=1) % 3 == 0  # empty or full rows
    assert (R[degenerate_truth] == 0).all()
    assert (R[~degenerate_truth][off_diagonal[~degenerate_truth]] > 0).all()


@pytest.mark.parametrize("cost", COSTS)
def test_paired_costs_is_the_diagonal(cost):
    rng = np.random.default_rng(2)
    A = rng.integers(0, 2, size=(50, 8))
    B = rng.integers(0, 2, size=(50, 8))
    A[:3] = 0
    B[1:4] = 0
    np.testing.assert_allclose(paired_costs(A, B, cost), np.diag(cost_matrix(A, B, cost)))


def test_accepts_sparse_and_bool_and_returns_float64():
    import scipy.sparse as sp

    A = np.array([[True, False, True]])
    B = sp.csr_matrix(np.array([[1, 0, 0], [0, 1, 1]]))
    C = cost_matrix(A, B, "hamming")
    assert C.dtype == np.float64
    np.testing.assert_allclose(C, [[1 / 3, 2 / 3]])


def test_bad_input_messages():
    with pytest.raises(ValueError, match="unknown cost 'jaccard'"):
        cost_matrix([[1, 0]], [[1, 0]], "jaccard")
    with pytest.raises(ValueError, match="same number of labels"):
        cost_matrix([[1, 0]], [[1, 0, 1]], "f1")
    with pytest.raises(ValueError, match="only 0 and 1"):
        cost_matrix([[2, 0]], [[1, 0]], "f1")
    with pytest.raises(ValueError, match="unknown cost"):
        is_symmetric("F1")
    with pytest.raises(ValueError, match="same shape"):
        paired_costs([[1, 0]], [[1, 0], [0, 1]], "f1")


@pytest.mark.parametrize("cost", COSTS)
def test_sparse_intersection_path_equals_the_dense_product(cost):
    from mlviz.costs import _intersection_counts

    rng = np.random.default_rng(4)
    A = (rng.random((50, 120)) < 0.03).astype(float)  # many labels, few per row: sparse path
    B = (rng.random((40, 120)) < 0.03).astype(float)
    np.testing.assert_array_equal(_intersection_counts(A, B), A @ B.T)
    expected = np.array([[cost_matrix(a[None], b[None], cost)[0, 0] for b in B] for a in A])
    np.testing.assert_allclose(cost_matrix(A, B, cost), expected, rtol=0, atol=1e-15)
