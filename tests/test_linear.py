"""Linear label space transformations (paper 004, Tai & Lin): maths, invariants, API.

Every numeric expectation is derived here by hand or by an independent plain numpy
computation; nothing is a recorded output of the code under test.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from estimator_checks import assert_passes_estimator_checks
from sklearn.base import clone
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LinearRegression, Ridge, orthogonal_mp
from sklearn.metrics import hamming_loss, make_scorer
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeRegressor

import mlviz
from mlviz.linear import (
    CPLST,
    PBR,
    PLST,
    BinaryRelevance,
    CompressedSensing,
    paper_ridge,
)
from mlviz.sparse_recovery import cosamp

ALPHA = 0.01


def _random_problem(n_samples=120, n_features=7, n_labels=6, seed=0):
    """Correlated labels driven linearly by X, so regression has something to learn."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    latent = X @ rng.normal(size=(n_features, 3))
    Y = latent @ rng.normal(size=(3, n_labels)) + rng.normal(size=(n_samples, n_labels)) > 0
    return X, Y.astype(np.uint8)


def _matlab_ridge_predict(X_train, T_train, X_test, alpha=ALPHA):
    """The authors' OVA_linreg written out: bias column, every weight penalised by alpha."""
    X1 = np.hstack([np.ones((X_train.shape[0], 1)), X_train])
    W = np.linalg.solve(X1.T @ X1 + alpha * np.eye(X1.shape[1]), X1.T @ T_train)
    return np.hstack([np.ones((X_test.shape[0], 1)), X_test]) @ W


def _all_estimators(n_components):
    return [
        BinaryRelevance(),
        PLST(n_components),
        PLST(n_components, center=False),
        PBR(n_components),
        PBR(n_components, reference="mean"),
        CPLST(n_components),
        CompressedSensing(n_components, random_state=0),
        CompressedSensing(
            n_components, projection="gaussian", reference="best_vertex", random_state=0
        ),
    ]


# --------------------------------------------------------------------------- hand-worked cases
def test_plst_three_vertex_example_by_hand():
    # vertices {00, 01, 11} (Section 3.1's inclusive relation): o = (1/3, 2/3), Z^T Z =
    # [[2/3, 1/3], [1/3, 2/3]] with eigenpairs 1 -> (1, 1)/sqrt2 and 1/3 -> (1, -1)/sqrt2
    Y = np.array([[0, 0], [0, 1], [1, 1]])
    X = np.array([[0.0], [1.0], [2.0]])
    model = PLST(1).fit(X, Y)
    np.testing.assert_allclose(model.offset_, [1 / 3, 2 / 3])
    np.testing.assert_allclose(model.singular_values_, [1.0, 1 / np.sqrt(3)])
    np.testing.assert_allclose(model.components_, [[1 / np.sqrt(2), 1 / np.sqrt(2)]])
    # h = P (y - o): (-1/3 - 2/3)/sqrt2, (-1/3 + 1/3)/sqrt2, (2/3 + 1/3)/sqrt2
    np.testing.assert_allclose(
        model.transform_labels(Y).ravel(), np.array([-1, 0, 1]) / np.sqrt(2), atol=1e-12
    )
    # residual along (1, -1)/sqrt2: c = (z1 - z2)/sqrt2 -> c^2 = 1/18, 4/18, 1/18
    errors = model.encoding_error(Y)
    np.testing.assert_allclose(errors[:, 1], [1 / 18, 4 / 18, 1 / 18])
    np.testing.assert_allclose(errors[:, 2], 0.0, atol=1e-15)
    np.testing.assert_allclose(errors[:, 0], np.sum((Y - model.offset_) ** 2, axis=1))
    # decoding the exact codes with M = 1: o + P^T h = (1/3 - 1/2, 2/3 - 1/2) -> rounds to 0 0
    np.testing.assert_allclose(
        model.inverse_transform_labels([[-1 / np.sqrt(2)]]), [[1 / 3 - 0.5, 2 / 3 - 0.5]]
    )


def test_round_based_decoding_threshold_is_inclusive():
    # Eq. 2: y^[k] = [y~[k] >= 1/2]; a constant regressor makes y~ = o + r exactly
    X = np.zeros((4, 1))
    Y = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 1], [1, 0, 0]])
    constant = DummyRegressor(strategy="constant", constant=[0.5, 0.5 - 1e-12, 0.75])
    model = BinaryRelevance(regressor=constant).fit(X, Y)
    np.testing.assert_array_equal(model.predict(np.zeros((2, 1))), [[1, 0, 1], [1, 0, 1]])
    assert model.predict(X).dtype == Y.dtype  # predictions come in y's dtype
    assert model.decision_function(X).dtype == np.float64


