"""GroPLE: group-preserving label embedding (paper 001, Kumar, Pujari, Padmanabhan, Kagita).

Three stages (section 3 of the paper):

1. label groups by self-tuning spectral clustering (:class:`mlviz.LabelClustering`);
2. label embedding, Eq. (4): ``min sum_k ||Y^k - U V^k||_F^2 + lambda1 ||U||_F^2 +
   lambda2 sum_k ||V^k||_{2,1}`` by alternating the closed form for U (Eq. A.2) with an
   accelerated proximal gradient (APG / FISTA) for every V^k (Eq. A.6-A.9, Algorithms 1-2);
3. feature embedding, Eq. (5): ``min_Z ||X Z - U||_F^2 + alpha sum_ij R_ij Z_i^T Z_j +
   beta ||Z||_1`` with ``R = 1 - corr(U)``, by APG with l1 soft-thresholding as in LLSF.

Prediction scores are ``X Z V`` (plus the intercept, see :class:`GroPLE`), thresholded at 0
because the paper's labels are in {-1, 1}.

Speed (``benchmarks/bench_grople.py``, which gives CPU times per stage; the fit limits itself
to one BLAS thread, see :class:`GroPLE`): on the shared 2-core AMD EPYC at load average ~8,
all of medical (d = 100, K = 5) took 1.0 s of CPU, enron 2.5 s, tmc2007-500 1.0 s, and the
training split of the delicious-shaped set (11,273 x 500, 983 labels) 1.0 s at d = 100 and
2.2 s at d = 200 (with the former max_iter = 50; at the default 1000 a fit runs until
Algorithm 1 converges: medical at the paper's λs 559 iterations, 1.3 s CPU on a 70/30 split;
the delicious-shaped training split converges in 17 either way). Since issue 33 stage 2
solves Eq. (4) by variable projection (``solver="varpro"``): all of medical, 463 alternating
iterations in 0.77 s of CPU before, now 146 iterations in 0.11 s, to a lower Eq. (4); the
whole medical fit 1.56 -> 0.95 s (docs/GROPLE.md). Stage 3's APG then takes a step per entry
of Z (``feature_step="diagonal"``): medical's Eq. (5) in 123 steps instead of 371, to a lower
value, and the fit 1.47 -> 0.67 s on the machine that measured it. Stage 2 works on ``Y^T Y``
(L x L) instead of the (N, d) matrix U, which it forms once at the end
(:func:`fit_label_embedding`), and each APG step costs one (d, d) x (d, L) product; stage 3
reuses the products of every iterate with X_c and R for the objective and the next gradient,
and starts from the exact ridge point (dual N x N system when D > N).

The proximal operators and the APG loops are written here by hand: scikit-learn has no
proximal operator for the l2,1 norm of a matrix, no generic proximal-gradient solver, and
its coordinate-descent Lasso/MultiTaskLasso cannot take Eq. (5)'s correlation term.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve, eigh, solve
from scipy.optimize import brentq
from scipy.sparse.linalg import ArpackError, LinearOperator, eigsh
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import TransformerTags
from threadpoolctl import threadpool_limits

from mlviz._compat import Interval, StrOptions, _fit_context
from mlviz._validation import SPARSE_LABEL_DENSITY, csr_labels
from mlviz.base import MultiLabelEstimator
from mlviz.label_clustering import LabelClustering, _label_counts, check_groups

# smallest positive normal float64 (see _prox_group_l21)
_TINY = float(np.finfo(np.float64).tiny)

__all__ = [
    "GroPLE",
    "lambda2_max",
    "lambda1_max",
    "LambdaBounds",
    "prox_l21",
    "prox_group_l21",
    "prox_l1",
    "label_embedding_objective",
    "solve_group_coefficients",
    "fit_label_embedding",
    "label_correlation_penalty",
    "feature_embedding_objective",
    "fit_feature_embedding",
]


# ---------------------------------------------------------------------------------------------
# proximal operators (hand-written: scikit-learn exposes no prox for the l2,1 or l1 norm)
# ---------------------------------------------------------------------------------------------


def prox_l21(V: np.ndarray, threshold: float) -> np.ndarray:
    """Proximal operator of ``threshold * ||V||_{2,1}`` (row-wise group soft-threshold, Eq. A.9).

    Each row v_i is scaled by ``max(0, 1 - threshold / ||v_i||_2)``: rows whose norm is at
    most ``threshold`` become exactly zero, the others shrink towards 0 by ``threshold``.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.grople import prox_l21
    >>> V = np.array([[3.0, 4.0], [0.3, 0.4]])  # row norms 5 and 0.5
    >>> prox_l21(V, threshold=1.0).round(3).tolist()
    [[2.4, 3.2], [0.0, 0.0]]
    """
    norms = np.linalg.norm(V, axis=1, keepdims=True)
    scale = np.maximum(
        0.0, 1.0 - np.divide(threshold, norms, out=np.ones_like(norms), where=norms > 0)
    )
    return V * scale


def prox_l1(Z: np.ndarray, threshold: float) -> np.ndarray:
    """Proximal operator of ``threshold * ||Z||_1`` (entry-wise soft-threshold).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.grople import prox_l1
    >>> prox_l1(np.array([[-2.0, 0.5, 1.5]]), threshold=1.0).tolist()
    [[-1.0, 0.0, 0.5]]
    """
    return _soft_threshold(np.asarray(Z, dtype=np.float64), threshold)[0]


def _soft_threshold(Z: np.ndarray, threshold: float) -> tuple[np.ndarray, float]:
    # sign(Z) max(|Z| - t, 0) and its l1 norm, in one new array (no temporaries)
    out = np.abs(Z)
    out -= threshold
    np.maximum(out, 0.0, out=out)
    l1 = float(out.sum())
    np.copysign(out, Z, out=out)
    return out, l1


def _extrapolate(current: np.ndarray, previous: np.ndarray, c: float, out: np.ndarray):
    # current + c (current - previous), written to out (the search point of Eq. A.6)
    if not c:
        return current
    np.subtract(current, previous, out=out)
    out *= c
    out += current
    return out


# ---------------------------------------------------------------------------------------------
# stage 2: label embedding, Eq. (4)
# ---------------------------------------------------------------------------------------------


def _l21_norm(V: np.ndarray) -> float:
    return float(np.linalg.norm(V, axis=1).sum())


def label_embedding_objective(
    Y_signed: np.ndarray,
    U: np.ndarray,
    V: np.ndarray,
    groups: np.ndarray,
    lambda1: float,
    lambda2: float,
) -> float:
    """Eq. (4): ``sum_k ||Y^k - U V^k||_F^2 + lambda1 ||U||_F^2 + lambda2 sum_k ||V^k||_{2,1}``.

    ``V`` is (d, L) in the original label order; ``groups`` gives the group of each column.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.grople import label_embedding_objective
    >>> Y_signed = np.array([[1.0, -1.0], [-1.0, 1.0]])
    >>> U, V = np.array([[1.0], [-1.0]]), np.array([[1.0, -1.0]])  # U V = Y exactly
    >>> label_embedding_objective(Y_signed, U, V, np.array([0, 0]), lambda1=0.5, lambda2=0.0)
    1.0
    """
    residual = Y_signed - U @ V
    penalty = sum(_l21_norm(V[:, groups == k]) for k in np.unique(groups))
    return float((residual**2).sum() + lambda1 * (U**2).sum() + lambda2 * penalty)


def _group_indicator(groups: np.ndarray) -> np.ndarray:
    # (L, G) 0/1 matrix: V**2 @ indicator gives the squared row norms of every V^k at once
    indicator = np.zeros((groups.size, int(groups.max()) + 1))
    indicator[np.arange(groups.size), groups] = 1.0
    return indicator


def prox_group_l21(V: np.ndarray, threshold: float, groups: np.ndarray) -> np.ndarray:
    """``prox_l21`` applied to every block ``V[:, groups == k]`` at once (Eq. A.9 per group).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.grople import prox_group_l21
    >>> V = np.array([[3.0, 0.3], [4.0, 0.4]])  # (d, L): label 0 in group 0, label 1 in group 1
    >>> prox_group_l21(V, threshold=1.0, groups=np.array([0, 1])).round(3).tolist()
    [[2.0, 0.0], [3.0, 0.0]]
    """
    return _prox_group_l21(V, threshold, groups, _group_indicator(groups))


def _prox_group_l21(V, threshold: float, groups: np.ndarray, indicator: np.ndarray) -> np.ndarray:
    norms = np.sqrt((V * V) @ indicator)  # (d, G): ||row i of V^k||
    # A zero row would give 1 - t/0 = -inf (NaN when t = 0); dividing by the smallest normal
    # number (times t when t > 1, so that t / floor = 1 / tiny does not overflow) instead
    # gives a scale <= 0 (1 when t = 0), and the row stays 0 either way. No errstate
    # context: this runs ~10,000 times a fit, where the context cost as much as the
    # arithmetic.
    np.maximum(norms, _TINY * max(threshold, 1.0), out=norms)
    scale = np.divide(threshold, norms, out=norms)
    np.subtract(1.0, scale, out=scale)
    np.maximum(scale, 0.0, out=scale)
    # each label's scale as (d, G) @ (G, L): exactly scale[:, groups] (one 1 per indicator
    # row, the other terms are exact zeros), but C-ordered; the fancy index's result is
    # Fortran-ordered, and multiplying V by it took 2-3x as long as the product and multiply
    return V * (scale @ indicator.T)


def _group_objectives(UtU_V, UtY, Y_sq_by_group, V, lambda2, indicator) -> np.ndarray:
    # subproblem objective (A.3) of every group from U^T U V, without any (N, .) product:
    # ||Y^k - U V^k||^2 = ||Y^k||^2 - 2 <U^T Y^k, V^k> + <V^k, U^T U V^k>
    smooth = Y_sq_by_group + ((V * (UtU_V - 2.0 * UtY)).sum(axis=0) @ indicator)
    return smooth + lambda2 * np.sqrt((V * V) @ indicator).sum(axis=0)


def _largest_eigenvalue(symmetric: np.ndarray) -> float:
    """Largest eigenvalue of a small symmetric PSD matrix (the Lipschitz constant of A.5).

    Above 256 rows by Lanczos (ARPACK): a few dozen (d, d) matrix-vector products instead of
    the O(d^3) reduction that even a one-eigenvalue ``eigh`` needs (2x faster at d = 492;
    slower below ~250). The start vector is a fixed Gaussian draw (deterministic, unlike
    ARPACK's default, and not orthogonal to the leading eigenvector the way a structured
    vector such as all ones can be). The Ritz value converges from below, so it is raised by
    1e-10 relative (far above its error) to stay a valid Lipschitz constant.
    """
    n = symmetric.shape[0]
    if n <= 256:
        # check_finite=False: U^T U of finite factors (the check was a tenth of the call)
        return float(
            eigh(symmetric, eigvals_only=True, subset_by_index=[n - 1, n - 1], check_finite=False)[
                0
            ]
        )
    if np.trace(symmetric) <= 0.0:
        return 0.0  # PSD with zero trace: the zero matrix (U = 0)
    start = np.random.default_rng(0).standard_normal(n)
    try:
        value = eigsh(symmetric, k=1, which="LA", v0=start, tol=1e-12, return_eigenvectors=False)
    except ArpackError:
        return float(eigh(symmetric, eigvals_only=True, subset_by_index=[n - 1, n - 1])[0])
    return float(value[0]) * (1.0 + 1e-10)


def solve_group_coefficients(
    U: np.ndarray,
    Y_signed: np.ndarray,
    lambda2: float,
    *,
    groups: np.ndarray | None = None,
    gamma: float = 0.1,
    max_iter: int = 500,
    tol: float = 1e-6,
    V_init: np.ndarray | None = None,
) -> tuple[np.ndarray, int]:
    """APG of Algorithm 2 for ``min_V ||Y^k - U V^k||_F^2 + lambda2 ||V^k||_{2,1}`` (Eq. A.3).

    The K subproblems share U, so they are solved together: V is (d, L) and the prox is
    applied block by block. The FISTA momentum sequence b_t (Eq. A.6) does not depend on the
    data, so each block follows exactly the iterates of its own APG run; only the stopping
    test is joint. Hand-written because scikit-learn has no proximal-gradient solver with a
    matrix l2,1 prox (its MultiTaskLasso solves one block by coordinate descent and is the
    independent check in the tests).

    Parameters
    ----------
    U : ndarray (N, d)
    Y_signed : ndarray (N, L), labels in {-1, 1}
    lambda2 : float
    groups : ndarray of int (L,), optional
        Group id (0..G-1) of every column; default: one group.
    gamma : float, default=0.1
        Ridge used only for the initial point ``(U^T U + gamma I)^{-1} U^T Y^k`` (Algorithm 2;
        the paper does not give gamma).
    max_iter, tol : stop after max_iter steps or when ``||V_t - V_{t-1}||_F <= tol *
        max(1, ||V_t||_F)``.
    V_init : ndarray (d, L), optional
        Start here instead of at the ridge point (warm start between outer iterations).

    Notes
    -----
    The step is ``1 / L_g`` with ``L_g = 2 ||U^T U||_2`` (spectral norm): a tighter valid
    Lipschitz constant of the gradient than the paper's Frobenius ``||2 U^T U||_F`` (A.5).
    Only U^T U and U^T Y enter: each step costs one (d, d) x (d, L) product, whatever N.

    Returns
    -------
    V : ndarray (d, L)
    n_iter : int

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.grople import solve_group_coefficients
    >>> rng = np.random.default_rng(0)
    >>> U, Y_signed = rng.normal(size=(20, 3)), np.sign(rng.normal(size=(20, 5)))
    >>> groups = np.array([0, 0, 1, 1, 1])
    >>> V, n_iter = solve_group_coefficients(U, Y_signed, lambda2=0.1, groups=groups)
    >>> V.shape, 1 <= n_iter <= 500
    ((3, 5), True)
    """
    if groups is None:
        groups = np.zeros(Y_signed.shape[1], dtype=np.intp)
    groups = np.asarray(groups)
    V, n_iter, _, _ = _apg_group_coefficients(
        U.T @ U,
        U.T @ Y_signed,
        lambda2,
        groups,
        _group_indicator(groups),
        gamma=gamma,
        max_iter=max_iter,
        tol=tol,
        V_init=V_init,
    )
    return V, n_iter


def _apg_group_coefficients(
    UtU, UtY, lambda2, groups, indicator, *, gamma, max_iter, tol, V_init
) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    # solve_group_coefficients on the precomputed U^T U and U^T Y. Also returns U^T U V of
    # the result and of the starting point, which Algorithm 1's safeguard needs: every
    # iterate V_t is multiplied by U^T U once, and the product at the search point
    # G_t = V_t + c (V_t - V_{t-1}) is the same combination of those products (A.6).
    d = UtU.shape[0]
    lipschitz = 2.0 * _largest_eigenvalue(UtU)
    if V_init is None:
        if lipschitz <= 0.0:
            # U = 0: the smooth part is constant, so V = 0 is the minimiser
            zero = np.zeros((d, UtY.shape[1]))
            return zero, 0, zero, zero
        V = solve(UtU + gamma * np.eye(d), UtY, assume_a="pos")
    else:
        V = np.array(V_init, dtype=np.float64)
    UtU_V = UtU @ V
    start_product = UtU_V
    if lipschitz <= 0.0:
        zero = np.zeros_like(V)
        return zero, 0, zero, start_product
    # The step V_t - V_{t-1} serves both the stopping test of step t and the search point of
    # step t + 1, so it is computed once; the loop runs ~10,000 steps on medical (d = 100,
    # 45 labels) where each numpy call's overhead is comparable to its arithmetic.
    UtU_V_previous = UtU_V
    difference = np.zeros_like(V)
    descent = -2.0 / lipschitz
    threshold = lambda2 / lipschitz
    momentum = 1.0
    n_iter = 0
    while n_iter < max_iter:
        n_iter += 1
        momentum_next = (1.0 + np.sqrt(1.0 + 4.0 * momentum**2)) / 2.0
        extrapolation = (momentum - 1.0) / momentum_next
        if extrapolation:
            search_point = difference * extrapolation
            search_point += V
            step_point = UtU_V - UtU_V_previous
            step_point *= extrapolation
            step_point += UtU_V
        else:
            search_point, step_point = V, UtU_V.copy()
        # G_t - grad g(G_t) / L_g with grad g(G_t) = 2 (U^T U G_t - U^T Y), in place
        step_point -= UtY
        step_point *= descent
        step_point += search_point
        V_previous, UtU_V_previous = V, UtU_V
        V = _prox_group_l21(step_point, threshold, groups, indicator)
        UtU_V = UtU @ V
        momentum = momentum_next
        difference = np.subtract(V, V_previous, out=step_point)
        if np.sqrt(np.vdot(difference, difference)) <= tol * max(1.0, np.sqrt(np.vdot(V, V))):
            break
    return V, n_iter, UtU_V, start_product


class _SignedLabels:
    """The {-1, 1} label matrix ``S`` of Eq. (4), for the products Algorithm 1 needs.

    Built from the 0/1 matrix Y, ``S = 2 Y - 1 1^T`` is never formed: ``S W = 2 Y W - 1 (1^T
    W)``, ``U^T S = 2 (Y^T U)^T - (U^T 1) 1^T`` go through Y, kept in CSR form when mostly
    zeros (label sets are: delicious ~2 % ones), and ``S^T S = 4 C - 2 n 1^T - 2 1 n^T + N
    1 1^T`` from the co-occurrence counts C = Y^T Y and label counts n. Built from a real
    matrix (the ``Y_signed`` of :func:`fit_label_embedding`), the products use it as it is.
    """

    def __init__(self, Y, *, signed: bool) -> None:
        if signed:
            self.signed = np.asarray(Y, dtype=np.float64)
            self.binary = None
            self.shape = self.signed.shape
            return
        self.signed = None
        if sp.issparse(Y) or np.count_nonzero(Y) <= SPARSE_LABEL_DENSITY * np.size(Y):
            self.binary = csr_labels(Y)
        else:
            self.binary = np.asarray(Y, dtype=np.float64)
        self.shape = self.binary.shape

    def product_cost(self) -> int:
        """Multiply-adds per column of a product with S (stored entries of Y or S)."""
        if self.binary is not None and sp.issparse(self.binary):
            return int(self.binary.nnz)
        return int(np.prod(self.shape))

    def dense(self) -> np.ndarray:
        if self.signed is not None:
            return self.signed
        Y = self.binary.toarray() if sp.issparse(self.binary) else self.binary
        return 2.0 * Y - 1.0

    def column_sq_norms(self) -> np.ndarray:
        if self.signed is not None:
            return (self.signed**2).sum(axis=0)
        return np.full(self.shape[1], float(self.shape[0]))

    def gram(self) -> np.ndarray:
        """``S^T S``, (L, L)."""
        if self.signed is not None:
            return self.signed.T @ self.signed
        n_samples, counts, cooc = _label_counts(self.binary)
        gram = 4.0 * cooc
        gram -= 2.0 * counts[:, None]
        gram -= 2.0 * counts[None, :]
        gram += n_samples
        return gram

    def matmul(self, W: np.ndarray) -> np.ndarray:
        """``S W`` for W of shape (L, d)."""
        if self.signed is not None:
            return self.signed @ W
        return 2.0 * np.asarray(self.binary @ W) - W.sum(axis=0)

    def rmatmul(self, U: np.ndarray) -> np.ndarray:
        """``U^T S`` for U of shape (N, d)."""
        if self.signed is not None:
            return U.T @ self.signed
        if sp.issparse(self.binary):
            YtU = np.asarray(self.binary.T @ U).T
        else:
            YtU = U.T @ self.binary
        return 2.0 * YtU - U.sum(axis=0)[:, None]


def _initial_basis(labels: _SignedLabels, n_components: int, init: str, random_state) -> np.ndarray:
    n_samples = labels.shape[0]
    if init == "svd":
        left, singular, _ = np.linalg.svd(labels.dense(), full_matrices=False)
        rank = min(n_components, singular.size)
        U = np.zeros((n_samples, n_components))
        U[:, :rank] = left[:, :rank] * np.sqrt(singular[:rank])
        return U
    if init == "random":
        rng = np.random.default_rng(random_state)
        # scaled so that U V can match Y's entries (about 1) with V entries about 1
        return rng.standard_normal((n_samples, n_components)) / np.sqrt(n_components)
    raise ValueError(f"init must be 'random' or 'svd'; got {init!r}.")


def lambda2_max(
    y,
    groups,
    n_components: int,
    *,
    init: str = "random",
    random_state=None,
) -> float:
    """The λ2 at and above which :class:`GroPLE` fits V = 0 on these labels (every V^k zero).

    Derivation (Appendix A). For fixed U the V^k subproblem (A.3) is convex, and V^k = 0
    minimises it iff 0 lies in its subdifferential there: the gradient of the smooth part at
    V^k = 0 is ``-2 U^T Y^k`` and the subdifferential of ``lambda2 ||.||_{2,1}`` at 0 is every
    matrix whose rows have norm at most lambda2, so V^k = 0 iff ``2 ||(U^T Y^k)_i||_2 <=
    lambda2`` for every row i (equivalently: the prox of Eq. A.9 maps the first gradient step
    from 0 to 0). Algorithm 1 solves (A.3) first at its initial U_0, so for

        ``lambda2 >= 2 max_{k, i} ||(U_0^T Y^k)_i||_2``

    its first V is 0, Eq. (A.2) then gives U = 0, and the iteration stays at V = 0: the
    model predicts every label from the intercept alone. U_0 is the fit's own start
    (``init``, ``random_state``; it depends on the number of rows of y and on d), so the
    bound is exact for :class:`GroPLE` with the same settings and these labels.

    Below the bound V can still end at 0: (0, 0) is a local minimiser of Eq. (4) for every
    lambda2 > 0, because along ``(t U, t V)`` the penalties grow like t^(2/3) after the
    best rescaling while the fit improves like t, and the alternating scheme can fall into it
    (:attr:`GroPLE.degenerate_` says so). Above the bound it always does.

    Parameters
    ----------
    y : array-like of shape (n_samples, n_labels)
        0/1 training labels, as passed to :meth:`GroPLE.fit`.
    groups : array-like of int (n_labels,)
        Group of every label (``GroPLE.groups_`` or a LabelClustering's ``labels_``).
    n_components : int
        d.
    init, random_state
        As in :class:`GroPLE` (they fix U_0).

    Returns
    -------
    float

    Examples
    --------
    >>> from mlviz.grople import GroPLE, lambda2_max
    >>> from mlviz.synthetic import make_planted
    >>> ds, _ = make_planted(n_samples=150, random_state=0)
    >>> model = GroPLE(n_components=4, n_groups=3, random_state=0).fit(ds.X, ds.Y)
    >>> bound = lambda2_max(ds.Y, model.groups_, 4, random_state=0)
    >>> bound == model.lambda2_max_
    True
    >>> at_bound = GroPLE(n_components=4, n_groups=3, lambda2=bound, random_state=0)
    >>> bool(at_bound.fit(ds.X, ds.Y).V_.any())  # every V^k is zero from the bound on
    False
    """
    Y = y.toarray() if sp.issparse(y) else np.asarray(y)
    if Y.ndim == 1:
        Y = Y[:, None]
    groups = check_groups(groups, Y.shape[1])
    return _lambda2_max(_SignedLabels(Y, signed=False), groups, n_components, init, random_state)


def _lambda2_max(labels: _SignedLabels, groups: np.ndarray, n_components, init, random_state):
    """:func:`lambda2_max` of labels already wrapped (``GroPLE.fit`` reuses its own)."""
    U0 = _initial_basis(labels, int(n_components), init, random_state)
    return _lambda2_from(labels.rmatmul(U0), groups)


def _lambda2_from(UtS: np.ndarray, groups: np.ndarray) -> float:
    """``2 max_{k, i} ||(U_0^T Y^k)_i||_2`` from ``U_0^T S`` (d, L) in the {-1, 1} coding."""
    row_norms = np.sqrt((UtS * UtS) @ _group_indicator(groups))  # (d, K)
    return 2.0 * float(row_norms.max(initial=0.0))


def lambda1_max(
    y,
    groups,
    n_components: int,
    lambda2: float,
    *,
    init: str = "random",
    random_state=None,
    gamma: float = 0.1,
    apg_max_iter: int = 100,
    apg_tol: float = 1e-4,
) -> float:
    """The λ1 above which :class:`GroPLE` at this λ2 fits V = 0 (every V^k zero) on these labels.

    Derivation (Appendix A; one outer iteration of Algorithm 1). The first V step solves
    (A.3) at the fit's start U_0 and does not depend on λ1; call its result V_1 (zero iff
    λ2 >= :func:`lambda2_max`). The U step (Eq. A.2) gives ``U_1 = S V_1^T (V_1 V_1^T +
    lambda1 I)^{-1}`` (S = 2Y - 1), and the fit's balancing step rescales ``U_1 <- c U_1``,
    ``V_1 <- V_1 / c`` with ``c^3 = lambda2 ||V_1||_{2,1} / (2 lambda1 ||U_1||_F^2)`` (the exact
    minimiser of Eq. (4) along the scale direction). The second V step solves (A.3) at U_1,
    and, by the optimality condition behind :func:`lambda2_max` (0 is in the subdifferential
    of A.3 at V^k = 0), its result is 0 iff

        ``margin(lambda1) = 2 c max_{k, i} ||(U_1^T Y^k)_i||_2 - lambda2 <= 0``.

    Then Eq. (A.2) gives U = 0 and the fit stays at V = 0. With ``V_1 V_1^T = Q diag(s)
    Q^T``, ``U_1^T S = Q diag(1 / (s + lambda1)) Q^T V_1 S^T S`` and ``||U_1||_F^2 = sum_j
    (W S^T S W^T)_jj / (s_j + lambda1)^2`` (W = Q^T V_1): margin is a closed-form function
    of λ1, but its root has no closed form for d > 1 (a cube root times a ratio of
    polynomials in λ1 of degree ~d; for d = 1 it solves ``lambda1 (s + lambda1) = 4 a^3
    ||V_1|| / (lambda2^2 b)`` with ``a = ||V_1 S^T S||``, ``b = ||S V_1^T||^2``, which the
    tests check), so it is found numerically: margin is evaluated on a grid of eight points
    per decade from 1e-8 to 1e8 times the largest s (far above the eigenvalues margin + λ2
    falls like λ1^(-2/3); a margin still positive at the top is reported as ``inf``, which
    did not occur), from the top down to the first point where it is positive, and the grid
    interval above that point, the last where it changes sign, is searched by Brent's method
    (``scipy.optimize.brentq`` on log λ1) to relative precision 1e-11. The bound is the
    *largest* root, so every λ1 above it gives V = 0 (up to the grid's resolution; margin
    changed sign exactly once on the planted sample, yeast, medical and emotions,
    docs/GROPLE.md). A finite bound exists for every λ2 > 0 with
    V_1 != 0: as λ1 grows, U_1 shrinks like 1 / λ1 while c grows like λ1^(1/3), so margin ->
    -λ2 < 0; as λ1 -> 0, c -> infinity and margin -> +infinity.

    At λ2 = 0 no λ1 makes V zero (the V step is then a ridge regression, zero only if U^T S =
    0, and the balancing step is off): the bound is ``inf``. At λ2 >= :func:`lambda2_max`
    every λ1 does: the bound is 0.

    Below the bound the fit can still end degenerate (V = 0 after more iterations, or scores
    that are never positive because U is so small that Eq. (5)'s l1 penalty on Z removes the
    features; measured on the planted sample, docs/GROPLE.md); :attr:`GroPLE.degenerate_`
    says which. Above it the fit always ends at V = 0.

    Parameters
    ----------
    y : array-like of shape (n_samples, n_labels)
        0/1 training labels, as passed to :meth:`GroPLE.fit`.
    groups : array-like of int (n_labels,)
        Group of every label (``GroPLE.groups_`` or a LabelClustering's ``labels_``).
    n_components : int
        d.
    lambda2 : float
        The fit's λ2.
    init, random_state, gamma, apg_max_iter, apg_tol
        As in :class:`GroPLE` (they fix U_0 and the first V step).

    Returns
    -------
    float
        0 when λ2 >= λ2_max, ``inf`` when λ2 = 0.

    Examples
    --------
    >>> from mlviz.grople import GroPLE, lambda1_max
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> bound = lambda1_max(ds.Y, groups, 4, lambda2=10.0, random_state=0)
    >>> above = GroPLE(n_components=4, groups=groups, lambda1=1.01 * bound, lambda2=10.0,
    ...                random_state=0).fit(ds.X, ds.Y)
    >>> bool(above.V_.any())  # every V^k is zero above the bound
    False
    """
    if float(lambda2) <= 0.0:
        return float("inf")  # before drawing U_0: no λ1 makes V zero (see above)
    bounds = LambdaBounds(y, groups, n_components, init=init, random_state=random_state)
    return bounds.lambda1_max(lambda2, gamma=gamma, apg_max_iter=apg_max_iter, apg_tol=apg_tol)


class LambdaBounds:
    """:func:`lambda2_max` and :func:`lambda1_max` at one d on one set of labels, from one U_0.

    Both bounds start where :class:`GroPLE` starts: U_0 (``init``, ``random_state``; N x d
    numbers) and the first V step at it. The GroPLE page asks for both on every move of d and
    for λ1_max again on every move of λ2; each function on its own drew U_0 and converted the
    labels again (at delicious's shape, d = 246: ~0.06 s for U_0, ~0.04 s for the labels and
    ~0.05 s for ``S^T S``, of a ~0.5 s move). This keeps only what the bounds read: ``U_0^T
    U_0`` (d x d), ``U_0^T S`` (d x L) and, once λ1_max is asked, ``S^T S`` (L x L). The
    bounds are the functions' own, to the last bit (tested).

    Parameters
    ----------
    y, groups, n_components, init, random_state
        As in :func:`lambda2_max`.

    Examples
    --------
    >>> from mlviz.grople import LambdaBounds, lambda1_max, lambda2_max
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> bounds = LambdaBounds(ds.Y, groups, 4, random_state=0)
    >>> bounds.lambda2_max() == lambda2_max(ds.Y, groups, 4, random_state=0)
    True
    >>> bounds.lambda1_max(10.0) == lambda1_max(ds.Y, groups, 4, 10.0, random_state=0)
    True
    """

    def __init__(self, y, groups, n_components: int, *, init: str = "random", random_state=None):
        Y = y.toarray() if sp.issparse(y) else np.asarray(y)
        if Y.ndim == 1:
            Y = Y[:, None]
        groups = check_groups(groups, Y.shape[1])
        labels = _SignedLabels(Y, signed=False)
        U0 = _initial_basis(labels, int(n_components), init, random_state)
        self._labels = labels
        self._groups = groups
        self._UtU0 = U0.T @ U0
        self._UtS0 = labels.rmatmul(U0)  # (d, L): U_0^T Y in the {-1, 1} coding
        self._gram_matrix: np.ndarray | None = None

    def _gram(self) -> np.ndarray:
        if self._gram_matrix is None:
            self._gram_matrix = self._labels.gram()
        return self._gram_matrix

    def lambda2_max(self) -> float:
        """:func:`lambda2_max` (its derivation): ``2 max_{k, i} ||(U_0^T Y^k)_i||_2``."""
        return _lambda2_from(self._UtS0, self._groups)

    def lambda1_max(
        self,
        lambda2: float,
        *,
        gamma: float = 0.1,
        apg_max_iter: int = 100,
        apg_tol: float = 1e-4,
    ) -> float:
        """:func:`lambda1_max` at ``lambda2`` (its derivation and grid search).

        ``gamma``, ``apg_max_iter`` and ``apg_tol`` are :class:`GroPLE`'s (they fix the
        first V step).
        """
        lambda2 = float(lambda2)
        if lambda2 <= 0.0:
            return float("inf")
        indicator = _group_indicator(self._groups)
        # V_1: Algorithm 2 at U_0 exactly as the fit runs it (same start, limits and tolerance)
        V1, _, _, _ = _apg_group_coefficients(
            self._UtU0,
            self._UtS0,
            lambda2,
            self._groups,
            indicator,
            gamma=float(gamma),
            max_iter=int(apg_max_iter),
            tol=float(apg_tol),
            V_init=None,
        )
        v_l21 = float(np.sqrt((V1 * V1) @ indicator).sum())
        if v_l21 <= 0.0:
            return 0.0
        s, Q = eigh(V1 @ V1.T)
        s = np.clip(s, 0.0, None)
        W = Q.T @ V1
        B = W @ self._gram()  # (d, L): Q^T V_1 S^T S
        C = np.einsum("jl,jl->j", B, W)  # diag(W S^T S W^T)
        n_components_, n_groups = B.shape[0], indicator.shape[1]
        # U_1^T S = Q D B. Its rows' squared norms within group k are diag(Q D G_k D Q^T) with
        # G_k = B_k B_k^T (d x d): K d^3 per evaluation instead of d^2 L when K d < L (983
        # labels, d = 100, K = 2: the GroPLE page's λ1 range 0.26 -> 0.16 s, the same bound)
        group_grams = _group_grams(B, indicator) if n_groups * n_components_ < B.shape[1] else None

        def largest_row_norm_sq(D: np.ndarray) -> float:
            QD = Q * D[None, :]
            if group_grams is None:
                UtS = QD @ B
                return float(((UtS * UtS) @ indicator).max())
            return max(float(np.einsum("ij,ij->i", QD @ gram, QD).max()) for gram in group_grams)

        def margin(lambda1: float) -> float:
            D = 1.0 / (s + lambda1)
            u_sq = float(np.sum(D * D * C))
            if u_sq <= 0.0:  # S V_1^T = 0: U_1 = 0, so the second V step is 0
                return -lambda2
            c = (lambda2 * v_l21 / (2.0 * lambda1 * u_sq)) ** (1.0 / 3.0)
            return 2.0 * c * np.sqrt(max(largest_row_norm_sq(D), 0.0)) - lambda2

        scale = max(float(s[-1]), np.finfo(float).tiny)
        grid = scale * np.logspace(-8.0, 8.0, 8 * 16 + 1)
        # the last grid point where margin > 0, found from the top down: the same point as
        # evaluating the whole grid, with the evaluations below it skipped (about half the grid's
        # 129: at d = 246 each costs d^2 L, and the GroPLE page recomputes the bound on every d),
        # and those above the last point where an upper bound of the margin is positive
        grams = group_grams if group_grams is not None else _group_grams(B, indicator)
        start = _last_positive(_margin_upper_bounds(grid, s, C, grams, v_l21, lambda2))
        last = next((i for i in range(start, -1, -1) if margin(float(grid[i])) > 0.0), None)
        if last is None:
            return float(grid[0])  # V = 0 from far below the scale of V_1 on (margin <= 0 there)
        if last == grid.size - 1:
            return float("inf")  # not reached within 1e8 times the scale: no bound found
        # Brent's method on log λ1 (margin is smooth between the kinks where the largest row
        # changes, and Brent falls back to bisection steps there): ~9 evaluations instead of the
        # 32 of a bisection to the same precision, ~15 % of the bound's time at d = 246 on 983
        # labels, recomputed on every move of the GroPLE page's d (docs/BENCHMARKS.md)
        root = brentq(
            lambda log_lambda1: margin(float(np.exp(log_lambda1))),
            np.log(grid[last]),
            np.log(grid[last + 1]),
            xtol=1e-11,
            rtol=4 * np.finfo(float).eps,
        )
        return float(np.exp(root))


def _group_grams(B: np.ndarray, indicator: np.ndarray) -> list[np.ndarray]:
    """``B_k B_k^T`` (d x d) of every group k's columns of B."""
    return [B[:, column.astype(bool)] @ B[:, column.astype(bool)].T for column in indicator.T]


