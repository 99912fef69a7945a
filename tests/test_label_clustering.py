"""Stage 1 of GroPLE: self-tuning spectral clustering of label columns."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from degenerate import degenerate_corpus
from sklearn.exceptions import NotFittedError
from sklearn.metrics import adjusted_rand_score

from mlviz._compat import InvalidParameterError
from mlviz.label_clustering import (
    LabelClustering,
    canonical_group_ids,
    check_groups,
    clustering_stability,
    group_diagnostics,
    label_affinity,
)


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
    model = LabelClustering(n_groups=1, random_state=0).fit(Y)
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
    model = LabelClustering(n_groups=3, random_state=0).fit(Y)
    A, sigma = _plain_affinity(Y)
    np.testing.assert_allclose(model.sigma_, sigma)
    np.testing.assert_allclose(model.affinity_, A, rtol=1e-12)
    D = A.sum(axis=1)
    N = A / np.sqrt(np.outer(D, D))
    np.testing.assert_allclose(model.eigenvalues_, np.sort(np.linalg.eigvalsh(N))[::-1], atol=1e-12)
    assert model.eigenvalues_[0] == pytest.approx(1.0)  # D^{-1/2} A D^{-1/2} has top eigenvalue 1


def test_recovers_planted_blocks_and_eigengap_suggests_their_number():
    Y, truth = _block_labels(sizes=(3, 4, 3, 5))
    model = LabelClustering(n_groups=4, random_state=0).fit(Y)
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
    model = LabelClustering(n_groups=4, random_state=0).fit(data.Y)
    assert adjusted_rand_score(planted, model.labels_) > 0.95


def test_k_equal_one_and_k_larger_than_labels():
    Y, _ = _block_labels(sizes=(2, 2))
    one = LabelClustering(n_groups=1, random_state=0).fit(Y)
    np.testing.assert_array_equal(one.labels_, 0)
    assert one.eigenvalues_.shape == (4,)
    with pytest.warns(UserWarning, match="larger than the number of labels"):
        many = LabelClustering(n_groups=10, random_state=0).fit(Y)
    np.testing.assert_array_equal(many.labels_, np.arange(4))
    assert many.n_groups_ == 4


def test_distinct_rows_are_counted_as_numpy_counts_them():
    from mlviz.label_clustering import _n_distinct_rows

    rng = np.random.default_rng(0)
    rows = np.round(rng.normal(size=(300, 7)), 2)
    rows[50:120] = rows[3]
    rows[200:210, :] = 0.0
    rows[205:210, 2] = -0.0  # equal to 0.0, other bytes
    rows[:, 6] = 0.0
    for block in (rows, rows[:, :1], np.asfortranarray(rows), rows[::-1]):
        assert _n_distinct_rows(block) == np.unique(block, axis=0).shape[0]
    assert _n_distinct_rows(np.zeros((5, 3))) == 1


def test_duplicate_and_empty_columns_share_a_group():
    Y, _ = _block_labels(sizes=(3, 3))
    Y = np.column_stack([Y, Y[:, 0], np.zeros(len(Y)), np.zeros(len(Y))]).astype(np.uint8)
    model = LabelClustering(n_groups=3, random_state=0).fit(Y)
    assert model.labels_[0] == model.labels_[6]  # duplicate of label 0
    assert model.labels_[7] == model.labels_[8]  # both empty
    np.testing.assert_array_equal(model.empty_labels_, [7, 8])
    assert model.affinity_[7, 8] == pytest.approx(1.0)
    assert np.all(np.isfinite(model.normalized_affinity_))


def test_many_duplicates_do_not_divide_by_zero():
    # 9 identical columns: the 7th neighbour is at distance 0, so sigma falls back to the floor
    column = (np.arange(40) % 3 == 0).astype(np.uint8)
    Y = np.column_stack([column] * 9 + [1 - column, 1 - column]).astype(np.uint8)
    model = LabelClustering(n_groups=2, random_state=0).fit(Y)
    assert np.all(model.sigma_ > 0)
    assert adjusted_rand_score([0] * 9 + [1, 1], model.labels_) == pytest.approx(1.0)


def test_single_label():
    with pytest.warns(UserWarning):
        model = LabelClustering(n_groups=3, random_state=0).fit(np.array([[0], [1], [1]]))
    np.testing.assert_array_equal(model.labels_, [0])
    assert model.suggest_n_groups() == 1


def test_bad_parameters_raise_clear_errors():
    Y, _ = _block_labels()
    with pytest.raises(ValueError, match="'n_groups' parameter of LabelClustering"):
        LabelClustering(n_groups=0, random_state=0).fit(Y)
    with pytest.raises(ValueError, match="'affinity' parameter of LabelClustering"):
        LabelClustering(affinity="jaccard", random_state=0).fit(Y)
    with pytest.raises(ValueError, match="only 0 and 1"):
        LabelClustering(random_state=0).fit(2 * Y - 1)
    model = LabelClustering(n_groups=2, random_state=0).fit(Y)
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


# ----------------------------------------------------------------------- affinities
# 3 labels over 4 instances: n = (2, 1, 2); labels 0-1 share row 0, 0-2 share row 2, 1-2 none
HAND_Y = np.array([[1, 1, 0], [0, 0, 0], [1, 0, 1], [0, 0, 1]], dtype=np.uint8)


def test_cooccurrence_affinity_is_jaccard_by_hand():
    model = LabelClustering(n_groups=1, affinity="cooccurrence", random_state=0).fit(HAND_Y)
    # J_01 = 1 / (2 + 1 - 1), J_02 = 1 / (2 + 2 - 1), J_12 = 0 / (1 + 2 - 0)
    expected = np.array([[0, 1 / 2, 1 / 3], [1 / 2, 0, 0], [1 / 3, 0, 0]])
    np.testing.assert_allclose(model.affinity_, expected)
    assert model.sigma_ is None
    np.testing.assert_array_equal(model.label_counts_, [2, 1, 2])


def test_correlation_affinity_by_hand():
    model = LabelClustering(n_groups=1, affinity="correlation", random_state=0).fit(HAND_Y)
    # p = (1/2, 1/4, 1/2); cov_01 = 1/4 - 1/8 = 1/8, sd_0 sd_1 = 1/2 * sqrt(3)/4, so
    # r_01 = 1/sqrt(3); cov_02 = 1/4 - 1/4 = 0; cov_12 = 0 - 1/8 < 0, clipped to 0
    r01 = 1 / np.sqrt(3)
    expected = np.array([[0, r01, 0], [r01, 0, 0], [0, 0, 0]])
    np.testing.assert_allclose(model.affinity_, expected, atol=1e-15)
    # label 2 is positively correlated with nothing: isolated, zero row in the normalisation
    np.testing.assert_array_equal(model.isolated_labels_, [2])
    np.testing.assert_array_equal(model.normalized_affinity_[2], 0.0)
    # D = (r01, r01, 0): D^-1/2 A D^-1/2 has 1 between labels 0 and 1
    assert model.normalized_affinity_[0, 1] == pytest.approx(1.0)


def test_precomputed_affinity_is_used_as_given():
    A = np.array(
        [[5.0, 0.9, 0.1, 0.0], [0.9, 5.0, 0.0, 0.1], [0.1, 0.0, 5.0, 0.8], [0.0, 0.1, 0.8, 5.0]]
    )
    model = LabelClustering(n_groups=2, affinity="precomputed", random_state=0).fit(A)
    expected = A.copy()
    np.fill_diagonal(expected, 0.0)  # the diagonal is ignored
    np.testing.assert_array_equal(model.affinity_, expected)
    degree = expected.sum(axis=1)
    np.testing.assert_allclose(
        model.normalized_affinity_, expected / np.sqrt(np.outer(degree, degree))
    )
    np.testing.assert_array_equal(model.labels_, [0, 0, 1, 1])
    assert model.empty_labels_.size == 0 and model.label_counts_ is None


@pytest.mark.parametrize(
    "A, match",
    [
        (np.ones((3, 4)), "square"),
        (np.array([[0.0, -1.0], [-1.0, 0.0]]), "non-negative"),
        (np.array([[0.0, 1.0], [0.5, 0.0]]), "symmetric"),
        (np.array([[0.0, np.nan], [np.nan, 0.0]]), "NaN"),
    ],
)
def test_precomputed_affinity_rejects_bad_matrices(A, match):
    with pytest.raises(ValueError, match=match):
        LabelClustering(n_groups=1, affinity="precomputed", random_state=0).fit(A)


@pytest.mark.parametrize("affinity", ["heat", "cooccurrence", "correlation"])
def test_every_affinity_matches_its_definition_on_random_labels(affinity):
    from scipy.spatial.distance import pdist, squareform

    rng = np.random.default_rng(3)
    Y = (rng.random((200, 12)) < np.linspace(0.02, 0.5, 12)).astype(np.uint8)
    model = LabelClustering(n_groups=3, affinity=affinity, random_state=0).fit(Y)
    if affinity == "heat":
        expected, _ = _plain_affinity(Y)
    elif affinity == "cooccurrence":
        expected = 1.0 - squareform(pdist(Y.T.astype(bool), metric="jaccard"))
    else:
        expected = np.clip(np.corrcoef(Y.T), 0.0, None)
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_allclose(model.affinity_, expected, atol=1e-12)


@pytest.mark.parametrize("affinity", ["heat", "cooccurrence", "correlation"])
def test_empty_and_isolated_labels_do_not_crash(affinity):
    Y, _ = _block_labels(sizes=(3, 3))
    lonely = np.zeros(len(Y), dtype=np.uint8)
    first_empty_row = np.flatnonzero(Y.sum(axis=1) == 0)[0]
    lonely[first_empty_row] = 1  # occurs once, with no other label
    Y = np.column_stack([Y, np.zeros(len(Y)), lonely]).astype(np.uint8)
    model = LabelClustering(n_groups=3, affinity=affinity, random_state=0).fit(Y)
    np.testing.assert_array_equal(model.empty_labels_, [6])
    assert np.all(np.isfinite(model.normalized_affinity_))
    assert np.all(np.isfinite(model.eigenvalues_))
    assert model.labels_.shape == (8,)
    if affinity == "cooccurrence":
        np.testing.assert_array_equal(model.isolated_labels_, [6, 7])


def test_planted_sample_recovered_with_cooccurrence_at_its_planted_k():
    from mlviz import datasets

    ds = datasets.load_source("sample:planted")
    truth = datasets.known_groups(ds)
    n_planted = int(truth.max()) + 1
    model = LabelClustering(n_groups=n_planted, affinity="cooccurrence", random_state=0).fit(ds.Y)
    assert adjusted_rand_score(truth, model.labels_) >= 0.9
    assert model.suggest_n_groups() == n_planted


def test_large_label_sets_compute_only_the_leading_eigenvalues():
    rng = np.random.default_rng(0)
    n_labels = 400  # above FULL_SPECTRUM_MAX_LABELS
    Y = (rng.random((600, n_labels)) < np.geomspace(0.3, 0.005, n_labels)).astype(np.uint8)
    model = LabelClustering(n_groups=5, affinity="cooccurrence", random_state=0).fit(Y)
    assert model.eigenvalues_.shape == (31,)  # max(5, 30) + 1
    full = np.sort(np.linalg.eigvalsh(model.normalized_affinity_))[::-1]
    np.testing.assert_allclose(model.eigenvalues_, full[:31], atol=1e-10)
    assert model.suggest_n_groups() <= 30
    wide = LabelClustering(n_groups=40, affinity="cooccurrence", random_state=0).fit(Y)
    assert wide.eigenvalues_.shape == (41,)


def _fitted_attributes(model) -> dict:
    return {name: value for name, value in vars(model).items() if name.endswith("_")}


@pytest.mark.parametrize(
    ("n_labels", "affinity", "spectrum_k", "ks"),
    [
        (40, "heat", 30, [1, 2, 7, 30, 40]),  # every eigenpair kept: any K
        (400, "heat", 30, [2, 9, 30]),  # 31 leading pairs at every K <= 30
        (400, "cooccurrence", 12, [2, 25, 30]),
    ],
)
def test_with_n_groups_is_the_fit_at_that_k(n_labels, affinity, spectrum_k, ks):
    rng = np.random.default_rng(1)
    Y = (rng.random((500, n_labels)) < np.geomspace(0.3, 0.01, n_labels)).astype(np.uint8)
    spectrum = LabelClustering(n_groups=spectrum_k, affinity=affinity, random_state=0).fit(Y)
    before = {name: np.copy(value) for name, value in _fitted_attributes(spectrum).items()}
    for k in ks:
        derived = spectrum.with_n_groups(k)
        fresh = LabelClustering(n_groups=k, affinity=affinity, random_state=0).fit(Y)
        assert derived.get_params() == fresh.get_params()
        assert _fitted_attributes(derived).keys() == _fitted_attributes(fresh).keys()
        for name, value in _fitted_attributes(fresh).items():
            np.testing.assert_array_equal(getattr(derived, name), value, err_msg=name)
    for name, value in before.items():  # the spectrum fit is unchanged
        np.testing.assert_array_equal(getattr(spectrum, name), value, err_msg=name)


def test_with_n_groups_refuses_a_k_whose_fit_keeps_other_eigenpairs():
    rng = np.random.default_rng(1)
    Y = (rng.random((300, 320)) < 0.05).astype(np.uint8)
    spectrum = LabelClustering(n_groups=5, random_state=0).fit(Y)  # 31 pairs of 320 labels
    with pytest.raises(ValueError, match="keeps 41 eigenpairs of the 320 labels, this one 31"):
        spectrum.with_n_groups(40)
    with pytest.raises(ValueError, match="outside 1..320"):
        spectrum.with_n_groups(0)
    with pytest.raises(NotFittedError):
        LabelClustering().with_n_groups(3)


def test_many_identical_empty_labels_on_few_rows_fit():
    # 1,500 labels on 14 rows (1% ones): ~1,200 identical all-zero columns give a huge block
    # of equal eigenvalues, on which LAPACK's syevr raised "Internal Error" (OpenBLAS here)
    Y = degenerate_corpus()["many_labels"].Y[:14, :1_500]
    model = LabelClustering(n_groups=10, random_state=0).fit(Y)
    full = np.sort(np.linalg.eigvalsh(model.normalized_affinity_))[::-1]
    np.testing.assert_allclose(model.eigenvalues_, full[:31], atol=1e-8)
    assert model.labels_.shape == (1_500,)
    empty = Y.sum(axis=0) == 0
    assert np.unique(model.labels_[empty]).size == 1  # identical columns share a group


def test_delicious_shaped_label_matrix_fits():
    # 16k instances x 1,000 labels with a long tail (Zipf-like frequencies), as delicious
    rng = np.random.default_rng(0)
    n_samples, n_labels = 16_000, 1_000
    frequency = np.clip(0.2 / np.arange(1, n_labels + 1) ** 0.9, 3 / n_samples, None)
    rows, cols = np.nonzero(rng.random((n_samples, n_labels)) < frequency)
    Y = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_samples, n_labels))
    model = LabelClustering(10, random_state=0).fit(Y)
    assert model.labels_.shape == (n_labels,)
    assert model.n_groups_ == 10
    assert model.eigenvalues_.shape == (31,)


def test_dataframe_input_records_label_names():
    import pandas as pd

    Y, _ = _block_labels(sizes=(2, 2))
    frame = pd.DataFrame(Y, columns=["a", "b", "c", "d"])
    model = LabelClustering(n_groups=2, random_state=0).fit(frame)
    assert model.n_features_in_ == 4
    assert list(model.feature_names_in_) == ["a", "b", "c", "d"]
    np.testing.assert_array_equal(model.fit_predict(frame), model.labels_)


# ------------------------------------------------------------- group diagnostics
def test_group_diagnostics_flags_a_never_cooccurring_group():
    # labels a, b co-occur (rows 0, 1); c and d never appear together; e alone
    Y = np.array(
        [
            [1, 1, 0, 0, 0],
            [1, 1, 0, 0, 1],
            [1, 0, 1, 0, 0],
            [0, 0, 0, 1, 0],
            [0, 0, 0, 0, 0],
        ],
        dtype=np.uint8,
    )
    table = group_diagnostics(Y, [0, 0, 1, 1, 2], label_names=list("abcde"), tail_threshold=0.3)
    assert table["group"].tolist() == [0, 1, 2]
    assert table["n_labels"].tolist() == [2, 2, 1]
    assert table["labels"].tolist() == [["a", "b"], ["c", "d"], ["e"]]
    assert table["support"].tolist() == [3, 2, 1]  # rows with a or b: 0, 1, 2
    assert table["cooccurrence_rate"].iloc[0] == 1.0
    assert table["cooccurrence_rate"].iloc[1] == 0.0  # c and d never together
    assert np.isnan(table["cooccurrence_rate"].iloc[2])
    # J(a, b) = 2 / (3 + 2 - 2); J(c, d) = 0
    assert table["mean_jaccard"].tolist()[:2] == pytest.approx([2 / 3, 0.0])
    assert np.isnan(table["mean_jaccard"].iloc[2])
    # frequencies a .6, b .4, c .2, d .2, e .2; tail below 0.3
    assert table["tail_share"].tolist() == [0.0, 1.0, 1.0]
    indices = group_diagnostics(Y, [0, 0, 1, 1, 2])
    assert indices["labels"].tolist() == [[0, 1], [2, 3], [4]]
    # the same table from float, boolean, sparse and column-selected (non-contiguous) labels,
    # which are counted through one 0/1 byte copy; a value other than 0/1 is still refused
    wide = np.zeros((5, 7), dtype=np.uint8)
    wide[:, [5, 0, 3, 1, 6]] = Y
    for same in (Y.astype(float), Y.astype(bool), sp.csr_matrix(Y), wide[:, [5, 0, 3, 1, 6]]):
        other = group_diagnostics(
            same, [0, 0, 1, 1, 2], label_names=list("abcde"), tail_threshold=0.3
        )
        pd.testing.assert_frame_equal(other, table)
    with pytest.raises(ValueError, match="only 0 and 1"):
        group_diagnostics(Y * 2.0, [0, 0, 1, 1, 2])


def test_group_diagnostics_rejects_bad_input():
    with pytest.raises(ValueError, match="one group id per label"):
        group_diagnostics(HAND_Y, [0, 1])
    with pytest.raises(ValueError, match="label_names"):
        group_diagnostics(HAND_Y, [0, 0, 1], label_names=["a"])
    with pytest.raises(ValueError, match="tail_threshold"):
        group_diagnostics(HAND_Y, [0, 0, 1], tail_threshold=2.0)


def test_group_diagnostics_reads_given_pair_counts_as_its_own():
    from mlviz.stats import cooccurrence
    from mlviz.synthetic import make_long_tailed

    Y = make_long_tailed(n_samples=300, n_features=5, n_labels=40, random_state=0).Y
    counts = cooccurrence(Y)
    for groups in (np.arange(40) % 3, np.arange(40) % 7, np.zeros(40, dtype=int)):
        own = group_diagnostics(Y, groups, tail_threshold=0.05)
        given = group_diagnostics(Y, groups, tail_threshold=0.05, cooccurrence=counts)
        pd.testing.assert_frame_equal(given, own)
    # counts of other labels are refused, not read as these (a wrong table would follow)
    with pytest.raises(ValueError, match="diagonal"):
        group_diagnostics(Y, np.arange(40) % 3, cooccurrence=cooccurrence(Y[::2]))
    with pytest.raises(ValueError, match=r"\(40, 40\)"):
        group_diagnostics(Y, np.arange(40) % 3, cooccurrence=counts[:39, :39])


# ----------------------------------------------------------------------- stability
def _separated_blocks(n_per_block=40, sizes=(3, 2, 4)):
    """Blocks of identical label columns on disjoint instances: nothing to be unsure about."""
    columns = []
    for b, size in enumerate(sizes):
        state = np.zeros(n_per_block * len(sizes), dtype=np.uint8)
        state[b * n_per_block : (b + 1) * n_per_block] = 1
        columns += [state] * size
    return np.column_stack(columns)


@pytest.mark.parametrize("affinity", ["heat", "cooccurrence", "correlation"])
def test_stability_is_one_on_perfectly_separated_groups(affinity):
    Y = _separated_blocks()
    result = clustering_stability(Y, 3, affinity=affinity, n_resamples=5, random_state=0)
    assert result["n_groups"].tolist() == [3]
    assert result["stability"].iloc[0] == pytest.approx(1.0)
    assert result["stability_std"].iloc[0] == pytest.approx(0.0)
    assert result["cooccurrence_rate"].iloc[0] == 1.0
    assert result["n_never_cooccurring"].iloc[0] == 0


def test_stability_sweep_shape_and_noise_lowers_it():
    Y, _ = _block_labels(n_samples=200, sizes=(3, 4, 3), flip=0.25)
    result = clustering_stability(
        Y, range(2, 8), affinity="cooccurrence", n_resamples=4, random_state=0
    )
    assert result["n_groups"].tolist() == list(range(2, 8))
    assert result["stability"].between(-1, 1).all()
    assert result["stability"].min() < 1.0  # heavy noise: some K is not reproducible
    assert (result["n_groups_found"] <= result["n_groups"]).all()


def test_stability_rejects_bad_input():
    Y = _separated_blocks()
    with pytest.raises(ValueError, match="precomputed"):
        clustering_stability(Y, 3, affinity="precomputed", random_state=0)
    with pytest.raises(ValueError, match="1..9"):
        clustering_stability(Y, [2, 10], random_state=0)
    with pytest.raises(ValueError, match="n_resamples"):
        clustering_stability(Y, 2, n_resamples=0, random_state=0)


_IN_1_INF = "must be an int in the range [1, inf)"


@pytest.mark.parametrize(
    "function, arguments, message",
    [
        (clustering_stability, {"affinity": "precomputed"}, "'affinity' parameter of {} must be"),
        (clustering_stability, {"n_resamples": 0}, f"'n_resamples' parameter of {{}} {_IN_1_INF}"),
        (clustering_stability, {"n_init": 1.5}, f"'n_init' parameter of {{}} {_IN_1_INF}. Got 1.5"),
        (clustering_stability, {"n_neighbors": 0}, f"'n_neighbors' parameter of {{}} {_IN_1_INF}"),
        (clustering_stability, {"n_groups": "3"}, "'n_groups' parameter of {} must be an int in"),
        (clustering_stability, {"random_state": "x"}, "'random_state' parameter of {} must be"),
        (label_affinity, {"affinity": "cosine"}, "'affinity' parameter of {} must be a str among"),
        (label_affinity, {"n_neighbors": -2}, f"'n_neighbors' parameter of {{}} {_IN_1_INF}"),
        (group_diagnostics, {"tail_threshold": 1.5}, "'tail_threshold' parameter of {} must be"),
        (group_diagnostics, {"tail_threshold": 1.5}, "a float in the range [0.0, 1.0]. Got 1.5"),
        (check_groups, {"n_labels": 0}, f"'n_labels' parameter of {{}} {_IN_1_INF}. Got 0"),
    ],
)
def test_bad_parameter_is_named_with_its_valid_range(function, arguments, message):
    Y = _separated_blocks()
    groups = np.arange(Y.shape[1]) % 2
    call = {
        clustering_stability: lambda **kw: clustering_stability(Y, kw.pop("n_groups", 2), **kw),
        label_affinity: lambda **kw: label_affinity(Y, **kw),
        group_diagnostics: lambda **kw: group_diagnostics(Y, groups, **kw),
        check_groups: lambda **kw: check_groups(groups, **kw),
    }[function]
    with pytest.raises(InvalidParameterError) as raised:
        call(**arguments)
    assert isinstance(raised.value, ValueError)  # callers catching ValueError still do
    assert message.format(function.__name__) in str(raised.value)


# ----------------------------------------------------------- scikit-learn contract
NOT_LABELS = (
    "the generic checks fit on real-valued X; LabelClustering's input is a 0/1 label matrix "
    "and anything else is rejected with a ValueError (the wrapped run below covers them)"
)
RAW_EXPECTED_FAILURES = [
    "check_fit_score_takes_y",
    "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self",
    "check_readonly_memmap_input",
    "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit",
    "check_estimators_dtypes",
    "check_dtype_object",
    "check_pipeline_consistency",
    "check_estimators_nan_inf",
    "check_estimator_sparse_tag",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_fit2d_1sample",
    "check_fit2d_1feature",
    "check_dict_unchanged",
    "check_fit_idempotent",
    "check_fit_check_is_fitted",
    "check_n_features_in",
    "check_fit2d_predict1d",
]


def _binarize(X):
    """A generic check's real-valued X -> 0/1 by its median; invalid input passes unchanged."""
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
        if np.issubdtype(X.dtype, np.floating) and np.all(np.isfinite(X.data)):
            X.data = (X.data > np.median(X.data)).astype(X.dtype)
        return X
    A = X.to_numpy() if hasattr(X, "columns") else np.asarray(X)
    if A.dtype == object:
        try:
            A = A.astype(np.float64)
        except (TypeError, ValueError):
            return X
    if A.ndim == 2 and A.size and A.dtype.kind in "fiu" and np.all(np.isfinite(A)):
        return (A > np.median(A)).astype(np.uint8)
    return X


