"""GroPLE's honesty about its fit (issue 22, part 5): the λ2 bound, degenerate fits, caps.

- :func:`mlviz.grople.lambda2_max`: at and above it Algorithm 1's first V step is exactly
  zero (optimality of V = 0 in Eq. A.3), just below it is not; a hand-worked value at d = 1.
- :func:`mlviz.grople.lambda1_max`: above it Algorithm 1's *second* V step is exactly zero
  (after one U step, Eq. A.2, and the balancing rescale), just below it is not; the d = 1 case
  against its closed form (a quadratic in λ1); the full fit just above it is all zero.
- ``degenerate_``: V all zero, or no label predicted on the training rows.
- ``converged_`` / ``feature_converged_`` and the ConvergenceWarning at an iteration cap.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from mlviz import datasets
from mlviz.evaluation import cross_validate, grid_search_cv
from mlviz.grople import (
    GroPLE,
    _initial_basis,
    _SignedLabels,
    lambda1_max,
    lambda2_max,
    solve_group_coefficients,
)


@pytest.fixture(scope="module")
def planted():
    ds = datasets.load_source("sample:planted")
    return np.asarray(ds.X), np.asarray(ds.Y)


def _first_v_step(Y, groups, d, lambda2):
    """Algorithm 2 at the fit's own start U_0 (what Algorithm 1 solves first)."""
    U0 = _initial_basis(_SignedLabels(Y, signed=False), d, "random", 0)
    V, _ = solve_group_coefficients(
        U0, 2.0 * Y - 1.0, lambda2, groups=groups, max_iter=5000, tol=1e-12
    )
    return V


# --------------------------------------------------------------------------- the λ2 bound


def test_lambda2_max_hand_worked_one_dimension():
    # d = 1, one group, init="svd": U_0 = u_1 sqrt(s_1), so U_0^T S = s_1^{3/2} v_1^T and the
    # bound is 2 s_1^{3/2} with s_1 the largest singular value of S = 2 Y - 1
    Y = np.array([[1, 0, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0]])
    s1 = np.linalg.svd(2.0 * Y - 1.0, compute_uv=False)[0]
    bound = lambda2_max(Y, np.zeros(3, dtype=int), 1, init="svd", random_state=0)
    assert bound == pytest.approx(2.0 * s1**1.5, rel=1e-12)
    sparse = lambda2_max(sp.csr_matrix(Y), np.zeros(3, dtype=int), 1, init="svd", random_state=0)
    assert sparse == pytest.approx(bound, rel=1e-12)


def test_lambda2_max_is_the_max_over_groups(planted):
    _, Y = planted
    groups = np.arange(Y.shape[1]) % 3
    whole = lambda2_max(Y, groups, 6, random_state=0)
    # each group alone (its labels only, same U_0: it depends on N and d, not on L)
    per_group = [
        lambda2_max(Y[:, groups == k], np.zeros((groups == k).sum(), int), 6, random_state=0)
        for k in range(3)
    ]
    assert whole == pytest.approx(max(per_group), rel=1e-12)
    assert min(per_group) < whole  # the groups differ, so the max is a real choice


@pytest.mark.parametrize("d", [4, 11])
def test_first_v_step_is_zero_exactly_from_the_bound(planted, d):
    _, Y = planted
    groups = np.arange(Y.shape[1]) % 4
    bound = lambda2_max(Y, groups, d, random_state=0)
    assert np.any(_first_v_step(Y, groups, d, 0.999 * bound))  # just below: a row survives
    assert not np.any(_first_v_step(Y, groups, d, bound * (1 + 1e-9)))
    assert not np.any(_first_v_step(Y, groups, d, 1.5 * bound))


def test_fit_at_or_above_the_bound_is_all_zero_and_says_so(planted):
    X, Y = planted
    model = GroPLE(n_components=11, n_groups=4, random_state=0, lambda1=1.0, lambda2=1.0).fit(X, Y)
    assert model.lambda2_max_ == pytest.approx(
        lambda2_max(Y, model.groups_, 11, random_state=0), rel=1e-12
    )
    assert model.V_.any() and model.degenerate_ == ""
    for factor in (1.0 + 1e-9, 2.0):
        high = GroPLE(
            random_state=0,
            n_components=11,
            n_groups=4,
            lambda1=1.0,
            lambda2=factor * model.lambda2_max_,
        ).fit(X, Y)
        assert not high.V_.any()
        assert not high.row_support_.any()
        assert "V is all zero" in high.degenerate_
        assert "Lower λ2" in high.degenerate_
        scores = high.decision_function(X)
        np.testing.assert_allclose(scores, scores[:1].repeat(len(X), axis=0))  # no feature counts


