"""Stage 1 of GroPLE: self-tuning spectral clustering of label columns."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from mlviz.label_clustering import LabelClustering, canonical_group_ids, check_groups


def _block_labels(n_samples=300, sizes=(3, 4, 3), flip=0.03, seed=0):
    """Labels in blocks: every label of a block copies its block's indicator, with noise."""
    rng = np.random.default_rng(seed)
    columns, truth = [], []
    for g, size in enumerate(sizes):
        state = rng.random(n_samples) < 0.3
        for _ in range(size):
            noisy = state ^ (rng.random(n_samples) < flip)
            columns.append(noisy)
            truth.append(g)
    return np.column_stack(columns).astype(np.uint8), np.array(truth)


def _plain_affinity(Y, k=7):
    """Independent loop version of the self-tuning heat kernel on {-1, 1} columns."""
    S = 2.0 * Y - 1.0
    L = S.shape[1]
    dist = np.array(
        [[np.sqrt(((S[:, i] - S[:, j]) ** 2).sum()) for j in range(L)] for i in range(L)]
    )
    sigma = np.array([sorted(dist[i])[min(k, L - 1)] for i in range(L)])
    A = np.zeros((L, L))
    for i in range(L):
        for j in range(L):
            if i != j:
                A[i, j] = np.exp(-(dist[i, j] ** 2) / (sigma[i] * sigma[j]))
    return A, sigma


def test_affinity_matches_hand_worked_case():
    # 3 labels over 4 samples; in {-1, 1} each disagreement adds 4 to the squared distance:
    # labels 0-1 differ in 1 row, 0-2 in 2 rows, 1-2 in 3 rows
    Y = np.array([[1, 1, 0], [0, 0, 0], [1, 0, 1], [0, 0, 1]], dtype=np.uint8)
    model = LabelClustering(n_groups=1).fit(Y)
    # fewer than 8 labels: sigma_i is the distance to the farthest other label
    d01, d02, d12 = 2.0, np.sqrt(8.0), np.sqrt(12.0)
    sigma = np.array([max(d01, d02), max(d01, d12), max(d02, d12)])
    np.testing.assert_allclose(model.sigma_, sigma)
    assert model.affinity_[0, 1] == pytest.approx(np.exp(-4.0 / (sigma[0] * sigma[1])))
    assert model.affinity_[0, 2] == pytest.approx(np.exp(-8.0 / (sigma[0] * sigma[2])))
    assert model.affinity_[1, 2] == pytest.approx(np.exp(-12.0 / (sigma[1] * sigma[2])))
    np.testing.assert_array_equal(np.diag(model.affinity_), 0.0)


def test_affinity_and_spectrum_match_plain_implementation():
    Y, _ = _block_labels(sizes=(4, 5, 3))
    model = LabelClustering(n_groups=3).fit(Y)
    A, sigma = _plain_affinity(Y)
    np.testing.assert_allclose(model.sigma_, sigma)
    np.testing.assert_allclose(model.affinity_, A, rtol=1e-12)
    D = A.sum(axis=1)
    N = A / np.sqrt(np.outer(D, D))
    np.testing.assert_allclose(model.eigenvalues_, np.sort(np.linalg.eigvalsh(N))[::-1], atol=1e-12)
    assert model.eigenvalues_[0] == pytest.approx(1.0)  # D^{-1/2} A D^{-1/2} has top eigenvalue 1


def test_recovers_planted_blocks_and_eigengap_suggests_their_number():
    Y, truth = _block_labels(sizes=(3, 4, 3, 5))
    model = LabelClustering(n_groups=4).fit(Y)
    assert adjusted_rand_score(truth, model.labels_) == pytest.approx(1.0)
    assert model.suggest_n_groups(max_groups=8) == 4
    gaps = -np.diff(model.eigenvalues_)
    assert model.suggest_n_groups(min_groups=1) == 1 + int(np.argmax(gaps))
    assert model.n_groups_ == 4
    assert model.labels_[0] == 0  # canonical numbering by first label


def test_recovers_groups_of_make_planted():
    from mlviz.synthetic import make_planted

    data, planted = make_planted(
        n_samples=600, n_groups=4, labels_per_group=4, n_tail=0, random_state=0
    )
    model = LabelClustering(n_groups=4).fit(data.Y)
    assert adjusted_rand_score(planted, model.labels_) > 0.95


def test_k_equal_one_and_k_larger_than_labels():
    Y, _ = _block_labels(sizes=(2, 2))
    one = LabelClustering(n_groups=1).fit(Y)
    np.testing.assert_array_equal(one.labels_, 0)
    assert one.eigenvalues_.shape == (4,)
    with pytest.warns(UserWarning, match="larger than the number of labels"):
        many = LabelClustering(n_groups=10).fit(Y)
    np.testing.assert_array_equal(many.labels_, np.arange(4))
    assert many.n_groups_ == 4


def test_duplicate_and_empty_columns_share_a_group():
    Y, _ = _block_labels(sizes=(3, 3))
    Y = np.column_stack([Y, Y[:, 0], np.zeros(len(Y)), np.zeros(len(Y))]).astype(np.uint8)
    model = LabelClustering(n_groups=3).fit(Y)
    assert model.labels_[0] == model.labels_[6]  # duplicate of label 0
    assert model.labels_[7] == model.labels_[8]  # both empty
    np.testing.assert_array_equal(model.empty_labels_, [7, 8])
    assert model.affinity_[7, 8] == pytest.approx(1.0)
    assert np.all(np.isfinite(model.normalized_affinity_))


def test_many_duplicates_do_not_divide_by_zero():
    # 9 identical columns: the 7th neighbour is at distance 0, so sigma falls back to the floor
    column = (np.arange(40) % 3 == 0).astype(np.uint8)
    Y = np.column_stack([column] * 9 + [1 - column, 1 - column]).astype(np.uint8)
    model = LabelClustering(n_groups=2).fit(Y)
    assert np.all(model.sigma_ > 0)
    assert adjusted_rand_score([0] * 9 + [1, 1], model.labels_) == pytest.approx(1.0)


def test_single_label():
    with pytest.warns(UserWarning):
        model = LabelClustering(n_groups=3).fit(np.array([[0], [1], [1]]))
    np.testing.assert_array_equal(model.labels_, [0])
    assert model.suggest_n_groups() == 1


def test_bad_parameters_raise_clear_errors():
    Y, _ = _block_labels()
    with pytest.raises(ValueError, match="n_groups must be a positive integer"):
        LabelClustering(n_groups=0).fit(Y)
    with pytest.raises(ValueError, match="only 0 and 1"):
        LabelClustering().fit(2 * Y - 1)
    model = LabelClustering(n_groups=2).fit(Y)
    with pytest.raises(ValueError, match="no K to choose"):
        model.suggest_n_groups(min_groups=5, max_groups=3)


def test_check_groups_forms_and_errors():
    np.testing.assert_array_equal(check_groups([5, 5, 2, 7], 4), [0, 0, 1, 2])
    np.testing.assert_array_equal(check_groups([[2, 3], [0], [1]], 4), [0, 1, 2, 2])
    np.testing.assert_array_equal(canonical_group_ids([3, 1, 3, 0]), [0, 1, 0, 2])
    with pytest.raises(ValueError, match="one group id per label"):
        check_groups([0, 1], 3)
    with pytest.raises(ValueError, match="partition"):
        check_groups([[0, 1], [1, 2]], 3)
    with pytest.raises(ValueError, match="outside"):
        check_groups([[0, 5], [1, 2]], 3)
    with pytest.raises(ValueError, match="empty group"):
        check_groups([[0, 1, 2], []], 3)
