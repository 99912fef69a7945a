"""Weighted SMACOF and classical MDS (mlviz.mds), checked against independent plain code."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.manifold import smacof

from mlviz import weighted_smacof
from mlviz._compat import InvalidParameterError
from mlviz.costs import cost_matrix
from mlviz.mds import (
    _AdditiveSolver,
    _BipartiteSolver,
    _classical_mds_full,
    _classical_mds_truncated,
    _DenseSolver,
    _make_solver,
    _top_eigenpairs,
    _UniformSolver,
    classical_mds,
    kruskal_stress1,
    landmark_mds,
    out_of_sample_smacof,
)


def _noisy_dissimilarities(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(n, 4))
    delta = cdist(points, points) + rng.uniform(0.0, 0.5, size=(n, n))
    delta = 0.5 * (delta + delta.T)
    np.fill_diagonal(delta, 0.0)
    return delta


def _plain_stress(delta: np.ndarray, weights: np.ndarray, embedding: np.ndarray) -> float:
    """sum_{i<j} W_ij (Δ_ij - d_ij)^2 written out directly."""
    d = cdist(embedding, embedding)
    upper = np.triu_indices(len(delta), k=1)
    return float(np.sum(weights[upper] * (delta[upper] - d[upper]) ** 2))


def _plain_guttman(delta: np.ndarray, weights: np.ndarray, embedding: np.ndarray) -> np.ndarray:
    """Textbook Guttman transform V^+ B(X) X with numpy's SVD pseudo-inverse."""
    w = weights.copy()
    np.fill_diagonal(w, 0.0)
    v = np.diag(w.sum(axis=1)) - w
    d = cdist(embedding, embedding)
    ratio = np.zeros_like(d)
    positive = d > 0
    ratio[positive] = w[positive] * delta[positive] / d[positive]
    b = np.diag(ratio.sum(axis=1)) - ratio
    return np.linalg.pinv(v) @ b @ embedding


def _mirrored_problem(n: int, seed: int):
    rng = np.random.default_rng(seed)
    cross = rng.uniform(0.2, 2.0, size=(n, n))
    np.fill_diagonal(cross, 0.0)
    delta = np.zeros((2 * n, 2 * n))
    delta[:n, n:] = cross
    delta[n:, :n] = cross.T
    a, b = rng.uniform(1.0, 5.0, n), rng.uniform(0.5, 2.0, n)
    weights = np.zeros_like(delta)
    weights[:n, n:] = np.outer(a, b)
    weights[n:, :n] = weights[:n, n:].T
    return delta, weights, cross, a, b