def test_well_below_the_bound_the_fit_uses_rows_and_predicts(planted):
    X, Y = planted
    bound = GroPLE(n_components=11, n_groups=4, random_state=0, lambda1=1.0).fit(X, Y).lambda2_max_
    model = GroPLE(
        n_components=11, n_groups=4, random_state=0, lambda1=1.0, lambda2=0.1 * bound
    ).fit(X, Y)
    assert model.row_support_.any(axis=1).all()
    assert model.predict(X).any() and model.degenerate_ == ""


# --------------------------------------------------------------------------- the λ1 bound


def _second_v_step(Y, groups, d, lambda1, lambda2):
    """One outer iteration of Algorithm 1 written out on the (N, d) matrices (not the Gram /
    eigen form of lambda1_max), then the second V step solved to high precision."""
    S = 2.0 * Y - 1.0
    U0 = _initial_basis(_SignedLabels(Y, signed=False), d, "random", 0)
    # the fit's own first V step: Algorithm 2 from its ridge point, 100 steps, tol 1e-4
    V1, _ = solve_group_coefficients(U0, S, lambda2, groups=groups, max_iter=100, tol=1e-4)
    U1 = np.linalg.solve(V1 @ V1.T + lambda1 * np.eye(d), V1 @ S.T).T  # Eq. (A.2)
    l21 = sum(np.linalg.norm(V1[:, groups == k], axis=1).sum() for k in np.unique(groups))
    c = (lambda2 * l21 / (2.0 * lambda1 * (U1**2).sum())) ** (1.0 / 3.0)  # balancing step
    V2, _ = solve_group_coefficients(c * U1, S, lambda2, groups=groups, max_iter=5000, tol=1e-13)
    return V2


def test_lambda1_max_hand_worked_one_dimension(planted):
    # d = 1, one group: V_1 = v (a row), s = ||v||^2, U_1 = S v^T / (s + λ1), and the zero test
    # 2 c ||v S^T S|| / (s + λ1) = λ2 with c^3 = λ2 ||v|| (s + λ1)^2 / (2 λ1 ||S v^T||^2)
    # becomes λ1 (s + λ1) = 4 a^3 ||v|| / (λ2^2 b), a = ||v S^T S||, b = ||S v^T||^2
    _, Y = planted
    groups = np.zeros(Y.shape[1], dtype=int)
    S = 2.0 * Y - 1.0
    U0 = _initial_basis(_SignedLabels(Y, signed=False), 1, "random", 0)
    for lambda2 in (1.0, 10.0):
        v, _ = solve_group_coefficients(U0, S, lambda2, groups=groups, max_iter=100, tol=1e-4)
        s = float((v**2).sum())
        a = np.linalg.norm(v @ S.T @ S)
        b = float(((S @ v.T) ** 2).sum())
        rhs = 4.0 * a**3 * np.linalg.norm(v) / (lambda2**2 * b)
        closed_form = (-s + np.sqrt(s**2 + 4.0 * rhs)) / 2.0
        bound = lambda1_max(Y, groups, 1, lambda2, random_state=0)
        assert bound == pytest.approx(closed_form, rel=1e-8)


@pytest.mark.parametrize("d", [3, 11])  # K d below L (per-group d x d Grams) and above it
@pytest.mark.parametrize("lambda2", [1.0, 10.0])
def test_second_v_step_is_zero_exactly_above_the_lambda1_bound(planted, lambda2, d):
    _, Y = planted
    groups = np.arange(Y.shape[1]) % 4
    assert (4 * d < Y.shape[1]) == (d == 3)
    bound = lambda1_max(Y, groups, d, lambda2, random_state=0)
    assert 0.0 < bound < np.inf
    assert np.any(_second_v_step(Y, groups, d, 0.99 * bound, lambda2))  # a row survives
    assert not np.any(_second_v_step(Y, groups, d, 1.01 * bound, lambda2))
    assert not np.any(_second_v_step(Y, groups, d, 3.0 * bound, lambda2))


