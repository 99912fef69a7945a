"""CLEMS page figures: the embedding of the candidate sets and the Shepard diagram."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist, pdist, squareform
from sklearn.datasets import make_multilabel_classification

from mlviz.clems import CLEMS
from mlviz.figures.clems import embedding_figure, shepard_figure, shepard_pairs
from mlviz.figures.hypercube import labelset_text


@pytest.fixture(scope="module")
def data():
    X, Y = make_multilabel_classification(120, 10, n_classes=5, n_labels=2, random_state=0)
    return X, Y


def _random_problem(n: int, seed: int = 0, symmetric: bool = True):
    rng = np.random.default_rng(seed)
    cost = rng.random((n, n))
    if symmetric:
        cost = (cost + cost.T) / 2
    np.fill_diagonal(cost, 0.0)
    points = rng.normal(size=(2 * n, 3))
    return cost, points


def test_shepard_symmetric_points_equal_the_matrices():
    cost, points = _random_problem(7)
    distances = squareform(pdist(points[:7]))
    fig = shepard_figure(cost, distances, stress=1.25)
    pairs = fig.data[0]
    i, j = np.triu_indices(7, k=1)
    assert len(pairs.x) == 21  # every unordered off-diagonal pair once
    np.testing.assert_allclose(pairs.x, np.sqrt(cost[i, j]))
    np.testing.assert_allclose(pairs.y, distances[i, j])
    np.testing.assert_array_equal(np.asarray(pairs.customdata), np.column_stack([i, j]))
    assert "stress = 1.25" in fig.layout.title.text
    line = fig.data[1]
    assert list(line.x) == list(line.y) == [0, max(np.sqrt(cost).max(), distances.max())]


def test_shepard_cost_dissimilarity_uses_the_raw_cost():
    cost, points = _random_problem(5)
    distances = squareform(pdist(points[:5]))
    fig = shepard_figure(cost, distances, stress=0.0, dissimilarity="cost")
    i, j = np.triu_indices(5, k=1)
    np.testing.assert_allclose(fig.data[0].x, cost[i, j])


def test_shepard_mirrored_uses_the_whole_cross_block():
    cost, points = _random_problem(6, symmetric=False)
    cross = cdist(points[:6], points[6:])
    fig = shepard_figure(cost, cross, stress=3.0, mirrored=True)
    x, y = np.asarray(fig.data[0].x), np.asarray(fig.data[0].y)
    assert x.size == 36  # ordered truth-prediction pairs, diagonal included
    np.testing.assert_allclose(x, np.sqrt(cost).ravel())
    np.testing.assert_allclose(y, cross.ravel())
    # the full (2n, 2n) matrix gives the same points through its top-right block
    full = squareform(pdist(points))
    again = shepard_figure(cost, full, stress=3.0, mirrored=True)
    np.testing.assert_allclose(again.data[0].y, cross.ravel())


def test_shepard_subsample_is_deterministic_and_faithful():
    cost, points = _random_problem(40)
    distances = squareform(pdist(points[:40]))
    first = shepard_figure(cost, distances, stress=1.0, max_points=100)
    second = shepard_figure(cost, distances, stress=1.0, max_points=100)
    pairs = np.asarray(first.data[0].customdata)
    assert pairs.shape == (100, 2)
    np.testing.assert_array_equal(pairs, np.asarray(second.data[0].customdata))
    assert len({tuple(p) for p in pairs}) == 100 and np.all(pairs[:, 0] < pairs[:, 1])
    np.testing.assert_allclose(first.data[0].x, np.sqrt(cost[pairs[:, 0], pairs[:, 1]]))
    np.testing.assert_allclose(first.data[0].y, distances[pairs[:, 0], pairs[:, 1]])
    assert "100 of 780 pairs" in first.layout.title.text


def test_shepard_names_bound_the_hover_text_by_drawing_fewer_pairs():
    from mlviz.figures.clems import MAX_SHEPARD_HOVER_CHARS, MIN_SHEPARD_POINTS

    cost, points = _random_problem(400)  # 79,800 pairs
    distances = squareform(pdist(points[:400]))
    long = [f"{{set_{i:03d}_" + "x" * 150 + "}" for i in range(400)]  # 160 characters
    fig = shepard_figure(cost, distances, stress=1.0, labelset_text=long)
    pairs = np.asarray(fig.data[0].customdata)
    # 1,000,000 / (2 x 160 + 3) pairs: the names stay within the budget
    assert len(pairs) == int(MAX_SHEPARD_HOVER_CHARS / 323) == 3095
    assert sum(len(t) for t in fig.data[0].text) <= MAX_SHEPARD_HOVER_CHARS
    assert f"{len(pairs):,} of 79,800 pairs" in fig.layout.title.text.replace("<br>", " ")
    i, j = pairs[0]
    assert fig.data[0].text[0] == f"{long[i]} → {long[j]}"
    np.testing.assert_allclose(fig.data[0].y, distances[pairs[:, 0], pairs[:, 1]])
    # the same draw as asking for that many pairs directly
    direct = shepard_figure(cost, distances, stress=1.0, max_points=len(pairs))
    np.testing.assert_array_equal(np.asarray(direct.data[0].customdata), pairs)
    # short names keep every pair up to max_points; no bound, no cut; never below the floor
    short = [f"s{i}" for i in range(400)]
    assert len(shepard_figure(cost, distances, 1.0, labelset_text=short).data[0].x) == 20_000
    unbounded = shepard_figure(cost, distances, 1.0, labelset_text=long, max_hover_chars=None)
    assert len(unbounded.data[0].x) == 20_000
    tiny = shepard_figure(cost, distances, 1.0, labelset_text=long, max_hover_chars=10)
    assert len(tiny.data[0].x) == MIN_SHEPARD_POINTS


def test_shepard_pairs_counts():
    rows, cols = shepard_pairs(4, mirrored=False)
    assert len(rows) == 6 and np.all(rows < cols)
    rows, cols = shepard_pairs(4, mirrored=True)
    assert len(rows) == 16


def test_shepard_rejects_bad_input():
    cost, points = _random_problem(4)
    with pytest.raises(ValueError, match="dissimilarity"):
        shepard_figure(cost, cost, 0.0, dissimilarity="log")
    with pytest.raises(ValueError, match=r"shape \(4, 4\)"):
        shepard_figure(cost, np.zeros((8, 8)), 0.0)
    with pytest.raises(ValueError, match="non-negative"):
        shepard_figure(-cost, cost, 0.0)


def test_shepard_on_a_fitted_symmetric_clems(data):
    X, Y = data
    model = CLEMS(cost="f1", n_components=3, random_state=0).fit(X, Y)
    assert not model.mirrored_
    distances = squareform(pdist(model.embedding_truth_))
    texts = labelset_text(model.candidates_, [f"l{j}" for j in range(5)])
    fig = shepard_figure(model.cost_matrix_, distances, model.stress_, labelset_text=texts)
    i, j = np.triu_indices(len(model.candidates_), k=1)
    np.testing.assert_allclose(fig.data[0].x, np.sqrt(model.cost_matrix_[i, j]))
    np.testing.assert_allclose(fig.data[0].y, distances[i, j])
    assert fig.data[0].text[0] == f"{texts[0]} → {texts[1]}"
    fig.to_json()  # serialisable for st.plotly_chart


def test_embedding_symmetric_positions_sizes_and_colours():
    rng = np.random.default_rng(2)
    points = rng.normal(size=(5, 3))
    counts = np.array([16, 4, 1, 9, 0])
    sizes = np.array([1, 2, 2, 3, 0])
    text = ["{a}", "{a, b}", "{b, c}", "{a, b, c}", "∅"]
    fig = embedding_figure(points, None, counts, sizes, text, symmetric=True)
    assert len(fig.data) == 1
    trace = fig.data[0]
    np.testing.assert_array_equal(trace.x, points[:, 0])
    np.testing.assert_array_equal(trace.y, points[:, 1])
    np.testing.assert_array_equal(trace.marker.color, sizes)
    diameter = np.asarray(trace.marker.size)
    # areas proportional to the counts (diameter ~ sqrt(count)) above the 5 px floor, where
    # the count-0 set sits; the most frequent set at the largest marker, 30 px
    seen = counts > 0
    np.testing.assert_allclose(diameter[seen] / diameter[0], np.sqrt(counts[seen] / 16))
    assert diameter[0] == 30 and diameter[4] == 5
    assert "4 training instances" in trace.text[1]


def test_the_embedding_title_counts_with_a_thousands_separator():
    # written as every other count on the CLEMS page is ("of 1,050")
    rng = np.random.default_rng(3)
    n = 1_050
    fig = embedding_figure(
        rng.normal(size=(n, 2)), None, np.ones(n), np.ones(n), ["{a}"] * n, symmetric=True
    )
    assert "MDS embedding of the 1,050 candidate label sets" in fig.layout.title.text


@pytest.mark.parametrize(
    ("low", "high", "ticks"),
    [(0, 3, [0, 1, 2, 3]), (1, 9, list(range(1, 10))), (6, 37, [6, 10, 14, 18, 22, 26, 30, 34])],
)
def test_embedding_colour_bar_ticks_whole_numbers_few_enough_to_read(low, high, ticks):
    # a 983-label set's candidates hold 6 to 37 labels: one tick per integer overlapped
    sizes = np.array([low, high, (low + high) // 2])
    fig = embedding_figure(np.eye(3), None, np.ones(3), sizes, ["a", "b", "c"], symmetric=True)
    bar = fig.data[0].marker.colorbar
    shown = [v for v in np.arange(bar.tick0, high + 1, bar.dtick) if v >= low]
    assert shown == ticks


def test_embedding_asymmetric_two_roles_and_decoding(data):
    X, Y = data
    model = CLEMS(cost="rank_loss", n_components=3, random_state=0).fit(X, Y)
    assert model.mirrored_
    explained = model.explain(X[0], n=3)
    nearest = explained.candidates["candidate"].to_numpy()
    texts = labelset_text(model.candidates_, [f"l{j}" for j in range(5)])
    fig = embedding_figure(
        model.embedding_truth_,
        model.embedding_pred_,
        model.candidate_counts_,
        model.candidates_.sum(axis=1),
        texts,
        symmetric=False,
        predicted=explained.embedding,
        nearest=nearest,
        nearest_costs=explained.candidates["cost_if_truth"].to_numpy(),
    )
    truth, pred, star, ring = fig.data
    np.testing.assert_array_equal(truth.x, model.embedding_truth_[:, 0])
    np.testing.assert_array_equal(pred.y, model.embedding_pred_[:, 1])
    assert truth.marker.symbol is None and pred.marker.symbol == "x"
    assert (star.x[0], star.y[0]) == tuple(explained.embedding[:2])
    # CLEMS decodes among the prediction-role points: the rings sit there
    np.testing.assert_array_equal(ring.x, model.embedding_pred_[nearest, 0])
    assert ring.text[0].startswith("#1 (decoded)")
    assert (
        np.flatnonzero(model.candidates_[nearest[0]]).tolist()
        == np.flatnonzero(model.predict(X[:1])[0]).tolist()
    )


def test_embedding_one_dimensional_and_errors():
    points = np.array([[0.0], [1.0], [3.0]])
    fig = embedding_figure(points, None, [1, 2, 3], [1, 1, 2], ["a", "b", "c"], True)
    np.testing.assert_array_equal(fig.data[0].y, [0, 0, 0])
    with pytest.raises(ValueError, match="embedding_pred"):
        embedding_figure(points, None, [1, 2, 3], [1, 1, 2], ["a", "b", "c"], False)
    with pytest.raises(ValueError, match="counts"):
        embedding_figure(points, None, [1, 2], [1, 1, 2], ["a", "b", "c"], True)
    with pytest.raises(ValueError, match="outside"):
        embedding_figure(points, None, [1, 2, 3], [1, 1, 2], ["a", "b", "c"], True, nearest=[3])


def test_shepard_title_names_the_stress_shown():
    cost, points = _random_problem(5)
    distances = squareform(pdist(points[:5]))
    assert "stress = 1.25 " in shepard_figure(cost, distances, stress=1.25).layout.title.text
    fig = shepard_figure(cost, distances, stress=0.0812, stress_name="Kruskal stress-1")
    assert fig.layout.title.text.startswith("Shepard diagram: Kruskal stress-1 = 0.0812 (")


def test_fitted_embedding_figure_is_embedding_figure_of_the_models_attributes():
    from mlviz.clems import CLEMS
    from mlviz.figures.clems import fitted_embedding_figure
    from mlviz.synthetic import make_cube

    ds = make_cube(n_samples=80, random_state=0)
    model = CLEMS(n_components=2, random_state=0).fit(ds.X, ds.Y)
    texts = [str(i) for i in range(len(model.candidates_))]
    expected = embedding_figure(
        model.embedding_truth_,
        model.embedding_pred_,
        model.candidate_counts_,
        model.candidates_.sum(axis=1),
        texts,
        not model.mirrored_,
        nearest=[0],
        nearest_costs=[0.5],
    )
    shown = fitted_embedding_figure(model, texts, nearest=[0], nearest_costs=[0.5])
    assert shown.to_dict() == expected.to_dict()


def test_label_sets_seen_once_are_small_markers_not_the_largest():
    """A 983-label set's 1,050 candidate label sets each occur once: scaled to the largest
    count they were all drawn 30 px wide, one disc of overlapping markers. A set seen once
    is now as wide on every data set (8 px), and twice the count is twice the area."""
    rng = np.random.default_rng(4)
    points = rng.normal(size=(1_050, 2))
    once = np.ones(1_050, dtype=int)
    text = [f"{{tag_{i}}}" for i in range(1_050)]
    fig = embedding_figure(points, None, once, np.ones(1_050, dtype=int), text, symmetric=True)
    sizes = np.asarray(fig.data[0].marker.size)
    assert np.all(sizes == 8)
    counts = np.array([1, 2, 4])
    fig = embedding_figure(
        points[:3], None, counts, np.ones(3, dtype=int), text[:3], symmetric=True
    )
    sizes = np.asarray(fig.data[0].marker.size)
    np.testing.assert_allclose(sizes**2 / sizes[0] ** 2, counts)
