"""Linear label space transformations: BR, PBR, PLST (+ Origin), CPLST and Compressed Sensing.

All follow *Linear Label Space Transformation* (Algorithm 7 of Tai & Lin, "Multi-label
Classification with Principal Label Space Transformation", ``../shared/papers/004_*.txt``):
encode each label vector as ``h = P (y - o)`` with an M x L projection ``P`` and a reference
point ``o``, learn one multi-output regressor ``r(x) ~ h``, and decode. BR, PBR, PLST and CPLST
use round-based decoding (Algorithm 8): ``y~ = o + P^T r(x)`` and ``y^ = [y~ >= 1/2]``
(Eq. 2). Compressed Sensing (Algorithm 4) decodes by a sparse reconstruction per instance.

The default regressor is the paper's ridge linear regression with lambda = 0.01, written the
way the authors' MATLAB code does it (``hsuantien/mlc_lsdr``, ``ridgereg.m`` /
``OVA_linreg``): a constant column is prepended to the *raw* (unstandardised) features and all
d + 1 weights, the bias included, are penalised by lambda. It is built from scikit-learn parts
(see :func:`paper_ridge`) and is exact for both dense and sparse X.
"""

from __future__ import annotations

import copy
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import LinearRegression, Ridge, orthogonal_mp
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer, MaxAbsScaler, StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils.extmath import svd_flip
from sklearn.utils.validation import check_is_fitted

from mlviz._compat import HasMethods, Interval, StrOptions, _fit_context
from mlviz._validation import check_label_matrix, check_sparse_labels, csr_labels
from mlviz.base import MultiLabelEstimator
from mlviz.sparse_recovery import cosamp

__all__ = [
    "BinaryRelevance",
    "PLST",
    "PBR",
    "CompressedSensing",
    "CPLST",
    "paper_ridge",
    "is_truncatable",
]

PAPER_RIDGE_ALPHA = 0.01


def _prepend_bias_column(X):
    """[1, X] for dense or CSR X (a module-level function so the pipeline pickles/clones).

    float32 X stays float32 (Ridge then solves in float32); anything else becomes float64.
    """
    dtype = np.float32 if X.dtype == np.float32 else np.float64
    ones = np.ones((X.shape[0], 1), dtype=dtype)
    if sp.issparse(X):
        return sp.hstack([sp.csr_matrix(ones), X], format="csr", dtype=dtype)
    return np.hstack([ones, np.asarray(X, dtype=dtype)])


def paper_ridge(alpha: float = PAPER_RIDGE_ALPHA) -> Pipeline:
    """The PLST paper's ridge linear regression (RLR) as a scikit-learn regressor.

    ``w = (X1^T X1 + alpha I)^{-1} X1^T H`` with ``X1 = [1, X]``: the bias is a regularised
    weight like any other, exactly as in the authors' MATLAB code. With alpha = 0.01 this differs
    from ``Ridge(alpha, fit_intercept=True)`` (unpenalised intercept) by ~1e-6 in the
    predictions on yeast/tmc2007, but unlike that estimator it uses a direct Cholesky solve on
    sparse X too (scikit-learn's sparse intercept path is iterative: tol=1e-4 moved tmc2007
    predictions by 1e-2 and a tight tol took 24 s instead of 0.3 s).

    Parameters
    ----------
    alpha : float, default=0.01
        The ridge penalty lambda.

    Returns
    -------
    Pipeline
        ``FunctionTransformer([1, X]) -> Ridge(alpha, fit_intercept=False, solver="cholesky")``.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.linear import paper_ridge
    >>> regressor = paper_ridge().fit(X, Y)
    >>> regressor.predict(X).shape
    (150, 22)
    """
    return Pipeline(
        [
            ("bias", FunctionTransformer(_prepend_bias_column, accept_sparse=True)),
            ("ridge", Ridge(alpha=alpha, fit_intercept=False, solver="cholesky")),
        ]
    )


def _deterministic_signs(basis: np.ndarray) -> np.ndarray:
    """Flip each row so its largest-magnitude entry is positive (SVD/eigh signs are arbitrary).

    scikit-learn's ``svd_flip`` with the decision on the rows of v (the convention of its
    PCA); ties in magnitude go to the first such entry (``argmax``).
    """
    return svd_flip(None, np.array(basis, dtype=np.float64), u_based_decision=False)[1]


_N_COMPONENTS = Interval(Integral, 1, None, closed="left")
# None means M = L (see _LinearLabelTransform._n_components)
_REGRESSOR = [HasMethods(["fit", "predict"]), None]


def _warn_constant_labels(Y: np.ndarray, estimator: str) -> None:
    constant = np.flatnonzero(np.all(Y == Y[:1], axis=0))
    if constant.size:
        values = Y[0, constant].astype(int)
        shown = ", ".join(
            f"{k} (always {v})" for k, v in zip(constant[:10], values[:10], strict=True)
        )
        more = "" if constant.size <= 10 else f" and {constant.size - 10} more"
        one = constant.size == 1
        warnings.warn(
            f"{estimator}: label column{'' if one else 's'} {shown}{more} "
            f"{'is' if one else 'are'} constant in the training labels; "
            f"{'it carries' if one else 'they carry'} no information and every instance will "
            f"be predicted that constant. Drop {'it' if one else 'them'} or use a split where "
            "every label varies.",
            UserWarning,
            stacklevel=4,  # user -> _fit_context wrapper -> fit -> here
        )


