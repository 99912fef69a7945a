"""GroPLE page figures: the V^k heatmap's blank rows and gaps, and the convergence plot."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_multilabel_classification

from mlviz.figures._style import WIDE_TITLE_CHARS
from mlviz.figures.grople import (
    UPRIGHT_BEYOND,
    lambda2_opening,
    lambda_options,
    objective_figure,
    row_pattern_caption,
    vk_column_layout,
    vk_group_heatmap,
    vk_heatmap,
)
from mlviz.grople import GroPLE

NAMES = ["a", "b", "c", "d", "e"]
GROUPS = np.array([1, 0, 1, 0, 2])


def _planted_v() -> np.ndarray:
    """d = 4 latent rows; group 0 = labels b, d; group 1 = a, c; group 2 = e."""
    V = np.arange(1.0, 21.0).reshape(4, 5) * np.array([1, -1, 1, -1, 1])
    V[np.ix_([0, 2], [1, 3])] = 0.0  # group 0 uses rows 1 and 3
    V[np.ix_([1], [0, 2])] = 0.0  # group 1 uses rows 0, 2, 3
    V[np.ix_([0, 1, 2, 3], [4])] = 0.0  # group 2 uses nothing
    V[3, 4] = 0.5  # ... except row 3
    return V


def test_column_layout_groups_labels_with_gap_columns():
    labels, positions = vk_column_layout(GROUPS)
    assert labels.tolist() == [1, 3, -1, 0, 2, -1, 4]
    assert positions.tolist() == [0, 0, -1, 1, 1, -1, 2]


def test_vk_heatmap_values_gaps_and_blank_rows():
    V = _planted_v()
    fig = vk_heatmap(V, GROUPS, NAMES)
    z = np.asarray(fig.data[0].z, dtype=float)
    assert z.shape == (4, 5 + 3 - 1)
    labels, positions = vk_column_layout(GROUPS)
    assert np.isnan(z[:, labels < 0]).all()  # the gaps between groups
    support = {0: [False, True, False, True], 1: [True, False, True, True], 2: [0, 0, 0, 1]}
    for col, (label, position) in enumerate(zip(labels, positions, strict=True)):
        if label < 0:
            continue
        rows = np.asarray(support[position], dtype=bool)
        assert np.isnan(z[~rows, col]).all()
        np.testing.assert_array_equal(z[rows, col], V[rows, label])
    ticks = list(fig.layout.xaxis.ticktext)
    assert ticks == ["b", "d", "a", "c", "e"]
    np.testing.assert_array_equal(fig.layout.xaxis.tickvals, [0, 1, 3, 4, 6])
    assert fig.data[0].zmid == 0  # diverging scale centred at zero
    assert "a (group 1)" in fig.data[0].customdata[0][3]
    fig.to_json()  # serialisable for st.plotly_chart


@pytest.mark.parametrize(("n_labels", "angle"), [(UPRIGHT_BEYOND, -60), (UPRIGHT_BEYOND + 1, -90)])
def test_vk_heatmap_names_stand_upright_beyond_thirty_labels(n_labels, angle):
    groups = np.arange(n_labels) % 3
    fig = vk_heatmap(np.ones((2, n_labels)), groups, [f"label {j}" for j in range(n_labels)])
    assert len(fig.layout.xaxis.ticktext) == n_labels  # every label named
    assert fig.layout.xaxis.tickangle == angle


def test_vk_heatmap_title_wraps_by_the_width_it_gets():
    V = _planted_v()
    # "Group sparsity of V: blank rows are exactly zero (6 of 12 group rows used)": 74 chars
    assert vk_heatmap(V, GROUPS, NAMES).layout.title.text.count("<br>") == 1
    wide = vk_heatmap(V, GROUPS, NAMES, title_width=WIDE_TITLE_CHARS).layout.title.text
    assert "<br>" not in wide and "group rows used" in wide


def test_exact_zero_entry_in_a_used_row_is_not_blank():
    V = _planted_v()
    V[1, 1] = 0.0  # row 1 of group 0 stays non-zero through label d
    z = np.asarray(vk_heatmap(V, GROUPS, NAMES).data[0].z, dtype=float)
    assert z[1, 0] == 0.0 and z[1, 1] == V[1, 3]


def test_absolute_values_on_sequential_scale():
    V = _planted_v()
    fig = vk_heatmap(V, GROUPS, NAMES, absolute=True)
    z = np.asarray(fig.data[0].z, dtype=float)
    assert np.nanmin(z) >= 0
    assert fig.data[0].zmin == 0 and fig.data[0].zmax == np.abs(V).max()


def test_row_support_must_agree_with_v():
    V = _planted_v()
    good = [
        np.array([0, 1, 0, 1], bool),
        np.array([1, 0, 1, 1], bool),
        np.array([0, 0, 0, 1], bool),
    ]
    fig = vk_heatmap(V, GROUPS, NAMES, row_support=good)
    np.testing.assert_array_equal(fig.data[0].z, vk_heatmap(V, GROUPS, NAMES).data[0].z)
    bad = [g.copy() for g in good]
    bad[2][0] = True
    with pytest.raises(ValueError, match="row 0 of V\\^k for group 2 is non-zero"):
        vk_heatmap(V, GROUPS, NAMES, row_support=bad)
    with pytest.raises(ValueError, match="one boolean array"):
        vk_heatmap(V, GROUPS, NAMES, row_support=good[:2])


def test_blank_rows_match_fitted_grople_row_support():
    X, Y = make_multilabel_classification(150, 20, n_classes=8, n_labels=3, random_state=0)
    model = GroPLE(
        n_components=6, n_groups=3, lambda2=20.0, max_iter=10, feature_max_iter=20, random_state=0
    ).fit(X, Y)
    support = model.row_support_
    assert support.any() and not support.all()  # precondition: some rows zero, some not
    names = [f"L{j}" for j in range(Y.shape[1])]
    fig = vk_heatmap(model.V_, model.groups_, names, row_support=support)
    z = np.asarray(fig.data[0].z, dtype=float)
    labels, positions = vk_column_layout(model.groups_)
    for k in range(model.n_groups_):
        columns = np.flatnonzero(positions == k)
        blank = np.isnan(z[:, columns]).all(axis=1)
        np.testing.assert_array_equal(blank, ~support[k])
        np.testing.assert_array_equal(
            z[np.ix_(support[k], columns)], model.group_coefficients(k)[support[k]]
        )


def test_objective_figure_log_scale_when_positive_over_a_decade():
    history = [100.0, 5.0, 4.0, 3.9]
    fig = objective_figure(history, feature_history=[2.0, -1.0, -1.5])
    label, feature = fig.data
    assert list(label.x) == [1, 2, 3, 4]
    np.testing.assert_array_equal(label.y, history)
    np.testing.assert_array_equal(feature.y, [2.0, -1.0, -1.5])
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.yaxis.dtick == 1  # one tick per power of ten, not "5, 2, 0.1, 5, 2"
    assert fig.layout.yaxis2.type == "linear"


def test_objective_figure_within_a_decade_reads_in_plain_digits():
    # 26,933 and 26,940 on a log axis read "26.9332k"; within a decade the axis is linear
    fig = objective_figure([26_940.0, 26_935.0, 26_933.2])
    assert fig.layout.yaxis.type == "linear"
    assert fig.layout.yaxis.exponentformat == "none"
    assert fig.layout.yaxis.separatethousands


def test_objective_figure_single_panel_and_empty_history():
    fig = objective_figure(np.array([1.0, 0.0]))
    assert len(fig.data) == 1 and fig.layout.yaxis.type == "linear"
    with pytest.raises(ValueError, match="empty"):
        objective_figure([])


def test_vk_group_heatmap_by_hand():
    V = _planted_v()
    fig = vk_group_heatmap(V, GROUPS)
    z = np.asarray(fig.data[0].z, dtype=float)
    assert z.shape == (4, 3)
    # group 0 = labels b, d (columns 1, 3), rows 1 and 3 used: RMS of the two entries
    assert np.isnan(z[[0, 2], 0]).all()
    assert z[1, 0] == pytest.approx(np.sqrt((V[1, 1] ** 2 + V[1, 3] ** 2) / 2))
    assert z[3, 0] == pytest.approx(np.sqrt((V[3, 1] ** 2 + V[3, 3] ** 2) / 2))
    # group 1 = a, c: row 1 is zero; group 2 = e: only row 3, value 0.5
    assert np.isnan(z[1, 1]) and np.isfinite(z[[0, 2, 3], 1]).all()
    assert np.isnan(z[:3, 2]).all() and z[3, 2] == pytest.approx(0.5)
    assert list(fig.data[0].x) == ["V<sup>0</sup> (2)", "V<sup>1</sup> (2)", "V<sup>2</sup> (1)"]
    assert list(fig.layout.xaxis.ticktext) == list(fig.data[0].x)
    title = fig.layout.title.text.replace("<br>", " ")
    assert "one column per group" in title and "5 labels in 3 groups" in title
    assert "6 of 12 group rows used" in title


def test_vk_group_heatmap_checks_row_support():
    V = _planted_v()
    with pytest.raises(ValueError, match="row_support"):
        vk_group_heatmap(V, GROUPS, row_support=np.ones((3, 4), dtype=bool))


# ------------------------------------------------------------------ λ2 range and the caption

LESSON_GRID = [0.0, 0.1, 1.0, 10.0, 30.0, 100.0]


def test_lambda_options_end_at_the_bound_where_v_becomes_zero():
    # issue 31: the options reach the bound (the last one, rounded up, is where V = 0) instead
    # of stopping below it, and continue the grid log-spaced when the bound lies beyond it
    assert lambda_options(LESSON_GRID, 51.2) == [0.0, 0.1, 1.0, 10.0, 30.0, 51.2]
    assert lambda_options(LESSON_GRID, 30.0) == [0.0, 0.1, 1.0, 10.0, 30.0]  # at the bound
    assert lambda_options(LESSON_GRID, 964.2) == [0.0, 0.1, 1.0, 10.0, 30.0, 100.0, 300.0, 965.0]
    assert lambda_options([1.0, 10.0], 0.5) == [1.0]  # a slider needs one option
    assert lambda_options([1.0, 10.0], None) == lambda_options([1.0, 10.0], np.inf) == [1.0, 10.0]


@pytest.mark.parametrize(
    ("bound", "expected"),
    [(67.9, 10.0), (13.3, 1.0), (47.3, 10.0), (None, 10.0), (0.01, 0.0), (1e6, 10.0)],
)
def test_lambda2_opening_keeps_a_margin_below_the_bound(bound, expected):
    assert lambda2_opening(LESSON_GRID, bound, 10.0) == expected


def test_row_pattern_caption_counts_what_the_support_shows():
    support = np.array([[1, 1, 0, 0], [1, 0, 1, 0]], dtype=bool)
    text = row_pattern_caption(support, 10.0, 50.0)
    assert "2 label groups' V^k" in text and "out of d = 4" in text
    assert "use 2 rows each; 1 row is used by two or more groups, 2 by one group only" in text
    assert ", 1 by none." in text
    assert "2 of the 2 groups have rows of their own (2 different row patterns)" in text
    assert "λ2 = 10 is below λ2_max = 50" in text
    assert "Raise" not in text and "raise" not in text

    shared = np.array([[1, 1, 0], [1, 1, 0]], dtype=bool)
    text = row_pattern_caption(shared, 1.0, 50.0)
    assert "use 2 rows each" in text and "No group has a row of its own: at these settings" in text

    # every row used by two groups: no row of its own, yet three different row sets
    pairs = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1]], dtype=bool)
    assert "the groups use 3 different row sets" in row_pattern_caption(pairs, 1.0, 50.0)

    zero = np.zeros((3, 4), dtype=bool)
    text = row_pattern_caption(zero, 60.0, 50.0)
    assert "No group uses any row" in text
    assert "λ2 = 60 is at or above λ2_max = 50" in text