class BinarizedLabelClustering(LabelClustering):
    """LabelClustering whose fit first maps the generic checks' X onto 0/1 labels."""

    def fit(self, Y, y=None):
        return super().fit(_binarize(Y), y)


def _check_results(estimator, expected):
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return check_estimator(
            estimator, expected_failed_checks=dict.fromkeys(expected, NOT_LABELS), on_fail=None
        )


def test_scikit_learn_estimator_checks():
    """Every applicable check passes; the raw run only fails where X is not 0/1.

    Checks that do not apply and do not run: the clusterer, classifier, regressor and
    transformer checks (the tags declare no estimator type and there is no transform or
    predict: labels_ describes the columns, not the rows) and check_array_api_input (no
    array-API support).
    """
    wrapped = _check_results(BinarizedLabelClustering(n_groups=2), [])
    failed = [
        (r["check_name"], str(r["exception"])[:200]) for r in wrapped if r["status"] == "failed"
    ]
    assert not failed, failed
    assert sum(r["status"] == "passed" for r in wrapped) >= 35
    raw = _check_results(LabelClustering(n_groups=2, random_state=0), RAW_EXPECTED_FAILURES)
    assert not [r["check_name"] for r in raw if r["status"] == "failed"]
    assert sum(r["status"] == "passed" for r in raw) >= 15