def _weight_structures():
    n = 24
    rng = np.random.default_rng(3)
    delta = _noisy_dissimilarities(n, 1)
    counts = rng.integers(1, 9, size=n).astype(float)
    additive = counts[:, None] + counts[None, :]
    dense = rng.uniform(0.1, 3.0, size=(n, n))
    dense = 0.5 * (dense + dense.T)
    mirrored_delta, mirrored_weights, *_ = _mirrored_problem(n // 2, 4)
    return {
        "uniform": (delta, np.full((n, n), 2.0), _UniformSolver),
        "additive": (delta, additive, _AdditiveSolver),
        "bipartite": (mirrored_delta, mirrored_weights, _BipartiteSolver),
        "dense": (delta, dense, _DenseSolver),
    }


@pytest.mark.parametrize("structure", ["uniform", "additive", "bipartite", "dense"])
def test_structure_detection_and_guttman_match_plain_pseudo_inverse(structure):
    delta, weights, expected_solver = _weight_structures()[structure]
    solver = _make_solver(delta, weights)
    assert type(solver) is expected_solver
    embedding = np.random.default_rng(5).normal(size=(len(delta), 3))
    got = solver.guttman(embedding, solver.distances(embedding))
    want = _plain_guttman(delta, weights, embedding)
    np.testing.assert_allclose(got, want - want.mean(axis=0), atol=1e-10)
    assert solver.stress(embedding, solver.distances(embedding)) == pytest.approx(
        _plain_stress(delta, weights, embedding), rel=1e-10
    )


@pytest.mark.parametrize("structure", ["uniform", "additive", "bipartite", "dense"])
@pytest.mark.parametrize("relaxation", [0.0, 0.9])
def test_stress_never_increases_and_reported_stress_is_true(structure, relaxation):
    delta, weights, _ = _weight_structures()[structure]
    embedding, stress, history = weighted_smacof(
        delta, weights, 2, n_init=1, max_iter=200, tol=0.0, random_state=0, relaxation=relaxation
    )
    scale = float(np.sum(np.triu(weights, 1) * np.triu(delta, 1) ** 2))
    assert len(history) > 10
    # With relaxation=0 this is SMACOF's majorisation guarantee, i.e. a check of V^+ and B(X).
    assert np.all(np.diff(history) <= 1e-12 * scale)
    assert history[-1] == pytest.approx(stress)
    assert stress == pytest.approx(_plain_stress(delta, weights, embedding), rel=1e-8)
    assert stress < 0.5 * history[0]


def test_uniform_weights_match_scikit_learn_smacof_from_the_same_start():
    delta = _noisy_dissimilarities(30, 0)
    start = np.random.default_rng(1).uniform(size=(30, 2))
    expected, expected_stress = smacof(
        delta, n_components=2, init=start, n_init=1, max_iter=25, eps=0.0, normalized_stress=False
    )
    got, stress, history = weighted_smacof(
        delta, None, 2, init=start, max_iter=25, tol=0.0, relaxation=0.0
    )
    assert len(history) == 26  # the start plus 25 updates, as scikit-learn ran
    np.testing.assert_allclose(got, expected - expected.mean(axis=0), atol=1e-10)
    assert stress == pytest.approx(expected_stress, rel=1e-10)


def test_classical_mds_reproduces_euclidean_distances_exactly():
    labels = (np.random.default_rng(0).random((40, 6)) < 0.4).astype(float)
    delta = np.sqrt(cdist(labels, labels, "cityblock"))  # sqrt(Hamming count) is Euclidean
    embedding = classical_mds(delta, 6)
    np.testing.assert_allclose(cdist(embedding, embedding), delta, atol=1e-10)
    np.testing.assert_allclose(embedding.mean(axis=0), 0.0, atol=1e-10)


def test_classical_mds_large_uses_top_eigenpairs():
    # Over the dense-solver threshold, so the ARPACK path runs; the result must still be exact.
    points = np.random.default_rng(2).normal(size=(450, 3))
    delta = cdist(points, points)
    embedding = classical_mds(delta, 3)
    np.testing.assert_allclose(cdist(embedding, embedding), delta, atol=1e-8)


@pytest.mark.parametrize("n_components", [1, 3, 8, 20, 45])
def test_classical_mds_paths_agree_with_the_same_signs(n_components):
    """scikit-learn's ClassicalMDS path and the truncated path: same embedding, same signs
    (largest-magnitude entry of each column positive), same zero columns for non-positive
    eigenvalues (the noisy dissimilarities are not Euclidean; 45 > n pads with zeros)."""
    delta = _noisy_dissimilarities(40, seed=7)
    full = _classical_mds_full(delta, n_components)
    truncated = _classical_mds_truncated(delta, n_components)
    assert full.shape == truncated.shape == (40, n_components)
    assert np.isfinite(full).all()
    gram = -0.5 * delta**2
    gram -= gram.mean(axis=0)
    gram -= gram.mean(axis=1, keepdims=True)
    eigenvalues = np.full(n_components, -np.inf)  # beyond n: no direction at all
    top = np.sort(np.linalg.eigvalsh(gram))[::-1][:n_components]
    eigenvalues[: len(top)] = top
    positive, negative = eigenvalues > 1e-10, eigenvalues < -1e-10
    assert positive.any() and (n_components < 40 or negative.any())  # not a trivial case
    for embedding in (full, truncated):
        np.testing.assert_allclose(np.sum(embedding**2, axis=0)[positive], eigenvalues[positive])
        assert not embedding[:, negative].any()  # exact zero columns
        # the centring null direction (eigenvalue ~ 1e-16) is rounding noise in both paths
        assert np.abs(embedding[:, ~positive & ~negative]).max(initial=0.0) < 1e-6
    np.testing.assert_allclose(full[:, positive], truncated[:, positive], atol=1e-10)
    pivots = np.argmax(np.abs(full[:, positive]), axis=0)
    assert (full[:, positive][pivots, np.arange(positive.sum())] > 0).all()


@pytest.mark.parametrize("k", [3, 22, 30, 90, 91, 200])
def test_every_eigensolver_gives_the_reference_eigenpairs_and_signs(k):
    """n = 450: ARPACK below n // 20 = 22, MRRR on a subset up to n // 5 = 90, full eigh
    above; each must return numpy's top-k eigenpairs with the svd_flip sign convention."""
    delta = _noisy_dissimilarities(450, seed=9)
    gram = -0.5 * delta**2
    gram -= gram.mean(axis=0)
    gram -= gram.mean(axis=1, keepdims=True)
    values, vectors = _top_eigenpairs(gram, k)
    order = np.argsort(values)[::-1]
    reference_values, reference_vectors = np.linalg.eigh(gram)
    reference_values = reference_values[::-1][:k]
    reference_vectors = reference_vectors[:, ::-1][:, :k]
    pivots = np.argmax(np.abs(reference_vectors), axis=0)
    reference_vectors *= np.sign(reference_vectors[pivots, np.arange(k)])
    np.testing.assert_allclose(values[order], reference_values, atol=1e-8)
    np.testing.assert_allclose(vectors[:, order], reference_vectors, atol=1e-6)


def test_classical_mds_uses_scikit_learn_for_most_of_the_spectrum(monkeypatch):
    import mlviz.mds

    calls = []
    monkeypatch.setattr(
        mlviz.mds, "_classical_mds_full", lambda d, m: calls.append(("full", m)) or 0
    )
    monkeypatch.setattr(
        mlviz.mds, "_classical_mds_truncated", lambda d, m: calls.append(("truncated", m)) or 0
    )
    delta = _noisy_dissimilarities(50, seed=8)
    for m in (2, 10, 11, 50, 60):
        classical_mds(delta, m)
    # more than n // 5 = 10 components: the full eigh of ClassicalMDS
    assert calls == [
        ("truncated", 2),
        ("truncated", 10),
        ("full", 11),
        ("full", 50),
        ("full", 60),
    ]


def _label_subset_problem():
    """CLEMS' F1 problem on all 15 non-empty subsets of 4 labels: Δ = sqrt(1 − F1), weights
    ``count_i + count_j``, classical-MDS start. Not Euclidean, so the optimum has stress > 0,
    and the classical start is already close to it (its stress is 0.06 % of Σ W Δ²): the
    situation in which a decrease measured against Σ W Δ² (the all-zero configuration's
    stress) stopped CLEMS after one iteration on scene."""
    subsets = np.array([s for s in itertools.product([0, 1], repeat=4) if any(s)], dtype=float)
    delta = np.sqrt(cost_matrix(subsets, subsets, "f1"))
    counts = np.arange(1.0, len(subsets) + 1.0)
    return delta, counts[:, None] + counts[None, :], classical_mds(delta, 4)


@pytest.mark.parametrize("relaxation", [0.0, 0.9])
def test_smacof_stops_on_the_relative_decrease_of_the_stress(relaxation):
    # The rule (de Leeuw's SMACOF, the authors' eps): stop after the first update that lowers
    # the stress by less than tol times the stress it started from, and not before.
    delta, weights, start = _label_subset_problem()
    tol = 1e-3
    _, _, history = weighted_smacof(
        delta, weights, 4, init=start, max_iter=10_000, tol=tol, relaxation=relaxation
    )
    decreases = -np.diff(history)
    assert np.all(decreases[:-1] >= tol * history[:-2])
    assert decreases[-1] < tol * history[-2]
    # The first update lowers the stress by less than tol · Σ W Δ², so the old rule stopped
    # right there (measured: 2.5x the converged stress with relaxation, 1.3x without); the
    # stress was still falling fast (by more than a fifth of itself per update).
    scale = float(np.sum(np.triu(weights, 1) * np.triu(delta, 1) ** 2))
    assert decreases[0] < tol * scale
    assert decreases[0] > 0.2 * history[0]
    assert len(history) > 10  # measured: 28 and 33


@pytest.mark.parametrize("relaxation", [0.0, 0.9])
def test_smacof_reaches_the_converged_stress(relaxation):
    # A long run (no tolerance) is the reference; tol = 1e-8 must land within 1e-6 of it,
    # relative. Measured: 1e-7 without relaxation, 4e-8 with; the old rule (decrease below
    # tol · Σ W Δ²) stopped 6e-4 and 3e-4 above it.
    delta, weights, start = _label_subset_problem()
    _, converged, long_history = weighted_smacof(
        delta, weights, 4, init=start, max_iter=100_000, tol=0.0, relaxation=relaxation
    )
    _, stress, history = weighted_smacof(
        delta, weights, 4, init=start, max_iter=100_000, tol=1e-8, relaxation=relaxation
    )
    assert converged <= stress <= converged * (1 + 1e-6)
    assert len(history) < len(long_history)  # the tolerance did stop it early


def test_smacof_stops_at_a_negligible_stress_unless_tol_is_zero():
    # Euclidean dissimilarities, start a hair off the exact configuration: the stress is far
    # below 1e-8 of Σ Δ² (Kruskal stress-1 ~1e-6) but not zero, and the relative decrease per
    # update is still large, so only the negligible-stress stop ends the run at once.
    rng = np.random.default_rng(5)
    points = rng.normal(size=(20, 3))
    delta = cdist(points, points)
    start = points + 1e-6 * rng.normal(size=points.shape)
    scale = float(np.sum(np.triu(delta, 1) ** 2))
    _, stress, history = weighted_smacof(delta, None, 3, init=start, tol=1e-6, relaxation=0.0)
    assert len(history) == 1 and 1e-14 * scale < stress < 1e-8 * scale
    # tol = 0 runs every update (benchmarks time single updates this way)
    _, _, history = weighted_smacof(delta, None, 3, init=start, tol=0.0, max_iter=5, relaxation=0.0)
    assert len(history) == 6 and history[-1] < history[0]


def test_smacof_from_classical_start_keeps_exact_embedding():
    labels = (np.random.default_rng(4).random((30, 5)) < 0.5).astype(float)
    delta = np.sqrt(cdist(labels, labels, "cityblock"))
    _, stress, history = weighted_smacof(delta, None, 5, init=classical_mds(delta, 5))
    assert stress < 1e-12 * np.sum(delta**2)
    assert len(history) == 1  # already at zero stress: no update needed


def test_deterministic_and_best_of_n_init():
    delta, weights, *_ = _mirrored_problem(10, 7)
    first = weighted_smacof(delta, weights, 2, n_init=4, random_state=11)
    again = weighted_smacof(delta, weights, 2, n_init=4, random_state=11)
    np.testing.assert_array_equal(first[0], again[0])
    # The best of 4 runs is no worse than any single run drawn from the same generator.
    rng = np.random.RandomState(11)
    singles = [weighted_smacof(delta, weights, 2, n_init=1, random_state=rng)[1] for _ in range(4)]
    assert first[1] == pytest.approx(min(singles))


def test_bipartite_only_uses_cross_block():
    delta, weights, cross, a, b = _mirrored_problem(8, 9)
    junk = delta.copy()
    junk[:8, :8] = 5.0  # zero-weight entries must not matter
    junk[8:, 8:] = 7.0
    np.fill_diagonal(junk, 0.0)
    x1 = weighted_smacof(delta, weights, 2, random_state=0)[0]
    x2 = weighted_smacof(junk, weights, 2, random_state=0)[0]
    np.testing.assert_allclose(x1, x2)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d, w: (d[:, :3], w), "square"),
        (lambda d, w: (d - 5.0, w), "non-negative"),
        (lambda d, w: (np.where(np.eye(len(d)) > 0, np.nan, d), w), "NaN"),
        (lambda d, w: (d + np.triu(np.ones_like(d), 1), w), "symmetric"),
        (lambda d, w: (d, w[:-1, :-1]), "same objects"),
    ],
)
def test_invalid_input_is_explained(mutate, message):
    delta = _noisy_dissimilarities(6, 0)
    bad_delta, bad_weights = mutate(delta.copy(), np.ones_like(delta))
    with pytest.raises(ValueError, match=message):
        weighted_smacof(bad_delta, bad_weights, 2)


