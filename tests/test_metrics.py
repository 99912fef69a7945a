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
    results = M.evaluate(T, P, Y_score=S)
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
    for name in ("accuracy", "example_f1", "micro_f1", "subset_accuracy"):
        assert getattr(M, name)(empty, empty) == 1.0, name
    assert M.hamming_loss(empty, empty) == 0.0
    assert M.rank_loss_hard(empty, empty) == 0.0
    # macro F1: a label never present nor predicted scores zero_division (default 0)
    assert M.macro_f1(empty, empty) == 0.0
    assert M.macro_f1(empty, empty, zero_division=1) == 1.0
    np.testing.assert_array_equal(M.per_label_f1(empty, empty, zero_division=1), 1.0)
    # empty truth, one claimed label: every F1/Jaccard is 0 for that row
    claimed = empty.copy()
    claimed[:, 0] = 1
    for name in ("accuracy", "example_f1", "micro_f1"):
        assert getattr(M, name)(empty, claimed) == 0.0, name
    # truth present but nothing predicted
    assert M.example_f1(claimed, empty) == 0.0
    # only label 0 is involved (F1 0); the other three are never present nor predicted
    assert M.macro_f1(empty, claimed, zero_division=1) == pytest.approx(3 / 4)
    assert M.macro_f1(empty, claimed) == 0.0


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
    everything = M.evaluate(T, P, Y_score=S)
    assert list(everything) == list(M.EVALUATE_KEYS)
    for name, value in everything.items():
        expected = _single(name)(T, S if METRIC_NEEDS_SCORES[name] else P)
        assert value == pytest.approx(expected), name
        assert isinstance(value, float)


METRIC_NEEDS_SCORES = {name: info.needs_scores for name, info in M.METRICS.items()}


def _single(name, Y_train=None):
    """The single-metric function behind an :func:`evaluate` key, as f(Y_true, Y_pred or score).

    The top-k keys name a function and a k (``AT_K_METRICS``); the propensity-scored ones
    estimate their weights on ``Y_train`` as :class:`Evaluator` does."""
    if name not in M.AT_K_METRICS:
        return getattr(M, name)
    function, k = M.AT_K_METRICS[name]
    options = {"Y_train": Y_train} if name.startswith("ps") and Y_train is not None else {}
    return lambda T, S: function(T, S, k=k, **options)


def test_metrics_registry_directions():
    assert set(M.EVALUATE_KEYS) <= set(M.METRICS)
    assert "rank_loss_hard" in M.METRICS
    assert set(M.TAIL_KEYS) <= set(M.METRICS)
    for name, info in M.METRICS.items():
        assert info.name == name
        # every metric is a function, except the tail ones, which tail_head_scores returns
        assert callable(getattr(M, name, None)) or name in M.TAIL_KEYS + tuple(M.AT_K_METRICS)
        lower_better = name.endswith(("loss", "error", "coverage", "hard"))
        assert info.greater_is_better is not lower_better, name
        assert info.arrow == ("↑" if info.greater_is_better else "↓")
    # a perfect prediction hits each metric's best end
    T, _, _ = _random_problem(7)
    T = T[T.sum(axis=1) % T.shape[1] != 0]  # keep rows where ranking metrics are defined
    # zero_division=1: the label with no positives, rightly never predicted, scores 1
    perfect = M.evaluate(T, T, Y_score=T.astype(float), zero_division=1)
    for name, value in perfect.items():
        best = 1.0 if M.METRICS[name].greater_is_better else 0.0
        if name == "coverage":  # best coverage is max |Y_i| - 1 on average, not 0
            best = float(np.mean(T.sum(axis=1))) - 1.0
        if name.startswith("ps"):
            # the 0/1 scores tie the relevant labels: in expectation the top k holds their
            # average weight, not the largest (tests/test_metrics_at_k.py checks the best case)
            assert 0.0 < value <= 1.0, name
            continue
        if name.startswith("precision_at_"):  # best P@k is min(k, |Y_i|) / k on average
            k = M.AT_K_METRICS[name][1]
            best = float(np.mean(np.minimum(k, T.sum(axis=1)) / k))
        assert value == pytest.approx(best), name