def test_pbr_keeps_the_most_frequent_labels_and_decodes_the_rest_from_o():
    # counts per label: 1, 3, 2, 3 -> order 1, 3, 2, 0 (ties by column)
    Y = np.array([[0, 1, 0, 1], [0, 1, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0]])
    rng = np.random.default_rng(1)
    X = rng.normal(size=(4, 3))
    origin = PBR(2).fit(X, Y)
    np.testing.assert_array_equal(origin.kept_labels_, [1, 3])
    np.testing.assert_array_equal(origin.components_, np.eye(4)[[1, 3]])
    pred = origin.predict(rng.normal(size=(50, 3)))
    assert not pred[:, [0, 2]].any()  # dropped labels decoded as o = 0
    mean = PBR(2, reference="mean").fit(X, Y)
    y_tilde = mean.predict_decoded(rng.normal(size=(5, 3)))
    np.testing.assert_allclose(y_tilde[:, [0, 2]], np.tile([0.25, 0.5], (5, 1)))
    # PBR-Origin's encoding error is the number of dropped 1s: (K - M)/K-bounded per example
    np.testing.assert_allclose(
        origin.encoding_error(Y)[:, 2], Y[:, [0, 2]].sum(axis=1).astype(float)
    )


# --------------------------------------------------------------------------- exactness
def test_plst_full_rank_with_exact_regressor_reproduces_Y():
    X, Y = _random_problem()
    # features that contain Y: ordinary least squares recovers every code exactly
    features = np.hstack([Y, X])
    model = PLST(Y.shape[1], regressor=LinearRegression()).fit(features, Y)
    np.testing.assert_allclose(model.predict_decoded(features), Y, atol=1e-9)
    np.testing.assert_array_equal(model.predict(features), Y)
    np.testing.assert_allclose(
        model.inverse_transform_labels(model.transform_labels(Y)), Y, atol=1e-12
    )
    # orthonormal rows: P P^T = I (Algorithm 8's requirement)
    np.testing.assert_allclose(
        model.components_ @ model.components_.T, np.eye(Y.shape[1]), atol=1e-12
    )


def test_br_is_the_matlab_ridge_and_equals_plst_with_all_directions():
    X, Y = _random_problem()
    X_test = np.random.default_rng(5).normal(size=(30, X.shape[1]))
    br = BinaryRelevance().fit(X, Y)
    np.testing.assert_allclose(
        br.predict_decoded(X_test), _matlab_ridge_predict(X, Y, X_test), rtol=1e-10, atol=1e-10
    )
    np.testing.assert_array_equal(br.components_, np.eye(Y.shape[1]))
    # with an unpenalised intercept, a linear regressor is rotation/shift equivariant, so
    # PLST with M = L (any orthonormal P, any o) is BR exactly
    ridge = Ridge(alpha=ALPHA)
    full = PLST(Y.shape[1], regressor=ridge).fit(X, Y)
    br_ridge = BinaryRelevance(regressor=ridge).fit(X, Y)
    np.testing.assert_allclose(
        full.decision_function(X_test), br_ridge.decision_function(X_test), atol=1e-10
    )
    np.testing.assert_allclose(
        PBR(Y.shape[1], regressor=ridge).fit(X, Y).decision_function(X_test),
        br_ridge.decision_function(X_test),
        atol=1e-10,
    )


def test_plst_codes_are_the_matlab_ridge_of_the_projected_labels():
    X, Y = _random_problem(seed=3)
    model = PLST(3).fit(X, Y)
    Z = Y - Y.mean(axis=0)
    _, s, Vt = np.linalg.svd(Z, full_matrices=False)
    np.testing.assert_allclose(model.singular_values_, s)
    # same subspace as numpy's SVD (signs may differ)
    np.testing.assert_allclose(np.abs(model.components_ @ Vt[:3].T), np.eye(3), atol=1e-10)
    X_test = np.random.default_rng(2).normal(size=(10, X.shape[1]))
    codes = _matlab_ridge_predict(X, Z @ model.components_.T, X_test)
    np.testing.assert_allclose(
        model.predict_decoded(X_test), Y.mean(axis=0) + codes @ model.components_, atol=1e-10
    )


# --------------------------------------------------------------------------- Theorem 1
def _check_theorem_1(model, X, Y):
    K = Y.shape[1]
    M = model.n_components_
    r = np.asarray(model.regressor_.predict(X)).reshape(len(X), M)
    h = model.transform_labels(Y)
    prediction_error = np.sum((r - h) ** 2, axis=1)
    encoding = model.encoding_error(Y)[:, M]
    y_tilde = model.predict_decoded(X)
    # Eq. 4-5 is an equality (Pythagoras): ||y~ - y||^2 = ||r - h||^2 + ||p_perp||^2
    np.testing.assert_allclose(
        np.sum((y_tilde - Y) ** 2, axis=1), prediction_error + encoding, rtol=1e-9, atol=1e-9
    )
    hamming = np.mean(model.predict(X) != Y, axis=1)
    bound = 4.0 / K * (prediction_error + encoding)
    assert np.all(hamming <= bound + 1e-12)
    return hamming, bound


