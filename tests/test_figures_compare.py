"""Compare page figures: metrics per method, a metric against a parameter, per-label scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

from mlviz.evaluation import OutOfFoldPredictions, aggregate, per_label_comparison
from mlviz.figures._style import METHOD_COLORS, WIDE_TITLE_CHARS, title_height
from mlviz.figures.compare import (
    metric_bars,
    metric_title,
    metric_vs_param_figure,
    per_label_figure,
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
    titles = [a.text.split("<br>")[0] for a in fig.layout.annotations]
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


def test_hover_texts_show_coverage_as_a_count_and_rates_with_four_decimals():
    summary = pd.DataFrame(
        {
            "method": ["A", "A"],
            "d": [2, 2],
            "metric": ["coverage", "micro_f1"],
            "mean": [859.42, 0.5],
            "sd": [1.5, 0.01],
        }
    )
    bars = metric_bars(summary)
    hovers = {trace.xaxis: trace.hovertemplate for trace in bars.data}
    assert "Coverage ↓: %{y:,.3f} ± 1.500<" in hovers["x"], hovers
    assert "Micro F1 ↑: %{y:,.4f} ± 0.0100<" in hovers["x2"], hovers
    swept = metric_vs_param_figure(summary, "d", "coverage")
    assert "mean %{y:,.3f} ± %{customdata:,.3f}" in swept.data[0].hovertemplate
    # a metric mlviz does not know keeps four decimals
    other = metric_vs_param_figure(summary.assign(metric="mine"), "d", "mine")
    assert "mean %{y:.4f} ± %{customdata:.4f}" in other.data[0].hovertemplate


def test_metric_bars_zoom_where_values_are_close_and_say_so():
    summary = pd.DataFrame(
        {
            "method": ["BR", "PLST", "BR", "PLST"],
            "metric": ["hamming_loss", "hamming_loss", "micro_f1", "micro_f1"],
            "mean": [0.196, 0.204, 0.1, 0.8],
            "sd": [0.002, 0.003, 0.01, 0.01],
        }
    )
    fig = metric_bars(summary)
    close, far = fig.layout.yaxis.range, fig.layout.yaxis2.range
    # 0.196 vs 0.204: the axis spans the values (with a margin), not 0..0.2
    assert 0.15 < close[0] < 0.194 and 0.207 < close[1] < 0.25
    assert far is None or far[0] == 0
    titles = [a.text for a in fig.layout.annotations]
    assert "zoomed axis, not from 0" in titles[0]
    assert "zoomed" not in titles[1]
    assert all(t.type == "scatter" and t.mode == "markers" for t in fig.data)  # dots, not bars


def test_metric_bars_skip_undefined_means():
    summary = pd.DataFrame(
        {
            "method": ["A", "B"],
            "metric": ["tail_macro_f1"] * 2,
            "mean": [np.nan, 0.4],
            "sd": [np.nan, 0.1],
        }
    )
    fig = metric_bars(summary)
    assert [t.name for t in fig.data] == ["B"]


def _comparison():
    rng = np.random.default_rng(4)
    Y = (rng.random((200, 6)) < [0.5, 0.3, 0.1, 0.04, 0.02, 0.01]).astype(int)
    good = OutOfFoldPredictions(Y.copy(), None)
    noisy = OutOfFoldPredictions((rng.random(Y.shape) < 0.3).astype(np.int8), None)
    names = ["u", "v", "w", "x", "y", "z"]
    return Y, per_label_comparison(
        {"BR": good, "PLST": noisy}, Y, label_names=names, tail_threshold=0.05
    )


def test_per_label_comparison_table():
    Y, table = _comparison()
    assert list(table.columns) == [
        "label",
        "frequency",
        "support",
        "tail",
        "F1 BR",
        "F1 PLST",
        "recall BR",
        "recall PLST",
        "best F1",
    ]
    # rarest first; tail = frequency below 5 %
    assert list(table["frequency"]) == sorted(Y.mean(axis=0))
    assert list(table["tail"]) == list(np.sort(Y.mean(axis=0)) < 0.05)
    assert (table["F1 BR"] == 1.0).all()
    assert (table["best F1"] == "BR").all()
    row = table.set_index("label").loc["u"]
    assert row["F1 PLST"] == pytest.approx(
        f1_score(Y[:, 0], _comparison_noisy(Y)[:, 0], zero_division=0)
    )


def _comparison_noisy(Y):
    rng = np.random.default_rng(4)
    rng.random(Y.shape)  # the draw that made Y
    return (rng.random(Y.shape) < 0.3).astype(int)


def test_per_label_comparison_ties_and_errors():
    Y = np.array([[1, 0], [0, 1], [0, 0]])
    same = OutOfFoldPredictions(np.array([[1, 0], [0, 0], [0, 0]]), None)
    table = per_label_comparison({"A": same, "B": same}, Y, label_names=["p", "q"])
    assert list(table["best F1"]) == ["all tied", "all tied"]
    other = OutOfFoldPredictions(np.array([[1, 0], [0, 1], [0, 0]]), None)
    table = per_label_comparison({"A": same, "B": other, "C": other}, Y, label_names=["p", "q"])
    assert table.set_index("label").loc["q", "best F1"] == "B, C"
    with pytest.raises(ValueError, match="return_predictions=True"):
        per_label_comparison({}, Y)
    with pytest.raises(ValueError, match="metrics must be"):
        per_label_comparison({"A": same}, Y, metrics=["accuracy"])


def test_per_label_figure_rows_panels_and_tail():
    Y, table = _comparison()
    fig = per_label_figure(table, ["BR", "PLST"], tail_threshold=0.05)
    frequency, br, plst = fig.data
    assert frequency.type == "bar" and frequency.orientation == "h"
    np.testing.assert_allclose(frequency.x, table["frequency"])
    # rows from the top, rarest first; every label named on the axis
    assert list(fig.layout.yaxis.ticktext) == list(table["label"])
    assert fig.layout.yaxis.range[0] > fig.layout.yaxis.range[1]  # reversed: row 0 on top
    np.testing.assert_allclose(br.x, table["F1 BR"])
    np.testing.assert_allclose(plst.x, table["F1 PLST"])
    assert br.marker.color == METHOD_COLORS["BR"] and plst.marker.color == METHOD_COLORS["PLST"]
    # the tail rows (frequency < 5 %: the three rarest) are shaded in every panel
    shaded = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(shaded) == 3
    assert all(
        s.y0 == -0.5 and s.y1 == pytest.approx(int(table["tail"].sum()) - 0.5) for s in shaded
    )
    assert "all 6 labels" in fig.layout.title.text and "tail labels" in fig.layout.title.text
    fig.to_json()


def test_per_label_figure_caps_labels_and_says_so():
    n = 100
    table = pd.DataFrame(
        {
            "label": [f"l{i}" for i in range(n)],
            "frequency": np.linspace(0.5, 0.001, n),
            "F1 A": np.linspace(1, 0, n),
        }
    )
    table.loc[3, "F1 A"] = np.nan  # undefined: left out
    fig = per_label_figure(table, ["A"], max_labels=10)
    ticks = list(fig.layout.yaxis.ticktext)
    assert len(ticks) == 11 and "… 90 labels not shown …" in ticks
    assert ticks[0] == "l99" and ticks[4] == "l95"  # the 5 rarest on top
    assert set(ticks) >= {"l0", "l4"}  # and the 5 most frequent
    assert "the 5 rarest and 5 most frequent of 100 labels" in fig.layout.title.text
    assert len(fig.data[1].x) == 9  # 10 shown, l3's undefined F1 left out
    with pytest.raises(ValueError, match="no 'F1' scores"):
        per_label_figure(table, ["B"])
    with pytest.raises(ValueError, match="no methods"):
        per_label_figure(table, [])


def test_per_label_figure_title_stands_clear_of_the_panel_titles():
    n = 100
    table = pd.DataFrame(
        {"label": [f"l{i}" for i in range(n)], "frequency": np.linspace(0.5, 0.001, n)}
    ).assign(**{"F1 A": 0.5, "F1 B": 0.5})
    fig = per_label_figure(table, ["A", "B"], tail_threshold=0.05, max_labels=10)
    title = fig.layout.title
    # wrapped at the page's width: the 103-character subtitle (with a bare "<") in two lines
    lines = title.text.split("<br>")
    assert len(lines) == 3 and lines[1].startswith("<sub>") and lines[2].startswith("<sub>")
    assert all(len(line) <= WIDE_TITLE_CHARS + len("<sub></sub>") for line in lines)
    # the title hangs from the top; the panel titles get a band of >= 25 px below its lines
    assert (title.yref, title.y, title.yanchor) == ("container", 1, "top")
    assert fig.layout.margin.t - title_height(title.text) >= 25
    panel_titles = [a for a in fig.layout.annotations if a.text in ("frequency", "A", "B")]
    assert len(panel_titles) == 3 and all(a.yanchor == "bottom" for a in panel_titles)


def test_metric_vs_param_marks_the_current_dimension():
    fig = metric_vs_param_figure(_sweep(), "d", "accuracy", current=10, current_name="M/d")
    assert [s.x0 for s in fig.layout.shapes if s.line.dash == "dash"] == [10]
    assert [a.text for a in fig.layout.annotations] == ["you are here: M/d = 10"]
    unmarked = metric_vs_param_figure(_sweep(), "d", "accuracy")
    assert not unmarked.layout.shapes and not unmarked.layout.annotations
    with pytest.raises(ValueError, match="metric_vs_param_figure: current='ten'"):
        metric_vs_param_figure(_sweep(), "d", "accuracy", current="ten")


def test_metric_bars_legend_stays_under_the_title_on_a_projector():
    """The legend has its own band under the title; at projector fonts the title wraps onto
    two lines and the legend moves down by what it grew (it was drawn over the second line)."""
    from mlviz.figures._style import PROJECTOR_FONT, for_projector

    fig = metric_bars(aggregate(_results()))
    big = for_projector(fig)
    height = big.layout.height
    lines = big.layout.title.text.count("<br>") + 1
    assert lines == 2  # the case that overlapped
    title_bottom = title_height(big.layout.title.text, PROJECTOR_FONT["title"])
    title_bottom += big.layout.title.pad.t - 10
    legend_top = (1 - big.layout.legend.y) * height
    assert legend_top >= title_bottom - 1e-6
    # and the panels start below the legend's row
    assert big.layout.margin.t >= legend_top + 2 * PROJECTOR_FONT["base"]
    # at the default fonts nothing moves
    assert fig.layout.legend.y == pytest.approx(1 - 44 / fig.layout.height)