def test_disconnected_weights_are_rejected():
    delta = _noisy_dissimilarities(6, 0)
    weights = np.ones_like(delta)
    weights[:3, 3:] = 0.0
    weights[3:, :3] = 0.0
    with pytest.raises(ValueError, match="unconnected"):
        weighted_smacof(delta, weights, 2)


def test_bad_init_is_explained():
    delta = _noisy_dissimilarities(6, 0)
    with pytest.raises(ValueError, match=r"init must be a finite array of shape \(6, 2\)"):
        weighted_smacof(delta, None, 2, init=np.zeros((6, 3)))


_IN_1_INF = "must be an int in the range [1, inf)"


@pytest.mark.parametrize(
    "function, arguments, message",
    [
        (weighted_smacof, {"n_components": 0}, f"'n_components' parameter of {{}} {_IN_1_INF}"),
        (weighted_smacof, {"n_init": 2.5}, f"'n_init' parameter of {{}} {_IN_1_INF}. Got 2.5"),
        (weighted_smacof, {"max_iter": 0}, f"'max_iter' parameter of {{}} {_IN_1_INF}. Got 0"),
        (weighted_smacof, {"tol": -1e-3}, "'tol' parameter of {} must be a float in the range [0"),
        (weighted_smacof, {"relaxation": 1.5}, "'relaxation' parameter of {} must be a float in"),
        (weighted_smacof, {"relaxation": 1.5}, "the range [0.0, 1.0]. Got 1.5 instead"),
        (weighted_smacof, {"random_state": "seven"}, "'random_state' parameter of {} must be"),
        (weighted_smacof, {"weights": "uniform"}, "'weights' parameter of {} must be an array"),
        (classical_mds, {"n_components": "2"}, "'n_components' parameter of {} must be an int"),
        (landmark_mds, {"n_components": -1}, f"'n_components' parameter of {{}} {_IN_1_INF}"),
        (out_of_sample_smacof, {"n_jobs": 0}, f"'n_jobs' parameter of {{}} {_IN_1_INF}, an int"),
        (out_of_sample_smacof, {"n_jobs": 0}, "in the range (-inf, -1] or None. Got 0 instead"),
    ],
)
def test_bad_parameter_is_named_with_its_valid_range(function, arguments, message):
    delta = _noisy_dissimilarities(6, 0)
    call = {
        weighted_smacof: lambda **kw: weighted_smacof(
            delta, kw.pop("weights", None), kw.pop("n_components", 2), **kw
        ),
        classical_mds: lambda **kw: classical_mds(delta, **kw),
        landmark_mds: lambda **kw: landmark_mds(delta, delta, **kw),
        out_of_sample_smacof: lambda **kw: out_of_sample_smacof(np.zeros((6, 2)), delta[:2], **kw),
    }[function]
    with pytest.raises(InvalidParameterError) as raised:
        call(**arguments)
    assert isinstance(raised.value, ValueError)  # callers catching ValueError still do
    assert message.format(function.__name__) in str(raised.value)


