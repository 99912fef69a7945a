"""Group verdicts, bootstrap co-assignment and the null-adjusted choice of K (issue 25)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from mlviz import datasets
from mlviz.label_clustering import (
    VERDICTS,
    LabelClustering,
    _adjusted_rand,
    _permuted_columns,
    clustering_stability,
    group_diagnostics,
    group_verdict,
    label_coassignment,
    stable_n_groups,
    verdict_counts,
)

NAN = float("nan")


# ------------------------------------------------------------------------------ verdicts
@pytest.mark.parametrize(
    ("numbers", "expected"),
    [
        # (n_labels, pair share, mean Jaccard, tail share, stability)
        ((1, NAN, NAN, 1.0, NAN), "singleton"),
        ((3, 0.0, 0.0, 0.0, 1.0), "never co-occur"),  # even when perfectly stable
        ((6, 0.07, 0.004, 1.0, 0.9), "tail bucket"),  # the planted sample's rare labels
        ((6, 0.9, 0.01, 0.5, 0.9), "tail bucket"),  # half tail, faint: still a bucket
        ((6, 0.2, 0.3, 0.0, 0.9), "weak"),  # few pairs co-occur
        ((6, 0.9, 0.01, 0.0, 0.9), "weak"),  # pairs co-occur, but faintly
        ((6, 0.9, 0.3, 0.0, 0.4), "weak"),  # not kept together across resamples
        ((6, 0.9, 0.3, 0.9, 0.9), "coherent"),  # tail labels that do occur together
        ((6, 0.9, 0.3, 0.0, NAN), "coherent"),  # stability unknown: co-occurrence rules only
        ((2, 0.5, 0.05, 0.0, 0.6), "coherent"),  # every threshold is inclusive
    ],
)
def test_each_verdict_rule(numbers, expected):
    n, share, jaccard, tail, stability = numbers
    verdict, reason = group_verdict(n, share, jaccard, tail, stability=stability)
    assert verdict == expected
    assert verdict in VERDICTS and reason


def test_verdict_thresholds_are_parameters():
    assert group_verdict(4, 0.9, 0.1, 0.0, min_jaccard=0.2)[0] == "weak"
    assert group_verdict(4, 0.4, 0.1, 0.0, min_pair_share=0.3)[0] == "coherent"
    assert group_verdict(4, 0.9, 0.01, 0.6, tail_bucket_share=0.7)[0] == "weak"
    assert group_verdict(4, 0.9, 0.1, 0.0, stability=0.7, min_stability=0.8)[0] == "weak"


def _verdict_labels():
    """Five groups, each built to meet one rule (hand-checkable counts, 40 rows)."""
    n = 40
    Y = np.zeros((n, 12), dtype=np.uint8)
    Y[0:20, 0:3] = 1  # group 0: three labels always together -> coherent
    Y[20, 3], Y[21, 4], Y[22, 5] = 1, 1, 1  # group 1: tail labels never together
    Y[23, 6] = Y[23, 7] = 1  # group 2: tail labels, one pair of three together once
    Y[24, 8] = 1
    Y[25:39, 9] = 1  # group 3: frequent labels, one pair of three ever together
    Y[25:39:2, 10] = 1
    Y[30:33, 11] = 0
    Y[0:10, 11] = 1
    Y[39, :] = 0
    return Y, np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])


def test_group_diagnostics_gives_every_group_one_verdict_by_the_rules():
    Y, groups = _verdict_labels()
    Y = np.column_stack([Y, np.r_[np.ones(5), np.zeros(35)].astype(np.uint8)])
    groups = np.r_[groups, 4]
    table = group_diagnostics(Y, groups, tail_threshold=0.1)
    assert table["verdict"].tolist() == [
        "coherent",
        "never co-occur",
        "tail bucket",
        "weak",
        "singleton",
    ]
    # group 3: labels 9, 10 co-occur (7 rows), 11 with neither -> 1 of 3 pairs
    assert table.loc[3, "cooccurrence_rate"] == pytest.approx(1 / 3)
    assert "33% of pairs" in table.loc[3, "reason"]
    assert verdict_counts(table) == {
        "singleton": 1,
        "never co-occur": 1,
        "tail bucket": 1,
        "weak": 1,
        "coherent": 1,
    }


def test_group_stability_is_the_mean_coassignment_and_can_make_a_group_weak():
    Y, groups = _verdict_labels()
    together = np.linspace(0.0, 1.0, 12)
    table = group_diagnostics(Y, groups, tail_threshold=0.1, coassignment=together)
    assert table["stability"].tolist() == pytest.approx(
        [together[groups == g].mean() for g in range(4)]
    )
    # group 0 co-occurs perfectly but is kept together in only 9 % of resamples
    assert table.loc[0, "verdict"] == "weak"
    assert "resamples" in table.loc[0, "reason"]
    with pytest.raises(ValueError, match="coassignment has 3 values"):
        group_diagnostics(Y, groups, coassignment=[1, 1, 1])


# ------------------------------------------------------------------ resampling pieces
def test_adjusted_rand_matches_scikit_learn():
    rng = np.random.default_rng(0)
    cases = [(np.zeros(5, int), np.zeros(5, int)), (np.arange(5), np.arange(5))]
    cases += [(np.zeros(5, int), np.arange(5)), (np.arange(5), np.zeros(5, int))]
    for _ in range(50):
        n = int(rng.integers(2, 40))
        cases.append((rng.integers(0, rng.integers(1, 8), n), rng.integers(0, 5, n)))
    for a, b in cases:
        assert _adjusted_rand(a, b) == pytest.approx(adjusted_rand_score(a, b), abs=1e-12)


def test_null_permutes_each_column_and_keeps_its_count():
    Y, _ = _verdict_labels()
    permuted = _permuted_columns(Y, np.random.RandomState(0)).toarray()
    np.testing.assert_array_equal(permuted.sum(axis=0), Y.sum(axis=0))
    assert set(np.unique(permuted)) <= {0, 1}
    assert not np.array_equal(permuted, Y)


def _separated_blocks(n_per_block=40, sizes=(3, 2, 4)):
    columns = []
    for b, size in enumerate(sizes):
        state = np.zeros(n_per_block * len(sizes), dtype=np.uint8)
        state[b * n_per_block : (b + 1) * n_per_block] = 1
        columns += [state] * size
    return np.column_stack(columns), np.repeat(np.arange(len(sizes)), sizes)


def test_coassignment_is_one_for_clear_groups_and_low_for_a_wrong_partition():
    Y, truth = _separated_blocks()
    together = label_coassignment(Y, truth, affinity="cooccurrence", random_state=0)
    np.testing.assert_allclose(together, 1.0)
    # the same labels, grouped across the blocks: a label's mates are elsewhere in every
    # resample (by hand: label 0's mates 3, 5 sit in other blocks -> 0)
    wrong = np.array([0, 1, 2, 0, 1, 0, 1, 2, 2])
    crossed = label_coassignment(Y, wrong, affinity="cooccurrence", random_state=0)
    assert crossed[0] == 0.0
    assert np.nanmax(crossed) <= 0.5
    single = label_coassignment(Y, np.arange(9) % 8, affinity="cooccurrence", random_state=0)
    assert np.isnan(single[1:8]).all() and not np.isnan(single[0])


def test_sweep_reports_progress_and_the_null_columns():
    Y, _ = _separated_blocks()
    calls = []
    sweep = clustering_stability(
        Y,
        [2, 3],
        affinity="cooccurrence",
        n_resamples=3,
        n_null=2,
        random_state=0,
        progress=lambda done, total, message: calls.append((done, total)),
    )
    assert calls == [(i, 12) for i in range(1, 13)]
    row = sweep.set_index("n_groups").loc[3]
    assert row["stability"] == pytest.approx(1.0)
    # shuffled columns keep no blocks: far less reproducible
    assert row["null_stability"] < 0.5
    assert row["adjusted_stability"] == pytest.approx(row["stability"] - row["null_stability"])
    assert row["largest_group_share"] == pytest.approx(4 / 9)
    assert row["singleton_share"] == 0.0
    without = clustering_stability(Y, [3], n_null=0, n_resamples=2, random_state=0)
    assert without["null_stability"].isna().all()
    with pytest.raises(ValueError, match="n_null >= 1"):
        stable_n_groups(without)


@pytest.mark.parametrize("affinity", ["cooccurrence", "correlation"])
def test_planted_k_wins_the_null_adjusted_stability(affinity):
    ds = datasets.load_source("sample:planted")
    truth = datasets.known_groups(ds)
    L = ds.n_labels
    sweep = clustering_stability(
        ds.Y, range(2, L), affinity=affinity, n_resamples=10, random_state=0
    )
    k = stable_n_groups(sweep)
    assert k == truth.max() + 1
    labels = LabelClustering(k, affinity=affinity, random_state=0).fit(ds.Y).labels_
    assert adjusted_rand_score(truth, labels) > 0.9


def test_near_singleton_partitions_do_not_win():
    # heat on the planted sample: joining the single most similar pair (K = L - 1) is
    # reproducible in every resample, and the shuffled null does not find it again, so the
    # adjusted stability is high there; the eligibility rule keeps it out
    ds = datasets.load_source("sample:planted")
    L = ds.n_labels
    sweep = clustering_stability(ds.Y, range(2, L), affinity="heat", n_resamples=10, random_state=0)
    by_k = sweep.set_index("n_groups")
    assert by_k.loc[L - 1, "adjusted_stability"] > 0.5
    k = stable_n_groups(sweep)
    assert by_k.loc[k, "singleton_share"] <= 0.5
    assert k <= L // 2


def test_near_singletons_do_not_win_on_yeast():
    from conftest import mulan_path

    from mlviz.io import load_arff

    ds = load_arff(mulan_path("yeast.arff"))
    L = ds.n_labels
    for affinity in ("heat", "cooccurrence"):
        sweep = clustering_stability(
            ds.Y, range(2, L), affinity=affinity, n_resamples=10, random_state=0
        )
        by_k = sweep.set_index("n_groups")
        assert by_k.loc[L - 1, "stability"] > 0.95  # raw stability: K = 13 looks best ...
        assert by_k.loc[L - 1, "adjusted_stability"] < 0.1  # ... and the null says why
        k = stable_n_groups(sweep)
        assert k < L - 1 and by_k.loc[k, "singleton_share"] <= 0.5


# ---------------------------------------------------------------------------- default K
@pytest.mark.parametrize("shape", ["bibtex", "delicious"])
def test_default_k_does_not_put_most_labels_into_one_group_on_long_tailed_data(shape):
    from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed

    ds = make_long_tailed(**LONG_TAILED_SHAPES[shape], random_state=0)
    Y = ds.Y[:, np.asarray(ds.Y.sum(axis=0)).ravel() > 0]
    L = Y.shape[1]
    model = LabelClustering(30, affinity="heat", random_state=0).fit(Y)
    eigengap = model.suggest_n_groups(max_groups=30)
    at_eigengap = LabelClustering(eigengap, random_state=0).fit(Y).labels_
    assert np.bincount(at_eigengap).max() > L / 2  # the plain eigengap: one big bucket
    k = model.default_n_groups(30)
    labels = LabelClustering(k, random_state=0).fit(Y).labels_
    assert np.bincount(labels).max() <= L / 2
    # the rule: the largest eigengap among the K that qualify (no bucket, not mostly alone)
    gaps = model.eigenvalues_[:-1] - model.eigenvalues_[1:]
    for other in range(2, 31):
        if gaps[other - 1] > gaps[k - 1]:
            sizes = np.bincount(LabelClustering(other, random_state=0).fit(Y).labels_)
            assert sizes.max() > L / 2 or sizes[sizes == 1].sum() > L / 2


def test_default_k_is_the_eigengap_when_it_is_balanced():
    ds = datasets.load_source("sample:planted")
    model = LabelClustering(21, affinity="cooccurrence", random_state=0).fit(ds.Y)
    assert model.default_n_groups(21) == model.suggest_n_groups(max_groups=21) == 4


def test_resamples_use_the_iterative_solver_at_many_labels_with_the_same_subspace():
    from mlviz.label_clustering import ITERATIVE_MIN_LABELS, _Bootstrap
    from mlviz.synthetic import make_long_tailed

    ds = make_long_tailed(
        n_samples=3000, n_features=20, n_labels=ITERATIVE_MIN_LABELS + 20, random_state=0
    )
    Y = ds.Y[:, np.asarray(ds.Y.sum(axis=0)).ravel() > 0]
    bootstrap = _Bootstrap(Y, "cooccurrence", 7, 3)
    weights = np.random.default_rng(0).integers(0, 3, Y.shape[0]).astype(float)
    lanczos = bootstrap.vectors(weights, 12, iterative=True)
    lapack = bootstrap.vectors(weights, 12, iterative=False)
    # the same leading subspace: projections of one basis onto the other keep their length
    np.testing.assert_allclose(np.linalg.svd(lanczos.T @ lapack)[1], 1.0, atol=1e-6)


def _stub_spectrum(gaps: dict[int, float], partitions: dict[int, list[int]]) -> LabelClustering:
    """A fitted LabelClustering whose eigengaps and partitions are given by hand (6 labels)."""
    model = LabelClustering(2, random_state=0).fit(np.eye(6, dtype=int)[[0, 1, 2, 3, 4, 5, 0]])
    values = [1.0]
    for k in range(1, 6):
        values.append(values[-1] - gaps.get(k, 0.001))
    model.eigenvalues_ = np.array(values)
    model.partition_at = lambda k: np.array(partitions[k])
    return model


def test_default_k_passes_over_a_bucket_and_a_partition_of_labels_alone():
    """Hand-worked: the largest gap at K = 2 puts 5 of 6 labels into one group, the next at
    K = 5 leaves 4 of 6 alone, the next at K = 3 is a grouping (3, 2, 1): the rule takes 3.
    Without the second share (labels alone) it would take 5, the app's rule before stop 54."""
    partitions = {
        2: [0, 0, 0, 0, 0, 1],
        3: [0, 0, 0, 1, 1, 2],
        4: [0, 0, 1, 1, 2, 3],
        5: [0, 0, 1, 2, 3, 4],
    }
    model = _stub_spectrum({2: 0.5, 5: 0.3, 3: 0.2}, partitions)
    assert model.partition_shares(2) == (5 / 6, 1 / 6)
    assert model.partition_shares(5) == (2 / 6, 4 / 6)
    assert model.default_n_groups(5) == 3
    assert model.default_n_groups(5, max_singleton_share=1.0) == 5
    # no K qualifies at 30 % and 30 %: the K that exceeds the shares least, K = 4 (its
    # largest group and its labels alone both 2 of 6: 0.03 over), before K = 3 (3 of 6 in
    # one group: 0.2 over), K = 5 (0.37) and K = 2 (0.53)
    assert model.default_n_groups(5, max_group_share=0.3, max_singleton_share=0.3) == 4


def test_default_k_of_tmc2007_is_a_grouping_not_twenty_labels_alone():
    """tmc2007-500 (22 labels), heat kernel: the largest gap is at K = 2 (59 % of the labels
    in one group), the next at K = 21 (20 labels alone); the app opened at K = 21."""
    from tests.conftest import mulan_path

    mulan_path("tmc2007-500.arff")
    Y = datasets.load_source("mulan:tmc2007-500").Y
    model = LabelClustering(22, affinity="heat", random_state=0).fit(Y)
    gaps = model.eigenvalues_[:-1] - model.eigenvalues_[1:]
    assert sorted(range(2, 22), key=lambda k: -gaps[k - 1])[:2] == [2, 21]
    assert model.partition_shares(21)[1] > 0.5
    k = model.default_n_groups(21)
    largest, alone = model.partition_shares(k)
    assert k == 3 and largest <= 0.5 and alone <= 0.5
