"""Every mlviz estimator used the way a scikit-learn user uses a multi-label classifier.

Model selection with default scoring, cross_val_predict, pipelines, pandas input, dtypes,
the signatures and the target checks; the per-algorithm maths is tested in
the per-module test files, scikit-learn's own checks in ``estimator_checks.py``.
"""

from __future__ import annotations

import dataclasses
import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.base import clone, is_classifier
from sklearn.datasets import make_multilabel_classification
from sklearn.linear_model import Ridge
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GridSearchCV, KFold, cross_val_predict, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import get_tags
from sklearn.utils.extmath import svd_flip

from mlviz._compat import InvalidParameterError
from mlviz.clems import CLEMS
from mlviz.grople import GroPLE
from mlviz.label_clustering import LabelClustering
from mlviz.linear import CPLST, PBR, PLST, BinaryRelevance, CompressedSensing
from mlviz.mlknn import MLkNN, MLkNNPath
from mlviz.thresholds import PerLabelThreshold

N_LABELS = 5


def _estimators():
    """One small, fast instance of every estimator (GroPLE and CLEMS with few iterations)."""
    return [
        BinaryRelevance(),
        PLST(3),
        PBR(3),
        CPLST(3),
        CompressedSensing(4, random_state=0),
        MLkNN(k=5),
        GroPLE(n_components=4, n_groups=2, max_iter=5, feature_max_iter=20, random_state=0),
        CLEMS(max_iter=50, random_state=0),
        PerLabelThreshold(BinaryRelevance(), cv=2, random_state=0),
    ]


def _ids(estimator) -> str:
    return type(estimator).__name__


ESTIMATORS = pytest.mark.parametrize("estimator", _estimators(), ids=_ids)


def _problem(n_samples: int = 120, seed: int = 0):
    X, Y = make_multilabel_classification(
        n_samples=n_samples,
        n_features=8,
        n_classes=N_LABELS,
        n_labels=2,
        allow_unlabeled=True,
        random_state=seed,
    )
    return X, Y  # Y is int64


def _fit_quietly(estimator, X, y):
    with warnings.catch_warnings():
        # GroPLE warns when n_groups exceeds the labels of a fold; not what is tested here
        warnings.simplefilter("ignore", UserWarning)
        return clone(estimator).fit(X, y)


# ----------------------------------------------------------------------------- the contract
@ESTIMATORS
def test_is_a_multi_label_classifier_by_its_tags(estimator):
    tags = get_tags(estimator)
    assert is_classifier(estimator) and tags.estimator_type == "classifier"
    assert tags.classifier_tags.multi_label and not tags.classifier_tags.multi_class
    assert tags.target_tags.multi_output and tags.target_tags.required
    assert tags.input_tags.sparse


@ESTIMATORS
def test_classes_and_score_are_scikit_learns(estimator):
    X, Y = _problem()
    model = _fit_quietly(estimator, X, Y)
    # one row array([0, 1]) per label, also for labels that are constant in training
    np.testing.assert_array_equal(model.classes_, np.tile([0, 1], (N_LABELS, 1)))
    predicted = model.predict(X)
    # ClassifierMixin.score on a label matrix is subset accuracy: whole rows must match
    subset = np.mean(np.all(predicted == Y, axis=1))
    assert model.score(X, Y) == pytest.approx(subset)
    assert model.score(X, Y) == pytest.approx(accuracy_score(Y, predicted))


@ESTIMATORS
@pytest.mark.parametrize("dtype", [bool, np.int64, np.uint8, np.float64], ids=str)
def test_predict_returns_the_dtype_of_y(estimator, dtype):
    X, Y = _problem()
    y = Y.astype(dtype)
    model = _fit_quietly(estimator, X, y)
    predicted = model.predict(X[:7])
    assert predicted.dtype == np.dtype(dtype) and predicted.shape == (7, N_LABELS)
    assert model.classes_[0].dtype == np.dtype(dtype)
    # the values do not depend on the dtype: the same model up to the output cast
    reference = _fit_quietly(estimator, X, Y.astype(np.uint8)).predict(X[:7])
    np.testing.assert_array_equal(predicted.astype(np.uint8), reference)