def test_tags_say_it_is_not_a_clusterer():
    from sklearn.base import is_clusterer

    tags = LabelClustering(random_state=0).__sklearn_tags__()
    assert tags.estimator_type is None and not is_clusterer(LabelClustering(random_state=0))
    assert tags.target_tags.required is False
    assert tags.input_tags.sparse is True
    assert (
        LabelClustering(affinity="precomputed", random_state=0)
        .__sklearn_tags__()
        .input_tags.pairwise
    )


def test_stability_sweep_describes_label_clusterings_own_partition():
    from mlviz import datasets
    from mlviz.label_clustering import _label_counts, within_group_cooccurrence

    Y = datasets.load_source("sample:planted").Y
    sweep = clustering_stability(Y, [3, 6], affinity="heat", n_resamples=2, random_state=0)
    cooc = _label_counts(Y)[2]
    for k, row in zip([3, 6], sweep.itertuples(), strict=True):
        labels = LabelClustering(k, affinity="heat", random_state=0).fit(Y).labels_
        share, never = within_group_cooccurrence(cooc, labels)
        assert row.cooccurrence_rate == pytest.approx(share)
        assert row.n_never_cooccurring == never
        assert row.n_groups_found == labels.max() + 1


def test_heat_kernel_groups_the_planted_samples_rare_labels_by_rarity():
    # what sample_data/README.md says about the paper's affinity on the planted sample
    from mlviz import datasets

    ds = datasets.load_source("sample:planted")
    truth = datasets.known_groups(ds)
    rare = np.array(["_rare" in name for name in ds.label_names])
    for k in (4, 10):
        labels = LabelClustering(k, random_state=0).fit(ds.Y).labels_
        assert adjusted_rand_score(truth, labels) < 0.5
        rare_groups = set(labels[rare])
        assert len(rare_groups) == 1  # all six rare labels in one group ...
        assert not np.any(labels[~rare] == rare_groups.pop())  # ... of their own