def _margin_upper_bounds(
    grid: np.ndarray,
    s: np.ndarray,
    C: np.ndarray,
    group_grams: list[np.ndarray],
    v_l21: float,
    lambda2: float,
) -> np.ndarray:
    """An upper bound of :meth:`LambdaBounds.lambda1_max`'s margin at every λ1 of ``grid``, at
    O(d) a point where the margin costs O(K d^3).

    A row of U_1^T S within group k is ``q_i D B_k`` with ``q_i`` a row of the orthogonal Q,
    so its squared norm is at most ``max(D)^2 ||B_k||_2^2``: the margin's largest row norm
    replaced by that. Raised by 1e-9 relative, far above rounding, so that a grid point whose
    bound is not positive cannot have a positive margin. At d = 246 on 983 labels the last
    positive bound lies 6-8 grid points above the last positive margin, where the search from
    the grid's top evaluated 26-41 points.
    """
    top = 0.0  # max_k ||B_k||_2^2, the largest eigenvalue of the groups' B_k B_k^T
    for gram in group_grams:
        n = gram.shape[0]
        top = max(top, float(eigh(gram, eigvals_only=True, subset_by_index=[n - 1, n - 1])[0]))
    D = 1.0 / (s[None, :] + grid[:, None])  # (grid, d)
    u_sq = (D * D) @ C
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        c = np.cbrt(lambda2 * v_l21 / (2.0 * grid * u_sq))
        bound = 2.0 * c * D.max(axis=1) * np.sqrt(max(top, 0.0)) * (1.0 + 1e-9) - lambda2
    # u_sq = 0 (or an overflow): the margin is -lambda2 there, or not bounded here: keep the
    # point in the search
    return np.where(np.isfinite(bound) & (u_sq > 0.0), bound, np.where(u_sq > 0.0, np.inf, -1.0))


