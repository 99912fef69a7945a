"""mlviz.metrics: hand-worked cases, the papers' formulas as plain loops, edge cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mlviz import metrics as M

# --------------------------------------------------------------------------- hand-worked
# Bipartition example (4 instances, 4 labels):
#   row 0: truth {0,1}   pred {0}      ∧=1 ∨=2 |t|+|p|=3  J=1/2 F1=2/3 diff=1
#   row 1: truth {1,3}   pred {1,2,3}  ∧=2 ∨=3 |t|+|p|=5  J=2/3 F1=4/5 diff=1
#   row 2: truth {}      pred {}       both empty         J=1   F1=1   diff=0 (exact match)
#   row 3: truth {0,2,3} pred {2,3}    ∧=2 ∨=3 |t|+|p|=5  J=2/3 F1=4/5 diff=1
# Hamming = 3/16; subset accuracy = 1/4; accuracy = (1/2+2/3+1+2/3)/4 = 17/24;
# example F1 = (2/3+4/5+1+4/5)/4 = 49/60.
# Micro: TP = 1+2+0+2 = 5, FP = 1 (row 1 label 2), FN = 2 (row 0 label 1, row 3 label 0)
#   -> 2*5 / (2*5 + 1 + 2) = 10/13.
# Per label: label 0 TP1 FN1 -> 2/3; label 1 TP1 FN1 -> 2/3; label 2 TP1 FP1 -> 2/3;
#   label 3 TP2 -> 1; macro = (3*2/3 + 1)/4 = 3/4.
# CLEMS hard rank loss per row (pairs relevant k, irrelevant l):
#   row 0: (0,2),(0,3) predicted 1>0 fine; (1,2),(1,3) tied 0=0 -> 1/2 + 1/2 = 1
#   row 1: (1,0),(3,0) fine; (1,2),(3,2) tied 1=1 -> 1
#   row 2: no pairs -> 0;   row 3: (0,1) tied 0=0 -> 1/2, (2,1),(3,1) fine -> 1/2
#   mean = 2.5/4 = 5/8.
T_HARD = np.array([[1, 1, 0, 0], [0, 1, 0, 1], [0, 0, 0, 0], [1, 0, 1, 1]])
P_HARD = np.array([[1, 0, 0, 0], [0, 1, 1, 1], [0, 0, 0, 0], [0, 0, 1, 1]])

# Ranking example (4 instances, 3 labels):
#   row 0: truth {0}      scores .9 .5 .1   ranks 1 2 3
#   row 1: truth {1,2}    scores .8 .6 .3   ranks 1 2 3
#   row 2: truth {0,1,2}  scores .1 .2 .3   (full truth)
#   row 3: truth {}       (excluded from every ranking metric)
# one-error (rows 0-2): top labels 0, 0, 2 -> relevant, irrelevant, relevant -> 1/3
# coverage (rows 0-2): max rank 1, 3, 3 -> mean 7/3 - 1 = 4/3
# ranking loss (rows 0-1; row 2 full): row 0 0/2, row 1 2/2 (0.6 and 0.3 below 0.8) -> 1/2
# average precision (rows 0-2): row 0: 1; row 1: label 1 at rank 2 -> 1/2, label 2 at rank 3
#   -> 2/3, mean 7/12; row 2: 1. Mean (1 + 7/12 + 1)/3 = 31/36
# macro AUC: label 0 pos {.9,.1} neg {.8,.3}: 2 of 4 pairs -> 1/2;
#   label 1 pos {.6,.2} neg {.5,.2}: .6 beats both, .2 loses to .5, ties .2 -> 2.5/4;
#   label 2 pos {.3,.3} neg {.1,.1}: 4/4. Mean (1/2 + 5/8 + 1)/3 = 17/24
T_RANK = np.array([[1, 0, 0], [0, 1, 1], [1, 1, 1], [0, 0, 0]])
S_RANK = np.array([[0.9, 0.5, 0.1], [0.8, 0.6, 0.3], [0.1, 0.2, 0.3], [0.3, 0.2, 0.1]])


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("hamming_loss", 3 / 16),
        ("subset_accuracy", 1 / 4),
        ("accuracy", 17 / 24),
        ("example_f1", 49 / 60),
        ("micro_f1", 10 / 13),
        ("macro_f1", 3 / 4),
        ("rank_loss_hard", 5 / 8),
    ],
)
def test_bipartition_hand_worked(name, expected):
    assert getattr(M, name)(T_HARD, P_HARD) == pytest.approx(expected)


def test_per_label_f1_hand_worked():
    np.testing.assert_allclose(M.per_label_f1(T_HARD, P_HARD), [2 / 3, 2 / 3, 2 / 3, 1.0])


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("one_error", 1 / 3),
        ("coverage", 4 / 3),
        ("ranking_loss", 1 / 2),
        ("average_precision", 31 / 36),
        ("macro_auc", 17 / 24),
    ],
)
def test_ranking_hand_worked(name, expected):
    assert getattr(M, name)(T_RANK, S_RANK) == pytest.approx(expected)


# --------------------------------------------------------------------------- papers as loops


def _sets(row):
    return {k for k, v in enumerate(row) if v}


def _loop_bipartition(T, P):
    n, K = T.shape
    jac, f1, exact, diff = [], [], 0, 0
    tp = np.zeros(K)
    fp = np.zeros(K)
    fn = np.zeros(K)
    for t_row, p_row in zip(T, P, strict=True):
        t, p = _sets(t_row), _sets(p_row)
        jac.append(1.0 if not (t | p) else len(t & p) / len(t | p))
        f1.append(1.0 if not (t or p) else 2 * len(t & p) / (len(t) + len(p)))
        exact += t == p
        diff += len(t ^ p)
        for k in range(K):
            tp[k] += k in t and k in p
            fp[k] += k not in t and k in p
            fn[k] += k in t and k not in p
    per_label = [1.0 if tp[k] + fp[k] + fn[k] == 0 else 2 * tp[k] / (2 * tp[k] + fp[k] + fn[k])
                 for k in range(K)]  # fmt: skip
    micro_den = 2 * tp.sum() + fp.sum() + fn.sum()
    return {
        "hamming_loss": diff / (n * K),
        "subset_accuracy": exact / n,
        "accuracy": float(np.mean(jac)),
        "example_f1": float(np.mean(f1)),
        "micro_f1": 1.0 if micro_den == 0 else 2 * tp.sum() / micro_den,
        "macro_f1": float(np.mean(per_label)),
    }


def _loop_ranking(T, S):
    """Paper 003 Eqs. 2-5 with distinct scores; empty (and for rloss full) truths skipped."""
    n, K = T.shape
    one_err, cov, rloss, avgprec = [], [], [], []
    for t_row, s in zip(T, S, strict=True):
        relevant = _sets(t_row)
        irrelevant = set(range(K)) - relevant
        rank = {k: 1 + sum(1 for j in range(K) if s[j] > s[k]) for k in range(K)}
        if relevant:
            top = max(range(K), key=lambda k: s[k])
            one_err.append(top not in relevant)
            cov.append(max(rank[k] for k in relevant) - 1)
            avgprec.append(
                np.mean(
                    [sum(1 for j in relevant if rank[j] <= rank[k]) / rank[k] for k in relevant]
                )
            )
        if relevant and irrelevant:
            bad = sum(1 for k in relevant for l in irrelevant if s[k] <= s[l])
            rloss.append(bad / (len(relevant) * len(irrelevant)))
    aucs = []
    for k in range(K):
        pos = [S[i, k] for i in range(n) if T[i, k]]
        neg = [S[i, k] for i in range(n) if not T[i, k]]
        if pos and neg:
            wins = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg)
            aucs.append(wins / (len(pos) * len(neg)))
    return {
        "one_error": float(np.mean(one_err)),
        "coverage": float(np.mean(cov)),
        "ranking_loss": float(np.mean(rloss)),
        "average_precision": float(np.mean(avgprec)),
        "macro_auc": float(np.mean(aucs)),
    }


def _random_problem(seed, n=60, K=7):
    rng = np.random.default_rng(seed)
    T = (rng.random((n, K)) < rng.uniform(0.05, 0.8, size=(n, 1))).astype(int)
    T[0] = 0
    T[1] = 1
    T[:, -1] = 0  # a label with no positives
    S = rng.normal(size=(n, K)) + 1.5 * T  # continuous: no ties
    P = (S > 0.7).astype(int)
    P[2] = 0
    return T, P, S


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bipartition_matches_paper_loops(seed):
    T, P, _ = _random_problem(seed)
    expected = _loop_bipartition(T, P)
    for name, value in expected.items():
        assert getattr(M, name)(T, P) == pytest.approx(value), name


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ranking_matches_paper_loops(seed):
    T, _, S = _random_problem(seed)
    expected = _loop_ranking(T, S)
    for name, value in expected.items():
        assert getattr(M, name)(T, S) == pytest.approx(value), name


def test_rank_loss_hard_matches_pair_loop():
    T, P, _ = _random_problem(4)
    per_row = []
    for t, p in zip(T, P, strict=True):
        loss = 0.0
        for k in range(len(t)):
            for l in range(len(t)):
                if t[k] == 1 and t[l] == 0:
                    loss += 1.0 if p[k] < p[l] else 0.5 if p[k] == p[l] else 0.0
        per_row.append(loss)
    assert M.rank_loss_hard(T, P) == pytest.approx(np.mean(per_row))


@pytest.mark.parametrize("seed", [0, 1])
def test_f1_family_agrees_with_scikit_learn(seed):
    from sklearn.metrics import f1_score, jaccard_score

    T, P, _ = _random_problem(seed)
    options = {"zero_division": 1.0}
    assert M.accuracy(T, P) == pytest.approx(jaccard_score(T, P, average="samples", **options))
    assert M.example_f1(T, P) == pytest.approx(f1_score(T, P, average="samples", **options))
    assert M.micro_f1(T, P) == pytest.approx(f1_score(T, P, average="micro", **options))
    np.testing.assert_allclose(M.per_label_f1(T, P), f1_score(T, P, average=None, **options))


def test_a_single_label_column_is_a_multilabel_problem_not_a_binary_one():
    # truth [1, 0, 1], prediction [1, 1, 0]: TP 1, FP 1, FN 1
    T, P, S = [[1], [0], [1]], [[1], [1], [0]], [[0.9], [0.2], [0.1]]
    results = M.evaluate(T, P, S)
    assert results["hamming_loss"] == pytest.approx(2 / 3)
    assert results["accuracy"] == pytest.approx(1 / 3)  # rows: 1, 0 (claimed), 0 (missed)
    assert results["example_f1"] == pytest.approx(1 / 3)
    assert results["micro_f1"] == pytest.approx(1 / 2)
    assert results["macro_f1"] == pytest.approx(1 / 2)
    assert results["one_error"] == 0.0
    assert results["coverage"] == 0.0
    assert math.isnan(results["ranking_loss"])  # no instance has a (relevant, irrelevant) pair
    assert results["macro_auc"] == pytest.approx(1 / 2)  # .9 > .2 but .1 < .2


# --------------------------------------------------------------------------- edge cases


def test_empty_truth_and_prediction_conventions():
    empty = np.zeros((3, 4), dtype=int)
    for name in ("accuracy", "example_f1", "micro_f1", "macro_f1", "subset_accuracy"):
        assert getattr(M, name)(empty, empty) == 1.0, name
    assert M.hamming_loss(empty, empty) == 0.0
    assert M.rank_loss_hard(empty, empty) == 0.0
    np.testing.assert_array_equal(M.per_label_f1(empty, empty), 1.0)
    # empty truth, one claimed label: every F1/Jaccard is 0 for that row
    claimed = empty.copy()
    claimed[:, 0] = 1
    for name in ("accuracy", "example_f1", "micro_f1"):
        assert getattr(M, name)(empty, claimed) == 0.0, name
    # truth present but nothing predicted
    assert M.example_f1(claimed, empty) == 0.0
    # only label 0 is involved; the other three labels are never present nor predicted -> 1
    assert M.macro_f1(empty, claimed) == pytest.approx(3 / 4)


def test_ranking_metrics_exclude_empty_and_full_truths():
    T = np.array([[1, 0, 0], [0, 0, 0], [1, 1, 1]])
    S = np.array([[0.2, 0.9, 0.1], [0.5, 0.1, 0.0], [0.1, 0.2, 0.3]])
    # only row 0 counts for ranking loss: label 0 (0.2) below label 1 (0.9) -> 1 of 2 pairs
    assert M.ranking_loss(T, S) == pytest.approx(0.5)
    # rows 0 and 2 count for one-error: row 0 top is label 1 (irrelevant) -> (1 + 0)/2
    assert M.one_error(T, S) == pytest.approx(0.5)
    # row 0: label 0 at rank 2 -> coverage 1; row 2: all relevant -> 2; mean 1.5
    assert M.coverage(T, S) == pytest.approx(1.5)
    # row 0: 1/2; row 2: 1 -> 3/4
    assert M.average_precision(T, S) == pytest.approx(0.75)
    # scikit-learn alone would differ (it keeps the empty row), so the exclusion is real
    from sklearn.metrics import coverage_error, label_ranking_loss

    assert coverage_error(T, S) - 1 != pytest.approx(M.coverage(T, S))
    assert label_ranking_loss(T, S) != pytest.approx(M.ranking_loss(T, S))


def test_ranking_metrics_nan_when_nothing_is_defined():
    T = np.zeros((2, 3), dtype=int)
    S = np.ones((2, 3))
    for name in ("one_error", "coverage", "ranking_loss", "average_precision", "macro_auc"):
        assert math.isnan(getattr(M, name)(T, S)), name
    full = np.ones((2, 3), dtype=int)
    assert math.isnan(M.ranking_loss(full, S))
    assert math.isnan(M.macro_auc(full, S))
    assert M.average_precision(full, S) == 1.0


def test_one_error_ties_count_their_expected_value():
    # top score shared by a relevant and an irrelevant label -> 1/2, regardless of order
    assert M.one_error([[1, 0, 0]], [[0.5, 0.5, 0.1]]) == pytest.approx(0.5)
    assert M.one_error([[0, 1, 0]], [[0.5, 0.5, 0.1]]) == pytest.approx(0.5)
    # all three tied, one relevant -> 2/3
    assert M.one_error([[1, 0, 0]], [[0.5, 0.5, 0.5]]) == pytest.approx(2 / 3)


def test_ties_take_the_worst_rank_in_coverage_and_ranking_loss():
    # everything tied: the relevant label is only covered at rank 3; each pair counts as wrong
    assert M.coverage([[0, 0, 1]], [[0.5, 0.5, 0.5]]) == pytest.approx(2.0)
    assert M.ranking_loss([[0, 0, 1]], [[0.5, 0.5, 0.5]]) == pytest.approx(1.0)
    assert M.average_precision([[0, 0, 1]], [[0.5, 0.5, 0.5]]) == pytest.approx(1 / 3)


def test_macro_auc_skips_labels_without_both_classes():
    T, _, S = _random_problem(5)
    assert T[:, -1].sum() == 0
    with_constant = M.macro_auc(T, S)
    without = M.macro_auc(T[:, :-1], S[:, :-1])
    assert with_constant == pytest.approx(without)
    T_all = T.copy()
    T_all[:, -1] = 1  # a label present everywhere is skipped too
    assert M.macro_auc(T_all, S) == pytest.approx(without)


# --------------------------------------------------------------------------- evaluate / METRICS


def test_evaluate_keys_and_values():
    T, P, S = _random_problem(6)
    hard_only = M.evaluate(T, P)
    assert list(hard_only) == list(M.EVALUATE_KEYS[:6])
    everything = M.evaluate(T, P, S)
    assert list(everything) == list(M.EVALUATE_KEYS)
    for name, value in everything.items():
        expected = getattr(M, name)(T, S if METRIC_NEEDS_SCORES[name] else P)
        assert value == pytest.approx(expected), name
        assert isinstance(value, float)


METRIC_NEEDS_SCORES = {name: info.needs_scores for name, info in M.METRICS.items()}


def test_metrics_registry_directions():
    assert set(M.EVALUATE_KEYS) <= set(M.METRICS)
    assert "rank_loss_hard" in M.METRICS
    for name, info in M.METRICS.items():
        assert info.name == name
        assert callable(getattr(M, name))
        lower_better = name.endswith(("loss", "error", "coverage", "hard"))
        assert info.greater_is_better is not lower_better, name
        assert info.arrow == ("↑" if info.greater_is_better else "↓")
    # a perfect prediction hits each metric's best end
    T, _, _ = _random_problem(7)
    T = T[T.sum(axis=1) % T.shape[1] != 0]  # keep rows where ranking metrics are defined
    perfect = M.evaluate(T, T, T.astype(float))
    for name, value in perfect.items():
        best = 1.0 if M.METRICS[name].greater_is_better else 0.0
        if name == "coverage":  # best coverage is max |Y_i| - 1 on average, not 0
            best = float(np.mean(T.sum(axis=1))) - 1.0
        assert value == pytest.approx(best), name


def test_input_errors_are_clear():
    with pytest.raises(ValueError, match="same shape"):
        M.evaluate(np.zeros((2, 3)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="only 0 and 1"):
        M.hamming_loss([[0, 2]], [[0, 1]])
    with pytest.raises(ValueError, match="Y_score must have the same shape"):
        M.evaluate(np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="NaN"):
        M.one_error([[1, 0]], [[np.nan, 0.0]])
    with pytest.raises(ValueError, match="no rows"):
        M.accuracy(np.zeros((0, 3)), np.zeros((0, 3)))


def test_zero_division_sets_f1_of_labels_never_present_nor_predicted():
    from mlviz.metrics import evaluate, macro_f1, per_label_f1

    Y_true = np.array([[1, 0, 0], [0, 0, 0]])
    Y_pred = np.array([[1, 0, 1], [0, 0, 0]])
    # label 0: TP 1 -> F1 1; label 1: nothing present or predicted; label 2: FP 1 -> F1 0
    np.testing.assert_array_equal(per_label_f1(Y_true, Y_pred), [1.0, 1.0, 0.0])
    np.testing.assert_array_equal(per_label_f1(Y_true, Y_pred, zero_division=0), [1, 0, 0])
    assert macro_f1(Y_true, Y_pred, zero_division=0) == pytest.approx(1 / 3)
    assert evaluate(Y_true, Y_pred, zero_division=0)["macro_f1"] == pytest.approx(1 / 3)
    assert evaluate(Y_true, Y_pred)["macro_f1"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="zero_division must be 0 or 1"):
        macro_f1(Y_true, Y_pred, zero_division=0.5)
