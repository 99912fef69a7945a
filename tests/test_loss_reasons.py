"""Why each label is lost (mlviz.per_label.loss_reasons) and the per-label threshold
meta-estimator (mlviz.thresholds), on data where each cause is planted."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score

from mlviz.clems import CLEMS
from mlviz.evaluation import cross_validate
from mlviz.linear import PLST, BinaryRelevance
from mlviz.per_label import LOSS_REASONS, loss_reasons, reason_counts, unrepresented_share
from mlviz.thresholds import PerLabelThreshold, best_f1_thresholds


def test_each_rule_on_planted_scores():
    rng = np.random.default_rng(0)
    n = 1000
    Y = np.zeros((n, 6), dtype=int)
    Y[:300, 0] = 1  # kept: predicted right
    Y[:50, 1] = 1  # ranked but not predicted: scores separate it, never above ½
    Y[:50, 2] = 1  # not learnable: random scores
    Y[:50, 3] = 1  # not represented: planted through `unrepresented`
    Y[:50, 4] = 1  # weakly ranked: AUC ~0.7
    # label 5 never occurs: no positive
    scores = rng.normal(size=Y.shape) * 0.1
    scores[:, 0] += Y[:, 0]
    scores[:, 1] = 0.3 * Y[:, 1] + rng.normal(size=n) * 0.02  # all below ½
    scores[:, 3] = 0.3 * Y[:, 3] + rng.normal(size=n) * 0.02  # well ranked, yet unrepresented
    scores[:, 4] = 0.05 * Y[:, 4] + rng.normal(size=n) * 0.1  # AUC = Φ(0.05/0.141) ≈ 0.64
    Y_pred = (scores >= 0.5).astype(int)
    unrepresented = np.array([0.0, 0.0, 0.0, 0.9, 0.0, 0.0])
    table = loss_reasons(Y, Y_pred, Y_score=scores, unrepresented=unrepresented)
    assert table["reason"].tolist() == [
        "kept",
        "ranked but not predicted",
        "not learnable",
        "not represented",
        "weakly ranked",
        "no positive",
    ]
    assert 0.6 < table.loc[4, "auc"] < 0.8
    assert table.loc[1, "best_f1"] > 0.9 and table.loc[1, "f1"] == 0.0
    # the thresholds are parameters: a stricter chance bound makes label 4 not learnable
    strict = loss_reasons(Y, Y_pred, Y_score=scores, auc_chance=0.7)
    assert strict.loc[4, "reason"] == "not learnable"
    # without scores only representation and "kept" can be told apart
    unscored = loss_reasons(Y, Y_pred, unrepresented=unrepresented)
    assert unscored["reason"].tolist() == [
        "kept",
        "no scores",
        "no scores",
        "not represented",
        "no scores",
        "no positive",
    ]
    counts = reason_counts(table, labels=[1, 2, 3, 4])
    assert counts == {
        "not represented": 1,
        "not learnable": 1,
        "ranked but not predicted": 1,
        "weakly ranked": 1,
    }
    assert list(counts) == [r for r in LOSS_REASONS if r in counts]
    with pytest.raises(ValueError, match="auc_chance < auc_ranked"):
        loss_reasons(Y, Y_pred, Y_score=scores, auc_chance=0.9, auc_ranked=0.8)


def _planted(seed=0, n=900):
    """Features x0..x2; label 0 frequent and learnt, label 1 rare with an attenuated signal
    (ranked well, fitted scores far below ½), label 2 rare and independent of X, label 3
    rare, learnable, independent of the other labels."""
    rng = np.random.default_rng(seed)
    Y = np.zeros((n, 4), dtype=int)
    Y[:, 0] = rng.random(n) < 0.5
    Y[:, 1] = rng.random(n) < 0.06
    Y[:, 2] = rng.random(n) < 0.06
    Y[:, 3] = rng.random(n) < 0.06
    X = np.column_stack(
        [
            Y[:, 0] + rng.normal(size=n) * 0.3,
            Y[:, 1] + rng.normal(size=n) * 0.35,
            rng.normal(size=n),
            Y[:, 3] * 3.0 + rng.normal(size=n) * 0.3,
        ]
    )
    return X, Y


def test_causes_planted_in_data_are_found_from_out_of_fold_predictions():
    X, Y = _planted()
    result = cross_validate(
        {"BR": BinaryRelevance(), "PLST": PLST(n_components=1)},
        X,
        Y,
        cv=3,
        random_state=0,
        return_predictions=True,
    )
    br = result.predictions["BR"]
    table = loss_reasons(Y, br.Y_pred, Y_score=br.Y_score)
    assert table["reason"].tolist()[:3] == ["kept", "ranked but not predicted", "not learnable"]
    # PLST at M = 1 keeps the frequent label's direction: the rare label 3 is unrepresented
    plst = PLST(n_components=1).fit(X, Y)
    share = unrepresented_share(plst, Y)
    assert share[0] < 0.2 and share[3] > 0.9
    oof = result.predictions["PLST"]
    table = loss_reasons(Y, oof.Y_pred, Y_score=oof.Y_score, unrepresented=share)
    assert table.loc[3, "reason"] == "not represented"
    # BR (the identity basis) represents every label; ML-KNN has no label space to measure
    np.testing.assert_array_equal(unrepresented_share(BinaryRelevance().fit(X, Y), Y), 0.0)
    from mlviz.mlknn import MLkNN

    assert unrepresented_share(MLkNN(k=5).fit(X, Y), Y) is None


def test_clems_unrepresented_is_no_candidate():
    X, Y = _planted()
    model = CLEMS(n_components=2, random_state=0).fit(X[:200], Y[:200])
    share = unrepresented_share(model, Y[:200])
    in_candidates = model.candidates_.sum(axis=0) > 0
    np.testing.assert_array_equal(share, (~in_candidates).astype(float))


def test_best_f1_thresholds_by_brute_force():
    rng = np.random.default_rng(1)
    Y = (rng.random((60, 5)) < 0.2).astype(int)
    Y[:, 4] = 0  # no positive: never predicted
    scores = np.round(rng.normal(size=Y.shape) + Y, 1)  # ties
    thresholds, best = best_f1_thresholds(Y, scores)
    for label in range(4):
        candidates = np.unique(scores[:, label])
        f1s = [f1_score(Y[:, label], scores[:, label] >= t, zero_division=0) for t in candidates]
        assert best[label] == pytest.approx(max(f1s))
        chosen = f1_score(Y[:, label], scores[:, label] >= thresholds[label], zero_division=0)
        assert chosen == pytest.approx(max(f1s))
    assert thresholds[4] == np.inf and best[4] == 0.0


def test_per_label_threshold_fixes_the_ranked_but_not_predicted_label():
    X, Y = _planted(seed=1, n=1200)
    train, test = np.arange(800), np.arange(800, 1200)
    base = BinaryRelevance().fit(X[train], Y[train])
    tuned = PerLabelThreshold(BinaryRelevance(), cv=3, random_state=0).fit(X[train], Y[train])
    before = f1_score(Y[test], base.predict(X[test]), average=None, zero_division=0)
    after = f1_score(Y[test], tuned.predict(X[test]), average=None, zero_division=0)
    # the planted cause: BR's ½ fires for 4 of 400 test rows; tuned on inner folds, F1 0.25
    # -> 0.87 on rows neither saw
    assert before[1] < 0.3 and after[1] > before[1] + 0.4
    assert after[0] > 0.8  # the frequent label stays found
    # the decision is the margin to each label's threshold
    np.testing.assert_allclose(
        tuned.decision_function(X[test]),
        tuned.estimator_.decision_function(X[test]) - tuned.thresholds_,
    )
    assert tuned.thresholds_.shape == (4,) and np.all(tuned.inner_f1_ <= 1.0)
    with pytest.raises(ValueError, match="cv"):
        PerLabelThreshold(BinaryRelevance(), cv=1).fit(X, Y)


@pytest.mark.parametrize("max_candidates", [None, 3, 8])
def test_the_cheap_representation_shares_equal_the_fitted_models(max_candidates):
    from mlviz.per_label import clems_unrepresented_share, plst_unrepresented_share

    X, Y = _planted()
    Y = Y[:150]
    X = X[:150]
    Y[0, 2] = 1  # a label set seen once
    model = CLEMS(n_components=2, max_candidates=max_candidates, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(
        clems_unrepresented_share(Y, max_candidates), unrepresented_share(model, Y)
    )
    for M in (1, 2, 4):
        np.testing.assert_allclose(
            plst_unrepresented_share(Y, M),
            unrepresented_share(PLST(n_components=M).fit(X, Y), Y),
            atol=1e-12,
        )


def test_loss_reasons_f1_and_auc_equal_per_label_scores():
    from mlviz.metrics import per_label_scores

    rng = np.random.default_rng(5)
    Y = (rng.random((200, 7)) < 0.2).astype(int)
    Y[:, 6] = 0
    scores = np.round(rng.normal(size=Y.shape) + Y, 1)
    Y_pred = (scores > 0.6).astype(int)
    table = loss_reasons(Y, Y_pred, Y_score=scores)
    reference = per_label_scores(Y, Y_pred, Y_score=scores, zero_division=0)
    np.testing.assert_allclose(table["f1"], reference["f1"])
    np.testing.assert_allclose(table["auc"], reference["auc"])
    np.testing.assert_array_equal(table["support"], reference["support"])


def test_per_label_threshold_passes_scikit_learns_estimator_checks():
    from estimator_checks import assert_passes_estimator_checks

    assert_passes_estimator_checks(PerLabelThreshold(BinaryRelevance(), cv=2, random_state=0))


def test_too_rare_to_judge_comes_before_not_learnable():
    rng = np.random.default_rng(2)
    n = 1000
    Y = np.zeros((n, 3), dtype=int)
    Y[:5, 0] = 1  # 5 positives, random scores: too rare to call unlearnable
    Y[:30, 1] = 1  # 30 positives, random scores: not learnable
    Y[:5, 2] = 1  # 5 positives, perfectly ranked, never predicted: still diagnosable
    scores = rng.normal(size=Y.shape) * 0.1
    scores[:, 2] = 0.3 * Y[:, 2]
    table = loss_reasons(Y, np.zeros_like(Y), Y_score=scores)
    assert table["reason"].tolist() == [
        "too rare to judge",
        "not learnable",
        "ranked but not predicted",
    ]
    assert loss_reasons(Y, np.zeros_like(Y), Y_score=scores, min_support=5).loc[0, "reason"] in (
        "not learnable",
        "weakly ranked",
    )