def _last_positive(values: np.ndarray) -> int:
    """The index of the last positive value; -1 if none is."""
    positive = np.flatnonzero(values > 0.0)
    return int(positive[-1]) if positive.size else -1


def _balance_factor(u_sq: float, V: np.ndarray, lambda1: float, lambda2: float, indicator):
    # f(cU, V/c) = const + lambda1 c^2 ||U||^2 + lambda2 ||V||_21 / c is minimised at
    # c^3 = lambda2 ||V||_21 / (2 lambda1 ||U||^2): an exact step along the scale direction,
    # along which alternating U/V steps crawl because only the penalties break the symmetry
    v_l21 = float(np.sqrt((V * V) @ indicator).sum())
    if u_sq <= 0.0 or v_l21 <= 0.0 or lambda2 <= 0.0:
        return 1.0
    return (lambda2 * v_l21 / (2.0 * lambda1 * u_sq)) ** (1.0 / 3.0)


def fit_label_embedding(
    Y_signed: np.ndarray,
    groups: np.ndarray,
    n_components: int,
    lambda1: float,
    lambda2: float,
    *,
    init: str = "random",
    gamma: float = 0.1,
    max_iter: int = 50,
    tol: float = 1e-4,
    apg_max_iter: int = 100,
    apg_tol: float = 1e-4,
    balance: bool = True,
    warm_start: bool = True,
    random_state=None,
    use_gram: bool | None = None,
) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """Algorithm 1: alternate APG on every V^k with the closed form ``U = Y V^T (V V^T +
    lambda1 I)^{-1}`` (Eq. A.2) until the relative change of Eq. (4) is below ``tol``.

    Algorithm 2 starts every APG at the ridge point; with ``warm_start`` (default) only the
    first outer iteration does, later ones start from the current V. The subproblem is
    convex, so this changes how many APG steps are needed, not their limit.

    The U step is an exact minimiser; a V^k step is kept only if it does not raise its
    subproblem objective (APG restarts from the ridge point of Algorithm 2 at every outer
    iteration and is stopped early), and the optional balancing step (``U <- c U``,
    ``V <- V / c`` with the best c, not in the paper) is exact too, so the recorded objective
    never increases. At a minimiser of Eq. (4) the best c is 1, so balancing changes the
    path, not the fixed points.

    Every step needs U only through ``U^T U`` and ``U^T Y``. After the first U step,
    ``U = Y P^T`` with ``P = (V V^T + lambda1 I)^{-1} V``, so both follow from the (L, L)
    Gram matrix ``Y^T Y``: ``U^T Y = P Y^T Y``, ``U^T U = P Y^T Y P^T``, and U itself is
    formed once, at the end. ``use_gram`` forces (True) or forbids (False) this form; by
    default it is used when it is expected to be faster (:func:`_gram_form_is_cheaper`),
    i.e. nearly always (L < N). Both forms give the same iterates up to rounding.

    Returns
    -------
    U : ndarray (N, d)
    V : ndarray (d, L), columns in the original label order
    history : list of float, Eq. (4) after each outer iteration

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.grople import fit_label_embedding
    >>> U, V, history = fit_label_embedding(2.0 * Y - 1.0, groups, n_components=5, lambda1=0.001,
    ...                                       lambda2=1.0, random_state=0)
    >>> U.shape, V.shape, 1 <= len(history) <= 50
    ((150, 5), (5, 22), True)
    """
    return _fit_label_embedding(
        _SignedLabels(Y_signed, signed=True),
        groups,
        n_components,
        lambda1,
        lambda2,
        init=init,
        gamma=gamma,
        max_iter=max_iter,
        tol=tol,
        apg_max_iter=apg_max_iter,
        apg_tol=apg_tol,
        balance=balance,
        warm_start=warm_start,
        random_state=random_state,
        use_gram=use_gram,
    )