def test_landmark_mds_with_every_point_a_landmark_is_classical_mds():
    rng = np.random.default_rng(11)
    points = rng.normal(size=(40, 6))
    delta = cdist(points, points) + 0.3 * (1 - np.eye(40))  # slightly non-Euclidean
    expected = classical_mds(delta, 3)
    result = landmark_mds(delta, delta, 3)
    # eigenvector signs are shared (same eigen-solver on the same matrix) up to rounding
    signs = np.sign(np.sum(expected * result, axis=0))
    np.testing.assert_allclose(result * signs, expected, atol=1e-9)


def test_landmark_mds_places_every_point_of_a_low_rank_set_exactly():
    rng = np.random.default_rng(12)
    points = rng.normal(size=(200, 2)) @ rng.normal(size=(2, 5))  # rank 2 in 5-D
    landmarks = rng.choice(200, size=12, replace=False)
    to_landmarks = cdist(points, points[landmarks])
    embedding = landmark_mds(to_landmarks[landmarks], to_landmarks, 2)
    np.testing.assert_allclose(cdist(embedding, embedding), cdist(points, points), atol=1e-8)


def test_landmark_mds_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="one column per landmark"):
        landmark_mds(np.ones((3, 3)) - np.eye(3), np.ones((5, 4)), 2)


def test_gemm_euclidean_distances_equal_cdist_and_are_exactly_zero_for_coincident_points():
    from mlviz.mds import euclidean_distances

    rng = np.random.default_rng(13)
    A = rng.normal(size=(60, 9)) * 100.0
    B = np.vstack([rng.normal(size=(30, 9)), A[:5]])  # five points coincide with rows of A
    np.testing.assert_allclose(euclidean_distances(A, B), cdist(A, B), rtol=1e-10, atol=1e-9)
    assert np.all(euclidean_distances(A, B)[np.arange(5), 30 + np.arange(5)] == 0.0)
    square = euclidean_distances(A)
    assert np.all(np.diag(square) == 0.0)
    np.testing.assert_allclose(square, cdist(A, A), rtol=1e-10, atol=1e-9)


def test_kruskal_stress1_hand_worked():
    # three points; Δ = (1, 1, 2) on pairs (01, 02, 12), d = (1, 2, 2): raw = 1, Σd² = 9
    delta = np.array([[0, 1, 1], [1, 0, 2], [1, 2, 0]], dtype=float)
    dist = np.array([[0, 1, 2], [1, 0, 2], [2, 2, 0]], dtype=float)
    assert kruskal_stress1(delta, dist) == pytest.approx(1 / 3)
    # weight 3 on the wrong pair (02): raw = 3, Σ w d² = 1 + 12 + 4 = 17
    w = np.array([[0, 1, 3], [1, 0, 1], [3, 1, 0]], dtype=float)
    assert kruskal_stress1(delta, dist, weights=w) == pytest.approx(np.sqrt(3 / 17))
    # invariant to scaling Δ and d together; zero for an exact embedding
    assert kruskal_stress1(10 * delta, 10 * dist, weights=w) == pytest.approx(np.sqrt(3 / 17))
    assert kruskal_stress1(dist, dist) == 0.0


def test_kruskal_stress1_rejects_collapsed_and_mismatched_input():
    delta = np.ones((3, 3)) - np.eye(3)
    with pytest.raises(ValueError, match="every embedded distance is zero"):
        kruskal_stress1(delta, np.zeros((3, 3)))
    assert kruskal_stress1(np.zeros((3, 3)), np.zeros((3, 3))) == 0.0
    with pytest.raises(ValueError, match="same shape"):
        kruskal_stress1(delta, np.ones((4, 4)))


# ------------------------------------------------------------ out-of-sample placement


def test_out_of_sample_hand_worked_two_landmarks_on_a_line():
    # minimise 3 (|z| - 0.5)^2 + (|z - 2| - 0.5)^2 on 0 <= z <= 2: 6(z - .5) = 2(1.5 - z), z = 3/4
    from mlviz.mds import out_of_sample_smacof

    landmarks = np.array([[0.0], [2.0]])
    placed, stress, n_iter = out_of_sample_smacof(
        landmarks,
        np.array([[0.5, 0.5]]),
        weights=np.array([[3.0, 1.0]]),
        init=np.array([[1.6]]),
        tol=0.0,
        max_iter=500,
    )
    assert placed[0, 0] == pytest.approx(0.75, abs=1e-9)
    assert stress[0] == pytest.approx(3 * 0.25**2 + 0.75**2, abs=1e-12)
    assert 1 <= n_iter[0] <= 500