def test_input_errors_are_clear():
    with pytest.raises(ValueError, match="same shape"):
        M.evaluate(np.zeros((2, 3)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="only 0 and 1"):
        M.hamming_loss([[0, 2]], [[0, 1]])
    with pytest.raises(ValueError, match="Y_score must have the same shape"):
        M.evaluate(np.zeros((2, 3)), np.zeros((2, 3)), Y_score=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="NaN"):
        M.one_error([[1, 0]], [[np.nan, 0.0]])
    with pytest.raises(ValueError, match="no rows"):
        M.accuracy(np.zeros((0, 3)), np.zeros((0, 3)))


def test_zero_division_sets_f1_of_labels_never_present_nor_predicted():
    from mlviz.metrics import evaluate, macro_f1, per_label_f1

    Y_true = np.array([[1, 0, 0], [0, 0, 0]])
    Y_pred = np.array([[1, 0, 1], [0, 0, 0]])
    # label 0: TP 1 -> F1 1; label 1: nothing present or predicted; label 2: FP 1 -> F1 0
    np.testing.assert_array_equal(per_label_f1(Y_true, Y_pred), [1, 0, 0])  # default 0
    np.testing.assert_array_equal(per_label_f1(Y_true, Y_pred, zero_division=1), [1, 1, 0])
    assert macro_f1(Y_true, Y_pred) == pytest.approx(1 / 3)
    assert evaluate(Y_true, Y_pred)["macro_f1"] == pytest.approx(1 / 3)
    assert evaluate(Y_true, Y_pred, zero_division=1)["macro_f1"] == pytest.approx(2 / 3)
    # nan leaves the undefined label out of the mean, as scikit-learn does
    assert macro_f1(Y_true, Y_pred, zero_division=np.nan) == pytest.approx(1 / 2)
    with pytest.raises(ValueError, match="zero_division must be 0, 1 or nan"):
        macro_f1(Y_true, Y_pred, zero_division=0.5)


@pytest.mark.parametrize("zero_division", [0, 1])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_micro_macro_per_label_f1_equal_scikit_learn(seed, zero_division):
    from sklearn.metrics import f1_score

    T, P, _ = _random_problem(seed)
    T[:, 0] = 0  # a label never present ...
    P[:, 0] = 0  # ... and never predicted: zero_division decides its F1
    options = {"zero_division": zero_division}
    assert M.macro_f1(T, P, **options) == pytest.approx(f1_score(T, P, average="macro", **options))
    np.testing.assert_allclose(
        M.per_label_f1(T, P, **options), f1_score(T, P, average=None, **options)
    )
    assert M.micro_f1(T, P) == pytest.approx(f1_score(T, P, average="micro", zero_division=1))


# --------------------------------------------------------------------------- per label, tail

# Per-label example (5 instances, 3 labels), scores for AUC:
#   label a: truth 1 1 0 0 0, pred 1 0 0 1 0 -> TP1 FP1 FN1: P 1/2 R 1/2 F1 1/2
#            scores .9 .4 .1 .8 .2: positives {.9,.4} vs negatives {.1,.8,.2}: .9 beats 3,
#            .4 beats 2 -> 5/6
#   label b: truth 0 0 0 0 0, pred 0 1 0 0 0 -> never present: P 0 (FP1), R zero_division,
#            F1 0; AUC undefined (nan)
#   label c: truth 1 0 1 0 1, pred 1 0 1 0 1 -> all right: P R F1 1; .7 .8 .9 above .2 .1: 1
P_LABEL = np.array([[1, 0, 1], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 0, 1]])
S_LABEL = np.array(
    [[0.9, 0.1, 0.7], [0.4, 0.9, 0.2], [0.1, 0.3, 0.8], [0.8, 0.2, 0.1], [0.2, 0.5, 0.9]]
)