#: How much slower the form with the (N, d) matrix U runs per multiply-add than the Gram form:
#: its Cholesky solve has N right-hand sides (a triangular solve, slower than a product) and
#: its products with Y are sparse. With this weight the rule picks the faster form on 10 of
#: the 11 shapes of ``benchmarks/bench_grople_gram.py`` (N = 150-5,200, L = 14-983,
#: d = 7-100, one BLAS thread); the exception (N = 300 < L = 374) costs 1.2x.
_DIRECT_FORM_SLOWDOWN = 2.5


def _gram_form_is_cheaper(n_samples: int, n_labels: int, n_components: int, product_cost: int):
    """Whether the U step's Gram form (a solve with L right-hand sides, ``P Y^T Y`` and ``P Y^T
    Y P^T``: ``d L (L + 2 d)`` multiply-adds) is expected to beat the form with U itself (a
    solve with N right-hand sides and ``U^T U``: ``2 N d^2``, and two sparse products with Y),
    weighted by :data:`_DIRECT_FORM_SLOWDOWN`. Counting multiply-adds alone picked the slower
    form on small training folds (2x slower at N = 373, L = 159, d = 80: the chance panel's
    folds of a 159-label set) and on ~1,000 labels (1.4x at N = 3,000, L = 983, d = 100)."""
    gram_cost = n_components * n_labels * (n_labels + 2 * n_components)
    direct_cost = 2 * n_samples * n_components**2 + 2 * n_components * product_cost
    return gram_cost <= _DIRECT_FORM_SLOWDOWN * direct_cost


def _fit_label_embedding(
    labels: _SignedLabels,
    groups,
    n_components: int,
    lambda1: float,
    lambda2: float,
    *,
    init: str = "random",
    gamma: float = 0.1,
    max_iter: int = 1000,
    tol: float = 1e-4,
    apg_max_iter: int = 100,
    apg_tol: float = 1e-4,
    balance: bool = True,
    warm_start: bool = True,
    random_state=None,
    use_gram: bool | None = None,
    solver: str = "alternating",
) -> tuple[np.ndarray, np.ndarray, list[float]]:
    # the defaults are GroPLE's, except the solver (Algorithm 1, as fit_label_embedding)
    groups = np.asarray(groups)
    n_samples, n_labels = labels.shape
    if use_gram is None:
        use_gram = _gram_form_is_cheaper(n_samples, n_labels, n_components, labels.product_cost())
    gram = labels.gram() if use_gram else None
    indicator = _group_indicator(groups)
    Y_sq_by_group = labels.column_sq_norms() @ indicator
    Y_sq = float(Y_sq_by_group.sum())
    identity = np.eye(n_components)

    def u_step(V: np.ndarray, *, balanced: bool) -> _Point:
        # Eq. (A.2) by Cholesky (what solve(assume_a="pos") does, without its overhead), the
        # optional balancing, and Eq. (4) from U^T U and U^T Y: ||Y - U V||^2 = ||Y||^2 -
        # 2 <U^T Y, V> + <U^T U, V V^T> (no (N, L) product)
        VVt = V @ V.T
        factor = cho_factor(VVt + lambda1 * identity, check_finite=False)
        U = basis = None
        if gram is None:
            U = cho_solve(factor, labels.matmul(V.T).T, overwrite_b=True, check_finite=False).T
            UtU, UtY = U.T @ U, labels.rmatmul(U)
        else:
            P = cho_solve(factor, V, check_finite=False)
            basis = P.T
            UtY = P @ gram
            UtU = UtY @ basis
            # exactly symmetric: the eigensolver and the Cholesky factor read one triangle
            UtU += UtU.T
            UtU *= 0.5
        if balanced:
            scale = _balance_factor(float(np.trace(UtU)), V, lambda1, lambda2, indicator)
            if scale != 1.0:
                V = V / scale
                VVt /= scale**2
                UtU *= scale**2
                UtY *= scale
                if basis is None:
                    U = U * scale
                else:
                    basis = basis * scale
        fit = Y_sq - 2.0 * float(np.sum(UtY * V)) + float(np.sum(UtU * VVt))
        ridge = lambda1 * float(np.trace(UtU))
        penalty = float(np.sqrt((V * V) @ indicator).sum())
        return _Point(V, UtU, UtY, U, basis, fit + ridge, fit + lambda2 * penalty + ridge)

    U_0 = _initial_basis(labels, n_components, init, random_state)
    start = (U_0.T @ U_0, labels.rmatmul(U_0))

    def alternation_step(point: _Point | None) -> _Point:
        # Algorithm 1: APG on every V^k at the current U (U_0 at first), then the U step. The
        # V step is kept group by group only where it does not raise (A.3).
        UtU, UtY = start if point is None else (point.UtU, point.UtY)
        V = None if point is None else point.V
        candidate, _, candidate_product, start_product = _apg_group_coefficients(
            UtU,
            UtY,
            lambda2,
            groups,
            indicator,
            gamma=gamma,
            max_iter=apg_max_iter,
            tol=apg_tol,
            V_init=V if warm_start else None,
        )
        if V is not None:
            if not warm_start:
                start_product = UtU @ V
            old = _group_objectives(start_product, UtY, Y_sq_by_group, V, lambda2, indicator)
            new = _group_objectives(
                candidate_product, UtY, Y_sq_by_group, candidate, lambda2, indicator
            )
            improved = (new <= old)[groups]
            candidate = np.where(improved[None, :], candidate, V)
        return u_step(candidate, balanced=balance)

    history: list[float] = []

    def stopped() -> bool:
        return len(history) > 1 and history[-2] - history[-1] <= tol * max(abs(history[-2]), 1e-12)

    point = None
    if solver == "varpro":
        # Algorithm 1's first two iterations as they are (lambda2_max and lambda1_max are
        # defined by its first and second V step), then variable projection from there.
        while len(history) < min(2, max_iter) and not stopped():
            point = alternation_step(point)
            history.append(point.value)
        if not stopped() and len(history) < max_iter and np.any(point.V):
            point = _variable_projection(
                point,
                lambda V: u_step(V, balanced=False),
                groups,
                indicator,
                lambda2,
                tol=tol,
                max_iter=max_iter - len(history),
                history=history,
            )
            if len(history) < max_iter:
                # at least one step of Algorithm 1 from there: the fit ends where its rule
                # stops it, not where the proximal gradient's did
                point = alternation_step(point)
                history.append(point.value)
    # Algorithm 1 until its rule stops it
    while len(history) < max_iter and (point is None or not stopped()):
        point = alternation_step(point)
        history.append(point.value)
    U = point.U if point.basis is None else labels.matmul(point.basis)
    return U, point.V, history