@pytest.mark.parametrize("relaxation", [0.0, 0.9])
def test_out_of_sample_as_combinations_of_landmarks_is_the_direct_iteration(
    monkeypatch, relaxation
):
    # with M > n_landmarks / 2 (full rank, no init) the points are carried as combinations of
    # the landmarks and updated through their Gram matrix: the same iterates as the direct
    # update from the same triangulated start (given as init, which takes the direct path),
    # including a point that lands on a landmark (the distances' cancellation fallback)
    import mlviz.mds as mds

    rng = np.random.default_rng(3)
    landmarks = rng.normal(size=(30, 20)) + 5.0  # off-centre: the centring is exercised
    truth = np.vstack([rng.normal(size=(40, 20)) + 5.0, landmarks[[7]]])
    delta = np.abs(cdist(truth, landmarks) + rng.normal(scale=0.3, size=(41, 30)))
    delta[-1] = cdist(landmarks[[7]], landmarks)[0]  # exactly landmark 7's distances
    weights = rng.uniform(0.5, 2.0, size=(41, 1))
    gram_calls = []
    place = mds._place_chunk

    def spy(*args, **kwargs):
        gram_calls.append(kwargs.get("gram") is not None)
        return place(*args, **kwargs)

    monkeypatch.setattr(mds, "_place_chunk", spy)
    combined, stress, n_iter = mds.out_of_sample_smacof(
        landmarks, delta, weights=weights, relaxation=relaxation, tol=1e-9
    )
    centred = landmarks - landmarks.mean(axis=0)
    start = mds._triangulation_rhs(delta, centred) @ np.linalg.pinv(centred).T
    direct, direct_stress, direct_iter = mds.out_of_sample_smacof(
        landmarks,
        delta,
        weights=weights,
        init=start + landmarks.mean(axis=0),
        relaxation=relaxation,
        tol=1e-9,
    )
    assert gram_calls == [True, False]
    np.testing.assert_allclose(combined, direct, atol=1e-7)
    np.testing.assert_allclose(stress, direct_stress, rtol=1e-7, atol=1e-12)
    assert np.mean(n_iter == direct_iter) >= 0.9  # a point may stop one update apart
    np.testing.assert_allclose(combined[-1], landmarks[7], atol=1e-6)
    assert stress[-1] < 1e-10 and np.all(n_iter[:-1] > 1)
    # the stopping rule (|Γ - z|² from the inner products) stops every point where the
    # direct one does, at a tolerance that stops them early
    early = [
        mds.out_of_sample_smacof(landmarks, delta, weights=weights, init=init, tol=1e-3)[2]
        for init in (None, start + landmarks.mean(axis=0))
    ]
    assert np.mean(early[0] == early[1]) >= 0.9 and early[0][:-1].max() > 1


def test_the_combinations_factors_from_the_gram_matrix_are_the_svds(monkeypatch):
    """The placement's combination path factors the landmarks' Gram matrix by ``eigh`` (a
    third of the SVD's time at 1,000 landmarks): the same pseudo-inverse and null-space
    projector as from the SVD, the same placement as with the SVD's factors; landmarks too
    ill-conditioned for the Gram matrix, or of rank below M, are left to the SVD."""
    import mlviz.mds as mds

    rng = np.random.default_rng(5)
    landmarks = rng.normal(size=(30, 20)) + 3.0
    centred = landmarks - landmarks.mean(axis=0)
    gram, pinv, null = mds._combination_factors(centred)
    np.testing.assert_allclose(gram, centred @ centred.T, rtol=1e-12)
    np.testing.assert_allclose(pinv, np.linalg.pinv(centred @ centred.T), atol=1e-12)
    u = np.linalg.svd(centred, full_matrices=False)[0]
    np.testing.assert_allclose(null @ null.T, np.eye(30) - u @ u.T, atol=1e-12)
    np.testing.assert_allclose(null.T @ null, np.eye(10), atol=1e-12)

    points = rng.normal(size=(50, 20)) + 3.0
    delta = np.abs(cdist(points, landmarks) + rng.normal(scale=0.3, size=(50, 30)))
    by_gram = mds.out_of_sample_smacof(landmarks, delta, tol=1e-9)
    monkeypatch.setattr(mds, "_combination_factors", lambda centred: None)  # the SVD's
    by_svd = mds.out_of_sample_smacof(landmarks, delta, tol=1e-9)
    np.testing.assert_allclose(by_gram[0], by_svd[0], atol=1e-9)
    np.testing.assert_allclose(by_gram[1], by_svd[1], rtol=1e-9)
    np.testing.assert_array_equal(by_gram[2], by_svd[2])
    monkeypatch.undo()

    # a direction 1e-4 as long as the others (condition number 1e4): its squared singular
    # value 1e-8 of the largest is below GRAM_EIGH_MIN_RATIO, so the SVD factors it
    skewed = centred.copy()
    skewed[:, 0] = 1e-4 * skewed[:, 0] / np.abs(skewed[:, 0]).max() * np.abs(skewed).max()
    assert mds._combination_factors(skewed - skewed.mean(axis=0)) is None
    # rank below M (a repeated column) or M >= n_landmarks: no combination path
    assert mds._combination_factors(np.hstack([centred, centred[:, :1]])[:, :21]) is None
    assert mds._combination_factors(centred[:15]) is None


