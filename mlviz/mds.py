"""Weighted metric multidimensional scaling: SMACOF with a weight matrix, and classical MDS.

scikit-learn's ``smacof``/``MDS`` minimise the *unweighted* raw stress only, and CLEMS
(Huang & Lin, ``../shared/papers/002_a9fa9cac89b97038.txt`` §3.1) needs the weighted stress

.. math:: \\sigma(U) = \\sum_{i<j} W_{ij} (\\Delta_{ij} - d(u_i, u_j))^2,

so the Guttman transform with weights is written here (Borg & Groenen, *Modern
Multidimensional Scaling*, 2nd ed., §8.6): with :math:`V = \\operatorname{diag}(W1) - W` and
:math:`B(U)_{ij} = -W_{ij}\\Delta_{ij}/d_{ij}` (0 when :math:`d_{ij} = 0`),
:math:`B_{ii} = -\\sum_{j \\ne i} B_{ij}`, the update :math:`U \\leftarrow V^{+} B(U) U`
never increases the stress.

Applying :math:`V^{+}` is the expensive part for a general W (a dense ``N x N`` inverse, about
a second at N = 2230). The three weight structures CLEMS uses have closed forms, detected
automatically from the weight matrix:

* uniform ``W_ij = w``: :math:`V^{+} y = y / (N w)` for centred y;
* additive ``W_ij = a_i + a_j`` (CLEMS' frequency weights on n objects): a rank-2 Woodbury
  update of the diagonal matrix ``diag(N a + sum(a))``;
* bipartite ``W = [[0, a b^T], [b a^T, 0]]`` (the mirroring trick, paper Fig. 2b, weighted as in
  the authors' code): an O(NM) closed form, and only the cross block of distances is ever
  computed (a quarter of the full matrix).

Any other connected weight matrix uses the dense pseudo-inverse, computed once per call.

Classical MDS (:func:`classical_mds`, SMACOF's start in CLEMS, the hypercube projection) is
scikit-learn's :class:`~sklearn.manifold.ClassicalMDS` (``metric="precomputed"``, added in
scikit-learn 1.8, the minimum in ``pyproject.toml``) when more than a fifth of the spectrum is
wanted, as for CLEMS' start at M = L on up to 2,500 candidates: a full ``eigh`` is the
right solver there, and ClassicalMDS runs one (LAPACK's MRRR driver, 15-20 % slower than the
divide-and-conquer one used before). ClassicalMDS always decomposes the whole n x n matrix,
so for fewer components the truncated solvers of :func:`_top_eigenpairs` (ARPACK, or MRRR on
a subset) are kept. CPU seconds with one BLAS thread on a shared machine, F1-cost
dissimilarities of the most frequent label sets of the delicious-shaped set
(``benchmarks/bench_classical_mds.py``, ``docs/BENCHMARKS.md``): ClassicalMDS 1.5 s at
n = 2,000 whatever M, the truncated path 0.17 s for M = 2 and 1.0 s for M = 400; at n = 8,000
ClassicalMDS 89 s, the truncated path 2.1 s for M = 2 and 54 s for M = 983. Both paths give
the same signs (``sklearn.utils.extmath.svd_flip``: each column's largest-magnitude entry
positive) and zero columns for non-positive eigenvalues.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from numbers import Integral, Real

import numpy as np
import scipy.linalg
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import ArpackError, ArpackNoConvergence, eigsh
from sklearn.manifold import ClassicalMDS
from sklearn.utils import check_random_state
from sklearn.utils.extmath import svd_flip

from mlviz._compat import Interval, StrOptions, validate_params
from mlviz._parallel import N_JOBS_CONSTRAINT, map_blocks

__all__ = [
    "AdditiveWeights",
    "RowsOf",
    "classical_mds",
    "kruskal_stress1",
    "landmark_mds",
    "out_of_sample_smacof",
    "weighted_smacof",
]

# Below this size a dense partial eigendecomposition is cheap and never fails to converge.
_DENSE_EIGH_MAX = 400
# Above n // 5 eigenpairs classical MDS hands the work to scikit-learn's full eigh: at n // 5
# MRRR on the subset still costs two thirds of it (benchmarks/bench_classical_mds.py), and
# more eigenpairs than that cost MRRR more than the full decomposition.
_PARTIAL_SPECTRUM_SHARE = 5
# ARPACK only for fewer than n // 20 eigenpairs; above, MRRR on a subset is faster (same file).
_ARPACK_SHARE = 20

# A stress below this share of Σ W Δ² (the all-zero configuration's stress) is an exact fit for
# every purpose (Kruskal stress-1 ~1e-4, 250x below his "excellent"), so SMACOF stops there
# whatever tol says: on the delicious-shaped set (1,000 candidates, M = 983) the classical start
# is already at stress-1 5e-5, and the relative rule alone then spent 41 updates (3.2 s) on it.
_NEGLIGIBLE_STRESS = 1e-8
# Rounding residue of an exact fit: the only stop besides max_iter when tol = 0.
_EXACT_STRESS = 1e-14

# scikit-learn's parameter validation (the mechanism behind _parameter_constraints) for the
# public functions; the checks on array contents (shape, sign, symmetry, connectivity) stay
# hand-written below because they name the offending entry.
_POSITIVE_INT = [Interval(Integral, 1, None, closed="left")]


@validate_params(
    {"dissimilarities": ["array-like"], "n_components": _POSITIVE_INT},
    prefer_skip_nested_validation=True,
)
def classical_mds(dissimilarities: np.ndarray, n_components: int) -> np.ndarray:
    """Classical (Torgerson) MDS: top eigenvectors of the double-centred squared dissimilarities.

    Runs scikit-learn's :class:`~sklearn.manifold.ClassicalMDS` (``metric="precomputed"``)
    when more than a fifth of the spectrum is asked for, and a truncated eigensolver
    otherwise; see the module docstring for why. Both give the same result (same sign
    convention, ``tests/test_mds.py``).

    Parameters
    ----------
    dissimilarities : ndarray of shape (n, n)
        Symmetric, non-negative dissimilarities with a zero diagonal.
    n_components : int
        Target dimension M.

    Returns
    -------
    embedding : ndarray of shape (n, n_components)
        Centred coordinates :math:`V_M \\Lambda_M^{1/2}` from :math:`-\\tfrac12 J \\Delta^{(2)} J
        = V \\Lambda V^T`, each column's largest-magnitude entry positive (scikit-learn's
        ``svd_flip`` convention). Directions with a non-positive eigenvalue (non-Euclidean
        dissimilarities, or M larger than the Euclidean rank) are returned as zero columns.
        When the dissimilarities are Euclidean distances of a point set of rank <= M, the
        distances of the result reproduce them exactly.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.mds import classical_mds, euclidean_distances
    >>> points = np.array([[0.0], [1.0], [3.0]])
    >>> embedding = classical_mds(euclidean_distances(points), n_components=1)
    >>> np.abs(euclidean_distances(embedding)).round(6).tolist()  # the distances come back
    [[0.0, 1.0, 3.0], [1.0, 0.0, 2.0], [3.0, 2.0, 0.0]]
    """
    delta = _check_square(dissimilarities, "dissimilarities")
    if _wants_full_spectrum(delta.shape[0], n_components):
        return _classical_mds_full(delta, n_components)
    return _classical_mds_truncated(delta, n_components)


def _wants_full_spectrum(n: int, n_components: int) -> bool:
    # The rule _top_eigenpairs uses to switch to a full eigh (see _PARTIAL_SPECTRUM_SHARE).
    return min(n_components, n) > n // _PARTIAL_SPECTRUM_SHARE


def _classical_mds_full(delta: np.ndarray, n_components: int) -> np.ndarray:
    """scikit-learn's ClassicalMDS (full ``eigh``), non-positive eigenvalues made zero columns."""
    n = delta.shape[0]
    model = ClassicalMDS(n_components=min(n_components, n), metric="precomputed")
    with np.errstate(invalid="ignore"):  # sqrt of a negative eigenvalue: handled below
        coordinates = model.fit_transform(delta)
    coordinates[:, model.eigenvalues_ <= 0] = 0.0
    embedding = np.zeros((n, n_components))
    embedding[:, : coordinates.shape[1]] = coordinates
    return embedding


def _classical_mds_truncated(delta: np.ndarray, n_components: int) -> np.ndarray:
    """The top eigenpairs only (:func:`_top_eigenpairs`), same conventions as the full path."""
    n = delta.shape[0]
    values, vectors = _top_eigenpairs(_double_centred_gram(delta), min(n_components, n))
    order = np.argsort(values)[::-1]
    values, vectors = values[order], vectors[:, order]
    embedding = np.zeros((n, n_components))
    embedding[:, : len(values)] = vectors * np.sqrt(np.clip(values, 0.0, None))
    return embedding


