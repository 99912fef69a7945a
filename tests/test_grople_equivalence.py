"""GroPLE's fast paths give the iterates of the plain algorithm (issue 14 speed-ups).

Each reference below is Algorithm 1 / the Eq. (5) APG written out the direct way (dense
{-1, 1} labels, the (N, d) matrix U formed at every step, every product recomputed, fresh
arrays everywhere), as mlviz computed them before the Gram-form and buffer speed-ups. The
library must follow the same iterates up to rounding: same objective history, same factors.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.linalg import eigh, solve

from mlviz.grople import (
    GroPLE,
    _fit_label_embedding,
    _largest_eigenvalue,
    _SignedLabels,
    fit_feature_embedding,
    fit_label_embedding,
    label_correlation_penalty,
    prox_group_l21,
)
from mlviz.synthetic import make_long_tailed


def _reference_apg(U, Y, lambda2, groups, *, gamma, max_iter, tol, V_init):
    UtU, UtY = U.T @ U, U.T @ Y
    lipschitz = 2.0 * eigh(UtU, eigvals_only=True)[-1]
    if lipschitz <= 0:
        return np.zeros((U.shape[1], Y.shape[1]))
    if V_init is None:
        V = solve(UtU + gamma * np.eye(U.shape[1]), UtY)
    else:
        V = V_init.copy()
    V_previous, momentum = V, 1.0
    for _ in range(max_iter):
        momentum_next = (1.0 + np.sqrt(1.0 + 4.0 * momentum**2)) / 2.0
        search = V + (momentum - 1.0) / momentum_next * (V - V_previous)
        gradient = 2.0 * (UtU @ search - UtY)
        V_previous, V = (
            V,
            prox_group_l21(search - gradient / lipschitz, lambda2 / lipschitz, groups),
        )
        momentum = momentum_next
        if np.linalg.norm(V - V_previous) <= tol * max(1.0, np.linalg.norm(V)):
            break
    return V


def _subproblem(Y, U, V, groups, lambda2):
    # objective (A.3) of every group
    return np.array(
        [
            ((Y[:, groups == k] - U @ V[:, groups == k]) ** 2).sum()
            + lambda2 * np.linalg.norm(V[:, groups == k], axis=1).sum()
            for k in range(groups.max() + 1)
        ]
    )


def _reference_label_embedding(Y, groups, d, lambda1, lambda2, *, init, max_iter, tol=1e-4):
    """Algorithm 1 the direct way: APG warm start, per-group safeguard, balancing step."""
    if init == "svd":
        left, singular, _ = np.linalg.svd(Y, full_matrices=False)
        U = np.zeros((Y.shape[0], d))
        rank = min(d, singular.size)
        U[:, :rank] = left[:, :rank] * np.sqrt(singular[:rank])
    else:
        U = np.random.default_rng(0).standard_normal((Y.shape[0], d)) / np.sqrt(d)
    V, history = None, []
    for _ in range(max_iter):
        candidate = _reference_apg(
            U, Y, lambda2, groups, gamma=0.1, max_iter=100, tol=1e-4, V_init=V
        )
        if V is None:
            V = candidate
        else:
            keep = _subproblem(Y, U, candidate, groups, lambda2) <= _subproblem(
                Y, U, V, groups, lambda2
            )
            V = np.where(keep[groups][None, :], candidate, V)
        U = Y @ V.T @ np.linalg.inv(V @ V.T + lambda1 * np.eye(d))
        v_l21 = sum(
            np.linalg.norm(V[:, groups == k], axis=1).sum() for k in range(groups.max() + 1)
        )
        c = (lambda2 * v_l21 / (2.0 * lambda1 * (U**2).sum())) ** (1.0 / 3.0)
        U, V = U * c, V / c
        history.append(((Y - U @ V) ** 2).sum() + lambda1 * (U**2).sum() + lambda2 * v_l21 / c)
        if len(history) > 1 and history[-2] - history[-1] <= tol * abs(history[-2]):
            break
    return U, V, history


def _reference_feature_embedding(
    X, U, alpha, beta, *, max_iter, tol=1e-6, gamma=0.1, step="uniform"
):
    """The Eq. (5) APG the direct way, on dense centred X and U (fit_intercept=True).

    ``step="diagonal"``: entry (j, c) steps by 1 / P_jc with
    P_jc = 2 (sum_k |G_jk| + alpha sum_k |R_ck|) (G = X_c^T X_c formed densely); the
    library's P is the same up to the last bits of the sums, hence rtol=1e-9 below.
    """
    Xc, Uc = X - X.mean(axis=0), U - U.mean(axis=0)
    R = label_correlation_penalty(U)

    def objective(Z):
        return ((Xc @ Z - Uc) ** 2).sum() + alpha * np.sum(Z * (Z @ R)) + beta * np.abs(Z).sum()

    gram = Xc.T @ Xc
    if step == "diagonal":  # one curvature per entry of Z
        rows, columns = np.abs(gram).sum(axis=1), alpha * np.abs(R).sum(axis=1)
        curvature = 2.0 * (rows[:, None] + columns[None, :])
        # a constant feature with alpha = 0: no curvature, a zero gradient; any step will do
        curvature[curvature <= 0] = 1.0
    else:  # the Lipschitz constant
        curvature = 2.0 * (eigh(gram, eigvals_only=True)[-1] + alpha * np.abs(eigh(R)[0]).max())
    curvature *= 1.0 + 1e-9
    Z = solve(gram + gamma * np.eye(X.shape[1]), Xc.T @ Uc)
    history, best = [objective(Z)], Z
    Z_previous, momentum = Z, 1.0
    for _ in range(max_iter):
        momentum_next = (1.0 + np.sqrt(1.0 + 4.0 * momentum**2)) / 2.0
        search = Z + (momentum - 1.0) / momentum_next * (Z - Z_previous)
        half_gradient = Xc.T @ (Xc @ search - Uc) + alpha * search @ R
        moved = search - 2.0 / curvature * half_gradient
        Z_previous, Z = Z, np.sign(moved) * np.maximum(np.abs(moved) - beta / curvature, 0.0)
        momentum = momentum_next
        history.append(objective(Z))
        if history[-1] < min(history[:-1]):
            best = Z
        if abs(history[-2] - history[-1]) <= tol * abs(history[-2]):
            break
    return best, U.mean(axis=0) - X.mean(axis=0) @ best, history


def _labels(n_samples=150, n_labels=12, seed=0):
    data = make_long_tailed(
        n_samples=n_samples, n_features=20, n_labels=n_labels, cardinality=2.5, random_state=seed
    )
    return data.X.toarray() if sp.issparse(data.X) else np.asarray(data.X), data.Y


@pytest.mark.parametrize("use_gram", [True, False])
@pytest.mark.parametrize("init", ["random", "svd"])
@pytest.mark.parametrize("n_components", [5, 16])  # d below and above L
def test_label_embedding_follows_the_direct_algorithm(use_gram, init, n_components):
    _, Y = _labels()
    Ys = 2.0 * Y - 1.0
    groups = np.arange(Y.shape[1]) % 3
    U_ref, V_ref, history_ref = _reference_label_embedding(
        Ys, groups, n_components, 1e-3, 1.0, init=init, max_iter=25
    )
    U, V, history = fit_label_embedding(
        Ys,
        groups,
        n_components,
        1e-3,
        1.0,
        init=init,
        max_iter=25,
        use_gram=use_gram,
        random_state=0,
    )
    assert len(history) == len(history_ref)
    np.testing.assert_allclose(history, history_ref, rtol=1e-8)
    np.testing.assert_allclose(U @ V, U_ref @ V_ref, atol=1e-6)
    np.testing.assert_allclose(V, V_ref, atol=1e-6)


@pytest.mark.parametrize("store", ["csr", "dense", "dense_mostly_ones"])
def test_binary_labels_give_the_signed_products_and_fit(store):
    # the estimator passes the 0/1 matrix (CSR when mostly zeros); S = 2Y - 1 is never formed
    _, Y = _labels(n_labels=80)  # 3 % ones
    if store == "dense_mostly_ones":
        Y = 1 - Y  # above the sparse threshold: dense BLAS products
    labels = _SignedLabels(sp.csr_matrix(Y) if store == "csr" else Y, signed=False)
    assert sp.issparse(labels.binary) == (store != "dense_mostly_ones")
    S = 2.0 * Y - 1.0
    rng = np.random.default_rng(0)
    U, W = rng.standard_normal((Y.shape[0], 4)), rng.standard_normal((Y.shape[1], 4))
    np.testing.assert_allclose(labels.gram(), S.T @ S)
    np.testing.assert_allclose(labels.rmatmul(U), U.T @ S)
    np.testing.assert_allclose(labels.matmul(W), S @ W)
    np.testing.assert_allclose(labels.column_sq_norms(), (S**2).sum(axis=0))

    groups = np.arange(Y.shape[1]) % 4
    U_signed, _, history_signed = fit_label_embedding(
        S, groups, 8, 1e-3, 1.0, max_iter=15, random_state=0
    )
    U, _, history = _fit_label_embedding(
        labels,
        groups,
        8,
        1e-3,
        1.0,
        init="random",
        gamma=0.1,
        max_iter=15,
        tol=1e-4,
        apg_max_iter=100,
        apg_tol=1e-4,
        balance=True,
        warm_start=True,
        random_state=0,
        use_gram=None,
    )
    np.testing.assert_allclose(history, history_signed, rtol=1e-10)
    np.testing.assert_allclose(U, U_signed, atol=1e-8)


@pytest.mark.parametrize("step", ["uniform", "diagonal"])
@pytest.mark.parametrize("alpha", [0.0, 0.5])
@pytest.mark.parametrize("use_gram", [True, False])
def test_feature_embedding_follows_the_direct_apg(alpha, use_gram, step):
    X, Y = _labels()
    U, _, _ = fit_label_embedding(
        2.0 * Y - 1.0, np.arange(Y.shape[1]) % 3, 6, 1e-3, 1.0, random_state=0
    )
    Z_ref, intercept_ref, history_ref = _reference_feature_embedding(
        X, U, alpha, 0.3, max_iter=80, step=step
    )
    for X_in in (X, sp.csr_matrix(X)):
        Z, intercept, history = fit_feature_embedding(
            X_in, U, alpha, 0.3, max_iter=80, use_gram=use_gram, step=step
        )
        np.testing.assert_allclose(history, history_ref, rtol=1e-9)
        np.testing.assert_allclose(Z, Z_ref, atol=1e-9)
        np.testing.assert_allclose(intercept, intercept_ref, atol=1e-9)


def test_estimator_scores_equal_the_direct_pipeline():
    X, Y = _labels(n_samples=200, n_labels=15, seed=1)
    groups = np.arange(Y.shape[1]) % 3
    model = GroPLE(
        n_components=10,
        groups=groups,
        solver="alternating",  # the paper's Algorithm 1, which the reference writes out
        max_iter=30,
        feature_max_iter=60,
        feature_step="uniform",  # LLSF's step, which the reference writes out
        random_state=0,
    ).fit(X, Y)
    U, V, history = _reference_label_embedding(
        2.0 * Y - 1.0, groups, 10, 1e-3, 1.0, init="random", max_iter=30
    )
    Z, intercept, _ = _reference_feature_embedding(X, U, 0.01, 1.0, max_iter=60)
    np.testing.assert_allclose(model.objective_history_, history, rtol=1e-8)
    scores = (X @ Z + intercept) @ V
    np.testing.assert_allclose(model.decision_function(X), scores, atol=1e-6)
    np.testing.assert_array_equal(model.predict(X), (scores > 0).astype(model.predict(X).dtype))


@pytest.mark.parametrize("size", [40, 300])  # eigh below 256 rows, Lanczos above
def test_lipschitz_constant_is_the_largest_eigenvalue(size):
    A = np.random.default_rng(size).standard_normal((2 * size, size))
    gram = A.T @ A
    expected = eigh(gram, eigvals_only=True)[-1]
    value = _largest_eigenvalue(gram)
    assert value >= expected * (1 - 1e-14)  # never below: the APG step stays valid
    assert value == pytest.approx(expected, rel=1e-9)


def test_lipschitz_constant_of_degenerate_matrices_above_the_lanczos_size():
    # U = 0 gives U^T U = 0 (ARPACK refuses it); a leading eigenvector orthogonal to the
    # all-ones vector must still be found (a structured start vector would miss it)
    assert _largest_eigenvalue(np.zeros((300, 300))) == 0.0
    alternating = np.where(np.arange(300) % 2, -1.0, 1.0)
    assert _largest_eigenvalue(np.outer(alternating, alternating)) == pytest.approx(300.0)
    assert _largest_eigenvalue(np.diag(np.r_[np.ones(299), 2.0])) == pytest.approx(2.0)


@pytest.mark.slow
def test_medical_fit_reaches_the_direct_algorithms_converged_objective():
    # issue 33: at the paper's medical setting (d = 100, K = 5) Algorithm 1 runs ~460 outer
    # iterations to its tolerance; the library's converged Eq. (4) must be the one the direct
    # algorithm reaches from the same start (same stop, objective within 1e-6 relative)
    from mlviz.io import load_arff
    from mlviz.label_clustering import LabelClustering
    from tests.conftest import mulan_path

    data = load_arff(mulan_path("medical.arff"))
    Y = np.asarray(data.Y, dtype=float)
    # stage 1 as GroPLE(n_groups=5, random_state=0) runs it
    groups = LabelClustering(n_groups=5, affinity="heat", n_neighbors=7, random_state=0)
    groups = groups.fit(Y).labels_
    _, _, history_ref = _reference_label_embedding(
        2.0 * Y - 1.0, groups, 100, 1e-3, 1.0, init="random", max_iter=1000
    )
    _, _, history = fit_label_embedding(
        2.0 * Y - 1.0, groups, 100, 1e-3, 1.0, init="random", max_iter=1000, random_state=0
    )
    assert 100 < len(history_ref) < 1000  # stopped by the tolerance, after many iterations
    assert len(history) == len(history_ref)
    assert history[-1] == pytest.approx(history_ref[-1], rel=1e-6)