@pytest.mark.parametrize("combinations", [True, False])
def test_out_of_sample_in_float32_agrees_with_float64(monkeypatch, combinations):
    """``dtype="float32"`` runs the updates in single precision on both update paths: the
    same updates as float64, positions and stresses within ~1e-5 relative, float64 results,
    and a point on a landmark (the cancelling subtraction, below OOS_CANCELLATION's 1e-3 in
    float32) placed on it exactly."""
    import mlviz.mds as mds

    rng = np.random.default_rng(7)
    n_dims = 24 if combinations else 4  # 2 M > n_landmarks: points as combinations
    landmarks = rng.normal(scale=0.3, size=(40, n_dims)) + 1.0
    truth = np.vstack([rng.normal(scale=0.3, size=(60, n_dims)) + 1.0, landmarks[[5]]])
    delta = np.abs(cdist(truth, landmarks) * (1.0 + 0.05 * rng.random((61, 40))))
    delta[-1] = cdist(landmarks[[5]], landmarks)[0]  # exactly landmark 5's distances
    weights = rng.uniform(0.5, 2.0, size=delta.shape)
    paths, calls = [], []
    place, distances = mds._place_chunk, mds._distances_from_inner

    def spy(*args, **kwargs):
        paths.append((kwargs.get("gram") is not None, args[1].dtype, kwargs["cancellation"]))
        return place(*args, **kwargs)

    def spy_distances(inner, *args):
        calls.append(inner.dtype)
        return distances(inner, *args)

    monkeypatch.setattr(mds, "_place_chunk", spy)
    monkeypatch.setattr(mds, "_distances_from_inner", spy_distances)
    single = mds.out_of_sample_smacof(landmarks, delta, weights=weights, tol=1e-6, dtype="float32")
    assert paths == [(combinations, np.float32, 1e-3)] and set(calls) == {np.dtype(np.float32)}
    double = mds.out_of_sample_smacof(landmarks, delta, weights=weights, tol=1e-6)
    assert paths[1] == (combinations, np.float64, 1e-8) and calls[-1] == np.float64
    assert single[0].dtype == single[1].dtype == np.float64
    scale = np.abs(double[0]).max()
    np.testing.assert_allclose(single[0], double[0], atol=1e-5 * scale)
    np.testing.assert_allclose(single[1], double[1], rtol=1e-4, atol=1e-7 * double[1].max())
    assert np.mean(single[2] == double[2]) >= 0.95  # a point may stop one update apart
    assert double[2].max() > 2  # the rule, not the start, stopped them
    np.testing.assert_allclose(single[0][-1], landmarks[5], atol=1e-5)
    with pytest.raises(ValueError, match="dtype"):
        mds.out_of_sample_smacof(landmarks, delta, dtype="float16")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_additive_weights_place_exactly_as_their_full_matrix(monkeypatch, dtype):
    """``AdditiveWeights(row, column)`` is ``row[:, None] + column[None, :]``, formed chunk by
    chunk: the same placement, bit for bit, as the full matrix; bad terms are refused."""
    import mlviz.mds as mds
    from mlviz.mds import AdditiveWeights, out_of_sample_smacof

    rng = np.random.default_rng(9)
    landmarks = rng.normal(size=(30, 5)) + 1.0
    delta = np.abs(cdist(rng.normal(size=(45, 5)) + 1.0, landmarks) + rng.normal(0, 0.2, (45, 30)))
    row, column = rng.integers(1, 9, size=45).astype(float), rng.integers(1, 9, size=30) * 1.0
    monkeypatch.setattr(mds, "_OOS_CHUNK", 8)  # several chunks
    additive = out_of_sample_smacof(
        landmarks, delta, weights=AdditiveWeights(row, column), tol=1e-7, dtype=dtype
    )
    full = out_of_sample_smacof(
        landmarks, delta, weights=row[:, None] + column[None, :], tol=1e-7, dtype=dtype
    )
    for got, expected in zip(additive, full, strict=True):
        np.testing.assert_array_equal(got, expected)
    assert additive[2].max() > 2  # the weights steered real updates
    with pytest.raises(ValueError, match=r"row of shape \(45,\).*column of shape \(30,\)"):
        out_of_sample_smacof(landmarks, delta, weights=AdditiveWeights(row[:-1], column))
    with pytest.raises(ValueError, match="finite and non-negative"):
        out_of_sample_smacof(landmarks, delta, weights=AdditiveWeights(row, -column))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("transform", [None, np.sqrt])
def test_rows_of_a_matrix_place_exactly_as_the_rows_taken_first(
    monkeypatch, dtype, n_jobs, transform
):
    """``RowsOf(matrix, rows, transform)`` is ``transform(matrix[rows])``, gathered chunk by
    chunk: the same placement, bit for bit, with equal, additive or no weights and whatever the
    number of threads; bad rows and bad values are refused."""
    import mlviz.mds as mds
    from mlviz.mds import AdditiveWeights, RowsOf, out_of_sample_smacof

    rng = np.random.default_rng(11)
    landmarks = rng.normal(size=(30, 5)) + 1.0
    squared = cdist(rng.normal(size=(60, 5)) + 1.0, landmarks) ** 2 + rng.uniform(0, 0.1, (60, 30))
    matrix = squared if transform is np.sqrt else np.sqrt(squared)
    rows = np.sort(rng.choice(60, 45, replace=False))[::-1]  # any order, as CLEMS's need not be
    taken = matrix[rows] if transform is None else transform(matrix[rows])
    monkeypatch.setattr(mds, "_OOS_CHUNK", 8)  # several chunks
    weights = AdditiveWeights(rng.integers(1, 9, size=45) * 1.0, rng.integers(1, 9, size=30) * 1.0)
    for weight in (None, weights):
        options = dict(weights=weight, tol=1e-7, dtype=dtype, n_jobs=n_jobs)
        lazy = out_of_sample_smacof(landmarks, RowsOf(matrix, rows, transform), **options)
        eager = out_of_sample_smacof(landmarks, taken, **options)
        for got, expected in zip(lazy, eager, strict=True):
            np.testing.assert_array_equal(got, expected)
        assert lazy[2].max() > 2  # real updates, not the start alone
    with pytest.raises(ValueError, match=r"shape \(n_rows, 30\)"):
        out_of_sample_smacof(landmarks, RowsOf(matrix[:, :-1], rows, transform))
    with pytest.raises(ValueError, match=r"lie in 0\.\.59"):
        out_of_sample_smacof(landmarks, RowsOf(matrix, np.append(rows, 60), transform))
    with pytest.raises(ValueError, match="1-D array of int"):
        out_of_sample_smacof(landmarks, RowsOf(matrix, rows * 1.0, transform))
    negative = matrix.copy()
    negative[rows[-1], 3] = -1.0  # the last chunk's: found when it is gathered
    with pytest.raises(ValueError, match="finite; dissimilarities >= 0"):
        out_of_sample_smacof(landmarks, RowsOf(negative, rows, None), n_jobs=n_jobs)
    with pytest.raises(ValueError, match="finite; dissimilarities >= 0"):
        out_of_sample_smacof(landmarks, RowsOf(negative, rows, np.sqrt))  # sqrt(-1) is NaN