def test_fit_above_the_lambda1_bound_is_all_zero_and_below_it_is_not(planted):
    X, Y = planted
    groups = np.arange(Y.shape[1]) % 4
    bound = lambda1_max(Y, groups, 11, 10.0, random_state=0)
    above = GroPLE(
        n_components=11, groups=groups, lambda1=1.01 * bound, lambda2=10.0, random_state=0
    ).fit(X, Y)
    assert not above.V_.any() and "V is all zero" in above.degenerate_
    below = GroPLE(
        n_components=11, groups=groups, lambda1=0.99 * bound, lambda2=10.0, random_state=0
    ).fit(X, Y)
    assert below.V_.any()
    # well below (the page's λ1 = 1) the fit uses rows and predicts
    usable = GroPLE(n_components=11, groups=groups, lambda1=1.0, lambda2=10.0, random_state=0)
    assert usable.fit(X, Y).degenerate_ == ""


def test_lambda1_max_ends_of_the_lambda2_range(planted):
    _, Y = planted
    groups = np.arange(Y.shape[1]) % 4
    assert lambda1_max(Y, groups, 11, 0.0, random_state=0) == np.inf  # no λ1 zeroes a ridge V
    top = lambda2_max(Y, groups, 11, random_state=0)
    assert lambda1_max(Y, groups, 11, top * (1 + 1e-9), random_state=0) == 0.0  # V_1 = 0


# --------------------------------------------------------------------------- degenerate fits


def test_a_fit_that_predicts_no_label_is_flagged(planted):
    X, Y = planted
    # β this large removes every feature (Z = 0): every row gets the intercept's scores, and
    # every planted label is off in most rows, so no score is positive
    model = GroPLE(n_components=11, n_groups=4, random_state=0, beta=1e9).fit(X, Y)
    assert not model.Z_.any()
    assert model.V_.any()
    assert not model.predict(X).any()
    assert "predicts no label" in model.degenerate_
    assert "Z is all zero" in model.degenerate_


@pytest.mark.parametrize("block_rows", [1, 7, 10_000])
def test_the_no_label_check_reads_every_block_of_rows(planted, monkeypatch, block_rows):
    # the check stops at the first block with a positive score; it must still see a positive
    # score in the last row, and say False where no row has one
    X, Y = planted
    model = GroPLE(n_components=11, n_groups=4, random_state=0).fit(X, Y)
    monkeypatch.setattr("mlviz.grople._SCORE_BLOCK_ENTRIES", block_rows * Y.shape[1])
    positive = (model.decision_function(X) > 0).any(axis=1)
    assert positive.any() and not positive.all()
    silent = X[~positive]
    assert not model._predicts_some_label(silent)
    with_last = np.concatenate([silent, X[positive][:1]])  # the only positive score last
    assert model._predicts_some_label(with_last)


# --------------------------------------------------------------------------- iteration caps


def test_cap_of_algorithm_1_is_flagged_and_warned(planted):
    X, Y = planted
    with pytest.warns(ConvergenceWarning, match=r"Algorithm 1 .*\(max_iter=2\)"):
        model = GroPLE(
            n_components=11, n_groups=4, random_state=0, lambda1=1.0, lambda2=10.0, max_iter=2
        ).fit(X, Y)
    assert model.n_iter_ == 2 and not model.converged_


def test_cap_of_the_feature_embedding_is_flagged_and_warned(planted):
    X, Y = planted
    with pytest.warns(ConvergenceWarning, match=r"feature embedding .*\(feature_max_iter=1\)"):
        model = GroPLE(n_components=11, n_groups=4, random_state=0, feature_max_iter=1).fit(X, Y)
    assert model.feature_n_iter_ == 1 and not model.feature_converged_


def test_a_converged_fit_is_flagged_and_silent(planted):
    X, Y = planted
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = GroPLE(n_components=11, n_groups=4, random_state=0, lambda1=1.0, lambda2=10.0).fit(
            X, Y
        )
    assert model.converged_ and model.n_iter_ < model.max_iter
    assert model.feature_converged_ and model.feature_n_iter_ < model.feature_max_iter
    history = model.objective_history_
    assert (history[-2] - history[-1]) <= model.tol * abs(history[-2])


# --------------------------------------------------------------------------- grid search