class _LinearLabelTransform(MultiLabelEstimator):
    """Algorithm 7: encode ``h = P (y - o)``, regress ``x -> h``, decode ``r(x)``.

    Subclasses implement :meth:`_fit_label_space` (sets ``offset_``, ``components_``,
    ``singular_values_``) and :meth:`_decode` (maps ``r(x)`` to the real-valued ``y~``).

    X is passed to the regressor as given when it is float32 (the default
    :func:`paper_ridge` then solves in float32, as scikit-learn's ``Ridge`` does); other
    dtypes become float64. Decoding is float64.

    A label that is constant in the training labels (always 1 or always 0) is decoded to that
    value, ``ỹ_j = c``, whatever the codes are (attributes ``constant_labels_`` and
    ``constant_values_``). The papers do not treat such labels; this is our choice, because
    the decoders otherwise give them arbitrary values: PBR-Origin predicts 0 for an always-1
    label outside its M most frequent, and CS can give it any support (issue 24 found PBR and
    CS predicting 1 for some always-1 labels and 0 for others). BR, PLST and CPLST already
    decode such a label to (nearly) its value, so for them this changes only rounding noise.
    """

    # n_components is a constructor parameter of every subclass except BinaryRelevance
    def _n_components(self, n_labels: int) -> int:
        # None is M = L: every direction, no compression and zero training encoding error
        # (Theorem 1), the right end of the paper's M sweeps (Figs. 2-3; the paper fixes no
        # single M). The same rule as CLEMS's n_components=None and as PCA's.
        if self.n_components is None:
            return n_labels
        # the type and lower bound are in _parameter_constraints; the upper bound is L
        if self.n_components > n_labels:
            raise ValueError(
                f"n_components={self.n_components} is out of range: it must be between 1 and "
                f"the number of labels L={n_labels}."
            )
        return int(self.n_components)

    def _make_regressor(self):
        return paper_ridge() if self.regressor is None else clone(self.regressor)

    @_fit_context(prefer_skip_nested_validation=False)  # the regressor is validated too
    def fit(self, X, y):
        """Fit the label-space transform on y and one multi-output regressor on (X, h).

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples, n_labels)
            0/1 label matrix (1-D: a single label).

        Returns
        -------
        self
        """
        X, Y = self._validate_fit(X, y)
        self.n_components_ = self._n_components(Y.shape[1])
        _warn_constant_labels(Y, type(self).__name__)
        constant = np.all(Y == Y[:1], axis=0)
        self.constant_labels_ = np.flatnonzero(constant)
        self.constant_values_ = Y[0, constant].astype(np.float64)
        self._fit_label_space(X, Y, self.n_components_)
        codes = self._encode(Y)
        regressor = self._make_regressor()
        # a single target is passed 1-D so that regressors which warn on (n, 1) targets
        # (e.g. random forests) do not
        regressor.fit(X, codes[:, 0] if codes.shape[1] == 1 else codes)
        self.regressor_ = regressor
        return self

    def _fit_label_space(self, X, Y: np.ndarray, n_components: int) -> None:
        raise NotImplementedError

    def _decode(self, codes: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _encode(self, Y: np.ndarray) -> np.ndarray:
        return (Y - self.offset_) @ self.components_.T

    def _check_labels(self, Y, *, sparse: bool = False) -> np.ndarray | sp.csr_matrix:
        # sparse=True keeps a sparse Y sparse (CSR), for methods whose products it serves
        check_is_fitted(self)
        Y = check_sparse_labels(Y) if sparse and sp.issparse(Y) else check_label_matrix(Y)
        if Y.shape[1] != self.n_labels_:
            raise ValueError(
                f"Y has {Y.shape[1]} label columns, but {type(self).__name__} was fitted with "
                f"{self.n_labels_} labels."
            )
        return Y

    def _check_codes(self, H) -> np.ndarray:
        check_is_fitted(self)
        H = np.asarray(H, dtype=np.float64)
        if H.ndim == 1 and self.n_components_ == 1:
            H = H.reshape(-1, 1)
        if H.ndim != 2 or H.shape[1] != self.n_components_:
            raise ValueError(
                f"H must have shape (n_samples, {self.n_components_}) (one column per "
                f"component); got shape {H.shape}."
            )
        if not np.all(np.isfinite(H)):
            raise ValueError("H contains NaN or infinite values.")
        return H

    def transform_labels(self, Y) -> np.ndarray:
        """Encode label vectors: ``h = P (y - o)`` (Algorithm 7, step 1).

        Parameters
        ----------
        Y : array-like of shape (n_samples, n_labels)
            0/1 label matrix.

        Returns
        -------
        ndarray of shape (n_samples, n_components_)
        """
        return self._encode(self._check_labels(Y))

    def inverse_transform_labels(self, H) -> np.ndarray:
        """Decode codes to real-valued label vectors ``y~`` (before rounding).

        Parameters
        ----------
        H : array-like of shape (n_samples, n_components_)

        Returns
        -------
        ndarray of float64, shape (n_samples, n_labels)
        """
        return self._decode_pinned(self._check_codes(H))

    def _decode_pinned(self, codes: np.ndarray) -> np.ndarray:
        """:meth:`_decode`, then every training-constant label set to its value (see class)."""
        decoded = self._decode(codes)
        if self.constant_labels_.size:
            decoded[:, self.constant_labels_] = self.constant_values_
        return decoded

    def _decoded(self, X) -> np.ndarray:
        X = self._validate_predict(X)
        codes = np.asarray(self.regressor_.predict(X), dtype=np.float64)
        return self._decode_pinned(codes.reshape(X.shape[0], self.n_components_))

    def predict_decoded(self, X) -> np.ndarray:
        """The decoded real-valued label vectors ``y~`` of X, before rounding.

        ``y~ = o + P^T r(x)`` for round-based decoding (Algorithm 8), the sparse
        reconstruction for Compressed Sensing: :meth:`inverse_transform_labels` of the
        regressed codes. :meth:`predict` rounds it at 1/2 (Eq. 2).

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples, n_labels) (1-D when fitted on a 1-D y)
        """
        return self._format_scores(self._decoded(X))

    def decision_function(self, X) -> np.ndarray:
        """Label scores ``y~ - 1/2``: positive exactly where a label is predicted.

        ``y~`` is :meth:`predict_decoded`; shifting it by the rounding threshold 1/2 of Eq. 2
        gives scikit-learn's convention that a decision function is thresholded at 0 (ties
        at exactly 0 are predicted positive, as ``y~ >= 1/2`` in Eq. 2). The shift keeps the
        order of the scores, but values of ``y~`` closer together than the float64 spacing
        near 1/2 (about 1e-16, e.g. rare labels decoded to nearly their offset) become ties;
        rank with :meth:`predict_decoded` to keep such differences.

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples, n_labels) (1-D when fitted on a 1-D y)
        """
        return self._format_scores(self._decoded(X) - 0.5)

    def predict(self, X) -> np.ndarray:
        """Predicted label sets: ``ŷ_j = [ỹ_j >= 1/2]`` (Eq. 2).

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_labels), in the dtype of the y passed to fit
        """
        return self._format_labels(self._decoded(X) >= 0.5)


class _RoundBasedTransform(_LinearLabelTransform):
    """Algorithm 8: orthonormal rows ``P``, decode ``y~ = o + P^T r(x)``, round at 1/2.

    Subclasses set ``offset_``, ``singular_values_`` and ``_basis``: a L x L orthonormal
    matrix whose first M rows are ``components_`` (its order defines "the first M directions"
    for :meth:`encoding_error`).
    """

    def _set_basis(self, offset: np.ndarray, basis: np.ndarray, n_components: int) -> None:
        self.offset_ = offset
        self._basis = basis
        self.components_ = basis[:n_components].copy()

    def _decode(self, codes: np.ndarray) -> np.ndarray:
        return self.offset_ + codes @ self.components_

    def truncate(self, n_components: int):
        """The fitted model with only the first ``n_components`` directions, without refitting.

        The basis of every round-based transform here is computed from Y (and X) alone, and
        its first M rows are ``P`` for any M; a linear regressor fitted output by output (ridge,
        least squares) gives the same weights for output m whatever the other outputs are. So
        the model for M is this one with ``P`` cut to M rows and the regressor cut to its first
        M outputs: what refitting would give, up to rounding (``tests/test_linear.py`` checks
        the predictions to 1e-8). This is what makes a sweep over M one fit instead of one per
        M (:func:`mlviz.sweeps.parameter_sweep`).

        Parameters
        ----------
        n_components : int
            M, ``1 <= M <= n_components_``.

        Returns
        -------
        estimator
            A new fitted estimator of the same class with ``n_components = M``; ``self`` is
            not changed.

        Raises
        ------
        ValueError
            If the regressor is not linear per output (see :func:`is_truncatable`) or M is out
            of range.
        """
        check_is_fitted(self)
        if not is_truncatable(self):
            raise ValueError(
                f"{type(self).__name__}.truncate needs a regressor that is fitted output by "
                f"output (ridge or least squares, possibly after a bias column or scaler); got "
                f"{self.regressor!r}. Refit with n_components={n_components!r} instead."
            )
        if (
            not isinstance(n_components, Integral)
            or isinstance(n_components, bool)
            or not 1 <= n_components <= self.n_components_
        ):
            raise ValueError(
                f"n_components must be an integer between 1 and the fitted n_components_="
                f"{self.n_components_}; got {n_components!r}."
            )
        m = int(n_components)
        truncated = copy.deepcopy(self)
        truncated.n_components = m
        truncated.n_components_ = m
        truncated.components_ = self._basis[:m].copy()
        final = (
            truncated.regressor_.steps[-1][1]
            if isinstance(truncated.regressor_, Pipeline)
            else truncated.regressor_
        )
        coef = np.atleast_2d(final.coef_)
        # Without an intercept it is the scalar 0.0 whatever the number of outputs; a single
        # output is fitted 1-D (see fit), which gives 1-D coef_ and a scalar intercept_.
        per_output_intercept = np.ndim(final.intercept_) > 0
        if m == 1:
            final.coef_ = coef[0].copy()
            if per_output_intercept:
                final.intercept_ = float(final.intercept_[0])
        else:
            final.coef_ = coef[:m].copy()
            if per_output_intercept:
                final.intercept_ = final.intercept_[:m].copy()
        truncated._after_truncation(m)
        return truncated

    def _after_truncation(self, n_components: int) -> None:
        """Cut any subclass attribute that depends on M (hook for :meth:`truncate`)."""

    def encoding_error(self, Y) -> np.ndarray:
        """Per-example encoding error ``||(I - P^T P)(y - o)||^2`` for every M at once.

        The second term of Theorem 1 (Eq. 3). One projection onto the full L x L basis gives
        all M: with coefficients ``c = B (y - o)``, the error with the first M directions is
        ``sum_{m > M} c_m^2``. On the training set of PLST its mean over examples is
        ``sum_{m > M} sigma_m^2 / N`` (Section 3.3).

        Parameters
        ----------
        Y : array-like of shape (n_samples, n_labels)
            0/1 label matrix (training or test labels).

        Returns
        -------
        ndarray of float64, shape (n_samples, n_labels + 1)
            Column ``M`` is the error when keeping the first M directions (M = 0 .. L); the
            fitted model's own error is column ``n_components_``.
        """
        Y = self._check_labels(Y)
        squared = ((Y - self.offset_) @ self._basis.T) ** 2
        # a reversed cumulative sum gives the residual energy without cancellation error
        tail = np.cumsum(squared[:, ::-1], axis=1)[:, ::-1]
        return np.hstack([tail, np.zeros((Y.shape[0], 1))])

    def label_encoding_error(self, Y, n_components: int | None = None) -> np.ndarray:
        """Per-label encoding error: which labels the first M directions cannot represent.

        The residual of Theorem 1 (Eq. 3), ``r = (I - P^T P)(y - o)``, split by label: entry k
        is the mean over examples of ``r_k^2``. Summed over labels it is the mean of
        :meth:`encoding_error` at column M. With M = 0 (``P`` empty) it is
        ``mean((y_k - o_k)^2)``, the label's variance when ``o`` is the training mean; a label
        the M directions do not reach at all keeps that value, so dividing by it gives the
        share of the label left unrepresented.

        Parameters
        ----------
        Y : array-like or sparse matrix of shape (n_samples, n_labels)
            0/1 label matrix (training or test labels). A sparse matrix is used as it is: its
            products cost its stored ones (:func:`mlviz._validation.labels_for_products`
            gives that form to mostly-zero labels).
        n_components : int or None, default=None
            M, between 0 and L; None means the fitted ``n_components_``.

        Returns
        -------
        ndarray of float64, shape (n_labels,)
        """
        Y = self._check_labels(Y, sparse=True)
        n_labels = self.n_labels_
        M = self.n_components_ if n_components is None else n_components
        if not isinstance(M, Integral) or isinstance(M, bool) or not 0 <= M <= n_labels:
            raise ValueError(
                f"n_components must be an integer between 0 and the number of labels "
                f"L={n_labels}; got {n_components!r}."
            )
        if Y.shape[0] == 0:
            raise ValueError("Y has no rows: the per-label error is a mean over examples.")
        kept, rest = self._basis[: int(M)], self._basis[int(M) :]
        if kept.shape[0] <= rest.shape[0]:
            return _kept_residual_energy(Y, self.offset_, kept) / Y.shape[0]
        error = np.zeros(n_labels)
        # row blocks bound the (rows, L) residual for large N x L
        rows = max(1, 2**22 // max(n_labels, 1))
        for start in range(0, Y.shape[0], rows):
            block = Y[start : start + rows]
            centred = (block.toarray() if sp.issparse(block) else block) - self.offset_
            # I - P^T P = R^T R with R the rest of the orthonormal basis: project on the
            # smaller of the two subspaces (cost N L min(M, L - M))
            if kept.shape[0] <= rest.shape[0]:
                residual = centred - (centred @ kept.T) @ kept
            else:
                residual = (centred @ rest.T) @ rest
            error += (residual**2).sum(axis=0)
        return error / Y.shape[0]


# Steps that transform X without looking at the targets, so a pipeline of them followed by a
# per-output linear model is still per-output.
_TARGET_FREE_STEPS = (FunctionTransformer, StandardScaler, MaxAbsScaler)


def is_truncatable(estimator) -> bool:
    """Whether ``estimator.truncate(M)`` gives the model that refitting with M would give.

    True for PLST, PLST-Origin, PBR and CPLST (fitted or not) whose regressor is None
    (:func:`paper_ridge`), a ``Ridge`` with one scalar alpha, a ``LinearRegression``, or a
    ``Pipeline`` of target-free steps (``FunctionTransformer``, ``StandardScaler``,
    ``MaxAbsScaler``) ending in one of those. These fit each output on its own, so dropping
    outputs does not change the others. Random forests and other multi-output models that share
    structure between outputs are not truncatable; neither are Binary Relevance (no M) and
    Compressed Sensing (its M-dependent measurement scaling and sparse decoding).

    Examples
    --------
    >>> from mlviz.linear import PLST, CompressedSensing, is_truncatable
    >>> is_truncatable(PLST(4)), is_truncatable(CompressedSensing(4, random_state=0))
    (True, False)
    """
    if not isinstance(estimator, _RoundBasedTransform) or isinstance(estimator, BinaryRelevance):
        return False
    regressor = getattr(estimator, "regressor_", None)
    if regressor is None:
        regressor = estimator.regressor
    if regressor is None:
        return True
    if isinstance(regressor, Pipeline):
        if not all(isinstance(step, _TARGET_FREE_STEPS) for _, step in regressor.steps[:-1]):
            return False
        regressor = regressor.steps[-1][1]
    if type(regressor) is LinearRegression:
        return True
    return type(regressor) is Ridge and np.ndim(regressor.alpha) == 0


def _frequency_order(Y: np.ndarray) -> np.ndarray:
    """Label indices by decreasing count of 1s, ties kept in column order (stable sort)."""
    return np.argsort(-Y.sum(axis=0), kind="stable")


class BinaryRelevance(_RoundBasedTransform):
    """Binary Relevance as linear label space transformation with ``P = I`` (Algorithm 2 / 8).

    One multi-output regressor predicts every label; ``y^ = [r(x) >= 1/2]``. The reference
    point is irrelevant when ``P = I`` and the regressor has an intercept; ``o = 0`` is used.

    Parameters
    ----------
    regressor : scikit-learn regressor or None, default=None
        Multi-output regressor (cloned). None means :func:`paper_ridge` (lambda = 0.01).

    Attributes
    ----------
    offset_ : ndarray of shape (n_labels,)
        Zeros.
    components_ : ndarray of shape (n_labels, n_labels)
        The identity.
    singular_values_ : ndarray of shape (n_labels,)
        ``||Y[:, k]||`` (square root of each label's count) in decreasing order: the analogue
        of PLST's spectrum for the axis basis.
    n_components_ : int
        L.
    regressor_ : fitted regressor
    n_features_in_, n_labels_ : int
    constant_labels_, constant_values_ : ndarray
        Labels constant in training and their value (0.0 or 1.0): they are decoded to it.

    Notes
    -----
    :meth:`encoding_error` orders the axes by decreasing label frequency, i.e. column M equals
    PBR-Origin with M components.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.linear import BinaryRelevance
    >>> model = BinaryRelevance().fit(X, Y)
    >>> model.predict(X).shape, model.n_components_
    ((150, 22), 22)
    """

    _parameter_constraints: dict = {"regressor": _REGRESSOR}

    def __init__(self, regressor=None):
        self.regressor = regressor

    def _n_components(self, n_labels: int) -> int:
        return n_labels

    def _fit_label_space(self, X, Y, n_components):
        order = _frequency_order(Y)
        self._set_basis(np.zeros(Y.shape[1]), np.eye(Y.shape[1])[order], n_components)
        self.components_ = np.eye(Y.shape[1])
        self.singular_values_ = np.sqrt(Y.sum(axis=0)[order])

    # P = I: encoding and decoding are the identity map, so skip the L x L products (they were
    # three quarters of a BR fit with ~1,000 labels). Exact: each product term is x * 1 or x * 0.
    def _encode(self, Y: np.ndarray) -> np.ndarray:
        return np.asarray(Y, dtype=np.float64) - self.offset_

    def _decode(self, codes: np.ndarray) -> np.ndarray:
        return self.offset_ + codes


class PBR(_RoundBasedTransform):
    """Partial Binary Relevance: regress only the M most frequent labels (Section 3.2).

    ``P`` holds the rows of ``I`` for the M labels with the most 1s in training (ties: lower
    column index first); every other label is decoded as its component of ``o``.

    Parameters
    ----------
    n_components : int or None, default=None
        M, 1 <= M <= L. None means M = L (every direction: no compression).
    reference : {"origin", "mean"}, default="origin"
        ``o = 0`` (PBR-Origin, the paper's PBR: dropped labels predicted 0) or ``o`` = mean
        label vector (PBR-Mean, Section 4.4: dropped labels predicted by rounding their
        training frequency, ties at exactly 1/2 predicted 1 as in Eq. 2).
    regressor : scikit-learn regressor or None, default=None
        Multi-output regressor (cloned). None means :func:`paper_ridge`.

    Attributes
    ----------
    offset_ : ndarray of shape (n_labels,)
    components_ : ndarray of shape (n_components, n_labels)
        Rows of the identity, most frequent label first.
    kept_labels_ : ndarray of int, shape (n_components,)
        Indices of the regressed labels.
    singular_values_ : ndarray of shape (n_labels,)
        ``||Y[:, j] - o[j]||`` in the basis order (frequency order, not necessarily sorted).
    n_components_ : int
    regressor_ : fitted regressor
    n_features_in_, n_labels_ : int
    constant_labels_, constant_values_ : ndarray
        Labels constant in training and their value (0.0 or 1.0): they are decoded to it.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.linear import PBR
    >>> model = PBR(4).fit(X, Y)
    >>> model.predict(X).shape, len(model.kept_labels_)
    ((150, 22), 4)
    """

    _parameter_constraints: dict = {
        "n_components": [_N_COMPONENTS, None],
        "reference": [StrOptions({"origin", "mean"})],
        "regressor": _REGRESSOR,
    }

    def __init__(
        self, n_components: int | None = None, *, reference: str = "origin", regressor=None
    ):
        self.n_components = n_components
        self.reference = reference
        self.regressor = regressor

    def _fit_label_space(self, X, Y, n_components):
        offset = np.zeros(Y.shape[1]) if self.reference == "origin" else Y.mean(axis=0)
        order = _frequency_order(Y)
        self._set_basis(offset, np.eye(Y.shape[1])[order], n_components)
        self.kept_labels_ = order[:n_components].copy()
        self.singular_values_ = np.linalg.norm(Y - offset, axis=0)[order]

    # P selects rows of I: column selection and a scatter instead of products with P (exact).
    def _encode(self, Y: np.ndarray) -> np.ndarray:
        kept = self.kept_labels_
        return np.asarray(Y, dtype=np.float64)[:, kept] - self.offset_[kept]

    def _decode(self, codes: np.ndarray) -> np.ndarray:
        decoded = np.repeat(self.offset_[None, :], codes.shape[0], axis=0)
        decoded[:, self.kept_labels_] += codes
        return decoded

    def _after_truncation(self, n_components: int) -> None:
        self.kept_labels_ = self.kept_labels_[:n_components].copy()


def _kept_residual_energy(
    Y: np.ndarray | sp.csr_matrix, offset: np.ndarray, kept: np.ndarray
) -> np.ndarray:
    """``sum_i r_ik^2`` per label k, ``r_i = c_i (I - P^T P)``, ``c_i = y_i - o``, for 0/1 Y.

    Expanded so that no (N, L) array is formed: with ``W = C P^T`` (N x M),
    ``sum_i r_ik^2 = sum_i c_ik^2 - 2 (P^T-weighted C^T W)_k + diag(P^T W^T W P)_k``, and
    ``sum_i c_ik^2 = n_k (1 - 2 o_k) + N o_k^2`` because y^2 = y for 0/1 labels (n_k the
    count of label k). Two (N, L) x (L, M) products instead of ~6 passes over N x L
    float64 blocks: the PLST page's M slider at 11,273 x 983 spent 0.13 s here per call.
    The subtraction is the one the residual ``C - C P^T P`` makes; values a rounding error
    below 0 (a label fully represented) are returned as 0. ``Y`` may be CSR: the two products
    then cost its stored ones (0.09 -> 0.01 s at 11,273 x 983 with 2 % ones, M = 30).
    """
    n_samples = Y.shape[0]
    counts = np.asarray(Y.sum(axis=0)).ravel()
    energy = counts * (1.0 - 2.0 * offset) + n_samples * offset**2
    if kept.shape[0] == 0:
        return energy
    W = Y @ kept.T
    W -= offset @ kept.T
    CtW = Y.T @ W
    CtW -= np.outer(offset, W.sum(axis=0))
    energy -= 2.0 * np.einsum("mk,km->k", kept, CtW)
    energy += np.einsum("mk,mk->k", kept, (W.T @ W) @ kept)
    return np.maximum(energy, 0.0)


def _right_singular_basis(Y: np.ndarray, offset: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Singular values and right singular vectors (rows) of ``Z = Y - o``, for N >= L.

    From the L x L matrix ``Z^T Z = Y^T Y - N o o^T`` (``Y^T Y`` as a sparse product of the 0/1
    labels: exact integer counts, O(N c^2) for label cardinality c) and its eigendecomposition,
    instead of an SVD of the N x L matrix that also builds the N x L left factor PLST never
    uses: the same subspace (``tests/test_linear.py`` compares with ``scipy.linalg.svd`` up to
    sign); ``benchmarks/bench_scale.py`` times both on a delicious-shaped set. Squaring costs
    accuracy only in the directions with singular values below ~1e-8 times the largest, which
    carry no label energy.
    """
    labels = csr_labels(Y)
    counts = (labels.T @ labels).toarray()
    gram = counts - Y.shape[0] * np.outer(offset, offset)
    eigenvalues, eigenvectors = la.eigh(0.5 * (gram + gram.T))
    order = np.argsort(eigenvalues, kind="stable")[::-1]
    singular_values = np.sqrt(np.clip(eigenvalues[order], 0.0, None))
    return singular_values, eigenvectors[:, order].T


class PLST(_RoundBasedTransform):
    """Principal Label Space Transformation (Algorithm 9).

    ``o`` is the mean label vector and ``P = U_M^T``, the top-M right singular vectors of the
    N x L matrix ``Z = Y - o`` (the transpose of the paper's L x N ``Z``, Eq. 7). This solves
    Eq. 6: it minimises the training encoding error, which equals ``sum_{m>M} sigma_m^2``.

    Parameters
    ----------
    n_components : int or None, default=None
        M, 1 <= M <= L. None means M = L (every direction: no compression).
    regressor : scikit-learn regressor or None, default=None
        Multi-output regressor (cloned). None means :func:`paper_ridge` (lambda = 0.01).
    center : bool, default=True
        False gives PLST-Origin (Section 4.4): ``o = 0`` and the SVD of Y itself.

    Attributes
    ----------
    offset_ : ndarray of shape (n_labels,)
        ``o``.
    components_ : ndarray of shape (n_components, n_labels)
        ``P``, orthonormal rows; each row's largest-magnitude entry is positive.
    singular_values_ : ndarray of shape (n_labels,)
        All L singular values of ``Z`` in decreasing order (zeros appended when N < L).
    explained_variance_ratio_ : ndarray of shape (n_components,)
        Share of the training label variance along each kept direction,
        ``sigma_m^2 / sum_j sigma_j^2`` for m = 1..M (as scikit-learn's
        ``PCA.explained_variance_ratio_``). Its sum is the variance PLST keeps; the rest,
        ``sum_{m>M} sigma_m^2``, is the training encoding error (Section 3.3). All NaN when
        every singular value is 0 (all training instances share one label set: there is no
        variance to keep), rather than an arbitrary share.
    n_components_ : int
    regressor_ : fitted regressor
    n_features_in_, n_labels_ : int
    constant_labels_, constant_values_ : ndarray
        Labels constant in training and their value (0.0 or 1.0): they are decoded to it.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.linear import PLST
    >>> model = PLST(4).fit(X, Y)
    >>> model.components_.shape, model.predict(X).shape
    ((4, 22), (150, 22))
    >>> model.truncate(2).components_.shape  # the same model refitted with M = 2
    (2, 22)
    """

    _parameter_constraints: dict = {
        "n_components": [_N_COMPONENTS, None],
        "regressor": _REGRESSOR,
        "center": ["boolean"],
    }

    def __init__(self, n_components: int | None = None, *, regressor=None, center: bool = True):
        self.n_components = n_components
        self.regressor = regressor
        self.center = center

    def _fit_label_space(self, X, Y, n_components):
        offset = Y.mean(axis=0) if self.center else np.zeros(Y.shape[1])
        n_samples, n_labels = Y.shape
        if n_samples >= n_labels:
            singular_values, basis = _right_singular_basis(Y, offset)
            self._set_basis(offset, _deterministic_signs(basis), n_components)
            self.singular_values_ = singular_values
            self._set_explained_variance_ratio(n_components)
            return
        _, singular_values, basis = la.svd(Y - offset, full_matrices=False)
        if basis.shape[0] < n_labels:
            # N < L: complete the basis so that encoding_error covers every M up to L
            complement = la.null_space(basis).T
            basis = np.vstack([basis, complement])
            singular_values = np.concatenate(
                [singular_values, np.zeros(n_labels - singular_values.size)]
            )
        self._set_basis(offset, _deterministic_signs(basis), n_components)
        self.singular_values_ = singular_values
        self._set_explained_variance_ratio(n_components)

    def _set_explained_variance_ratio(self, n_components: int) -> None:
        energy = self.singular_values_**2
        total = energy.sum()
        # no variance at all: no share is defined (0/0), so NaN rather than a made-up 0 or 1
        self.explained_variance_ratio_ = (
            energy[:n_components] / total if total > 0 else np.full(n_components, np.nan)
        )

    def _after_truncation(self, n_components: int) -> None:
        self.explained_variance_ratio_ = self.explained_variance_ratio_[:n_components].copy()


def _ridge_hat_gram(X, Z: np.ndarray, alpha: float) -> np.ndarray:
    """``Z^T H Z`` with ``H = Xc (Xc^T Xc + alpha I)^{-1} Xc^T`` and Xc the centred X.

    Z has zero column means, so ``Xc^T Z = X^T Z`` and X (dense or CSR) is never centred
    explicitly. The d x d (primal) or N x N (dual) system is chosen by the smaller size.
    ``alpha = inf`` returns the limit of ``alpha * Z^T H Z``: ``(X^T Z)^T (X^T Z)``.
    """
    cross = np.asarray(X.T @ Z)  # Xc^T Z, shape (d, L)
    if np.isinf(alpha):
        return cross.T @ cross
    n_samples, n_features = X.shape
    mean = np.asarray(X.mean(axis=0)).ravel()
    if n_features <= n_samples:
        gram = X.T @ X
        gram = gram.toarray() if sp.issparse(gram) else np.asarray(gram)
        gram -= n_samples * np.outer(mean, mean)
        gram[np.diag_indices_from(gram)] += alpha
        return cross.T @ la.solve(gram, cross, assume_a="pos")
    # dual form: H = Kc (Kc + alpha I)^{-1} with Kc = Xc Xc^T
    shift = np.asarray(X @ mean).ravel()
    kernel = X @ X.T
    kernel = kernel.toarray() if sp.issparse(kernel) else np.asarray(kernel)
    kernel += float(mean @ mean) - shift[:, None] - shift[None, :]
    kernel_z = kernel @ Z
    kernel[np.diag_indices_from(kernel)] += alpha
    return Z.T @ la.solve(kernel, kernel_z, assume_a="pos")


class CPLST(_RoundBasedTransform):
    """Conditional Principal Label Space Transformation (Chen & Lin, NIPS 2012).

    ``o`` is the mean label vector, ``Z = Y - o`` (N x L) and ``P`` holds the top-M
    eigenvectors of ``Z^T H Z`` with the ridge hat matrix

        ``H = Xc (Xc^T Xc + alpha I)^{-1} Xc^T``,  ``Xc = X - mean(X)``.

    Centring X makes H the hat matrix of ridge regression with an unpenalised intercept
    (whose intercept part ``11^T/N`` vanishes on the centred Z); the authors' code
    (``cplst_encode.m``) uses the raw X. ``Z^T H Z`` trades the encoding error (PLST's
    ``Z^T Z``) against how well the codes can be predicted from X.

    Parameters
    ----------
    n_components : int or None, default=None
        M, 1 <= M <= L. None means M = L (every direction: no compression).
    alpha : float, default=0.01
        lambda of the hat matrix, >= 0; ``numpy.inf`` is the limit ``lambda -> inf`` where
        ``lambda Z^T H Z -> Z^T Xc Xc^T Z`` (H itself tends to 0; its scale does not change the
        eigenvectors). The default matches the default regressor's lambda.
    regressor : scikit-learn regressor or None, default=None
        Multi-output regressor (cloned). None means :func:`paper_ridge`.

    Attributes
    ----------
    offset_ : ndarray of shape (n_labels,)
    components_ : ndarray of shape (n_components, n_labels)
    singular_values_ : ndarray of shape (n_labels,)
        Square roots of the eigenvalues of ``Z^T H Z`` (of ``Z^T Xc Xc^T Z`` for
        alpha = inf), decreasing.
    n_components_ : int
    regressor_ : fitted regressor
    n_features_in_, n_labels_ : int
    constant_labels_, constant_values_ : ndarray
        Labels constant in training and their value (0.0 or 1.0): they are decoded to it.

    Notes
    -----
    ``Z^T H Z`` is computed in float64 also for float32 X: the centred Gram matrix
    ``X^T X - N m m^T`` loses most of its digits to cancellation in float32. The regressor
    still receives X in its own dtype.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.linear import CPLST
    >>> model = CPLST(4, alpha=0.01).fit(X, Y)
    >>> model.components_.shape, model.predict(X).shape
    ((4, 22), (150, 22))
    """

    _parameter_constraints: dict = {
        "n_components": [_N_COMPONENTS, None],
        "alpha": [Interval(Real, 0, None, closed="both")],  # numpy.inf included
        "regressor": _REGRESSOR,
    }

    def __init__(
        self,
        n_components: int | None = None,
        *,
        alpha: float = PAPER_RIDGE_ALPHA,
        regressor=None,
    ):
        self.n_components = n_components
        self.alpha = alpha
        self.regressor = regressor

    def _fit_label_space(self, X, Y, n_components):
        alpha = self.alpha
        # float64 even for float32 X: the centred Gram X^T X - N m m^T cancels badly in float32
        X = X.astype(np.float64, copy=False)
        offset = Y.mean(axis=0)
        centred = Y - offset
        try:
            with warnings.catch_warnings():
                # an ill-conditioned solve would silently give meaningless directions
                warnings.simplefilter("error", la.LinAlgWarning)
                conditional = _ridge_hat_gram(X, centred, float(alpha))
        except (la.LinAlgError, la.LinAlgWarning) as err:
            raise ValueError(
                f"CPLST: Xc^T Xc + alpha I is singular for alpha={alpha!r} (constant or "
                "duplicated features with alpha = 0). Use alpha > 0."
            ) from err
        eigenvalues, eigenvectors = la.eigh((conditional + conditional.T) / 2)
        order = np.argsort(eigenvalues)[::-1]
        basis = _deterministic_signs(eigenvectors[:, order].T)
        self._set_basis(offset, basis, n_components)
        self.singular_values_ = np.sqrt(np.clip(eigenvalues[order], 0.0, None))


def _hadamard_rows(n_rows: int, n_labels: int, rng: np.random.RandomState) -> np.ndarray:
    """``n_rows`` random rows of the Hadamard matrix of order 2^ceil(log2 L), first L columns."""
    order = 1 << max(0, int(np.ceil(np.log2(n_labels))))
    rows = rng.permutation(order)[:n_rows]
    return la.hadamard(order)[rows, :n_labels].astype(np.float64)


class CompressedSensing(_LinearLabelTransform):
    """Compressed Sensing for multi-label prediction (Hsu et al. 2009; Algorithm 4 of paper 004).

    Encoding ``h = P (y - o)`` with a random M x L measurement matrix; decoding solves, for each
    instance, a sparse reconstruction: an ``s``-sparse ``z`` whose code ``P z`` fits ``r(x)``
    in least squares, found by CoSaMP (:func:`mlviz.sparse_recovery.cosamp`, Needell & Tropp
    2009; the paper's decoder, Section 4) or by orthogonal matching pursuit (scikit-learn's
    :func:`~sklearn.linear_model.orthogonal_mp`). Then ``y~ = o + z`` (with sign flips for
    CS-BestVertex) and ``y^ = [y~ >= 1/2]`` (Eq. 2).

    Parameters
    ----------
    n_components : int or None, default=None
        M, the number of measurements, 1 <= M <= L. None means M = L (as many measurements
        as labels: no compression).
    projection : {"hadamard", "gaussian"}, default="hadamard"
        "hadamard" (the paper's choice, following Hsu et al.): M distinct random rows of the
        Sylvester-Hadamard matrix of order ``2^ceil(log2 L)``, keeping its first L columns
        (the authors' ``cs_encode.m`` does the same), scaled by ``1/sqrt(M)`` so every column
        has unit norm. "gaussian": i.i.d. N(0, 1/M) entries.
    sparsity : int or None, default=None
        s, the number of nonzeros of the reconstruction. None: the largest number of labels
        (of nonzeros of ``y - o`` for CS-BestVertex) in a training example, the paper's
        *nonzero* column of Table 2 (Section 4: emotions 3, yeast 11). CoSaMP uses s as is
        (capped at L), also when s > M, as the paper did (s = 11 at M = 4 on yeast): its least
        squares are then underdetermined and take the minimum-norm solution, like the
        authors' MATLAB ``pinv``. OMP caps s at M, because after M atoms its residual is
        zero (``sparsity_`` holds the value used).
    reference : {"origin", "best_vertex"}, default="origin"
        CS-Origin (the paper's CS) or CS-BestVertex (Section 4.4): each label is XOR-ed with
        its training majority (ties: 0) before encoding and after decoding, which makes the
        signals sparser on dense data. In linear form ``o`` = the majority vertex and the
        columns of P are negated for labels whose majority is 1.
    decoder : {"cosamp", "omp"}, default="cosamp"
        The sparse reconstruction: CoSaMP (the paper's choice) or orthogonal matching pursuit.
    regressor : scikit-learn regressor or None, default=None
        Multi-output regressor (cloned). None means :func:`paper_ridge`.
    random_state : int, RandomState or None, default=None
        Seeds the measurement matrix.

    Attributes
    ----------
    offset_ : ndarray of shape (n_labels,)
        0 or the majority vertex.
    components_ : ndarray of shape (n_components, n_labels)
        The encoding matrix (``P`` with the BestVertex sign flips applied).
    measurement_matrix_ : ndarray of shape (n_components, n_labels)
        ``P`` without sign flips: the dictionary of the sparse reconstruction.
    singular_values_ : ndarray of shape (n_components,)
        Singular values of ``P`` (how well conditioned the measurements are).
    sparsity_ : int
    n_components_ : int
    regressor_ : fitted regressor
    n_features_in_, n_labels_ : int
    constant_labels_, constant_values_ : ndarray
        Labels constant in training and their value (0.0 or 1.0): they are decoded to it.

    Notes
    -----
    ``predict_decoded`` returns the reconstructed ``y~`` (``decision_function`` returns
    ``y~ - 1/2``): exactly ``o`` outside the recovered support, so as the paper notes CS ranks
    poorly (many ties).

    With few Hadamard rows, columns of P coincide up to sign (M rows give at most
    ``2^(M-1)`` distinct sign patterns: L = 14, M = 4 has 8 for 14 labels), so the
    reconstruction cannot tell those labels apart and the choice between identical atoms is
    arbitrary -- one reason CS does poorly on yeast and emotions at small M. When ``2s >= L``
    (both of those data sets at the paper's s) CoSaMP's identification step takes every
    atom, so its result is the minimum-norm least-squares solution pruned to its s largest
    entries.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.linear import CompressedSensing
    >>> model = CompressedSensing(12, random_state=0).fit(X, Y)
    >>> model.measurement_matrix_.shape, model.predict(X[:5]).shape
    ((12, 22), (5, 22))
    """

    _parameter_constraints: dict = {
        "n_components": [_N_COMPONENTS, None],
        "projection": [StrOptions({"hadamard", "gaussian"})],
        "sparsity": [Interval(Integral, 1, None, closed="left"), None],
        "reference": [StrOptions({"origin", "best_vertex"})],
        "decoder": [StrOptions({"cosamp", "omp"})],
        "regressor": _REGRESSOR,
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_components: int | None = None,
        *,
        projection: str = "hadamard",
        sparsity: int | None = None,
        reference: str = "origin",
        decoder: str = "cosamp",
        regressor=None,
        random_state=None,
    ):
        self.n_components = n_components
        self.projection = projection
        self.sparsity = sparsity
        self.reference = reference
        self.decoder = decoder
        self.regressor = regressor
        self.random_state = random_state

    def _fit_label_space(self, X, Y, n_components):
        n_labels = Y.shape[1]
        if self.reference == "origin":
            offset = np.zeros(n_labels)
        else:  # "best_vertex"
            offset = (Y.mean(axis=0) > 0.5).astype(np.float64)
        rng = check_random_state(self.random_state)
        if self.projection == "hadamard":
            measurement = _hadamard_rows(n_components, n_labels, rng) / np.sqrt(n_components)
        else:  # "gaussian"
            measurement = rng.standard_normal((n_components, n_labels)) / np.sqrt(n_components)
        if self.sparsity is None:
            sparsity = int(np.abs(Y - offset).sum(axis=1).max())
        else:
            sparsity = int(self.sparsity)
        self.offset_ = offset
        self.measurement_matrix_ = measurement
        self.components_ = measurement * self._flips()
        self.sparsity_ = min(sparsity, n_labels if self.decoder == "cosamp" else n_components)
        self.singular_values_ = la.svdvals(measurement)

    def _flips(self) -> np.ndarray:
        # y XOR b = b + (1 - 2b) * (y - b) for 0/1 vectors: a shift by o = b and sign flips
        return 1.0 - 2.0 * self.offset_

    def _decode(self, codes: np.ndarray) -> np.ndarray:
        n_samples = codes.shape[0]
        signal = np.zeros((n_samples, self.n_labels_))
        if self.sparsity_ >= 1 and n_samples:
            if self.decoder == "cosamp":
                signal = cosamp(self.measurement_matrix_, codes, self.sparsity_)
            else:
                signal = self._decode_omp(codes)
        return self.offset_ + signal * self._flips()

    def _decode_omp(self, codes: np.ndarray) -> np.ndarray:
        norms = np.linalg.norm(self.measurement_matrix_, axis=0)
        norms[norms == 0] = 1.0
        with warnings.catch_warnings():
            # OMP warns when the residual vanishes before s atoms are chosen, which is the
            # expected outcome for codes of vectors with fewer than s labels (e.g. y = o)
            warnings.filterwarnings(
                "ignore", message="Orthogonal matching pursuit ended prematurely"
            )
            coefs = orthogonal_mp(
                self.measurement_matrix_ / norms,
                codes.T,
                n_nonzero_coefs=self.sparsity_,
                precompute=True,
            )
        return coefs.reshape(self.n_labels_, codes.shape[0]).T / norms