def _double_centred_gram(delta: np.ndarray) -> np.ndarray:
    """:math:`-\\tfrac12 J \\Delta^{(2)} J` with :math:`J = I - 11^T/n`."""
    gram = -0.5 * delta**2
    gram -= gram.mean(axis=0, keepdims=True)
    gram -= gram.mean(axis=1, keepdims=True)
    return gram


@validate_params(
    {
        "dissimilarities": ["array-like"],
        "distances": ["array-like"],
        "weights": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def kruskal_stress1(
    dissimilarities: np.ndarray, distances: np.ndarray, *, weights: np.ndarray | None = None
) -> float:
    """Kruskal's stress-1: the raw stress normalised by the embedded distances, in [0, 1).

    ``sqrt(Σ_{i<j} W_ij (Δ_ij − d_ij)² / Σ_{i<j} W_ij d_ij²)`` (Kruskal 1964; Borg & Groenen,
    *Modern Multidimensional Scaling*, Eq. 3.3). Unlike the raw stress it does not grow with
    the number of pairs or the size of the costs, so it compares data sets: Kruskal's rule of
    thumb calls 0.2 poor, 0.1 fair, 0.05 good and 0.025 excellent.

    Parameters
    ----------
    dissimilarities, distances : ndarray, shape (n, n)
        Target dissimilarities Δ and embedded distances d; only pairs i < j are used.
    weights : ndarray, shape (n, n), optional
        Pair weights W (default 1); pairs with weight 0 do not count.

    Returns
    -------
    float
        0 when every weighted distance is zero and the raw stress is zero too.

    Raises
    ------
    ValueError
        If the shapes disagree, or all weighted distances are zero while Δ is not (the
        normalisation is undefined: the configuration has collapsed to a point).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.mds import kruskal_stress1
    >>> D = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> kruskal_stress1(D, D), round(kruskal_stress1(D, 2 * D), 3)
    (0.0, 0.5)
    """
    delta = _check_square(dissimilarities, "dissimilarities")
    dist = _check_square(distances, "distances")
    w = np.ones_like(delta) if weights is None else _check_square(weights, "weights")
    if not delta.shape == dist.shape == w.shape:
        raise ValueError(
            f"kruskal_stress1: dissimilarities {delta.shape}, distances {dist.shape} and "
            f"weights {w.shape} must have the same shape."
        )
    upper = np.triu_indices(delta.shape[0], k=1)
    raw = float(np.sum(w[upper] * (delta[upper] - dist[upper]) ** 2))
    scale = float(np.sum(w[upper] * dist[upper] ** 2))
    return _stress1_from(raw, scale, "kruskal_stress1")


def _stress1_from(raw_stress: float, weighted_distance_sq: float, where: str) -> float:
    if weighted_distance_sq > 0:
        return float(np.sqrt(max(raw_stress, 0.0) / weighted_distance_sq))
    if raw_stress <= 0:
        return 0.0
    raise ValueError(
        f"{where}: every embedded distance is zero, so stress-1 (raw stress divided by the "
        "sum of squared distances) is undefined."
    )


@validate_params(
    {
        "landmark_dissimilarities": ["array-like"],
        "dissimilarities_to_landmarks": ["array-like"],
        "n_components": _POSITIVE_INT,
    },
    prefer_skip_nested_validation=True,
)
def landmark_mds(
    landmark_dissimilarities: np.ndarray,
    dissimilarities_to_landmarks: np.ndarray,
    n_components: int,
) -> np.ndarray:
    """Landmark MDS (de Silva & Tenenbaum, 2004): classical MDS of n points from n_l landmarks.

    Classical MDS of the landmarks alone, then every point is placed by distance-based
    triangulation, ``x_a = -1/2 L^# (δ_a - δ_μ)``, with ``L^#`` the pseudo-inverse transpose of
    the landmark coordinates (rows ``v_i^T / sqrt(λ_i)``), ``δ_a`` the point's squared
    dissimilarities to the landmarks and ``δ_μ`` the mean of the landmarks' squared
    dissimilarity columns. Cost O(n n_l M) instead of the O(n^2) memory of classical MDS; when
    every point is a landmark the result *is* classical MDS (``tests/test_mds.py``).

    Parameters
    ----------
    landmark_dissimilarities : ndarray of shape (n_l, n_l)
        Symmetric, non-negative dissimilarities between the landmarks, zero diagonal.
    dissimilarities_to_landmarks : ndarray of shape (n, n_l)
        Dissimilarity of every point to every landmark (landmarks themselves included).
    n_components : int
        Target dimension M.

    Returns
    -------
    embedding : ndarray of shape (n, n_components)
        Directions with a non-positive eigenvalue among the landmarks are zero columns, as in
        :func:`classical_mds`.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.mds import euclidean_distances, landmark_mds
    >>> points = np.array([[0.0], [1.0], [3.0], [6.0]])
    >>> landmarks = points[:3]
    >>> embedding = landmark_mds(
    ...     euclidean_distances(landmarks), euclidean_distances(points, landmarks), n_components=1
    ... )
    >>> euclidean_distances(embedding)[0].round(6).tolist()
    [0.0, 1.0, 3.0, 6.0]
    """
    delta = _check_square(landmark_dissimilarities, "landmark_dissimilarities")
    to_landmarks = np.asarray(dissimilarities_to_landmarks, dtype=np.float64)
    n_landmarks = delta.shape[0]
    if to_landmarks.ndim != 2 or to_landmarks.shape[1] != n_landmarks:
        raise ValueError(
            f"dissimilarities_to_landmarks must have shape (n_points, {n_landmarks}) (one column "
            f"per landmark); got shape {to_landmarks.shape}."
        )
    if not np.all(np.isfinite(to_landmarks)) or np.any(to_landmarks < 0):
        raise ValueError("dissimilarities_to_landmarks must be finite and non-negative.")
    squared = delta**2
    k = min(n_components, n_landmarks)
    values, vectors = _top_eigenpairs(_double_centred_gram(delta), k)
    order = np.argsort(values)[::-1]
    values, vectors = values[order], vectors[:, order]
    positive = values > 0
    pseudo_inverse = np.zeros((k, n_landmarks))
    pseudo_inverse[positive] = (vectors[:, positive] / np.sqrt(values[positive])).T
    mean_column = squared.mean(axis=0)
    embedding = np.zeros((to_landmarks.shape[0], n_components))
    embedding[:, :k] = -0.5 * (to_landmarks**2 - mean_column) @ pseudo_inverse.T
    return embedding


def _top_eigenpairs(gram: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k largest eigenpairs of a symmetric matrix, each vector's largest entry positive
    (the convention of ``sklearn.utils.extmath.svd_flip``, which is applied here).

    Solver by measured CPU time (``benchmarks/bench_classical_mds.py``, n = 1,000 to 8,000):
    ARPACK for fewer than n/20 eigenpairs of a matrix larger than 400 (its cost grows with k
    and passes a full ``eigh`` near k = n/10: 144 s against 98 s for k = 983 at n = 8,000);
    LAPACK's MRRR (``subset_by_index``) for up to n/5 of them (0.8 s against 1.3 s for the
    full ``eigh`` at n = 2,000, k = 400); above that the full divide-and-conquer ``eigh``,
    which is faster than MRRR when most of the spectrum is wanted. Signs are fixed so the
    result does not depend on which solver ran.
    """
    n = gram.shape[0]
    values = vectors = None
    # ARPACK needs k < n and struggles when asked for many (clustered) eigenvalues.
    if n > _DENSE_EIGH_MAX and k < n // _ARPACK_SHARE:
        try:
            values, vectors = eigsh(gram, k=k, which="LA", v0=np.ones(n) / np.sqrt(n))
        except (ArpackNoConvergence, ArpackError):
            pass  # fall through to the exact dense solver; nothing is lost but time
    if values is None:
        if k <= n // _PARTIAL_SPECTRUM_SHARE:
            values, vectors = scipy.linalg.eigh(gram, subset_by_index=[n - k, n - 1])
        else:
            values, vectors = scipy.linalg.eigh(gram, driver="evd")
            values, vectors = values[n - k :], vectors[:, n - k :]
    vectors, _ = svd_flip(vectors, None)
    return values, vectors


def euclidean_distances(first: np.ndarray, second: np.ndarray | None = None) -> np.ndarray:
    """Euclidean distances between the rows of two matrices through one matrix product.

    ``d^2 = |a|^2 + |b|^2 - 2 a.b`` puts the O(n m M) work in BLAS (``scipy.spatial.distance
    .cdist`` loops in C without it, and was most of SMACOF's time at M ~ 1,000; both are timed
    in ``benchmarks/bench_scale.py``). Unlike ``sklearn.metrics.pairwise.euclidean_distances``,
    entries where the subtraction cancels (``d^2`` below 1e-8 of ``|a|^2 + |b|^2``: nearly
    coincident points) are recomputed directly, so coincident points get exactly 0, as with
    cdist; SMACOF treats ``d = 0`` specially and must not see rounding noise there.

    Parameters
    ----------
    first : ndarray of shape (n, M)
    second : ndarray of shape (m, M), optional
        Default: ``first``.

    Returns
    -------
    ndarray of float64, shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.mds import euclidean_distances
    >>> euclidean_distances(np.array([[0.0, 0.0], [3.0, 4.0]])).tolist()
    [[0.0, 5.0], [5.0, 0.0]]
    """
    second_points = first if second is None else second
    first_norms = np.einsum("ij,ij->i", first, first)
    second_norms = (
        first_norms if second is None else np.einsum("ij,ij->i", second_points, second_points)
    )
    return _distances_from_inner(
        first @ second_points.T, first_norms, second_norms, first, second_points
    )


def _distances_from_inner(
    inner: np.ndarray,
    first_norms: np.ndarray,
    second_norms: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    work: _Work | None = None,
    cancellation: float = 1e-8,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Distances from the inner products ``first @ second.T`` and squared norms, with
    :func:`euclidean_distances`' direct recomputation where the subtraction cancels (``d^2`` at
    most ``cancellation`` times ``|a|^2 + |b|^2``).

    The distances are written into ``out`` when given (``inner`` is then kept), else over
    ``inner``. ``work``, when given, holds the two (n, m) temporaries instead of fresh arrays
    (the placement calls this a few times per update of every chunk)."""
    rows = len(inner)
    if work is None:
        total = first_norms[:, None] + second_norms[None, :]
        below = None
    else:
        total = np.add(first_norms[:, None], second_norms[None, :], out=work.numbers[:rows])
        below = work.flags[:rows]
    # -2 inner written straight into the result: one pass, where copying inner first (to keep
    # it) and scaling the copy took two
    squared = np.multiply(inner, -2.0, out=inner if out is None else out)
    squared += total
    total *= cancellation
    below = np.less_equal(squared, total, out=below)
    # Cancellation is rare (a point next to a landmark): any() reads the flags once, where
    # nonzero() on all of them took ~40 % of this function under a line profile.
    if below.any():
        cancelled = np.nonzero(below)
        difference = first[cancelled[0]] - second[cancelled[1]]
        squared[cancelled] = np.einsum("ij,ij->i", difference, difference)
    return np.sqrt(squared, out=squared)


class _Work:
    """Reusable (n, m) temporaries of one chunk's placement, sliced to the active rows.

    Made once per chunk instead of once per temporary and update: less memory churn (CPU time
    in fresh processes did not change beyond the VM's spread, docs/CLEMS.md). Results are the
    same, operation for operation, as with fresh arrays."""

    def __init__(self, rows: int, columns: int, dtype=np.float64) -> None:
        self.numbers = np.empty((rows, columns), dtype=dtype)
        self.flags = np.empty((rows, columns), dtype=bool)
        self.residual = np.empty((rows, columns), dtype=dtype)
        self.ratio = np.empty((rows, columns), dtype=dtype)


class _Combinations:
    """The rows of ``coefficients @ points``, formed only for the rows asked for: the distances
    of points carried as combinations of the landmarks need their coordinates only where the
    subtraction cancels (:func:`_distances_from_inner`)."""

    def __init__(self, coefficients: np.ndarray, points: np.ndarray) -> None:
        self.coefficients = coefficients
        self.points = points

    def __getitem__(self, rows: np.ndarray) -> np.ndarray:
        unique, inverse = np.unique(rows, return_inverse=True)
        return (self.coefficients[unique] @ self.points)[inverse]


@validate_params(
    {
        "dissimilarities": ["array-like"],
        "weights": ["array-like", None],
        "n_components": _POSITIVE_INT,
        "init": ["array-like", None],
        "n_init": _POSITIVE_INT,
        "max_iter": _POSITIVE_INT,
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "relaxation": [Interval(Real, 0, 1, closed="both")],
    },
    prefer_skip_nested_validation=True,
)
def weighted_smacof(
    dissimilarities: np.ndarray,
    weights: np.ndarray | None,
    n_components: int,
    *,
    init: np.ndarray | None = None,
    n_init: int = 1,
    max_iter: int = 300,
    tol: float = 1e-6,
    random_state=None,
    relaxation: float = 0.9,
) -> tuple[np.ndarray, float, np.ndarray]:
    """Minimise the weighted raw stress with SMACOF (Guttman transform with weights).

    Parameters
    ----------
    dissimilarities : ndarray of shape (N, N)
        Symmetric, non-negative, finite dissimilarities Δ. The diagonal and entries whose
        weight is zero are ignored.
    weights : ndarray of shape (N, N) or None
        Symmetric, non-negative weights W (diagonal ignored). None means uniform weights
        (``W_ij = 1``, plain metric MDS). The graph of positive weights must be connected,
        otherwise the relative position of the components is undetermined.
    n_components : int
        Target dimension M.
    init : ndarray of shape (N, n_components), optional
        Starting configuration of the first run; the other ``n_init - 1`` runs (and the first,
        when ``init`` is None) start from uniform random points in [0, 1)^M, as in scikit-learn.
    n_init : int, default=1
        Number of runs; the configuration with the lowest final stress is returned.
    max_iter : int, default=300
        Maximum number of Guttman updates per run.
    tol : float, default=1e-6
        A run stops after the first update that lowers the stress by less than ``tol`` times
        the stress before it, :math:`\\sigma_{k-1} - \\sigma_k < \\mathrm{tol}\\,\\sigma_{k-1}`,
        or when the stress is negligible (below 1e-8 of
        :math:`\\sum_{i<j} W_{ij}\\Delta_{ij}^2`, Kruskal stress-1 about 1e-4). ``tol=0`` runs
        all ``max_iter`` updates unless the fit is exact (stress below 1e-14 of that sum) or
        the stress stops falling.
        Why relative to the current stress: R's ``smacof`` (de Leeuw & Mair) and this function
        until now compared the decrease with :math:`\\sum_{i<j} W_{ij}\\Delta_{ij}^2` (the
        all-zero configuration's stress). From a classical-MDS start the stress is already a
        small fraction of that sum (0.06 % in ``tests/test_mds.py``'s F1 example), so the
        effective tolerance was thousands of times looser than ``tol`` and a run stopped while
        its stress still fell by a fifth per update (CLEMS with the F1 cost on scene stopped
        after one update at ``tol=1e-4``). The CLEMS authors' code compares the stress divided
        by :math:`\\sum_i \\lVert u_i\\rVert` between iterations with ``eps=1e-6``, an absolute
        threshold that depends on the scale of Δ. When SMACOF converges quickly, the relative
        rule stops within about ``10 * tol`` (relative) of a converged run's stress
        (``tests/test_mds.py``); slow, linear convergence can stop further away.
    random_state : int, RandomState instance or None
        Seeds the random starts; the result is deterministic for a fixed seed.
    relaxation : float in [0, 1], default=0.9
        Over-relaxed update :math:`U \\leftarrow \\Gamma + r(\\Gamma - U)` with Γ the Guttman
        transform (de Leeuw & Heiser's relaxed SMACOF), which cuts the number of iterations by
        about 40 % on CLEMS problems. A relaxed step that would raise the stress is replaced by
        the plain Guttman step, so the stress is non-increasing for every ``relaxation``;
        ``relaxation=0`` is textbook SMACOF (identical to scikit-learn's ``smacof`` for uniform
        weights and the same start).

    Returns
    -------
    embedding : ndarray of shape (N, n_components)
        The configuration of the best run (centred at the origin).
    stress : float
        Its weighted raw stress :math:`\\sum_{i<j} W_{ij} (\\Delta_{ij} - d_{ij})^2`.
    stress_history : ndarray
        Stress of the best run at its start and after every update (non-increasing).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.mds import classical_mds, euclidean_distances, weighted_smacof
    >>> D = euclidean_distances(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [1.0, 2.0]]))
    >>> start = classical_mds(D, 2) + np.random.default_rng(0).normal(scale=0.1, size=(4, 2))
    >>> embedding, stress, history = weighted_smacof(D, weights=None, n_components=2, init=start)
    >>> embedding.shape, bool(stress < 1e-3), bool(history[-1] < history[0])
    ((4, 2), True, True)
    """
    delta = _check_square(dissimilarities, "dissimilarities")
    n = delta.shape[0]
    if weights is None:
        solver: _Solver = _UniformSolver(delta, 1.0)
    else:
        w = _check_square(weights, "weights")
        if w.shape != delta.shape:
            raise ValueError(
                f"weights has shape {w.shape} but dissimilarities has shape {delta.shape}; "
                "they must describe the same objects."
            )
        solver = _make_solver(delta, w)
    if init is not None:
        init = np.asarray(init, dtype=np.float64)
        if init.shape != (n, n_components) or not np.all(np.isfinite(init)):
            raise ValueError(
                f"init must be a finite array of shape ({n}, {n_components}) (objects x "
                f"n_components); got shape {init.shape}."
            )
    return _run_smacof(
        solver,
        n_components,
        init=init,
        n_init=n_init,
        max_iter=max_iter,
        tol=tol,
        random_state=random_state,
        relaxation=relaxation,
    )


def _run_smacof(
    solver: _Solver,
    n_components: int,
    *,
    init: np.ndarray | None,
    n_init: int,
    max_iter: int,
    tol: float,
    random_state,
    relaxation: float,
) -> tuple[np.ndarray, float, np.ndarray]:
    """SMACOF runs on a prepared solver; the best one wins.

    The parameters are not checked here: the callers validate them (``weighted_smacof``
    with ``validate_params``, :class:`mlviz.CLEMS` with its ``_parameter_constraints``).
    """
    rng = check_random_state(random_state)
    best: tuple[np.ndarray, float, np.ndarray] | None = None
    for run in range(n_init):
        if run == 0 and init is not None:
            start = np.array(init, dtype=np.float64)
        else:
            start = rng.uniform(size=(solver.n_objects, n_components))
        result = _smacof_single(solver, start, max_iter, tol, relaxation)
        if best is None or result[1] < best[1]:
            best = result
    assert best is not None
    return best


def _smacof_single(
    solver: _Solver, start: np.ndarray, max_iter: int, tol: float, relaxation: float
) -> tuple[np.ndarray, float, np.ndarray]:
    embedding = start - start.mean(axis=0)
    distances = solver.distances(embedding)
    stress = solver.stress(embedding, distances)
    history = [stress]
    # tol = 0 asks for every update (benchmarks time them), so only an exact fit stops it then.
    floor = (_NEGLIGIBLE_STRESS if tol > 0 else _EXACT_STRESS) * solver.scale
    for _ in range(max_iter):
        if stress <= floor:
            break
        guttman = solver.guttman(embedding, distances)
        candidate = guttman + relaxation * (guttman - embedding) if relaxation else guttman
        new_distances = solver.distances(candidate)
        new_stress = solver.stress(candidate, new_distances)
        if relaxation and new_stress > stress:
            # The majorisation guarantee holds for the plain Guttman step only.
            candidate = guttman
            new_distances = solver.distances(candidate)
            new_stress = solver.stress(candidate, new_distances)
        decrease = stress - new_stress
        # Relative decrease, as de Leeuw's SMACOF and the authors' ``eps``: compared with the
        # stress it started from, not with the all-zero configuration's (which is ~100x larger
        # than the stress of a classical-MDS start and stopped CLEMS on scene after one step).
        converged = decrease < tol * stress
        embedding, distances, stress = candidate, new_distances, new_stress
        history.append(stress)
        if converged:
            break
    return embedding, float(stress), np.asarray(history)


class _Solver:
    """Distances, stress and the Guttman transform for one weight structure.

    The stress is evaluated as ``scale - <WΔ, D> + tr(U^T V U)`` (expanding the square), which
    needs one pass over the N x N distances instead of four; ``tr(U^T V U)`` is O(NM) for the
    structured weights.
    """

    n_objects: int
    scale: float  # stress of the all-zero configuration, sum_{i<j} W_ij Δ_ij^2
    weighted_delta: np.ndarray

    def distances(self, embedding: np.ndarray) -> np.ndarray:
        return euclidean_distances(embedding)

    def stress(self, embedding: np.ndarray, distances: np.ndarray) -> float:
        cross = 0.5 * float(np.vdot(self.weighted_delta, distances))
        value = self.scale - 2.0 * cross + self.quadratic(embedding)
        # Expanding the square can leave a rounding residue below zero for exact embeddings.
        return max(value, 0.0)

    def quadratic(self, embedding: np.ndarray) -> float:
        """sum_{i<j} W_ij d_ij^2 = tr(U^T V U)."""
        raise NotImplementedError

    def ratio(self, distances: np.ndarray) -> np.ndarray:
        """W_ij Δ_ij / d_ij, with 0 where d_ij = 0 (the SMACOF convention for B(U))."""
        out = np.zeros_like(distances)
        np.divide(self.weighted_delta, distances, out=out, where=distances > 0)
        return out

    def guttman(self, embedding: np.ndarray, distances: np.ndarray) -> np.ndarray:
        ratio = self.ratio(distances)
        bx = ratio.sum(axis=1, keepdims=True) * embedding - ratio @ embedding
        result = self.apply_v_pinv(bx)
        return result - result.mean(axis=0)

    def apply_v_pinv(self, y: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class _FullSolver(_Solver):
    """Weights over all pairs of the N objects."""

    def __init__(self, delta: np.ndarray, weights: np.ndarray):
        self.delta = delta
        self.n_objects = delta.shape[0]
        self.weights = weights.copy()
        np.fill_diagonal(self.weights, 0.0)
        self.weighted_delta = self.weights * delta
        self.scale = 0.5 * float(np.vdot(self.weighted_delta, delta))


class _UniformSolver(_FullSolver):
    def __init__(self, delta: np.ndarray, weight: float):
        super().__init__(delta, np.full_like(delta, float(weight)))
        self.weight = float(weight)

    def quadratic(self, embedding: np.ndarray) -> float:
        total = embedding.sum(axis=0)
        n = self.n_objects
        return self.weight * (n * float(np.sum(embedding**2)) - float(total @ total))

    def apply_v_pinv(self, y: np.ndarray) -> np.ndarray:
        # V = w (N I - 1 1^T), so V^+ = (I - 1 1^T / N) / (N w) and B(U) U is already centred.
        return y / (self.n_objects * self.weight)


class _AdditiveSolver(_FullSolver):
    """W_ij = a_i + a_j: V = D - a 1^T - 1 a^T with D = diag(N a + sum(a)).

    V + 11^T/N = D + U C U^T with U = [a, 1], C = [[0, -1], [-1, 1/N]], inverted by Woodbury.
    """

    def __init__(self, delta: np.ndarray, a: np.ndarray):
        n = delta.shape[0]
        super().__init__(delta, a[:, None] + a[None, :])
        self.a = a
        self.diag = n * a + a.sum()
        self.inv_diag = 1.0 / self.diag
        self.basis = np.column_stack([a, np.ones(n)])
        c_inv = np.array([[-1.0 / n, -1.0], [-1.0, 0.0]])
        capacitance = c_inv + self.basis.T @ (self.inv_diag[:, None] * self.basis)
        self.capacitance_inv = np.linalg.inv(capacitance)

    def quadratic(self, embedding: np.ndarray) -> float:
        squared_norms = np.einsum("ij,ij->i", embedding, embedding)
        weighted_sum = self.a @ embedding
        total = embedding.sum(axis=0)
        return float(self.diag @ squared_norms) - 2.0 * float(weighted_sum @ total)

    def apply_v_pinv(self, y: np.ndarray) -> np.ndarray:
        scaled = self.inv_diag[:, None] * y
        correction = self.basis @ (self.capacitance_inv @ (self.basis.T @ scaled))
        return scaled - self.inv_diag[:, None] * correction


class _DenseSolver(_FullSolver):
    def __init__(self, delta: np.ndarray, weights: np.ndarray):
        super().__init__(delta, weights)
        n = self.n_objects
        self.v = -self.weights
        np.fill_diagonal(self.v, self.weights.sum(axis=1))
        # V has null space span(1) when the weight graph is connected, hence this identity.
        self.v_pinv = np.linalg.inv(self.v + 1.0 / n) - 1.0 / n

    def quadratic(self, embedding: np.ndarray) -> float:
        return float(np.sum(embedding * (self.v @ embedding)))

    def apply_v_pinv(self, y: np.ndarray) -> np.ndarray:
        return self.v_pinv @ y


class _BipartiteSolver(_Solver):
    """Objects 0..n_t-1 (one role) and n_t..n_t+n_p-1 (the other); W[i, n_t+j] = a_i b_j.

    Only the cross block ``delta_cross[i, j] = Δ(i, n_t + j)`` carries weight, so only the
    n_t x n_p cross distances are ever computed.
    """

    def __init__(self, delta_cross: np.ndarray, a: np.ndarray, b: np.ndarray):
        self.delta = delta_cross
        self.a, self.b = a, b
        self.n_first = delta_cross.shape[0]
        self.n_objects = delta_cross.shape[0] + delta_cross.shape[1]
        self.weighted_delta = a[:, None] * delta_cross * b[None, :]
        self.scale = float(np.vdot(self.weighted_delta, delta_cross))

    def distances(self, embedding: np.ndarray) -> np.ndarray:
        return euclidean_distances(embedding[: self.n_first], embedding[self.n_first :])

    def stress(self, embedding: np.ndarray, distances: np.ndarray) -> float:
        # Each cross pair is one unordered pair, so no factor 1/2 here.
        cross = float(np.vdot(self.weighted_delta, distances))
        return max(self.scale - 2.0 * cross + self.quadratic(embedding), 0.0)

    def quadratic(self, embedding: np.ndarray) -> float:
        first, second = embedding[: self.n_first], embedding[self.n_first :]
        first_norms = np.einsum("ij,ij->i", first, first)
        second_norms = np.einsum("ij,ij->i", second, second)
        return (
            self.b.sum() * float(self.a @ first_norms)
            + self.a.sum() * float(self.b @ second_norms)
            - 2.0 * float((self.a @ first) @ (self.b @ second))
        )

    def guttman(self, embedding: np.ndarray, distances: np.ndarray) -> np.ndarray:
        first, second = embedding[: self.n_first], embedding[self.n_first :]
        ratio = self.ratio(distances)
        s = ratio.sum(axis=1, keepdims=True) * first - ratio @ second
        t = ratio.sum(axis=0)[:, None] * second - ratio.T @ first
        # Solve V x = [s; t] for the block structure (rows: a_i B p_i - a_i b^T q = s_i and
        # b_j A q_j - b_j a^T p = t_j); take the solution with b^T q = 0, then centre it.
        total_a, total_b = self.a.sum(), self.b.sum()
        p = s / (self.a[:, None] * total_b)
        alpha = s.sum(axis=0) / total_b
        q = t / (self.b[:, None] * total_a) + alpha / total_a
        result = np.vstack([p, q])
        return result - result.mean(axis=0)


def _make_solver(delta: np.ndarray, weights: np.ndarray) -> _Solver:
    n = delta.shape[0]
    w = weights.copy()
    np.fill_diagonal(w, 0.0)
    off_diagonal = w[~np.eye(n, dtype=bool)]
    if n >= 2 and off_diagonal.min() > 0 and np.all(off_diagonal == off_diagonal[0]):
        return _UniformSolver(delta, off_diagonal[0])
    bipartite = _bipartite_factors(w)
    if bipartite is not None:
        a, b = bipartite
        half = n // 2
        return _BipartiteSolver(delta[:half, half:], a, b)
    additive = _additive_factors(w)
    if additive is not None:
        return _AdditiveSolver(delta, additive)
    n_parts, _ = connected_components(w > 0, directed=False)
    if n_parts > 1:
        raise ValueError(
            f"the graph of positive weights splits the {n} objects into {n_parts} unconnected "
            "groups, so their relative positions are undetermined; give every group at least "
            "one positive weight to another."
        )
    return _DenseSolver(delta, w)


def _bipartite_factors(w: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    n = w.shape[0]
    if n < 2 or n % 2:
        return None
    half = n // 2
    if np.any(w[:half, :half]) or np.any(w[half:, half:]):
        return None
    cross = w[:half, half:]
    if cross[0, 0] <= 0 or np.any(cross <= 0):
        return None
    a = cross[:, 0]
    b = cross[0, :] / cross[0, 0]
    if not np.allclose(cross, np.outer(a, b), rtol=1e-12, atol=0.0):
        return None
    return a.copy(), b.copy()


def _additive_factors(w: np.ndarray) -> np.ndarray | None:
    n = w.shape[0]
    if n < 3:
        return None
    a0 = 0.5 * (w[0, 1] + w[0, 2] - w[1, 2])
    a = w[0] - a0
    a[0] = a0
    if np.any(a < 0) or a.sum() <= 0:
        return None
    model = a[:, None] + a[None, :]
    np.fill_diagonal(model, 0.0)
    if not np.allclose(w, model, rtol=1e-12, atol=1e-12 * float(w.max())):
        return None
    return a


def _check_square(matrix, name: str) -> np.ndarray:
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] < 2:
        raise ValueError(f"{name} must be a square (N, N) matrix with N >= 2; got {m.shape}.")
    if not np.all(np.isfinite(m)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    if np.any(m < 0):
        i, j = np.argwhere(m < 0)[0]
        raise ValueError(f"{name} must be non-negative; found {m[i, j]!r} at ({i}, {j}).")
    if not np.allclose(m, m.T, rtol=1e-10, atol=1e-12 * max(float(m.max()), 1.0)):
        i, j = np.unravel_index(np.argmax(np.abs(m - m.T)), m.shape)
        raise ValueError(
            f"{name} must be symmetric; entry ({i}, {j}) is {m[i, j]!r} but ({j}, {i}) is "
            f"{m[j, i]!r}. For an asymmetric cost use the mirroring trick (mlviz.CLEMS does)."
        )
    return 0.5 * (m + m.T)


# ---------------------------------------------------------------- out-of-sample placement
# Points placed at a time by out_of_sample_smacof: bounds its (chunk x landmarks) work arrays,
# four reused ones (_Work) and about a dozen fresh ones per update, per chunk and thread. Why
# 512 and not 2,048: on two threads (CLEMS at M = L on the delicious shape) 2,048 gave six
# unequal chunks, 5.7-6.8 s and 1.43 GB peak; 512 gave 5.2-5.4 s and 1.05-1.11 GB, less than
# 2,048 on one thread (1.15 GB; docs/BENCHMARKS.md).
_OOS_CHUNK = 512

#: :func:`out_of_sample_smacof` computes a distance directly, instead of from inner products,
#: where ``d^2`` is at most this share of ``|z|^2 + |y|^2``. The subtraction loses about
#: eps / share of ``d^2`` there: 2e-8 in float64 (eps 2.2e-16) and 6e-5 in float32 (eps 6e-8),
#: so float32 needs the larger share. Such pairs are rare: a point next to a landmark.
OOS_CANCELLATION = {"float64": 1e-8, "float32": 1e-3}


@dataclass(frozen=True)
class AdditiveWeights:
    """Pair weights ``w_aj = row[a] + column[j]`` for :func:`out_of_sample_smacof`.

    The weights CLEMS gives a placed candidate a and a landmark j (``count_a + count_j``,
    Huang & Lin's frequency weights). :func:`out_of_sample_smacof` forms them chunk by chunk,
    never as the whole (n_points, n_landmarks) matrix (88 MB at delicious's shape).

    Parameters
    ----------
    row : array-like of shape (n_points,)
        Each point's term.
    column : array-like of shape (n_landmarks,)
        Each landmark's term.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.mds import AdditiveWeights, out_of_sample_smacof
    >>> landmarks = np.array([[0.0], [2.0]])
    >>> delta = np.array([[0.5, 0.5]])
    >>> additive = AdditiveWeights(row=[1.0], column=[2.0, 0.0])  # the weights 3 and 1
    >>> placed = out_of_sample_smacof(
    ...     landmarks, delta, weights=additive, init=[[1.6]], tol=0.0, max_iter=500
    ... )[0]
    >>> full = out_of_sample_smacof(
    ...     landmarks, delta, weights=[[3.0, 1.0]], init=[[1.6]], tol=0.0, max_iter=500
    ... )[0]
    >>> placed.round(6).tolist(), bool(np.array_equal(placed, full))
    ([[0.75]], True)
    """

    row: np.ndarray
    column: np.ndarray


@dataclass(frozen=True)
class RowsOf:
    """Dissimilarities given as rows of a larger matrix, for :func:`out_of_sample_smacof`.

    Row a of the dissimilarities is ``transform(matrix[rows[a]])``, gathered chunk by chunk.
    CLEMS keeps the costs of every candidate to the landmarks in one (candidates x landmarks)
    matrix and places the candidates that are not landmarks, with the square roots of their
    costs as dissimilarities; gathering those rows and taking their roots beforehand made a
    second matrix of 88 MB at delicious's shape (its first touches alone took 0.03-0.25 s on
    the 2-core VM, besides the copy).

    Parameters
    ----------
    matrix : ndarray of shape (n_rows, n_landmarks)
        The rows to choose from (float64).
    rows : array-like of int, shape (n_points,)
        The row of ``matrix`` of each point.
    transform : numpy ufunc, optional
        Applied element-wise to the gathered rows (e.g. ``np.sqrt``); none by default. The
        result must be finite and non-negative, which is checked chunk by chunk.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.mds import RowsOf, out_of_sample_smacof
    >>> landmarks = np.array([[0.0], [2.0]])
    >>> costs = np.array([[4.0, 4.0], [1.0, 1.0], [0.0, 4.0]])  # squared distances
    >>> placed = out_of_sample_smacof(landmarks, RowsOf(costs, [1, 2], np.sqrt))[0]
    >>> direct = out_of_sample_smacof(landmarks, np.sqrt(costs[[1, 2]]))[0]
    >>> placed.round(6).tolist(), bool(np.array_equal(placed, direct))
    ([[1.0], [0.0]], True)
    """

    matrix: np.ndarray
    rows: np.ndarray
    transform: np.ufunc | None = None


@validate_params(
    {
        "landmarks": ["array-like"],
        "dissimilarities": ["array-like", RowsOf],
        "weights": ["array-like", AdditiveWeights, None],
        "init": ["array-like", None],
        "max_iter": _POSITIVE_INT,
        "tol": [Interval(Real, 0, None, closed="left")],
        "relaxation": [Interval(Real, 0, 1, closed="both")],
        "n_jobs": N_JOBS_CONSTRAINT,
        "dtype": [StrOptions({"float64", "float32"})],
    },
    prefer_skip_nested_validation=True,
)
def out_of_sample_smacof(
    landmarks: np.ndarray,
    dissimilarities: np.ndarray | RowsOf,
    *,
    weights: np.ndarray | None = None,
    init: np.ndarray | None = None,
    max_iter: int = 300,
    tol: float = 1e-6,
    relaxation: float = 0.9,
    n_jobs: int | None = None,
    dtype: str = "float64",
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Place new points against fixed landmark points by minimising each point's weighted stress.

    For every new point a, independently,

    .. math:: \\sigma_a(z) = \\sum_j w_{aj} (\\lVert z - y_j \\rVert - \\delta_{aj})^2

    over the landmark points :math:`y_j`, which do not move (the out-of-sample problem of
    Trosset & Priebe, 2008, solved by majorisation as in Borg & Groenen §8.6 with one free
    point). The Guttman update for one point is

    .. math:: z \\leftarrow \\frac{1}{\\sum_j w_{aj}} \\sum_j w_{aj}
              \\Big(y_j + \\delta_{aj} \\frac{z - y_j}{\\lVert z - y_j \\rVert}\\Big)

    (the term of a landmark at distance 0 is :math:`y_j`, SMACOF's convention), which never
    increases :math:`\\sigma_a`. As in :func:`weighted_smacof` the step may be over-relaxed,
    :math:`z \\leftarrow \\Gamma + r(\\Gamma - z)`; here both steps are evaluated and each
    point keeps the one with the lower stress, so every point's stress is non-increasing. On
    CLEMS placements (4,000 delicious-shaped label sets, 1,000 landmarks) this reached the
    lowest stress for every cost: keeping the relaxed step whenever it did not raise the
    stress left rank-loss placements at up to 3.4x the stress of the plain iteration, while
    the plain iteration alone left F1 placements at 25x that of the relaxed one.

    **Start.** Unless ``init`` is given, each point starts at the least-squares triangulation
    of its squared dissimilarities against the landmarks (de Silva & Tenenbaum's landmark MDS
    formula ``z = -1/2 Y_c^+ (δ_a² - mean δ² - (|y_j|² - mean |y|²))`` with ``Y_c`` the centred
    landmarks, valid for any landmark configuration): a point whose dissimilarities are the
    exact distances to some position in the landmarks' affine hull starts, and stays, there.
    Points are iterated in the landmarks' affine hull (an orthonormal basis of rank
    ``r <= min(M, n_landmarks - 1)``), where the update keeps any point that starts in it, so
    the work is O(n n_landmarks r) per iteration even when M is large (when r = M the
    landmarks' own centred coordinates are used, so no point is rotated back at the end).
    An update costs two products with the landmarks, one for the Guttman step and one for
    the distances of both the plain and the relaxed step (see ``_place_chunk``). When r = M
    and M is more than half the number of landmarks (CLEMS at M = L on ~1,000 labels), the
    points are carried instead as combinations of the landmarks, ``z = a Y_c`` (the Guttman
    update maps such a combination to another one), and an update costs one product with the
    landmarks' n_landmarks x n_landmarks Gram matrix (``_place_chunk``'s ``gram``).

    **Stopping.** Each point stops on its own, after the update in which its plain Guttman
    step Γ − z guaranteed a decrease :math:`\\sum_j w_{aj} \\lVert \\Gamma - z \\rVert^2` below
    ``tol`` times :math:`\\sum_j w_{aj}\\delta_{aj}^2` (its stress if every distance were zero;
    the scale of :func:`weighted_smacof`'s rule). Since Γ − z is the gradient step
    :math:`-\\nabla\\sigma_a(z) / (2 \\sum_j w_{aj})`, this is a stationarity test; the realised
    decrease of a relaxed step is not one (an overshooting step can gain little far from the
    optimum). It also stops when its stress reaches zero, or after ``max_iter`` updates.
    Points are processed in chunks of 512, so memory is O(n_jobs 512 n_landmarks) besides
    the inputs and the result. The chunks are independent, so ``n_jobs`` threads place them
    at once with the same result.

    Parameters
    ----------
    landmarks : ndarray of shape (n_landmarks, M)
        The fixed landmark points.
    dissimilarities : ndarray of shape (n_points, n_landmarks) or RowsOf
        Target dissimilarity of every new point to every landmark: finite, non-negative. A
        :class:`RowsOf` is gathered chunk by chunk, never as the whole matrix.
    weights : array-like broadcastable to (n_points, n_landmarks) or AdditiveWeights, optional
        Non-negative pair weights (default 1); each point needs a positive weight to at least
        one landmark. A (n_points, 1) column, a (n_landmarks,) row or :class:`AdditiveWeights`
        (their sum) is expanded chunk by chunk, never to the whole matrix.
    init : ndarray of shape (n_points, M), optional
        Starting positions (default: the triangulation above). A start outside the
        landmarks' affine hull is iterated in all M dimensions.
    max_iter : int, default=300
        Maximum updates per point.
    tol : float, default=1e-6
        Relative stopping tolerance (see Stopping).
    relaxation : float in [0, 1], default=0.9
        Over-relaxation factor; 0 is the plain Guttman update.
    n_jobs : int, optional
        Threads placing chunks at once (joblib's convention: None is 1, -1 every core); BLAS
        runs one thread per product meanwhile (:func:`mlviz._parallel.map_blocks`). The
        placement is the same for every value.
    dtype : {"float64", "float32"}, default="float64"
        Precision of the updates. ``"float32"`` halves their memory traffic and the time of
        their products (CLEMS at M = L on delicious's shape, two threads: 2.2-2.5 s ->
        1.2-1.6 s, the same number of updates); the positions then differ from float64's by
        ~1e-5 relative, three orders of magnitude inside what ``tol`` leaves of each point's
        distance to its optimum (there, at tol = 1e-4: a median 1.8 %). The checks, the
        start's factors and the results stay float64; a distance whose subtraction cancels
        (``d^2`` below :data:`OOS_CANCELLATION` of the squared norms, 1e-3 in float32 instead
        of 1e-8) is computed directly.

    Returns
    -------
    embedding : ndarray of shape (n_points, M)
    stress : ndarray of shape (n_points,)
        Each point's final :math:`\\sigma_a`.
    n_iter : ndarray of int, shape (n_points,)
        Updates made for each point (``max_iter`` for a point that did not meet ``tol``).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.spatial.distance import cdist
    >>> from mlviz.mds import out_of_sample_smacof
    >>> landmarks = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 3.0]])
    >>> delta = cdist([[1.0, 1.0]], landmarks)  # realisable: the point (1, 1)
    >>> placed, stress, n_iter = out_of_sample_smacof(landmarks, delta, tol=0.0, max_iter=200)
    >>> np.round(placed, 6).tolist(), bool(stress[0] < 1e-12)
    ([[1.0, 1.0]], True)
    >>> single = out_of_sample_smacof(landmarks, delta, tol=0.0, max_iter=200, dtype="float32")
    >>> np.round(single[0], 4).tolist(), single[0].dtype  # updates in float32, results float64
    ([[1.0, 1.0]], dtype('float64'))
    """
    points = np.asarray(landmarks, dtype=np.float64)
    if points.ndim != 2 or points.shape[0] < 1:
        raise ValueError(f"landmarks must be a (n_landmarks, M) array; got shape {points.shape}.")
    n_landmarks, n_dims = points.shape
    if not np.all(np.isfinite(points)):
        raise ValueError(_NOT_FINITE)
    n_points, delta_of = _chunk_dissimilarities(dissimilarities, n_landmarks)
    weights_of = _chunk_weights(weights, (n_points, n_landmarks))

    centre = points.mean(axis=0)
    centred = points - centre
    combinations = (
        _combination_factors(centred) if init is None and 2 * n_dims > n_landmarks else None
    )
    if combinations is None:
        # Orthonormal basis of the landmarks' affine hull: the Guttman update of a point
        # inside it is a combination of landmark positions and the point itself, so it never
        # leaves it.
        left, singular, vt = np.linalg.svd(centred, full_matrices=False)
        top = max(float(singular[0]) if singular.size else 0, 1e-300)
        rank = int(np.sum(singular > 1e-10 * top))
        basis = vt[:rank].T  # (M, r)
        hull = centred @ basis  # landmark coordinates in the hull, (n_landmarks, r)
        if init is None and rank == n_dims and 2 * n_dims > n_landmarks:
            # landmarks too ill-conditioned for _combination_factors: its factors from the SVD.
            # The start's inner products a G = rhs U U^T = rhs - (rhs N) N^T, N the
            # orthonormal complement of U (a complete QR of U holds n_landmarks^2 numbers, as
            # G does).
            combinations = (
                centred @ centred.T,
                (left[:, :rank] / singular[:rank] ** 2) @ left[:, :rank].T,
                np.linalg.qr(left[:, :rank], mode="complete")[0][:, rank:],
            )
    gram = complement = None
    if combinations is not None:
        # Combinations of the landmarks (see Start): the triangulation z = rhs Y_c^+ is
        # a = rhs U S^-2 U^T (Y_c = U S V^T), and one update costs one product with the Gram
        # matrix instead of two with the M-column landmarks (2 M > n_landmarks)
        gram, to_coefficients, complement = combinations
        work_points, to_full = centred, None
        start_of = partial(_triangulation_rhs, centred=work_points)  # rhs, then coefficients
    elif init is None and rank == n_dims:
        # The hull is the whole space (CLEMS at M = L and at the page's M alike): iterate in
        # the landmarks' own coordinates, with the triangulation mapped to them once, which
        # saves rotating every placed point back (a product as large as an update's).
        to_centred = (hull / singular[:rank] ** 2) @ vt[:rank]  # (n_landmarks, M)
        centred = points - centre

        def start_of(chunk_delta: np.ndarray) -> np.ndarray:
            return _triangulation_rhs(chunk_delta, centred) @ to_centred

        work_points, to_full = points - centre, None
    elif init is None:
        start_of = partial(
            _triangulate, hull, singular=singular[:rank], vt=vt[:rank], centred=points - centre
        )
        work_points, to_full = hull, basis
    else:
        start_of = None
        start = np.asarray(init, dtype=np.float64)
        if start.shape != (n_points, n_dims) or not np.all(np.isfinite(start)):
            raise ValueError(
                f"init must be a finite array of shape ({n_points}, {n_dims}); got {start.shape}."
            )
        start = start - centre
        residual = start - (start @ basis) @ basis.T
        if np.allclose(residual, 0.0, atol=1e-12 * max(1.0, float(np.abs(start).max()))):
            start = start @ basis
            work_points, to_full = hull, basis
        else:  # off the hull: iterate in all M dimensions
            work_points, to_full = points - centre, None

    # the updates' precision (the start's factors above are float64 whatever it is)
    work_points = work_points.astype(dtype, copy=False)
    if gram is not None:
        gram = gram.astype(dtype, copy=False)
        to_coefficients = to_coefficients.astype(dtype, copy=False)
        complement = complement.astype(dtype, copy=False)
    placed = np.empty((n_points, work_points.shape[1]))
    stress = np.empty(n_points)
    n_iter = np.zeros(n_points, dtype=np.intp)

    def place(lo: int) -> None:  # one chunk, written into its own rows of the results
        hi = min(lo + _OOS_CHUNK, n_points)
        start_inner = None
        # the triangulation chunk by chunk too: on the whole (n_points, n_landmarks) matrix its
        # element-wise passes took ~0.2 s of CLEMS's placement on the delicious shape, on one
        # thread and outside the cache
        chunk_delta = delta_of(lo, hi)
        chunk_start = start[lo:hi] if start_of is None else start_of(chunk_delta)
        chunk_start = chunk_start.astype(dtype, copy=False)
        if gram is not None:
            rhs = chunk_start
            chunk_start = rhs @ to_coefficients
            start_inner = rhs - (rhs @ complement) @ complement.T
        placed_chunk, stress[lo:hi], n_iter[lo:hi] = _place_chunk(
            work_points,
            chunk_delta.astype(dtype, copy=False),
            weights_of(lo, hi, dtype),
            chunk_start,
            max_iter,
            tol,
            relaxation,
            gram=gram,
            start_inner=start_inner,
            cancellation=OOS_CANCELLATION[dtype],
        )
        placed[lo:hi] = placed_chunk if gram is None else placed_chunk @ work_points

    map_blocks(place, range(0, n_points, _OOS_CHUNK), n_jobs)
    if to_full is not None:
        placed = placed @ to_full.T
    placed += centre  # in place: a new (n_points, M) array cost ~0.2 s at delicious's shape
    return placed, stress, n_iter


_NOT_FINITE = "landmarks and dissimilarities must be finite; dissimilarities >= 0."


def _chunk_dissimilarities(dissimilarities, n_landmarks: int):
    """``(n_points, delta_of)``: ``delta_of(lo, hi)`` is the float64 dissimilarities of points
    lo..hi-1 (see :func:`out_of_sample_smacof`'s ``dissimilarities``). An array is checked
    whole, at once; a :class:`RowsOf` is gathered and checked chunk by chunk."""
    if isinstance(dissimilarities, RowsOf):
        matrix = np.asarray(dissimilarities.matrix, dtype=np.float64)
        rows = np.asarray(dissimilarities.rows)
        transform = dissimilarities.transform
        if matrix.ndim != 2 or matrix.shape[1] != n_landmarks:
            raise ValueError(
                f"RowsOf's matrix must have shape (n_rows, {n_landmarks}) (one column per "
                f"landmark); got shape {matrix.shape}."
            )
        if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer):
            raise ValueError(f"RowsOf's rows must be a 1-D array of int; got {rows.dtype}.")
        if rows.size and (rows.min() < 0 or rows.max() >= matrix.shape[0]):
            raise ValueError(f"RowsOf's rows must lie in 0..{matrix.shape[0] - 1}.")

        def delta_of(lo: int, hi: int) -> np.ndarray:
            chunk = matrix[rows[lo:hi]]  # a fresh array: the transform may write into it
            if transform is not None:
                with np.errstate(invalid="ignore"):  # e.g. sqrt(-1): the check below says so
                    transform(chunk, out=chunk)
            if not np.all(np.isfinite(chunk)) or np.any(chunk < 0):
                raise ValueError(_NOT_FINITE)
            return chunk

        return rows.size, delta_of
    delta = np.asarray(dissimilarities, dtype=np.float64)
    if delta.ndim != 2 or delta.shape[1] != n_landmarks:
        raise ValueError(
            f"dissimilarities must have shape (n_points, {n_landmarks}) (one column per "
            f"landmark); got shape {delta.shape}."
        )
    if not np.all(np.isfinite(delta)) or np.any(delta < 0):
        raise ValueError(_NOT_FINITE)
    return delta.shape[0], lambda lo, hi: delta[lo:hi]


def _chunk_weights(weights, shape: tuple[int, int]):
    """``weights_of(lo, hi, dtype)``: a fresh array of the pair weights of points lo..hi-1 (see
    :func:`out_of_sample_smacof`'s ``weights``; added in float64, then cast), after checking
    them all once."""
    n_points, n_landmarks = shape
    if isinstance(weights, AdditiveWeights):
        row = np.asarray(weights.row, dtype=np.float64)
        column = np.asarray(weights.column, dtype=np.float64)
        if row.shape != (n_points,) or column.shape != (n_landmarks,):
            raise ValueError(
                f"AdditiveWeights must have a row of shape ({n_points},) and a column of shape "
                f"({n_landmarks},) (one term per point and per landmark); got {row.shape} and "
                f"{column.shape}."
            )
        parts = (row, column)
    else:
        parts = (np.ones(1) if weights is None else np.asarray(weights, dtype=np.float64),)
    if not all(np.all(np.isfinite(part)) and not np.any(part < 0) for part in parts):
        raise ValueError("weights must be finite and non-negative.")
    if isinstance(weights, AdditiveWeights):
        return lambda lo, hi, dtype: (row[lo:hi, None] + column[None, :]).astype(dtype, copy=False)
    full = np.broadcast_to(parts[0], shape)
    return lambda lo, hi, dtype: np.array(full[lo:hi], dtype=dtype)


#: :func:`_combination_factors` factors the Gram matrix of the centred landmarks by its
#: eigendecomposition when its smallest kept eigenvalue (the smallest squared singular value of
#: the landmarks) is at least this share of the largest: an eigenvalue is then exact to a
#: relative ~n eps / 1e-6 (~2e-7 at 1,000 landmarks, ~2e-10 for CLEMS's landmarks at M = L on
#: delicious, whose condition number is ~32), where the SVD would be exact to ~1e-13. Less well
#: conditioned landmarks are factored by the SVD as before.
GRAM_EIGH_MIN_RATIO = 1e-6


def _combination_factors(
    centred: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(G, G^+, N)`` for carrying points as combinations of full-rank centred landmarks.

    G = Y_c Y_c^T is the landmarks' Gram matrix, ``G^+ = U S^-2 U^T`` its pseudo-inverse (the
    triangulation's coefficients are ``rhs G^+``) and N an orthonormal basis of its null
    space (``n_landmarks - M`` columns), all from one symmetric eigendecomposition of G.
    Why not the SVD of Y_c: ``scipy.linalg.eigh`` of the 1,000 x 1,000 Gram matrix takes
    ~0.2 s on one core where the SVD of the 1,000 x 983 landmarks and the complete QR for N
    took ~0.57 s (CLEMS at M = L on delicious's shape, issue 33). Returns None when the
    landmarks do not have rank M (then no combination path) or are too ill-conditioned for
    the eigenvalues to be exact enough (:data:`GRAM_EIGH_MIN_RATIO`; the caller then uses
    the SVD).
    """
    n_landmarks, n_dims = centred.shape
    if n_dims >= n_landmarks:  # centred landmarks have rank <= n_landmarks - 1 < M
        return None
    gram = centred @ centred.T
    values, vectors = scipy.linalg.eigh(gram)  # ascending
    top = float(values[-1])
    kept = values[n_landmarks - n_dims :]  # the M largest: S^2 of the M singular values
    if not top > 0 or kept[0] < GRAM_EIGH_MIN_RATIO * top:
        return None
    left = vectors[:, n_landmarks - n_dims :]
    return gram, (left / kept) @ left.T, vectors[:, : n_landmarks - n_dims]


def _triangulate(
    hull: np.ndarray,
    delta: np.ndarray,
    singular: np.ndarray,
    vt: np.ndarray,
    centred: np.ndarray,
) -> np.ndarray:
    """Least-squares position from squared dissimilarities, in hull coordinates."""
    # centred = U S Vt, so in hull coordinates (centred @ Vt.T = U S) the pseudo-inverse is
    # S^-1 U^T = (U S)^T / S^2: z = rhs @ hull / S^2.
    if singular.size == 0:
        return np.zeros((delta.shape[0], 0))
    return (_triangulation_rhs(delta, centred) @ hull) / singular**2


def _triangulation_rhs(delta: np.ndarray, centred: np.ndarray) -> np.ndarray:
    """``-1/2 (δ² - mean δ² - (|y|² - mean |y|²))`` per point, the right-hand side of the
    least-squares triangulation (see out_of_sample_smacof, Start)."""
    squared_norms = np.einsum("ij,ij->i", centred, centred)
    rhs = delta**2
    rhs -= rhs.mean(axis=1, keepdims=True)
    rhs *= -0.5
    rhs += 0.5 * (squared_norms - squared_norms.mean())[None, :]
    return rhs


def _place_chunk(
    points: np.ndarray,
    delta: np.ndarray,
    w: np.ndarray,
    start: np.ndarray,
    max_iter: int,
    tol: float,
    relaxation: float,
    gram: np.ndarray | None = None,
    start_inner: np.ndarray | None = None,
    cancellation: float = OOS_CANCELLATION["float64"],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-point majorisation for one chunk, every active point of it in each matrix product.

    Per update this costs two products of the active points with the landmarks: the Guttman
    step ``Γ`` (``ratio @ points``) and its inner products with the landmarks (``Γ @
    points.T``), from which the distances of both the plain and the relaxed step follow (the
    relaxed step's inner products are ``(1 + r) Γ·y - r z·y``, linear in those already
    known). Recomputing the distances of each step from scratch took three products and was
    two thirds of CLEMS' placement time on the delicious shape (``docs/CLEMS.md``).

    With ``gram`` (``points @ points.T``), ``start`` and the returned rows are coefficients
    ``a`` of the points ``z = a @ points``. The Guttman step of a combination is the
    combination ``(w - r + (Σ r) a) / Σ w`` (no product), and its inner products with the
    landmarks are ``((w - r) @ gram + (Σ r) a @ gram) / Σ w``: one product with the
    n_landmarks x n_landmarks Gram matrix per update, in place of the two with the M columns
    of the landmarks. ``|z|²`` is ``a · (a @ gram)`` and the stopping rule's ``|Γ - z|²``
    comes from the same inner products. Only the distances whose subtraction cancels (a
    point next to a landmark) need ``z`` itself. ``start_inner``, when given, is ``start @
    gram`` (or ``start @ points.T``) computed by the caller. The updates run in the
    inputs' precision (``delta``'s dtype), with distances cancelling below ``cancellation``
    (:func:`_distances_from_inner`) computed directly.
    """
    weight_sum = w.sum(axis=1)
    if np.any(weight_sum <= 0):
        i = int(np.flatnonzero(weight_sum <= 0)[0])
        raise ValueError(
            f"out_of_sample_smacof: point {i} of a chunk has no positive weight to any "
            "landmark, so its position is undetermined."
        )
    weighted_delta = w * delta
    scale = np.einsum("ij,ij->i", weighted_delta, delta)  # Σ_j w δ²: stress at zero distances
    if gram is None:
        landmark_norms = np.einsum("ij,ij->i", points, points)
    else:
        landmark_norms = np.diagonal(gram).copy()
    work = _Work(*delta.shape, dtype=delta.dtype)
    unit = bool(np.all(w == 1.0))  # multiplying by 1.0 is exact, so it is skipped

    def distances(z: np.ndarray, inner: np.ndarray) -> np.ndarray:
        # inner = z @ points.T (coefficients: a @ gram), kept; the distances in a new array
        if gram is None:
            norms, rows = np.einsum("ij,ij->i", z, z), z
        else:
            norms, rows = np.einsum("ij,ij->i", z, inner), _Combinations(z, points)
        return _distances_from_inner(
            inner, norms, landmark_norms, rows, points, work, cancellation, np.empty_like(inner)
        )

    def stress_of(dist: np.ndarray) -> np.ndarray:
        residual = np.subtract(active_delta, dist, out=work.residual[: len(dist)])
        residual *= residual
        if not unit:
            residual *= active_w
        return residual.sum(axis=1)

    # The active points' rows of every per-point array, compressed only when points stop
    # (indexing them by the active rows at every use copied each one several times an update).
    active_delta, active_w, active_wdelta = delta, w, weighted_delta
    active_wsum, active_scale = weight_sum[:, None], scale
    z = start.copy()
    active = np.arange(len(z))
    inner = z @ (points.T if gram is None else gram) if start_inner is None else start_inner
    dist = distances(z, inner)
    stress = stress_of(dist)
    n_iter = np.zeros(len(z), dtype=np.intp)
    current = z.copy()  # the active points; z keeps the results

    def keep(going: np.ndarray) -> None:
        nonlocal active, current, dist, inner, active_delta, active_w, active_wdelta
        nonlocal active_wsum, active_scale
        if going.all():
            return
        active, current, dist, inner = active[going], current[going], dist[going], inner[going]
        active_delta, active_w = active_delta[going], active_w[going]
        active_wdelta, active_wsum = active_wdelta[going], active_wsum[going]
        active_scale = active_scale[going]

    keep(stress > 1e-14 * scale)
    for _ in range(max_iter):
        if active.size == 0:
            break
        with np.errstate(divide="ignore", invalid="ignore"):  # d = 0 is set right below
            ratio = np.divide(active_wdelta, dist, out=work.ratio[: active.size])
        zero = np.equal(dist, 0.0, out=work.flags[: active.size])
        if zero.any():  # a point on a landmark: that term is y_j itself (SMACOF's convention)
            ratio[zero] = 0.0
        # Γ = (Σ_j (w_aj - r_aj) y_j + (Σ_j r_aj) z) / Σ_j w_aj: one product with the
        # landmarks (Σ_j w_aj y_j on its own was a second one, as large)
        ratio_sum = ratio.sum(axis=1, keepdims=True)
        np.subtract(active_w, ratio, out=ratio)
        if gram is None:
            guttman = ratio @ points
            guttman += ratio_sum * current
            guttman /= active_wsum
            plain_inner = guttman @ points.T
        else:
            plain_inner = ratio @ gram
            plain_inner += ratio_sum * inner
            plain_inner /= active_wsum
            guttman = ratio  # the coefficients of Γ, in the work array: used up this update
            guttman += ratio_sum * current
            guttman /= active_wsum
        step = guttman - current
        inner_step = plain_inner - inner if relaxation or gram is not None else None
        # |Γ - z|²; of combinations, from their inner products with the landmarks
        step_image = step if gram is None else inner_step
        if relaxation:
            candidate = guttman + relaxation * step
            candidate_inner = plain_inner + relaxation * inner_step
            new_dist = distances(candidate, candidate_inner)
            new_stress = stress_of(new_dist)
            # The majorisation guarantee holds for the plain Guttman step only, and a relaxed
            # step that lowers the stress less than the plain one can lead into a worse basin
            # (measured on rank-loss placements), so each point keeps the better of the two.
            plain_dist = distances(guttman, plain_inner)
            plain_stress = stress_of(plain_dist)
            better = plain_stress <= new_stress
            candidate[better] = guttman[better]
            candidate_inner[better] = plain_inner[better]
            new_stress[better], new_dist[better] = plain_stress[better], plain_dist[better]
        else:
            candidate, candidate_inner = guttman.copy(), plain_inner
            new_dist = distances(candidate, candidate_inner)
            new_stress = stress_of(new_dist)
        # Stationarity, not the realised decrease: the plain Guttman step is the gradient step
        # Γ - z = -∇σ(z) / (2 Σw) and lowers σ by at least Σw |Γ - z|² (majorisation), so a
        # point stops once that guaranteed decrease is below tol * Σ w δ². A relaxed step's
        # own decrease can be small while the point is still far from stationary (it
        # overshoots), which stopped rank-loss placements early at 1.7x the stress.
        guaranteed = active_wsum[:, 0] * np.einsum("ij,ij->i", step, step_image)
        z[active], stress[active] = candidate, new_stress
        n_iter[active] += 1
        current, dist, inner = candidate, new_dist, candidate_inner
        keep((guaranteed >= tol * active_scale) & (new_stress > 1e-14 * active_scale))
    return z, stress, n_iter