@ESTIMATORS
def test_decision_function_is_positive_exactly_where_predicted(estimator):
    # the assertions of scikit-learn's check_classifier_multioutput that do not index
    # classes_ as one array (see estimator_checks.EXPECTED_FAILURES)
    X, Y = _problem(seed=3)
    model = _fit_quietly(estimator, X, Y)
    predicted = model.predict(X)
    assert predicted.dtype.kind == "i" and predicted.shape == Y.shape
    scores = model.decision_function(X)
    assert isinstance(scores, np.ndarray) and scores.shape == Y.shape
    # ties at exactly 0 are predicted positive (Eq. 2 of the PLST paper, ML-KNN's MAP rule);
    # GroPLE predicts score > 0 and CLEMS ties do not occur on this data
    np.testing.assert_array_equal((scores > 0) | ((scores == 0) & (predicted == 1)), predicted)


def test_mlknn_predict_proba_rounds_to_predict_and_ranks_like_decision_function():
    X, Y = _problem(seed=4)
    model = MLkNN(k=5).fit(X, Y)
    proba = model.predict_proba(X)
    assert proba.shape == Y.shape and ((proba > 0) & (proba < 1)).all()
    np.testing.assert_array_equal(proba >= 0.5, model.predict(X) == 1)
    decision = model.decision_function(X)
    for column in range(N_LABELS):
        order = np.argsort(proba[:, column], kind="stable")
        assert np.all(np.diff(decision[order, column]) >= 0)


