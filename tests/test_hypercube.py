"""Hypercube geometry and its figures, checked on cases worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from mlviz._compat import InvalidParameterError
from mlviz.figures.hypercube import (
    MAX_ARROW_NAME_CHARS,
    cube_figure,
    hypercube_figure,
    labelset_text,
)
from mlviz.hypercube import (
    hamming_distances,
    hamming_edges,
    occupied_vertices,
    project_vertices,
)

Y = np.array([[1, 0, 0], [1, 0, 0], [1, 1, 0], [0, 0, 0], [1, 1, 0], [1, 0, 0], [0, 1, 1]])


def test_occupied_vertices_counts_by_hand():
    vertices, counts = occupied_vertices(Y)
    # {0}: 3, {0,1}: 2, ∅: 1, {1,2}: 1 (ties in lexicographic order of the vector)
    np.testing.assert_array_equal(vertices, [[1, 0, 0], [1, 1, 0], [0, 0, 0], [0, 1, 1]])
    np.testing.assert_array_equal(counts, [3, 2, 1, 1])


def test_edges_join_exactly_the_sets_one_label_apart():
    vertices, _ = occupied_vertices(Y)
    edges = {tuple(e) for e in hamming_edges(vertices)}
    # {0}-{0,1} and {0}-∅ differ in one label; {1,2} is two or more from all others.
    assert edges == {(0, 1), (0, 2)}


def test_pca_projection_is_plst_view_and_preserves_centred_geometry():
    rng = np.random.default_rng(0)
    Yr = (rng.random((200, 5)) < 0.3).astype(int)
    vertices, counts = occupied_vertices(Yr)
    coords, loadings = project_vertices(
        vertices, counts, method="pca", n_components=3, random_state=0
    )
    # loadings are orthonormal directions, equal (up to sign) to the top right singular
    # vectors of the mean-shifted instance matrix: PLST's components.
    np.testing.assert_allclose(loadings.T @ loadings, np.eye(3), atol=1e-10)
    _, _, Vt = np.linalg.svd(Yr - Yr.mean(axis=0), full_matrices=False)
    np.testing.assert_allclose(np.abs(loadings.T @ Vt[:3].T), np.eye(3), atol=1e-8)
    assert coords.shape == (len(vertices), 3)


def test_mds_projection_reproduces_hamming_geometry_of_a_cube():
    vertices = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]])
    coords, _ = project_vertices(vertices, np.ones(4), method="mds", n_components=2, random_state=0)
    # a square face of the cube: classical MDS recovers distances sqrt(Hamming) exactly
    d = np.linalg.norm(coords[:, None] - coords[None], axis=-1)
    expected = np.sqrt(np.abs(vertices[:, None] - vertices[None]).sum(-1))
    np.testing.assert_allclose(d, expected, atol=1e-10)


def test_projection_rejects_too_few_vertices_for_umap():
    vertices, counts = occupied_vertices(Y)
    with pytest.raises(ValueError, match="UMAP needs more"):
        project_vertices(vertices, counts, method="umap", random_state=0)


@pytest.mark.parametrize(
    "function, arguments, message",
    [
        (project_vertices, {"n_components": 4}, "'n_components' parameter of {} must be an int"),
        (project_vertices, {"n_components": 4}, "in the range [2, 3]. Got 4 instead"),
        (project_vertices, {"method": "tsne"}, "'method' parameter of {} must be a str among"),
        (project_vertices, {"n_landmarks": 0}, "'n_landmarks' parameter of {} must be an int"),
        (project_vertices, {"random_state": "seven"}, "'random_state' parameter of {} must be"),
        (occupied_vertices, {"max_vertices": 0}, "'max_vertices' parameter of {} must be an int"),
        (occupied_vertices, {"max_vertices": 2.5}, "in the range [1, inf) or None. Got 2.5"),
        (hamming_distances, {"others": "all"}, "'others' parameter of {} must be an array-like"),
    ],
)
def test_bad_parameter_is_named_with_its_valid_range(function, arguments, message):
    vertices, counts = occupied_vertices(Y)
    call = {
        project_vertices: lambda **kw: project_vertices(vertices, counts, **kw),
        occupied_vertices: lambda **kw: occupied_vertices(Y, **kw),
        hamming_distances: lambda **kw: hamming_distances(vertices, **kw),
    }[function]
    with pytest.raises(InvalidParameterError) as raised:
        call(**arguments)
    assert isinstance(raised.value, ValueError)  # callers catching ValueError still do
    assert message.format(function.__name__) in str(raised.value)


def test_figures_draw_every_vertex_and_edge():
    names = ["a", "b", "c"]
    vertices, counts = occupied_vertices(Y)
    edges = hamming_edges(vertices)
    coords, loadings = project_vertices(
        vertices, counts, method="pca", n_components=2, random_state=0
    )
    fig = hypercube_figure(coords, vertices, counts, edges, names, loadings=loadings)
    nodes = next(t for t in fig.data if t.name == "label sets")
    np.testing.assert_allclose(nodes.x, coords[:, 0])
    lines = next(t for t in fig.data if t.name == "one label apart")
    assert np.sum(~np.isnan(np.asarray(lines.x, dtype=float))) == 2 * len(edges)
    # areas proportional to the instances: {a} (3 of them) is three times {b, c} (1)
    sizes = np.asarray(nodes.marker.size)
    np.testing.assert_allclose(sizes**2 / sizes[counts == 1][0] ** 2, counts)
    assert labelset_text(vertices, names) == ["{a}", "{a, b}", "∅", "{b, c}"]
    cube = cube_figure(vertices, counts, names, offset=Y.mean(0), directions=np.eye(3)[:2])
    empty = next(t for t in cube.data if t.name == "empty vertex")
    assert len(empty.x) == 8 - len(vertices)
    assert sum(t.name.startswith("principal direction") for t in cube.data) == 2


def _labelset_text_by_row(vertices, names, max_chars):
    """The rule of labelset_text written row by row: names in label order while the text stays
    within max_chars (each name counted with its ", "), at least one, long names cut."""
    texts = []
    for row in np.asarray(vertices):
        on = np.flatnonzero(row)
        if on.size == 0:
            texts.append("∅")
            continue
        listed, length = [], 0
        for j in on:
            name = str(names[j])
            if len(name) > max_chars:
                name = name[: max(1, max_chars - 1)] + "…"
            if listed and length + len(name) > max_chars:
                break
            listed.append(name)
            length += len(name) + 2
        rest = on.size - len(listed)
        texts.append("{" + ", ".join(listed) + (f", … +{rest:,} more" if rest else "") + "}")
    return texts


def test_labelset_text_follows_its_rule_row_by_row_on_random_sets():
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    for _ in range(300):
        n_labels = int(rng.integers(1, 15))
        sets = (rng.random((int(rng.integers(0, 7)), n_labels)) < rng.random()).astype(int)
        names = ["n" * int(rng.integers(0, 25)) + str(j) for j in range(n_labels)]
        max_chars = int(rng.integers(1, 40))
        expected = _labelset_text_by_row(sets, names, max_chars)
        assert labelset_text(sets, names, max_chars=max_chars) == expected
        assert labelset_text(sp.csr_matrix(sets), names, max_chars=max_chars) == expected


def test_dominant_group_by_hand():
    from mlviz.hypercube import dominant_group

    vertices = np.array([[1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [1, 0, 1, 0]])
    groups = np.array([0, 0, 1, 1])
    # two labels of group 0; one of group 1; empty; a tie goes to group 0
    np.testing.assert_array_equal(dominant_group(vertices, groups), [0, 1, -1, 0])
    with pytest.raises(ValueError, match="one group id per label"):
        dominant_group(vertices, groups[:3])


def _brute_force_edges(vertices):
    from scipy.spatial.distance import cdist

    D = cdist(vertices, vertices, metric="hamming") * vertices.shape[1]
    i, j = np.nonzero(np.triu(np.isclose(D, 1.0), k=1))
    return np.column_stack([i, j])


@pytest.mark.parametrize("seed", range(6))
def test_hashed_edges_equal_the_brute_force_edges(seed, monkeypatch):
    import mlviz.hypercube

    if seed % 2:  # look-ups in many small chunks must give the same edges
        monkeypatch.setattr(mlviz.hypercube, "_EDGE_CHUNK", 7)
    rng = np.random.default_rng(seed)
    n_labels = [1, 3, 7, 8, 9, 21][seed]
    Yr = (rng.random((300, n_labels)) < rng.uniform(0.1, 0.6)).astype(np.uint8)
    vertices, _ = occupied_vertices(Yr)
    np.testing.assert_array_equal(hamming_edges(vertices), _brute_force_edges(vertices))


def test_edges_need_distinct_vertices():
    with pytest.raises(ValueError, match="distinct"):
        hamming_edges(np.array([[1, 0], [1, 0], [0, 0]]))


def test_hamming_distances_are_scipys():
    from scipy.spatial.distance import cdist

    from mlviz.hypercube import hamming_distances

    rng = np.random.default_rng(3)
    A = (rng.random((30, 11)) < 0.4).astype(np.uint8)
    B = (rng.random((20, 11)) < 0.4).astype(np.uint8)
    np.testing.assert_array_equal(hamming_distances(A, B), cdist(A, B, "hamming") * 11)
    np.testing.assert_array_equal(hamming_distances(A), cdist(A, A, "hamming") * 11)


def test_max_vertices_keeps_the_most_frequent():
    vertices, counts = occupied_vertices(Y, max_vertices=2)
    np.testing.assert_array_equal(vertices, [[1, 0, 0], [1, 1, 0]])
    np.testing.assert_array_equal(counts, [3, 2])
    assert len(occupied_vertices(Y, max_vertices=100)[0]) == 4


def test_landmark_mds_projection_keeps_the_hamming_geometry_of_a_cube_face():
    vertices = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]])
    coords, _ = project_vertices(vertices, np.ones(4), method="mds", n_landmarks=3, random_state=0)
    d = np.linalg.norm(coords[:, None] - coords[None], axis=-1)
    expected = np.sqrt(np.abs(vertices[:, None] - vertices[None]).sum(-1))
    np.testing.assert_allclose(d, expected, atol=1e-10)


def test_pca_directions_with_fewer_vertices_than_labels_match_the_scatter_path():
    from mlviz.hypercube import _weighted_principal_directions

    rng = np.random.default_rng(3)
    V = (rng.random((6, 9)) < 0.4).astype(np.float64)
    w = rng.integers(1, 5, size=6).astype(np.float64)
    mean_svd, svd_path = _weighted_principal_directions(V, w, 2)  # 6 < 9: SVD path
    # the same vertices repeated past L rows take the scatter path with identical weights
    tiled = np.vstack([V, V])
    mean_eigh, eigh_path = _weighted_principal_directions(tiled, np.concatenate([w, w]), 2)
    np.testing.assert_allclose(mean_svd, mean_eigh, atol=1e-12)
    np.testing.assert_allclose(svd_path, eigh_path, atol=1e-8)


def test_hypercube_figure_group_ids_are_categories_and_minus_one_is_named():
    vertices = np.array([[0, 0], [1, 0], [0, 1], [1, 1]])
    coords = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    fig = hypercube_figure(
        coords,
        vertices,
        np.ones(4, int),
        np.array([[0, 1]]),
        ["a", "b"],
        color=np.array([-1, 0, 1, 0]),
        color_title="cluster",
    )
    nodes = [t for t in fig.data if t.mode == "markers"]
    assert [t.name for t in nodes] == ["−1: empty label set", "cluster 0", "cluster 1"]
    assert all(t.marker.colorscale is None for t in nodes)  # no continuous scale
    assert len({t.marker.color for t in nodes}) == 3
    assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert fig.layout.yaxis.scaleanchor is None  # uses the width unless asked


def _biplot(coords, loadings, names, **kwargs):
    n = len(coords)
    return hypercube_figure(
        coords,
        np.eye(n, dtype=int),
        np.ones(n, int),
        np.zeros((0, 2), int),
        names,
        loadings=loadings,
        **kwargs,
    )


def _names_trace(fig):
    return next(t for t in fig.data if t.mode == "text")


def test_hypercube_biplot_names_only_the_longest_arrows():
    loadings = np.array([[1.0, 0.0], [0.1, 0.0], [0.0, -2.0]])
    fig = _biplot(np.zeros((3, 2)), loadings, ["a", "b", "c"], max_arrow_names=2)
    text = _names_trace(fig)
    assert list(text.text) == ["a", "", "c"]
    assert list(text.hovertext) == ["a", "b", "c"]  # every tip still names its label on hover
    assert "names of 2 of 3 arrows" in text.name


def test_hypercube_biplot_leaves_off_a_name_drawn_over_a_longer_arrows_name():
    # b points almost where a points and is barely shorter: its name would sit on a's (both
    # right of their tips, 2 px apart on a ~460 x 280 px plot); c points the other way
    coords = np.array([[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0]])
    loadings = np.array([[0.9, 0.0], [0.89, 0.005], [-0.9, 0.0]])
    fig = _biplot(coords, loadings, ["a", "b", "c"])
    text = _names_trace(fig)
    assert list(text.text) == ["a", "", "c"]
    assert list(text.hovertext) == ["a", "b", "c"]
    assert text.name == "names of 2 of 3 arrows"
    # far enough apart (a quarter of the plot's height), both are named
    loadings[1] = [0.89, 0.5]
    assert list(_names_trace(_biplot(coords, loadings, ["a", "b", "c"])).text) == ["a", "b", "c"]


def test_hypercube_biplot_name_boxes_are_measured_on_the_names_side_of_the_tip():
    # b's tip is just left of a's, both right of the origin and away from the plot's right
    # edge: b's name, right of its tip, would run over a's
    coords = np.array([[-1.0, -1.0], [3.0, 1.0]])
    names = ["a", "b" * 5]
    loadings = np.array([[1.0, 0.0], [0.95, 0.0]])
    assert list(_names_trace(_biplot(coords, loadings, names)).text) == ["a", ""]
    # pointing the other way its name is left of its tip, far from a's
    loadings[1] = [-0.2, 0.0]
    fig = _biplot(coords, loadings, names)
    assert list(_names_trace(fig).text) == names
    assert list(_names_trace(fig).textposition) == ["middle right", "middle left"]
    assert _names_trace(fig).name == "label names"


def test_hypercube_biplot_puts_a_name_inside_the_plot_at_its_edge():
    # a's tip is the plot's rightmost point: right of it, plotly would cut its name at the
    # plot's edge (seen on 983 labels), so it goes left of the tip; so does b's at the left
    coords = np.array([[-0.5, -1.0], [0.5, 1.0]])
    loadings = np.array([[1.0, 0.0], [-1.0, 0.1]])
    fig = _biplot(coords, loadings, ["a_long_name", "b_long_name"])
    names = _names_trace(fig)
    assert list(names.text) == ["a_long_name", "b_long_name"]
    assert list(names.textposition) == ["middle left", "middle right"]
    # a name wider than the plot fits on neither side: only the hover names it
    fig = _biplot(coords, loadings, ["a" * 70, "b"])
    assert list(_names_trace(fig).text) == ["", "b"]
    assert list(_names_trace(fig).hovertext) == ["a" * 70, "b"]


def test_hypercube_biplot_of_some_labels_names_their_arrows_after_arrow_names():
    # the Lesson draws the longest axes only: arrow i is arrow_names[i]'s, not label_names[i]'s
    coords = np.array([[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0]])
    loadings = np.array([[0.9, 0.5], [-0.9, -0.5]])
    fig = _biplot(coords, loadings, ["a", "b", "c"], arrow_names=["c", "a"])
    assert list(_names_trace(fig).hovertext) == ["c", "a"]
    assert list(_names_trace(fig).text) == ["c", "a"]
    with pytest.raises(ValueError, match="2 label axes but 3 names"):
        _biplot(coords, loadings, ["a", "b", "c"])


def test_hypercube_biplot_cuts_a_long_arrow_name():
    coords = np.array([[-1.0, -1.0], [1.0, 1.0]])
    loadings = np.array([[0.9, 0.0], [-0.9, 0.0]])
    fig = _biplot(coords, loadings, ["x" * 100_000, "b"])
    cut = "x" * (MAX_ARROW_NAME_CHARS - 1) + "…"
    assert _names_trace(fig).hovertext[0] == cut
    assert _names_trace(fig).text[0] in ("", cut)  # too wide for the plot: hover only


def test_hypercube_biplot_scales_the_arrows_to_the_cloud():
    vertices = np.eye(3, dtype=int)
    coords = np.array([[4.0, 0.0], [-1.0, 2.0], [0.0, -3.0]])
    loadings = np.array([[0.5, 0.0], [0.0, 0.25], [0.1, 0.0]])
    fig = hypercube_figure(
        coords,
        vertices,
        np.ones(3, int),
        np.zeros((0, 2), int),
        ["a", "b", "c"],
        loadings=loadings,
    )
    arrows = next(t for t in fig.data if t.name.startswith("label axes"))
    tips_x = np.asarray(arrows.x, dtype=float)[1::3]  # origin, tip, gap per arrow
    np.testing.assert_allclose(tips_x, [3.6, 0.0, 0.72])  # × 0.9 · 4 / 0.5 = 7.2
    assert arrows.name == "label axes (× 7.2)"


@pytest.mark.parametrize(("largest", "most_ticks"), [(3, 3), (11, 6), (30, 6)])
def test_hypercube_colour_bar_ticks_whole_counts_few_enough_to_read(largest, most_ticks):
    # yeast's sets hold 1 to 11 labels: one tick per count overlapped on the 0.6-high bar
    # while presenting at 1280 x 720 (the real-browser presentation test)
    n_labels = largest
    vertices = np.tril(np.ones((largest, n_labels), dtype=int))  # 1, 2, ..., largest labels
    coords = np.random.default_rng(0).normal(size=(largest, 2))
    names = [f"l{j}" for j in range(n_labels)]
    fig = hypercube_figure(coords, vertices, np.ones(largest), np.empty((0, 2)), names)
    bar = next(t for t in fig.data if t.mode == "markers").marker.colorbar
    ticks = np.arange(bar.tick0, largest + 1, bar.dtick)
    assert ticks[0] == 1 and np.all(ticks == np.round(ticks))
    assert len(ticks) <= most_ticks


def test_label_sets_seen_once_are_drawn_small_whatever_the_data_set():
    """Every occupied vertex of a 983-label set is seen once: scaled to the largest count,
    each was drawn 36 px wide and 1,500 of them covered the plot. A vertex seen once is 8 px
    on every data set; the largest marker stays at 36 px (the most frequent set of many)."""
    rng = np.random.default_rng(0)
    vertices = np.unique((rng.random((300, 40)) < 0.2).astype(np.int8), axis=0)
    coords = rng.normal(size=(len(vertices), 2))
    names = [f"tag_{j}" for j in range(40)]
    once = np.ones(len(vertices), dtype=int)
    fig = hypercube_figure(coords, vertices, once, np.empty((0, 2), dtype=int), names)
    nodes = next(t for t in fig.data if t.name == "label sets")
    assert np.all(np.asarray(nodes.marker.size) == 8)
    many = np.arange(1, len(vertices) + 1)
    fig = hypercube_figure(coords, vertices, many, np.empty((0, 2), dtype=int), names)
    sizes = np.asarray(next(t for t in fig.data if t.name == "label sets").marker.size)
    assert sizes.max() == 36 and sizes.min() == 6