# ------------------------------------------------------------- one recommendation for K
def _planted_spectrum(affinity: str = "heat"):
    """The embedded planted sample (four planted groups, each with rare members)."""
    from mlviz import datasets

    ds = datasets.load_source("sample:planted")
    planted = datasets.known_groups(ds)
    return ds.Y, planted, LabelClustering(n_groups=10, affinity=affinity, random_state=0).fit(ds.Y)


def test_recommend_n_groups_finds_the_planted_groups_and_lists_every_candidate():
    from mlviz.label_clustering import recommend_n_groups

    Y, planted, spectrum = _planted_spectrum("cooccurrence")
    advice = recommend_n_groups(spectrum, Y, max_groups=10)
    assert advice.has_structure and advice.k == 4
    ids = spectrum.partition_at(advice.k)
    assert adjusted_rand_score(planted, ids) > 0.9
    table = advice.candidates
    assert set(table["n_groups"]) >= {
        spectrum.suggest_n_groups(max_groups=10),
        spectrum.default_n_groups(10),
    }
    winner = table[table["n_groups"] == advice.k].iloc[0]
    assert winner["qualified"] and winner["coherent_share"] >= 0.5
    assert (table["why"] != "").all(), "every candidate says why it won or lost"


def test_recommend_n_groups_says_none_when_the_sweep_finds_no_k_beyond_shuffled_labels():
    """Frequent independent labels co-occur by chance (their groups look 'coherent'), so the
    verdicts alone can pass; the stability against shuffled labels must then reject them."""
    import pandas as pd

    from mlviz.label_clustering import recommend_n_groups

    Y, _, spectrum = _planted_spectrum()
    candidates = sorted({spectrum.suggest_n_groups(max_groups=10), spectrum.default_n_groups(10)})
    null_sweep = pd.DataFrame(
        {
            "n_groups": candidates,
            "adjusted_stability": [0.0] * len(candidates),
            "largest_group_share": [0.3] * len(candidates),
            "singleton_share": [0.0] * len(candidates),
        }
    )
    advice = recommend_n_groups(spectrum, Y, max_groups=10, sweep=null_sweep)
    assert advice.k is None and not advice.has_structure
    assert advice.candidates["why"].str.contains("no more reproducible").all()