# ------------------------------------------------------------------------ model selection
@ESTIMATORS
def test_grid_search_with_default_scoring(estimator):
    X, Y = _problem(n_samples=90)
    name, values = {
        "BinaryRelevance": ("regressor", [None, Ridge(alpha=10.0)]),
        "MLkNN": ("k", [3, 7]),
        "GroPLE": ("beta", [0.1, 1.0]),
        "CLEMS": ("cost", ["f1", "hamming"]),
        "PerLabelThreshold": ("cv", [2, 3]),
    }.get(type(estimator).__name__, ("n_components", [1, 3]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        search = GridSearchCV(estimator, {name: values}, cv=KFold(3)).fit(X, Y)
    # default scoring is the estimator's score: subset accuracy of each held-out fold
    fold_scores = []
    for train, test in KFold(3).split(X):
        model = _fit_quietly(clone(estimator).set_params(**{name: values[0]}), X[train], Y[train])
        fold_scores.append(accuracy_score(Y[test], model.predict(X[test])))
    assert search.cv_results_["mean_test_score"][0] == pytest.approx(np.mean(fold_scores))
    assert search.best_params_[name] in values
    assert search.predict(X).shape == Y.shape


@ESTIMATORS
def test_cross_val_predict_decision_function(estimator):
    X, Y = _problem(n_samples=90)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        scores = cross_val_predict(estimator, X, Y, cv=KFold(3), method="decision_function")
    assert scores.shape == Y.shape and scores.dtype == np.float64
    first_fold = KFold(3).split(X).__next__()
    train, test = first_fold
    direct = _fit_quietly(estimator, X[train], Y[train]).decision_function(X[test])
    np.testing.assert_allclose(scores[test], direct)


def test_cross_val_predict_predict_proba_of_mlknn():
    X, Y = _problem(n_samples=90)
    proba = cross_val_predict(MLkNN(k=5), X, Y, cv=KFold(3), method="predict_proba")
    assert proba.shape == Y.shape
    train, test = next(KFold(3).split(X))
    np.testing.assert_allclose(
        proba[test], MLkNN(k=5).fit(X[train], Y[train]).predict_proba(X[test])
    )


@ESTIMATORS
def test_pipeline_with_a_scaler(estimator):
    X, Y = _problem()
    X = X * np.arange(1, X.shape[1] + 1)  # features on different scales
    pipe = Pipeline([("scale", StandardScaler()), ("model", clone(estimator))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        pipe.fit(X, Y)
    by_hand = _fit_quietly(estimator, StandardScaler().fit_transform(X), Y)
    scaled = StandardScaler().fit(X).transform(X)
    np.testing.assert_array_equal(pipe.predict(X), by_hand.predict(scaled))
    assert pipe.score(X, Y) == pytest.approx(by_hand.score(scaled, Y))


# ------------------------------------------------------------------------------ pandas input
@ESTIMATORS
def test_dataframe_input_sets_and_checks_feature_names(estimator):
    X, Y = _problem()
    columns = [f"f{i}" for i in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=columns)
    labels = pd.DataFrame(Y, columns=[f"label{k}" for k in range(N_LABELS)])
    model = _fit_quietly(estimator, frame, labels)
    np.testing.assert_array_equal(model.feature_names_in_, columns)
    np.testing.assert_array_equal(model.predict(frame), _fit_quietly(estimator, X, Y).predict(X))
    renamed = frame.rename(columns={"f0": "g0"})
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(renamed)
    # a plain array after fitting with names: scikit-learn warns, as for its own estimators
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        model.predict(X)
    assert not hasattr(_fit_quietly(estimator, X, Y), "feature_names_in_")


# ------------------------------------------------------------------------------------ dtypes
@pytest.mark.parametrize(
    "estimator",
    [BinaryRelevance(), PLST(3), PBR(3), CompressedSensing(4, random_state=0)],
    ids=_ids,
)
def test_float32_features_reach_the_default_ridge_in_float32(estimator):
    X, Y = _problem()
    model = clone(estimator).fit(X.astype(np.float32), Y)
    assert model.regressor_[-1].coef_.dtype == np.float32
    assert model.decision_function(X.astype(np.float32)).dtype == np.float64
    codes_32 = model.regressor_.predict(X.astype(np.float32))
    codes_64 = clone(estimator).fit(X, Y).regressor_.predict(X)
    # float32 ridge: the same regression to float32 precision (CS decodes the codes by a
    # discontinuous sparse search, so its decoded labels are not compared)
    np.testing.assert_allclose(codes_32, codes_64, rtol=1e-4, atol=1e-4)


def test_float32_cplst_computes_its_directions_in_float64():
    X, Y = _problem()
    model = CPLST(3).fit(X.astype(np.float32), Y)
    assert model.regressor_[-1].coef_.dtype == np.float32
    # the directions come from the float64 hat Gram of the float32 values
    exact = CPLST(3).fit(X.astype(np.float32).astype(np.float64), Y)
    np.testing.assert_allclose(model.components_, exact.components_, atol=1e-10)


def test_float32_mlknn_keeps_float32_features():
    X, Y = _problem()
    model = MLkNN(k=5).fit(X.astype(np.float32), Y)
    assert model.train_features_.dtype == np.float32
    # make_multilabel_classification's features are integer counts: float32 is exact, the
    # distances and hence the neighbours are the same
    np.testing.assert_array_equal(
        model.predict(X.astype(np.float32)), MLkNN(k=5).fit(X, Y).predict(X)
    )
    sparse = MLkNN(k=5).fit(sp.csr_matrix(X, dtype=np.float32), Y)
    assert sparse.train_features_.dtype == np.float32


def test_float32_grople_works_in_float64():
    X, Y = _problem()
    params = dict(n_components=4, n_groups=2, max_iter=5, feature_max_iter=20, random_state=0)
    model = GroPLE(**params).fit(X.astype(np.float32), Y)
    assert model.Z_.dtype == np.float64
    # the counts of make_multilabel_classification are exact in float32
    np.testing.assert_allclose(model.Z_, GroPLE(**params).fit(X, Y).Z_, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------- y: 1-D, errors
@ESTIMATORS
def test_a_1d_y_is_one_label_with_binary_classifier_conventions(estimator):
    X, Y = _problem()
    y = Y[:, 1]
    one_label = clone(estimator)
    if "n_components" in one_label.get_params() and type(estimator) is not CLEMS:
        one_label.set_params(n_components=1)
    as_vector = _fit_quietly(one_label, X, y)
    as_column = _fit_quietly(one_label, X, y.reshape(-1, 1))
    np.testing.assert_array_equal(as_vector.classes_, [0, 1])
    assert as_vector.predict(X).shape == (len(X),)
    np.testing.assert_array_equal(as_vector.predict(X), as_column.predict(X)[:, 0])
    np.testing.assert_allclose(as_vector.decision_function(X), as_column.decision_function(X)[:, 0])
    if hasattr(as_vector, "predict_proba"):
        proba = as_vector.predict_proba(X)
        assert proba.shape == (len(X), 2)
        np.testing.assert_allclose(proba[:, 1], as_column.predict_proba(X)[:, 0])
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_grople_fit_transform_equals_fit_then_transform():
    X, Y = _problem()
    model = GroPLE(n_components=4, n_groups=2, max_iter=5, feature_max_iter=20, random_state=0)
    embedded = clone(model).fit_transform(X, Y)
    # equal up to BLAS rounding (buffer alignment changes the summation order)
    np.testing.assert_allclose(embedded, clone(model).fit(X, Y).transform(X), atol=1e-12)


@pytest.mark.parametrize(
    ("y", "message"),
    [
        (np.arange(120) % 3, "Only binary classification is supported.*LabelBinarizer"),
        (np.linspace(0, 1, 120), "continuous values"),
        (np.where(np.arange(120) % 2, "yes", "no"), "Unknown label type"),
        (np.full((120, 2), 2), "only 0 and 1; found 2"),
        (-np.ones((120, 2)), r"Convert \{-1, 1\} labels"),
        (np.ones((119, 2)), "different numbers of rows: 120 and 119"),
        (None, "requires y to be passed"),
    ],
    ids=["multiclass", "continuous", "strings", "twos", "minus-one", "rows", "none"],
)
def test_bad_targets_are_explained(y, message):
    X, _ = _problem()
    with pytest.raises(ValueError, match=message):
        PLST(1).fit(X, y)


def test_nan_or_inf_features_are_rejected_clearly():
    X, Y = _problem()
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        MLkNN().fit(X, Y)
    X[3, 2] = np.inf
    with pytest.raises(ValueError, match="Input X contains infinity"):
        PLST(2).fit(X, Y)


# ---------------------------------------------------------------------------- svd_flip
def _largest_entry_positive_by_hand(basis: np.ndarray) -> np.ndarray:
    """The hand-written sign rule svd_flip replaced (kept here as the specification)."""
    pivots = np.argmax(np.abs(basis), axis=1)
    signs = np.sign(basis[np.arange(basis.shape[0]), pivots])
    signs[signs == 0] = 1.0
    return basis * signs[:, None]


def test_svd_flip_on_rows_is_the_previous_sign_rule():
    rng = np.random.default_rng(0)
    cases = [rng.normal(size=(6, 9)), rng.normal(size=(9, 6))]
    # ties in magnitude (the first wins), a zero row, negative pivots
    cases.append(np.array([[0.5, -0.5, 0.1], [0.0, 0.0, 0.0], [-0.2, 0.9, -0.9]]))
    for basis in cases:
        flipped = svd_flip(None, basis.copy(), u_based_decision=False)[1]
        np.testing.assert_array_equal(flipped, _largest_entry_positive_by_hand(basis))


@pytest.mark.parametrize("estimator", [PLST(4), PLST(4, center=False), CPLST(4)], ids=repr)
def test_components_have_a_positive_largest_entry(estimator):
    X, Y = _problem()
    components = clone(estimator).fit(X, Y).components_
    pivots = components[np.arange(len(components)), np.argmax(np.abs(components), axis=1)]
    assert np.all(pivots > 0)


def test_fit_warnings_point_at_the_caller():
    # fit runs inside scikit-learn's _fit_context wrapper: the stack levels account for it
    X, Y = _problem()
    Y[:, 2] = 0
    with pytest.warns(UserWarning, match="constant in the training labels") as record:
        PLST(2).fit(X, Y)
    assert record[0].filename == __file__
    with pytest.warns(UserWarning, match="most frequent") as record:
        CLEMS(max_candidates=2, max_iter=5, random_state=0).fit(X, Y)
    assert record[0].filename == __file__


@ESTIMATORS
def test_works_with_metadata_routing_enabled(estimator):
    # scikit-learn sniffs fit's signature for metadata: only CLEMS's candidate_costs is one
    X, Y = _problem(n_samples=60)
    with sklearn.config_context(enable_metadata_routing=True):
        assert estimator.get_metadata_routing().consumes("fit", ["Y"]) == set()
        request = getattr(estimator, "set_fit_request", None)
        if request is not None:  # CLEMS takes its precomputed candidate costs as metadata
            assert set(inspect.signature(request).parameters) - {"self"} == {"candidate_costs"}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            scores = cross_val_score(estimator, X, Y, cv=KFold(2))
    assert scores.shape == (2,)


# ----------------------------------------------------------------------- signatures
PUBLIC_ESTIMATORS = [
    BinaryRelevance,
    PLST,
    PBR,
    CPLST,
    CompressedSensing,
    MLkNN,
    MLkNNPath,
    LabelClustering,
    GroPLE,
    CLEMS,
]


@pytest.mark.parametrize("cls", PUBLIC_ESTIMATORS, ids=lambda cls: cls.__name__)
def test_constructor_has_defaults_and_keyword_only_options(cls):
    # scikit-learn's conventions: every parameter has a default (Estimator() works) and
    # only the first one or two, the natural positional ones, may be passed by position
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    missing = [p.name for p in parameters if p.default is inspect.Parameter.empty]
    assert missing == [], f"{cls.__name__} parameters without a default: {missing}"
    positional = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert len(positional) <= 2, f"{cls.__name__} takes {positional} by position"
    assert cls().get_params()  # constructible with the defaults alone
    if len(parameters) > 2:
        with pytest.raises(TypeError):
            cls(*(p.default for p in parameters))


@pytest.mark.parametrize("cls", PUBLIC_ESTIMATORS, ids=lambda cls: cls.__name__)
def test_fit_takes_x_and_y_and_no_other_positional(cls):
    parameters = list(inspect.signature(cls.fit).parameters.values())[1:]
    positional = [p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert positional in (["X", "y"], ["Y", "y"]), positional  # LabelClustering clusters Y
    assert "Y" not in [p.name for p in parameters if p.kind is p.KEYWORD_ONLY]


def _public_functions():
    import importlib
    import pkgutil

    import mlviz

    for info in pkgutil.walk_packages(mlviz.__path__, "mlviz."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
        for name, value in vars(module).items():
            if (
                not name.startswith("_")
                and inspect.isfunction(value)
                and value.__module__ == module.__name__
            ):
                yield f"{module.__name__}.{name}", value


def test_public_functions_take_options_by_keyword():
    # required inputs may be positional; an option (a parameter with a default) is keyword-only
    # unless it is one of the first two parameters (scikit-learn: f1_score(y_true, y_pred, *, ...))
    offenders = []
    for name, function in _public_functions():
        parameters = list(inspect.signature(function).parameters.values())
        for index, parameter in enumerate(parameters):
            if (
                index >= 2
                and parameter.kind is parameter.POSITIONAL_OR_KEYWORD
                and parameter.default is not inspect.Parameter.empty
            ):
                offenders.append(f"{name}({parameter.name})")
    assert offenders == []


@pytest.mark.parametrize("cls", [PLST, PBR, CPLST, CompressedSensing], ids=lambda c: c.__name__)
def test_n_components_none_means_every_label(cls):
    X, Y = _problem()
    kwargs = {"random_state": 0} if cls is CompressedSensing else {}
    default = cls(**kwargs).fit(X, Y)
    assert default.n_components_ == Y.shape[1] == N_LABELS
    explicit = cls(N_LABELS, **kwargs).fit(X, Y)
    np.testing.assert_array_equal(default.predict(X), explicit.predict(X))
    np.testing.assert_allclose(default.decision_function(X), explicit.decision_function(X))


def test_plst_default_keeps_every_direction_so_no_encoding_error():
    # Theorem 1: with M = L the training labels are encoded exactly
    X, Y = _problem()
    model = PLST().fit(X, Y)
    np.testing.assert_allclose(model.label_encoding_error(Y), 0.0, atol=1e-12)
    assert model.label_encoding_error(Y, n_components=1).sum() > 0.1  # the check can fail


@pytest.mark.parametrize("cls", [PLST, PBR, CPLST, CompressedSensing], ids=lambda c: c.__name__)
@pytest.mark.parametrize("bad", [0, 2.5, "all"], ids=repr)
def test_n_components_constraint(cls, bad):
    X, Y = _problem()
    with pytest.raises(InvalidParameterError, match="n_components"):
        cls(bad).fit(X, Y)
    with pytest.raises(ValueError, match="between 1 and the number of labels"):
        cls(N_LABELS + 1).fit(X, Y)


@pytest.mark.parametrize("estimator", [CLEMS(max_iter=50, random_state=0), MLkNN(k=5)], ids=_ids)
def test_explain_returns_a_frozen_dataclass(estimator):
    # one convention for the per-instance explanations: attributes, not dict keys
    X, Y = _problem()
    explanation = _fit_quietly(estimator, X, Y).explain(X[0])
    assert dataclasses.is_dataclass(explanation)
    fields = [field.name for field in dataclasses.fields(explanation)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(explanation, fields[0], None)


#: Functions that resample or split (cross-validation, bootstrap, the paper protocols): seeded by
#: default, so the same call gives the same numbers (issue 31: ``cross_validate(cv=3)`` gave
#: BR accuracy 0.470, then 0.509), as scikit-learn's ``cv=int`` does.
SEEDED_BY_DEFAULT = {
    "mlviz.evaluation.cross_validate",
    "mlviz.evaluation.grid_search_cv",
    "mlviz.evaluation.repeated_splits",
    "mlviz.label_clustering.clustering_stability",
    "mlviz.label_clustering.grouping_vs_random",
    "mlviz.label_clustering.label_coassignment",
    "mlviz.reproduce.grople_figure1",
}


def test_random_state_defaults_to_none_for_estimators_and_generators_and_0_for_resampling():
    # Estimators and data generators: scikit-learn's convention (None), callers that need a
    # fixed draw (the app, the reproductions) pass their seed. Resampling functions: seed 0.
    callables = [(cls.__name__, cls) for cls in PUBLIC_ESTIMATORS] + list(_public_functions())
    defaults = {
        name: parameters["random_state"].default
        for name, function in callables
        if "random_state" in (parameters := inspect.signature(function).parameters)
    }
    assert len(defaults) >= 10  # GroPLE, CLEMS, CS, LabelClustering, generators, splits, ...
    seeded = {name: value for name, value in defaults.items() if name in SEEDED_BY_DEFAULT}
    assert seeded == dict.fromkeys(SEEDED_BY_DEFAULT, 0)
    others = {n: v for n, v in defaults.items() if n not in SEEDED_BY_DEFAULT and v is not None}
    assert others == {}