@pytest.mark.parametrize("estimator", [PLST(2), PLST(4, center=False), PBR(3), CPLST(2)])
def test_theorem_1_bound_holds_per_example_on_random_data(estimator):
    X, Y = _random_problem(n_samples=200, seed=7)
    X_test, Y_test = _random_problem(n_samples=100, seed=8)
    model = clone(estimator).fit(X, Y)
    hamming, bound = _check_theorem_1(model, X_test, Y_test)
    assert hamming.sum() > 0  # the bound was exercised, not trivially 0 <= something


def test_theorem_1_bound_holds_per_example_on_yeast(mulan_dir):
    data = mlviz.load_arff(mulan_dir / "yeast-train.arff")
    test = mlviz.load_arff(mulan_dir / "yeast-test.arff")
    for M in (1, 4, 14):
        model = PLST(M).fit(data.X, data.Y)
        _check_theorem_1(model, test.X, test.Y)


# --------------------------------------------------------------------------- encoding error
@pytest.mark.parametrize("center", [True, False])
def test_encoding_error_is_the_tail_of_the_spectrum(center):
    X, Y = _random_problem(n_samples=150, n_labels=8, seed=11)
    K = Y.shape[1]
    errors = PLST(3, center=center).fit(X, Y).encoding_error(Y)
    s = PLST(1, center=center).fit(X, Y).singular_values_
    assert errors.shape == (len(Y), K + 1)
    expected = np.array([np.sum(s[M:] ** 2) for M in range(K + 1)]) / len(Y)
    np.testing.assert_allclose(errors.mean(axis=0), expected, rtol=1e-10, atol=1e-12)
    assert np.all(np.diff(errors, axis=1) <= 1e-12)  # per example, non-increasing in M
    # independent definition ||(I - P^T P)(y - o)||^2 with a model refitted at each M
    for M in (1, 5):
        model = PLST(M, center=center).fit(X, Y)
        P, o = model.components_, model.offset_
        residual = (Y - o) @ (np.eye(K) - P.T @ P)
        np.testing.assert_allclose(errors[:, M], np.sum(residual**2, axis=1), atol=1e-12)


def test_plst_minimises_training_encoding_error_among_flats():
    # Eq. 6: no other orthonormal M-flat through the mean (PBR axes, random) does better
    X, Y = _random_problem(n_samples=150, n_labels=8, seed=12)
    rng = np.random.default_rng(0)
    plst = PLST(3).fit(X, Y).encoding_error(Y)[:, 3].mean()
    pbr = PBR(3, reference="mean").fit(X, Y).encoding_error(Y)[:, 3].mean()
    assert plst < pbr
    Z = Y - Y.mean(axis=0)
    for _ in range(20):
        Q, _ = np.linalg.qr(rng.normal(size=(8, 3)))
        assert plst <= np.mean(np.sum((Z - Z @ Q @ Q.T) ** 2, axis=1)) + 1e-12


def test_plst_with_fewer_examples_than_labels_completes_the_basis():
    X, Y = _random_problem(n_samples=4, n_labels=7, seed=2)
    model = PLST(7).fit(X, Y)
    assert model.singular_values_.shape == (7,)
    np.testing.assert_allclose(model.singular_values_[4:], 0.0)
    np.testing.assert_allclose(model.encoding_error(Y)[:, 3:], 0.0, atol=1e-12)
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(7), atol=1e-12)


# ------------------------------------------------------------------ explained variance ratio
def test_plst_explained_variance_ratio_by_hand():
    # the three-vertex example above: sigma^2 = 1 and 1/3 of 4/3 -> shares 3/4 and 1/4
    Y = np.array([[0, 0], [0, 1], [1, 1]])
    X = np.array([[0.0], [1.0], [2.0]])
    np.testing.assert_allclose(PLST(1).fit(X, Y).explained_variance_ratio_, [3 / 4])
    np.testing.assert_allclose(PLST(2).fit(X, Y).explained_variance_ratio_, [3 / 4, 1 / 4])
    # fewer examples than labels (the SVD path): y1 - o = -(y2 - o) = (1/2, -1/2, -1/2), so
    # one direction holds all the variance and the completed basis none
    Y = np.array([[1, 0, 0], [0, 1, 1]])
    model = PLST(3).fit(np.array([[0.0], [1.0]]), Y)
    np.testing.assert_allclose(model.explained_variance_ratio_, [1.0, 0.0, 0.0], atol=1e-12)


