"""Tests of mlviz.evaluation: folds, tidy results, summaries, ranks, Friedman/Nemenyi, CD figure.

The estimators here are scikit-learn stand-ins so that these tests do not depend on the
mlviz models.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
import scipy.sparse as sp
from joblib import parallel_config
from scipy import stats
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import hamming_loss, jaccard_score
from sklearn.model_selection import KFold, ShuffleSplit
from sklearn.multioutput import MultiOutputClassifier

from mlviz._compat import InvalidParameterError
from mlviz.base import MultiLabelEstimator
from mlviz.evaluation import (
    EvaluationError,
    aggregate,
    cross_validate,
    friedman_nemenyi,
    nemenyi_critical_difference,
    nemenyi_groups,
    nemenyi_q_alpha,
    per_label_comparison,
    rank_table,
    repeated_splits,
    summarize,
)
from mlviz.figures.evaluation import cd_diagram


class RidgeBR(MultiLabelEstimator):
    """Stand-in: one multi-output ridge regression, rounded at 1/2."""

    def __init__(self, alpha: float = 1.0, fail_on_fit: int | None = None):
        self.alpha = alpha
        self.fail_on_fit = fail_on_fit

    def fit(self, X, Y):
        X, Y = self._validate_fit(X, Y)
        if self.fail_on_fit is not None and X.shape[0] == self.fail_on_fit:
            raise FloatingPointError("deliberate failure for the test")
        self.regressor_ = Ridge(alpha=self.alpha).fit(X, Y)
        return self

    def decision_function(self, X):
        return np.asarray(self.regressor_.predict(self._validate_predict(X)), dtype=np.float64)

    def predict(self, X):
        return (self.decision_function(X) >= 0.5).astype(np.uint8)


class HardOnly(RidgeBR):
    """A model without scores: ranking metrics must come out NaN, not crash."""

    decision_function = property()  # hasattr() is False

    def predict(self, X):
        return (self.regressor_.predict(self._validate_predict(X)) >= 0.5).astype(np.uint8)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 8))
    W = rng.normal(size=(8, 5))
    Y = (X @ W + 0.5 * rng.normal(size=(120, 5)) > 0).astype(np.uint8)
    return X, Y


def test_repeated_splits_sizes_and_reproducibility(data):
    X, Y = data
    splitter = repeated_splits(n_repeats=4, test_size=0.25, random_state=3)
    splits = list(splitter.split(X, Y))
    again = list(repeated_splits(n_repeats=4, test_size=0.25, random_state=3).split(X, Y))
    assert len(splits) == 4
    for (train, test), (_, test2) in zip(splits, again, strict=True):
        assert len(test) == 30 and len(train) == 90
        assert not set(train) & set(test)
        np.testing.assert_array_equal(test, test2)
    assert not np.array_equal(splits[0][1], splits[1][1])


def test_cross_validate_matches_a_hand_written_loop(data):
    X, Y = data
    df = cross_validate({"ridge": RidgeBR(alpha=2.0)}, X, Y, cv=4, random_state=7).results
    assert list(df.columns) == ["method", "fold", "metric", "value", "fit_time", "predict_time"]
    folds = KFold(n_splits=4, shuffle=True, random_state=7).split(X)
    for fold, (train, test) in enumerate(folds):
        model = Ridge(alpha=2.0).fit(X[train], Y[train])
        pred = (model.predict(X[test]) >= 0.5).astype(int)
        rows = df[df["fold"] == fold].set_index("metric")["value"]
        assert rows["hamming_loss"] == pytest.approx(hamming_loss(Y[test], pred))
        # example-based Jaccard "accuracy", with an empty-vs-empty example counting as 1
        assert rows["accuracy"] == pytest.approx(
            jaccard_score(Y[test], pred, average="samples", zero_division=1.0)
        )
        assert {"one_error", "coverage", "ranking_loss", "macro_auc"} <= set(rows.index)
    assert (df["fit_time"] >= 0).all() and (df["predict_time"] >= 0).all()


def test_mlknn_folds_search_the_test_neighbours_once_and_score_as_before(data, monkeypatch):
    import mlviz.mlknn
    from mlviz.metrics import evaluate
    from mlviz.mlknn import MLkNN

    X, Y = data
    folds = list(KFold(n_splits=3, shuffle=True, random_state=2).split(X))
    expected, expected_pred = [], np.full(Y.shape, -1)
    for fold, (train, test) in enumerate(folds):
        model = MLkNN(k=4).fit(X[train], Y[train])
        expected_pred[test] = model.predict(X[test])
        scores = evaluate(
            Y[test],
            model.predict(X[test]),
            Y_score=model.decision_function(X[test]),
            Y_train=Y[train],
        )
        expected += [(fold, metric, value) for metric, value in scores.items()]
    searches = []
    k_nearest = mlviz.mlknn._k_nearest
    monkeypatch.setattr(
        mlviz.mlknn,
        "_k_nearest",
        lambda X_query, *a, **kw: searches.append(len(X_query)) or k_nearest(X_query, *a, **kw),
    )
    result = cross_validate(
        {"ML-KNN": MLkNN(k=4)},
        X,
        Y,
        cv=KFold(3, shuffle=True, random_state=2),
        return_predictions=True,
    )
    # per fold one search for the training neighbours (fit) and one for the test instances
    assert sorted(searches) == sorted([len(train) for train, _ in folds] + [40, 40, 40])
    table = result.results
    assert list(zip(table["fold"], table["metric"], table["value"], strict=True)) == sorted(
        expected, key=lambda row: (row[0], list(scores).index(row[1]))
    )
    np.testing.assert_array_equal(result.predictions["ML-KNN"].Y_pred, expected_pred)


def test_same_folds_for_every_method_and_metric_selection(data):
    X, Y = data
    estimators = {"strong": RidgeBR(alpha=0.1), "weak": RidgeBR(alpha=1e6)}
    df = cross_validate(
        estimators, X, Y, cv=3, metrics=["hamming_loss", "coverage"], random_state=0
    ).results
    assert list(dict.fromkeys(df["method"])) == ["strong", "weak"]
    assert set(df["metric"]) == {"hamming_loss", "coverage"}
    assert len(df) == 2 * 3 * 2
    wide = df.pivot_table(index="fold", columns="method", values="value", aggfunc="first")
    assert wide.shape == (3, 2)
    means = df[df.metric == "hamming_loss"].groupby("method")["value"].mean()
    assert means["strong"] < means["weak"]  # a nearly-constant model must lose


def test_splitter_object_and_sparse_input(data):
    X, Y = data
    splitter = ShuffleSplit(n_splits=3, test_size=0.5, random_state=1)
    dense = cross_validate({"r": RidgeBR()}, X, Y, cv=splitter, metrics=["hamming_loss"]).results
    sparse = cross_validate(
        {"r": RidgeBR()}, sp.csr_matrix(X), Y, cv=splitter, metrics=["hamming_loss"]
    ).results
    np.testing.assert_allclose(dense["value"], sparse["value"])
    assert sorted(dense["fold"]) == [0, 1, 2]


def test_predict_proba_list_feeds_ranking_metrics(data):
    X, Y = data
    model = MultiOutputClassifier(LogisticRegression())
    df = cross_validate(
        {"logreg": model}, X, Y, cv=3, metrics=["macro_auc", "hamming_loss"], random_state=0
    ).results
    auc = df[df.metric == "macro_auc"]["value"]
    assert auc.notna().all() and (auc > 0.7).all()


def test_model_without_scores_gives_nan_ranking_metrics(data):
    X, Y = data
    df = cross_validate(
        {"hard": HardOnly()}, X, Y, cv=3, metrics=["hamming_loss", "coverage"], random_state=0
    ).results
    assert df[df.metric == "coverage"]["value"].isna().all()
    assert df[df.metric == "hamming_loss"]["value"].notna().all()


def test_failure_names_method_and_fold(data):
    X, Y = data
    # 120 rows, 4 folds of 30 -> every training set has 90 rows: fails in the first fold run.
    with pytest.raises(EvaluationError, match=r"'broken' failed in fold \d during fit") as info:
        cross_validate(
            {"ok": RidgeBR(), "broken": RidgeBR(fail_on_fit=90)}, X, Y, cv=4, random_state=0
        )
    assert isinstance(info.value.__cause__, FloatingPointError)
    assert "FloatingPointError: deliberate failure" in str(info.value)


def test_progress_callback_counts_every_result(data):
    X, Y = data
    calls = []
    cross_validate(
        {"a": RidgeBR(), "b": RidgeBR(alpha=3.0)},
        X,
        Y,
        cv=3,
        metrics=["hamming_loss"],
        progress=lambda done, total, msg: calls.append((done, total, msg)),
        random_state=0,
    )
    assert [c[0] for c in calls] == list(range(7))
    assert {c[1] for c in calls} == {6}
    assert any("fold" in msg for _, _, msg in calls[1:])


def test_parallel_and_non_streaming_backend_give_the_same_numbers(data):
    X, Y = data
    estimators = {"a": RidgeBR(), "b": RidgeBR(alpha=5.0)}
    serial = cross_validate(
        estimators, X, Y, cv=3, metrics=["hamming_loss", "coverage"], random_state=0
    ).results
    parallel = cross_validate(
        estimators, X, Y, cv=3, metrics=["hamming_loss", "coverage"], n_jobs=2, random_state=0
    ).results
    pd.testing.assert_frame_equal(
        serial.drop(columns=["fit_time", "predict_time"]),
        parallel.drop(columns=["fit_time", "predict_time"]),
    )
    # multiprocessing (like Ray's backend) cannot stream results; the fallback must still work
    done = []
    with parallel_config(backend="multiprocessing", n_jobs=2):
        streamed_off = cross_validate(
            estimators,
            X,
            Y,
            cv=3,
            metrics=["hamming_loss", "coverage"],
            progress=lambda d, t, m: done.append(d),
            random_state=0,
        ).results
    pd.testing.assert_frame_equal(
        serial.drop(columns=["fit_time", "predict_time"]),
        streamed_off.drop(columns=["fit_time", "predict_time"]),
    )
    assert done[-1] == 6


def test_input_errors(data):
    X, Y = data
    with pytest.raises(ValueError, match="non-empty dict"):
        cross_validate({}, X, Y, random_state=0)
    with pytest.raises(ValueError, match="unknown metric"):
        cross_validate({"r": RidgeBR()}, X, Y, metrics=["hamming"], random_state=0)
    with pytest.raises(ValueError, match="different numbers of rows"):
        cross_validate({"r": RidgeBR()}, X, Y[:-1], random_state=0)


_IN_1_INF = "must be an int in the range [1, inf)"


@pytest.mark.parametrize(
    "function, arguments, message",
    [
        (repeated_splits, {"n_repeats": 0}, f"'n_repeats' parameter of {{}} {_IN_1_INF}. Got 0"),
        (repeated_splits, {"test_size": 1.5}, "'test_size' parameter of {} must be a float in"),
        (repeated_splits, {"test_size": 1.5}, "the range (0.0, 1.0). Got 1.5 instead"),
        (cross_validate, {"cv": 1}, "'cv' parameter of {} must be an int in the range [2, inf)"),
        (
            cross_validate,
            {"cv": "five"},
            "or an object implementing 'split' and 'get_n_splits'. Got 'five'",
        ),
        (cross_validate, {"tail_threshold": 0}, "'tail_threshold' parameter of {} must be a"),
        (
            cross_validate,
            {"tail_threshold": 0},
            "float in the range (0.0, 1.0], a str among",  # {'adaptive'}: braces would format
        ),
        (cross_validate, {"on_error": "ignore"}, "'on_error' parameter of {} must be a str among"),
        (cross_validate, {"return_predictions": "scores"}, "or a str among {{'labels'}}"),
        (cross_validate, {"zero_division": 0.5}, "'zero_division' parameter of {} must be"),
        (cross_validate, {"estimators": [RidgeBR()]}, "'estimators' parameter of {} must be an"),
        (per_label_comparison, {"tail_threshold": 2.0}, "'tail_threshold' parameter of {} must"),
        (summarize, {"spread": "iqr"}, "'spread' parameter of {} must be a str among"),
        (summarize, {"decimals": -1}, "'decimals' parameter of {} must be an int in the range [0"),
        (rank_table, {"decimals": 1.5}, "'decimals' parameter of {} must be an int"),
        (nemenyi_q_alpha, {"n_methods": 1}, "'n_methods' parameter of {} must be an int in the"),
        (nemenyi_q_alpha, {"alpha": 1.0}, "'alpha' parameter of {} must be a float in the range"),
        (
            nemenyi_critical_difference,
            {"n_datasets": 0},
            f"'n_datasets' parameter of {{}} {_IN_1_INF}",
        ),
        (nemenyi_groups, {"cd": -1.0}, "'cd' parameter of {} must be a float in the range [0.0"),
        (friedman_nemenyi, {"tie_correction": "yes"}, "'tie_correction' parameter of {} must be"),
    ],
)
def test_bad_parameter_is_named_with_its_valid_range(data, function, arguments, message):
    X, Y = data
    tidy = _tidy({("d1", "a"): [0.5], ("d1", "b"): [0.6], ("d2", "a"): [0.4], ("d2", "b"): [0.7]})
    call = {
        repeated_splits: lambda **kw: repeated_splits(**kw),
        cross_validate: lambda **kw: (
            cross_validate(kw.pop("estimators", {"r": RidgeBR()}), X, Y, **kw).results
        ),
        per_label_comparison: lambda **kw: per_label_comparison({}, Y, **kw),
        summarize: lambda **kw: summarize(tidy, **kw),
        rank_table: lambda **kw: rank_table(tidy, **kw),
        nemenyi_q_alpha: lambda **kw: nemenyi_q_alpha(kw.pop("n_methods", 3), **kw),
        nemenyi_critical_difference: lambda **kw: nemenyi_critical_difference(3, **kw),
        nemenyi_groups: lambda **kw: nemenyi_groups({"a": 1.0, "b": 2.0}, **kw),
        friedman_nemenyi: lambda **kw: friedman_nemenyi(tidy, **kw),
    }[function]
    with pytest.raises(InvalidParameterError) as raised:
        call(**arguments)
    assert isinstance(raised.value, ValueError)  # callers catching ValueError still do
    assert message.format(function.__name__) in str(raised.value)


def _tidy(values: dict[tuple[str, str], list[float]], metric: str = "accuracy") -> pd.DataFrame:
    rows = [
        {"dataset": d, "method": m, "fold": f, "metric": metric, "value": v}
        for (d, m), vs in values.items()
        for f, v in enumerate(vs)
    ]
    return pd.DataFrame(rows)


def test_aggregate_and_summarize_by_hand():
    df = _tidy({("d", "A"): [0.1, 0.2, 0.3, 0.6], ("d", "B"): [0.5, 0.5, 0.5, 0.5]})
    agg = aggregate(df).set_index("method")
    sd = math.sqrt(((0.1 - 0.3) ** 2 + 0.1**2 + 0 + 0.3**2) / 3)
    assert agg.loc["A", "mean"] == pytest.approx(0.3)
    assert agg.loc["A", "sd"] == pytest.approx(sd)
    assert agg.loc["A", "se"] == pytest.approx(sd / 2)
    assert agg.loc["B", "sd"] == 0
    table = summarize(df, spread="se", decimals=3)
    assert table.loc[("d", "A"), "accuracy"] == f"0.300 ± {sd / 2:.3f}"
    assert summarize(df.drop(columns="dataset")).loc["B", "accuracy"] == "0.5000 ± 0.0000"
    # coverage counts labels: three decimals by default (as paper 003), commas in thousands
    counts = df.assign(metric="coverage", value=df["value"] * 10_000)
    assert summarize(counts).loc[("d", "B"), "coverage"] == "5,000.000 ± 0.000"
    assert summarize(counts, decimals=1).loc[("d", "B"), "coverage"] == "5,000.0 ± 0.0"
    with pytest.raises(ValueError, match="spread"):
        summarize(df, spread="iqr")


def test_rank_table_ties_and_direction():
    df = pd.concat(
        [
            _tidy({("d1", "A"): [0.9], ("d1", "B"): [0.8], ("d1", "C"): [0.8]}),
            _tidy({("d2", "A"): [0.7], ("d2", "B"): [0.9], ("d2", "C"): [0.8]}),
            _tidy({("d1", "A"): [0.1], ("d1", "B"): [0.3], ("d1", "C"): [0.2]}, "hamming_loss"),
            _tidy({("d2", "A"): [0.2], ("d2", "B"): [0.2], ("d2", "C"): [0.2]}, "hamming_loss"),
        ]
    )
    ranks = rank_table(df)
    assert ranks.loc[("accuracy", "d1")].tolist() == [1.0, 2.5, 2.5]
    assert ranks.loc[("accuracy", "d2")].tolist() == [3.0, 1.0, 2.0]
    assert ranks.loc[("hamming_loss", "d1")].tolist() == [1.0, 3.0, 2.0]  # lower is better
    assert ranks.loc[("hamming_loss", "d2")].tolist() == [2.0, 2.0, 2.0]
    # the paper ranks printed (rounded) values: 0.8004 and 0.7996 tie at 3 decimals
    close = _tidy({("d", "A"): [0.8004], ("d", "B"): [0.7996], ("d", "C"): [0.5]})
    assert rank_table(close).iloc[0].tolist() == [1.0, 2.0, 3.0]
    assert rank_table(close, decimals=3).iloc[0].tolist() == [1.5, 1.5, 3.0]
    with pytest.raises(ValueError, match="dataset"):
        rank_table(df.drop(columns="dataset"))


def test_q_alpha_matches_demsar_table():
    # Demšar (2006), Table 5(a), two-tailed Nemenyi test at alpha = 0.05, k = 2..10
    expected = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    for k, q in zip(range(2, 11), expected, strict=True):
        assert nemenyi_q_alpha(k, 0.05) == pytest.approx(q, abs=1e-3)  # table truncates
    # alpha = 0.10 row of the same table: k = 2, 5, 10
    for k, q in [(2, 1.645), (5, 2.459), (10, 2.920)]:
        assert nemenyi_q_alpha(k, 0.10) == pytest.approx(q, abs=1e-3)


# GroPLE paper (001) Table 2, accuracy ranks of GroPLE, LLSF, PLST, CPLST, FAiE, LEML, MLSF,
# BSVM on the 11 data sets used for its Table 3 (bookmarks excluded).
GROPLE_TABLE2_ACCURACY_RANKS = [
    [3, 5, 7, 5, 8, 5, 2, 1],
    [2.5, 5.5, 5.5, 4, 2.5, 8, 1, 7],
    [2, 5.5, 3.5, 3.5, 1, 5.5, 8, 7],
    [1, 2, 6.5, 6.5, 3, 8, 4, 5],
    [1, 3, 7, 6, 5, 8, 2, 4],
    [1, 4, 6.5, 6.5, 5, 8, 2, 3],
    [2, 5, 6.5, 6.5, 4, 8, 1, 3],
    [2, 1, 8, 6, 5, 7, 3.5, 3.5],
    [2, 1, 5.5, 5.5, 3, 4, 7.5, 7.5],
    [1, 2, 6.5, 6.5, 3, 8, 5, 4],
    [1, 5, 3.5, 3.5, 2, 6, 8, 7],
]
GROPLE_METHODS = ["GroPLE", "LLSF", "PLST", "CPLST", "FAiE", "LEML", "MLSF", "BSVM"]


def test_friedman_nemenyi_reproduces_grople_table3():
    ranks = pd.DataFrame(GROPLE_TABLE2_ACCURACY_RANKS, columns=GROPLE_METHODS)
    # ranks are "lower is better" scores; ranking them again must give them back
    result = friedman_nemenyi(ranks, greater_is_better=False, tie_correction=False)
    np.testing.assert_allclose(result.ranks.to_numpy(), ranks.to_numpy())
    assert result.iman_davenport == pytest.approx(7.758, abs=2e-3)  # Table 3, accuracy
    assert result.f_critical == pytest.approx(2.143, abs=1e-3)  # Table 3 critical value
    assert result.q_alpha == pytest.approx(3.031, abs=1e-3)
    assert result.critical_difference == pytest.approx(3.1658, abs=1e-3)  # §4.3 text
    assert result.average_ranks.index[0] == "GroPLE"
    assert result.rejected
    # with tie correction the statistic is scipy's
    corrected = friedman_nemenyi(ranks, greater_is_better=False)
    assert corrected.statistic == pytest.approx(
        stats.friedmanchisquare(*ranks.to_numpy().T).statistic
    )
    assert corrected.statistic > result.statistic


def test_friedman_chi2_by_hand_without_ties():
    # 3 data sets, 3 methods, same order everywhere: chi2 = 12N/(k(k+1)) * (sum R^2 - k(k+1)^2/4)
    scores = pd.DataFrame({"A": [0.9, 0.8, 0.7], "B": [0.5, 0.4, 0.3], "C": [0.1, 0.2, 0.0]})
    result = friedman_nemenyi(scores)
    assert result.statistic == pytest.approx(12 * 3 / 12 * (1 + 4 + 9 - 3 * 16 / 4))
    assert result.average_ranks.to_dict() == {"A": 1.0, "B": 2.0, "C": 3.0}
    assert math.isinf(result.iman_davenport)
    assert result.critical_difference == pytest.approx(nemenyi_critical_difference(3, 3))


def test_friedman_from_tidy_results_and_errors():
    rng = np.random.default_rng(1)
    values = {
        (f"d{i}", m): list(rng.random(3) + off)
        for i in range(5)
        for m, off in [("A", 0.5), ("B", 0.2), ("C", 0.0)]
    }
    df = _tidy(values)
    result = friedman_nemenyi(df, metric="accuracy")
    assert list(result.average_ranks.index) == ["A", "B", "C"]
    assert result.n_datasets == 5 and result.n_methods == 3
    with pytest.raises(ValueError, match="at least 3 methods"):
        friedman_nemenyi(df[df.method != "C"])
    with pytest.raises(ValueError, match="not in the results"):
        friedman_nemenyi(df, metric="f1")


def test_nemenyi_groups():
    ranks = {"A": 1.0, "B": 1.8, "C": 2.3, "D": 4.0}
    assert nemenyi_groups(ranks, 1.6) == [["A", "B", "C"]]
    assert nemenyi_groups(ranks, 1.0) == [["A", "B"], ["B", "C"]]
    assert nemenyi_groups(ranks, 0.1) == []


def test_cd_diagram_figure():
    ranks = pd.DataFrame(GROPLE_TABLE2_ACCURACY_RANKS, columns=GROPLE_METHODS)
    result = friedman_nemenyi(ranks, greater_is_better=False, tie_correction=False)
    fig = cd_diagram(result.average_ranks, result.critical_difference, title="Accuracy")
    assert isinstance(fig, go.Figure)
    labels = [a.text for a in fig.layout.annotations]
    for method, rank in result.average_ranks.items():
        assert any(text.startswith(method) and f"{rank:.2f}" in text for text in labels)
    assert any("CD" in text for text in labels)
    # one thick bar per group of not-significantly-different methods
    bars = [t for t in fig.data if t.name == "not significantly different"]
    assert len(bars) == len(result.groups)
    with pytest.raises(ValueError, match="at least 2"):
        cd_diagram({"A": 1.0}, 1.0)


def test_zero_division_reaches_macro_f1(data):
    from mlviz.metrics import macro_f1

    X, Y = data
    Y = Y.copy()
    Y[:, 4] = 0
    Y[:3, 4] = 1  # a rare label: most test folds neither contain nor predict it
    per_fold = {
        zd: cross_validate(
            {"ridge": RidgeBR()}, X, Y, cv=4, metrics=["macro_f1"], zero_division=zd, random_state=0
        )
        .results["value"]
        .to_numpy()
        for zd in (0.0, 1.0)
    }
    for fold, (train, test) in enumerate(KFold(4, shuffle=True, random_state=0).split(X)):
        pred = RidgeBR().fit(X[train], Y[train]).predict(X[test])
        for zd, values in per_fold.items():
            assert values[fold] == pytest.approx(macro_f1(Y[test], pred, zero_division=zd))
    assert (per_fold[0.0] <= per_fold[1.0]).all() and (per_fold[0.0] < per_fold[1.0]).any()


# ----------------------------------------------------------- tail metrics, OOF, failures


def test_tail_metrics_use_each_folds_training_labels(data):
    from mlviz.metrics import TAIL_KEYS, tail_head_scores

    X, Y = data
    Y = Y.copy()
    Y[:, 4] = 0
    Y[:9, 4] = 1  # a rare label: 9 of 120
    df = cross_validate(
        {"ridge": RidgeBR()}, X, Y, cv=4, tail_threshold=0.1, random_state=0
    ).results
    assert set(TAIL_KEYS) <= set(df["metric"])
    for fold, (train, test) in enumerate(KFold(4, shuffle=True, random_state=0).split(X)):
        pred = RidgeBR().fit(X[train], Y[train]).predict(X[test])
        expected = tail_head_scores(Y[test], pred, 0.1, Y_train=Y[train])
        got = df[df["fold"] == fold].set_index("metric")["value"]
        for key, value in expected.items():
            np.testing.assert_equal(got[key], value)  # NaN == NaN when the test fold lacks it
    with pytest.raises(ValueError, match="need tail_threshold"):
        cross_validate({"ridge": RidgeBR()}, X, Y, metrics=["tail_macro_f1"], random_state=0)


def test_default_zero_division_is_zero(data):
    X, Y = data
    default = cross_validate(
        {"ridge": RidgeBR()}, X, Y, cv=3, metrics=["macro_f1"], random_state=0
    ).results
    explicit = cross_validate(
        {"ridge": RidgeBR()}, X, Y, cv=3, metrics=["macro_f1"], zero_division=0, random_state=0
    ).results
    pd.testing.assert_frame_equal(
        default.drop(columns=["fit_time", "predict_time"]),
        explicit.drop(columns=["fit_time", "predict_time"]),
    )


def test_out_of_fold_predictions_equal_a_manual_fold_loop(data):
    from mlviz.evaluation import CrossValidationResult

    X, Y = data
    estimators = {"ridge": RidgeBR(alpha=2.0), "hard": HardOnly(alpha=0.5)}
    result = cross_validate(estimators, X, Y, cv=4, random_state=5, return_predictions=True)
    assert isinstance(result, CrossValidationResult)
    assert result.failures.empty and list(result.failures.columns) == [
        "method",
        "fold",
        "stage",
        "error",
    ]
    expected_pred = {name: np.full(Y.shape, -1) for name in estimators}
    expected_score = np.full(Y.shape, np.nan)
    for train, test in KFold(4, shuffle=True, random_state=5).split(X):
        for name, est in estimators.items():
            model = type(est)(alpha=est.alpha).fit(X[train], Y[train])
            expected_pred[name][test] = model.predict(X[test])
            if name == "ridge":
                expected_score[test] = model.decision_function(X[test])
    for name in estimators:
        np.testing.assert_array_equal(result.predictions[name].Y_pred, expected_pred[name])
    np.testing.assert_allclose(result.predictions["ridge"].Y_score, expected_score)
    assert result.predictions["hard"].Y_score is None  # no scores, no made-up ones
    # the score table is the same as without predictions
    plain = cross_validate(estimators, X, Y, cv=4, random_state=5).results
    pd.testing.assert_frame_equal(
        plain.drop(columns=["fit_time", "predict_time"]),
        result.results.drop(columns=["fit_time", "predict_time"]),
    )
    with pytest.raises(ValueError, match="exactly one test fold"):
        cross_validate(estimators, X, Y, cv=ShuffleSplit(3, test_size=0.2), return_predictions=True)
    # labels only: the same hard predictions, no scores kept
    labels_only = cross_validate(
        estimators, X, Y, cv=4, random_state=5, return_predictions="labels"
    )
    for name in estimators:
        np.testing.assert_array_equal(labels_only.predictions[name].Y_pred, expected_pred[name])
        assert labels_only.predictions[name].Y_score is None


def test_collected_failures_per_method_and_fold_keep_the_other_methods():
    from mlviz.evaluation import CrossValidationResult
    from mlviz.linear import BinaryRelevance
    from mlviz.mlknn import MLkNN

    rng = np.random.default_rng(1)
    X = rng.normal(size=(10, 4))
    Y = (rng.random((10, 3)) < 0.5).astype(int)
    Y[0] = 1  # every label present somewhere
    estimators = {"ML-KNN": MLkNN(k=10), "BR": BinaryRelevance()}
    with pytest.raises(EvaluationError, match="'ML-KNN' failed in fold"):
        cross_validate(estimators, X, Y, cv=5, random_state=0)  # the default still raises
    result = cross_validate(
        estimators, X, Y, cv=5, on_error="collect", return_predictions=True, random_state=0
    )
    assert isinstance(result, CrossValidationResult)  # not a table that hides the failures
    failures = result.failures
    assert list(failures["method"]) == ["ML-KNN"] * 5
    assert list(failures["fold"]) == [0, 1, 2, 3, 4]
    assert set(failures["stage"]) == {"fit"}
    assert failures["error"].str.contains("k=10").all()
    assert result.failed_methods == ["ML-KNN"]
    assert set(result.results["method"]) == {"BR"}
    assert sorted(result.results["fold"].unique()) == [0, 1, 2, 3, 4]
    assert list(result.predictions) == ["BR"]  # no out-of-fold predictions for a failed method
    serial = cross_validate({"BR": BinaryRelevance()}, X, Y, cv=5, random_state=0).results
    pd.testing.assert_frame_equal(
        serial.drop(columns=["fit_time", "predict_time"]),
        result.results.drop(columns=["fit_time", "predict_time"]),
    )
    with pytest.raises(ValueError, match="on_error"):
        cross_validate(estimators, X, Y, on_error="ignore", random_state=0)


@pytest.mark.parametrize(
    "flags",
    [{}, {"return_predictions": True}, {"return_predictions": "labels"}, {"on_error": "collect"}],
    ids=repr,
)
def test_one_result_type_whatever_the_flags(data, flags):
    from mlviz.evaluation import CrossValidationResult

    X, Y = data
    result = cross_validate({"ridge": RidgeBR()}, X, Y, cv=3, random_state=0, **flags)
    assert type(result) is CrossValidationResult
    assert list(result.failures.columns) == ["method", "fold", "stage", "error"]
    assert result.failures.empty and result.failed_methods == []
    assert sorted(result.results["fold"].unique()) == [0, 1, 2]
    assert list(result.predictions) == (["ridge"] if "return_predictions" in flags else [])
    # the same table whatever the flags
    plain = cross_validate({"ridge": RidgeBR()}, X, Y, cv=3, random_state=0)
    pd.testing.assert_frame_equal(
        plain.results.drop(columns=["fit_time", "predict_time"]),
        result.results.drop(columns=["fit_time", "predict_time"]),
    )


# ------------------------------------------------------------ top-k measures, unscored methods
class _HardOnly:
    """A multi-label classifier with predict only: no scores to rank the labels by."""

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self

    def fit(self, X, Y):
        self.prior_ = (np.asarray(Y).mean(axis=0) >= 0.5).astype(int)
        return self

    def predict(self, X):
        return np.tile(self.prior_, (X.shape[0], 1))


def test_cross_validate_adds_top_k_measures_and_names_methods_without_scores():
    from mlviz import PLST
    from mlviz.metrics import AT_K_METRICS, psprecision_at_k
    from mlviz.synthetic import make_planted

    ds, _ = make_planted(n_samples=120, random_state=0)
    result = cross_validate(
        {"PLST": PLST(n_components=4), "hard": _HardOnly()},
        ds.X,
        ds.Y,
        cv=3,
        random_state=0,
        return_predictions=True,
    )
    table = result.results
    for name in AT_K_METRICS:
        plst = table[(table["method"] == "PLST") & (table["metric"] == name)]["value"]
        hard = table[(table["method"] == "hard") & (table["metric"] == name)]["value"]
        assert len(plst) == 3 and plst.notna().all(), name
        assert len(hard) == 3 and hard.isna().all(), name  # present, NaN: not left out
    assert list(result.unscored) == ["hard"]
    assert "neither decision_function nor predict_proba" in result.unscored["hard"]
    assert "PSP@1" in result.unscored["hard"]
    # each fold's PSP uses the propensities of that fold's training labels
    train, test = next(iter(KFold(3, shuffle=True, random_state=0).split(ds.X)))
    model = PLST(n_components=4).fit(ds.X[train], ds.Y[train])
    expected = psprecision_at_k(
        ds.Y[test], model.decision_function(ds.X[test]), k=1, Y_train=ds.Y[train]
    )
    got = table[(table["method"] == "PLST") & (table["metric"] == "psprecision_at_1")]
    assert got[got["fold"] == 0]["value"].item() == pytest.approx(expected)


def test_the_adaptive_tail_rule_in_cross_validation_uses_each_folds_training_labels():
    from mlviz import PLST
    from mlviz.evaluation import OutOfFoldPredictions
    from mlviz.metrics import tail_head_scores
    from mlviz.stats import tail_labels
    from mlviz.synthetic import make_planted

    ds, _ = make_planted(n_samples=150, random_state=0)
    result = cross_validate(
        {"PLST": PLST(n_components=4)},
        ds.X,
        ds.Y,
        cv=3,
        random_state=0,
        tail_threshold="adaptive",
        metrics=["tail_macro_f1", "tail_recall"],
    )
    train, test = next(iter(KFold(3, shuffle=True, random_state=0).split(ds.X)))
    model = PLST(n_components=4).fit(ds.X[train], ds.Y[train])
    expected = tail_head_scores(
        ds.Y[test], model.predict(ds.X[test]), "adaptive", Y_train=ds.Y[train]
    )
    fold = result.results[result.results["fold"] == 0].set_index("metric")["value"]
    assert fold["tail_macro_f1"] == pytest.approx(expected["tail_macro_f1"], nan_ok=True)
    assert fold["tail_recall"] == pytest.approx(expected["tail_recall"], nan_ok=True)
    # and the adaptive tail is the stats rule on the fold's training labels
    assert len(tail_labels(ds.Y[train])) < ds.Y.shape[1] / 2
    table = per_label_comparison(
        {"PLST": OutOfFoldPredictions(np.zeros_like(ds.Y), None)}, ds.Y, tail_threshold="adaptive"
    )
    assert table["tail"].sum() == len(tail_labels(ds.Y))
    with pytest.raises(InvalidParameterError):
        cross_validate({"PLST": PLST(4)}, ds.X, ds.Y, cv=3, tail_threshold="median")


def test_an_int_cv_gives_the_same_folds_on_every_call_by_default():
    """Issue 31: ``cv=3`` drew new folds per call (BR accuracy 0.470, then 0.509); like
    scikit-learn's ``cv=int`` it is now the same on every call, and None still draws anew."""
    from mlviz import PLST, BinaryRelevance, cross_validate
    from mlviz.evaluation import grid_search_cv, repeated_splits
    from mlviz.synthetic import make_planted

    ds, _ = make_planted(n_samples=90, random_state=1)
    runs = [
        cross_validate({"BR": BinaryRelevance()}, ds.X, ds.Y, cv=3, metrics=["accuracy"])
        for _ in range(2)
    ]
    pd.testing.assert_series_equal(runs[0].results["value"], runs[1].results["value"])
    fresh = [
        cross_validate(
            {"BR": BinaryRelevance()}, ds.X, ds.Y, cv=3, metrics=["accuracy"], random_state=None
        ).results["value"]
        for _ in range(4)
    ]
    assert any(not f.equals(fresh[0]) for f in fresh[1:]), "None must still draw new folds"
    searches = [
        grid_search_cv(PLST(), {"n_components": [2, 4]}, ds.X, ds.Y, cv=3) for _ in range(2)
    ]
    pd.testing.assert_frame_equal(searches[0].table, searches[1].table)
    first, second = (list(repeated_splits(3).split(ds.X)) for _ in range(2))
    assert all((a[1] == b[1]).all() for a, b in zip(first, second, strict=True))