@dataclass(frozen=True)
class _Point:
    """V after an exact U step of Eq. (A.2) (possibly balanced): U^T U, U^T Y, U itself or its
    basis (``U = S basis`` in the Gram form), the smooth part of Eq. (4) and Eq. (4)."""

    V: np.ndarray
    UtU: np.ndarray
    UtY: np.ndarray
    U: np.ndarray | None
    basis: np.ndarray | None
    smooth: float
    value: float


def _variable_projection(
    point: _Point,
    u_step: Callable[[np.ndarray], _Point],
    groups: np.ndarray,
    indicator: np.ndarray,
    lambda2: float,
    *,
    tol: float,
    max_iter: int,
    history: list[float],
) -> _Point:
    """Eq. (4) with U eliminated, ``F(V) = min_U ||S - U V||^2 + lambda1 ||U||^2`` (the exact U
    step, Eq. A.2) plus the group penalty, by accelerated proximal gradient (not in the paper).

    ``grad F(V) = 2 (U^T U V - U^T S)`` at ``U = U(V)`` (the U term's own gradient vanishes at
    its minimiser), the prox is the group l2,1 shrinkage of Eq. (A.9), the step comes from a
    backtracking line search on F (its curvature changes with U), and a step that would raise
    Eq. (4) is retried from the current point without momentum, so the record never
    increases (monotone APG, Beck & Teboulle 2009). Alternating U and V steps crawl along the
    valley where U V stays nearly the same: on medical (d = 100, K = 5) Algorithm 1 stops at
    Eq. (4) = 53.68 after 463 iterations and 20,000 reach 43.40; the fit with this reaches
    41.15 in 146 (docs/GROPLE.md). Stops when Eq. (4) falls by at most ``tol`` relative, or after
    ``max_iter`` steps; appends Eq. (4) after every step to ``history``.
    """
    current = u_step(point.V)  # exact U(V) (point may carry a balanced U)
    value = current.value
    V_previous = current.V
    momentum = 1.0
    lipschitz = 2.0 * _largest_eigenvalue(current.UtU)
    if lipschitz <= 0.0:
        return point

    def prox_step(search: _Point) -> tuple[_Point, float]:
        # the proximal gradient step from ``search`` with a Lipschitz estimate that satisfies
        # the sufficient decrease of F: the last one lowered by 10 % (F's curvature changes
        # with U), doubled until it holds. (Halving it instead, or balancing U and V after
        # each step as Algorithm 1 does, cost up to 2.5x the time for the same Eq. (4).)
        nonlocal lipschitz
        gradient = 2.0 * (search.UtU @ search.V - search.UtY)
        lipschitz *= 0.9
        while True:
            V = prox_group_l21(search.V - gradient / lipschitz, lambda2 / lipschitz, groups)
            step = V - search.V
            trial = u_step(V)
            bound = (
                search.smooth
                + float(np.vdot(gradient, step))
                + 0.5 * lipschitz * float(np.vdot(step, step))
            )
            if trial.smooth <= bound + 1e-12 * abs(search.smooth) or lipschitz > 1e300:
                return trial, lipschitz
            lipschitz *= 2.0

    for _ in range(max_iter):
        momentum_next = (1.0 + np.sqrt(1.0 + 4.0 * momentum**2)) / 2.0
        weight = (momentum - 1.0) / momentum_next
        search = current if weight == 0.0 else u_step(current.V + weight * (current.V - V_previous))
        trial, _ = prox_step(search)
        if trial.value > value and weight != 0.0:
            # the accelerated step went uphill: restart from the current point
            momentum_next = 1.0
            trial, _ = prox_step(current)
        if trial.value > value:
            break  # no descent even from the current point: a stationary point (to rounding)
        V_previous, current, momentum = current.V, trial, momentum_next
        history.append(trial.value)
        decrease = value - trial.value
        value = trial.value
        if decrease <= tol * max(abs(value + decrease), 1e-12):
            break
    return current


# ---------------------------------------------------------------------------------------------
# stage 3: feature embedding, Eq. (5)
# ---------------------------------------------------------------------------------------------


def label_correlation_penalty(U: np.ndarray) -> np.ndarray:
    """R = 1 - C with C the Pearson correlation between the columns of U (Eq. 5).

    C is ``np.corrcoef`` of the columns that vary. A constant column of U (zero variance,
    e.g. a latent dimension no group uses; "constant" means its standard deviation is at
    most 1e-12 times the largest one, so rounding noise around a constant counts too) has no
    defined correlation, and ``np.corrcoef`` would make its row and column NaN: it is treated
    as uncorrelated with the others (C_ij = 0, so R_ij = 1) and perfectly correlated with
    itself (C_ii = 1), so R keeps a zero diagonal and the correlation term of Eq. (5) still
    pulls such a column towards no other.

    Parameters
    ----------
    U : ndarray of shape (n_samples, n_components)
        Label embedding, one latent dimension per column.

    Returns
    -------
    R : ndarray of shape (n_components, n_components)
        Symmetric, zero diagonal, entries in [0, 2].

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.grople import label_correlation_penalty
    >>> R = label_correlation_penalty(np.random.default_rng(0).normal(size=(30, 3)))
    >>> R.shape, bool(np.allclose(R, R.T)), bool(np.allclose(np.diag(R), 0))
    ((3, 3), True, True)
    """
    U = np.asarray(U, dtype=np.float64)
    n_components = U.shape[1]
    spread = U.std(axis=0)
    varies = spread > 1e-12 * max(1.0, float(spread.max(initial=0.0)))
    correlation = np.zeros((n_components, n_components))
    if varies.any():
        # atleast_2d: corrcoef of a single column is the scalar 1.0.
        correlation[np.ix_(varies, varies)] = np.atleast_2d(np.corrcoef(U[:, varies], rowvar=False))
    np.fill_diagonal(correlation, 1.0)
    return 1.0 - correlation


# Scores formed at once by GroPLE's check for a fit that predicts nothing (~8 MB).
_SCORE_BLOCK_ENTRIES = 1 << 20

# Below this share of non-zero entries a dense X is handled as CSR (see _CentredDesign).
_SPARSE_DENSITY = 0.1
# The exact row sums of |X^T X| for Eq. (5)'s diagonal step are worth this many APG steps
# of products (2 nnz(X) d multiply-adds each); above, the bound of gram_abs_row_sums.
_ROW_SUM_STEPS = 25
# Entries of X^T X formed at once for those sums (~50 MB with the row indices).
_GRAM_BLOCK_ENTRIES = 1 << 22