def test_grid_search_cv_picks_the_best_cell_of_cross_validate(planted):
    X, Y = planted
    X, Y = X[:240], Y[:240]
    base = GroPLE(n_components=6, n_groups=4, max_iter=200, random_state=0)
    grid = {"lambda1": [1e-3, 1.0], "lambda2": [1.0, 1e4]}  # 1e4 is above the bound: V = 0
    result = grid_search_cv(base, grid, X, Y, metric="micro_f1", cv=3, random_state=0)
    assert list(result.table.columns[:2]) == ["lambda1", "lambda2"]
    assert len(result.table) == 4
    # each cell's mean is what cross_validate gives that estimator alone on the same folds
    for cell in result.table.itertuples(index=False):
        alone = cross_validate(
            {"m": base.set_params(lambda1=cell.lambda1, lambda2=cell.lambda2)},
            X,
            Y,
            cv=3,
            metrics=["micro_f1"],
            random_state=0,
        ).results
        assert alone["value"].mean() == pytest.approx(cell.mean, abs=1e-12)
    best = result.table["mean"].idxmax()
    assert result.best_score == result.table["mean"].max()
    assert result.best_params == {
        "lambda1": result.table.loc[best, "lambda1"],
        "lambda2": result.table.loc[best, "lambda2"],
    }
    assert result.best_params["lambda2"] == 1.0  # the zero model predicts nothing: F1 0
    with pytest.raises(ValueError, match="unknown metric"):
        grid_search_cv(base, grid, X, Y, metric="nope")


@pytest.mark.parametrize("sparse", [False, True])
def test_lambda_bounds_from_one_start_are_the_functions_bounds(planted, sparse):
    # LambdaBounds keeps U_0's products for both bounds: the same numbers, bit for bit, as
    # lambda2_max and lambda1_max, on a λ2 grid across λ2_max (bound 0 from there on) and at
    # λ2 = 0 (inf), for dense and CSR labels
    import scipy.sparse as sp

    from mlviz.grople import LambdaBounds, lambda1_max, lambda2_max

    _, Y = planted
    groups = np.arange(Y.shape[1]) % 4
    Y = sp.csr_matrix(Y) if sparse else Y
    for d in (2, 11):  # K d below L (per-group d x d Grams) and above it
        bounds = LambdaBounds(Y, groups, d, random_state=3)
        top = lambda2_max(Y, groups, d, random_state=3)
        assert bounds.lambda2_max() == top > 0
        for lambda2 in (0.0, 0.01 * top, 0.3 * top, top, 2 * top):
            expected = lambda1_max(Y, groups, d, lambda2, random_state=3)
            assert bounds.lambda1_max(lambda2) == expected, (d, lambda2)
        assert bounds.lambda1_max(0.0) == np.inf and bounds.lambda1_max(top) == 0.0
        assert 0 < bounds.lambda1_max(0.3 * top) < np.inf
    other = LambdaBounds(Y, groups, 11, random_state=4)  # another U_0, another bound
    assert other.lambda2_max() != LambdaBounds(Y, groups, 11, random_state=3).lambda2_max()


def test_lambda1_max_skips_the_grid_above_the_margins_bound_and_finds_the_same_bound(
    planted, monkeypatch
):
    # The search for λ1_max starts below the grid points where an upper bound of the margin
    # is not positive. Without that bound (every point searched from the grid's top) the
    # bound found is the same, bit for bit: with per-group d x d Grams (K d < L) and without,
    # at λ2 from near 0 to λ2_max, on the planted sample and on a long-tailed set
    import mlviz.grople as grople_module
    from mlviz.grople import LambdaBounds
    from mlviz.synthetic import make_long_tailed

    long_tailed = make_long_tailed(
        n_samples=400, n_features=20, n_labels=60, cardinality=3.0, random_state=1
    ).Y
    cases = [(planted[1], np.arange(planted[1].shape[1]) % 4, d) for d in (2, 11)]
    cases += [(long_tailed, np.arange(60) % 3, d) for d in (5, 30)]
    starts = []
    bounded = grople_module._margin_upper_bounds

    def spy(*args):
        values = bounded(*args)
        starts.append(grople_module._last_positive(values))
        return values

    found = {}
    for pruned in (True, False):
        monkeypatch.setattr(
            grople_module,
            "_margin_upper_bounds",
            spy if pruned else (lambda grid, *args: np.full(grid.size, np.inf)),
        )
        for index, (Y, groups, d) in enumerate(cases):
            bounds = LambdaBounds(Y, groups, d, random_state=0)
            top = bounds.lambda2_max()
            for share in (1e-4, 0.01, 0.3, 0.9):
                found.setdefault((index, share), []).append(bounds.lambda1_max(share * top))
    for key, (with_bound, without) in found.items():
        assert with_bound == without, key
        assert 0.0 < with_bound < np.inf, key
    # and the bound did skip points: the search started below the grid's top
    assert max(starts) < 128 and len(starts) == len(found)
