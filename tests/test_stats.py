"""mlviz.stats on hand-made label matrices and against MANIFEST.tsv for every MULAN file."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
from conftest import MULAN_DIR, mulan_path

from mlviz import stats
from mlviz.io import Dataset
from mlviz.mlknn import MLkNN

# 5 instances, 3 labels:
#   {0,1}, {0,1}, {2}, {}, {0,1,2}
# cardinality = (2+2+1+0+3)/5 = 8/5; density = 8/15; distinct = 4 of 2^3 = 8 vertices
# frequencies: label 0: 3, label 1: 3, label 2: 2
# co-occurrence counts: (0,1) 3, (0,2) 1, (1,2) 1
Y_SMALL = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1], [0, 0, 0], [1, 1, 1]], dtype=np.uint8)


def test_cardinality_density_distinct_by_hand():
    assert stats.label_cardinality(Y_SMALL) == pytest.approx(8 / 5)
    assert stats.label_density(Y_SMALL) == pytest.approx(8 / 15)
    assert stats.distinct_labelsets(Y_SMALL) == 4
    assert stats.hypercube_sparsity_log10(Y_SMALL) == pytest.approx(math.log10(4 / 8))


def test_hypercube_sparsity_does_not_overflow_for_many_labels():
    L = 3000  # 2 ** 3000 is not representable as a float
    Y = np.zeros((3, L), dtype=np.uint8)
    Y[1, 5] = 1
    Y[2, 2999] = 1
    value = stats.hypercube_sparsity_log10(Y)
    assert math.isfinite(value)
    assert value == pytest.approx(math.log10(3) - L * math.log10(2))
    # packing rows to bytes must not merge vectors that differ only in the last (padded) byte
    assert stats.distinct_labelsets(Y) == 3


def test_distinct_matches_plain_set_of_tuples():
    rng = np.random.default_rng(0)
    Y = (rng.random((300, 11)) < 0.2).astype(np.uint8)
    assert stats.distinct_labelsets(Y) == len({tuple(row) for row in Y.tolist()})


def test_label_frequencies_and_tail_labels():
    np.testing.assert_array_equal(stats.label_frequencies(Y_SMALL), [3, 3, 2])
    np.testing.assert_allclose(stats.label_frequencies(Y_SMALL, relative=True), [0.6, 0.6, 0.4])
    # strictly below the threshold, rarest first
    np.testing.assert_array_equal(stats.tail_labels(Y_SMALL, 0.5), [2])
    np.testing.assert_array_equal(stats.tail_labels(Y_SMALL, 0.4), [])
    Y = np.zeros((10, 4), dtype=np.uint8)
    Y[:1, 0] = 1  # 0.1
    Y[:3, 1] = 1  # 0.3
    Y[:, 2] = 1  # 1.0
    # label 3 never occurs: 0.0
    np.testing.assert_array_equal(stats.tail_labels(Y, 0.5), [3, 0, 1])
    with pytest.raises(ValueError, match="fraction of the instances"):
        stats.tail_labels(Y, 5)


def test_is_tail_is_strict_and_agrees_with_tail_labels():
    # a label exactly at the threshold is a head label; NaN frequencies are never tail
    np.testing.assert_array_equal(
        stats.is_tail([0.0, 0.049, 0.05, 0.5, np.nan], 0.05), [True, True, False, False, False]
    )
    Y = np.zeros((20, 4), dtype=np.uint8)
    Y[:1, 0] = 1  # 0.05: at the threshold
    Y[:3, 1] = 1  # 0.15
    Y[:, 2] = 1  # 1.0
    # label 3 never occurs: 0.0
    frequencies = stats.label_frequencies(Y, relative=True)
    for threshold in (0.05, 0.1, 0.5, 1.0):
        np.testing.assert_array_equal(
            np.flatnonzero(stats.is_tail(frequencies, threshold)),
            np.sort(stats.tail_labels(Y, threshold)),
        )
    np.testing.assert_array_equal(stats.tail_labels(Y, 0.05), [3])


def test_cooccurrence_counts_and_normalisations():
    C = stats.cooccurrence(Y_SMALL)
    np.testing.assert_array_equal(C, [[3, 3, 1], [3, 3, 1], [1, 1, 2]])
    J = stats.cooccurrence(Y_SMALL, normalize="jaccard")
    # (0,2): both on 1 instance, either on 3 + 2 - 1 = 4
    np.testing.assert_allclose(J, [[1, 1, 1 / 4], [1, 1, 1 / 4], [1 / 4, 1 / 4, 1]])
    P = stats.cooccurrence(Y_SMALL, normalize="conditional")
    # P(label 2 | label 0) = 1/3; P(label 0 | label 2) = 1/2
    np.testing.assert_allclose(P, [[1, 1, 1 / 3], [1, 1, 1 / 3], [1 / 2, 1 / 2, 1]])
    with pytest.raises(ValueError, match="normalize must be"):
        stats.cooccurrence(Y_SMALL, normalize="cosine")


def test_cooccurrence_of_a_label_that_never_occurs_is_zero():
    Y = np.column_stack([Y_SMALL, np.zeros(5, dtype=np.uint8)])
    for normalize in ("jaccard", "conditional"):
        C = stats.cooccurrence(Y, normalize=normalize)
        assert np.isfinite(C).all()
        np.testing.assert_array_equal(C[3], 0)
        np.testing.assert_array_equal(C[:, 3], 0)


def test_labelset_counts_table():
    table = stats.labelset_counts(Y_SMALL, label_names=["a", "b", "c"])
    assert list(table.columns) == ["labelset", "labels", "count", "size"]
    assert table["labelset"].tolist() == [(0, 1), (), (2,), (0, 1, 2)]
    assert table["labels"].tolist() == ["a, b", "∅", "c", "a, b, c"]
    assert table["count"].tolist() == [2, 1, 1, 1]
    assert table["size"].tolist() == [2, 0, 1, 3]
    assert table["count"].sum() == len(Y_SMALL)
    with pytest.raises(ValueError, match="2 names but Y has 3"):
        stats.labelset_counts(Y_SMALL, label_names=["a", "b"])


def test_summary_and_dataset_input():
    ds = Dataset(
        name="small",
        X=np.zeros((5, 2)),
        Y=Y_SMALL,
        feature_names=("f0", "f1"),
        label_names=("a", "b", "c"),
    )
    s = stats.summary(ds, tail_threshold=0.5)
    assert s["name"] == "small"
    assert (s["instances"], s["features"], s["labels"], s["sparse"]) == (5, 2, 3, False)
    assert s["cardinality"] == pytest.approx(8 / 5)
    assert s["density"] == pytest.approx(8 / 15)
    assert s["distinct"] == 4
    assert s["log10_sparsity"] == pytest.approx(math.log10(0.5))
    assert s["max_labels"] == 3
    assert s["empty_instances"] == 1
    assert s["unique_labelsets"] == 3
    assert (s["min_label_count"], s["max_label_count"]) == (2, 3)
    assert s["tail_labels"] == 1
    assert stats.label_cardinality(ds) == s["cardinality"]
    assert stats.labelset_counts(ds)["labels"].iloc[0] == "a, b"


def test_bad_label_matrix_is_rejected():
    with pytest.raises(ValueError, match="only 0 and 1"):
        stats.label_cardinality([[0, 2]])
    with pytest.raises(ValueError, match="no rows"):
        stats.label_density(np.zeros((0, 3)))


# --------------------------------------------------------------------------- real MULAN data


def _manifest_rows() -> list[dict[str, str]]:
    path = MULAN_DIR / "MANIFEST.tsv"
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [row for row in rows if row["file"].endswith(".arff")]


_ROWS = _manifest_rows()


@pytest.mark.parametrize(
    "row",
    _ROWS or [pytest.param(None, marks=pytest.mark.skip(reason=f"no MANIFEST.tsv in {MULAN_DIR}"))],
    ids=[row["file"] for row in _ROWS] or ["no-manifest"],
)
def test_statistics_match_manifest(row):
    from mlviz import load_arff

    dataset = load_arff(mulan_path(row["file"]))
    s = stats.summary(dataset)
    assert s["instances"] == int(row["n_instances"])
    assert s["labels"] == int(row["n_labels"])
    assert s["sparse"] == (row["sparse"] == "yes")
    # MANIFEST gives the published 3-decimal values, not always rounded to nearest (emotions'
    # 1.86847 is listed as 1.869), so allow one unit in the last place
    assert s["cardinality"] == pytest.approx(float(row["cardinality"]), abs=1e-3)
    assert s["distinct"] == int(row["distinct_labelsets"])
    assert s["density"] == pytest.approx(s["cardinality"] / s["labels"])
    assert s["log10_sparsity"] == pytest.approx(
        math.log10(s["distinct"] / 2.0 ** s["labels"]), rel=1e-12
    )


@pytest.mark.parametrize("n_labels", [1, 5, 8, 13, 70])
def test_unique_rows_equals_numpy_unique_on_rows(n_labels):
    rng = np.random.default_rng(n_labels)
    # few distinct rows, repeated, so counts and inverse are non-trivial
    base = (rng.random((25, n_labels)) < 0.3).astype(np.uint8)
    Y = base[rng.integers(0, 25, size=400)]
    rows, counts, inverse = stats.unique_rows(Y, return_inverse=True)
    expected, expected_inverse, expected_counts = np.unique(
        Y, axis=0, return_inverse=True, return_counts=True
    )
    np.testing.assert_array_equal(rows, expected)
    np.testing.assert_array_equal(counts, expected_counts)
    np.testing.assert_array_equal(inverse, expected_inverse.ravel())
    np.testing.assert_array_equal(rows[inverse], Y)
    two = stats.unique_rows(Y)
    assert len(two) == 2 and np.array_equal(two[1], expected_counts)


def test_cooccurrence_counts_equal_the_dense_product_on_random_labels():
    Y = (np.random.default_rng(8).random((300, 40)) < 0.2).astype(np.uint8)
    counts = stats.cooccurrence(Y)
    assert counts.dtype == np.int64
    np.testing.assert_array_equal(counts, Y.astype(np.int64).T @ Y.astype(np.int64))


# ---------------------------------- the Lesson's "what to notice" numbers, worked by hand
def test_unseen_labelset_share_by_hand():
    train = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0]])
    test = np.array([[1, 0, 0], [1, 1, 1], [0, 0, 0], [0, 1, 1]])
    assert stats.unseen_labelset_share(train, test) == 0.5
    assert stats.unseen_labelset_share(train, train) == 0.0
    assert np.isnan(stats.unseen_labelset_share(train, np.empty((0, 3))))


def test_unseen_labelset_share_wide_labels_and_shape_check():
    # more than 8 labels: rows that differ only after the first packed byte
    a = np.zeros((1, 12), dtype=int)
    b = a.copy()
    b[0, 11] = 1
    assert stats.unseen_labelset_share(a, b) == 1.0
    with pytest.raises(ValueError, match="same number of columns"):
        stats.unseen_labelset_share(a, np.zeros((1, 3)))


def test_rows_per_group_by_hand():
    support = np.array(
        [
            [1, 1, 0, 0],  # rows 0, 1; row 1 shared with group 1
            [0, 1, 1, 0],  # rows 1, 2; row 2 private
            [0, 0, 0, 1],  # row 3, private: this group shares nothing
        ],
        dtype=bool,
    )
    table = stats.rows_per_group(support)
    assert table["rows_used"].tolist() == [2, 2, 1]
    assert table["private_rows"].tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="n_groups, d"):
        stats.rows_per_group(np.ones(3, dtype=bool))


def test_never_predicted_by_hand():
    pred = np.array([[1, 0, 0, 0], [1, 0, 1, 0]])
    true = np.array([[0, 1, 0, 0], [1, 0, 0, 0]])
    never, missed = stats.never_predicted(pred, true)
    assert never.tolist() == [1, 3]
    assert missed.tolist() == [1]  # label 3 never occurs, so never predicting it costs nothing
    with pytest.raises(ValueError, match="same shape"):
        stats.never_predicted(pred, true[:, :3])


def test_votes_needed_by_hand():
    prior = np.array([0.5, 0.1, 0.5])
    # label 0: equal likelihoods -> ties win at j = 0; label 1: wins only at j = 2;
    # label 2: never wins
    cond_pos = np.array([[0.2, 0.1, 0.1], [0.3, 0.2, 0.1], [0.5, 0.7, 0.1]])
    cond_neg = np.array([[0.2, 0.8, 0.5], [0.3, 0.15, 0.3], [0.5, 0.05, 0.2]])
    assert stats.votes_needed(prior, cond_pos, cond_neg).tolist() == [0, 2, -1]
    with pytest.raises(ValueError, match="k \\+ 1, L"):
        stats.votes_needed(prior, cond_pos[:, :2], cond_neg)


def test_votes_needed_agrees_with_mlknn_predictions():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((120, 4))
    Y = (rng.random((120, 5)) < [0.5, 0.3, 0.1, 0.04, 0.6]).astype(int)
    model = MLkNN(k=6).fit(X, Y)
    needed = stats.votes_needed(model.prior_, model.cond_pos_, model.cond_neg_)
    counts, _, _ = model._query_counts(X)
    predicted = model.predict(X).astype(bool)
    for label in range(Y.shape[1]):
        if needed[label] < 0:
            assert not predicted[:, label].any()
        else:
            # fewer votes than needed never predicts the label
            assert not predicted[counts[:, label] < needed[label], label].any()
            at_threshold = counts[:, label] == needed[label]
            assert predicted[at_threshold, label].all()


def test_tail_head_f1_by_hand():
    frequencies = np.array([0.5, 0.01, 0.02, 0.3])
    f1 = {"A": np.array([0.8, 0.0, np.nan, 0.6]), "B": np.array([1.0, 0.5, 0.5, 0.0])}
    table = stats.tail_head_f1(frequencies, f1, threshold=0.05)
    assert table.loc["A", "tail_f1"] == 0.0  # NaN skipped
    assert table.loc["A", "head_f1"] == pytest.approx(0.7)
    assert table.loc["B", "tail_f1"] == 0.5
    assert table.loc["B", "head_f1"] == 0.5
    assert table["n_tail"].tolist() == [2, 2]
    no_tail = stats.tail_head_f1(frequencies, f1, threshold=0.001)
    assert no_tail["tail_f1"].isna().all()
    with pytest.raises(ValueError, match="3 F1 values for 4 labels"):
        stats.tail_head_f1(frequencies, {"C": np.ones(3)}, 0.05)


def test_labels_to_show_keeps_flagged_then_highest():
    priority = np.array([0.9, 0.1, 0.5, 0.8, 0.2])
    keep = np.array([False, True, False, False, False])
    assert stats.labels_to_show(priority, keep, 3).tolist() == [0, 1, 3]
    assert stats.labels_to_show(priority, keep, 5).tolist() == [0, 1, 2, 3, 4]
    # more flagged labels than room: the flagged ones with the highest priority
    assert stats.labels_to_show(priority, np.ones(5, bool), 2).tolist() == [0, 3]
    with pytest.raises(ValueError, match="at least 1"):
        stats.labels_to_show(priority, keep, 0)


# ------------------------------------------------------------ the adaptive tail rule (issue 25)
def test_adaptive_tail_rule_by_hand_keeps_tie_groups_whole():
    # 100 occurrences; cumulative shares by tie group: 1+1 = 2 %, +3 = 5 % (fits exactly),
    # +5 = 10 % (passes 5 %): the tail is the three rarest labels, the cut-off the fourth's 5
    counts = np.array([40, 1, 5, 3, 1, 50])
    assert stats.tail_cutoff(counts, share=0.05) == 5.0
    np.testing.assert_array_equal(
        stats.is_tail(counts / 100), [False, True, False, True, True, False]
    )
    # a tie group that would pass the share stays out whole: two labels of 3 = 6 % > 5 %
    np.testing.assert_array_equal(stats.is_tail([1, 3, 3, 93]), [True, False, False, False])
    # a larger share takes more labels; 10 % takes the label of 5 too
    assert stats.tail_cutoff(counts, share=0.1) == 40.0
    # proportions only: counts and relative frequencies give the same set
    np.testing.assert_array_equal(stats.is_tail(counts), stats.is_tail(counts / 7.0))


def test_adaptive_tail_rule_edges():
    assert stats.tail_cutoff([0, 0, 0]) == math.inf  # nothing occurs: every label is tail
    assert stats.is_tail([0.0, 0.0]).all()
    assert stats.tail_cutoff([10, 10, 10]) == 10.0  # one tie group over 5 %: no tail
    assert not stats.is_tail([0.3, 0.3, 0.3]).any()
    assert stats.is_tail([0.0, 0.2, 0.8]).tolist() == [True, False, False]  # 0 holds nothing
    for bad in (0, 1, 1.5, "5%"):
        with pytest.raises(ValueError, match="share"):
            stats.tail_cutoff([1, 2], share=bad)


def test_tail_labels_default_is_the_adaptive_rule_and_threshold_the_fixed_one():
    rng = np.random.default_rng(3)
    Y = (rng.random((400, 30)) < np.geomspace(0.002, 0.6, 30)).astype(np.uint8)
    frequencies = stats.label_frequencies(Y, relative=True)
    adaptive = stats.tail_labels(Y)
    np.testing.assert_array_equal(np.sort(adaptive), np.flatnonzero(stats.is_tail(frequencies)))
    counts = stats.label_frequencies(Y)
    # the definition itself: the tail holds at most 5 % of the ones of Y, one more label > 5 %
    assert counts[adaptive].sum() <= 0.05 * counts.sum()
    head = np.setdiff1d(np.arange(30), adaptive)
    assert counts[adaptive].sum() + counts[head].min() > 0.05 * counts.sum()
    np.testing.assert_array_equal(
        np.sort(stats.tail_labels(Y, 0.05)), np.flatnonzero(frequencies < 0.05)
    )
    ds = Dataset(
        X=np.zeros((400, 1)),
        Y=Y,
        feature_names=["x"],
        label_names=[str(j) for j in range(30)],
        name="t",
    )
    numbers = stats.summary(ds)
    assert numbers["tail_labels"] == len(adaptive)
    assert numbers["tail_rule"].startswith("adaptive")
    assert stats.is_tail(frequencies, numbers["tail_threshold"]).sum() == len(adaptive)


def _every_data_set():
    from mlviz import datasets

    return [source.key for source in datasets.list_sources()]


@pytest.mark.parametrize(
    "key",
    ["sample:planted", "sample:cube"]
    + [
        f"mulan:{name}"
        for name in (
            "birds",
            "emotions",
            "enron",
            "genbase",
            "medical",
            "scene",
            "tmc2007-500",
            "yeast",
        )
    ],
)
def test_adaptive_tail_is_a_minority_on_every_shared_and_sample_set(key):
    from mlviz import datasets

    if key not in _every_data_set():
        pytest.skip(f"{key} not found (real MULAN data expected at {MULAN_DIR})")
    Y = datasets.load_source(key).Y
    L = Y.shape[1]
    n_tail = len(stats.tail_labels(Y))
    fixed = len(stats.tail_labels(Y, 0.05))
    print(f"{key}: adaptive tail {n_tail} of {L} labels (fixed 5 % of instances: {fixed})")
    assert n_tail < L / 2, f"{key}: {n_tail} of {L} labels are tail under the default rule"
