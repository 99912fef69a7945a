"""Tests of mlviz.sparse_recovery.cosamp (Needell & Tropp 2009, Algorithm 1).

The small cases are worked by hand in the comments; the reference loop below transcribes the
algorithm one signal at a time with scipy's least squares, to check the batched version.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as la
from sklearn.linear_model import orthogonal_mp

from mlviz import sparse_recovery
from mlviz.sparse_recovery import cosamp

SQRT_HALF = np.sqrt(0.5)
# two measurements, three unit-norm atoms: e1, e2 and their normalised sum
PHI = np.array([[1.0, 0.0, SQRT_HALF], [0.0, 1.0, SQRT_HALF]])


def _reference_cosamp(Phi, u, s, max_iter=30, tol=1e-10):
    """One signal, step by step; ties to the lower index (stable sorts), as cosamp documents."""
    K = Phi.shape[1]
    unit = Phi / np.linalg.norm(Phi, axis=0)
    a, v, support, merged_before, n_iter = np.zeros(K), u.copy(), set(), None, 0
    while n_iter < max_iter and np.linalg.norm(v) > tol * np.linalg.norm(u):
        n_iter += 1
        omega = np.argsort(-np.abs(unit.T @ v), kind="stable")[: min(K, 2 * s)]
        merged = sorted(set(omega.tolist()) | support)
        if merged == merged_before:
            break  # same merged support, same estimate: a fixed point
        merged_before = merged
        b = np.zeros(K)
        b[merged] = la.lstsq(Phi[:, merged], u)[0]
        kept = np.argsort(-np.abs(b), kind="stable")[: min(s, K)]
        candidate = np.zeros(K)
        candidate[kept] = b[kept]
        if n_iter > 1 and np.linalg.norm(u - Phi @ candidate) >= np.linalg.norm(v):
            break  # the residual stopped decreasing: keep the previous estimate
        a, support = candidate, set(kept.tolist())
        v = u - Phi @ a
    return a, n_iter


def _run_reference(Phi, U, s, **kwargs):
    results = [_reference_cosamp(Phi, u, s, **kwargs) for u in U]
    return np.array([a for a, _ in results]), np.array([n for _, n in results])


def _sparse_signals(n_signals, n_atoms, s, rng):
    A = np.zeros((n_signals, n_atoms))
    for row in A:
        row[rng.choice(n_atoms, size=s, replace=False)] = rng.choice([-1, 1], s) * (
            1 + rng.random(s)
        )
    return A


def test_hand_worked_single_iteration_and_fixed_point():
    # u = (1, 1/2). Proxy |PHI^T u| = (1, 1/2, 3/(2 sqrt 2) = 1.06): Omega = {2, 0}.
    # Least squares on {0, 2}: b2 / sqrt 2 = 1/2 -> b2 = 1/sqrt 2, b0 = 1 - 1/2 = 1/2.
    # Prune to s = 1: a = (0, 0, 1/sqrt 2) (not refitted), residual v = (1/2, 0).
    # Iteration 2: proxy (1/2, 0, 0.35): Omega = {0, 2}, merged {0, 2} again -> fixed point.
    expected = np.array([0.0, 0.0, SQRT_HALF])
    one, n_one = cosamp(PHI, [1.0, 0.5], 1, max_iter=1, return_n_iter=True)
    np.testing.assert_allclose(one, expected, atol=1e-15)
    assert n_one == 1
    full, n_full = cosamp(PHI, [1.0, 0.5], 1, return_n_iter=True)
    np.testing.assert_allclose(full, expected, atol=1e-15)
    assert n_full == 2
    # OMP with one atom refits on it: 3/(2 sqrt 2) on atom 2, a different answer
    omp = orthogonal_mp(PHI, np.array([1.0, 0.5]), n_nonzero_coefs=1)
    np.testing.assert_allclose(omp, [0.0, 0.0, 1.5 * SQRT_HALF])


def test_hand_worked_every_atom_identified_when_2s_reaches_K():
    # s = 2 = M, K = 3: 2s >= K, so Omega is every atom and b is the minimum-norm solution
    # PHI^T (PHI PHI^T)^{-1} u with PHI PHI^T = [[3/2, 1/2], [1/2, 3/2]]. For u = (1, 2):
    # (PHI PHI^T)^{-1} u = (1/4, 5/4), b = (1/4, 5/4, 3/(2 sqrt 2)); the two largest are
    # atoms 1 and 2, residual (1/4, 0); iteration 2 merges every atom again: fixed point.
    coefs, n_iter = cosamp(PHI, [1.0, 2.0], 2, return_n_iter=True)
    np.testing.assert_allclose(coefs, [0.0, 1.25, 1.5 * SQRT_HALF], atol=1e-14)
    assert n_iter == 2


def test_residual_rule_halts_after_exact_fit():
    # identity dictionary, u = (0, 2, 0), s = 1: Omega = {1, 0}, b = (0, 2, 0), prune keeps
    # atom 1, the residual is exactly zero -> halt after one iteration (even with tol = 0)
    for tol in (0.0, 1e-10):
        coefs, n_iter = cosamp(np.eye(3), [0.0, 2.0, 0.0], 1, tol=tol, return_n_iter=True)
        np.testing.assert_array_equal(coefs, [0.0, 2.0, 0.0])
        assert n_iter == 1


def test_zero_measurements_give_zero_signals_without_iterating():
    rng = np.random.default_rng(0)
    Phi = rng.standard_normal((5, 12))
    U = rng.standard_normal((4, 5))
    U[[0, 2]] = 0.0
    coefs, n_iter = cosamp(Phi, U, 2, return_n_iter=True)
    np.testing.assert_array_equal(coefs[[0, 2]], 0.0)
    np.testing.assert_array_equal(n_iter[[0, 2]], 0)
    assert (n_iter[[1, 3]] >= 1).all() and (np.count_nonzero(coefs[[1, 3]], axis=1) == 2).all()
    np.testing.assert_array_equal(cosamp(Phi, np.zeros(5), 3), np.zeros(12))


@pytest.mark.parametrize("seed", [0, 1])
def test_exact_recovery_from_enough_gaussian_measurements(seed):
    rng = np.random.default_rng(seed)
    K, M, s = 256, 80, 8
    Phi = rng.standard_normal((M, K)) / np.sqrt(M)
    A = _sparse_signals(200, K, s, rng)
    coefs, n_iter = cosamp(Phi, A @ Phi.T, s, return_n_iter=True)
    np.testing.assert_allclose(coefs, A, atol=1e-10)
    # halted by the residual rule, well before the cap
    assert n_iter.max() < 30
    np.testing.assert_allclose(coefs @ Phi.T, A @ Phi.T, atol=1e-10)


def test_matches_the_one_signal_reference_on_noisy_measurements():
    rng = np.random.default_rng(3)
    K, M, s = 40, 16, 4
    Phi = rng.standard_normal((M, K))
    A = _sparse_signals(60, K, s, rng)
    U = A @ Phi.T + 0.3 * rng.standard_normal((60, M))
    for max_iter in (1, 2, 30):
        coefs, n_iter = cosamp(Phi, U, s, max_iter=max_iter, return_n_iter=True)
        ref, ref_iter = _run_reference(Phi, U, s, max_iter=max_iter)
        np.testing.assert_allclose(coefs, ref, atol=1e-9)
        np.testing.assert_array_equal(n_iter, ref_iter)
        assert n_iter.max() <= max_iter
        assert (np.count_nonzero(coefs, axis=1) <= s).all()
    assert (n_iter > 2).any()  # the noisy case needs several iterations
    # later iterates are kept only when they lower the residual
    first = cosamp(Phi, U, s, max_iter=1)
    final = cosamp(Phi, U, s)
    residual = np.linalg.norm(U - final @ Phi.T, axis=1)
    assert (residual <= np.linalg.norm(U - first @ Phi.T, axis=1)).all()
    assert (residual < np.linalg.norm(U - first @ Phi.T, axis=1)).any()


def test_sparsity_at_least_K_is_the_minimum_norm_least_squares():
    rng = np.random.default_rng(5)
    Phi = rng.standard_normal((4, 6))
    U = rng.standard_normal((10, 4))
    coefs, n_iter = cosamp(Phi, U, 6, return_n_iter=True)
    np.testing.assert_allclose(coefs, la.lstsq(Phi, U.T)[0].T, atol=1e-10)
    np.testing.assert_allclose(coefs @ Phi.T, U, atol=1e-10)  # full row rank: exact fit
    np.testing.assert_array_equal(n_iter, 1)
    np.testing.assert_allclose(cosamp(Phi, U, 50), coefs)


def test_sparsity_above_M_prunes_the_minimum_norm_solution_when_2s_reaches_K():
    # yeast in the PLST paper: M = 4 Hadamard rows, K = 14, s = 11
    rng = np.random.default_rng(6)
    Phi = la.hadamard(16)[rng.permutation(16)[:4], :14] / 2.0
    U = rng.standard_normal((25, 4))
    coefs = cosamp(Phi, U, 11)
    least_norm = la.lstsq(Phi, U.T)[0].T
    for row, b in zip(coefs, least_norm, strict=True):
        kept = np.flatnonzero(row)
        assert kept.size <= 11
        np.testing.assert_allclose(row[kept], b[kept], atol=1e-10)
        # what was dropped is no larger than what was kept
        dropped = np.setdiff1d(np.arange(14), kept)
        assert np.abs(b[dropped]).max() <= np.abs(b[kept]).min() + 1e-10


def test_sparsity_at_least_M_with_many_atoms():
    rng = np.random.default_rng(7)
    Phi = rng.standard_normal((4, 30))
    U = rng.standard_normal((20, 4))
    coefs, n_iter = cosamp(Phi, U, 5, return_n_iter=True)
    assert np.all(np.isfinite(coefs))
    assert (np.count_nonzero(coefs, axis=1) <= 5).all()
    ref, ref_iter = _run_reference(Phi, U, 5)
    np.testing.assert_allclose(coefs, ref, atol=1e-9)
    np.testing.assert_array_equal(n_iter, ref_iter)


def test_batches_give_the_same_result(monkeypatch):
    rng = np.random.default_rng(8)
    Phi = rng.standard_normal((10, 30))
    U = rng.standard_normal((50, 10))
    whole = cosamp(Phi, U, 3)
    monkeypatch.setattr(sparse_recovery, "_BATCH_ELEMENTS", 1)  # one signal per batch
    np.testing.assert_array_equal(cosamp(Phi, U, 3), whole)


def test_one_dimensional_measurements_and_column_scaling():
    rng = np.random.default_rng(9)
    Phi = rng.standard_normal((20, 50))
    a = _sparse_signals(1, 50, 3, rng)[0]
    np.testing.assert_allclose(cosamp(Phi, Phi @ a, 3), a, atol=1e-10)
    # scaling a column scales its coefficient inversely and changes nothing else
    scale = np.ones(50)
    scale[np.flatnonzero(a)[0]] = 10.0
    np.testing.assert_allclose(cosamp(Phi * scale, Phi @ a, 3) * scale, a, atol=1e-10)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"dictionary": np.ones(3)}, "dictionary must be a non-empty 2-D array"),
        ({"measurements": np.ones((2, 3))}, r"measurements must have shape \(n_signals, 2\)"),
        ({"measurements": [np.nan, 1.0]}, "NaN or infinite"),
        ({"sparsity": 0}, "sparsity must be an integer >= 1"),
        ({"sparsity": 1.5}, "sparsity must be an integer >= 1"),
        ({"max_iter": 0}, "max_iter must be an integer >= 1"),
        ({"tol": -1.0}, "tol must be a real number >= 0"),
    ],
)
def test_bad_input_is_rejected_with_a_clear_message(kwargs, message):
    args = {"dictionary": PHI, "measurements": [1.0, 0.5], "sparsity": 1}
    args.update(kwargs)
    extra = {k: args.pop(k) for k in ("max_iter", "tol") if k in args}
    with pytest.raises(ValueError, match=message):
        cosamp(args["dictionary"], args["measurements"], args["sparsity"], **extra)
