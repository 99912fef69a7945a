"""CLEMS: cost-sensitive label embedding with multidimensional scaling (Huang & Lin).

Paper: ``../shared/papers/002_a9fa9cac89b97038.txt`` (§3, Algorithms 1-2). The label vectors
seen in training (the candidate set S, §3.4) are embedded by weighted MDS so that Euclidean
distances approximate the cost ``c(truth, prediction)`` (Eq. 1, Eq. 2); a regressor maps
features to the embedding and a test point is decoded to the candidate whose embedded point is
nearest.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import pandas as pd
import scipy.sparse as sp
from joblib import effective_n_jobs
from scipy.spatial.distance import cdist
from sklearn import config_context
from sklearn.base import clone
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from mlviz import costs as _costs
from mlviz._compat import HasMethods, Interval, StrOptions, _fit_context
from mlviz._parallel import N_JOBS_CONSTRAINT, map_blocks
from mlviz._validation import check_label_matrix
from mlviz.base import MultiLabelEstimator
from mlviz.linear import paper_ridge
from mlviz.mds import (
    OOS_CANCELLATION,
    AdditiveWeights,
    RowsOf,
    _AdditiveSolver,
    _BipartiteSolver,
    _distances_from_inner,
    _run_smacof,
    _Solver,
    _stress1_from,
    _UniformSolver,
    classical_mds,
    out_of_sample_smacof,
)
from mlviz.stats import unique_rows

__all__ = [
    "CLEMS",
    "CLEMSExplanation",
    "CandidateCosts",
    "DEFAULT_MAX_CANDIDATES",
    "EXACT_MAX_CANDIDATES",
    "AUTO_N_LANDMARKS",
    "AUTO_N_LANDMARKS_MIRRORED",
    "compute_candidate_costs",
    "decoded_label_frequencies",
]

CostFunction = Callable[[np.ndarray, np.ndarray], np.ndarray]

# decision_function and the dropped label sets' costs work on this many rows at a time.
_CHUNK_ROWS = 2048

#: Default cap on CLEMS' candidate label vectors: none, every distinct training label vector is
#: a candidate (paper §3.4); see ``CLEMS.max_candidates``.
DEFAULT_MAX_CANDIDATES = None

#: Stopping threshold of the out-of-sample placement of landmark CLEMS (see ``_place``).
PLACEMENT_TOL = 1e-4

#: Precision of the placement's updates (:func:`mlviz.mds.out_of_sample_smacof`'s ``dtype``).
#: float32 placed the delicious-shaped candidates (M = L, 1,000 landmarks) in 1.2-1.6 s
#: instead of 2.2-2.5 s, 8e-6 from the float64 positions (relative), with the same updates
#: and the same test accuracy, F1 and rank loss (docs/CLEMS.md, "The placement in float32";
#: ``python benchmarks/bench_placement.py --n-jobs 2 --dtype float32`` times it).
PLACEMENT_DTYPE = "float32"

#: With ``n_landmarks="auto"``, up to this many candidates are embedded by exact weighted
#: SMACOF (n x n matrices); above it, landmark CLEMS runs (see ``CLEMS.n_landmarks``).
EXACT_MAX_CANDIDATES = 2500

#: Landmarks used by ``n_landmarks="auto"`` above :data:`EXACT_MAX_CANDIDATES` candidates.
AUTO_N_LANDMARKS = 1000

#: The same for a named asymmetric cost (rank_loss). Mirrored, SMACOF embeds two points per
#: landmark and every candidate is placed twice (truth and prediction role); the placements
#: and SMACOF (88 % of the 1,000-landmark fit) grow with n_landmarks^2. Delicious-shaped fit
#: 40.2 s CPU at 1,000 landmarks, 22.7 s at 700, 13.4 s at 500 (goal: 30 s). Test rank loss on
#: three bibtex-shaped splits (docs/CLEMS.md): exact 63.9, 1,000 landmarks 60.6, 700 61.1,
#: 500 64.3 (half the landmarks, SMACOF's 1,000 points of the symmetric path, lost 6 %).
AUTO_N_LANDMARKS_MIRRORED = 700

# Landmarks chosen as the most frequent candidates; the rest by farthest-point sampling. On a
# bibtex-shaped set (1,000 landmarks, 2 splits; docs/CLEMS.md) a quarter gave test accuracy
# 0.588/0.584 (accuracy cost) against 0.568/0.563 for a half and 0.563/0.553 for all frequent,
# and test F1 0.702/0.687 against 0.703/0.689 (F1 cost).
_FREQUENT_LANDMARK_SHARE = 0.25
# Farthest-point sampling adds up to this many landmarks per cost evaluation over all candidates.
_FPS_BATCH = 64
# The whole-embedding stress of landmark CLEMS sums the pairs of this many sampled candidates
# with every candidate (all candidates when there are fewer).
_STRESS_SAMPLE = 1000
# Working memory (MB) of the nearest-neighbour decoding (scikit-learn's chunked kneighbors).
_DECODE_MEMORY_MB = 256


@dataclass(frozen=True, eq=False)
class CLEMSExplanation:
    """Why :class:`CLEMS` decoded one instance as it did (:meth:`CLEMS.explain`).

    Attributes
    ----------
    embedding : ndarray of float64, shape (n_components_,)
        The regressed point z̃.
    prediction : ndarray of uint8, shape (n_labels,)
        The decoded label vector: the candidate nearest to z̃.
    candidates : pandas.DataFrame, nearest first
        Columns ``candidate`` (index into ``candidates_``), ``labels`` (tuple of label
        indices), ``count`` (training frequency), ``distance`` (from z̃ to the candidate's
        prediction-role point: the embedding's estimate of the cost of predicting it) and
        ``cost_if_truth`` (the true cost c(truth=this candidate, prediction=decoded label
        vector): what the decision costs if this neighbour is the real answer).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz import CLEMS
    >>> X = np.array([[0.0], [0.1], [1.0], [1.1], [2.0], [2.1]])
    >>> Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [1, 1], [1, 1]])
    >>> why = CLEMS(n_components=2, random_state=0).fit(X, Y).explain(X[:1], n=3)
    >>> why.embedding.shape, why.prediction.shape, len(why.candidates)
    ((2,), (2,), 3)
    >>> # the decoded vector is the nearest candidate, the first row of the table
    >>> model_labels = [tuple(np.flatnonzero(why.prediction))]
    >>> list(why.candidates["labels"][:1]) == model_labels
    True
    >>> list(why.candidates.columns)
    ['candidate', 'labels', 'count', 'distance', 'cost_if_truth']
    """

    embedding: np.ndarray
    prediction: np.ndarray
    candidates: pd.DataFrame


class CLEMS(MultiLabelEstimator):
    """Cost-sensitive label embedding with weighted MDS and nearest-neighbour decoding.

    Training (paper Algorithm 1): the distinct training label vectors are the candidates S
    (§3.4); their cost matrix ``C[i, j] = c(truth=s_i, prediction=s_j)`` gives the MDS
    dissimilarities Δ; weighted SMACOF (:func:`mlviz.weighted_smacof`) embeds them in
    ``n_components`` dimensions; a multi-output regressor learns, for each training row, the
    embedded point of its label vector. Prediction (Algorithm 2): regress ``z̃ = g(x)`` and
    return the candidate whose prediction-role point is nearest to ``z̃``.

    Two published variants are supported. **Defaults follow the authors' released code**
    (github.com/ej0cl6/csmlc, ``models/clems.py``), which produced the published figures:
    ``dissimilarity="sqrt"`` (Δ = sqrt(cost); for 0/1 vectors the squared Euclidean distance
    *is* the Hamming distance, so the Hamming cost embeds with zero stress) and
    ``weights="frequency"`` (each pair weighted by how often its truth-role label vector occurs
    in training, so frequent label sets are placed more accurately). The paper text's variant
    (Δ = cost, ``W_ij = 1`` off the diagonal; §3.2 and §3.3) is
    ``dissimilarity="cost", weights="uniform"``.

    **Symmetric costs** (f1, accuracy, hamming) embed the n candidates once (§3.2, Eq. 1); with
    frequency weights the pair weight is ``count_i + count_j``, which is exactly the authors'
    2n-object mirrored objective with the two roles of each candidate tied together. **Asymmetric
    costs** (rank_loss, or ``mirror=True``) use the mirroring trick (§3.3, Fig. 2, Eq. 2): 2n
    objects, the first n playing the truth role and the last n the prediction role, with Δ and
    W non-zero only between the two roles (``W[i, n + j] = count_i`` in the frequency variant).

    **Roles.** By construction ``d(u_i^(t), u_j^(p)) ≈ c(truth=y_i, prediction=y_j)``. The
    regressor learns the *truth-role* point of each training row's label vector, and decoding
    searches the *prediction-role* points, so it returns the candidate j minimising the
    estimated ``c(truth, y_j)`` — the cost-sensitive choice. The paper's §3.3 text states the
    opposite assignment (regress to ``u^(p)``, search ``U^(t)``), which would minimise
    ``c(y_j, truth)``, the cost with the roles swapped; the authors' code does it as here
    (targets from the first n MDS points, nearest neighbours among the last n), and
    ``tests/test_clems.py`` checks that the direction matters. For symmetric costs the two
    roles coincide and ``embedding_truth_`` is ``embedding_pred_``.

    **Initialisation.** SMACOF starts from classical MDS of Δ (for the mirrored problem, of
    ``(Δ + Δ^T)/2`` for both roles), which puts the two roles of each candidate at the same
    place, and runs once (``n_init=1``). The authors use 8 random starts, ``eps=1e-6`` and 300
    iterations. What was measured, on their scene demo (``python -m mlviz reproduce clems``,
    ``docs/CLEMS.md``): with the SMACOF stopping rule of :func:`mlviz.weighted_smacof` (relative
    decrease of the stress) and ``tol=1e-3``, one classical start gives Hamming loss, F1 and
    accuracy within ±0.01 of the authors' table (500-tree forests, 3 seeds: 0.0772, 0.7692,
    0.7677 against 0.0825, 0.7690, 0.7600) and a rank loss 0.031 lower (0.6242 against 0.6553;
    the authors' own recipe, 8 random starts, with the same forests gave 0.634). With the
    former rule (decrease compared with the all-zero configuration's stress, ``tol=1e-4``)
    SMACOF stopped after 1 update for F1 and the accuracy cost scored 0.735 against the
    authors' 0.760, and neither 8 random starts nor mirroring closed that gap (issue 22). From
    random starts the mirrored problem left the two roles misaligned after 300 iterations on a
    1,115-candidate synthetic set (only a third of the training rows decoded to their own label
    set), though not on scene's 14 candidates. ``init="random"`` with ``n_init=8`` and
    ``tol=1e-6`` is the authors' recipe.

    Parameters
    ----------
    n_components : int or None, default=None
        Embedding dimension M; None means L (the number of labels), which the paper finds
        sufficient (§4.1, Fig. 3). Unlike PLST, CLEMS also accepts M > L (§4.2).
    cost : {"f1", "accuracy", "hamming", "rank_loss"} or callable, default="f1"
        The cost to be sensitive to, computed by :func:`mlviz.cost_matrix` (1 − F1,
        1 − Jaccard accuracy, Hamming loss, the unnormalised hard rank loss). A callable
        ``cost(A, B)`` receives float 0/1 matrices and must return the matrix
        ``C[i, j] = c(truth=A[i], prediction=B[j])``: finite, non-negative, zero on the
        diagonal of ``cost(S, S)``.
    regressor : scikit-learn regressor or None, default=None
        Any multi-output regressor; cloned at fit. None means ridge regression with
        lambda = 1 (:func:`mlviz.linear.paper_ridge` with ``alpha=1.0``: a direct Cholesky
        solve, also on sparse X, the bias penalised like the other weights). Why ridge: it
        fits in milliseconds to a second, is deterministic and keeps the interactive app
        responsive; the paper's random forest (§4.1) is usually somewhat more accurate and
        10-50x slower — pass ``RandomForestRegressor(max_depth=...)`` to reproduce the paper
        (max depth tuned in {5, ..., 40} there). Why lambda = 1 and not PLST's 0.01: on 50/50
        splits (3 seeds) test F1 was 0.647 vs 0.631 on emotions, 0.796 vs 0.651 on medical and
        0.496 vs 0.374 on enron, where 0.01 over-fits the L-dimensional embedding. On sparse
        X it is ~4x faster than ``sklearn.linear_model.Ridge``, whose sparse-with-intercept
        path is iterative (same F1 to three decimals).
    dissimilarity : {"sqrt", "cost"}, default="sqrt"
        Δ = sqrt(cost) (authors' code) or Δ = cost (paper text).
    weights : {"frequency", "uniform"}, default="frequency"
        Pair weights: training frequency of the truth-role label vector (authors' code) or
        uniform (paper text).
    mirror : {"auto", True, False}, default="auto"
        Use the 2n-object mirroring trick. "auto" mirrors exactly when the cost matrix of the
        candidates is asymmetric; False with an asymmetric cost raises ValueError.
    max_candidates : int or None, default=None
        None (the default, the paper's §3.4) keeps every distinct training label vector as a
        candidate. An int keeps at most this many, the most frequent (ties by lexicographic
        order of the label vector); rows whose label vector was dropped are regressed to the
        truth-role point of the kept candidate with the lowest cost for them. A cap is never
        silent: a warning says how many were dropped, and the fitted ``n_label_sets_``,
        ``n_dropped_candidates_`` and ``dropped_share_`` let a view show it. Large candidate
        sets need no cap: ``n_landmarks`` bounds the work.
    n_landmarks : int, "auto" or None, default="auto"
        How the n candidates are embedded. **Exact** (the paper): weighted SMACOF on all n
        candidates, with n x n cost, dissimilarity and weight matrices. **Landmark CLEMS** (this
        project's scalable approximation, not in the paper): weighted SMACOF, exactly as on the
        exact path (same Δ, weights, mirroring and start), on ``n_landmarks`` landmark
        candidates -- the most frequent quarter, the rest by farthest-point sampling in cost
        space -- then every other candidate placed against the fixed landmark points by
        minimising its own weighted stress to them (:func:`mlviz.mds.out_of_sample_smacof`,
        same pair weights as in the full problem); only n x n_landmarks costs are computed and
        decoding searches all n candidates. An int runs landmark CLEMS with that many landmarks
        when n exceeds it (exact otherwise); None always runs the exact path (O(n^2) memory);
        "auto" is exact up to :data:`EXACT_MAX_CANDIDATES` (2,500) candidates and landmark CLEMS
        with :data:`AUTO_N_LANDMARKS` (1,000) landmarks above, or
        :data:`AUTO_N_LANDMARKS_MIRRORED` (700) for the mirrored rank loss (2 SMACOF points and
        2 placements per candidate: 1,000 landmarks took 40 s CPU on the delicious shape, 700
        take 23 s, and on bibtex-shaped splits 700 landmarks gave test rank loss 61.1 against
        60.6 at 1,000 and 63.9 exact; docs/CLEMS.md). Measured
        (``benchmarks/bench_clems_scale.py``, ``docs/CLEMS.md`` "At scale", 3 random 70/30
        splits of a bibtex-shaped set, ~2,260 candidates, M = L = 159, ridge): with 1,000
        landmarks the test F1 of the F1-cost model was 0.698 against 0.699 exact and the test
        accuracy of the accuracy-cost model 0.566 against 0.575; whole-embedding stress-1
        0.0053 vs 0.0031 (F1) and 0.031 vs 0.016 (accuracy), fit 3-4 s CPU against 15-29 s
        for the converged exact SMACOF. On a 580-candidate set with a quarter of them as
        landmarks the test rank loss was 0.98-1.00x the exact one (``tests/test_clems.py``).
        The approximation is worse at small M, where the placed candidates fit their distances
        to the landmarks but not to each other: on 2,400
        delicious-shaped candidates (500 landmarks) whole-embedding stress-1 was 1.93 against 0.44
        exact at M = 2 and 0.13 against 0.10 at M = 20. Why 2,500: the exact path on the
        delicious-shaped set (M = L = 983, one BLAS thread) took 5.4 s CPU and 0.9 GB peak at 2,500
        candidates, 7.3 s and 1.1 GB at 3,000, 15 s and 1.5 GB at 4,000 (n x n matrices, ~14 GB at
        16,000), while landmark CLEMS fitted all 16,105 candidates of that set in 11.5 s CPU and 1.3
        GB peak (``docs/BENCHMARKS.md``); 2,500 keeps bibtex-sized candidate sets exact. Each placed
        point stops when its Guttman step can gain less than :data:`PLACEMENT_TOL` of its
        weighted sum of squared dissimilarities, or after ``max_iter`` updates. The placement's
        updates run in float32 (:data:`PLACEMENT_DTYPE`; SMACOF on the landmarks, the costs,
        the regression and the decoding stay float64): the placed points lie ~1e-7 to 1e-5
        (relative) from a float64 placement's, with the same predictions and stress-1.
    init : {"classical", "random"}, default="classical"
        Start of the first SMACOF run (see Initialisation above).
    n_init : int, default=1
        Number of SMACOF runs (the first from ``init``, the others from random points); the
        lowest-stress embedding is kept.
    max_iter : int, default=300
        Maximum SMACOF iterations per run.
    tol : float, default=1e-3
        SMACOF stops after the first update that lowers the weighted raw stress by less than
        ``tol`` times the stress before it, or when the stress is negligible (see
        :func:`mlviz.weighted_smacof`). Why 1e-3 and not that function's 1e-6: on the authors'
        scene demo (3 forest seeds, 100-tree forests) 1e-3, 1e-4 and 1e-6 scored the same
        within the forests' noise and none worse than the authors' table by more than 0.01,
        with 28-58, 39-84 and 61-135 updates (``docs/CLEMS.md``); larger problems
        converge slowly, and 1e-4 ran into the 300-update cap on yeast and enron (F1 cost),
        where 1e-3 needed 95 and 156 updates and its test cost differed from 1e-4's by
        < 0.0005 (ridge regressor). Embedding CPU seconds (one BLAS thread, busy machine),
        former rule -> 1e-3: enron F1 (545 candidates) 0.04 -> 0.57 s, tmc2007-500 F1
        (1,000) 0.20 -> 1.4 s; the delicious shape (1,000 candidates, M = 983) starts at a
        negligible stress and stops at once (0.4 -> 0.5 s).
    random_state : int, RandomState instance or None, default=None
        Seeds the SMACOF random starts and jitter. The regressor keeps its own random_state.
    n_jobs : int, optional
        Threads for the landmark path's placement and whole-embedding stress, block by block
        of candidates (joblib's convention: None is 1, -1 every core; BLAS runs one thread per
        product meanwhile, :func:`mlviz._parallel.map_blocks`). The fit is the same for every
        value. With more than one, the whole stress is computed on other threads while the
        regressor is fitted (they do not depend on each other); the regressor is fitted in
        the caller's thread and keeps its own ``n_jobs``.

    Attributes
    ----------
    candidates_ : ndarray of uint8, shape (n_candidates, n_labels)
        The candidate label vectors, most frequent first.
    candidate_counts_ : ndarray of int, shape (n_candidates,)
        How many training rows have exactly each candidate as label vector.
    embedding_method_ : {"exact", "landmark"}
        Which path ran (see ``n_landmarks``).
    landmark_indices_ : ndarray of intp, shape (n_landmarks_,)
        Candidates embedded by weighted SMACOF (indices into ``candidates_``): all of them on
        the exact path; the landmarks, in the order chosen, on the landmark path.
    n_landmarks_ : int
        ``len(landmark_indices_)``; equal to ``len(candidates_)`` on the exact path.
    cost_matrix_ : ndarray of shape (n_landmarks_, n_landmarks_)
        ``cost_matrix_[i, j] = c(truth=candidates_[l_i], prediction=candidates_[l_j])`` with
        ``l = landmark_indices_``: every pair of candidates on the exact path, the landmarks'
        pairs on the landmark path (the n x n matrix is never formed there).
    mirrored_ : bool
        Whether the mirroring trick (2n objects) was used.
    embedding_truth_ : ndarray of shape (n_candidates, n_components)
        Truth-role points (regression targets).
    embedding_pred_ : ndarray of shape (n_candidates, n_components)
        Prediction-role points (decoding targets); the same array as ``embedding_truth_``
        when ``mirrored_`` is False.
    stress_ : float
        Weighted raw stress of the whole embedding, all candidates (Δ and weights as
        configured). It grows with the number of pairs and the size of the costs, so it has no
        scale of its own. On the landmark path with more than 1,000 candidates it is estimated
        from the pairs of ``stress_sample_size_`` randomly drawn candidates with every
        candidate, scaled to all pairs (an unbiased estimate; exact otherwise).
    stress1_ : float
        Kruskal's stress-1 of the same embedding and pairs, ``sqrt(stress_ / Σ_{i<j} W_ij
        d_ij²)`` (:func:`mlviz.mds.kruskal_stress1`): 0 is a perfect embedding; by Kruskal's
        rule of thumb 0.2 is poor, 0.1 fair, 0.05 good, 0.025 excellent.
    stress_sample_size_ : int
        Candidates whose pairs with every candidate entered ``stress_`` (all of them unless
        the landmark path sampled).
    landmark_stress1_ : float
        Stress-1 of the SMACOF embedding of the landmarks alone (``stress1_`` on the exact
        path).
    n_placement_unconverged_ : int
        Landmark path: candidates whose out-of-sample placement stopped at ``max_iter``
        updates without meeting ``tol`` (a warning says so); 0 on the exact path.
    stress_history_ : ndarray
        Stress at the start and after every SMACOF iteration of the kept run (of the landmarks
        on the landmark path).
    n_iter_ : int
        SMACOF iterations of the kept run (0 with a single candidate: nothing to scale).
    n_components_ : int
        The embedding dimension used.
    n_label_sets_ : int
        Distinct training label vectors (before the cap).
    n_dropped_candidates_ : int
        Distinct training label vectors left out by ``max_candidates``.
    dropped_share_ : float
        Share of the training rows whose label vector was left out (0 when none was).
    regressor_ : regressor
        The fitted regressor from X to the truth-role embedding.
    n_features_in_, n_labels_ : int
        Input and label dimensions seen at fit.

    Notes
    -----
    X is handed to the regressor in its own dtype when float32 (the default ridge then
    solves in float32); the embedding is computed from the labels alone, in float64.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.clems import CLEMS
    >>> model = CLEMS(n_components=3, random_state=0).fit(X, Y)
    >>> model.embedding_truth_.shape[1], model.predict(X[:3]).shape
    (3, (3, 22))
    >>> candidates = {tuple(row) for row in model.candidates_.tolist()}
    >>> all(tuple(row) in candidates for row in model.predict(X).tolist())  # decoded to one
    True
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "cost": [StrOptions(set(_costs.COSTS)), callable],
        "regressor": [HasMethods(["fit", "predict"]), None],
        "dissimilarity": [StrOptions({"sqrt", "cost"})],
        "weights": [StrOptions({"frequency", "uniform"})],
        "mirror": [StrOptions({"auto"}), "boolean"],
        "max_candidates": [Interval(Integral, 1, None, closed="left"), None],
        "n_landmarks": [Interval(Integral, 2, None, closed="left"), StrOptions({"auto"}), None],
        "init": [StrOptions({"classical", "random"})],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(
        self,
        n_components: int | None = None,
        cost: str | CostFunction = "f1",
        *,
        regressor=None,
        dissimilarity: str = "sqrt",
        weights: str = "frequency",
        mirror: str | bool = "auto",
        max_candidates: int | None = DEFAULT_MAX_CANDIDATES,
        n_landmarks: int | str | None = "auto",
        init: str = "classical",
        n_init: int = 1,
        max_iter: int = 300,
        tol: float = 1e-3,
        random_state=None,
        n_jobs: int | None = None,
    ):
        self.n_components = n_components
        self.cost = cost
        self.regressor = regressor
        self.dissimilarity = dissimilarity
        self.weights = weights
        self.mirror = mirror
        self.max_candidates = max_candidates
        self.n_landmarks = n_landmarks
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ fit
    @_fit_context(prefer_skip_nested_validation=False)  # the regressor is validated too
    def fit(self, X, y, *, candidate_costs: CandidateCosts | None = None) -> CLEMS:
        """Embed the training label vectors and fit the regressor (paper Algorithm 1).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_labels)
            0/1 label matrix (1-D: a single label).
        candidate_costs : CandidateCosts, optional
            The candidates and their costs from :func:`compute_candidate_costs` for this y,
            ``cost``, ``max_candidates`` and ``n_landmarks``, to be reused instead of
            recomputed: they do not depend on M, the regressor or the MDS settings, so a view
            that refits with another M or regressor computes them once (and may cache them). A
            ValueError says so if they were computed for other labels or other settings.

        Returns
        -------
        self : CLEMS
        """
        X, Y = self._validate_fit(X, y)
        n_components = self.n_labels_ if self.n_components is None else int(self.n_components)
        rng = check_random_state(self.random_state)

        labels = Y.astype(np.uint8)
        if candidate_costs is None:
            candidate_costs = _candidate_costs(
                labels, self.cost, self.max_candidates, self.n_landmarks
            )
        else:
            candidate_costs.check_matches(
                labels, self.cost, self.max_candidates, n_landmarks=self.n_landmarks
            )
        prepared = candidate_costs
        candidates = prepared.candidates
        candidate_counts = prepared.candidate_counts
        cost_cc = prepared.cost_matrix
        n_dropped = prepared.n_label_sets - len(candidates)
        if n_dropped:
            warnings.warn(
                f"CLEMS kept the {len(candidates)} most frequent of {prepared.n_label_sets} "
                f"distinct training label vectors (max_candidates={self.max_candidates}); the "
                f"{n_dropped} dropped ones cover {prepared.dropped_share:.1%} of the training "
                "rows, which are regressed towards their lowest-cost kept candidate. Raise "
                "max_candidates (None keeps all) to keep more.",
                UserWarning,
                stacklevel=3,  # user -> _fit_context wrapper -> fit
            )

        if self.mirror == "auto":
            mirrored = not prepared.symmetric
        elif not self.mirror and not prepared.symmetric:
            i, j = np.unravel_index(np.argmax(np.abs(cost_cc - cost_cc.T)), cost_cc.shape)
            raise ValueError(
                f"mirror=False needs a symmetric cost, but c(truth=s_{i}, prediction=s_{j}) = "
                f"{cost_cc[i, j]:.4g} differs from c(truth=s_{j}, prediction=s_{i}) = "
                f"{cost_cc[j, i]:.4g}. Use mirror='auto' or True for asymmetric costs."
            )
        else:
            mirrored = bool(self.mirror)

        landmarks = prepared.landmark_indices
        delta = self._dissimilarity(cost_cc)
        counts = candidate_counts.astype(np.float64)
        pair_weight = counts if self.weights == "frequency" else np.ones(len(candidates))
        embedding, stress, stress1, history = self._embed(
            delta, pair_weight[landmarks], mirrored, n_components, rng
        )
        n_land = len(landmarks)
        truth_points = embedding[:n_land]
        pred_points = embedding[n_land:] if mirrored else truth_points
        self.landmark_stress1_ = stress1
        self.n_placement_unconverged_ = 0
        self.stress_sample_size_ = len(candidates)
        if prepared.uses_landmarks:
            truth_points, pred_points = self._place(
                prepared, truth_points, pred_points, pair_weight, mirrored
            )

        # Regression target of each training row: the truth-role point of its label vector, or
        # for dropped label vectors that of the kept candidate with the lowest cost for them.
        targets = truth_points[prepared.row_candidate]
        regressor = clone(paper_ridge(alpha=1.0) if self.regressor is None else self.regressor)
        if not prepared.uses_landmarks:
            self.regressor_ = regressor.fit(X, targets)
        elif (n_threads := effective_n_jobs(self.n_jobs)) > 1:
            # The whole stress and the regressor do not depend on each other: with more than
            # one thread the stress's blocks run on other threads while the regressor is
            # fitted here, on a core the blocks leave idle between them and while the last
            # one ends (delicious's shape, issue 33: the ridge took ~0.25 s on its own). The
            # regressor stays in the caller's thread, with the caller's scikit-learn config,
            # and its warnings are raised there (the app collects a fit's warnings per
            # thread). Same results as one after the other.
            with ThreadPoolExecutor(max_workers=1) as pool:
                whole = pool.submit(
                    self._whole_stress,
                    prepared,
                    truth_points,
                    pred_points,
                    pair_weight,
                    mirrored,
                    rng,
                    n_threads,
                )
                self.regressor_ = regressor.fit(X, targets)
                stress, stress1 = whole.result()
        else:
            stress, stress1 = self._whole_stress(
                prepared, truth_points, pred_points, pair_weight, mirrored, rng
            )
            self.regressor_ = regressor.fit(X, targets)
        self.decoder_ = NearestNeighbors(n_neighbors=1).fit(pred_points)

        self.candidates_ = candidates
        self.candidate_counts_ = candidate_counts
        self.embedding_method_ = "landmark" if prepared.uses_landmarks else "exact"
        self.landmark_indices_ = landmarks
        self.n_landmarks_ = n_land
        self.cost_matrix_ = cost_cc
        self.mirrored_ = mirrored
        self.embedding_truth_ = truth_points
        self.embedding_pred_ = pred_points
        self.stress_ = stress
        self.stress1_ = stress1
        self.stress_history_ = history
        self.n_iter_ = len(history) - 1
        self.n_components_ = n_components
        self.n_label_sets_ = prepared.n_label_sets
        self.n_dropped_candidates_ = n_dropped
        self.dropped_share_ = prepared.dropped_share
        return self

    def _embed(
        self,
        delta: np.ndarray,
        pair_weight: np.ndarray,
        mirrored: bool,
        n_components: int,
        rng: np.random.RandomState,
    ) -> tuple[np.ndarray, float, float, np.ndarray]:
        """Embedding, raw stress, Kruskal stress-1 and the raw stress per iteration."""
        n_cand = delta.shape[0]
        n_objects = 2 * n_cand if mirrored else n_cand
        if n_cand == 1:
            # A single candidate: every prediction is that label vector; nothing to scale.
            return np.zeros((n_objects, n_components)), 0.0, 0.0, np.zeros(1)
        solver: _Solver
        if mirrored:
            solver = _BipartiteSolver(delta, pair_weight, np.ones(n_cand))
        elif self.weights == "frequency":
            solver = _AdditiveSolver(delta, pair_weight)
        else:
            solver = _UniformSolver(delta, 1.0)
        start = None
        if self.init == "classical":
            start = classical_mds(0.5 * (delta + delta.T), n_components)
            # Directions with a non-positive eigenvalue come back as zero columns, which the
            # Guttman transform can never leave; a tiny jitter lets SMACOF use them.
            dead = ~np.any(start, axis=0)
            if dead.any():
                scale = 1e-3 * max(float(np.sqrt(np.mean(delta**2))), 1e-12)
                start[:, dead] = scale * rng.standard_normal((n_cand, int(dead.sum())))
            if mirrored:
                start = np.vstack([start, start])
        embedding, stress, history = _run_smacof(
            solver,
            n_components,
            init=start,
            n_init=self.n_init,
            max_iter=self.max_iter,
            tol=self.tol,
            random_state=rng,
            relaxation=0.9,
        )
        # Σ W d² of the final configuration, the denominator of stress-1, in O(n M).
        stress1 = _stress1_from(stress, solver.quadratic(embedding), "CLEMS")
        return embedding, stress, stress1, history

    def _dissimilarity(self, cost: np.ndarray) -> np.ndarray:
        """Δ from costs (the landmark placement takes its roots chunk by chunk, see _place)."""
        return np.sqrt(cost) if self.dissimilarity == "sqrt" else cost

    def _place(
        self,
        prepared: CandidateCosts,
        truth_landmarks: np.ndarray,
        pred_landmarks: np.ndarray,
        pair_weight: np.ndarray,
        mirrored: bool,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Landmark path: every other candidate placed against the fixed landmark points.

        The weights are those of the full problem restricted to (candidate, landmark) pairs:
        ``count_i + count_l`` (frequency) or 1 without mirroring; mirrored, the truth-role
        point of candidate i meets the landmarks' prediction-role points with weight
        ``W[i, n + l] = count_i`` (the same for every landmark, so it does not move the point)
        and its prediction-role point meets their truth-role points with ``W[l, n + i] =
        count_l``.
        """
        landmarks = prepared.landmark_indices
        n_cand = len(prepared.candidates)
        others = np.setdiff1d(np.arange(n_cand), landmarks, assume_unique=True)
        frequency = self.weights == "frequency"
        # The placement's own stopping rule (a point stops when its Guttman step can gain
        # less than PLACEMENT_TOL of its sum w delta^2, out_of_sample_smacof) is not SMACOF's
        # relative rule of ``tol``: measured with 1e-4 (docs/CLEMS.md, "At scale").
        options = {
            "max_iter": self.max_iter,
            "tol": PLACEMENT_TOL,
            "n_jobs": self.n_jobs,
            "dtype": PLACEMENT_DTYPE,
        }
        # rows of the costs, gathered (and their square roots taken) chunk by chunk by the
        # placement: never a second (placed x landmarks) matrix
        root = np.sqrt if self.dissimilarity == "sqrt" else None
        to_delta = RowsOf(prepared.cost_to_landmarks, others, root)
        if not mirrored:
            # count_i + count_l, formed chunk by chunk by the placement
            weights = None
            if frequency:
                weights = AdditiveWeights(pair_weight[others], pair_weight[landmarks])
            placed, _, n_iter = out_of_sample_smacof(
                truth_landmarks, to_delta, weights=weights, **options
            )
            truth = np.empty((n_cand, truth_landmarks.shape[1]))
            truth[landmarks], truth[others] = truth_landmarks, placed
            pred = truth
        else:
            from_delta = RowsOf(prepared.cost_from_landmarks, others, root)
            placed_truth, _, iter_truth = out_of_sample_smacof(
                pred_landmarks, to_delta, weights=None, **options
            )
            placed_pred, _, iter_pred = out_of_sample_smacof(
                truth_landmarks,
                from_delta,
                weights=pair_weight[None, landmarks] if frequency else None,
                **options,
            )
            n_iter = np.concatenate([iter_truth, iter_pred])
            truth = np.empty((n_cand, truth_landmarks.shape[1]))
            pred = np.empty_like(truth)
            truth[landmarks], truth[others] = truth_landmarks, placed_truth
            pred[landmarks], pred[others] = pred_landmarks, placed_pred
        self.n_placement_unconverged_ = int(np.sum(n_iter >= self.max_iter))
        if self.n_placement_unconverged_:
            warnings.warn(
                f"CLEMS (landmark path): the placement of {self.n_placement_unconverged_} of "
                f"{len(n_iter)} candidate points stopped at max_iter={self.max_iter} updates "
                f"before its stress decrease fell below tol={self.tol}; raise max_iter.",
                UserWarning,
                stacklevel=4,  # user -> _fit_context wrapper -> fit -> _place
            )
        return truth, pred

    def _whole_stress(
        self,
        prepared: CandidateCosts,
        truth: np.ndarray,
        pred: np.ndarray,
        pair_weight: np.ndarray,
        mirrored: bool,
        rng: np.random.RandomState,
        n_jobs: int | None = None,
    ) -> tuple[float, float]:
        """Raw stress and stress-1 over all candidate pairs, block by block of rows (on
        ``n_jobs`` threads, default CLEMS' own ``n_jobs``).

        With more than ``_STRESS_SAMPLE`` candidates, only the rows of that many randomly drawn
        candidates are summed and the sums scaled by n / sample: an unbiased estimate of the
        raw stress and of Σ W d² (stress-1 is their ratio), at O(sample x n) instead of n².
        The pairs and weights are those of the full problem: all ordered (truth i,
        prediction j) pairs with ``W = count_i`` (frequency) or 1 when mirrored, the unordered
        pairs with ``count_i + count_j`` or 1 otherwise.
        """
        n = len(prepared.candidates)
        rows = np.arange(n)
        if n > _STRESS_SAMPLE:
            rows = np.sort(rng.choice(n, _STRESS_SAMPLE, replace=False))
        self.stress_sample_size_ = len(rows)
        cost_of = _cost_function(self.cost)
        candidates = _cost_input(prepared.candidates, self.cost)
        frequency = self.weights == "frequency"
        # blocks of at most 2^22 pairs, as many as the smallest multiple of four that allows
        # (of 1,000 sampled rows at 12,078 candidates: 4 of 250 rather than 3 of 347, which
        # kept one of two threads idle for a third of the time); independent of n_jobs, so
        # the sums are the same for every n_jobs
        most = max(1, min(_CHUNK_ROWS, (1 << 22) // n))
        n_blocks = -(-len(rows) // most)
        n_blocks = min(len(rows), -(-n_blocks // 4) * 4)
        step = -(-len(rows) // n_blocks)

        # A sampled estimate takes its distances in float32: their rounding (~3e-7 of each
        # distance, with the direct computation where the subtraction cancels, as in the
        # placement) is far below the sampling error, and their matrix product was half of its
        # time at M = L on delicious's shape. The exact sum over all rows stays float64, and so
        # do the costs and every sum.
        low = "float32" if len(rows) < n else "float64"
        truth_low = truth.astype(low)
        pred_low = truth_low if pred is truth else pred.astype(low)
        truth_norms = np.einsum("ij,ij->i", truth_low, truth_low)
        pred_norms = np.einsum("ij,ij->i", pred_low, pred_low)
        weights = pair_weight if frequency else None

        def weighted_sum(values: np.ndarray, block: np.ndarray) -> float:
            """Σ w values over the block's pairs, without forming w: ``count_i + count_j``
            is the rows' sums weighted by count_i plus the columns' by count_j."""
            if weights is None:
                return float(values.sum(dtype=np.float64))
            total = weights[block] @ values.sum(axis=1, dtype=np.float64)
            if not mirrored:
                total += values.sum(axis=0, dtype=np.float64) @ weights
            return float(total)

        def block_sums(start: int) -> tuple[float, float]:
            block = rows[start : start + step]
            delta = self._dissimilarity(cost_of(candidates[block], candidates))
            first = truth_low[block]
            dist = _distances_from_inner(
                first @ pred_low.T,
                truth_norms[block],
                pred_norms,
                first,
                pred_low,
                cancellation=OOS_CANCELLATION[low],
            )
            # every (truth, prediction) pair is one pair of the 2n mirrored objects; without
            # mirroring, ordered pairs count each unordered pair twice
            half = 1.0 if mirrored else 0.5
            if not mirrored:
                dist[np.arange(len(block)), block] = 0.0  # the diagonal is no pair
            residual = np.subtract(delta, dist, out=delta)
            np.square(residual, out=residual)
            np.square(dist, out=dist)
            return half * weighted_sum(residual, block), half * weighted_sum(dist, block)

        # summed in the blocks' order, so the same for every n_jobs
        raw = scale = 0.0
        n_jobs = self.n_jobs if n_jobs is None else n_jobs
        for block_raw, block_scale in map_blocks(block_sums, range(0, len(rows), step), n_jobs):
            raw += block_raw
            scale += block_scale
        factor = n / len(rows)
        raw, scale = raw * factor, scale * factor
        return raw, _stress1_from(raw, scale, "CLEMS")

    # ------------------------------------------------------------------ predict
    def predict_embedding(self, X) -> np.ndarray:
        """The regressed embedding ``z̃ = g(x)`` of each row (Algorithm 2, step 2).

        Returns
        -------
        ndarray of float64, shape (n_samples, n_components_)
        """
        X = self._validate_predict(X)
        z = np.asarray(self.regressor_.predict(X), dtype=np.float64)
        return z.reshape(X.shape[0], self.n_components_)

    def predict(self, X) -> np.ndarray:
        """Decode to the candidate with the nearest prediction-role point (Algorithm 2).

        Returns
        -------
        ndarray of shape (n_samples, n_labels), in the dtype of the y passed to fit
        """
        chosen = self.predict_candidates(X)  # first: it raises NotFittedError when unfitted
        return self._format_labels(self.candidates_[chosen])

    def predict_candidates(self, X) -> np.ndarray:
        """Which candidate each row is decoded to: the nearest prediction-role point.

        :meth:`predict` returns ``candidates_[predict_candidates(X)]``.

        Returns
        -------
        ndarray of intp, shape (n_samples,)
            Row indices into ``candidates_``.
        """
        z = self.predict_embedding(X)
        # scikit-learn's brute-force search works through the distances in chunks of this
        # working memory, so decoding over many candidates stays bounded
        with config_context(working_memory=_DECODE_MEMORY_MB):
            nearest = self.decoder_.kneighbors(z, return_distance=False)
        return nearest[:, 0].astype(np.intp)

    def decision_function(self, X) -> np.ndarray:
        """Per-label scores consistent with the nearest-neighbour decoding.

        The paper defines no real-valued score; this one is our choice, made so that ranking
        metrics (ranking loss, AUC) can be computed for CLEMS. For label k it is
        ``d(z̃, nearest prediction-role point of a candidate without k) −
        d(z̃, nearest prediction-role point of a candidate with k)``, so the score is positive
        exactly when the decoded candidate contains k (``predict == score > 0`` up to exact
        distance ties). When no candidate lacks (or has) label k, the missing distance is
        replaced by the largest distance from z̃ to any candidate.

        Returns
        -------
        ndarray of float64, shape (n_samples, n_labels) (1-D when fitted on a 1-D y)
        """
        z = self.predict_embedding(X)
        has_label = self.candidates_.astype(bool)
        scores = np.empty((z.shape[0], self.n_labels_))
        # rows per block: at most 2**22 distances (32 MB) however many candidates there are
        step = max(1, min(_CHUNK_ROWS, (1 << 22) // len(self.candidates_)))
        for start in range(0, z.shape[0], step):
            dist = cdist(z[start : start + step], self.embedding_pred_)
            farthest = dist.max(axis=1)
            nearest = dist.argmin(axis=1)
            for k in range(self.n_labels_):
                with_k = _masked_min(dist, has_label[:, k], farthest)
                # the nearest candidate lacks k unless it is one of its few labels: only those
                # rows need the minimum over the (many) candidates without k
                without_k = dist[np.arange(len(dist)), nearest]
                rows = has_label[nearest, k]
                if rows.any():
                    without_k[rows] = _masked_min(dist[rows], ~has_label[:, k], farthest[rows])
                scores[start : start + step, k] = without_k - with_k
        return self._format_scores(scores)

    def explain(self, x_row, n: int = 5) -> CLEMSExplanation:
        """Why one row was decoded as it was: its regressed point and the nearest candidates.

        Parameters
        ----------
        x_row : array-like of shape (n_features,) or (1, n_features)
        n : int, default=5
            How many nearest candidates to list.

        Returns
        -------
        CLEMSExplanation
            The regressed point, the decoded label vector and the nearest candidates (a
            frozen dataclass, like :class:`mlviz.mlknn.MLkNNExplanation`).
        """
        check_is_fitted(self)
        if not isinstance(n, Integral) or isinstance(n, bool) or n < 1:
            raise ValueError(f"n must be a positive integer; got {n!r}.")
        row = x_row if sp.issparse(x_row) else np.asarray(x_row)
        if row.ndim == 1:
            row = row.reshape(1, -1)
        if row.shape[0] != 1:
            raise ValueError(f"explain takes one row; got {row.shape[0]} rows.")
        z = self.predict_embedding(row)[0]
        dist = np.linalg.norm(self.embedding_pred_ - z, axis=1)
        nearest = np.argsort(dist, kind="stable")[: min(n, len(dist))]
        decoded = int(nearest[0])
        table = pd.DataFrame(
            {
                "candidate": nearest,
                "labels": [tuple(np.flatnonzero(self.candidates_[i]).tolist()) for i in nearest],
                "count": self.candidate_counts_[nearest],
                "distance": dist[nearest],
                # from the cost itself: cost_matrix_ holds only the landmarks' pairs at scale
                "cost_if_truth": _cost_function(self.cost)(
                    self.candidates_[nearest].astype(np.float64),
                    self.candidates_[[decoded]].astype(np.float64),
                )[:, 0],
            }
        )
        return CLEMSExplanation(
            embedding=z, prediction=self.candidates_[decoded].copy(), candidates=table
        )

    # ------------------------------------------------------------------ helpers


@dataclass(frozen=True, eq=False)
class CandidateCosts:
    """The part of a CLEMS fit that depends only on the training labels, the cost, the cap and
    the number of landmarks.

    Made by :func:`compute_candidate_costs`; pass it to :meth:`CLEMS.fit` to reuse it across
    changes of M, the regressor or the MDS settings (the costs between candidates, the choice
    of landmarks and the lowest-cost candidate of every dropped label set are the expensive part
    to recompute).

    Attributes
    ----------
    candidates : ndarray of uint8, shape (n_candidates, n_labels)
        The kept label vectors, most frequent first (ties: lexicographic order).
    candidate_counts : ndarray of int, shape (n_candidates,)
    landmark_indices : ndarray of intp, shape (n_landmarks,)
        Candidates embedded by weighted SMACOF: all of them (``arange(n_candidates)``) on the
        exact path, else the landmarks (see ``CLEMS.n_landmarks``), in the order chosen.
    cost_matrix : ndarray of float64, shape (n_landmarks, n_landmarks)
        ``c(truth=candidates[l_i], prediction=candidates[l_j])`` for the landmarks ``l``: every
        pair of candidates on the exact path.
    cost_to_landmarks, cost_from_landmarks : ndarray of shape (n_candidates, n_landmarks) or None
        Landmark path only: ``c(truth=candidates[i], prediction=candidates[l_j])`` and
        ``c(truth=candidates[l_j], prediction=candidates[i])`` (the same array when the cost is
        symmetric). None on the exact path.
    symmetric : bool
        Whether the cost is symmetric on the candidates (to 1e-12 relative; on the landmark
        path over the computed blocks, or by definition for the named costs).
    row_candidate : ndarray of intp, shape (n_samples,)
        For every training row, its candidate, or for a dropped label vector the kept candidate
        with the lowest cost for it (first one on ties).
    n_label_sets : int
        Distinct training label vectors before the cap.
    dropped_share : float
        Share of training rows whose label vector was dropped by the cap.
    labels_digest : str
        Fingerprint of the training label matrix these were computed from.
    cost, max_candidates, n_landmarks
        The settings used.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.clems import compute_candidate_costs
    >>> costs = compute_candidate_costs(np.array([[1, 0], [1, 0], [0, 1]]), cost="hamming")
    >>> costs.candidates.tolist(), costs.candidate_counts.tolist(), costs.symmetric
    ([[1, 0], [0, 1]], [2, 1], True)
    """

    candidates: np.ndarray
    candidate_counts: np.ndarray
    cost_matrix: np.ndarray
    symmetric: bool
    row_candidate: np.ndarray
    n_label_sets: int
    dropped_share: float
    labels_digest: str
    cost: str | CostFunction
    max_candidates: int | None
    landmark_indices: np.ndarray
    cost_to_landmarks: np.ndarray | None = None
    cost_from_landmarks: np.ndarray | None = None
    n_landmarks: int | str | None = "auto"

    @property
    def uses_landmarks(self) -> bool:
        """Whether landmark CLEMS runs (fewer landmarks than candidates)."""
        return len(self.landmark_indices) < len(self.candidates)

    def check_matches(self, labels: np.ndarray, cost, max_candidates, n_landmarks="auto") -> None:
        """Raise ValueError unless these were computed for these labels, cost, cap, landmarks."""
        if (
            cost != self.cost
            or max_candidates != self.max_candidates
            or n_landmarks != self.n_landmarks
        ):
            raise ValueError(
                f"candidate_costs were computed for cost={self.cost!r}, max_candidates="
                f"{self.max_candidates!r}, n_landmarks={self.n_landmarks!r}, but this CLEMS has "
                f"cost={cost!r}, max_candidates={max_candidates!r}, n_landmarks={n_landmarks!r}; "
                "compute them again with these settings."
            )
        if _labels_digest(labels) != self.labels_digest:
            raise ValueError(
                "candidate_costs were computed for other training labels than the Y passed to "
                "fit; compute them again from this Y."
            )


def _labels_digest(labels: np.ndarray) -> str:
    packed = np.packbits(np.ascontiguousarray(labels, dtype=np.uint8), axis=1)
    digest = hashlib.blake2b(packed.tobytes(), digest_size=16)
    digest.update(repr(labels.shape).encode())
    return digest.hexdigest()


def _cost_function(cost) -> CostFunction:
    if callable(cost):
        return lambda truth, prediction: np.asarray(cost(truth, prediction), dtype=np.float64)
    return lambda truth, prediction: _candidate_cost_matrix(truth, prediction, cost)


def _candidate_cost_matrix(truth, prediction, cost: str) -> np.ndarray:
    """:func:`mlviz.costs.cost_matrix` for CLEMS' own 0/1 float candidate matrices.

    The same formulas (``_cost_from_counts``) without re-validating the label matrices on every
    block (most of the time of a 16,000 x 64 block), and the counts ``|a ∧ b|`` from a float32
    product, which is exact for counts below 2^24 and about twice as fast as float64. Sparse
    candidates (CSR, :func:`_cost_input`) enter the product as sparse x dense, the sparse
    operand on the left (both sparse: the smaller one is made dense).
    """
    if sp.issparse(truth) and sp.issparse(prediction):
        if truth.shape[0] >= prediction.shape[0]:
            prediction = prediction.toarray()
        else:
            truth = truth.toarray()
    if sp.issparse(truth):
        counts = truth @ np.asarray(prediction, dtype=np.float32).T
    elif sp.issparse(prediction):
        counts = (prediction @ np.asarray(truth, dtype=np.float32).T).T
    else:
        truth = np.asarray(truth, dtype=np.float32)  # no copy for the float32 candidates
        prediction = np.asarray(prediction, dtype=np.float32)
        counts = truth @ prediction.T
    return _costs._cost_from_counts(
        cost,
        counts.astype(np.float64),
        _row_sums(truth)[:, None],
        _row_sums(prediction)[None, :],
        truth.shape[1],
    )


def _row_sums(labels) -> np.ndarray:
    """|a| of every row of a dense or CSR 0/1 matrix, as float64."""
    return np.asarray(labels.sum(axis=1, dtype=np.float64)).ravel()


#: Named costs get CSR candidates at up to this share of ones (a sparse x dense product).
#: A cost block of 12,000 candidates against 256 at L = 983 took 0.063 s instead of 0.13 s
#: dense at 2 % ones (delicious), 0.096 s instead of 0.13 s at 5 %; the two are level near
#: 10 % and dense wins above (0.7x at 20 %; yeast and emotions have ~30 %). The whole
#: candidate-cost stage on delicious's training rows: 1.04 -> 0.52 s.
#: ``benchmarks/bench_clems_costs.py`` measures both.
_SPARSE_CANDIDATE_DENSITY = 0.05


def _cost_input(candidates: np.ndarray, cost):
    """The candidates as the cost function takes them: float64 0/1 for a callable cost
    (documented), float32 for a named cost, CSR when at most ``_SPARSE_CANDIDATE_DENSITY`` of
    the entries are ones."""
    if callable(cost):
        return candidates.astype(np.float64)
    if np.count_nonzero(candidates) <= _SPARSE_CANDIDATE_DENSITY * candidates.size:
        return sp.csr_matrix(candidates, dtype=np.float32)
    return candidates.astype(np.float32)


def compute_candidate_costs(
    Y,
    cost: str | CostFunction = "f1",
    *,
    max_candidates: int | None = DEFAULT_MAX_CANDIDATES,
    n_landmarks: int | str | None = "auto",
) -> CandidateCosts:
    """Candidates (paper §3.4), their costs and each training row's candidate.

    Distinct label vectors are counted on packed bits (:func:`mlviz.stats.unique_rows`); the
    ``max_candidates`` most frequent are kept (all by default); the lowest-cost kept candidate
    of every dropped label vector is found block by block (never the whole dropped x kept
    matrix). On the exact path the n x n cost matrix of the candidates is computed; on the
    landmark path (``n_landmarks``) the landmarks are chosen and only the n x n_landmarks
    blocks of costs are computed, a batch of landmarks at a time.

    Parameters
    ----------
    Y : array-like of shape (n_samples, n_labels)
        0/1 training labels.
    cost : str or callable, default="f1"
        As :class:`CLEMS`' ``cost``.
    max_candidates : int or None, default=DEFAULT_MAX_CANDIDATES
        As :class:`CLEMS`' ``max_candidates``.
    n_landmarks : int, "auto" or None, default="auto"
        As :class:`CLEMS`' ``n_landmarks``.

    Returns
    -------
    CandidateCosts

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.clems import compute_candidate_costs
    >>> Y = np.array([[1, 0], [1, 0], [0, 1], [1, 1]])
    >>> costs = compute_candidate_costs(Y, cost="hamming")
    >>> costs.candidates.shape, costs.cost_matrix.shape
    ((3, 2), (3, 3))
    """
    if not (callable(cost) or cost in _costs.COSTS):
        raise ValueError(
            f"cost must be one of {', '.join(map(repr, _costs.COSTS))} or a callable "
            f"cost(truth, prediction) -> matrix; got {cost!r}."
        )
    if max_candidates is not None and (
        not isinstance(max_candidates, Integral)
        or isinstance(max_candidates, bool)
        or max_candidates < 1
    ):
        raise ValueError(f"max_candidates must be an integer >= 1 or None; got {max_candidates!r}.")
    if not (
        n_landmarks is None
        or n_landmarks == "auto"
        or (
            isinstance(n_landmarks, Integral)
            and not isinstance(n_landmarks, bool)
            and n_landmarks >= 2
        )
    ):
        raise ValueError(
            f"n_landmarks must be an integer >= 2, 'auto' or None; got {n_landmarks!r}."
        )
    return _candidate_costs(
        check_label_matrix(Y).astype(np.uint8), cost, max_candidates, n_landmarks
    )


def _landmark_count(n_candidates: int, n_landmarks, cost="f1") -> int:
    """How many candidates weighted SMACOF embeds; n_candidates means the exact path.

    ``"auto"`` above :data:`EXACT_MAX_CANDIDATES`: :data:`AUTO_N_LANDMARKS`, or
    :data:`AUTO_N_LANDMARKS_MIRRORED` for a named asymmetric cost (mirrored by
    ``mirror="auto"``; a callable cost's symmetry is known only from its values, so it keeps
    the larger number).
    """
    if n_landmarks is None:
        return n_candidates
    if n_landmarks == "auto":
        if n_candidates <= EXACT_MAX_CANDIDATES:
            return n_candidates
        mirrored = isinstance(cost, str) and not _costs.is_symmetric(cost)
        return AUTO_N_LANDMARKS_MIRRORED if mirrored else AUTO_N_LANDMARKS
    return min(int(n_landmarks), n_candidates)


def _candidate_costs(
    labels: np.ndarray, cost, max_candidates: int | None, n_landmarks="auto"
) -> CandidateCosts:
    cost_of = _cost_function(cost)
    distinct, counts, row_to_distinct = unique_rows(labels, return_inverse=True)
    # unique_rows sorts lexicographically; a stable sort on -count keeps that as tie-break.
    order = np.argsort(-counts, kind="stable")
    n_keep = len(order) if max_candidates is None else min(len(order), max_candidates)
    kept, dropped = order[:n_keep], order[n_keep:]
    candidates = distinct[kept]
    candidates_float = _cost_input(candidates, cost)
    n_land = _landmark_count(n_keep, n_landmarks, cost)
    cost_to = cost_from = None
    if n_land >= n_keep:
        landmarks = np.arange(n_keep)
        cost_cc = cost_of(candidates_float, candidates_float)
        _check_cost_matrix(cost_cc, cost)
        asymmetry = float(np.max(np.abs(cost_cc - cost_cc.T)))
        symmetric = asymmetry <= 1e-12 * max(float(cost_cc.max()), 1.0)
    else:
        landmarks, cost_to, cost_from, symmetric = _choose_landmarks(
            candidates_float, n_land, cost_of, cost
        )
        cost_cc = cost_to[landmarks]
        _check_cost_matrix(cost_cc, cost)
    distinct_to_candidate = np.empty(len(distinct), dtype=np.intp)
    distinct_to_candidate[kept] = np.arange(n_keep)
    for start in range(0, len(dropped), _CHUNK_ROWS):
        block = dropped[start : start + _CHUNK_ROWS]
        block_cost = cost_of(distinct[block].astype(np.float64), candidates_float)
        distinct_to_candidate[block] = np.argmin(block_cost, axis=1)
    return CandidateCosts(
        candidates=candidates,
        candidate_counts=counts[kept],
        cost_matrix=cost_cc,
        symmetric=symmetric,
        row_candidate=distinct_to_candidate[row_to_distinct],
        n_label_sets=len(distinct),
        dropped_share=float(counts[dropped].sum() / max(1, labels.shape[0])),
        labels_digest=_labels_digest(labels),
        cost=cost,
        max_candidates=max_candidates,
        landmark_indices=landmarks,
        cost_to_landmarks=cost_to,
        cost_from_landmarks=cost_from,
        n_landmarks=n_landmarks,
    )


def _choose_landmarks(
    candidates, n_landmarks: int, cost_of: CostFunction, cost
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Landmarks: the most frequent candidates, then farthest-point sampling in cost space.

    ``candidates`` are sorted most frequent first, so the first
    ``ceil(_FREQUENT_LANDMARK_SHARE * n_landmarks)`` are taken as they are: with frequency
    weights the pairs of the frequent label sets dominate the stress, and most training rows
    are regressed to them, so they are embedded among themselves exactly as by the full
    SMACOF. The others are added by farthest-point sampling on the symmetrised cost
    ``(c(a, b) + c(b, a)) / 2``: each new landmark is the candidate whose cheapest landmark is
    the most expensive, which keeps every candidate close to some landmark (a 2-approximation
    of the smallest covering radius; Gonzalez, 1985), so no region of the label space is placed
    from far away. The sampling is exact but evaluated lazily: a batch of up to
    ``_FPS_BATCH`` picks is made from a pool of the farthest candidates as long as the pick
    provably beats every candidate outside the pool, then the costs of all candidates to the
    batch are computed in one call.

    Returns the landmark indices (selection order), the cost blocks to and from the landmarks
    (n x n_landmarks, the same array for a symmetric cost) and whether the cost is symmetric.
    """
    n = candidates.shape[0]  # dense or CSR (_cost_input)
    known_symmetric = (not callable(cost)) and _costs.is_symmetric(cost)
    cost_to = np.empty((n, n_landmarks))
    cost_from = cost_to if known_symmetric else np.empty((n, n_landmarks))
    symmetric = True

    def add(indices: np.ndarray, filled: int) -> np.ndarray:
        nonlocal symmetric
        block_to = cost_of(candidates, candidates[indices])
        _check_cost_block(block_to, cost, (n, len(indices)))
        cost_to[:, filled : filled + len(indices)] = block_to
        if known_symmetric:
            return block_to
        block_from = cost_of(candidates[indices], candidates).T
        _check_cost_block(block_from, cost, (n, len(indices)))
        cost_from[:, filled : filled + len(indices)] = block_from
        tolerance = 1e-12 * max(float(block_to.max()), 1.0)
        symmetric = symmetric and float(np.max(np.abs(block_to - block_from))) <= tolerance
        return 0.5 * (block_to + block_from)

    n_frequent = max(1, int(np.ceil(_FREQUENT_LANDMARK_SHARE * n_landmarks)))
    chosen = list(range(n_frequent))
    nearest = add(np.arange(n_frequent), 0).min(axis=1)
    nearest[chosen] = -np.inf
    while len(chosen) < n_landmarks:
        batch = min(_FPS_BATCH, n_landmarks - len(chosen))
        n_pool = min(n - len(chosen), 4 * batch)
        pool = np.argpartition(-nearest, n_pool - 1)[:n_pool]
        outside = np.ones(n, dtype=bool)
        outside[pool] = False
        bound = float(nearest[outside].max()) if outside.any() else -np.inf
        pool_float = candidates[pool]
        pool_cost = cost_of(pool_float, pool_float)
        pool_cost = 0.5 * (pool_cost + pool_cost.T)
        pool_nearest = nearest[pool].copy()
        picks: list[int] = []
        while len(picks) < batch:
            k = int(np.argmax(pool_nearest))
            # an outside candidate's nearest cost can only have dropped since the bound was
            # taken, so the pick is the exact farthest point only while it beats the bound
            if picks and pool_nearest[k] < bound:
                break
            picks.append(k)
            pool_nearest = np.minimum(pool_nearest, pool_cost[:, k])
            pool_nearest[picks] = -np.inf
        new = pool[picks]
        block = add(new, len(chosen))
        chosen.extend(new.tolist())
        nearest = np.minimum(nearest, block.min(axis=1))
        nearest[chosen] = -np.inf
    return np.asarray(chosen, dtype=np.intp), cost_to, cost_from, symmetric


def _check_cost_block(block: np.ndarray, cost, shape: tuple[int, int]) -> None:
    name = getattr(cost, "__name__", repr(cost))
    if block.shape != shape:
        raise ValueError(
            f"cost function {name} must return a ({shape[0]}, {shape[1]}) matrix for "
            f"{shape[0]} truth and {shape[1]} predicted label vectors; got shape {block.shape}."
        )
    if not np.all(np.isfinite(block)) or np.any(block < 0):
        raise ValueError(f"cost function {name} must return finite, non-negative costs.")


def _check_cost_matrix(matrix: np.ndarray, cost) -> None:
    name = getattr(cost, "__name__", repr(cost))
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(
            f"cost function {name} must return a square (n, n) matrix for n candidate "
            f"label vectors; got shape {matrix.shape}."
        )
    if not np.all(np.isfinite(matrix)):
        raise ValueError(f"cost function {name} returned NaN or infinite costs.")
    if np.any(matrix < 0):
        i, j = np.argwhere(matrix < 0)[0]
        raise ValueError(
            f"cost function {name} must be non-negative; c(truth=s_{i}, prediction=s_{j}) "
            f"= {matrix[i, j]!r}."
        )
    diagonal = np.diag(matrix)
    if np.any(diagonal != 0):
        i = int(np.flatnonzero(diagonal)[0])
        raise ValueError(
            f"cost function {name} must be zero when the prediction equals the truth "
            f"(paper §2); c(s_{i}, s_{i}) = {diagonal[i]!r}."
        )


def _masked_min(dist: np.ndarray, mask: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    if not mask.any():
        return fallback
    return dist[:, mask].min(axis=1)


def decoded_label_frequencies(model: CLEMS, X, *, Y_true=None) -> pd.DataFrame:
    """How often each label is in the candidate sets CLEMS decodes to, beside the truth.

    CLEMS can only predict one of its candidates (the training label sets, paper §3.4), so a
    label that is in few candidates -- a rare label, usually combined with others -- is
    predicted only when the regressed point lands next to one of those few sets.

    Parameters
    ----------
    model : CLEMS
        A fitted model.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The rows to decode (e.g. a test split).
    Y_true : array-like of shape (n_samples, n_labels), optional
        Their true labels; adds the ``true`` and ``true_share`` columns.

    Returns
    -------
    pandas.DataFrame
        One row per label, in column order: ``candidate_sets`` (how many of the model's
        candidate label sets contain the label), ``decoded`` (rows of X whose decoded
        candidate contains it, i.e. the column sums of ``predict(X)``), ``decoded_share``
        (``decoded / n_samples``) and, with ``Y_true``, ``true`` and ``true_share``.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.clems import CLEMS, decoded_label_frequencies
    >>> model = CLEMS(n_components=3, random_state=0).fit(X, Y)
    >>> table = decoded_label_frequencies(model, X, Y_true=Y)
    >>> len(table), bool((table["decoded"] <= len(X)).all())
    (22, True)
    """
    check_is_fitted(model)
    chosen = model.predict_candidates(X)
    n_samples = chosen.shape[0]
    if n_samples == 0:
        raise ValueError("X has no rows: there is nothing to decode.")
    # times each candidate was chosen, then label counts as one product with the candidates
    times_chosen = np.bincount(chosen, minlength=len(model.candidates_))
    decoded = times_chosen @ model.candidates_.astype(np.int64)
    table = pd.DataFrame(
        {
            "candidate_sets": model.candidates_.sum(axis=0, dtype=np.int64),
            "decoded": decoded.astype(np.int64),
            "decoded_share": decoded / n_samples,
        }
    )
    if Y_true is not None:
        Y_true = check_label_matrix(Y_true, name="Y_true")
        if Y_true.shape != (n_samples, model.n_labels_):
            raise ValueError(
                f"Y_true must have shape ({n_samples}, {model.n_labels_}) (one row per row of "
                f"X, one column per label); got {Y_true.shape}."
            )
        true = Y_true.sum(axis=0, dtype=np.int64)
        table["true"] = true
        table["true_share"] = true / n_samples
    return table