@pytest.mark.parametrize("padded_dims", [0, 4])
def test_out_of_sample_places_realisable_points_at_their_true_position(padded_dims):
    # dissimilarities that are exact distances to a position in the landmarks' span: the
    # triangulated start is that position, and Guttman updates from a far start reach it too;
    # extra all-zero dimensions (M larger than the landmarks' rank) change nothing
    from mlviz.mds import out_of_sample_smacof

    rng = np.random.default_rng(0)
    landmarks = np.hstack([rng.normal(size=(25, 3)), np.zeros((25, padded_dims))])
    truth = np.hstack([rng.normal(size=(6, 3)), np.zeros((6, padded_dims))])
    delta = cdist(truth, landmarks)
    weights = rng.uniform(0.5, 2.0, size=delta.shape)
    placed, stress, n_iter = out_of_sample_smacof(landmarks, delta, weights=weights)
    np.testing.assert_allclose(placed, truth, atol=1e-10)
    np.testing.assert_array_equal(n_iter, 0)  # exact start: zero stress, nothing to do
    far = truth + rng.normal(scale=2.0, size=truth.shape)
    far[:, 3:] = 0.0
    placed, stress, _ = out_of_sample_smacof(
        landmarks, delta, weights=weights, init=far, tol=0.0, max_iter=3000
    )
    np.testing.assert_allclose(placed, truth, atol=1e-5)
    assert stress.max() < 1e-9


@pytest.mark.parametrize("relaxation", [0.0, 0.9])
def test_out_of_sample_never_increases_a_points_stress(relaxation):
    # non-realisable, weighted dissimilarities: each point's stress after k + 1 updates is at
    # most its stress after k (same start), and below its stress at the start
    from mlviz.mds import out_of_sample_smacof

    rng = np.random.default_rng(1)
    landmarks = rng.normal(size=(15, 2))
    delta = rng.uniform(0.2, 3.0, size=(40, 15))
    weights = rng.uniform(0.1, 3.0, size=delta.shape)
    start = rng.normal(scale=3.0, size=(40, 2))
    initial = np.sum(weights * (delta - cdist(start, landmarks)) ** 2, axis=1)
    previous = initial
    for k in range(1, 15):
        placed, stress, _ = out_of_sample_smacof(
            landmarks,
            delta,
            weights=weights,
            init=start,
            max_iter=k,
            tol=0.0,
            relaxation=relaxation,
        )
        # the returned stress is that of the returned points
        np.testing.assert_allclose(
            stress, np.sum(weights * (delta - cdist(placed, landmarks)) ** 2, axis=1)
        )
        assert np.all(stress <= previous + 1e-12)
        previous = stress
    assert np.all(previous < initial)


def test_out_of_sample_stops_each_point_when_its_guttman_step_is_stationary(monkeypatch):
    # the rule: a point stops after the update whose plain Guttman step Γ - z (the gradient
    # step) guaranteed a decrease Σ w |Γ - z|² below tol * Σ w δ²; checked by hand from the
    # position before each point's last update and the one before that; chunking changes
    # nothing
    import mlviz.mds as mds

    rng = np.random.default_rng(2)
    landmarks = rng.normal(size=(12, 3))
    delta = rng.uniform(0.2, 3.0, size=(30, 12))
    weights = rng.uniform(0.5, 2.0, size=delta.shape)
    tol = 1e-3
    placed, stress, n_iter = mds.out_of_sample_smacof(
        landmarks, delta, weights=weights, tol=tol, max_iter=200
    )
    assert np.all(n_iter < 200) and np.all(n_iter >= 1)

    def guaranteed_decrease(i: int, updates: int) -> float:
        # the position after `updates` updates (0: the triangulated start, by lstsq here)
        if updates == 0:
            z = _triangulated(landmarks, delta[i])
        else:
            z = mds.out_of_sample_smacof(
                landmarks, delta[i : i + 1], weights=weights[i : i + 1], tol=0.0, max_iter=updates
            )[0][0]
        d = np.linalg.norm(z - landmarks, axis=1)
        w = weights[i]
        guttman = (w @ landmarks + (w * delta[i] / d) @ (z - landmarks)) / w.sum()
        return float(w.sum() * np.sum((guttman - z) ** 2))

    scale = np.sum(weights * delta**2, axis=1)
    for i in range(len(delta)):
        assert guaranteed_decrease(i, int(n_iter[i]) - 1) < tol * scale[i]
        if n_iter[i] >= 2:
            assert guaranteed_decrease(i, int(n_iter[i]) - 2) >= tol * scale[i]
    monkeypatch.setattr(mds, "_OOS_CHUNK", 7)
    chunked = mds.out_of_sample_smacof(landmarks, delta, weights=weights, tol=tol, max_iter=200)
    np.testing.assert_allclose(chunked[0], placed, atol=1e-12)