def test_plst_explained_variance_ratio_is_nan_without_variance():
    # every instance has the same label set: there is no variance to share out
    Y = np.tile([1, 0, 1], (5, 1))
    with pytest.warns(UserWarning):  # constant labels are reported
        model = PLST(2).fit(np.arange(5.0)[:, None], Y)
    assert model.explained_variance_ratio_.shape == (2,)
    assert np.isnan(model.explained_variance_ratio_).all()


def test_plst_explained_variance_ratio_is_the_kept_share_of_the_encoding_error():
    # Section 3.3: the training encoding error is the variance the M directions leave out
    X, Y = _random_problem(n_samples=80, n_labels=6, seed=3)
    model = PLST(6).fit(X, Y)
    error = model.encoding_error(Y).mean(axis=0)  # M = 0..L
    for M in range(1, 7):
        kept = model.truncate(M).explained_variance_ratio_
        assert kept.shape == (M,)
        np.testing.assert_allclose(kept, model.explained_variance_ratio_[:M])
        assert kept.sum() == pytest.approx(1 - error[M] / error[0])
        assert PLST(M).fit(X, Y).explained_variance_ratio_.sum() == pytest.approx(kept.sum())


# --------------------------------------------------------------------------- compressed sensing
def _sparse_labels(n_samples, n_labels, sparsity, seed):
    rng = np.random.default_rng(seed)
    Y = np.zeros((n_samples, n_labels), dtype=np.uint8)
    for row in Y:
        row[rng.choice(n_labels, size=rng.integers(0, sparsity + 1), replace=False)] = 1
    return Y


@pytest.mark.parametrize("decoder", ["cosamp", "omp"])
@pytest.mark.parametrize("projection", ["hadamard", "gaussian"])
def test_cs_recovers_sparse_label_vectors_from_noiseless_codes(projection, decoder):
    K, M, s = 64, 32, 3
    Y = _sparse_labels(300, K, s, seed=4)
    Y[0] = 0
    Y[1] = 0
    Y[1, :s] = 1
    model = CompressedSensing(M, projection=projection, decoder=decoder, random_state=0)
    model.fit(np.zeros((len(Y), 1)), Y)
    assert model.sparsity_ == s
    np.testing.assert_allclose(
        model.inverse_transform_labels(model.transform_labels(Y)), Y, atol=1e-9
    )
    # the same through fit/predict with a regressor that reproduces the codes exactly
    exact = CompressedSensing(
        M, projection=projection, decoder=decoder, regressor=LinearRegression(), random_state=0
    )
    np.testing.assert_array_equal(exact.fit(Y, Y).predict(Y), Y)


@pytest.mark.filterwarnings("ignore:CompressedSensing. label column:UserWarning")
@pytest.mark.parametrize("decoder", ["cosamp", "omp"])
def test_cs_best_vertex_recovers_dense_label_vectors(decoder):
    # complements of 3-sparse vectors: dense for CS-Origin, 3-sparse after the XOR with the
    # majority vertex (all ones)
    K, M = 64, 40
    Y = 1 - _sparse_labels(200, K, 3, seed=6)
    model = CompressedSensing(
        M, projection="gaussian", reference="best_vertex", decoder=decoder, random_state=1
    ).fit(np.zeros((len(Y), 1)), Y)
    np.testing.assert_array_equal(model.offset_, np.ones(K))
    assert model.sparsity_ == 3
    np.testing.assert_allclose(
        model.inverse_transform_labels(model.transform_labels(Y)), Y, atol=1e-9
    )
    origin = CompressedSensing(M, projection="gaussian", decoder=decoder, random_state=1).fit(
        np.zeros((200, 1)), Y
    )
    # needs up to K nonzeros: CoSaMP keeps s = K (no pruning), OMP caps s at M
    assert origin.sparsity_ == (K if decoder == "cosamp" else M)
    assert not np.allclose(origin.inverse_transform_labels(origin.transform_labels(Y)), Y)


@pytest.mark.filterwarnings("ignore:CompressedSensing. label column:UserWarning")
@pytest.mark.parametrize("K", [5, 20, 32])
def test_cs_hadamard_rows_for_any_number_of_labels(K):
    M = min(K, 4)
    Y = _sparse_labels(40, K, 2, seed=K)
    model = CompressedSensing(M, random_state=0).fit(np.zeros((40, 1)), Y)
    P = model.components_ * np.sqrt(M)
    np.testing.assert_array_equal(np.abs(P), 1.0)  # +-1 entries scaled by 1/sqrt(M)
    np.testing.assert_allclose(np.linalg.norm(model.components_, axis=0), 1.0)
    # rows come from the order-2^ceil(log2 K) Hadamard matrix: pairwise orthogonal over all
    # its columns, so rows of the first K columns are distinct
    assert len({tuple(row) for row in P}) == M
    order = 1 << int(np.ceil(np.log2(K)))
    if order == K:
        np.testing.assert_allclose(P @ P.T, K * np.eye(M))


