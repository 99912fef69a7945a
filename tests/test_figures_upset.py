"""The UpSet view of the most common label sets (issue 32 item 4)."""

from __future__ import annotations

import numpy as np
import pytest

from mlviz import stats
from mlviz.figures.data import labelset_upset_figure
from mlviz.synthetic import make_long_tailed

Y = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [1, 1, 0, 0]])
NAMES = ["a<b>", "b", "c", "never"]


def _figure(Y, names, **options):
    return labelset_upset_figure(
        stats.labelset_counts(Y), stats.label_frequencies(Y), names, **options
    )


def test_columns_dots_and_sizes():
    fig = _figure(Y, NAMES, top=3)
    bars, grid, *member_lines, sizes = fig.data
    assert bars.y.tolist() == [3, 1, 1]  # {a, b}, then the count-1 sets by size: ∅, {a}
    table = stats.labelset_counts(Y)
    assert [tuple(s) for s in table["labelset"].head(3)] == [(0, 1), (), (0,)]
    # rows: only labels in shown sets, most frequent on top (plotly lists bottom first)
    assert list(sizes.y) == ["b", "a&lt;b&gt;"] and sizes.x.tolist() == [3, 4]
    assert [sorted(line.y) for line in member_lines] == [["a&lt;b&gt;", "b"], ["a&lt;b&gt;"]]
    assert fig.layout.meta["not_shown_sets"] == 1
    assert fig.layout.meta["not_shown_instances"] == 1
    assert "1 more label set on 1 instance not shown" in fig.layout.title.text.replace("<br>", " ")


def test_every_set_shown_says_nothing_more():
    fig = _figure(Y, NAMES, top=50)
    assert fig.layout.meta["not_shown_sets"] == 0
    assert "more" not in fig.layout.title.text


@pytest.mark.parametrize("n_labels", [159, 983])
def test_many_labels_keep_whole_names_and_a_bounded_number_of_rows(n_labels):
    ds = make_long_tailed(n_samples=2000, n_labels=n_labels, cardinality=4, random_state=0)
    names = [f"a rather long label name number {j}" for j in range(n_labels)]
    fig = _figure(ds.Y, names, top=40, max_labels=60)
    sizes = fig.data[-1]
    assert 0 < len(sizes.y) <= 60
    assert all(name in names for name in sizes.y)  # whole, not cut
    shown = len(fig.data[0].y)
    table = stats.labelset_counts(ds.Y)
    members = set().union(*table["labelset"].head(shown))
    assert len(sizes.y) == len(members)
    assert fig.layout.meta["not_shown_sets"] == len(table) - shown
    assert fig.layout.meta["not_shown_instances"] == 2000 - sum(fig.data[0].y)
    assert fig.layout.height >= 18 * len(sizes.y)  # each row keeps its height