def test_recommend_n_groups_disqualifies_a_bucket_and_a_k_without_coherent_groups():
    from mlviz.label_clustering import recommend_n_groups

    Y = np.kron(np.eye(12, dtype=np.uint8), np.ones((10, 1), dtype=np.uint8))
    Y[::3] = 0  # labels on disjoint rows (some rows without labels): no pair ever co-occurs
    spectrum = LabelClustering(n_groups=10, random_state=0).fit(Y)
    advice = recommend_n_groups(spectrum, Y, max_groups=10)
    assert advice.k is None
    assert advice.candidates["why"].str.contains("coherent groups").all()
    with pytest.raises(ValueError, match="label columns"):
        recommend_n_groups(spectrum, Y[:, :5])


@pytest.mark.parametrize("dtype", [np.uint8, np.int64, bool])
def test_integer_labels_are_clustered_as_their_float_copy_and_checked_alike(dtype):
    # integer 0/1 labels are no longer copied to float64 first (a tenth of the GroPLE page's
    # first run at delicious's shape): the same counts, affinity and groups
    rng = np.random.default_rng(4)
    Y = (rng.random((120, 30)) < 0.15).astype(np.uint8)
    ours = LabelClustering(n_groups=4, random_state=0).fit(Y.astype(dtype))
    reference = LabelClustering(n_groups=4, random_state=0).fit(Y.astype(np.float64))
    np.testing.assert_array_equal(ours.affinity_, reference.affinity_)
    np.testing.assert_array_equal(ours.labels_, reference.labels_)
    if dtype is not bool:
        bad = Y.astype(dtype)
        bad[3, 5] = 2
        with pytest.raises(ValueError, match="found 2 at row 3, label column 5"):
            LabelClustering(n_groups=4).fit(bad)