@pytest.mark.filterwarnings("ignore:CompressedSensing. label column:UserWarning")
def test_cs_sparsity_defaults_to_largest_training_label_count():
    Y = np.array([[1, 1, 1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 1, 1]])
    model = CompressedSensing(6, random_state=0).fit(np.eye(3), Y)
    assert model.sparsity_ == 3
    # the paper keeps s above M (yeast: s = 11, M = 4); OMP caps it at M; both cap at K
    assert CompressedSensing(2, random_state=0).fit(np.eye(3), Y).sparsity_ == 3
    assert CompressedSensing(2, decoder="omp", random_state=0).fit(np.eye(3), Y).sparsity_ == 2
    assert CompressedSensing(6, sparsity=1, random_state=0).fit(np.eye(3), Y).sparsity_ == 1
    assert CompressedSensing(6, sparsity=20, random_state=0).fit(np.eye(3), Y).sparsity_ == 8


@pytest.mark.filterwarnings("ignore:CompressedSensing. label column:UserWarning")
def test_cs_paper_setting_decodes_pruned_minimum_norm_least_squares():
    # emotions in the paper: K = 6, M = 2 Hadamard rows, s = 3. 2s >= K, so CoSaMP takes
    # every atom: z = the 3 largest entries of pinv(P) r, the rest 0; y~ = z
    Y = np.array([[1, 1, 1, 0, 0, 0], [0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1]])
    X = np.random.default_rng(11).normal(size=(4, 3))
    model = CompressedSensing(2, random_state=3).fit(X, Y)
    assert model.sparsity_ == 3
    codes = np.random.default_rng(12).normal(size=(7, 2))
    least_norm = np.linalg.lstsq(model.measurement_matrix_, codes.T, rcond=None)[0].T
    decoded = model.inverse_transform_labels(codes)
    for row, b in zip(decoded, least_norm, strict=True):
        kept = np.flatnonzero(row)
        assert kept.size == 3
        np.testing.assert_allclose(row[kept], b[kept], atol=1e-10)
        dropped = np.setdiff1d(np.arange(6), kept)
        assert np.abs(b[dropped]).max() <= np.abs(b[kept]).min() + 1e-10


@pytest.mark.filterwarnings("ignore:CompressedSensing. label column:UserWarning")
def test_cs_decoders_are_cosamp_and_scikit_learns_omp():
    X, Y = _random_problem(n_samples=60, n_labels=12, seed=13)
    codes = np.random.default_rng(14).normal(size=(9, 5))
    default = CompressedSensing(5, projection="gaussian", random_state=0).fit(X, Y)
    assert default.decoder == "cosamp"
    np.testing.assert_allclose(
        default.inverse_transform_labels(codes),
        cosamp(default.measurement_matrix_, codes, default.sparsity_),
    )
    omp = CompressedSensing(5, projection="gaussian", decoder="omp", random_state=0).fit(X, Y)
    # gaussian columns have norm ~1, not 1: OMP runs on unit columns and rescales
    norms = np.linalg.norm(omp.measurement_matrix_, axis=0)
    expected = (
        orthogonal_mp(omp.measurement_matrix_ / norms, codes.T, n_nonzero_coefs=omp.sparsity_).T
        / norms
    )
    np.testing.assert_allclose(omp.inverse_transform_labels(codes), expected, atol=1e-10)
    assert not np.allclose(
        omp.inverse_transform_labels(codes), default.inverse_transform_labels(codes)
    )


# --------------------------------------------------------------------------- CPLST
def _explicit_conditional_matrix(X, Y, alpha):
    """Z^T H Z with H formed explicitly as an N x N matrix from the centred X."""
    Xc = X - X.mean(axis=0)
    H = Xc @ np.linalg.inv(Xc.T @ Xc + alpha * np.eye(X.shape[1])) @ Xc.T
    Z = Y - Y.mean(axis=0)
    return Z.T @ H @ Z


def _same_directions(A, B, atol=1e-8):
    np.testing.assert_allclose(np.abs(np.sum(A * B, axis=1)), 1.0, atol=atol)


def test_cplst_matches_the_explicit_hat_matrix_formula():
    X, Y = _random_problem(n_samples=60, n_features=5, n_labels=6, seed=9)
    alpha = 0.7
    model = CPLST(3, alpha=alpha).fit(X, Y)
    w, V = np.linalg.eigh(_explicit_conditional_matrix(X, Y, alpha))
    order = np.argsort(w)[::-1]
    np.testing.assert_allclose(model.singular_values_**2, np.clip(w[order], 0, None), atol=1e-10)
    _same_directions(model.components_, V[:, order[:3]].T)
    # dual form (d > N) and sparse X give the same matrix
    wide = np.hstack([X, np.random.default_rng(0).normal(size=(60, 80))])
    w_wide = np.sort(np.linalg.eigvalsh(_explicit_conditional_matrix(wide, Y, alpha)))[::-1]
    for features in (wide, sp.csr_matrix(wide)):
        np.testing.assert_allclose(
            CPLST(3, alpha=alpha).fit(features, Y).singular_values_ ** 2, w_wide, atol=1e-9
        )


