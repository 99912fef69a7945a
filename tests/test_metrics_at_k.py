"""P@k, nDCG@k and the propensity-scored PSP@k / PSnDCG@k (Jain, Prabhu & Varma, KDD 2016).

Three kinds of check: cases worked by hand; agreement with napkinXC's measures (an independent
implementation, in the ``test`` extra); and a second formulation written here (a plain loop
over instances, scikit-learn's ``ndcg_score``) for what napkinXC does not cover: ties.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import ndcg_score

from mlviz import metrics as M

# two instances, three labels; rankings a > c > b and a > b > c
T = np.array([[1, 0, 1], [0, 1, 0]])
S = np.array([[0.9, 0.2, 0.4], [0.8, 0.6, 0.1]])
Q = np.array([1.0, 2.0, 4.0])  # inverse propensities, the rare label c weighs most


def test_by_hand():
    # P@1: row 1 top a (relevant), row 2 top a (not): 1/2. P@2: (2/2 + 1/2) / 2
    assert M.precision_at_k(T, S, k=1) == 0.5
    assert M.precision_at_k(T, S, k=2) == 0.75
    # P@5 > L: the top "5" is all 3 labels, divided by 5: (2/5 + 1/5) / 2
    assert M.precision_at_k(T, S, k=5) == pytest.approx(0.3)
    # nDCG@2: row 1 a, c at ranks 1, 2 -> 1; row 2 b at rank 2 -> (1/log2 3) / 1
    assert M.ndcg_at_k(T, S, k=2) == pytest.approx((1 + 1 / math.log2(3)) / 2)
    # PSP@1: found q_a = 1 in row 1, nothing in row 2; best: q_c = 4 and q_b = 2 -> 1/6
    assert M.psprecision_at_k(T, S, k=1, inverse_propensities=Q) == pytest.approx(1 / 6)
    # PSP@2: found (1 + 4) / 2 and 2 / 2; best (4 + 1) / 2 and 2 / 2 -> (2.5 + 1) / (2.5 + 1)
    assert M.psprecision_at_k(T, S, k=2, inverse_propensities=Q) == pytest.approx(1.0)
    # PSnDCG@2: row 1 (1 + 4/log2 3) / IDCG(2) against best (4 + 1/log2 3) / IDCG(2);
    # row 2 (2/log2 3) / 1 against 2 / 1
    idcg2 = 1 + 1 / math.log2(3)
    found = (1 + 4 / math.log2(3)) / idcg2 + 2 / math.log2(3)
    best = (4 + 1 / math.log2(3)) / idcg2 + 2
    assert M.psndcg_at_k(T, S, k=2, inverse_propensities=Q) == pytest.approx(found / best)


def test_inverse_propensity_by_hand():
    Y = np.zeros((100, 3), dtype=int)
    Y[:50, 0] = 1
    Y[:2, 1] = 1  # label 2 never occurs
    C = (math.log(100) - 1) * 2.5**0.55
    expected = [1 + C * 51.5**-0.55, 1 + C * 3.5**-0.55, 1 + C * 1.5**-0.55]
    np.testing.assert_allclose(M.inverse_propensity(Y), expected, rtol=1e-12)
    assert np.all(np.diff(M.inverse_propensity(Y)) > 0)  # rarer -> heavier
    with pytest.raises(ValueError, match="A > 0"):
        M.inverse_propensity(Y, A=0)


def test_perfect_and_reversed_rankings():
    rng = np.random.default_rng(0)
    Y = (rng.random((40, 9)) < 0.3).astype(int)
    perfect = Y + rng.random(Y.shape) * 0.1  # every relevant label above every other
    for k in (1, 3, 5):
        assert M.ndcg_at_k(Y, perfect, k=k) == pytest.approx(1.0)
        assert M.psprecision_at_k(Y, perfect, k=k) <= 1.0 + 1e-12
        assert M.psndcg_at_k(Y, perfect, k=k) <= 1.0 + 1e-12
        # P@k of a perfect ranking: min(k, |y|) / k
        expected = np.mean(np.minimum(k, Y.sum(axis=1)) / k)
        assert M.precision_at_k(Y, perfect, k=k) == pytest.approx(expected)
    # relevant labels ordered by decreasing weight: the best achievable, PS measures are 1
    q = M.inverse_propensity(Y)
    best_order = np.where(Y == 1, 10.0 + q, rng.random(Y.shape))  # equal q may tie: same gain
    for k in (1, 3, 5):
        assert M.psprecision_at_k(Y, best_order, k=k) == pytest.approx(1.0)
        assert M.psndcg_at_k(Y, best_order, k=k) == pytest.approx(1.0)
    reversed_ = -perfect
    assert M.precision_at_k(Y, reversed_, k=1) == 0.0  # no row has every label relevant


def test_propensity_scoring_rewards_the_rare_labels():
    # two rankings equally right by P@1: one finds the frequent label, the other the rare one
    Y = np.zeros((20, 2), dtype=int)
    Y[:, 0] = 1
    Y[:2, 1] = 1
    frequent_first = np.tile([1.0, 0.0], (20, 1))
    rare_first = frequent_first.copy()
    rare_first[:2] = [0.0, 1.0]
    assert M.precision_at_k(Y, frequent_first, k=1) == M.precision_at_k(Y, rare_first, k=1)
    assert M.psprecision_at_k(Y, rare_first, k=1) > M.psprecision_at_k(Y, frequent_first, k=1)


def test_empty_truth_conventions():
    Y = np.array([[0, 0, 0], [1, 0, 0]])
    scores = np.array([[3.0, 2.0, 1.0], [3.0, 2.0, 1.0]])
    assert M.precision_at_k(Y, scores, k=1) == 0.5  # the empty row counts, as 0
    assert M.ndcg_at_k(Y, scores, k=1) == 1.0  # the empty row is excluded (0 / 0)
    nothing = np.zeros((2, 3), dtype=int)
    assert M.precision_at_k(nothing, scores, k=1) == 0.0
    for function in (M.ndcg_at_k, M.psprecision_at_k, M.psndcg_at_k):
        assert math.isnan(function(nothing, scores, k=1))
    with pytest.raises(ValueError, match="positive integer"):
        M.precision_at_k(Y, scores, k=0)
    with pytest.raises(ValueError, match="one per label"):
        M.psprecision_at_k(Y, scores, k=1, inverse_propensities=[1.0, 2.0])


# ------------------------------------------------------------------ ties: a second formulation
def _loop(Y, scores, k, q):
    """P@k, nDCG@k, PSP@k and PSnDCG@k by averaging over every tie-break order (brute force).

    Each row's ties are broken by every permutation of the tied labels (small L only), so the
    expectation is exact; written as plain loops over instances and permutations."""
    from itertools import permutations

    p_sum = ndcg_sum = psp_num = psp_den = psn_num = psn_den = 0.0
    n_ndcg = 0
    n_rows, n_labels = Y.shape
    for i in range(n_rows):
        relevant = set(np.flatnonzero(Y[i]).tolist())
        orders = []
        for perm in permutations(range(n_labels)):
            # keep the permutations consistent with the scores (descending, any order in ties)
            s = scores[i, list(perm)]
            if np.all(np.diff(s) <= 0):
                orders.append(perm)
        p = dcg = psp = psdcg = 0.0
        for order in orders:
            top = order[:k]
            p += sum(label in relevant for label in top) / k
            dcg += sum(1 / math.log2(r + 2) for r, label in enumerate(top) if label in relevant)
            psp += sum(q[label] for label in top if label in relevant) / k
            psdcg += sum(
                q[label] / math.log2(r + 2) for r, label in enumerate(top) if label in relevant
            )
        p, dcg, psp, psdcg = (v / len(orders) for v in (p, dcg, psp, psdcg))
        best_q = sorted((q[label] for label in relevant), reverse=True)[:k]
        p_sum += p
        psp_num += psp
        psp_den += sum(best_q) / k
        if relevant:
            idcg = sum(1 / math.log2(r + 2) for r in range(min(k, len(relevant))))
            ndcg_sum += dcg / idcg
            n_ndcg += 1
            psn_num += psdcg / idcg
            psn_den += sum(v / math.log2(r + 2) for r, v in enumerate(best_q)) / idcg
    return {
        "precision": p_sum / n_rows,
        "ndcg": ndcg_sum / n_ndcg,
        "psprecision": psp_num / psp_den,
        "psndcg": psn_num / psn_den,
    }


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_ties_are_broken_in_expectation(seed, k):
    rng = np.random.default_rng(seed)
    Y = (rng.random((12, 5)) < 0.4).astype(int)
    Y[0] = [1, 0, 0, 0, 0]
    scores = rng.integers(0, 3, size=Y.shape).astype(float)  # many ties
    scores[1] = 1.0  # one row tied throughout
    q = M.inverse_propensity(Y)
    expected = _loop(Y, scores, k, q)
    assert M.precision_at_k(Y, scores, k=k) == pytest.approx(expected["precision"])
    assert M.ndcg_at_k(Y, scores, k=k) == pytest.approx(expected["ndcg"])
    assert M.psprecision_at_k(Y, scores, k=k) == pytest.approx(expected["psprecision"])
    assert M.psndcg_at_k(Y, scores, k=k) == pytest.approx(expected["psndcg"])
    # the label order does not matter
    perm = rng.permutation(Y.shape[1])
    assert M.precision_at_k(Y[:, perm], scores[:, perm], k=k) == pytest.approx(
        M.precision_at_k(Y, scores, k=k)
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_ndcg_equals_scikit_learn_without_ties(seed):
    # scikit-learn's ndcg_score (its ties are averaged too) on rows with a relevant label
    rng = np.random.default_rng(seed)
    Y = (rng.random((80, 12)) < 0.25).astype(int)
    Y = Y[Y.sum(axis=1) > 0]
    scores = rng.normal(size=Y.shape)
    for k in (1, 3, 5):
        assert M.ndcg_at_k(Y, scores, k=k) == pytest.approx(ndcg_score(Y, scores, k=k))
    tied = np.round(scores)  # scikit-learn's ndcg_score also averages over tied orders
    for k in (1, 3, 5):
        assert M.ndcg_at_k(Y, tied, k=k) == pytest.approx(ndcg_score(Y, tied, k=k))


# ------------------------------------------------------------------ napkinXC
napkinxc_metrics = pytest.importorskip(
    "napkinxc.metrics", reason="napkinXC (the test extra) is not installed"
)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equal_to_napkinxc(seed):
    rng = np.random.default_rng(seed)
    n_labels = 30
    Y_train = (rng.random((300, n_labels)) < np.geomspace(0.005, 0.5, n_labels)).astype(int)
    Y = (rng.random((120, n_labels)) < np.geomspace(0.005, 0.5, n_labels)).astype(int)
    Y[Y.sum(axis=1) == 0, -1] = 1  # napkinXC counts empty rows as 0 in nDCG; we exclude them
    scores = rng.normal(size=Y.shape) + 1.5 * Y  # continuous: no ties
    q = napkinxc_metrics.Jain_et_al_inverse_propensity(Y_train)
    np.testing.assert_allclose(M.inverse_propensity(Y_train), q, rtol=1e-12)
    top = 5
    p = napkinxc_metrics.precision_at_k(Y, scores, k=top)
    n = napkinxc_metrics.ndcg_at_k(Y, scores, k=top)
    psp = napkinxc_metrics.psprecision_at_k(Y, scores, q, k=top)
    psn = napkinxc_metrics.psndcg_at_k(Y, scores, q, k=top)
    for k in range(1, top + 1):
        assert M.precision_at_k(Y, scores, k=k) == pytest.approx(p[k - 1], rel=1e-10)
        assert M.ndcg_at_k(Y, scores, k=k) == pytest.approx(n[k - 1], rel=1e-10)
        assert M.psprecision_at_k(Y, scores, k=k, Y_train=Y_train) == pytest.approx(
            psp[k - 1], rel=1e-10
        )
        assert M.psndcg_at_k(Y, scores, k=k, Y_train=Y_train) == pytest.approx(
            psn[k - 1], rel=1e-10
        )


def test_evaluate_adds_the_top_k_measures_with_scores_and_training_propensities():
    rng = np.random.default_rng(4)
    Y_train = (rng.random((200, 8)) < 0.3).astype(int)
    Y = (rng.random((50, 8)) < 0.3).astype(int)
    scores = rng.normal(size=Y.shape) + Y
    got = M.evaluate(Y, (scores > 0.5).astype(int), Y_score=scores, Y_train=Y_train)
    for name, (function, k) in M.AT_K_METRICS.items():
        options = {"Y_train": Y_train} if name.startswith("ps") else {}
        assert got[name] == pytest.approx(function(Y, scores, k=k, **options)), name
        assert M.METRICS[name].needs_scores and M.METRICS[name].greater_is_better
    assert not set(M.AT_K_METRICS) & set(M.evaluate(Y, (scores > 0.5).astype(int)))
