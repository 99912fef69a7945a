"""Parameter sweeps: the numbers behind the PLST and GroPLE curves."""

from __future__ import annotations

import numpy as np
import pytest

from mlviz.linear import PLST, BinaryRelevance
from mlviz.metrics import evaluate, hamming_loss
from mlviz.sweeps import ideal_decoding, parameter_sweep


def _data(seed=0, n=300, d=8, k=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    W = rng.normal(size=(d, k))
    Y = (X @ W + rng.normal(scale=0.5, size=(n, k)) > 0.3).astype(np.uint8)
    return X[:200], Y[:200], X[200:], Y[200:]


def test_sweep_matches_fitting_each_value_by_hand():
    X_tr, Y_tr, X_te, Y_te = _data()
    df = parameter_sweep(
        {"PLST": lambda m: PLST(n_components=m)}, [1, 3, 6], X_tr, Y_tr, X_te, Y_te, ideal=True
    )
    for m in (1, 3, 6):
        model = PLST(n_components=m).fit(X_tr, Y_tr)
        learned = df.query("M == @m and kind == 'learned' and metric == 'hamming_loss'")
        assert learned["value"].item() == hamming_loss(Y_te, model.predict(X_te))
        ideal = df.query("M == @m and kind == 'ideal' and metric == 'hamming_loss'")
        assert ideal["value"].item() == hamming_loss(Y_te, ideal_decoding(model, Y_te))
    # with M = L the code is lossless: the ideal learner makes no mistake
    full = df.query("M == 6 and kind == 'ideal' and metric == 'hamming_loss'")
    assert full["value"].item() == 0.0


def test_ideal_loss_never_exceeds_learned_at_full_rank_and_skips_none():
    X_tr, Y_tr, X_te, Y_te = _data(1)
    calls = []
    df = parameter_sweep(
        {
            "PLST": lambda m: PLST(n_components=m),
            "BR": lambda m: BinaryRelevance() if m == 6 else None,
        },
        [2, 6],
        X_tr,
        Y_tr,
        X_te,
        Y_te,
        ideal=True,
        progress=lambda done, total, msg: calls.append((done, total)),
    )
    assert set(df.query("method == 'BR'")["M"]) == {6}
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


class _CountingPLST(PLST):
    fits = 0

    def fit(self, X, Y):
        type(self).fits += 1
        return super().fit(X, Y)


def test_sweep_over_m_fits_a_truncatable_method_once_and_matches_refitting():
    X_tr, Y_tr, X_te, Y_te = _data(2)
    _CountingPLST.fits = 0
    df = parameter_sweep(
        {"PLST": lambda m: _CountingPLST(n_components=m)},
        [1, 2, 4, 6],
        X_tr,
        Y_tr,
        X_te,
        Y_te,
        ideal=True,
    )
    assert _CountingPLST.fits == 1
    for m in (1, 2, 4, 6):
        model = PLST(n_components=m).fit(X_tr, Y_tr)
        expected = evaluate(Y_te, model.predict(X_te), Y_score=model.decision_function(X_te))
        learned = df.query("M == @m and kind == 'learned'").set_index("metric")["value"]
        for metric, value in expected.items():
            assert learned[metric] == pytest.approx(value, abs=1e-8), metric
        ideal = df.query("M == @m and kind == 'ideal' and metric == 'hamming_loss'")
        assert ideal["value"].item() == hamming_loss(Y_te, ideal_decoding(model, Y_te))


def test_sweep_refits_when_the_estimators_differ_in_more_than_m():
    X_tr, Y_tr, X_te, Y_te = _data(3)
    _CountingPLST.fits = 0
    factories = {"mixed": lambda m: _CountingPLST(n_components=m, center=(m != 2))}
    parameter_sweep(factories, [1, 2, 3], X_tr, Y_tr, X_te, Y_te)
    assert _CountingPLST.fits == 3


def test_sweep_without_ranking_metrics_has_only_the_bipartition_ones():
    X_tr, Y_tr, X_te, Y_te = _data(4)
    with_ranking = parameter_sweep(
        {"PLST": lambda m: PLST(n_components=m)}, [2], X_tr, Y_tr, X_te, Y_te
    )
    without = parameter_sweep(
        {"PLST": lambda m: PLST(n_components=m)}, [2], X_tr, Y_tr, X_te, Y_te, ranking=False
    )
    assert "macro_auc" in set(with_ranking["metric"])
    assert "macro_auc" not in set(without["metric"])
    shared = with_ranking.merge(without, on=["method", "M", "kind", "metric"])
    assert len(shared) == len(without)
    np.testing.assert_array_equal(shared["value_x"], shared["value_y"])


def test_sweep_takes_the_default_m_equals_k():
    # n_components=None (M = L) is known only at fit: no truncation parent, each value fitted
    X_tr, Y_tr, X_te, Y_te = _data()
    df = parameter_sweep(
        {"PLST": lambda m: PLST(n_components=m)}, [2, None], X_tr, Y_tr, X_te, Y_te
    )
    losses = df.loc[df["metric"] == "hamming_loss", "value"].tolist()  # in the order of values
    expected = [
        hamming_loss(Y_te, PLST(n_components=m).fit(X_tr, Y_tr).predict(X_te)) for m in (2, None)
    ]
    assert losses == expected
    assert PLST().fit(X_tr, Y_tr).n_components_ == Y_tr.shape[1]
