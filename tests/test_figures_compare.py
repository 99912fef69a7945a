"""Compare page figures: metric bars, a metric against a parameter, per-label F1."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

from mlviz.evaluation import aggregate
from mlviz.figures.compare import (
    metric_bars,
    metric_title,
    metric_vs_param_figure,
    per_label_f1_figure,
)


def _results() -> pd.DataFrame:
    """Tidy per-fold results (the cross_validate layout) for two methods and two metrics."""
    rows = []
    values = {
        ("BR", "hamming_loss"): [0.20, 0.22, 0.21],
        ("BR", "micro_f1"): [0.60, 0.64, 0.62],
        ("PLST", "hamming_loss"): [0.19, 0.23, 0.20],
        ("PLST", "micro_f1"): [0.61, 0.59, 0.66],
    }
    for (method, metric), folds in values.items():
        rows += [dict(method=method, fold=f, metric=metric, value=v) for f, v in enumerate(folds)]
    return pd.DataFrame(rows)


def test_metric_title_has_direction():
    assert metric_title("hamming_loss") == "Hamming loss ↓"
    assert metric_title("micro_f1") == "Micro F1 ↑"
    assert metric_title("my_metric") == "my_metric"


def test_metric_bars_one_panel_per_metric_with_sd():
    summary = aggregate(_results())
    fig = metric_bars(summary)
    titles = [a.text for a in fig.layout.annotations]
    assert titles == ["Hamming loss ↓", "Micro F1 ↑"]
    assert len(fig.data) == 4
    for trace in fig.data:
        method = trace.x[0]
        panel_metric = "hamming_loss" if trace.xaxis == "x" else "micro_f1"
        results = _results()
        folds = results.loc[
            (results["method"] == method) & (results["metric"] == panel_metric), "value"
        ]
        assert trace.y[0] == pytest.approx(folds.mean())
        assert trace.error_y.array[0] == pytest.approx(np.std(folds, ddof=1))
    assert [t.showlegend for t in fig.data] == [True, True, False, False]
    assert fig.data[0].marker.color == fig.data[2].marker.color  # BR same colour in each panel


def test_metric_bars_without_sd_and_errors():
    summary = pd.DataFrame({"method": ["A"], "metric": ["accuracy"], "mean": [0.5]})
    fig = metric_bars(summary)
    assert fig.data[0].error_y.visible is False
    with pytest.raises(ValueError, match="lacks column"):
        metric_bars(summary.drop(columns="mean"))
    with pytest.raises(ValueError, match="one summary row"):
        metric_bars(pd.concat([summary, summary]))


def _sweep() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for method in ("GroPLE", "PLST"):
        for d in (20, 5, 10):
            for fold in range(4):
                rows.append(
                    dict(
                        method=method,
                        d=d,
                        fold=fold,
                        metric="accuracy",
                        value=0.5 + d / 100 + rng.normal(0, 0.01),
                    )
                )
                rows.append(dict(method=method, d=d, fold=fold, metric="micro_f1", value=0.3))
    return pd.DataFrame(rows)


def test_metric_vs_param_aggregates_raw_folds():
    raw = _sweep()
    fig = metric_vs_param_figure(raw, "d", "accuracy")
    assert [t.name for t in fig.data] == ["GroPLE", "PLST"]
    for trace in fig.data:
        assert list(trace.x) == [5, 10, 20]
        part = raw.query("method == @trace.name and metric == 'accuracy'")
        expected = part.groupby("d")["value"].agg(["mean", lambda v: v.std(ddof=1)])
        np.testing.assert_allclose(trace.y, expected.iloc[:, 0])
        np.testing.assert_allclose(trace.error_y.array, expected.iloc[:, 1])


def test_metric_vs_param_accepts_a_summary():
    summary = pd.DataFrame(
        {
            "method": ["A", "A"],
            "d": [10, 2],
            "metric": ["accuracy"] * 2,
            "mean": [0.7, 0.6],
            "sd": [0.01, 0.02],
        }
    )
    fig = metric_vs_param_figure(summary, "d", "accuracy")
    assert list(fig.data[0].x) == [2, 10]
    np.testing.assert_array_equal(fig.data[0].y, [0.6, 0.7])
    np.testing.assert_array_equal(fig.data[0].error_y.array, [0.02, 0.01])
    with pytest.raises(ValueError, match="no rows for metric 'coverage'"):
        metric_vs_param_figure(summary, "d", "coverage")
    with pytest.raises(ValueError, match="lacks column"):
        metric_vs_param_figure(summary, "lambda2", "accuracy")


def test_per_label_f1_points_match_sklearn():
    rng = np.random.default_rng(4)
    Y_true = (rng.random((80, 5)) < [0.5, 0.3, 0.1, 0.05, 0.0]).astype(int)
    Y_a = (rng.random((80, 5)) < 0.3).astype(int)
    Y_b = Y_true.copy()
    f1_a = f1_score(Y_true, Y_a, average=None, zero_division=0)
    f1_b = f1_score(Y_true, Y_b, average=None, zero_division=0)
    f1_b[1] = np.nan  # undefined F1 is left out
    freq = Y_true.mean(axis=0)  # label 4 never occurs: not on a log axis
    names = ["v", "w", "x", "y", "z"]
    fig = per_label_f1_figure(freq, {"A": f1_a, "B": f1_b}, names, tail_threshold=0.1)
    a, b, threshold = fig.data
    np.testing.assert_array_equal(a.x, freq[:4])
    np.testing.assert_array_equal(a.y, f1_a[:4])
    assert list(a.text) == names[:4]
    assert list(b.text) == ["v", "x", "y"]
    np.testing.assert_array_equal(b.y, f1_b[[0, 2, 3]])
    assert fig.layout.xaxis.type == "log"
    assert "1 labels absent" in fig.layout.title.text
    assert list(threshold.x) == [0.1, 0.1] and threshold.line.dash == "dot"
    fig.to_json()  # serialisable for st.plotly_chart


def test_per_label_f1_errors():
    with pytest.raises(ValueError, match="empty"):
        per_label_f1_figure(np.ones(2), {}, ["a", "b"])
    with pytest.raises(ValueError, match="3 F1 values"):
        per_label_f1_figure(np.ones(2), {"A": np.ones(3)}, ["a", "b"])
    with pytest.raises(ValueError, match="label names"):
        per_label_f1_figure(np.ones(2), {"A": np.ones(2)}, ["a"])