def test_clustering_stability_gives_the_same_numbers_on_every_call_by_default():
    from mlviz.label_clustering import clustering_stability
    from mlviz.synthetic import make_planted

    ds, _ = make_planted(n_samples=120, random_state=0)
    a = clustering_stability(ds.Y, [2, 3], n_resamples=3)
    b = clustering_stability(ds.Y, [2, 3], n_resamples=3)
    pd.testing.assert_frame_equal(a, b)


def test_holdout_predictions_are_a_plain_fit_and_report_failures():
    from sklearn.base import BaseEstimator

    from mlviz.evaluation import holdout_predictions
    from mlviz.mlknn import MLkNN
    from mlviz.synthetic import make_planted

    class Broken(BaseEstimator):
        def fit(self, X, Y):
            raise ValueError("cannot fit this")

    ds, _ = make_planted(n_samples=120, random_state=0)
    X_train, Y_train, X_test = ds.X[:80], ds.Y[:80], ds.X[80:]
    predictions, failures = holdout_predictions(
        {"ML-KNN": MLkNN(k=5), "broken": Broken()}, X_train, Y_train, X_test
    )
    direct = MLkNN(k=5).fit(X_train, Y_train)
    np.testing.assert_array_equal(predictions["ML-KNN"].Y_pred, direct.predict(X_test))
    np.testing.assert_allclose(predictions["ML-KNN"].Y_score, direct.decision_function(X_test))
    assert list(predictions) == ["ML-KNN"]
    assert failures == {"broken": "during fit: ValueError: cannot fit this"}