def test_cplst_with_features_equal_to_labels_is_plst_with_shrunk_spectrum():
    # X = Y: Xc = Z = U S V^T, so Z^T H Z = V S^4 / (S^2 + alpha) V^T -- same directions as
    # PLST, eigenvalues sigma^4 / (sigma^2 + alpha), monotone in sigma so the order is kept
    _, Y = _random_problem(n_samples=80, n_labels=5, seed=13)
    alpha = 3.0
    cplst = CPLST(5, alpha=alpha).fit(Y.astype(float), Y)
    plst = PLST(5).fit(Y.astype(float), Y)
    sigma = plst.singular_values_
    np.testing.assert_allclose(cplst.singular_values_**2, sigma**4 / (sigma**2 + alpha), rtol=1e-9)
    _same_directions(cplst.components_, plst.components_)


def test_cplst_large_alpha_limit():
    # alpha -> inf: H ~ Xc Xc^T / alpha -> 0, and the directions tend to the eigenvectors of
    # Z^T Xc Xc^T Z (left singular vectors of Z^T Xc); alpha = inf computes that limit
    X, Y = _random_problem(n_samples=90, n_features=4, n_labels=6, seed=14)
    Z = Y - Y.mean(axis=0)
    U, s, _ = np.linalg.svd(Z.T @ (X - X.mean(axis=0)))
    limit = CPLST(3, alpha=np.inf).fit(X, Y)
    _same_directions(limit.components_, U[:, :3].T)
    np.testing.assert_allclose(limit.singular_values_[:4], s, rtol=1e-9)
    large = CPLST(3, alpha=1e9).fit(X, Y)
    _same_directions(large.components_, U[:, :3].T, atol=1e-6)
    np.testing.assert_allclose(
        large.singular_values_[:4] * np.sqrt(1e9), limit.singular_values_[:4], rtol=1e-6
    )


# --------------------------------------------------------------------------- API
# Hadamard CS is left out: sub-sampled Hadamard columns coincide up to sign, so OMP faces
# exact ties that rounding noise decides (see CompressedSensing's notes)
@pytest.mark.parametrize(
    "estimator",
    [
        *(e for e in _all_estimators(3) if getattr(e, "projection", None) != "hadamard"),
        CompressedSensing(3, projection="gaussian", random_state=0),
    ],
    ids=lambda e: repr(e),
)
def test_sparse_X_gives_the_dense_results(estimator):
    X, Y = _random_problem(n_samples=80, n_features=12, seed=15)
    X[np.abs(X) < 0.8] = 0.0
    dense = clone(estimator).fit(X, Y)
    sparse = clone(estimator).fit(sp.csr_matrix(X), Y)
    X_test = sp.csr_matrix(X[:20] + 0.1)
    np.testing.assert_allclose(
        sparse.decision_function(X_test), dense.decision_function(X_test.toarray()), atol=1e-9
    )
    np.testing.assert_array_equal(sparse.predict(X_test), dense.predict(X_test.toarray()))
    np.testing.assert_allclose(sparse.components_, dense.components_, atol=1e-9)


@pytest.mark.parametrize("estimator", _all_estimators(2), ids=lambda e: repr(e))
def test_outputs_are_dense_and_typed(estimator):
    X, Y = _random_problem(n_samples=50, seed=16)
    model = clone(estimator).fit(sp.csr_matrix(X), Y)
    pred, scores = model.predict(X), model.decision_function(X)
    assert isinstance(pred, np.ndarray) and pred.dtype == np.uint8 and pred.shape == Y.shape
    assert set(np.unique(pred)) <= {0, 1}
    assert isinstance(scores, np.ndarray) and scores.dtype == np.float64
    assert model.components_.shape == (model.n_components_, Y.shape[1])
    np.testing.assert_array_equal(pred, (scores >= 0).astype(np.uint8))
    np.testing.assert_array_equal(scores, model.predict_decoded(X) - 0.5)
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(X), pred)


def test_any_multi_output_regressor_is_cloned_and_used():
    X, Y = _random_problem(n_samples=100, seed=17)
    tree = DecisionTreeRegressor(max_depth=3, random_state=0)
    for M in (1, 3):
        for estimator in (PLST(M, regressor=tree), CPLST(M, regressor=tree)):
            model = estimator.fit(X, Y)
            assert model.regressor_ is not tree
            assert isinstance(model.regressor_, DecisionTreeRegressor)
            assert model.predict(X).shape == Y.shape
    assert not hasattr(tree, "tree_")  # the passed instance was never fitted


