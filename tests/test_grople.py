"""GroPLE (paper 001): proximal operators, the two APG solvers, Algorithm 1 and the estimator."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from estimator_checks import assert_passes_estimator_checks
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.linear_model import Lasso, MultiTaskLasso, Ridge
from sklearn.metrics import adjusted_rand_score

from mlviz.grople import (
    GroPLE,
    _CentredDesign,
    _diagonal_majoriser,
    feature_embedding_objective,
    fit_feature_embedding,
    fit_label_embedding,
    label_correlation_penalty,
    label_embedding_objective,
    prox_group_l21,
    prox_l1,
    prox_l21,
    solve_group_coefficients,
)


def _grouped_sample(n_samples=200, n_features=12, seed=0):
    """Two label groups driven by two disjoint feature blocks (plus noise)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_samples, n_features))
    a = X[:, :3].sum(axis=1) > 0.5
    b = X[:, 3:6].sum(axis=1) > 0.5
    flip = rng.random((n_samples, 6)) < 0.03
    Y = np.column_stack([a, a, a, b, b, b]) ^ flip
    return X, Y.astype(np.uint8)


# ----------------------------------------------------------------------- proximal operators


def test_prox_l21_closed_form_on_hand_worked_rows():
    V = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])  # row norms 5, 0.5, 0
    out = prox_l21(V, 1.0)
    np.testing.assert_allclose(out[0], [3.0 * 4 / 5, 4.0 * 4 / 5])  # scaled by (5 - 1) / 5
    np.testing.assert_array_equal(out[1:], 0.0)  # norm <= threshold: exactly zero


@pytest.mark.parametrize("threshold", [0.3, 1.0, 2.5])
def test_prox_l21_matches_brute_force_minimisation(threshold):
    rng = np.random.default_rng(1)
    V = rng.standard_normal((3, 2)) * 1.5

    def objective(w):
        W = w.reshape(V.shape)
        return threshold * np.linalg.norm(W, axis=1).sum() + 0.5 * ((W - V) ** 2).sum()

    expected = prox_l21(V, threshold)
    for start in (np.zeros(V.size), V.ravel()):
        brute = minimize(objective, start, method="Powell", options={"xtol": 1e-10, "ftol": 1e-14})
        assert objective(expected.ravel()) <= brute.fun + 1e-9
        np.testing.assert_allclose(brute.x.reshape(V.shape), expected, atol=1e-4)


def test_prox_group_l21_equals_prox_l21_per_block():
    rng = np.random.default_rng(2)
    V = rng.standard_normal((5, 6))
    groups = np.array([0, 1, 0, 2, 1, 2])
    out = prox_group_l21(V, 0.9, groups)
    for k in range(3):
        np.testing.assert_allclose(out[:, groups == k], prox_l21(V[:, groups == k], 0.9))


