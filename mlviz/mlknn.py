"""ML-KNN: multi-label k-nearest neighbours with a MAP decision per label.

Zhang & Zhou, "ML-KNN: A lazy learning approach to multi-label learning" (Pattern
Recognition 40, 2007; ``../shared/papers/003_c185b3d2437bdbdd.txt``). Equation and step
numbers below refer to that paper: Eq. (6) the membership counting vector, Eq. (7)-(8) the
MAP rule, Fig. 1 the pseudo code (steps 1-18).

Everything is computed for all instances and labels at once: one chunked distance
computation (for the Euclidean metric one GEMM or sparse product per block of queries, with
scikit-learn's formula and rounding; other metrics through
:func:`sklearn.metrics.pairwise_distances_chunked`, dense or sparse X), a neighbour
selection that sorts only the few candidates below a cheap per-row bound (no per-row
``argpartition``), the counts of Eq. (6) as one sparse product, the count tables of
Fig. 1 steps 4-10 with :func:`numpy.bincount`, and prediction by looking the products of
Eq. (8) up per count. :class:`MLkNNPath` gives the model of every k <= k_max and every s
from one neighbour search and one counting pass (an app's k and s sliders).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.metrics import pairwise_distances_chunked
from sklearn.metrics.pairwise import check_pairwise_arrays
from sklearn.utils.extmath import row_norms, safe_sparse_dot
from sklearn.utils.validation import check_is_fitted

from mlviz._compat import Interval, _fit_context, validate_params
from mlviz._validation import check_features
from mlviz.base import MultiLabelEstimator

__all__ = ["MLkNN", "MLkNNExplanation", "MLkNNPath", "neighbors_graph"]


@dataclass(frozen=True, eq=False)
class MLkNNExplanation:
    """Why :class:`MLkNN` predicted what it predicted for one instance.

    Attributes
    ----------
    neighbors : ndarray of int, shape (k,)
        Row indices (into the training data) of the k nearest training instances N(t),
        nearest first.
    distances : ndarray of float64, shape (k,)
        Their distances to the instance, in the estimator's metric.
    table : pandas.DataFrame, one row per label
        Columns:

        ``label``
            Label name when ``label_names`` was given to :meth:`MLkNN.explain`, else the
            label's column index.
        ``count``
            C_t(l) of Eq. (6): how many of the k neighbours carry the label.
        ``prior_pos``, ``likelihood_pos``
            P(H_1^l) and P(E^l_{C_t(l)} | H_1^l).
        ``score_pos``
            Their product, the b = 1 term of Eq. (8).
        ``prior_neg``, ``likelihood_neg``, ``score_neg``
            The same for H_0^l (the instance does not have the label).
        ``posterior``
            r_t(l) = P(H_1^l | E^l_{C_t(l)}), Fig. 1 step 18.
        ``decision``
            1 iff ``score_pos >= score_neg`` (Eq. 8, ties positive), as :meth:`MLkNN.predict`.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz import MLkNN
    >>> X = np.array([[0.0], [0.1], [0.2], [1.0], [1.1], [1.2]])
    >>> Y = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [0, 1], [0, 1]])
    >>> why = MLkNN(k=2).fit(X, Y).explain(X[:1])
    >>> why.neighbors.shape, why.table.shape[0]
    ((2,), 2)
    """

    neighbors: np.ndarray
    distances: np.ndarray
    table: pd.DataFrame


class MLkNN(MultiLabelEstimator):
    """Multi-label k-nearest neighbours (ML-KNN), exactly as Fig. 1 of Zhang & Zhou (2007).

    For each label l independently, the number C_t(l) of the k nearest training neighbours
    of t that carry l (Eq. 6) is the evidence; the label is predicted by the MAP rule
    (Eq. 7-8) with Laplace-smoothed frequency estimates learnt on the training set:

    * prior (Fig. 1 step 2): ``P(H_1^l) = (s + sum_i y_i(l)) / (2 s + m)``,
      ``P(H_0^l) = 1 - P(H_1^l)``;
    * likelihoods (steps 12-13): ``P(E_j^l | H_1^l) = (s + c[j]) / (s (k + 1) + sum_p c[p])``
      and the same with c' for H_0^l, where c[j] (c'[j]) counts the training instances
      with (without) label l whose k nearest neighbours contain exactly j instances with l.

    Parameters
    ----------
    k : int, default=10
        Number of nearest neighbours k. The paper uses 10 and finds 8-12 equivalent
        (Table 1).
    s : float, default=1.0
        Smoothing strength s > 0 of the uniform prior; 1 is Laplace smoothing (the paper's
        setting). As s -> 0 the estimates become raw frequencies; as s -> infinity every
        probability tends to uniform and every posterior to 1/2.
    metric : str or callable, default="euclidean"
        Any metric :func:`sklearn.metrics.pairwise_distances` accepts, for dense or sparse
        X as that function allows (the paper uses the Euclidean distance, Section 5).
        Features are used as given: scale them first if their units differ.
        ``"precomputed"`` takes distance matrices: (m, m) training-to-training in ``fit``,
        (n, m) query-to-training in ``predict``; either a dense matrix of all distances or a
        sparse neighbours graph (CSR, the stored entries of row i being distances to some of
        the training rows, at least k of them besides row i itself in ``fit``), as made by
        :func:`neighbors_graph` or :class:`sklearn.neighbors.KNeighborsTransformer`.

        **Changing k or s without recomputing neighbours.** The k nearest neighbours are the
        first k of the k_max nearest (same distance order, same tie rule), so compute the
        graphs once for the largest k and fit/predict with any ``k <= k_max`` and any s::

            G_train = neighbors_graph(X_train, X_train, k_max, exclude_self=True)
            G_test = neighbors_graph(X_test, X_train, k_max)
            MLkNN(k=5, metric="precomputed").fit(G_train, Y_train).predict(G_test)

        This is exactly ``MLkNN(k=5).fit(X_train, Y_train).predict(X_test)``
        (``tests/test_mlknn.py``), at the cost of the counts and tables only;
        :class:`MLkNNPath` also counts once for every k.

    Attributes
    ----------
    n_features_in_ : int
    n_labels_ : int
        Number of labels L.
    k_ : int
    metric_ : str or callable
        The k and metric used in fitting; prediction uses them even if the parameters are
        changed afterwards (the tables have k_ + 1 rows).
    train_features_ : ndarray or scipy CSR matrix of float64 or float32, shape (m, n_features)
        Training features (ML-KNN is lazy: prediction searches them). float32 X is kept in
        float32, and so are the distances (scikit-learn computes float32 Euclidean
        distances with float64 accumulation); equal float32 distances are ties.
    train_labels_ : ndarray of uint8, shape (m, L)
        Training label matrix (the neighbours' votes at prediction time).
    train_counts_ : ndarray of uint8 (uint16 when k > 255), shape (m, L)
        C_{x_i}(l) of Eq. (6) for every training instance, with the instance itself
        excluded from its own neighbours (Fig. 1 step 3).
    prior_ : ndarray of float64, shape (L,)
        P(H_1^l), Fig. 1 step 2.
    count_pos_, count_neg_ : ndarray of int32, shape (k + 1, L)
        The counts c[j] and c'[j] of Fig. 1 steps 9-10, row j for each label column.
    cond_pos_, cond_neg_ : ndarray of float64, shape (k + 1, L)
        P(E_j^l | H_1^l) and P(E_j^l | H_0^l), Fig. 1 steps 12-13; each column sums to 1.

    Notes
    -----
    Choices where the paper leaves room, each covered by a test:

    * **Self-exclusion.** Fig. 1 step 3 identifies N(x_i) "in the training set"; counting
      x_i as its own neighbour would make every training instance vote for its own labels.
      The instance is excluded *by index* (its own distance is set to infinity), so an
      exact duplicate of x_i is still a neighbour while x_i itself never is. A query at
      prediction time is a new instance: ``predict(X_train)`` does count the training row
      equal to the query, as any other point at distance 0.
    * **Ties in the MAP rule.** Eq. (8) is an arg max over b in {0, 1}; when
      ``P(H_1)P(E|H_1) == P(H_0)P(E|H_0)`` the label is predicted (ties positive, as in
      the authors' MATLAB code). The posterior is then exactly 0.5, so ``predict`` and
      ``predict_proba >= 0.5`` agree on a tie; on a near-tie they can differ by rounding
      (see :meth:`predict_with_scores`).
    * **Ties among equal distances.** N(t) has exactly k members. When several training
      instances are equally far at the k-th place, the ones with the *lowest training row
      index* are kept (the order of a stable sort by distance, which is what a plain
      transcription of Fig. 1 does). Ties are common, not exotic: with integer or binary
      features (text data such as tmc2007, ``make_multilabel_classification``) many
      instances share a distance. scikit-learn's ``NearestNeighbors`` resolves such ties
      in an unspecified order that depends on the search algorithm, which changed about
      2% of the predictions on the benchmark's synthetic split; this is why the
      neighbour selection is hand-written here (:func:`_k_nearest`) on top of
      scikit-learn's distance computation. "Equal" means equal computed distances (squared
      distances for the Euclidean metric); for integer-valued features those are exact.
    * ``P(H_0^l)`` is computed as ``1 - P(H_1^l)`` (step 2), not from its own count.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.mlknn import MLkNN
    >>> model = MLkNN(k=5).fit(X, Y)
    >>> model.prior_.shape, model.predict(X[:3]).shape
    ((22,), (3, 22))
    >>> bool(((model.predict_proba(X) >= 0) & (model.predict_proba(X) <= 1)).all())
    True
    """

    _parameter_constraints: dict = {
        "k": [Interval(Integral, 1, None, closed="left")],
        # finite: s = inf would make every estimate inf / inf
        "s": [Interval(Real, 0, None, closed="neither")],
        # names are checked by scikit-learn's pairwise distances (see fit)
        "metric": [str, callable],
    }

    def __init__(
        self, k: int = 10, s: float = 1.0, *, metric: str | Callable = "euclidean"
    ) -> None:
        self.k = k
        self.s = s
        self.metric = metric

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        return tags

    # ------------------------------------------------------------------ fitting
    def _check_params(self, n_samples: int) -> tuple[int, float]:
        # the types and ranges of k and s are in _parameter_constraints; k < m needs the data
        k, s = self.k, self.s
        if k >= n_samples:
            raise ValueError(
                f"k={k} is too large for n_samples = {n_samples} training instances: every "
                f"training instance needs k neighbours other than itself, so k must be at "
                f"most n_samples - 1 = {n_samples - 1}. Lower k or add training data."
            )
        return int(k), float(s)

    # not skipped: scikit-learn's pairwise distances validate a metric name (listing the
    # valid ones) only when nested validation is on
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y) -> MLkNN:
        """Estimate the priors and likelihood tables of Fig. 1 (steps 1-13).

        Parameters
        ----------
        X : array-like or scipy sparse matrix, shape (m, n_features)
        y : array-like, shape (m, L)
            0/1 label matrix (1-D: a single label).

        Returns
        -------
        self : MLkNN
        """
        X, Y = self._validate_fit(X, y)
        n_samples, n_labels = Y.shape
        k, s = self._check_params(n_samples)
        labels = Y.astype(np.uint8)

        self.metric_ = self.metric
        self.train_features_ = X
        self.train_labels_ = labels
        _, neighbors = _k_nearest(X, X, k, self.metric, exclude_self=True)  # step 3
        counts = _neighbour_label_counts(neighbors, labels)

        # Steps 4-10 for all labels at once: cell (j, l) of c (c') counts the instances
        # with (without) label l having exactly j of their k neighbours with label l.
        cell = counts.astype(np.intp) * n_labels + np.arange(n_labels)  # counts are uint8
        has_label = labels.astype(bool)
        n_cells = (k + 1) * n_labels
        count_pos = np.bincount(cell[has_label], minlength=n_cells).reshape(k + 1, n_labels)
        count_neg = np.bincount(cell[~has_label], minlength=n_cells).reshape(k + 1, n_labels)
        self._set_estimates(counts, count_pos, count_neg, s)
        return self

    def _set_estimates(
        self, counts: np.ndarray, count_pos: np.ndarray, count_neg: np.ndarray, s: float
    ) -> None:
        """Fig. 1 steps 2 and 11-13 from the count tables (int64, shape (k + 1, L)).

        Shared by :meth:`fit` and :meth:`MLkNNPath.estimator`, so that both compute the
        floating-point estimates with the same operations.
        """
        n_pos = count_pos.sum(axis=0)  # = sum_i y_i(l)
        n_neg = count_neg.sum(axis=0)
        k = count_pos.shape[0] - 1
        self.k_ = k
        self.prior_ = (s + n_pos) / (2 * s + counts.shape[0])  # step 2
        self.cond_pos_ = (s + count_pos) / (s * (k + 1) + n_pos)  # step 12
        self.cond_neg_ = (s + count_neg) / (s * (k + 1) + n_neg)  # step 13
        self.count_pos_ = count_pos.astype(np.int32)
        self.count_neg_ = count_neg.astype(np.int32)
        self.train_counts_ = counts

    # --------------------------------------------------------------- prediction
    def _map_tables(self) -> tuple[np.ndarray, np.ndarray]:
        """The two products of Eq. (8) for every count j = 0..k and label: (k + 1, L) each.

        Prediction looks them up by count (:meth:`_per_count`) instead of multiplying per
        instance: the same products of the same numbers, computed k + 1 times per label
        instead of once per instance and label.
        """
        return self.prior_ * self.cond_pos_, (1.0 - self.prior_) * self.cond_neg_

    @staticmethod
    def _per_count(table: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """``table[counts[i, l], l]`` for every instance i and label l: shape (n, L)."""
        return np.take_along_axis(table, counts, axis=0)

    def _posterior_table(self) -> np.ndarray:
        """r(l) of Fig. 1 step 18 for every count j = 0..k and label: (k + 1, L)."""
        score_pos, score_neg = self._map_tables()
        return score_pos / (score_pos + score_neg)

    def kneighbors(self, X=None) -> tuple[np.ndarray, np.ndarray]:
        """The k nearest training instances N(x), nearest first, ties by lower index.

        Parameters
        ----------
        X : array-like or sparse matrix, shape (n, n_features), optional
            Query instances. When omitted, the neighbours of every training instance with
            the instance itself excluded (the sets behind ``train_counts_``).

        Returns
        -------
        distances : ndarray of float64, shape (n, k)
        indices : ndarray of int64, shape (n, k)
            Row indices into the training data.
        """
        if X is None:
            check_is_fitted(self)
            return _k_nearest(
                self.train_features_, self.train_features_, self.k_, self.metric_, True
            )
        X = self._validate_predict(X)
        return _k_nearest(X, self.train_features_, self.k_, self.metric_, False)

    def _query_counts(self, X) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        distances, neighbors = self.kneighbors(X)
        return _neighbour_label_counts(neighbors, self.train_labels_), neighbors, distances

    def predict_proba(self, X) -> np.ndarray:
        """Posterior r_t(l) = P(H_1^l | E^l_{C_t(l)}) (Fig. 1 step 18).

        Returns
        -------
        ndarray of float64, shape (n_samples, L)
            The probability of each label (scikit-learn's multi-label convention). When
            fitted on a 1-D y: shape (n_samples, 2), the probabilities of classes 0 and 1.
        """
        counts = self._query_counts(X)[0]  # checks fitted first
        posterior = self._per_count(self._posterior_table(), counts)
        if self._target_is_1d:
            return np.column_stack([1.0 - posterior[:, 0], posterior[:, 0]])
        return posterior

    def decision_function(self, X) -> np.ndarray:
        """The posterior of :meth:`predict_proba` minus 1/2, the MAP threshold of Eq. (8).

        Positive where the label is predicted, as scikit-learn expects of a decision function
        (exactly 0 is a tie, predicted positive). Subtracting 1/2 is exact for posteriors
        >= 1/4 and monotone below, so the ranking (ML-KNN's ranking function is the
        posterior) is that of :meth:`predict_proba`, with one exception: two posteriors below
        1/4 that differ by less than ~5.6e-17 (half a unit in the last place of the result)
        can become equal, and a tie counts at its worst rank in the ranking metrics. The app
        scores ML-KNN with :meth:`predict_proba`.

        Returns
        -------
        ndarray of float64, shape (n_samples, L) (1-D when fitted on a 1-D y)
        """
        counts = self._query_counts(X)[0]  # checks fitted first
        return self._decisions_from_counts(counts)

    def predict(self, X) -> np.ndarray:
        """MAP label vector of Eq. (8), ties predicted positive.

        Returns
        -------
        ndarray of shape (n_samples, L), in the dtype of the y passed to fit
        """
        counts = self._query_counts(X)[0]  # checks fitted first
        return self._labels_from_counts(counts)

    def predict_with_scores(self, X) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`predict` and :meth:`decision_function` from one neighbour search.

        Finding the neighbours of the queries is most of a prediction's cost; calling
        ``predict`` and then ``decision_function`` finds them twice. The labels cannot be
        derived from the scores instead: the MAP rule compares the two products of Eq. (8)
        directly, and ``a >= b`` is not always ``a / (a + b) >= 0.5`` in floating point (for
        ``a`` one ulp below ``b`` the division rounds to exactly 0.5 about half the time).
        :func:`mlviz.evaluation.cross_validate` calls this method when an estimator has it.

        Returns
        -------
        labels : ndarray
            Equal to ``predict(X)``.
        scores : ndarray of float64
            Equal to ``decision_function(X)``.
        """
        counts = self._query_counts(X)[0]  # checks fitted first
        return self._labels_from_counts(counts), self._decisions_from_counts(counts)

    def _labels_from_counts(self, counts: np.ndarray) -> np.ndarray:
        score_pos, score_neg = self._map_tables()
        return self._format_labels(self._per_count(score_pos >= score_neg, counts))

    def _decisions_from_counts(self, counts: np.ndarray) -> np.ndarray:
        posterior = self._per_count(self._posterior_table(), counts)
        return self._format_scores(posterior - 0.5)

    def explain(self, x_row, label_names: Sequence[str] | None = None) -> MLkNNExplanation:
        """Every quantity behind the prediction for one instance.

        Parameters
        ----------
        x_row : array-like of shape (n_features,) or (1, n_features), or a sparse 1-row matrix
        label_names : sequence of str, optional
            Names for the ``label`` column (length L); column indices otherwise.

        Returns
        -------
        MLkNNExplanation
            Neighbour indices and distances, and one table row per label (see
            :class:`MLkNNExplanation`).
        """
        check_is_fitted(self)
        if not sp.issparse(x_row):
            x_row = np.asarray(x_row)
            if x_row.ndim == 1:
                x_row = x_row.reshape(1, -1)
        if x_row.ndim != 2 or x_row.shape[0] != 1:
            raise ValueError(
                f"explain takes a single instance: a 1-D feature vector or a 1-row matrix; got "
                f"shape {x_row.shape}. Call it once per row."
            )
        if label_names is None:
            label_column = np.arange(self.n_labels_)
        else:
            label_column = list(label_names)
            if len(label_column) != self.n_labels_:
                raise ValueError(
                    f"label_names has {len(label_column)} names but the model was fitted with "
                    f"{self.n_labels_} labels."
                )
        counts, neighbors, distances = self._query_counts(x_row)
        score_pos, score_neg = (self._per_count(t, counts) for t in self._map_tables())
        columns = np.arange(self.n_labels_)
        count_row = counts[0]
        table = pd.DataFrame(
            {
                "label": label_column,
                "count": count_row,
                "prior_pos": self.prior_,
                "likelihood_pos": self.cond_pos_[count_row, columns],
                "score_pos": score_pos[0],
                "prior_neg": 1.0 - self.prior_,
                "likelihood_neg": self.cond_neg_[count_row, columns],
                "score_neg": score_neg[0],
                "posterior": score_pos[0] / (score_pos[0] + score_neg[0]),
                "decision": (score_pos[0] >= score_neg[0]).astype(np.uint8),
            }
        )
        return MLkNNExplanation(neighbors=neighbors[0], distances=distances[0], table=table)


class MLkNNPath(BaseEstimator):
    """ML-KNN for every k <= ``k_max`` and every s from one neighbour search and one pass.

    Moving k or s in an app should cost the tables of Fig. 1, not the neighbour search nor
    the counting. The k nearest neighbours are the first k of the ``k_max`` nearest (same
    order, same tie rule, see :class:`MLkNN`), and adding the (r+1)-th neighbour of x_i
    raises C_{x_i}(l) (Eq. 6) by one for each label l that neighbour carries: instance i
    moves from cell (r_j, l) to (r_j + 1, l) of the table c (if x_i has l) or c' (Fig. 1
    steps 4-10). ``fit`` walks the neighbour ranks once and records the tables after each,
    one :func:`numpy.bincount` of the moves per rank (about m times the label cardinality
    entries) instead of a recount of the (m, L) count matrix per k. Everything that depends
    on s (prior and likelihoods, steps 2 and 11-13) is left to :meth:`estimator`.

    ``MLkNNPath(k_max, metric=metric).fit(X, y).estimator(k, s)`` is, attribute for
    attribute and prediction for prediction, ``MLkNN(k, s, metric=metric).fit(X, y)``
    (``tests/test_mlknn.py``).

    Parameters
    ----------
    k_max : int, default=50
        The largest k that :meth:`estimator` will be asked for.
    metric : str or callable, default="euclidean"
        As :class:`MLkNN`'s ``metric``, including ``"precomputed"`` with a neighbours graph
        of at least ``k_max`` neighbours per row (:func:`neighbors_graph`).

    Attributes
    ----------
    k_max_ : int
    train_neighbors_ : ndarray of int64, shape (m, k_max)
        N(x_i) of Fig. 1 step 3 for ``k_max``, nearest first, ties by lower index, the
        instance itself excluded; the first k columns are N(x_i) for k.
    count_pos_path_, count_neg_path_ : ndarray of int32, shape (k_max + 1, k_max + 1, L)
        Entry [k, j, l] is c[j] (c'[j]) of Fig. 1 steps 9-10 for label l when N has k
        members; rows j > k are 0. ``count_pos_path_[k, : k + 1]`` is
        ``MLkNN(k).fit(X, y).count_pos_``.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.mlknn import MLkNNPath
    >>> path = MLkNNPath(k_max=10).fit(X, Y)
    >>> path.k_max_, path.train_neighbors_.shape
    (10, (150, 10))
    """

    _parameter_constraints: dict = {
        "k_max": [Interval(Integral, 1, None, closed="left")],
        "metric": [str, callable],
    }

    def __init__(self, k_max: int = 50, *, metric: str | Callable = "euclidean") -> None:
        self.k_max = k_max
        self.metric = metric

    # not skipped: the nested MLkNN validation checks the metric name, as in MLkNN.fit
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y) -> MLkNNPath:
        """Find the ``k_max`` nearest neighbours and the count tables of every k <= k_max.

        Parameters
        ----------
        X : array-like or scipy sparse matrix, shape (m, n_features)
            Or a neighbours graph with ``metric="precomputed"``.
        y : array-like, shape (m, L)
            0/1 label matrix (1-D: a single label).

        Returns
        -------
        self : MLkNNPath
        """
        template = MLkNN(k=self.k_max, metric=self.metric)
        X, Y = template._validate_fit(X, y)
        k_max, _ = template._check_params(Y.shape[0])
        template.metric_ = self.metric
        template.train_features_ = X
        template.train_labels_ = Y.astype(np.uint8)
        _, neighbors = _k_nearest(X, X, k_max, self.metric, exclude_self=True)
        self.count_pos_path_, self.count_neg_path_ = _count_tables_every_k(
            neighbors, template.train_labels_
        )
        self.train_neighbors_ = neighbors
        self.k_max_ = k_max
        self._template = template  # validated data, without tables: see estimator()
        return self

    def estimator(self, k: int, s: float = 1.0) -> MLkNN:
        """The fitted ``MLkNN(k, s, metric)``, from the stored neighbours and tables.

        Costs the counts C_{x_i}(l) of the training instances for this k (one sparse
        product, the ``train_counts_`` attribute) and the estimates of Fig. 1 steps 2 and
        11-13; the training data and labels are shared with this object, not copied.

        Parameters
        ----------
        k : int, 1 <= k <= ``k_max_``
        s : float > 0, default=1.0

        Returns
        -------
        MLkNN
        """
        check_is_fitted(self)
        model = copy.copy(self._template)
        model.set_params(k=k, s=s)
        model._validate_params()  # the types and ranges of k and s, as MLkNN.fit checks them
        if k > self.k_max_:
            raise ValueError(
                f"k={k} is larger than k_max={self.k_max_}, the number of neighbours this "
                f"path was fitted for. Use a k <= {self.k_max_} or refit with a larger k_max."
            )
        k, s = int(k), float(s)
        counts = _neighbour_label_counts(self.train_neighbors_[:, :k], model.train_labels_)
        model._set_estimates(
            counts,
            self.count_pos_path_[k, : k + 1].astype(np.int64),
            self.count_neg_path_[k, : k + 1].astype(np.int64),
            s,
        )
        return model


# Memory for one block of query-to-training distances (plus a few same-sized temporaries);
# scikit-learn's default working memory (1 GiB) would multiply with those temporaries.
_WORKING_MEMORY_MIB = 64


def _k_nearest(
    X_query, X_train, k: int, metric, exclude_self: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Exactly k nearest training rows per query, nearest first, ties by lower row index.

    The distances are computed block by block (the Euclidean ones with scikit-learn's own
    formula, see :func:`_euclidean_blocks`); the selection (:func:`_select_k`) is
    hand-written because ``NearestNeighbors`` breaks ties at the k-th place in an
    unspecified order. With ``exclude_self`` the query rows are the training rows and row
    i's own distance is set to infinity (self-exclusion by index, duplicates still count).
    """
    if metric == "precomputed" and sp.issparse(X_query):
        return _select_from_graph(X_query, k, exclude_self)
    # Euclidean neighbours are ranked on squared distances (one square root per kept
    # neighbour instead of one per pair); equal squared distances are the ties.
    squared = metric == "euclidean"
    if squared:
        X_query, X_train = check_pairwise_arrays(X_query, X_train)
    fused = squared and X_query.dtype == np.float64 and X_train.dtype == np.float64
    if fused:
        blocks = _euclidean_blocks(X_query, X_train)
    else:
        blocks = pairwise_distances_chunked(
            X_query,
            X_train,
            metric=metric,
            working_memory=_WORKING_MEMORY_MIB,
            **({"squared": True} if squared else {}),
        )
    distances, indices = [], []
    start = 0
    for block in blocks:
        n_rows = block.shape[0]
        if exclude_self:
            if metric == "precomputed":  # the block is a view of the caller's matrix
                block = block.copy()
            block[np.arange(n_rows), start + np.arange(n_rows)] = np.inf
        block_distances, block_indices = _select_k(block, k, clip=fused)
        distances.append(block_distances)
        indices.append(block_indices)
        start += n_rows
    distances = np.vstack(distances)
    if squared:
        distances = np.sqrt(distances)
    return distances, np.vstack(indices)


def _euclidean_blocks(X_query, X_train):
    """Squared Euclidean distances, one block of query rows at a time (float64 input).

    The arithmetic is scikit-learn's ``euclidean_distances(..., squared=True)`` as run by
    ``pairwise_distances_chunked``, operation for operation (``-2 x.y + |x|^2 + |y|^2``,
    clipped at 0, the diagonal zeroed when the queries are the training data), so the
    distances and therefore the ties are bit for bit the ones scikit-learn computes; for
    integer-valued features every step is exact. Done here to skip scikit-learn's per-block
    validation and temporaries: one GEMM (or sparse product) per block, then in place. The
    blocks are *not* clipped at 0 yet: :func:`_select_k` (``clip=True``) clips the few
    entries it selects, which gives the same selection and the same values.
    """
    n_query, n_train = X_query.shape[0], X_train.shape[0]
    train_norms = row_norms(X_train, squared=True)[None, :]
    query_norms = train_norms.T if X_query is X_train else row_norms(X_query, squared=True)[:, None]
    rows = max(1, min(n_query, (_WORKING_MEMORY_MIB * 2**20) // (8 * n_train)))
    for begin in range(0, n_query, rows):
        stop = min(begin + rows, n_query)
        chunk = X_query if (begin == 0 and stop == n_query) else X_query[begin:stop]
        block = safe_sparse_dot(chunk, X_train.T, dense_output=True)
        block *= -2.0
        block += query_norms[begin:stop]
        block += train_norms  # clipped at 0 later, by _select_k, on the selected entries
        if X_query is X_train:
            block.flat[begin :: n_train + 1] = 0.0
        yield block


def _select_k(block: np.ndarray, k: int, clip: bool) -> tuple[np.ndarray, np.ndarray]:
    """The k smallest entries of every row of ``block``, ordered by (value, column).

    Among equal values the lowest column wins, also at the k-th place. Instead of a full
    per-row selection (``argpartition`` costs about as much as the distances themselves)
    a cheap upper bound of each row's k-th smallest value is taken first: the columns are
    dealt into ``g >= k`` disjoint groups and the k-th smallest of the g group minima is
    at least the row's k-th smallest value (those k minima are k distinct entries). Only
    the few entries at or below that bound (about k + k^2/g per row, more with ties) are
    then sorted exactly, by (row, value, column), and the first k of each row kept.
    With ``clip`` the values are taken as ``max(value, 0)`` (the clipping of
    :func:`_euclidean_blocks`, done here on the few selected entries instead of the block).
    """
    n_rows, n_cols = block.shape
    n_groups = max(8 * k, 64)
    if n_cols >= 2 * n_groups:
        width = n_cols // n_groups
        group_min = block[:, : n_groups * width].reshape(n_rows, width, n_groups).min(axis=1)
    else:
        group_min = block
    bound = np.partition(group_min, k - 1, axis=1)[:, k - 1 : k]
    if clip:  # max(v, 0) <= max(b, 0) iff v <= max(b, 0): clip the bound, then the picks
        np.maximum(bound, 0.0, out=bound)
    flat = np.flatnonzero(block <= bound)  # row-major: by row, then by column
    rows, cols = np.divmod(flat, n_cols)
    values = block.ravel()[flat]
    if clip:
        np.maximum(values, 0.0, out=values)
    order = np.lexsort((cols, values, rows))
    first = np.zeros(n_rows, dtype=np.intp)
    np.cumsum(np.bincount(rows, minlength=n_rows)[:-1], out=first[1:])
    keep = order[first[:, None] + np.arange(k)]
    return values[keep], cols[keep].astype(np.int64)


def _select_from_graph(graph, k: int, exclude_self: bool) -> tuple[np.ndarray, np.ndarray]:
    """The k smallest stored entries of every row of a sparse distance graph.

    Ordered by (distance, column) like :func:`_select_k`, so the k nearest from a graph of
    the k_max nearest are the k nearest from all distances. With ``exclude_self`` (fit) the
    entry (i, i) is ignored. Raises ValueError when a row stores fewer than k entries.
    """
    graph = sp.csr_matrix(graph)
    rows = np.repeat(np.arange(graph.shape[0]), np.diff(graph.indptr))
    cols, values = graph.indices, np.asarray(graph.data, dtype=np.float64)
    if exclude_self:
        keep = cols != rows
        rows, cols, values = rows[keep], cols[keep], values[keep]
    per_row = np.bincount(rows, minlength=graph.shape[0])
    if np.any(per_row < k):
        row = int(np.argmax(per_row < k))
        raise ValueError(
            f"the precomputed neighbours graph stores only {per_row[row]} neighbours for row "
            f"{row}{' besides the row itself' if exclude_self else ''}, but k={k}. Compute the "
            "graph for at least k neighbours (e.g. neighbors_graph(..., n_neighbors=k))."
        )
    first = np.zeros(graph.shape[0], dtype=np.intp)
    np.cumsum(per_row[:-1], out=first[1:])
    pick = first[:, None] + np.arange(k)
    if not _rows_in_order(rows, values, cols):
        pick = np.lexsort((cols, values, rows))[pick]
    return values[pick], cols[pick].astype(np.int64)


def _rows_in_order(rows: np.ndarray, values: np.ndarray, cols: np.ndarray) -> bool:
    """Whether the entries are already sorted by (row, value, column), non-strictly.

    Graphs from :func:`neighbors_graph` are: their rows store the neighbours nearest first,
    ties by lower column. Checking costs one pass; the sort it saves (``lexsort`` of every
    stored entry) cost as much as the rest of ``fit`` on the delicious-shaped set. For such
    entries the stable sort is the identity, so skipping it selects the same neighbours. NaN
    distances compare false and fall back to the sort.
    """
    same_row = rows[1:] == rows[:-1]  # rows are nondecreasing by construction (CSR order)
    before, after = values[:-1], values[1:]
    in_order = (before < after) | ((before == after) & (cols[:-1] <= cols[1:]))
    return bool(np.all(in_order | ~same_row))


@validate_params(
    {
        "X_query": ["array-like", "sparse matrix"],
        "X_train": ["array-like", "sparse matrix"],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "metric": [str, callable],
        "exclude_self": ["boolean"],
    },
    # not skipped: scikit-learn's pairwise distances check a metric name (as in MLkNN.fit)
    prefer_skip_nested_validation=False,
)
def neighbors_graph(
    X_query,
    X_train,
    n_neighbors: int,
    *,
    metric: str | Callable = "euclidean",
    exclude_self: bool = False,
) -> sp.csr_matrix:
    """The ``n_neighbors`` nearest training rows of every query as a sparse distance graph.

    Selected exactly as :class:`MLkNN` selects neighbours (nearest first, ties by lower
    training row index), so ``MLkNN(k, metric="precomputed")`` on these graphs equals
    ``MLkNN(k, metric=metric)`` on the features for every ``k <= n_neighbors``.

    Parameters
    ----------
    X_query : array-like or sparse matrix, shape (n, n_features)
    X_train : array-like or sparse matrix, shape (m, n_features)
    n_neighbors : int
        k_max, the largest k that will be used.
    metric : str or callable, default="euclidean"
        As :class:`MLkNN`'s ``metric``.
    exclude_self : bool, default=False
        True for the training graph (``X_query`` is ``X_train``): row i's own entry is left
        out, the self-exclusion of Fig. 1 step 3.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, m)
        ``n_neighbors`` stored distances per row (explicit zeros for duplicates included).

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.mlknn import neighbors_graph
    >>> graph = neighbors_graph(X[:3], X, n_neighbors=4)
    >>> graph.shape, graph.getnnz(axis=1).tolist()
    ((3, 150), [4, 4, 4])
    """
    query, train = check_features(X_query), check_features(X_train, name="X_train")
    if exclude_self and query.shape != train.shape:
        raise ValueError(
            "exclude_self=True is for the training graph: X_query must be X_train; got "
            f"shapes {query.shape} and {train.shape}."
        )
    limit = train.shape[0] - (1 if exclude_self else 0)
    if n_neighbors > limit:
        raise ValueError(
            f"n_neighbors must be between 1 and {limit} for {train.shape[0]} training rows; "
            f"got {n_neighbors}."
        )
    distances, indices = _k_nearest(
        train if exclude_self else query, train, int(n_neighbors), metric, exclude_self
    )
    n_rows = distances.shape[0]
    return sp.csr_matrix(
        (
            distances.ravel(),
            indices.ravel(),
            np.arange(0, n_rows * n_neighbors + 1, n_neighbors),
        ),
        shape=(n_rows, train.shape[0]),
    )


def _count_tables_every_k(
    neighbors: np.ndarray, labels: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """c and c' of Fig. 1 steps 9-10 for every k <= k_max, in one pass over the ranks.

    ``neighbors`` (m, k_max) holds N(x_i) nearest first, ``labels`` (m, L) the 0/1 labels.
    Adding the neighbours of rank r raises C_{x_i}(l) by one exactly where that neighbour
    carries l: those (i, l) move from cell C_{x_i}(l) to C_{x_i}(l) + 1 of c (when x_i has
    l) or c'. The running counts are an (m, L) matrix of small integers; each rank touches
    only its moves (about m times the label cardinality).

    Returns
    -------
    count_pos_path, count_neg_path : ndarray of int32, shape (k_max + 1, k_max + 1, L)
        [k, j, l] = c[j] (c'[j]) for label l with k neighbours; rows j > k are 0.
    """
    n_samples, k_max = neighbors.shape
    n_labels = labels.shape[1]
    counts = np.zeros((n_samples, n_labels), dtype=np.uint8 if k_max <= 255 else np.uint16)
    has_label = labels.astype(bool)
    carried = sp.csr_matrix(labels)  # row a: the labels neighbour a carries
    n_pos = np.count_nonzero(has_label, axis=0)
    # tables[k, b, j, l]: instances with (b = 1) or without (b = 0) label l and C = j
    current = np.zeros((2, k_max + 1, n_labels), dtype=np.int64)
    current[0, 0], current[1, 0] = n_samples - n_pos, n_pos  # k = 0: every count is 0
    tables = np.empty((k_max + 1, 2, k_max + 1, n_labels), dtype=np.int32)
    tables[0] = current
    for rank in range(k_max):
        moves = carried[neighbors[:, rank]]
        rows = np.repeat(np.arange(n_samples), np.diff(moves.indptr))
        cols = moves.indices
        before = counts[rows, cols]
        cell = (has_label[rows, cols] * (k_max + 1) + before) * n_labels + cols
        moved = np.bincount(cell, minlength=current.size).reshape(current.shape)
        current -= moved
        current[:, 1:] += moved[:, :-1]  # a count never exceeds rank < k_max before a move
        counts[rows, cols] = before + 1  # (row, label) pairs are distinct within a rank
        tables[rank + 1] = current
    return tables[:, 1], tables[:, 0]


def _neighbour_label_counts(neighbors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """C_x(l) of Eq. (6) for every row of ``neighbors`` (n, k) and every label: (n, L).

    The neighbour lists become a sparse 0/1 matrix (n, m) with k ones per row, so the counts
    are one sparse product, without materialising an (n, k, L) array of neighbour labels.
    Counts are at most k, so they are computed and kept as uint8 (uint16 for k > 255): exact,
    and an eighth of the memory of int64 tables with ~1,000 labels.
    """
    n_queries, k = neighbors.shape
    dtype = np.uint8 if k <= np.iinfo(np.uint8).max else np.uint16
    membership = sp.csr_matrix(
        (
            np.ones(n_queries * k, dtype=dtype),
            neighbors.ravel(),
            np.arange(0, n_queries * k + 1, k),
        ),
        shape=(n_queries, labels.shape[0]),
    )
    return np.asarray(membership @ labels.astype(dtype, copy=False), dtype=dtype)