def test_default_regressor_is_the_paper_ridge():
    X, Y = _random_problem(seed=18)
    model = PLST(2).fit(X, Y)
    ridge = model.regressor_[-1]
    assert isinstance(ridge, Ridge) and ridge.alpha == ALPHA and not ridge.fit_intercept
    assert paper_ridge().get_params()["ridge__alpha"] == ALPHA


def test_grid_search_over_n_components_and_pipeline():
    X, Y = _random_problem(n_samples=150, n_labels=6, seed=19)
    search = GridSearchCV(
        PLST(1),
        {"n_components": [1, 3, 6]},
        scoring=make_scorer(hamming_loss, greater_is_better=False),
        cv=KFold(3, shuffle=True, random_state=0),
    ).fit(X, Y)
    assert search.best_params_["n_components"] in (1, 3, 6)
    assert search.best_estimator_.components_.shape[0] == search.best_params_["n_components"]
    pipe = make_pipeline(StandardScaler(), CPLST(2)).fit(X, Y)
    assert pipe.predict(X).shape == Y.shape
    assert clone(PLST(4, center=False)).get_params()["center"] is False


@pytest.mark.parametrize(
    "estimator,message",
    [
        # data-dependent, checked in fit: M <= K
        (PLST(7), "n_components=7 is out of range: it must be between 1 and the number of "),
        # scikit-learn's parameter validation (_parameter_constraints)
        (PLST(0), r"'n_components' parameter of PLST must be an int in the range \[1, inf\)"),
        (PBR(2.5), "'n_components' parameter of PBR must be an int"),
        (PBR(2, reference="median"), "'reference' parameter of PBR must be a str among"),
        (CompressedSensing(2, projection="bernoulli"), "'projection' parameter of Compressed"),
        (CompressedSensing(2, reference="mean"), "'reference' parameter of CompressedSensing"),
        (CompressedSensing(2, sparsity=0), "'sparsity' parameter of CompressedSensing must be"),
        (CompressedSensing(2, decoder="l1"), "'decoder' parameter of CompressedSensing must be"),
        (CPLST(2, alpha=-1.0), r"'alpha' parameter of CPLST must be a float in the range \[0"),
        (CPLST(2, alpha=np.nan), "'alpha' parameter of CPLST"),
        (PLST(2, regressor="ridge"), "'regressor' parameter of PLST must be an object"),
    ],
)
def test_bad_parameters_raise_clear_errors(estimator, message):
    X, Y = _random_problem(n_samples=30, n_labels=6)
    with pytest.raises(ValueError, match=message):
        estimator.fit(X, Y)


def test_bad_inputs_raise_clear_errors():
    X, Y = _random_problem(n_samples=30)
    X_nan = X.copy()
    X_nan[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        PLST(2).fit(X_nan, Y)
    with pytest.raises(ValueError, match="only 0 and 1"):
        PLST(2).fit(X, Y * 2)
    with pytest.raises(ValueError, match="target y is None"):
        PLST(2).fit(X, None)
    model = PLST(2).fit(X, Y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :3])
    with pytest.raises(ValueError, match="label columns"):
        model.transform_labels(Y[:, :2])
    with pytest.raises(ValueError, match=r"H must have shape \(n_samples, 2\)"):
        model.inverse_transform_labels(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="singular"):
        CPLST(2, alpha=0.0).fit(np.hstack([X, X]), Y)


def test_constant_label_column_warns_and_is_predicted_from_o():
    X, Y = _random_problem(n_samples=40)
    Y[:, 2] = 0
    with pytest.warns(UserWarning, match=r"label column 2 \(always 0\) is constant") as caught:
        model = PLST(3).fit(X, Y)
    assert "it carries no information" in str(caught[0].message)
    assert not model.predict(X)[:, 2].any()
    np.testing.assert_allclose(model.components_[:, 2], 0.0, atol=1e-12)
    Y[:, 4] = 1  # two constant columns: the plural
    pattern = r"label columns 2 \(always 0\), 4 \(always 1\) are constant.*they carry"
    with pytest.warns(UserWarning, match=pattern):
        PLST(3).fit(X, Y)


def test_unfitted_estimator_raises_not_fitted():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        PLST(2).predict(np.zeros((2, 3)))


# --------------------------------------------------------------------------- check_estimator
@pytest.mark.parametrize(
    "estimator",
    [BinaryRelevance(), PLST(1), PBR(1), CPLST(1), CompressedSensing(1, random_state=0)],
    ids=lambda e: type(e).__name__,
)
def test_scikit_learn_estimator_checks(estimator):
    assert_passes_estimator_checks(estimator)


