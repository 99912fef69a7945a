"""Tail views of the method pages: labels by training frequency, tail shaded and named."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mlviz.figures._style import method_color
from mlviz.figures.tail import (
    MAX_NAMED,
    UPRIGHT_BEYOND,
    clems_tail_figure,
    grople_tail_figure,
    mlknn_tail_figure,
    named_positions,
    plst_tail_figure,
)


def _frame(frequency, tail_threshold=0.1) -> pd.DataFrame:
    frequency = np.asarray(frequency, dtype=float)
    return pd.DataFrame(
        {
            "label": [f"L{k}" for k in range(frequency.size)],
            "train_count": np.round(frequency * 100).astype(int),
            "frequency": frequency,
            "tail": frequency < tail_threshold,
        }
    )


# column order: L0 (5 %, tail), L1 (50 %), L2 (20 %), L3 (1 %, tail); axis: L1 L2 L0 L3
FREQ = [0.05, 0.5, 0.2, 0.01]
AXIS = ["L1", "L2", "L0", "L3"]


def _vrects(fig):
    return [(s.x0, s.x1) for s in fig.layout.shapes if s.type == "rect"]


def test_named_positions_by_hand():
    tail = np.array([False, False, True, True, True, True, True, True])
    priority = np.array([9.0, 9.0, 5, 4, 3, 2, 1, 0])
    # 8 labels, 4 names: names at least 2 positions apart, most important first
    assert named_positions(tail, priority, max_named=4).tolist() == [2, 4, 6]
    assert named_positions(tail, priority, max_named=8).tolist() == list(range(8))
    priority[2] = np.nan  # NaN comes last
    assert named_positions(tail, priority, max_named=4).tolist() == [3, 5, 7]


def test_plst_figure_sorted_by_frequency_with_the_tail_shaded():
    table = _frame(FREQ).assign(
        unrepresented=[0.9, 0.1, 0.3, np.nan],
        encoding_error=[0.04, 0.02, 0.05, 0.0],
        predicted=[0, 5, 2, 0],
        support=[1, 6, 3, 0],
    )
    fig = plst_tail_figure(table, 0.1, n_components=2)
    predicted, never = fig.data
    assert predicted.x.tolist() == [0, 1] and predicted.y.tolist() == [0.1, 0.3]
    assert never.x.tolist() == [2, 3]
    np.testing.assert_array_equal(never.y, [0.9, np.nan])
    assert list(fig.layout.xaxis.ticktext) == AXIS  # few labels: all named
    assert _vrects(fig) == [(1.5, 3.5)]  # L0 and L3
    note = fig.layout.annotations[0].text
    assert "2 tail labels (under 10% of training instances)" in note
    title = fig.layout.title.text
    assert "M = 2" in title and "1 label constant in training (no variance) not drawn" in title
    assert "L3" in never.text[1] and "tail" in never.text[1]
    assert predicted.marker.color == never.marker.color == method_color("PLST")
    fig.to_json()


def test_clems_figure_draws_zero_counts_on_the_bottom_line():
    table = _frame(FREQ).assign(
        true=[2, 40, 10, 1], decoded=[0, 45, 8, 0], candidate_sets=[1, 9, 4, 1]
    )
    fig = clems_tail_figure(table, 0.1)
    truth, decoded = fig.data
    np.testing.assert_allclose(truth.x, np.arange(4) - 0.18)
    np.testing.assert_allclose(decoded.x, np.arange(4) + 0.18)
    assert truth.y.tolist() == [40, 10, 2, 1]
    assert decoded.y.tolist() == [45, 8, 0.5, 0.5]  # 0 drawn at 0.5, ticked "0"
    assert decoded.customdata.tolist() == [45, 8, 0, 0]
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.yaxis.ticktext[0] == "0" and fig.layout.yaxis.tickvals[0] == 0.5
    assert "2 labels present in the test truth never decoded" in fig.layout.title.text
    assert "in 1 of the candidate sets" in decoded.text[3]
    assert decoded.marker.color == method_color("CLEMS") != truth.marker.color


def test_mlknn_figure_leaves_out_recall_without_test_positives():
    table = _frame(FREQ).assign(
        prior=[0.06, 0.5, 0.2, 0.02],
        recall=[0.0, 0.9, 0.5, np.nan],
        support=[2, 30, 8, 0],
        predicted=[0, 28, 5, 0],
    )
    fig = mlknn_tail_figure(table, 0.1)
    prior, recall = fig.data
    assert prior.y.tolist() == [0.5, 0.2, 0.06, 0.02]
    np.testing.assert_allclose(recall.x, np.arange(3) + 0.18)
    assert recall.y.tolist() == [0.9, 0.5, 0.0]
    assert "1 label without a test positive" in fig.layout.title.text
    assert recall.marker.color == method_color("ML-KNN") != prior.marker.color


def test_mlknn_priors_get_their_own_axis_so_tail_priors_do_not_vanish():
    """Priors near 0.006 on the recall's 0..1 axis sat on the zero line (issue 23)."""
    table = _frame(FREQ).assign(
        prior=[0.006, 0.5, 0.2, 0.01],
        recall=[0.0, 0.9, 0.5, 0.2],
        support=[2, 30, 8, 1],
        predicted=[0, 28, 5, 0],
    )
    fig = mlknn_tail_figure(table, 0.1)
    prior, recall = fig.data
    assert prior.yaxis == "y2" and recall.yaxis == "y"
    assert fig.layout.yaxis2.type == "log"  # 0.006 .. 0.5 spans two decades
    assert "prior" in fig.layout.yaxis2.title.text and "prior" not in fig.layout.yaxis.title.text
    assert list(fig.layout.yaxis.range) == [-0.03, 1.05]
    assert fig.layout.yaxis2.range is None  # its own scale, not the recall's
    # priors within a decade: a linear right axis
    close = mlknn_tail_figure(table.assign(prior=[0.1, 0.5, 0.2, 0.3]), 0.1)
    assert close.layout.yaxis2.type == "linear"