def test_per_label_scores_hand_worked():
    T = np.array([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 1]])
    table = M.per_label_scores(T, P_LABEL, Y_score=S_LABEL, label_names=["a", "b", "c"])
    assert list(table.index) == ["a", "b", "c"]
    assert list(table.columns) == ["support", "predicted", "precision", "recall", "f1", "auc"]
    np.testing.assert_array_equal(table["support"], [2, 0, 3])
    np.testing.assert_array_equal(table["predicted"], [2, 1, 3])
    np.testing.assert_allclose(table["precision"], [1 / 2, 0, 1])
    np.testing.assert_allclose(table["recall"], [1 / 2, 0, 1])  # label b: zero_division 0
    np.testing.assert_allclose(table["f1"], [1 / 2, 0, 1])
    np.testing.assert_allclose(table["auc"], [5 / 6, np.nan, 1])
    with_one = M.per_label_scores(T, P_LABEL, zero_division=1)
    assert with_one.loc[1, "recall"] == 1.0 and with_one.loc[1, "precision"] == 0.0
    assert "auc" not in with_one.columns
    with pytest.raises(ValueError, match="2 label names for 3"):
        M.per_label_scores(T, P_LABEL, label_names=["a", "b"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_per_label_scores_equal_scikit_learn(seed):
    from sklearn.metrics import precision_recall_fscore_support, roc_auc_score

    T, P, S = _random_problem(seed)
    T[:, 1] = 0  # AUC undefined for a label without positives (like the last one)
    table = M.per_label_scores(T, P, Y_score=S)
    precision, recall, f1, support = precision_recall_fscore_support(
        T, P, average=None, zero_division=0
    )
    np.testing.assert_allclose(table["precision"], precision)
    np.testing.assert_allclose(table["recall"], recall)
    np.testing.assert_allclose(table["f1"], f1)
    np.testing.assert_array_equal(table["support"], support)
    np.testing.assert_array_equal(table["predicted"], P.sum(axis=0))
    np.testing.assert_allclose(table["f1"], M.per_label_f1(T, P))
    undefined = [1, T.shape[1] - 1]
    assert table["auc"].iloc[undefined].isna().all()
    for j in range(T.shape[1]):
        if j not in undefined:
            assert table["auc"].iloc[j] == pytest.approx(roc_auc_score(T[:, j], S[:, j]))
    # the mean of the defined AUCs is macro AUC
    assert table["auc"].mean() == pytest.approx(M.macro_auc(T, S))


def test_per_label_scores_single_label_column():
    # scikit-learn would read one column as a binary target; the row is still one label
    table = M.per_label_scores([[1], [0], [1]], [[1], [1], [0]], Y_score=[[0.9], [0.2], [0.1]])
    assert len(table) == 1
    assert table["f1"].iloc[0] == pytest.approx(1 / 2)
    assert table["auc"].iloc[0] == pytest.approx(1 / 2)


# Tail example: training frequencies over 10 rows: label 0 in 5 (head), label 1 in 1 (tail at
# threshold 0.2), label 2 in 2 (head: 0.2 is *at* the threshold), label 3 in 0 (tail).
Y_TRAIN_TAIL = np.zeros((10, 4), dtype=int)
Y_TRAIN_TAIL[:5, 0] = 1
Y_TRAIN_TAIL[0, 1] = 1
Y_TRAIN_TAIL[:2, 2] = 1
# Test (4 rows):
#   label 0: truth 1 1 0 0 pred 1 0 0 0 -> F1 2/3        (head)
#   label 1: truth 1 1 1 0 pred 1 0 0 1 -> TP1 FP1 FN2 -> F1 2/5, recall 1/3   (tail)
#   label 2: truth 0 1 0 0 pred 0 1 0 0 -> F1 1          (head)
#   label 3: truth 0 0 0 1 pred 0 0 0 1 -> F1 1, recall 1 (tail)
# tail macro F1 = (2/5 + 1)/2 = 7/10; head macro F1 = (2/3 + 1)/2 = 5/6;
# tail recall (micro) = (1 + 1)/(3 + 1) = 1/2
T_TAIL = np.array([[1, 1, 0, 0], [1, 1, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
P_TAIL = np.array([[1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [0, 1, 0, 1]])


def test_tail_metrics_hand_worked():
    scores = M.tail_head_scores(T_TAIL, P_TAIL, 0.2, Y_train=Y_TRAIN_TAIL)
    assert scores == pytest.approx(
        {"tail_macro_f1": 7 / 10, "head_macro_f1": 5 / 6, "tail_recall": 1 / 2}
    )
    results = M.evaluate(T_TAIL, P_TAIL, tail_threshold=0.2, Y_train=Y_TRAIN_TAIL)
    assert list(results)[-3:] == list(M.TAIL_KEYS)
    assert {k: results[k] for k in M.TAIL_KEYS} == pytest.approx(scores)
    assert not set(M.TAIL_KEYS) & set(M.evaluate(T_TAIL, P_TAIL))  # only with a threshold
    # displayed next to macro F1, before the ranking metrics
    with_scores = M.evaluate(T_TAIL, P_TAIL, Y_score=T_TAIL * 0.5, tail_threshold=0.2)
    assert list(with_scores)[5:9] == ["macro_f1", *M.TAIL_KEYS]
    # without Y_train the test frequencies decide: 2/4, 3/4, 1/4, 1/4 -> at 0.3 the tail is
    # labels 2 and 3: tail F1 (1 + 1)/2, head F1 (2/3 + 2/5)/2, tail recall 2/2
    own = M.tail_head_scores(T_TAIL, P_TAIL, 0.3)
    assert own == pytest.approx(
        {"tail_macro_f1": 1.0, "head_macro_f1": (2 / 3 + 2 / 5) / 2, "tail_recall": 1.0}
    )


def test_tail_metrics_without_tail_or_head_are_nan():
    # every test frequency (2/4, 3/4, 1/4, 1/4) is at or above 0.2: no tail label
    none = M.tail_head_scores(T_TAIL, P_TAIL, 0.2)
    assert math.isnan(none["tail_macro_f1"]) and math.isnan(none["tail_recall"])
    assert none["head_macro_f1"] == pytest.approx(M.macro_f1(T_TAIL, P_TAIL))
    # threshold 1: every label is tail, so there is no head label
    everything = M.tail_head_scores(T_TAIL, P_TAIL, 1.0, Y_train=Y_TRAIN_TAIL)
    assert math.isnan(everything["head_macro_f1"])
    assert everything["tail_macro_f1"] == pytest.approx(M.macro_f1(T_TAIL, P_TAIL))
    # tail labels that never occur in the test truth: recall undefined
    rare_absent = T_TAIL.copy()
    rare_absent[:, [1, 3]] = 0
    assert math.isnan(
        M.tail_head_scores(rare_absent, P_TAIL, 0.2, Y_train=Y_TRAIN_TAIL)["tail_recall"]
    )
    with pytest.raises(ValueError, match="Y_train has 3 label columns"):
        M.tail_head_scores(T_TAIL, P_TAIL, 0.2, Y_train=Y_TRAIN_TAIL[:, :3])
    with pytest.raises(ValueError, match="threshold must be a fraction"):
        M.evaluate(T_TAIL, P_TAIL, tail_threshold=0.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tail_metrics_equal_scikit_learn_on_random_data(seed):
    from sklearn.metrics import f1_score, recall_score

    from mlviz.stats import tail_labels

    rng = np.random.default_rng(seed)
    rates = np.geomspace(0.01, 0.6, 12)  # long-tailed label frequencies
    Y_train = (rng.random((300, 12)) < rates).astype(int)
    T = (rng.random((80, 12)) < rates).astype(int)
    P = np.where(rng.random(T.shape) < 0.8, T, 1 - T)
    tail = tail_labels(Y_train, 0.05)
    head = np.setdiff1d(np.arange(12), tail)
    assert 1 < tail.size < 12  # both sides populated, so the check is not vacuous
    scores = M.tail_head_scores(T, P, 0.05, Y_train=Y_train)
    assert scores["tail_macro_f1"] == pytest.approx(
        f1_score(T[:, tail], P[:, tail], average="macro", zero_division=0)
    )
    assert scores["head_macro_f1"] == pytest.approx(
        f1_score(T[:, head], P[:, head], average="macro", zero_division=0)
    )
    assert scores["tail_recall"] == pytest.approx(
        recall_score(T[:, tail], P[:, tail], average="micro")
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_per_label_auc_equals_scikit_learn_with_ties(seed):
    rng = np.random.default_rng(seed)
    Y_true = (rng.random((60, 12)) < 0.3).astype(np.uint8)
    Y_true[:, 0] = 0  # undefined: no positive
    Y_true[:, 1] = 1  # undefined: no negative
    Y_score = np.round(rng.normal(size=(60, 12)), 1)  # rounding makes many ties
    from sklearn.metrics import roc_auc_score

    auc = M.per_label_scores(Y_true, Y_true, Y_score=Y_score)["auc"].to_numpy()
    assert np.isnan(auc[:2]).all()
    expected = [roc_auc_score(Y_true[:, j], Y_score[:, j]) for j in range(2, 12)]
    np.testing.assert_allclose(auc[2:], expected, rtol=0, atol=1e-12)
    assert M.macro_auc(Y_true, Y_score) == pytest.approx(np.mean(expected), abs=1e-12)


# --------------------------------------------------------------------------- Evaluator


def _degenerate_cases():
    """(name, truth, prediction) pairs where the counts hit their special cases."""
    rng = np.random.default_rng(11)
    T = (rng.random((40, 9)) < 0.3).astype(np.int8)
    P = np.where(rng.random(T.shape) < 0.85, T, 1 - T).astype(np.int8)
    T[:5] = 0  # empty truths ...
    P[:3] = 0  # ... some predicted empty too (both empty), some not
    T[:, 0] = 0  # a label never present ...
    P[:, 0] = 0  # ... nor predicted (zero_division decides)
    T[:, 1] = 0  # never present but predicted
    P[:, 1] = 1
    P[:, 2] = 0  # present but never predicted
    zeros = np.zeros((6, 4), dtype=np.int8)
    ones = np.ones((6, 4), dtype=np.int8)
    return [
        ("mixed degenerate", T, P),
        ("all zero", zeros, zeros),
        ("all one", ones, ones),
        ("all zero truth, all one prediction", zeros, ones),
        ("all one truth, all zero prediction", ones, zeros),
        ("one label column", T[:, 3:4], P[:, 3:4]),
    ]


def _sklearn_reference(T, P, zero_division):
    """The metrics as scikit-learn computes them (the reference of Evaluator's counts)."""
    from sklearn.metrics import accuracy_score, f1_score, jaccard_score
    from sklearn.metrics import hamming_loss as sk_hamming_loss

    # an (N, 1) matrix is a binary target to scikit-learn: ask for the positive class only
    labels = {"labels": [1]} if T.shape[1] == 1 else {}
    true, pred = (T[:, 0], P[:, 0]) if T.shape[1] == 1 else (T, P)
    samples = {}
    if T.shape[1] > 1:  # scikit-learn refuses average="samples" on a binary target
        samples = {
            "accuracy": jaccard_score(T, P, average="samples", zero_division=1),
            "example_f1": f1_score(T, P, average="samples", zero_division=1),
        }
    return {
        "hamming_loss": sk_hamming_loss(T, P),
        "subset_accuracy": accuracy_score(T, P),
        "micro_f1": f1_score(true, pred, average="micro", zero_division=1, **labels),
        "macro_f1": f1_score(true, pred, average="macro", zero_division=zero_division, **labels),
        **samples,
    }


@pytest.mark.parametrize("zero_division", [0, 1, np.nan])
@pytest.mark.parametrize("case", range(9))
def test_evaluator_counts_equal_scikit_learn(case, zero_division):
    cases = _degenerate_cases() + [("random", *_random_problem(seed)[:2]) for seed in (0, 1, 2)]
    name, T, P = cases[case]
    expected = _sklearn_reference(T, P, zero_division)
    got = M.Evaluator(T, zero_division=zero_division).score(P)
    assert list(got) == list(M.EVALUATE_KEYS[:6])
    for metric, value in expected.items():
        # both sides may be nan (macro F1 with zero_division=nan and no defined label)
        np.testing.assert_allclose(got[metric], value, rtol=1e-12, atol=1e-15, err_msg=name)


@pytest.mark.parametrize("seed", [0, 1])
def test_evaluator_scores_many_predictions_like_evaluate_and_the_single_functions(seed):
    T, P, S = _random_problem(seed)
    rng = np.random.default_rng(seed)
    Y_train = (rng.random((200, T.shape[1])) < np.linspace(0.01, 0.5, T.shape[1])).astype(int)
    evaluator = M.Evaluator(T, tail_threshold=0.1, Y_train=Y_train)
    for predicted in (P, 1 - P, T, np.zeros_like(P), P.astype(bool), P.astype(float)):
        got = evaluator.score(predicted, S)
        assert list(got) == list(M.EVALUATE_KEYS[:6] + M.TAIL_KEYS + M.EVALUATE_KEYS[6:])
        tail = M.tail_head_scores(T, predicted, 0.1, Y_train=Y_train)
        for metric, value in got.items():
            if metric in M.TAIL_KEYS:
                expected = tail[metric]
            elif M.METRICS[metric].needs_scores:
                expected = _single(metric, Y_train)(T, S)
            else:
                expected = getattr(M, metric)(T, predicted)
            np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-15, err_msg=metric)
            assert isinstance(value, float)


def test_evaluator_rejects_bad_predictions_clearly():
    evaluator = M.Evaluator(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="same shape"):
        evaluator.score(np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"only 0 and 1; found 2 at row 1, label column 2"):
        evaluator.score(np.array([[0, 1, 0], [0, 0, 2]]))
    with pytest.raises(ValueError, match="NaN"):
        evaluator.score(np.array([[0, 1, 0], [0, 0, np.nan]]))
    with pytest.raises(ValueError, match="1-D"):
        evaluator.score(np.zeros(3))
    with pytest.raises(ValueError, match="numeric 0/1"):
        evaluator.score(np.array([["a", "b", "c"]] * 2))
    with pytest.raises(ValueError, match="no rows"):
        M.Evaluator(np.zeros((0, 3)))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_evaluator_ranking_metrics_equal_the_reference_with_ties_empty_and_full_rows(seed):
    rng = np.random.default_rng(seed)
    T = (rng.random((50, 8)) < 0.35).astype(int)
    T[:4] = 0  # excluded from every ranking metric
    T[4:7] = 1  # full rows: excluded from ranking loss only
    S = np.round(rng.normal(size=T.shape) + T, 0)  # few distinct values: many ties
    S[7] = 0.5  # a row tied throughout
    got = M.Evaluator(T).score(T, S)
    for metric in M.EVALUATE_KEYS[6:]:
        expected = _single(metric)(T, S)
        np.testing.assert_allclose(got[metric], expected, rtol=1e-12, err_msg=metric)
    # the same values as the paper loops where scores are distinct
    T, _, S = _random_problem(seed)
    got = M.Evaluator(T).score(T, S)
    for metric, value in _loop_ranking(T, S).items():
        assert got[metric] == pytest.approx(value), metric


def test_one_evaluator_scores_every_model_as_a_fresh_one_would():
    # the relevant pairs are found on the first scored model and reused: a second model's
    # scores (other ties, another top label) must still get its own metrics
    rng = np.random.default_rng(5)
    T = (rng.random((40, 9)) < 0.3).astype(int)
    T[:3] = 0
    evaluator = M.Evaluator(T)
    for seed in range(3):
        S = np.round(np.random.default_rng(seed).normal(size=T.shape), 1)
        assert evaluator.score(T, S) == M.Evaluator(T).score(T, S)
        for metric in ("one_error", "coverage", "ranking_loss", "average_precision"):
            assert evaluator.score(T, S)[metric] == pytest.approx(_single(metric)(T, S))


def test_evaluator_ranking_metrics_when_nothing_is_defined():
    empty = M.Evaluator(np.zeros((2, 3), dtype=int)).score(np.zeros((2, 3)), np.ones((2, 3)))
    for name in M.EVALUATE_KEYS[6:]:
        if name.startswith("precision_at_"):  # defined: no relevant label in the top k
            assert empty[name] == 0.0
        else:
            assert math.isnan(empty[name]), name
    full = M.Evaluator(np.ones((2, 3), dtype=int)).score(np.ones((2, 3)), np.ones((2, 3)))
    assert math.isnan(full["ranking_loss"]) and math.isnan(full["macro_auc"])
    assert full["average_precision"] == 1.0 and full["coverage"] == 2.0


@pytest.mark.parametrize("zero_division", [0, 1, np.nan])
def test_set_wise_scores_equal_scikit_learns_on_the_dense_matrices(zero_division):
    # the label matrices go to scikit-learn as CSR (its checks then skip sorting all N x L
    # entries); every score must equal scikit-learn's on the dense 0/1 matrices, including a
    # label never present, one never predicted and a row with no label at all
    from sklearn import metrics as skm

    rng = np.random.default_rng(3)
    Y_true = (rng.random((60, 9)) < 0.25).astype(np.uint8)
    Y_pred = (rng.random((60, 9)) < 0.25).astype(np.uint8)
    Y_true[:, 2] = 0
    Y_pred[:, 5] = 0
    Y_true[7] = Y_pred[7] = 0
    assert M.hamming_loss(Y_true, Y_pred) == skm.hamming_loss(Y_true, Y_pred)
    assert M.subset_accuracy(Y_true, Y_pred) == skm.accuracy_score(Y_true, Y_pred)
    assert M.micro_f1(Y_true, Y_pred) == skm.f1_score(Y_true, Y_pred, average="micro")
    expected = skm.precision_recall_fscore_support(
        Y_true, Y_pred, average=None, zero_division=zero_division
    )
    table = M.per_label_scores(Y_true, Y_pred, zero_division=zero_division)
    for column, values in zip(["precision", "recall", "f1"], expected[:3], strict=False):
        np.testing.assert_array_equal(table[column].to_numpy(), values)
    np.testing.assert_array_equal(
        M.per_label_f1(Y_true, Y_pred, zero_division=zero_division), expected[2]
    )
    macro = skm.f1_score(Y_true, Y_pred, average="macro", zero_division=zero_division)
    assert M.macro_f1(Y_true, Y_pred, zero_division=zero_division) == pytest.approx(
        macro, nan_ok=True
    )


def test_evaluator_only_returns_the_asked_metrics_equal_to_the_full_evaluation():
    rng = np.random.default_rng(4)
    Y_true = (rng.random((80, 12)) < 0.3).astype(np.uint8)
    Y_true[3] = 0  # a row without a relevant label (excluded by the ranking metrics)
    Y_score = rng.random((80, 12))
    Y_score[5, :4] = 0.5  # ties
    Y_pred = (Y_score > 0.6).astype(np.uint8)
    evaluator = M.Evaluator(Y_true)
    full = evaluator.score(Y_pred, Y_score)
    five = ("hamming_loss", "one_error", "coverage", "ranking_loss", "average_precision")
    subset = M.Evaluator(Y_true).score(Y_pred, Y_score, only=five)
    assert list(subset) == list(five)
    assert subset == {name: full[name] for name in five}
    # the single-metric functions are the reference
    assert subset["ranking_loss"] == pytest.approx(M.ranking_loss(Y_true, Y_score), rel=1e-12)
    assert subset["coverage"] == pytest.approx(M.coverage(Y_true, Y_score), rel=1e-12)
    with pytest.raises(ValueError, match="unknown metric"):
        evaluator.score(Y_pred, Y_score, only=("hamming", "coverage"))
    with pytest.raises(ValueError, match="need scores"):
        evaluator.score(Y_pred, only=("coverage",))


@pytest.mark.parametrize("n_columns", [1, 2, 3, 7, 8, 9, 64, 983])
def test_the_row_wise_binary_search_is_searchsorted_in_each_row(n_columns):
    # _count_below serves every ranking metric: each (row, value) must get exactly
    # np.searchsorted(row, value) ("left"), ties, values outside the row and -inf/inf included
    rng = np.random.default_rng(n_columns)
    ordered = np.sort(np.round(rng.normal(size=(30, n_columns)), 1), axis=1)
    rows = np.sort(rng.integers(0, 30, 400))
    values = np.concatenate(
        [
            ordered[rows[:200], rng.integers(0, n_columns, 200)],  # values in the row: ties
            np.round(rng.normal(size=196) * 3, 1),
            [-np.inf, np.inf, -1e300, 1e300],
        ]
    )
    expected = [np.searchsorted(ordered[r], v) for r, v in zip(rows, values, strict=True)]
    np.testing.assert_array_equal(M._count_below(ordered, rows, values), expected)
