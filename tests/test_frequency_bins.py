"""Contribution by training-frequency bin (issue 32 item 3): the split against a direct loop of
pyxclib's rule, the contributions against direct counts, and their sums against mlviz's and
napkinXC's P@k, R@k and PSP@k."""

from __future__ import annotations

import numpy as np
import pytest

from mlviz import metrics as M
from mlviz.metrics import _frequency_bins, frequency_bin_contributions


def _pyxclib_split(freq: np.ndarray, num_splits: int) -> list[list[int]]:
    """pyxclib's ``_split_based_on_frequency`` written out as its loop (stable sort)."""
    thresh = np.sum(freq) // num_splits
    index = np.argsort(-freq, kind="stable")
    bins: list[list[int]] = [[]]
    running = 0
    splits_left = num_splits - 1
    for idx in index:
        running += freq[idx]
        if running > thresh and splits_left > 0:
            splits_left -= 1
            running = freq[idx]
            bins.append([])
        bins[-1].append(int(idx))
    return bins


def _data(seed: int, n_labels: int = 40, n_test: int = 150):
    rng = np.random.default_rng(seed)
    rates = np.geomspace(0.005, 0.5, n_labels)
    Y_train = (rng.random((400, n_labels)) < rates).astype(int)
    Y_true = (rng.random((n_test, n_labels)) < rates).astype(int)
    scores = rng.normal(size=Y_true.shape) + 1.5 * Y_true  # continuous: no ties
    return Y_train, Y_true, scores


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_bins", [1, 2, 3, 5, 10, 50])
def test_split_is_pyxclibs_rule(seed, n_bins):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 30, size=rng.integers(1, 60)) ** rng.integers(1, 3)
    if seed == 1:
        counts[3] = counts.sum() * 2  # one label above the threshold on its own: bin 1 empty
    if seed == 2:
        counts[:] = 7  # all tied: column order
    got = [b.tolist() for b in _frequency_bins(counts, n_bins)]
    assert got == _pyxclib_split(counts, n_bins)


def test_first_bin_empty_when_the_top_label_passes_the_threshold_alone():
    Y_train = np.zeros((10, 3), dtype=int)
    Y_train[:, 0] = 1
    Y_train[0, 1:] = 1  # counts 10, 1, 1: threshold 6
    Y_true = np.eye(3, dtype=int)
    table = frequency_bin_contributions(Y_true, np.eye(3), Y_train=Y_train, k=1, n_bins=3)
    assert table["labels"].tolist() == [0, 1, 2]
    assert table["contribution"].iloc[0] == 0 and np.isnan(table["mean_train_count"].iloc[0])


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 3, 5])
def test_precision_contributions_are_direct_top_k_counts(seed, k):
    Y_train, Y_true, scores = _data(seed)
    table = frequency_bin_contributions(Y_true, scores, Y_train=Y_train, k=k, n_bins=5)
    top = np.argsort(-scores, axis=1)[:, :k]
    hits = np.zeros(Y_true.shape[1])
    for i, row in enumerate(top):
        for label in row:
            hits[label] += Y_true[i, label]
    bins = _pyxclib_split(Y_train.sum(axis=0), 5)
    expected = [hits[b].sum() / (k * len(Y_true)) for b in bins]
    np.testing.assert_allclose(table["contribution"], expected, atol=1e-12)
    assert table["labels"].tolist() == [len(b) for b in bins]
    means = [Y_train.sum(axis=0)[b].mean() for b in bins]
    np.testing.assert_allclose(table["mean_train_count"], means)
    assert table["bin"].tolist() == list(range(1, len(bins) + 1))
    assert table["mean_train_count"].is_monotonic_decreasing  # most frequent bin first


@pytest.mark.parametrize("seed", [0, 3])
def test_bins_sum_to_the_whole_metric(seed):
    Y_train, Y_true, scores = _data(seed)
    for k in (1, 3, 5):
        kwargs = {"Y_train": Y_train, "k": k, "n_bins": 4}
        total = {
            metric: frequency_bin_contributions(Y_true, scores, metric=metric, **kwargs)[
                "contribution"
            ].sum()
            for metric in ("P", "R", "PSP")
        }
        assert total["P"] == pytest.approx(M.precision_at_k(Y_true, scores, k=k))
        assert total["R"] == pytest.approx(M.recall_at_k(Y_true, scores, k=k))
        assert total["PSP"] == pytest.approx(
            M.psprecision_at_k(Y_true, scores, k=k, Y_train=Y_train)
        )


def test_ties_count_in_expectation_and_still_sum_to_precision():
    Y_train, Y_true, scores = _data(4)
    tied = np.round(scores)
    table = frequency_bin_contributions(Y_true, tied, Y_train=Y_train, k=3, n_bins=3)
    assert table["contribution"].sum() == pytest.approx(M.precision_at_k(Y_true, tied, k=3))


def test_external_top_k_scores_with_minus_infinity():
    Y_train, Y_true, scores = _data(5)
    k = 5
    kept = np.full(scores.shape, -np.inf)
    top = np.argsort(-scores, axis=1)[:, :k]
    np.put_along_axis(kept, top, np.take_along_axis(scores, top, axis=1), axis=1)
    for metric in ("P", "R", "PSP"):
        for at in (1, 3, 5):
            full = frequency_bin_contributions(Y_true, scores, Y_train=Y_train, k=at, metric=metric)
            cut = frequency_bin_contributions(Y_true, kept, Y_train=Y_train, k=at, metric=metric)
            np.testing.assert_allclose(cut["contribution"], full["contribution"], atol=1e-12)


def test_bad_input_is_refused_with_the_reason():
    Y_train, Y_true, scores = _data(0)
    bad = scores.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="Replace NaN with -inf"):
        frequency_bin_contributions(Y_true, bad, Y_train=Y_train)
    with pytest.raises(ValueError, match="metric must be one of"):
        frequency_bin_contributions(Y_true, scores, Y_train=Y_train, metric="nDCG")
    with pytest.raises(ValueError, match="n_bins"):
        frequency_bin_contributions(Y_true, scores, Y_train=Y_train, n_bins=0)
    with pytest.raises(ValueError, match="label columns"):
        frequency_bin_contributions(Y_true, scores, Y_train=Y_train[:, :3])


napkinxc_metrics = pytest.importorskip(
    "napkinxc.metrics", reason="napkinXC (the test extra) is not installed"
)


@pytest.mark.parametrize("seed", [0, 1])
def test_sums_equal_napkinxc(seed):
    Y_train, Y_true, scores = _data(seed)
    q = napkinxc_metrics.Jain_et_al_inverse_propensity(Y_train)
    p = napkinxc_metrics.precision_at_k(Y_true, scores, k=5)
    r = napkinxc_metrics.recall_at_k(Y_true, scores, k=5)
    psp = napkinxc_metrics.psprecision_at_k(Y_true, scores, q, k=5)
    for k in range(1, 6):
        kwargs = {"Y_train": Y_train, "k": k, "n_bins": 10}
        for metric, expected in (("P", p), ("R", r), ("PSP", psp)):
            table = frequency_bin_contributions(Y_true, scores, metric=metric, **kwargs)
            assert table["contribution"].sum() == pytest.approx(expected[k - 1], rel=1e-10)
        assert M.recall_at_k(Y_true, scores, k=k) == pytest.approx(r[k - 1], rel=1e-10)