@pytest.mark.parametrize("threshold", [0.0, 0.5, 100.0, 1e300])
def test_prox_group_l21_keeps_zero_rows_zero_without_overflow(threshold):
    # a zero row of V^k: 1 - t / 0 must become a zero row, not NaN, and a large t (lambda2 =
    # 100 in the Figure 1 grid) must not overflow the division (a RuntimeWarning on screen)
    V = np.array([[0.0, 0.0, 3.0], [1.0, 2.0, 0.0], [0.0, 0.0, 0.0]])
    groups = np.array([0, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = prox_group_l21(V, threshold, groups)
    assert np.all(np.isfinite(out))
    np.testing.assert_array_equal(out[2], 0.0)
    np.testing.assert_array_equal(out[0, :2], 0.0)
    expected = max(0.0, 1.0 - threshold / np.sqrt(5.0)) * V[1, :2]
    np.testing.assert_allclose(out[1, :2], expected)


def test_prox_l1_closed_form_and_brute_force():
    Z = np.array([[2.0, -0.5], [-3.0, 0.1]])
    np.testing.assert_allclose(prox_l1(Z, 1.0), [[1.0, 0.0], [-2.0, 0.0]])
    grid = np.linspace(-5, 5, 200001)
    for z in Z.ravel():
        brute = grid[np.argmin(1.0 * np.abs(grid) + 0.5 * (grid - z) ** 2)]
        assert prox_l1(np.array([[z]]), 1.0)[0, 0] == pytest.approx(brute, abs=1e-4)


# ----------------------------------------------------------------------- V^k subproblem


@pytest.mark.parametrize("lambda2", [0.5, 5.0, 40.0])
def test_apg_matches_multitask_lasso_and_kkt(lambda2):
    rng = np.random.default_rng(3)
    U = rng.standard_normal((60, 6))
    Y = np.sign(rng.standard_normal((60, 3)) + U[:, :1])
    V, _ = solve_group_coefficients(U, Y, lambda2, max_iter=20000, tol=1e-13)
    # MultiTaskLasso: (1 / 2N) ||Y - U W||^2 + a ||W||_21  ==  ours / 2N with a = lambda2 / 2N
    reference = MultiTaskLasso(
        alpha=lambda2 / (2 * len(U)), fit_intercept=False, tol=1e-12, max_iter=100000
    ).fit(U, Y)
    np.testing.assert_allclose(V, reference.coef_.T, atol=1e-6)
    # optimality: grad_i + lambda2 v_i / ||v_i|| = 0 on non-zero rows, ||grad_i|| <= lambda2 else
    gradient = 2 * (U.T @ (U @ V - Y))
    norms = np.linalg.norm(V, axis=1)
    for i in range(V.shape[0]):
        if norms[i] > 0:
            np.testing.assert_allclose(gradient[i], -lambda2 * V[i] / norms[i], atol=1e-6)
        else:
            assert np.linalg.norm(gradient[i]) <= lambda2 + 1e-6


# ----------------------------------------------------------------------- Algorithm 1


def test_outer_objective_never_increases_and_is_recorded_correctly():
    _, Y = _grouped_sample()
    Ys = 2.0 * Y - 1
    groups = np.array([0, 0, 0, 1, 1, 1])
    for init in ("random", "svd"):
        U, V, history = fit_label_embedding(
            Ys, groups, 8, 1e-3, 1.0, init=init, max_iter=60, tol=0.0, random_state=0
        )
        assert len(history) == 60
        assert np.all(np.diff(history) <= 1e-9 * abs(history[0]))
        assert history[-1] == pytest.approx(label_embedding_objective(Ys, U, V, groups, 1e-3, 1.0))


def test_the_gradient_of_eq4_with_u_eliminated_is_the_v_gradient_at_the_best_u():
    """Variable projection's gradient: F(V) = min_U ||S - U V||^2 + lambda1 ||U||^2 has
    grad F(V) = 2 (U^T U V - U^T S) at U = S V^T (V V^T + lambda1 I)^{-1} (the U term's own
    gradient vanishes there). Checked against central differences of F."""
    rng = np.random.default_rng(3)
    S = np.where(rng.random((30, 5)) < 0.4, 1.0, -1.0)
    V = rng.standard_normal((3, 5))
    lambda1 = 0.7

    def best_u(V):
        return S @ V.T @ np.linalg.inv(V @ V.T + lambda1 * np.eye(3))

    def F(V):
        U = best_u(V)
        return ((S - U @ V) ** 2).sum() + lambda1 * (U**2).sum()

    U = best_u(V)
    gradient = 2.0 * (U.T @ U @ V - U.T @ S)
    step = 1e-6
    numeric = np.zeros_like(V)
    for index in np.ndindex(V.shape):
        E = np.zeros_like(V)
        E[index] = step
        numeric[index] = (F(V + E) - F(V - E)) / (2 * step)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("use_gram", [True, False])
def test_varpro_records_a_decreasing_eq4_and_stops_where_algorithm_1_stops(use_gram):
    from mlviz.grople import _fit_label_embedding, _SignedLabels
    from mlviz.synthetic import make_planted

    data, planted = make_planted(n_samples=300, random_state=0)
    Ys = 2.0 * data.Y - 1.0
    runs = {}
    for solver in ("alternating", "varpro"):
        U, V, history = _fit_label_embedding(
            _SignedLabels(data.Y, signed=False),
            planted,
            12,
            1e-3,
            1.0,
            random_state=0,
            use_gram=use_gram,
            solver=solver,
        )
        assert np.all(np.diff(history) <= 1e-9 * abs(history[0])), solver
        value = label_embedding_objective(Ys, U, V, planted, 1e-3, 1.0)
        assert history[-1] == pytest.approx(value, rel=1e-9), solver
        # the last step is Algorithm 1's, stopped by its own rule
        assert history[-2] - history[-1] <= 1e-4 * abs(history[-2]) and len(history) < 1000
        runs[solver] = history
    # the same first two iterations (they define lambda2_max and lambda1_max)
    np.testing.assert_allclose(runs["varpro"][:2], runs["alternating"][:2], rtol=1e-12)
    # and a lower Eq. (4), in fewer iterations, on the planted sample (docs/GROPLE.md)
    assert runs["varpro"][-1] < runs["alternating"][-1]
    assert len(runs["varpro"]) < len(runs["alternating"])


@pytest.mark.parametrize("solver", ["varpro", "alternating"])
def test_group_sparsity_grows_with_lambda2_and_differs_between_groups(solver):
    # Each group has 3 labels, so 3 of the 10 latent rows can carry it whole: the solver
    # that gets closer to the minimum (varpro) keeps only those from λ2 = 0.01 on, the
    # alternation after 60 iterations still uses all of them there.
    X, Y = _grouped_sample()
    zero_rows = []
    for lambda2 in (1e-4, 0.01, 10.0, 30.0):
        model = GroPLE(
            n_components=10,
            groups=[0, 0, 0, 1, 1, 1],
            lambda2=lambda2,
            solver=solver,
            max_iter=60,
            feature_max_iter=20,
            random_state=0,
        ).fit(X, Y)
        for k in range(2):
            Vk = model.group_coefficients(k)
            # a row is zero for all labels of the group at once (Figure 1's shaded rows)
            row_zero = np.all(Vk == 0.0, axis=1)
            np.testing.assert_array_equal(row_zero, ~model.row_support_[k])
        zero_rows.append(int((~model.row_support_).sum()))
        if lambda2 == 10.0:
            # each group keeps its own latent rows: the two supports differ
            assert model.row_support_.any(axis=1).all()
            assert not np.array_equal(model.row_support_[0], model.row_support_[1])
    assert zero_rows == sorted(zero_rows) and zero_rows[0] < zero_rows[2] < zero_rows[3]


def test_planted_groups_recovered_and_supports_differ():
    from mlviz.synthetic import make_planted

    data, planted = make_planted(
        n_samples=500, n_groups=3, labels_per_group=4, n_tail=0, random_state=0
    )
    model = GroPLE(
        n_components=12, n_groups=3, lambda2=10.0, max_iter=80, feature_max_iter=50, random_state=0
    ).fit(data.X, data.Y)
    assert adjusted_rand_score(planted, model.groups_) > 0.95
    support = model.row_support_
    assert support.any(axis=1).all()
    pairs = [(a, b) for a in range(3) for b in range(a + 1, 3)]
    assert all(not np.array_equal(support[a], support[b]) for a, b in pairs)


# ----------------------------------------------------------------------- Eq. (5)


def test_correlation_penalty_guards_constant_columns():
    U = np.column_stack([np.arange(5.0), np.ones(5), -np.arange(5.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NaN division warning leaks from np.corrcoef
        R = label_correlation_penalty(U)
    np.testing.assert_allclose(R, [[0, 1, 2], [1, 0, 1], [2, 1, 0]], atol=1e-12)


def test_correlation_penalty_is_one_minus_pearson_on_varying_columns():
    rng = np.random.default_rng(11)
    U = rng.standard_normal((40, 5)) @ rng.standard_normal((5, 5)) + 3.0
    # Eq. (5)'s R from the formula: 1 - (centred, unit-norm columns)^T (same)
    centred = U - U.mean(axis=0)
    unit = centred / np.linalg.norm(centred, axis=0)
    np.testing.assert_allclose(label_correlation_penalty(U), 1.0 - unit.T @ unit, atol=1e-12)


@pytest.mark.parametrize(
    "U",
    [np.full((6, 3), 0.1), np.ones((1, 4)), np.arange(6.0)[:, None]],
    ids=["all-constant", "one-row", "one-column"],
)
def test_correlation_penalty_degenerate_shapes(U):
    """No variation anywhere (or one column): R is 1 off the diagonal, 0 on it, never NaN."""
    n_components = U.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        R = label_correlation_penalty(U)
    np.testing.assert_array_equal(R, 1.0 - np.eye(n_components))


def test_correlation_penalty_treats_rounding_noise_around_a_constant_as_constant():
    base = np.linspace(-1.0, 1.0, 7)
    U = np.column_stack([base, 0.1 + 1e-15 * base[::-1], base**2])
    R = label_correlation_penalty(U)
    assert R[0, 1] == R[1, 0] == R[1, 2] == 1.0
    assert np.isfinite(R).all()


@pytest.mark.parametrize("step", ["uniform", "diagonal"])
@pytest.mark.parametrize("sparse", [False, True])
def test_feature_embedding_alpha_zero_matches_sklearn_lasso(sparse, step):
    rng = np.random.default_rng(4)
    X = rng.standard_normal((80, 6)) * (rng.random((80, 6)) < 0.6)
    U = X[:, :3] @ rng.standard_normal((3, 4)) + 0.1 * rng.standard_normal((80, 4)) + 2.0
    beta = 3.0
    Xin = sp.csr_matrix(X) if sparse else X
    Z, intercept, _ = fit_feature_embedding(Xin, U, 0.0, beta, max_iter=20000, tol=1e-15, step=step)
    # Lasso: (1 / 2N) ||U - X Z - b||^2 + a ||Z||_1  ==  ours / 2N with a = beta / 2N
    reference = Lasso(alpha=beta / (2 * len(X)), tol=1e-14, max_iter=200000).fit(X, U)
    np.testing.assert_allclose(Z, reference.coef_.T, atol=1e-6)
    np.testing.assert_allclose(intercept, reference.intercept_, atol=1e-6)


@pytest.mark.parametrize("step", ["uniform", "diagonal"])
@pytest.mark.parametrize("use_gram", [True, False])
def test_feature_embedding_with_correlation_term_reaches_the_optimum(use_gram, step):
    rng = np.random.default_rng(5)
    X = rng.standard_normal((100, 5))
    U = np.column_stack([X[:, 0] + X[:, 1], X[:, 0] - 0.5 * X[:, 2], X[:, 3]]) + 0.2 * (
        rng.standard_normal((100, 3))
    )
    alpha, beta = 2.0, 4.0
    R = label_correlation_penalty(U)
    Xc, Uc = X - X.mean(axis=0), U - U.mean(axis=0)
    # precondition: the problem is convex (Hessian X_c^T X_c (x) I + alpha I (x) R is PD)
    assert np.linalg.eigvalsh(Xc.T @ Xc).min() + alpha * np.linalg.eigvalsh(R).min() > 0
    Z, intercept, history = fit_feature_embedding(
        X, U, alpha, beta, max_iter=20000, tol=1e-15, use_gram=use_gram, step=step
    )

    # independent solver: Z = P - N with P, N >= 0 makes the l1 term linear (L-BFGS-B)
    shape = Z.shape

    def split_objective(w):
        P, N = w[: Z.size].reshape(shape), w[Z.size :].reshape(shape)
        W = P - N
        residual = Xc @ W - Uc
        value = (residual**2).sum() + alpha * np.sum(W * (W @ R)) + beta * (P + N).sum()
        grad_W = 2 * Xc.T @ residual + 2 * alpha * W @ R
        return value, np.concatenate([(grad_W + beta).ravel(), (-grad_W + beta).ravel()])

    result = minimize(
        split_objective,
        np.zeros(2 * Z.size),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0, None)] * (2 * Z.size),
        options={"maxiter": 50000, "ftol": 1e-15, "gtol": 1e-12},
    )
    W = result.x[: Z.size].reshape(shape) - result.x[Z.size :].reshape(shape)
    np.testing.assert_allclose(Z, W, atol=1e-5)
    np.testing.assert_allclose(intercept, U.mean(axis=0) - X.mean(axis=0) @ Z, atol=1e-12)
    assert min(history) == pytest.approx(result.fun, rel=1e-8)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("store", ["dense_gram", "dense", "csr", "csr_bound", "dense_bound"])
def test_gram_row_sums_are_exact_or_an_upper_bound(store, fit_intercept, monkeypatch):
    # a few rows of X^T X at a time (the block size is forced down), exact; the bound is >=
    rng = np.random.default_rng(11)
    X = rng.standard_normal((40, 30)) * (rng.random((40, 30)) < 0.3) + 0.5 * (
        rng.random((40, 30)) < 0.1
    )
    monkeypatch.setattr("mlviz.grople._GRAM_BLOCK_ENTRIES", 7 * 30)
    Xin = X if store.startswith("dense") else sp.csr_matrix(X)
    design = _CentredDesign(Xin, fit_intercept, use_gram=store == "dense_gram")
    Xc = X - X.mean(axis=0) if fit_intercept else X
    exact = np.abs(Xc.T @ Xc).sum(axis=1)
    sums = design.gram_abs_row_sums(max_work=0 if store.endswith("bound") else np.inf)
    if store.endswith("bound"):
        assert np.all(sums >= exact * (1 - 1e-12))
        assert not np.allclose(sums, exact)  # a real bound here, not the exact sums by luck
    else:
        np.testing.assert_allclose(sums, exact, rtol=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_diagonal_step_majorises_the_hessian_of_eq5(sparse):
    # Hessian of the smooth part of Eq. (5) in vec(Z) (row-major): 2 (G (x) I_d + alpha I_D (x) R)
    rng = np.random.default_rng(12)
    X = rng.standard_normal((25, 8)) * (rng.random((25, 8)) < 0.5)
    U = rng.standard_normal((25, 4))
    R, alpha = label_correlation_penalty(U), 0.7
    design = _CentredDesign(sp.csr_matrix(X) if sparse else X, True)
    majoriser = _diagonal_majoriser(design, R, alpha, lipschitz=1.0)
    Xc = X - X.mean(axis=0)
    hessian = 2.0 * (np.kron(Xc.T @ Xc, np.eye(4)) + alpha * np.kron(np.eye(8), R))
    assert np.linalg.eigvalsh(np.diag(majoriser.ravel()) - hessian).min() >= -1e-9
    # and no looser than Gershgorin's row sums (what the docstring promises)
    rows = np.abs(Xc.T @ Xc).sum(axis=1)[:, None] + alpha * np.abs(R).sum(axis=1)[None, :]
    np.testing.assert_allclose(majoriser, 2.0 * rows, rtol=1e-8)


def test_diagonal_step_on_a_constant_feature_stays_at_zero():
    # a constant feature has a zero row in X_c^T X_c; with alpha = 0 its entries' majoriser
    # would be 0: the step falls back to the Lipschitz constant and Z's row stays 0
    rng = np.random.default_rng(13)
    X = np.column_stack([rng.standard_normal((30, 3)), np.full(30, 2.0)])
    U = X[:, :2] @ rng.standard_normal((2, 3))
    Z, _, history = fit_feature_embedding(X, U, 0.0, 0.1, max_iter=200)
    assert np.all(np.isfinite(history))
    np.testing.assert_array_equal(Z[3], 0.0)
    with pytest.raises(ValueError, match="step must be 'diagonal' or 'uniform'"):
        fit_feature_embedding(X, U, 0.0, 0.1, step="newton")


@pytest.mark.parametrize("n_features", [15, 60])  # D < N (primal system) and D > N (dual)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("use_gram", [True, False])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_ridge_start_matches_sklearn_ridge(n_features, sparse, use_gram, fit_intercept):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((40, n_features)) * (rng.random((40, n_features)) < 0.3)
    U = rng.standard_normal((40, 5)) + 1.5
    design = _CentredDesign(sp.csr_matrix(X) if sparse else X, fit_intercept, use_gram)
    target = U - U.mean(axis=0) if fit_intercept else U
    reference = Ridge(alpha=0.1, fit_intercept=fit_intercept, solver="cholesky").fit(X, U)
    np.testing.assert_allclose(design.ridge_point(target, 0.1), reference.coef_.T, atol=1e-10)
    Xc = X - X.mean(axis=0) if fit_intercept else X
    np.testing.assert_allclose(design.dense_gram(), Xc.T @ Xc, atol=1e-10)
    np.testing.assert_allclose(design.dense_kernel(), Xc @ Xc.T, atol=1e-10)


@pytest.mark.parametrize("sparse", [False, True])
def test_feature_embedding_history_is_the_objective_and_paths_agree(sparse):
    # non-convex case (D > N, alpha > 0): the Gram and the product paths must follow the
    # same iterates, and the recorded objective must be Eq. (5) of the returned Z
    rng = np.random.default_rng(8)
    X = rng.standard_normal((30, 50)) * (rng.random((30, 50)) < 0.2)
    U = rng.standard_normal((30, 6))
    Xin = sp.csr_matrix(X) if sparse else X
    # LLSF's uniform step: the diagonal one descends the unbounded direction so fast that
    # after 60 steps Z ~ 1e12 and rounding alone separates the two paths
    runs = [
        fit_feature_embedding(
            Xin, U, 0.5, 0.3, max_iter=60, tol=0.0, use_gram=use_gram, step="uniform"
        )
        for use_gram in (True, False)
    ]
    (Z_gram, b_gram, h_gram), (Z_prod, b_prod, h_prod) = runs
    np.testing.assert_allclose(Z_gram, Z_prod, atol=1e-8)
    np.testing.assert_allclose(b_gram, b_prod, atol=1e-8)
    np.testing.assert_allclose(h_gram, h_prod, rtol=1e-9)
    R = label_correlation_penalty(U)
    Xc, Uc = X - X.mean(axis=0), U - U.mean(axis=0)
    value = feature_embedding_objective(Xc, Uc, Z_prod, R, 0.5, 0.3)
    assert min(h_prod) == pytest.approx(value, rel=1e-10)


# ----------------------------------------------------------------------- estimator


def test_estimator_outputs_and_sparse_dense_agree():
    X, Y = _grouped_sample()
    model = GroPLE(
        n_components=8, n_groups=2, max_iter=30, feature_max_iter=50, random_state=0
    ).fit(X, Y)
    scores = model.decision_function(X)
    assert scores.dtype == np.float64 and scores.shape == Y.shape
    predicted = model.predict(X)
    assert predicted.dtype == np.uint8
    np.testing.assert_array_equal(predicted, (scores > 0).astype(np.uint8))
    np.testing.assert_allclose(scores, (X @ model.Z_ + model.intercept_) @ model.V_)
    assert (predicted == Y).mean() > 0.85
    sparse_model = clone(model).fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(
        sparse_model.decision_function(sp.csr_matrix(X)), scores, rtol=1e-6, atol=1e-8
    )
    assert model.V_.shape == (8, 6) and model.U_.shape == (200, 8) and model.Z_.shape == (12, 8)
    assert model.row_support_.shape == (model.n_groups_, 8)
    assert adjusted_rand_score([0, 0, 0, 1, 1, 1], model.groups_) == pytest.approx(1.0)


def test_user_groups_skip_clustering_and_defaults_run_when_d_exceeds_labels():
    X, Y = _grouped_sample()
    model = GroPLE(
        groups=[[0, 1, 2], [3, 4, 5]], max_iter=5, feature_max_iter=5, random_state=0
    ).fit(X, Y)
    assert model.label_clustering_ is None
    np.testing.assert_array_equal(model.groups_, [0, 0, 0, 1, 1, 1])
    assert model.V_.shape == (100, 6)  # paper default d = 100 > L = 6 works
    with pytest.warns(UserWarning, match="larger than the number of labels"):
        GroPLE(max_iter=2, feature_max_iter=2, random_state=0).fit(X, Y)  # default K = 10 > L = 6


@pytest.mark.parametrize("affinity", ["heat", "cooccurrence", "correlation"])
def test_label_affinity_is_forwarded_to_stage_one(affinity):
    from mlviz.datasets import known_groups, load_source
    from mlviz.label_clustering import LabelClustering

    data = load_source("sample:planted")
    model = GroPLE(
        n_components=8,
        n_groups=4,
        label_affinity=affinity,
        max_iter=3,
        feature_max_iter=3,
        random_state=0,
    ).fit(data.X, data.Y)
    assert model.label_clustering_.affinity == affinity
    expected = LabelClustering(4, affinity=affinity, random_state=0).fit(data.Y).labels_
    np.testing.assert_array_equal(model.groups_, expected)
    if affinity == "cooccurrence":  # the planted groups, tail labels included
        assert adjusted_rand_score(known_groups(data), model.groups_) >= 0.9
    with pytest.raises(ValueError, match="precomputed"):
        GroPLE(label_affinity="precomputed", random_state=0).fit(data.X, data.Y)


def test_bad_input_raises_clear_errors():
    X, Y = _grouped_sample(n_samples=30)
    with pytest.raises(ValueError, match=r"'lambda1' parameter of GroPLE must be a float in the"):
        GroPLE(lambda1=0.0, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match=r"'n_components' parameter of GroPLE must be an int"):
        GroPLE(n_components=0, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match=r"'alpha' parameter of GroPLE must be a float"):
        GroPLE(alpha=-1.0, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match=r"'init' parameter of GroPLE must be a str among"):
        GroPLE(init="pca", random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match=r"'gamma' parameter of GroPLE must be a float"):
        GroPLE(gamma=0.0, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="one group id per label"):
        GroPLE(groups=[0, 1], random_state=0).fit(X, Y)
    model = GroPLE(n_components=3, n_groups=2, max_iter=3, feature_max_iter=3, random_state=0).fit(
        X, Y
    )
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :5])


def test_scikit_learn_estimator_checks():
    assert_passes_estimator_checks(GroPLE(n_components=4, n_groups=2, random_state=0))


def test_mostly_zero_dense_features_give_the_sparse_fit():
    from mlviz.grople import _CentredDesign

    rng = np.random.default_rng(31)
    X = rng.normal(size=(120, 60)) * (rng.random((120, 60)) < 0.05)
    Y = (X[:, :8] + rng.normal(scale=0.1, size=(120, 8)) > 0).astype(np.uint8)
    design = _CentredDesign(X, fit_intercept=True)
    assert sp.issparse(design.X)  # 5 % non-zeros: worked with as CSR
    assert design.gram is None  # D^2 = 3600 > 2 nnz: products, not the Gram matrix
    dense = GroPLE(n_components=4, n_groups=2, random_state=0).fit(X, Y)
    sparse = GroPLE(n_components=4, n_groups=2, random_state=0).fit(sp.csr_matrix(X), Y)
    # the same arithmetic up to the order of a few sums (column means)
    np.testing.assert_allclose(dense.Z_, sparse.Z_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(
        dense.decision_function(X), sparse.decision_function(X), rtol=1e-9, atol=1e-12
    )


def test_fit_limits_blas_threads_only_while_fitting():
    from threadpoolctl import threadpool_info

    before = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    X, Y = np.random.default_rng(32).normal(size=(40, 5)), np.eye(40, 4, dtype=np.uint8)
    Y[:, 0] = 1 - Y[:, 1]
    GroPLE(n_components=2, n_groups=2, random_state=0).fit(X, Y)
    after = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert after == before


def test_the_u_step_form_is_chosen_by_weighted_cost():
    # benchmarks/bench_grople_gram.py: the Gram form was faster on every shape measured, by
    # 1.6x on the chance panel's folds of a 159-label set (N = 373), which counting
    # multiply-adds alone gave to the direct form; many labels on few rows stay direct
    from mlviz.grople import _gram_form_is_cheaper

    assert _gram_form_is_cheaper(373, 159, 80, product_cost=900)
    assert _gram_form_is_cheaper(3000, 983, 100, product_cost=57_000)
    assert _gram_form_is_cheaper(1500, 14, 7, product_cost=6_300)
    assert not _gram_form_is_cheaper(20, 1845, 30, product_cost=370)
    # the former count (d L (L + d) against N d^2 + 2 d pc) gave the first case to the direct
    # form
    assert 80 * 159 * (159 + 80) > 373 * 80**2 + 2 * 80 * 900