class _CentredDesign:
    """X with its column means removed (when fitting an intercept), without densifying X.

    Products with ``X_c^T X_c`` go through a precomputed dense Gram matrix when that is
    cheaper (D^2 < 2 nnz(X)), otherwise through two products with X itself. A sparse X is
    kept in CSR form together with a CSR copy of X^T, so both products are row-major
    (scipy's CSC product is slower).
    """

    def __init__(self, X, fit_intercept: bool, use_gram: bool | None = None) -> None:
        if not sp.issparse(X):
            X = np.asarray(X, dtype=np.float64)
            # Mostly-zero features stored dense (a densified bag of words) are worked with as
            # CSR: the same products, but over the non-zeros only (medical stored dense: the
            # fit went from ~6.5 s to the sparse time, see docs/BENCHMARKS.md).
            if np.count_nonzero(X) < _SPARSE_DENSITY * X.size:
                X = sp.csr_matrix(X)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            self.XT = sp.csr_matrix(X.T)
        else:
            self.XT = X.T
        self.X = X
        self.n_samples, self.n_features = X.shape
        self.mean = np.asarray(X.mean(axis=0)).ravel() if fit_intercept else np.zeros(X.shape[1])
        # real non-zeros: counting X.size for dense X made low-density data take the D x D
        # Gram path, ~160x the work per APG step on medical
        nnz = X.nnz if sp.issparse(X) else np.count_nonzero(X)
        if use_gram is None:
            use_gram = self.n_features**2 < 2 * nnz
        self.gram = self._centred_gram() if use_gram else None

    def _centred_gram(self) -> np.ndarray:
        gram = self.XT @ self.X
        gram = gram.toarray() if sp.issparse(gram) else np.asarray(gram)
        return gram - self.n_samples * np.outer(self.mean, self.mean)

    def matmul(self, Z: np.ndarray) -> np.ndarray:
        image = np.asarray(self.X @ Z)
        image -= self.mean @ Z
        return image

    def rmatmul(self, W: np.ndarray, *, centred: bool = False) -> np.ndarray:
        """``X_c^T W``; ``centred`` says that W's columns sum to 0 (as ``X_c Z - U_c`` do),
        so the mean's term ``m 1^T W`` vanishes and is skipped."""
        product = np.asarray(self.XT @ W)
        if not centred:
            product -= np.outer(self.mean, W.sum(axis=0))
        return product

    def gram_matmul(self, Z: np.ndarray) -> np.ndarray:
        if self.gram is not None:
            return self.gram @ Z
        return self.rmatmul(self.matmul(Z))

    def gram_norm(self) -> float:
        """Largest eigenvalue of ``X_c^T X_c`` (0 when every feature is constant: X_c = 0)."""
        if self.n_features == 1:
            return float(self.gram_matmul(np.ones((1, 1)))[0, 0])
        operator = LinearOperator(
            (self.n_features, self.n_features),
            matvec=lambda v: self.gram_matmul(v.reshape(-1, 1)).ravel(),
            dtype=np.float64,
        )
        try:
            return float(eigsh(operator, k=1, which="LA", return_eigenvectors=False)[0])
        except ArpackError as err:
            # ARPACK stops ("error -9: starting vector is zero") when the operator maps its
            # start vectors to 0: constant features, X_c = 0. A non-zero PSD Gram matrix
            # annihilates random probes with probability 0, so three zero images mean G = 0
            # (its largest eigenvalue, and the feature stage's Lipschitz constant, is 0).
            probes = np.random.default_rng(0).standard_normal((self.n_features, 3))
            scale = float(np.linalg.norm(self.gram_matmul(probes)))
            if scale <= 1e-12 * float(np.linalg.norm(probes)) * self._squared_norm():
                return 0.0
            raise ValueError(
                f"GroPLE: the largest eigenvalue of the centred features' Gram matrix "
                f"(D = {self.n_features}) could not be computed ({err}). Standardise the "
                "features or drop near-constant ones, then fit again."
            ) from err

    def gram_abs_row_sums(self, max_work: float) -> np.ndarray:
        """Row sums of ``|X_c^T X_c|`` (entry-wise absolute values), or an upper bound.

        ``diag(s) - X_c^T X_c`` is diagonally dominant with a non-negative diagonal, hence
        positive semidefinite (Gershgorin): these sums majorise the Gram matrix coordinate
        by coordinate, the diagonal step of :func:`fit_feature_embedding`. Exact from the
        formed Gram matrix, else from ``X^T X`` a block of rows at a time (at most ~4M
        entries each) when that costs at most ``max_work`` multiply-adds (N D^2 for dense
        X; for sparse X the sum over its rows of nnz^2, and the entries of the sparse
        product not stored contribute ``N |m_j m_k|``, the centring term alone). Otherwise
        the bound ``|X|^T (|X| 1) + N |m| ||m||_1``, the triangle inequality on
        ``X^T X - N m m^T``, in one pass over X.
        """
        if self.gram is not None:
            return np.abs(self.gram).sum(axis=1)
        n, mean = self.n_samples, self.mean
        mean_abs = np.abs(mean)
        centring = n * mean_abs * mean_abs.sum()
        block = max(1, _GRAM_BLOCK_ENTRIES // self.n_features)
        if not sp.issparse(self.X):
            if float(self.n_samples) * self.n_features**2 > max_work:
                X_abs = np.abs(self.X)
                return X_abs.T @ X_abs.sum(axis=1) + centring
            sums = np.empty(self.n_features)
            for start in range(0, self.n_features, block):
                rows = self.XT[start : start + block] @ self.X
                rows -= n * np.outer(mean[start : start + block], mean)
                sums[start : start + block] = np.abs(rows).sum(axis=1)
            return sums
        if np.square(np.diff(self.X.indptr), dtype=np.float64).sum() > max_work:
            row_abs_sums = np.asarray(abs(self.X).sum(axis=1)).ravel()
            return np.asarray(abs(self.XT) @ row_abs_sums).ravel() + centring
        sums = centring.copy()
        for start in range(0, self.n_features, block):
            A = sp.csr_matrix(self.XT[start : start + block] @ self.X)
            rows = start + np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
            # a stored entry's |A_jk - N m_j m_k| replaces the N |m_j m_k| of `centring`
            outer = n * mean[rows] * mean[A.indices]
            stored = np.abs(A.data - outer) - np.abs(outer)
            sums += np.bincount(rows, weights=stored, minlength=self.n_features)
        return sums

    def _squared_norm(self) -> float:
        """``||X||_F^2`` (>= every eigenvalue of ``X_c^T X_c``: centring is a projection)."""
        values = self.X.data if sp.issparse(self.X) else self.X
        return max(float(np.vdot(values, values)), np.finfo(float).tiny)

    def dense_gram(self) -> np.ndarray:
        """``X_c^T X_c`` as a dense (D, D) array (from the sparse product X^T X)."""
        if self.gram is not None:
            return self.gram
        return self._centred_gram()

    def dense_kernel(self) -> np.ndarray:
        """``X_c X_c^T`` as a dense (N, N) array: ``X X^T - X m 1^T - 1 m^T X^T + m^T m``."""
        kernel = self.X @ self.XT
        kernel = kernel.toarray() if sp.issparse(kernel) else np.asarray(kernel)
        X_mean = np.asarray(self.X @ self.mean).ravel()
        return kernel - X_mean[:, None] - X_mean[None, :] + float(self.mean @ self.mean)

    def ridge_point(self, U_target: np.ndarray, gamma: float) -> np.ndarray:
        """``(X_c^T X_c + gamma I)^{-1} X_c^T U_target``, exactly (Cholesky solve).

        Through the (D, D) system when D <= N or the Gram matrix is formed, otherwise
        through the (N, N) dual system: ``X_c^T (X_c X_c^T + gamma I)^{-1} U_target``
        (push-through identity), so X is never densified.
        """
        if self.gram is not None or self.n_features <= self.n_samples:
            system = self.dense_gram() + gamma * np.eye(self.n_features)
            return solve(system, self.rmatmul(U_target), assume_a="pos")
        system = self.dense_kernel() + gamma * np.eye(self.n_samples)
        return self.rmatmul(solve(system, U_target, assume_a="pos"))


def feature_embedding_objective(
    X, U: np.ndarray, Z: np.ndarray, R: np.ndarray, alpha: float, beta: float
) -> float:
    """Eq. (5): ``||X Z - U||_F^2 + alpha tr(Z R Z^T) + beta ||Z||_1`` (no intercept).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.grople import feature_embedding_objective
    >>> X, Z = np.eye(2), np.eye(2)
    >>> U, R = np.eye(2), np.zeros((2, 2))  # X Z = U exactly: only beta ||Z||_1 = 0.5 * 2 is left
    >>> feature_embedding_objective(X, U, Z, R, alpha=1.0, beta=0.5)
    1.0
    """
    residual = np.asarray(X @ Z) - U
    return float((residual**2).sum() + alpha * np.sum(Z * (Z @ R)) + beta * np.abs(Z).sum())


def fit_feature_embedding(
    X,
    U: np.ndarray,
    alpha: float,
    beta: float,
    *,
    fit_intercept: bool = True,
    gamma: float = 0.1,
    max_iter: int = 200,
    tol: float = 1e-6,
    use_gram: bool | None = None,
    step: str = "diagonal",
) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """APG for Eq. (5), as LLSF solves its own objective (hand-written FISTA, l1 prox).

    With ``fit_intercept`` the problem is solved on column-centred X and U (for sparse X
    the centring is folded into the Gram matrix or the products; X is never densified),
    which is Eq. (5) plus an intercept that is neither l1-penalised nor in the correlation
    term. Gradient ``2 X^T (X Z - U) + 2 alpha Z R``.

    ``step="uniform"`` is LLSF's: one step ``1 / L`` for every entry of Z, with
    ``L = 2 (||X^T X||_2 + alpha ||R||_2)``, a valid Lipschitz constant (LLSF's own is
    larger). ``step="diagonal"`` (the default; not in the paper or LLSF) gives entry (j, c)
    its own step ``1 / P_jc`` with ``P_jc = 2 (sum_k |(X^T X)_jk| + alpha sum_k |R_ck|)``:
    FISTA in the metric ``diag(P)``, which majorises the Hessian
    ``2 (X^T X (x) I + alpha I (x) R)`` (Gershgorin on each factor), so every step is a
    valid majorisation step and the soft-threshold becomes ``beta / P_jc`` per entry. The
    minimised objective, the start, the momentum and the stopping rule are unchanged; only
    the path differs. Rare features (small rows of X^T X) take long steps instead of the
    one step the most frequent feature allows: on medical (d = 100, K = 5) Eq. (5) stops
    after ~140 steps instead of ~370, lower (docs/GROPLE.md). Initial point
    ``(X^T X + gamma I)^{-1} X^T U`` as in LLSF (solved exactly; through the N x N dual
    system ``(X^T X + gamma I)^{-1} X^T = X^T (X X^T + gamma I)^{-1}`` when D > N and no Gram
    matrix is formed). ``use_gram`` forces (True) or forbids (False) the dense
    D x D Gram matrix; by default it is used when ``D^2 < 2 nnz(X)``. The row sums of
    ``|X^T X|`` come from the Gram matrix or a sparse ``X^T X``, or above a size bound
    from an upper bound that never forms it (:meth:`_CentredDesign.gram_abs_row_sums`).

    Eq. (5) is not convex in general: R has a zero diagonal, hence zero trace, hence a
    negative eigenvalue, and when X^T X is singular (D > N) the objective is unbounded below
    along a direction in its null space. APG is therefore run for a bounded number of steps
    from the ridge point, as LLSF does, and the iterate with the lowest objective is kept.

    Returns
    -------
    Z : ndarray (D, d)
    intercept : ndarray (d,)
    history : list of float, objective of Eq. (5) (on centred data) per iteration

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.grople import fit_feature_embedding
    >>> rng = np.random.default_rng(0)
    >>> X, U = rng.normal(size=(40, 6)), rng.normal(size=(40, 3))
    >>> Z, intercept, history = fit_feature_embedding(X, U, alpha=0.01, beta=0.1)
    >>> Z.shape, intercept.shape, len(history) <= 200
    ((6, 3), (3,), True)
    """
    if step not in ("diagonal", "uniform"):
        raise ValueError(f"step must be 'diagonal' or 'uniform', got {step!r}.")
    design = _CentredDesign(X, fit_intercept, use_gram)
    u_mean = U.mean(axis=0) if fit_intercept else np.zeros(U.shape[1])
    U_target = U - u_mean
    R = label_correlation_penalty(U)
    gram = design.gram
    XtU = design.rmatmul(U_target) if gram is not None else None
    u_sq = float((U_target**2).sum())

    # Every iterate Z is multiplied once by X_c (or by the Gram matrix) and once by R; the
    # objective of Z and the gradient at the next search point S = Z + c (Z - Z_prev) both
    # reuse these products (X_c S = X_c Z + c (X_c Z - X_c Z_prev), likewise G S and S R),
    # so a step costs one product with X_c and one with X_c^T (or one with G) and one with R.
    # The element-wise work of a step goes through three reused buffers: at medical's size
    # it costs as much as the products.
    def products(Z: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        image = gram @ Z if gram is not None else design.matmul(Z)
        return image, (Z @ R if alpha else None)

    image_buffer = np.empty_like(U_target if gram is None else XtU)

    def objective(Z: np.ndarray, image: np.ndarray, Z_R: np.ndarray | None, l1: float) -> float:
        if gram is None:  # image = X_c Z
            residual = np.subtract(image, U_target, out=image_buffer)
            smooth = float(np.vdot(residual, residual))
        else:  # image = X_c^T X_c Z
            smooth = float(np.vdot(Z, image) - 2.0 * np.vdot(Z, XtU) + u_sq)
        if Z_R is not None:
            smooth += alpha * float(np.vdot(Z, Z_R))
        return smooth + beta * l1

    r_norm = float(np.abs(np.linalg.eigvalsh(R)).max()) if R.size else 0.0
    lipschitz = 2.0 * (max(design.gram_norm(), 0.0) + alpha * r_norm) * (1.0 + 1e-9)
    Z = design.ridge_point(U_target, gamma)
    image, Z_R = products(Z)
    history = [objective(Z, image, Z_R, float(np.abs(Z).sum()))]
    if lipschitz <= 0.0:
        return Z, u_mean - design.mean @ Z, history
    best_Z, best_value = Z, history[0]
    Z_previous, image_previous, Z_R_previous = Z, image, Z_R
    point_buffer = np.empty_like(Z)
    R_buffer = np.empty_like(Z) if Z_R is not None else None
    momentum = 1.0
    # twice the step of each entry (the loop moves by half gradients) and its threshold
    if step == "uniform":
        step_size, threshold = 2.0 / lipschitz, beta / lipschitz
    else:
        majoriser = _diagonal_majoriser(design, R, alpha, lipschitz)
        step_size, threshold = 2.0 / majoriser, beta / majoriser
    for _ in range(max_iter):
        momentum_next = (1.0 + np.sqrt(1.0 + 4.0 * momentum**2)) / 2.0
        extrapolation = (momentum - 1.0) / momentum_next
        # half the gradient at S: X_c^T (X_c S - U) + alpha S R
        search_image = _extrapolate(image, image_previous, extrapolation, image_buffer)
        if gram is None:
            residual = np.subtract(search_image, U_target, out=image_buffer)
            half_gradient = design.rmatmul(residual, centred=True)
        else:
            half_gradient = np.subtract(search_image, XtU)
        if Z_R is not None:
            search_R = _extrapolate(Z_R, Z_R_previous, extrapolation, R_buffer)
            half_gradient += np.multiply(search_R, alpha, out=R_buffer)
        # S - step * half gradient, then the l1 prox
        half_gradient *= -step_size
        half_gradient += _extrapolate(Z, Z_previous, extrapolation, point_buffer)
        Z_previous, image_previous, Z_R_previous = Z, image, Z_R
        Z, l1 = _soft_threshold(half_gradient, threshold)
        momentum = momentum_next
        image, Z_R = products(Z)
        value = objective(Z, image, Z_R, l1)
        history.append(value)
        if value < best_value:
            best_Z, best_value = Z, value
        if abs(history[-2] - value) <= tol * max(abs(history[-2]), 1e-12):
            break
    intercept = u_mean - design.mean @ best_Z
    return best_Z, intercept, history


def _diagonal_majoriser(design: _CentredDesign, R: np.ndarray, alpha: float, lipschitz: float):
    """P of the diagonal step of Eq. (5): ``2 (s_j + alpha t_c)`` for entry (j, c) of Z.

    s are the row sums of ``|X_c^T X_c|`` and t those of ``|R|``; the Hessian of the smooth
    part is ``2 (X_c^T X_c (x) I + alpha I (x) R)`` and Gershgorin bounds each factor by its
    diagonal of row sums. An entry whose row and column both sum to 0 (a constant feature
    with alpha t_c = 0) has a zero gradient wherever Z is, and any positive P leaves it at
    its start; it gets ``lipschitz`` so that no step divides by 0.
    """
    column = alpha * np.abs(R).sum(axis=1) if alpha else np.zeros(R.shape[0])
    nnz = design.X.nnz if sp.issparse(design.X) else design.X.size
    row_sums = design.gram_abs_row_sums(max_work=_ROW_SUM_STEPS * 2.0 * nnz * R.shape[0])
    majoriser = 2.0 * (row_sums[:, None] + column[None, :])
    # the same safety margin as the uniform constant (rounding in the sums)
    majoriser *= 1.0 + 1e-9
    majoriser[majoriser <= 0.0] = lipschitz
    return majoriser


# ---------------------------------------------------------------------------------------------
# estimator
# ---------------------------------------------------------------------------------------------


def _relative_change(history: list[float]) -> float:
    if len(history) < 2:
        return 0.0
    return abs(history[-2] - history[-1]) / max(abs(history[-2]), 1e-12)


def _stopped_by_tol(history: list[float], tol: float, *, no_steps_converged: bool) -> bool:
    """Whether a loop that appends its objective after every step stopped by its ``tol`` test.

    The loops of :func:`fit_label_embedding` and :func:`fit_feature_embedding` stop when the
    relative change of the objective is at most tol, else at their cap. A history of one
    entry is a start with no step taken: stage 3 returns its starting point when its
    gradient is constant (``no_steps_converged``), stage 2 only when ``max_iter=1``.
    """
    if len(history) < 2:
        return no_steps_converged
    return _relative_change(history) <= tol


class GroPLE(MultiLabelEstimator):
    """Group-preserving label embedding (paper 001): label groups, l2,1 label embedding, LLSF
    feature embedding.

    Parameters
    ----------
    n_components : int, default=100
        d, the latent dimension (paper: 100 for every data set, even when d > L).
    n_groups : int, default=10
        K, the number of label groups found by :class:`mlviz.LabelClustering` (paper: 10).
        Ignored when ``groups`` is given.
    lambda1 : float, default=1e-3
        Weight of ``||U||_F^2`` in Eq. (4) (paper: 0.001).
    lambda2 : float, default=1.0
        Weight of the group sparsity ``sum_k ||V^k||_{2,1}`` in Eq. (4) (paper: 1).
    alpha : float, default=0.01
        Weight of the correlation term of Eq. (5). The paper tunes alpha and beta per data
        set over 10^-4..10^4; the defaults are the best cell of a small grid on training
        folds of medical and genbase (docs/GROPLE.md). alpha >= 1 makes Eq. (5) badly
        non-convex when D > N (see :func:`fit_feature_embedding`) and predictions collapse.
    beta : float, default=1.0
        Weight of ``||Z||_1`` in Eq. (5).
    label_affinity : {"heat", "cooccurrence", "correlation"}, default="heat"
        Affinity of the stage-1 label clustering (:class:`mlviz.LabelClustering`'s
        ``affinity``). ``"heat"`` is the paper's self-tuned heat kernel (§3);
        ``"cooccurrence"`` (Jaccard) keeps rare labels with the labels they occur with
        instead of grouping them by rarity (docs/GROPLE.md measures both). Ignored when
        ``groups`` is given.
    groups : array-like, optional
        User-given label groups (one group id per label, or a list of lists of label
        indices); skips stage 1.
    fit_intercept : bool, default=True
        Fit an unpenalised intercept in Eq. (5) (by centring X and U). The paper has none, but
        with {-1, 1} labels and sparse binary features the scores of rows with few active
        features otherwise collapse to 0 instead of to the (negative) label base rate.
    init : {"random", "svd"}, default="random"
        Initial U for Algorithm 1 (the paper leaves it open): a Gaussian matrix with
        ``random_state``, or the leading left singular vectors of Y times the square roots of
        the singular values (zero columns beyond the rank of Y; those stay zero).
    gamma : float, default=0.1
        Ridge of the APG initial points (Algorithm 2 and LLSF); not given in the paper.
    solver : {"varpro", "alternating"}, default="varpro"
        How Eq. (4) is minimised. ``"alternating"`` is the paper's Algorithm 1 from U_0:
        APG on every V^k, then the exact U step, until the relative decrease of Eq. (4) is at
        most ``tol``. ``"varpro"`` (not in the paper) runs Algorithm 1's first two
        iterations, then accelerated proximal gradient on Eq. (4) with U eliminated by its
        exact step (variable projection, :func:`_variable_projection`), then Algorithm 1
        again until its own rule stops it: the paper leaves U's initialisation open, and this
        is Algorithm 1 started where the alternation would take hundreds of iterations to
        go. Alternating U and V steps crawl: on medical (d = 100, K = 5) Algorithm 1 stops at
        Eq. (4) = 53.68 after 463 iterations (0.76 s), ``"varpro"`` at 41.15 in 0.08 s
        (20,000 alternating iterations reach 43.40). Both stop at a point Algorithm 1's rule
        accepts; Eq. (4) is not convex, so they can stop in different minima (lower with
        ``"varpro"`` in 19 of 20 settings measured, docs/GROPLE.md). The λ bounds
        (:func:`lambda2_max`, :func:`lambda1_max`) are those of the first two V steps, which
        both solvers take alike.
    max_iter, tol : int, float, default=1000, 1e-4
        Outer iterations of Eq. (4)'s solver (with ``"varpro"``, its first two alternating
        iterations, the proximal gradient steps and the final alternating iterations
        together) and the relative objective change that stops it.
        Reaching ``max_iter`` issues a ConvergenceWarning (``converged_`` is False). The
        paper gives no limit; 50 (the former default) stopped medical at the paper's λs
        (d = 100, K = 5) far from convergence (relative change 3e-3), with every group using
        every latent row (42, 42, 42, 42, 30), where the converged fit (559 iterations,
        1.3 s) uses 14, 19, 20, 23, 6 rows, 22 of them private to one group
        (docs/GROPLE.md). A fit that converges stops earlier (delicious-shaped: 17).
    apg_max_iter, apg_tol : int, float, default=100, 1e-4
        APG limits for the V^k (warm started, so loose inner solves suffice; not flagged).
    feature_max_iter, feature_tol : int, float, default=500, 1e-6
        APG limits for Eq. (5) (LLSF uses 100 steps). All of medical needs 123 steps at the
        defaults (371 with ``feature_step="uniform"``); reaching the limit issues a
        ConvergenceWarning (``feature_converged_``).
        The accuracy of medical and genbase did not change beyond fold noise between 100,
        200 and 500 steps (docs/GROPLE.md).
    feature_step : {"diagonal", "uniform"}, default="diagonal"
        Step sizes of Eq. (5)'s APG (see :func:`fit_feature_embedding`). ``"uniform"`` is
        LLSF's one step from the Lipschitz constant; ``"diagonal"`` (not in the paper) a step
        per entry from Gershgorin row sums of the Hessian's factors, which majorise it
        entry by entry. Same objective, start and stopping rule; rare features move in
        longer steps.
    n_neighbors : int, default=7
        Local-scaling neighbour of the label clustering.
    random_state : int or None, default=None
        Seed for k-means and for ``init="random"``.

    Attributes
    ----------
    groups_ : ndarray of intp (n_labels,)
        Group of each label, 0..n_groups_-1.
    n_groups_ : int
    label_clustering_ : LabelClustering or None
        The fitted stage-1 model (None when ``groups`` was given).
    U_ : ndarray (n_samples, n_components)
        Embedded training points.
    V_ : ndarray (n_components, n_labels)
        Decoding matrix in the original label order; ``V_[:, groups_ == k]`` is V^k (see
        :meth:`group_coefficients`).
    row_support_ : ndarray of bool (n_groups_, n_components)
        ``row_support_[k, i]`` is True when row i of V^k is non-zero (paper Figure 1).
    Z_ : ndarray (n_features, n_components)
        Feature embedding of Eq. (5).
    intercept_ : ndarray (n_components,)
        Latent intercept (zeros without ``fit_intercept``).
    objective_history_ : list of float
        Eq. (4) after every iteration of its solver (non-increasing): Algorithm 1's outer
        iterations, and with ``solver="varpro"`` the proximal gradient steps between its
        first two and its last ones.
    feature_objective_history_ : list of float
        Eq. (5) per APG iteration (centred data when fit_intercept).
    n_iter_ : int
        Iterations of Eq. (4)'s solver (the length of ``objective_history_``).
    converged_ : bool
        Whether Algorithm 1 (last) stopped by ``tol`` rather than at ``max_iter`` (if not, a
        :class:`~sklearn.exceptions.ConvergenceWarning` is issued).
    feature_n_iter_ : int
        APG steps of Eq. (5).
    feature_converged_ : bool
        Whether Eq. (5)'s APG stopped by ``feature_tol`` rather than at ``feature_max_iter``
        (if not, a ConvergenceWarning).
    lambda2_max_ : float
        :func:`lambda2_max` of the training labels and groups: at ``lambda2 >= lambda2_max_``
        the fit is V = 0.
    degenerate_ : str
        Empty for a usable fit; otherwise the cause and the fix of a degenerate one: V all
        zero (every score the same for every instance), or no label predicted for any
        training instance.

    Notes
    -----
    ``fit`` runs with one BLAS thread (``threadpoolctl``), whatever the process uses, and
    restores the setting when it returns. Most of its products are small (d x d by d x L,
    sparse X by D x d), and with two OpenBLAS threads on the busy 2-core machine ~40 % of the
    time went into synchronising them (medical: 18-44 s instead of ~2 s before the
    speed-ups of issue 14). One thread is the choice that never loses much: on an idle 2-core
    machine a second thread could at most halve the time of the largest products (d = 200 on
    ~1,000 labels), and it competes with the app's other work (another session, UMAP's
    compilation). The limit is process-wide while a fit runs, so BLAS calls of other threads
    in the same process also use one thread during it.

    X is converted to float64 (float32 too): stage 3 works on the centred Gram matrix
    ``X^T X - N m m^T`` and on step sizes from its largest eigenvalue, which lose most of their
    digits to cancellation in float32.

    X is used as given, as in the paper. Scores are linear in X, so with raw word indicators
    of texts of very different lengths long texts get too many labels: on enron (not one of
    the paper's data sets) five-fold accuracy is 0.344 at the defaults, 0.383 with beta = 10
    and 0.430 at the defaults on rows scaled to unit l2 norm
    (``sklearn.preprocessing.normalize``); see docs/GROPLE.md.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.grople import GroPLE
    >>> model = GroPLE(n_components=5, n_groups=4, random_state=0).fit(X, Y)
    >>> model.U_.shape, model.V_.shape, model.Z_.shape, model.n_groups_
    ((150, 5), (5, 22), (40, 5), 4)
    >>> model.predict(X[:3]).shape
    (3, 22)
    """

    _feature_dtypes = (np.float64,)
    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "n_groups": [Interval(Integral, 1, None, closed="left")],
        # lambda1 > 0 keeps V V^T + lambda1 I invertible (Eq. A.2)
        "lambda1": [Interval(Real, 0, None, closed="neither")],
        "lambda2": [Interval(Real, 0, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "beta": [Interval(Real, 0, None, closed="left")],
        "groups": ["array-like", None],
        "fit_intercept": ["boolean"],
        "init": [StrOptions({"random", "svd"})],
        "solver": [StrOptions({"varpro", "alternating"})],
        # "precomputed" passes validation so that fit can say what to do instead
        "label_affinity": [StrOptions({"heat", "cooccurrence", "correlation", "precomputed"})],
        # gamma > 0: the ridge of the APG starting points must be positive definite
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "apg_max_iter": [Interval(Integral, 1, None, closed="left")],
        "apg_tol": [Interval(Real, 0, None, closed="left")],
        "feature_max_iter": [Interval(Integral, 1, None, closed="left")],
        "feature_tol": [Interval(Real, 0, None, closed="left")],
        "feature_step": [StrOptions({"diagonal", "uniform"})],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        # numpy.random.default_rng and k-means both take an int seed
        "random_state": [Interval(Integral, 0, None, closed="left"), None],
    }

    def __init__(
        self,
        n_components: int = 100,
        n_groups: int = 10,
        *,
        lambda1: float = 1e-3,
        lambda2: float = 1.0,
        alpha: float = 0.01,
        beta: float = 1.0,
        label_affinity: str = "heat",
        groups=None,
        fit_intercept: bool = True,
        init: str = "random",
        solver: str = "varpro",
        gamma: float = 0.1,
        max_iter: int = 1000,
        tol: float = 1e-4,
        apg_max_iter: int = 100,
        apg_tol: float = 1e-4,
        feature_max_iter: int = 500,
        feature_tol: float = 1e-6,
        feature_step: str = "diagonal",
        n_neighbors: int = 7,
        random_state=None,
    ) -> None:
        self.n_components = n_components
        self.n_groups = n_groups
        self.lambda1 = lambda1
        self.lambda2 = lambda2
        self.alpha = alpha
        self.beta = beta
        self.label_affinity = label_affinity
        self.groups = groups
        self.fit_intercept = fit_intercept
        self.init = init
        self.solver = solver
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.apg_max_iter = apg_max_iter
        self.apg_tol = apg_tol
        self.feature_max_iter = feature_max_iter
        self.feature_tol = feature_tol
        self.feature_step = feature_step
        self.n_neighbors = n_neighbors
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y) -> GroPLE:
        """Fit the three stages on features X (dense or CSR) and a 0/1 label matrix y.

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_labels)
            0/1 label matrix (1-D: a single label).

        Returns
        -------
        self : GroPLE
        """
        X, Y = self._validate_fit(X, y)
        if X.shape[0] < 2:
            raise ValueError(
                f"GroPLE needs at least 2 samples to estimate label groups and latent factors; "
                f"got {X.shape[0]} sample."
            )
        n_components = int(self.n_components)

        # One BLAS thread for the whole fit (see Notes): the limit is lifted when fit returns.
        with threadpool_limits(limits=1, user_api="blas"):
            return self._fit_stages(X, Y, n_components)

    def _fit_stages(self, X, Y: np.ndarray, n_components: int) -> GroPLE:
        # One concrete seed for the whole fit: U's random start (Algorithm 1) and lambda2_max_
        # must see the same U_0, which two draws with random_state=None would not.
        seed = self.random_state
        if seed is None:
            seed = int(np.random.default_rng().integers(np.iinfo(np.int32).max))
        if self.groups is None:
            if self.label_affinity == "precomputed":
                raise ValueError(
                    "label_affinity='precomputed' has no matrix to use in GroPLE: pass the "
                    "groups of LabelClustering(affinity='precomputed').fit(A) as groups=."
                )
            self.label_clustering_ = LabelClustering(
                n_groups=self.n_groups,
                affinity=self.label_affinity,
                n_neighbors=self.n_neighbors,
                random_state=seed,
            ).fit(Y.astype(np.uint8))  # Y is checked 0/1: spare stage 1 the float checks
            self.groups_ = self.label_clustering_.labels_
        else:
            self.label_clustering_ = None
            self.groups_ = check_groups(self.groups, Y.shape[1])
        self.n_groups_ = int(self.groups_.max()) + 1

        # labels in {-1, 1} (the paper's), used through products with the 0/1 matrix Y
        labels = _SignedLabels(Y, signed=False)
        self.U_, self.V_, self.objective_history_ = _fit_label_embedding(
            labels,
            self.groups_,
            n_components,
            float(self.lambda1),
            float(self.lambda2),
            init=self.init,
            gamma=float(self.gamma),
            max_iter=int(self.max_iter),
            tol=float(self.tol),
            apg_max_iter=int(self.apg_max_iter),
            apg_tol=float(self.apg_tol),
            balance=True,
            warm_start=True,
            random_state=seed,
            use_gram=None,
            solver=self.solver,
        )
        self.n_iter_ = len(self.objective_history_)
        self.converged_ = _stopped_by_tol(
            self.objective_history_, float(self.tol), no_steps_converged=False
        )
        self.lambda2_max_ = _lambda2_max(labels, self.groups_, n_components, self.init, seed)
        self.row_support_ = np.stack(
            [np.linalg.norm(self.group_coefficients(k), axis=1) > 0 for k in range(self.n_groups_)]
        )
        self.Z_, self.intercept_, self.feature_objective_history_ = fit_feature_embedding(
            X,
            self.U_,
            float(self.alpha),
            float(self.beta),
            fit_intercept=bool(self.fit_intercept),
            gamma=float(self.gamma),
            max_iter=int(self.feature_max_iter),
            tol=float(self.feature_tol),
            step=self.feature_step,
        )
        self.feature_n_iter_ = len(self.feature_objective_history_) - 1
        self.feature_converged_ = _stopped_by_tol(
            self.feature_objective_history_, float(self.feature_tol), no_steps_converged=True
        )
        self._warn_at_caps()
        self.degenerate_ = self._degeneracy(X)
        return self

    def _warn_at_caps(self) -> None:
        # scikit-learn's convention (e.g. LogisticRegression): a fit that stops at its
        # iteration cap says so with a ConvergenceWarning, naming the parameter to raise
        stages = [
            (
                self.converged_,
                "Algorithm 1 (label embedding, Eq. 4)",
                self.objective_history_,
                self.n_iter_,
                "max_iter",
                self.tol,
            ),
            (
                self.feature_converged_,
                "the feature embedding (Eq. 5)",
                self.feature_objective_history_,
                self.feature_n_iter_,
                "feature_max_iter",
                self.feature_tol,
            ),
        ]
        for converged, stage, history, n_iter, cap, tol in stages:
            if converged:
                continue
            change = _relative_change(history)
            warnings.warn(
                f"GroPLE: {stage} stopped at its iteration cap ({cap}={n_iter}) with the "
                f"objective still changing by {change:.2g} relative per iteration (tol={tol:g}): "
                f"the fitted model is not at a minimiser. Raise {cap}.",
                ConvergenceWarning,
                stacklevel=5,  # the caller of fit (through scikit-learn's fit wrapper)
            )

    def _degeneracy(self, X) -> str:
        # the two ways a fit can look fine and be useless (docs/GROPLE.md): every row of
        # every V^k switched off, or scores that are never positive on the training rows
        if not self.V_.any():
            return (
                f"V is all zero: λ2 = {float(self.lambda2):g} switched off every latent row of "
                "every group, so every score is the same for every instance and no label is "
                "predicted from the features. On these labels λ2 at or above "
                f"{self.lambda2_max_:.3g} always gives V = 0 (lambda2_max), and Eq. (4) can "
                "also end at V = 0 below it. Lower λ2 (or λ1)."
            )
        if not self._predicts_some_label(X):
            advice = " Lower λ2, λ1 or β."
            z_note = ""
            spread = X.max(axis=0) - X.min(axis=0)
            if not (spread.toarray() if sp.issparse(spread) else spread).any():
                # X_c = 0: no λ or β can help (issue 24: this used to be ARPACK's error)
                z_note = (
                    " Every feature is constant on the training rows, so they cannot tell "
                    "instances apart."
                )
                advice = " Use features that vary between instances."
            elif not self.Z_.any():
                z_note = f" Z is all zero: β = {float(self.beta):g} removed every feature."
            return (
                f"The fitted model predicts no label for any of the {self.U_.shape[0]:,} "
                f"training instances (every score is at most 0).{z_note}{advice}"
            )
        return ""

    def _predicts_some_label(self, X) -> bool:
        """Whether any training score is positive, a block of rows at a time: a fit that
        predicts stops at the first block with a positive score instead of forming all
        N x L scores (11,273 x 983 on the delicious shape: ~0.1 s and 89 MB per fit)."""
        latent = self.transform(X)
        block = max(1, _SCORE_BLOCK_ENTRIES // max(self.V_.shape[1], 1))
        return any(
            bool(np.any(latent[start : start + block] @ self.V_ > 0))
            for start in range(0, latent.shape[0], block)
        )

    def group_coefficients(self, k: int) -> np.ndarray:
        """V^k: the (n_components, L_k) columns of ``V_`` of the labels in group k."""
        return self.V_[:, self.groups_ == k]

    def fit_transform(self, X, y) -> np.ndarray:
        """Fit, then return the latent embedding ``X Z + intercept`` of the training rows."""
        return self.fit(X, y).transform(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # transform() maps features into the latent space, so scikit-learn treats GroPLE as
        # a transformer too (whose output is not what a downstream Pipeline step predicts).
        tags.transformer_tags = TransformerTags(preserves_dtype=["float64"])
        return tags

    def transform(self, X) -> np.ndarray:
        """Embed X in the latent space: ``X Z + intercept`` (n_samples, n_components)."""
        X = self._validate_predict(X)
        return np.asarray(X @ self.Z_) + self.intercept_

    def _scores(self, X) -> np.ndarray:
        return np.ascontiguousarray(self.transform(X) @ self.V_, dtype=np.float64)

    def decision_function(self, X) -> np.ndarray:
        """Scores ``(X Z + intercept) V`` (n_samples, n_labels); positive means relevant.

        1-D when fitted on a 1-D y.
        """
        return self._format_scores(self._scores(X))

    def predict(self, X) -> np.ndarray:
        """Labels where the score is above 0 (the paper's labels are in {-1, 1}).

        Returns
        -------
        ndarray of shape (n_samples, n_labels), in the dtype of the y passed to fit
        """
        return self._format_labels(self._scores(X) > 0)
