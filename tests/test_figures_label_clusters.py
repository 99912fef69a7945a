"""Label clusters page figures: reordering, group separators, eigengap marker, cluster table."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from mlviz.figures._style import TITLE_CHARS, WIDE_TITLE_CHARS
from mlviz.figures.label_clusters import (
    MAX_NAMED_LABELS,
    affinity_heatmap,
    cluster_order,
    cluster_table,
    eigenvalue_figure,
    group_affinity,
    group_affinity_heatmap,
    group_colour,
    group_table,
    never_cooccurring_groups,
    stability_figure,
)
from mlviz.label_clustering import LabelClustering, clustering_stability, group_diagnostics

NAMES = ["a", "b", "c", "d", "e", "f"]
GROUPS = np.array([2, 0, 2, 1, 0, 2])
FREQ = np.array([0.10, 0.30, 0.40, 0.05, 0.30, 0.20])


def _random_affinity(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.random((n, n))
    a = (a + a.T) / 2
    np.fill_diagonal(a, 0.0)
    return a


def _plain_order(groups, frequencies=None):
    """Independent ordering: python sort on (group, -frequency, index)."""
    keys = [
        (groups[i], 0.0 if frequencies is None else -frequencies[i], i) for i in range(len(groups))
    ]
    return [k[2] for k in sorted(keys)]


def test_cluster_order_matches_plain_sort():
    assert cluster_order(GROUPS).tolist() == _plain_order(GROUPS)
    # ties in frequency (b and e, both 0.30, group 0) keep the original column order
    assert cluster_order(GROUPS, FREQ).tolist() == _plain_order(GROUPS, FREQ) == [1, 4, 3, 2, 5, 0]


def test_affinity_heatmap_reorders_rows_and_columns_together():
    affinity = _random_affinity(6)
    fig = affinity_heatmap(affinity, GROUPS, NAMES, frequencies=FREQ)
    heat = fig.data[0]
    order = _plain_order(GROUPS, FREQ)
    z = np.asarray(heat.z)
    assert z.shape == (6, 6)
    assert list(heat.x) == list(heat.y) == [NAMES[i] for i in order]
    for r, i in enumerate(order):
        for c, j in enumerate(order):
            assert z[r, c] == affinity[i, j]
    assert fig.layout.xaxis.type == "category"
    fig.to_json()  # serialisable for st.plotly_chart


def test_affinity_heatmap_separators_sit_between_groups():
    fig = affinity_heatmap(_random_affinity(6), GROUPS, NAMES, frequencies=FREQ)
    # display order groups: 0 0 1 2 2 2 -> boundaries after positions 1 and 2
    verticals = sorted(s.x0 for s in fig.layout.shapes if s.x0 == s.x1)
    horizontals = sorted(s.y0 for s in fig.layout.shapes if s.y0 == s.y1)
    assert verticals == horizontals == [1.5, 2.5]
    assert [a.text for a in fig.layout.annotations] == ["0", "1", "2"]
    # one outline per group around its diagonal block, in the group's colour
    rects = [s for s in fig.layout.shapes if s.type == "rect"]
    assert [(r.x0, r.x1, r.y0, r.y1) for r in rects] == [
        (-0.5, 1.5, -0.5, 1.5),
        (1.5, 2.5, 1.5, 2.5),
        (2.5, 5.5, 2.5, 5.5),
    ]
    assert [r.line.color for r in rects] == [group_colour(g) for g in range(3)]


def test_affinity_heatmap_single_group_has_no_separator():
    fig = affinity_heatmap(_random_affinity(4), np.zeros(4, dtype=int), NAMES[:4])
    assert [s.type for s in fig.layout.shapes] == ["rect"]  # the outline, no separator
    assert list(fig.data[0].x) == NAMES[:4]


def test_affinity_heatmap_numeric_looking_names_stay_categories():
    names = ["1", "10", "2", "3"]
    fig = affinity_heatmap(_random_affinity(4), np.array([1, 0, 1, 0]), names)
    assert list(fig.data[0].x) == ["10", "3", "1", "2"]
    assert fig.layout.xaxis.type == "category" and fig.layout.yaxis.type == "category"


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(affinity=np.zeros((3, 4))), "square"),
        (dict(label_names=["a", "b"]), "one name per label"),
        (dict(label_names=["a", "a", "b", "c", "d", "e"]), "unique"),
        (dict(groups=np.array([0, 1])), "one group id per label"),
        (dict(groups=np.zeros(6)), "integers"),
        (dict(frequencies=np.ones(2)), "one value per label"),
    ],
)
def test_affinity_heatmap_rejects_bad_input(kwargs, match):
    args = dict(affinity=_random_affinity(6), groups=GROUPS, label_names=NAMES, frequencies=FREQ)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        affinity_heatmap(**args)


def test_eigenvalue_figure_sorts_descending_and_marks_the_gap():
    values = np.array([0.2, 1.0, -0.1, 0.9, 0.25, 0.95])
    fig = eigenvalue_figure(values, suggested_k=3)
    spectrum, gap = fig.data[0], fig.data[1]
    assert list(spectrum.x) == [1, 2, 3, 4, 5, 6]
    np.testing.assert_array_equal(spectrum.y, np.sort(values)[::-1])
    # λ_3 = 0.9 and λ_4 = 0.25 are the pair of the largest gap
    assert list(gap.x) == [3, 4]
    np.testing.assert_array_equal(gap.y, [0.9, 0.25])
    assert "0.650" in gap.name
    assert fig.layout.shapes[0].x0 == 3.5
    assert "suggests K = 3" in fig.layout.title.text


def test_eigenvalue_figure_without_suggestion_and_truncated():
    fig = eigenvalue_figure(np.arange(10.0), max_shown=4)
    assert len(fig.data) == 1
    np.testing.assert_array_equal(fig.data[0].y, [9, 8, 7, 6])


@pytest.mark.parametrize("k", [0, 6])
def test_eigenvalue_figure_rejects_k_without_a_gap(k):
    with pytest.raises(ValueError, match="suggested_k"):
        eigenvalue_figure(np.linspace(1, 0, 6), suggested_k=k)


def test_eigenvalue_figure_agrees_with_label_clustering():
    # three planted blocks of 8 labels that co-occur -> the eigengap suggests K = 3
    rng = np.random.default_rng(1)
    base = rng.random((300, 3)) < 0.4
    Y = np.repeat(base, 8, axis=1).astype(float)
    Y = np.abs(Y - (rng.random(Y.shape) < 0.03))
    model = LabelClustering(n_groups=3, random_state=0).fit(Y)
    k = model.suggest_n_groups()
    assert k == 3  # precondition of the checks below
    fig = eigenvalue_figure(model.eigenvalues_, suggested_k=k)
    np.testing.assert_allclose(fig.data[0].y, model.eigenvalues_)
    assert list(fig.data[1].x) == [3, 4]
    np.testing.assert_allclose(fig.data[1].y, model.eigenvalues_[2:4])
    heat = affinity_heatmap(model.affinity_, model.labels_, [f"L{j}" for j in range(24)])
    # the blocks are labels 0-7, 8-15, 16-23: separators after positions 7 and 15
    assert sorted(s.x0 for s in heat.layout.shapes if s.x0 == s.x1) == [7.5, 15.5]


def test_cluster_table_content_and_order():
    table = cluster_table(GROUPS, NAMES, FREQ, tail_threshold=0.2)
    assert list(table.columns) == ["group", "label", "frequency", "is_tail"]
    assert table["label"].tolist() == ["b", "e", "d", "c", "f", "a"]
    assert table["group"].tolist() == [0, 0, 1, 2, 2, 2]
    np.testing.assert_array_equal(table["frequency"], FREQ[[1, 4, 3, 2, 5, 0]])
    # strictly below the threshold: f (0.20) is not a tail label, a (0.10) and d (0.05) are
    assert table.loc[table["is_tail"], "label"].tolist() == ["d", "a"]
    assert table.index.tolist() == [1, 4, 3, 2, 5, 0]


def test_cluster_table_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="label_names"):
        cluster_table(GROUPS, NAMES[:3], FREQ, 0.1)
    with pytest.raises(ValueError, match="group id per label"):
        cluster_table(GROUPS[:3], NAMES, FREQ, 0.1)


def test_affinity_heatmap_names_every_label_in_its_group_colour():
    fig = affinity_heatmap(_random_affinity(6), GROUPS, NAMES, frequencies=FREQ)
    order = _plain_order(GROUPS, FREQ)
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        assert list(axis.tickvals) == [NAMES[i] for i in order]  # every row and column named
        assert list(axis.ticktext) == [
            f'<span style="color:{group_colour(GROUPS[i])}">{NAMES[i]}</span>' for i in order
        ]
    assert "6 labels, 3 groups" in fig.layout.title.text.replace("<br>", " ")


@pytest.mark.parametrize("n_labels", [5, 19, 30, 31, 45])
def test_affinity_heatmap_rows_keep_their_height_under_a_long_title_and_long_names(n_labels):
    # A 19-label drill-down under a two-line title got 11 px a row at 1280 px (font 11) and
    # every row name ran into the next (tests/test_browser_labels.py). Whatever the title and
    # the column names take, each row keeps 1.5 font heights: the column names' band is
    # bounded by their length at 0.62 em a character times the sine of their angle.
    names = [f"tag_visualization_computational_{j:03d}" for j in range(n_labels)]
    affinity = np.ones((n_labels, n_labels)) - np.eye(n_labels)
    groups = np.zeros(n_labels, dtype=int)
    title = "Group 0: affinity between the 45 most frequent of its 120 labels"
    layout = affinity_heatmap(affinity, groups, names, title=title).layout
    assert "<br>" in layout.title.text  # the title wraps to two lines: the case that failed
    font = layout.xaxis.tickfont.size
    band = 0.62 * font * len(names[0]) * np.sin(np.radians(-layout.xaxis.tickangle))
    rows = layout.height - layout.margin.t - layout.margin.b - band
    assert rows / n_labels >= 1.5 * font
    short = affinity_heatmap(affinity, groups, names, title="G").layout
    # a shorter title gives its lines' margin back, rows keep the same height
    assert layout.height - short.height == layout.margin.t - short.margin.t


def test_affinity_heatmap_refuses_more_labels_than_it_can_name():
    n = MAX_NAMED_LABELS + 1
    with pytest.raises(ValueError, match="group_affinity_heatmap"):
        affinity_heatmap(np.zeros((n, n)), np.zeros(n, dtype=int), [f"l{j}" for j in range(n)])


def test_group_affinity_by_hand():
    A = np.array(
        [
            [0.0, 0.8, 0.1, 0.2],
            [0.8, 0.0, 0.3, 0.0],
            [0.1, 0.3, 0.0, 0.5],
            [0.2, 0.0, 0.5, 0.0],
        ]
    )
    groups = np.array([0, 0, 1, 2])
    z = group_affinity(A, groups)
    # within group 0: the pair (0, 1) -> 0.8; group 1 is one label -> NaN
    # between 0 and 1: (0.1 + 0.3) / 2; 0 and 2: (0.2 + 0) / 2; 1 and 2: 0.5
    expected = np.array([[0.8, 0.2, 0.1], [0.2, np.nan, 0.5], [0.1, 0.5, np.nan]])
    np.testing.assert_allclose(z, expected)
    fig = group_affinity_heatmap(A, groups)
    np.testing.assert_allclose(np.asarray(fig.data[0].z, dtype=float), expected)
    assert list(fig.data[0].x) == ["group 0 (2)", "group 1 (1)", "group 2 (1)"]
    assert "4 labels in 3 groups" in fig.layout.title.text.replace("<br>", " ")


def test_eigenvalue_figure_marks_the_chosen_k_and_says_when_truncated():
    values = np.linspace(1.0, 0.0, 50)
    fig = eigenvalue_figure(values, 3, chosen_k=7, max_shown=31, n_labels=50)
    assert len(fig.data[0].y) == 31
    xs = sorted(s.x0 for s in fig.layout.shapes)
    assert xs == [3.5, 7.5]  # suggestion and chosen K
    assert "largest 31 of 50" in fig.layout.title.text
    with pytest.raises(ValueError, match="chosen_k"):
        eigenvalue_figure(values, chosen_k=32, max_shown=31)
    untruncated = eigenvalue_figure(values[:5], chosen_k=5)
    assert "of" not in untruncated.layout.title.text.split("affinity")[1]


@pytest.mark.parametrize(
    ("suggested", "chosen", "side"),
    [(2, 3, "left"), (3, 3, "left"), (5, 3, "right"), (None, 3, "left"), (2, 29, "right")],
)
def test_the_chosen_k_note_stays_off_the_suggestions_line(suggested, chosen, side):
    """Its text runs away from the suggestion's line (it crossed it one K away, on a 983-label
    set), and leftwards near the axis' right end. ``side`` is the text's anchor."""
    fig = eigenvalue_figure(np.linspace(1.0, 0.0, 31), suggested, chosen_k=chosen)
    note = next(a for a in fig.layout.annotations if a.text.startswith("chosen K"))
    assert note.xanchor == side
    if suggested is not None and 0 < abs(suggested - chosen) <= 3:  # within the text's width
        line = suggested + 0.5
        assert (line < note.x) == (side == "left")  # the text extends away from the line


def test_eigenvalue_figure_title_wraps_by_the_width_it_gets():
    values = np.linspace(1.0, 0.0, 50)
    # subtitle "largest 31 of 50 shown; the eigengap suggests K = 3 groups": 58 characters
    narrow = eigenvalue_figure(values, 3, max_shown=31, n_labels=50).layout.title.text
    wide = eigenvalue_figure(
        values, 3, max_shown=31, n_labels=50, title_width=WIDE_TITLE_CHARS
    ).layout.title.text
    assert narrow.count("<br>") == 2  # the subtitle broken in two at 48 characters
    assert wide.count("<br>") == 1  # title and subtitle, each on one line
    assert "the eigengap suggests K = 3 groups" in wide
    assert all(len(line) <= TITLE_CHARS for line in re.sub("</?sub>", "", narrow).split("<br>"))


def test_stability_figure_plots_the_sweep_and_flags_never_cooccurring_k():
    sweep = pd.DataFrame(
        {
            "n_groups": [2, 3, 4],
            "stability": [0.9, 1.0, 0.6],
            "stability_std": [0.05, 0.0, 0.2],
            "n_groups_found": [2, 3, 4],
            "cooccurrence_rate": [0.5, 0.8, 0.7],
            "n_never_cooccurring": [1, 0, 2],
        }
    )
    fig = stability_figure(sweep, chosen_k=3)
    stability, rate, flagged = fig.data
    assert list(stability.x) == [2, 3, 4] and list(stability.y) == [0.9, 1.0, 0.6]
    assert list(stability.error_y.array) == [0.05, 0.0, 0.2]
    assert list(rate.y) == [0.5, 0.8, 0.7]
    assert list(flagged.x) == [2, 4] and list(flagged.customdata) == [1, 2]
    assert [s.x0 for s in fig.layout.shapes] == [3, 3]
    with pytest.raises(ValueError, match="lacks columns"):
        stability_figure(sweep.drop(columns="stability"))


def test_stability_figure_lower_panel_title_has_room_between_the_panels():
    sweep = pd.DataFrame(
        {
            "n_groups": [2, 3],
            "stability": [0.7, 0.9],
            "stability_std": [0.1, 0.05],
            "cooccurrence_rate": [1.0, 0.5],
            "n_never_cooccurring": [0, 1],
        }
    )
    fig = stability_figure(sweep)
    layout = fig.layout
    plot_height = layout.height - layout.margin.t - layout.margin.b
    gap = (layout.yaxis.domain[0] - layout.yaxis2.domain[1]) * plot_height
    # a panel title (~18 px) lifted 8 px, plus half a tick label above and below it
    assert gap >= 50
    titles = [a for a in layout.annotations if a.text.startswith(("stability", "share"))]
    assert len(titles) == 2 and all(a.yshift >= 8 for a in titles)


def test_stability_figure_agrees_with_clustering_stability():
    rng = np.random.default_rng(0)
    base = rng.random((200, 3)) < 0.3
    Y = np.repeat(base, 3, axis=1).astype(np.uint8)
    sweep = clustering_stability(
        Y, [2, 3, 4], affinity="cooccurrence", n_resamples=3, random_state=0
    )
    fig = stability_figure(sweep)
    np.testing.assert_allclose(fig.data[0].y, sweep["stability"])
    assert fig.data[0].y[1] == pytest.approx(1.0)  # three identical-column blocks at K = 3


def test_group_table_verdicts_and_never_cooccurring_groups():
    Y = np.array([[1, 1, 0, 0, 0], [1, 1, 0, 0, 1], [1, 0, 1, 0, 0], [0, 0, 0, 1, 0]])
    diagnostics = group_diagnostics(Y, [0, 0, 1, 1, 2], label_names=list("abcde"))
    never = never_cooccurring_groups(diagnostics)
    assert never["group"].tolist() == [1]
    table = group_table(diagnostics, max_names=1)
    assert table["labels"].tolist() == ["a … (+1 more)", "c … (+1 more)", "e"]
    assert table["verdict"].tolist() == diagnostics["verdict"].tolist()
    assert table["verdict"].tolist()[1:] == ["never co-occur", "singleton"]
    assert table["stability"].isna().all()  # no co-assignment given


def test_coassignment_figure_draws_each_group_and_its_mean():
    from mlviz.figures.label_clusters import coassignment_figure, group_colour

    together = np.array([1.0, 0.5, 0.2, np.nan, 0.9])
    groups = np.array([0, 0, 1, 2, 1])
    fig = coassignment_figure(together, groups, list("abcde"), verdicts=["x", "y", "z"])
    assert [list(t.text) for t in fig.data] == [["a", "b"], ["c", "e"]]  # d alone: not drawn
    assert [list(t.y) for t in fig.data] == [[1.0, 0.5], [0.2, 0.9]]
    assert [t.marker.color for t in fig.data] == [group_colour(0), group_colour(1)]
    assert [s.y0 for s in fig.layout.shapes] == pytest.approx([0.75, 0.55])
    assert list(fig.layout.xaxis.ticktext) == ["0<br>x", "1<br>y", "2<br>z"]
    with pytest.raises(ValueError, match="one group id per label"):
        coassignment_figure(together, groups[:2], list("abcde"))


def test_stability_figure_draws_the_null_and_marks_the_suggested_k():
    sweep = pd.DataFrame(
        {
            "n_groups": [2, 3, 4],
            "stability": [0.9, 1.0, 0.6],
            "stability_std": [0.05, 0.0, 0.2],
            "null_stability": [0.9, 0.2, 0.5],
            "adjusted_stability": [0.0, 0.8, 0.1],
            "cooccurrence_rate": [0.5, 0.8, 0.7],
            "n_never_cooccurring": [1, 0, 2],
        }
    )
    fig = stability_figure(sweep, chosen_k=2, suggested_k=3)
    null, adjusted, star = fig.data[3:]
    assert list(null.y) == [0.9, 0.2, 0.5] and list(adjusted.y) == [0.0, 0.8, 0.1]
    assert list(star.x) == [3] and list(star.y) == [0.8]


def test_drill_down_members_names_all_or_the_most_frequent():
    from mlviz.figures.label_clusters import drill_down_members

    groups = np.array([0, 1, 0, 0, 1, 0])
    frequencies = np.array([0.1, 0.9, 0.4, 0.4, 0.2, 0.3])
    members, note = drill_down_members(groups, 1, frequencies, max_labels=3)
    assert members.tolist() == [1, 4] and note == "all 2 labels"
    members, note = drill_down_members(groups, 0, frequencies, max_labels=3)
    # the three most frequent of 0, 2, 3, 5 (ties keep the lower index), ascending
    assert members.tolist() == [2, 3, 5]
    assert note == "the 3 most frequent of its 4 labels"
    with pytest.raises(ValueError, match="no label is in group 7"):
        drill_down_members(groups, 7, frequencies)