def _heat_by_the_formulas(counts, cooc, n_neighbors):
    """Paper 001 §3's self-tuned heat kernel written as the formulas read (fresh arrays)."""
    disagreements = np.maximum(counts[:, None] + counts[None, :] - 2.0 * cooc, 0.0)
    np.fill_diagonal(disagreements, 0.0)
    squared = 4.0 * disagreements  # ||s_i - s_j||^2 on {-1, 1} columns
    distances = np.sqrt(squared)
    rank = min(n_neighbors, counts.size - 1)
    sigma = np.sort(distances, axis=1)[:, rank]  # the rank-th nearest, rank 0 being itself
    positive = distances[distances > 0]
    sigma = np.where(sigma > 0, sigma, positive.min() if positive.size else 1.0)
    affinity = np.exp(-squared / np.outer(sigma, sigma))
    np.fill_diagonal(affinity, 0.0)
    return affinity, sigma


@pytest.mark.parametrize(
    ("n_labels", "n_rows", "density"),
    [(1845, 20, 0.01), (300, 2000, 0.03), (45, 900, 0.05), (3, 5, 0.5), (2, 1, 0.0)],
)
def test_the_heat_kernel_computed_in_place_equals_its_formulas_bit_for_bit(
    n_labels, n_rows, density
):
    """The in-place heat kernel (two buffers, the sweep's memory) against the formulas, with
    and without bootstrap weights; (2, 1, 0.0): no positive distance at all (the floor 1)."""
    from mlviz.label_clustering import _heat_affinity, _label_counts

    rng = np.random.default_rng(n_labels)
    Y = (rng.random((n_rows, n_labels)) < density).astype(np.uint8)
    weights = np.bincount(rng.integers(0, n_rows, n_rows), minlength=n_rows).astype(float)
    for w in (None, weights):
        _, counts, cooc = _label_counts(Y, w)
        affinity, sigma = _heat_affinity(counts, cooc, 7)
        expected_affinity, expected_sigma = _heat_by_the_formulas(counts, cooc, 7)
        np.testing.assert_array_equal(sigma, expected_sigma)
        np.testing.assert_array_equal(affinity, expected_affinity)