def _triangulated(landmarks: np.ndarray, delta_row: np.ndarray) -> np.ndarray:
    """Least-squares position from squared distances (landmark MDS's formula), by lstsq."""
    centre = landmarks.mean(axis=0)
    centred = landmarks - centre
    norms = np.sum(centred**2, axis=1)
    rhs = -0.5 * (delta_row**2 - np.mean(delta_row**2) - (norms - norms.mean()))
    return np.linalg.lstsq(centred, rhs, rcond=None)[0] + centre


def test_out_of_sample_rejects_a_point_without_weight():
    from mlviz.mds import out_of_sample_smacof

    weights = np.ones((3, 4))
    weights[1] = 0.0
    with pytest.raises(ValueError, match="no positive weight"):
        out_of_sample_smacof(np.eye(4), np.ones((3, 4)), weights=weights)
    with pytest.raises(ValueError, match=r"shape \(n_points, 4\)"):
        out_of_sample_smacof(np.eye(4), np.ones((3, 5)))


def _reference_placement(landmarks, delta, weights, start, max_iter, tol, relaxation):
    """The placement one point at a time with distances from scratch (cdist) at every step:
    the algorithm before its steps shared matrix products (issue 33), as an oracle."""
    z_all, stress_all, iters = start.copy(), np.empty(len(delta)), np.zeros(len(delta), int)
    for a in range(len(delta)):
        w, d_a, z = weights[a], delta[a], start[a].copy()

        def stress_at(p, w=w, d_a=d_a):
            return float(np.sum(w * (d_a - cdist(p[None], landmarks)[0]) ** 2))

        stress, scale = stress_at(z), float(np.sum(w * d_a**2))
        for _ in range(max_iter if stress > 1e-14 * scale else 0):
            dist = cdist(z[None], landmarks)[0]
            ratio = np.divide(w * d_a, dist, out=np.zeros_like(dist), where=dist > 0)
            guttman = (w @ landmarks + ratio.sum() * z - ratio @ landmarks) / w.sum()
            step = guttman
            if relaxation:
                relaxed = guttman + relaxation * (guttman - z)
                step = guttman if stress_at(guttman) <= stress_at(relaxed) else relaxed
            guaranteed = w.sum() * float(np.sum((guttman - z) ** 2))
            z, stress = step, stress_at(step)
            iters[a] += 1
            if guaranteed < tol * scale or stress <= 1e-14 * scale:
                break
        z_all[a], stress_all[a] = z, stress
    return z_all, stress_all, iters


@pytest.mark.parametrize("n_jobs", [None, 2])
@pytest.mark.parametrize("relaxation", [0.0, 0.9])
def test_out_of_sample_matches_the_one_point_at_a_time_reference(relaxation, n_jobs, monkeypatch):
    # landmarks of rank 4 in 6 dimensions, one point exactly on a landmark (distance 0 at the
    # start: the SMACOF convention for that term) and several chunks: same positions, stress
    # and update counts as the per-point oracle
    import mlviz.mds as mds

    rng = np.random.default_rng(5)
    landmarks = np.hstack([rng.normal(size=(30, 4)), np.zeros((30, 2))])
    delta = rng.uniform(0.2, 3.0, size=(25, 30))
    weights = rng.uniform(0.1, 2.0, size=delta.shape)
    start = np.hstack([rng.normal(scale=2.0, size=(25, 4)), np.zeros((25, 2))])
    start[3] = landmarks[7]
    monkeypatch.setattr(mds, "_OOS_CHUNK", 8)
    placed, stress, n_iter = mds.out_of_sample_smacof(
        landmarks,
        delta,
        weights=weights,
        init=start,
        tol=1e-5,
        max_iter=60,
        relaxation=relaxation,
        n_jobs=n_jobs,
    )
    expected = _reference_placement(landmarks, delta, weights, start, 60, 1e-5, relaxation)
    np.testing.assert_allclose(placed, expected[0], atol=1e-9)
    np.testing.assert_allclose(stress, expected[1], rtol=1e-9)
    np.testing.assert_array_equal(n_iter, expected[2])
    assert n_iter.min() >= 2 and n_iter.max() < 60  # the rule, not max_iter, stopped them


@pytest.mark.parametrize("combinations", [True, False])
def test_out_of_sample_places_chunks_on_threads_at_once_with_the_same_result(
    monkeypatch, combinations
):
    # n_jobs=2 runs two chunks at the same time (a barrier two chunks must reach together,
    # which times out when they run one after the other) with one BLAS thread each, and
    # places every point as one thread does, on both update paths
    import itertools
    import threading

    from threadpoolctl import threadpool_info

    import mlviz.mds as mds

    rng = np.random.default_rng(11)
    n_dims = 20 if combinations else 3  # 2 M > n_landmarks: points as combinations
    landmarks = rng.normal(size=(30, n_dims)) + 2.0
    delta = np.abs(cdist(rng.normal(size=(45, n_dims)) + 2.0, landmarks))
    delta += rng.uniform(0.0, 0.3, size=delta.shape)
    weights = rng.uniform(0.5, 2.0, size=delta.shape)
    monkeypatch.setattr(mds, "_OOS_CHUNK", 8)
    together, calls = threading.Barrier(2, timeout=5), itertools.count()
    seen = {"gram": set(), "blas_threads": set(), "threads": set()}
    place = mds._place_chunk

    def spy(*args, **kwargs):
        seen["gram"].add(kwargs.get("gram") is not None)
        seen["threads"].add(threading.get_ident())
        seen["blas_threads"].update(
            info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"
        )
        if next(calls) < 2:  # the first two chunks
            together.wait()
        return place(*args, **kwargs)

    monkeypatch.setattr(mds, "_place_chunk", spy)
    threaded = mds.out_of_sample_smacof(landmarks, delta, weights=weights, n_jobs=2)
    assert len(seen["threads"]) == 2 and seen["blas_threads"] == {1}
    assert seen["gram"] == {combinations}
    monkeypatch.setattr(mds, "_place_chunk", place)
    one = mds.out_of_sample_smacof(landmarks, delta, weights=weights)
    for got, expected in zip(threaded, one, strict=True):
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