# --- truncation: one fit for every M -------------------------------------------------------

TRUNCATABLE = [
    lambda m, r: PLST(m, regressor=r),
    lambda m, r: PLST(m, regressor=r, center=False),
    lambda m, r: PBR(m, regressor=r),
    lambda m, r: PBR(m, reference="mean", regressor=r),
    lambda m, r: CPLST(m, regressor=r),
]
LINEAR_REGRESSORS = [
    None,
    Ridge(alpha=0.3),
    Ridge(alpha=0.3, fit_intercept=False),
    LinearRegression(),
    make_pipeline(StandardScaler(), Ridge(alpha=2.0)),
]


@pytest.mark.parametrize("sparse_X", [False, True])
@pytest.mark.parametrize("regressor", LINEAR_REGRESSORS)
@pytest.mark.parametrize("factory", TRUNCATABLE)
def test_truncation_equals_refitting_for_every_m(factory, regressor, sparse_X):
    X, Y = _random_problem(n_samples=150, n_features=9, n_labels=7, seed=3)
    if sparse_X:
        X = sp.csr_matrix(np.where(np.abs(X) > 0.7, X, 0.0))
        if isinstance(regressor, type(make_pipeline(StandardScaler()))):
            regressor = make_pipeline(StandardScaler(with_mean=False), Ridge(alpha=2.0))
    X_test, _ = _random_problem(n_samples=40, n_features=9, n_labels=7, seed=4)
    full = factory(7, regressor).fit(X, Y)
    for m in range(1, 8):
        refit = factory(m, regressor).fit(X, Y)
        cut = full.truncate(m)
        assert cut.n_components == cut.n_components_ == m
        np.testing.assert_allclose(cut.components_, refit.components_, atol=1e-12)
        np.testing.assert_allclose(
            cut.decision_function(X_test), refit.decision_function(X_test), atol=1e-8
        )
        np.testing.assert_array_equal(cut.predict(X_test), refit.predict(X_test))
        np.testing.assert_allclose(
            cut.regressor_.predict(X_test), refit.regressor_.predict(X_test), atol=1e-8
        )
        np.testing.assert_allclose(cut.transform_labels(Y), refit.transform_labels(Y), atol=1e-12)
        if hasattr(refit, "kept_labels_"):
            np.testing.assert_array_equal(cut.kept_labels_, refit.kept_labels_)
    assert full.n_components_ == 7  # truncate leaves the fitted model alone


def test_truncation_refuses_what_refitting_would_not_reproduce():
    X, Y = _random_problem()
    forest_like = PLST(3, regressor=DecisionTreeRegressor(random_state=0)).fit(X, Y)
    assert not mlviz.linear.is_truncatable(forest_like)
    with pytest.raises(ValueError, match="output by output"):
        forest_like.truncate(2)
    assert not mlviz.linear.is_truncatable(BinaryRelevance())
    assert not mlviz.linear.is_truncatable(CompressedSensing(3))
    assert not mlviz.linear.is_truncatable(PLST(3, regressor=Ridge(alpha=np.ones(3))))
    assert mlviz.linear.is_truncatable(PLST(3))
    with pytest.raises(ValueError, match="n_components"):
        PLST(3).fit(X, Y).truncate(4)


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("duplicated_rows", [False, True])
def test_plst_basis_is_the_svd_basis_up_to_sign(center, duplicated_rows):
    rng = np.random.default_rng(7)
    Y = (rng.random((300, 12)) < np.linspace(0.05, 0.6, 12)).astype(np.uint8)
    if duplicated_rows:
        Y = np.vstack([Y, Y[:50]])
    X = rng.normal(size=(Y.shape[0], 3))
    model = PLST(12, center=center).fit(X, Y)
    offset = Y.mean(axis=0) if center else np.zeros(12)
    _, singular_values, basis = np.linalg.svd(Y - offset, full_matrices=False)
    np.testing.assert_allclose(model.singular_values_, singular_values, rtol=1e-10, atol=1e-10)
    # rows agree up to sign: |<p_m, v_m>| = 1
    overlap = np.abs(np.einsum("ij,ij->i", model.components_, basis))
    np.testing.assert_allclose(overlap, 1.0, atol=1e-9)


def test_br_and_pbr_encode_and_decode_as_the_products_with_p():
    X, Y = _random_problem(n_labels=6)
    for model in (BinaryRelevance().fit(X, Y), PBR(4, reference="mean").fit(X, Y)):
        P, o = model.components_, model.offset_
        codes = model.transform_labels(Y)
        assert np.array_equal(codes, (Y - o) @ P.T)
        assert np.array_equal(model.inverse_transform_labels(codes), o + codes @ P)
