"""mlviz.stats on hand-made label matrices and against MANIFEST.tsv for every MULAN file."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
from conftest import MULAN_DIR, mulan_path

from mlviz import stats
from mlviz.io import Dataset

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