def test_grople_figure_names_the_groups_and_dodges_the_methods():
    table = _frame(FREQ).assign(
        group=[2, 0, 1, 2],
        f1=[0.0, 0.8, 0.6, np.nan],
        baseline_f1=[0.5, 0.85, 0.4, 0.0],
        support=[2, 30, 8, 0],
        predicted=[1, 28, 5, 0],
        baseline_predicted=[2, 29, 4, 1],
    )
    fig = grople_tail_figure(table, 0.1)
    own, base = fig.data
    np.testing.assert_allclose(own.x, np.arange(3) - 0.18)  # L3: undefined F1, not drawn
    np.testing.assert_allclose(base.x, np.arange(4) + 0.18)
    assert own.y.tolist() == [0.8, 0.6, 0.0]
    assert base.y.tolist() == [0.85, 0.4, 0.5, 0.0]
    assert list(fig.layout.xaxis.ticktext) == ["L1 · g0", "L2 · g1", "L0 · g2", "L3 · g2"]
    assert own.name == "GroPLE test F1" and base.name == "BR test F1"
    assert own.marker.color == method_color("GroPLE") and base.marker.color == method_color("BR")
    assert "group 2" in own.text[2]


def test_a_thousand_labels_name_a_spaced_top_n_and_say_so():
    rng = np.random.default_rng(0)
    frequency = np.sort(rng.random(1000) ** 4)[::-1]
    table = _frame(frequency, 0.05).assign(
        prior=frequency,
        recall=rng.random(1000),
        support=rng.integers(1, 5, 1000),
        predicted=rng.integers(0, 3, 1000),
    )
    n_tail = int(table["tail"].sum())
    assert n_tail > MAX_NAMED
    fig = mlknn_tail_figure(table, 0.05)
    ticks = np.asarray(fig.layout.xaxis.tickvals)
    assert 0 < ticks.size <= MAX_NAMED
    assert np.diff(ticks).min() >= np.ceil(1000 / MAX_NAMED)
    assert table["tail"].to_numpy()[ticks].all()  # only tail labels are named
    note = fig.layout.annotations[0].text
    assert f"axis names {ticks.size} of the {n_tail} tail labels" in note
    assert "hover names all 1000 labels" in note
    assert len(fig.data[0].text) == 1000  # every label has its hover text


@pytest.mark.parametrize(
    ("n_labels", "angle"), [(UPRIGHT_BEYOND, -60), (UPRIGHT_BEYOND + 1, -90), (45, -90)]
)
def test_names_stand_upright_beyond_thirty(n_labels, angle):
    frequency = np.linspace(0.5, 0.001, n_labels)
    table = _frame(frequency, 0.05).assign(prior=frequency, recall=0.5, support=1, predicted=1)
    fig = mlknn_tail_figure(table, 0.05)
    assert len(fig.layout.xaxis.tickvals) == n_labels  # every label named
    assert fig.layout.xaxis.tickangle == angle


def test_a_few_spaced_names_of_many_labels_stand_upright_and_say_top_n():
    # 1,000 labels, 99 in the tail: only a few names, but ceil(L / MAX_NAMED) positions apart
    # is room for upright names only -- slanted, 11 names 4 positions apart (159 labels) and
    # 22 apart (983 labels) overlapped at 1280 px (tests/test_browser_labels.py)
    frequency = np.linspace(0.5, 0.001, 1000)
    table = _frame(frequency, 0.05).assign(prior=frequency, recall=0.5, support=1, predicted=1)
    fig = mlknn_tail_figure(table, 0.05)
    named = len(fig.layout.xaxis.tickvals)
    assert named <= UPRIGHT_BEYOND and fig.layout.xaxis.tickangle == -90
    assert fig.layout.xaxis.tickfont.size == 10
    assert f"axis names {named} of the 99 tail labels" in fig.layout.annotations[0].text


def test_missing_columns_are_named():
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['unrepresented'"):
        plst_tail_figure(_frame(FREQ), 0.1, n_components=1)
