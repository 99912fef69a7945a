"""ML-KNN (paper 003, Zhang & Zhou 2007): exact small cases, a plain transcription of Fig. 1,
the paper's yeast Table 1, and scikit-learn estimator behaviour."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from conftest import mulan_path
from estimator_checks import assert_passes_estimator_checks
from sklearn.base import clone
from sklearn.metrics import (
    coverage_error,
    hamming_loss,
    label_ranking_average_precision_score,
    label_ranking_loss,
    make_scorer,
)
from sklearn.model_selection import GridSearchCV, KFold

import mlviz
from mlviz.mlknn import MLkNN, MLkNNExplanation


# --------------------------------------------------------------------------- reference
def fig1_reference(X, Y, X_test, k: int, s: float) -> dict:
    """Deliberately plain loop transcription of Fig. 1 (steps 1-18), for small data only.

    Neighbours: Euclidean distance computed here, the instance itself skipped by index,
    ties broken by lower index (test data have no distance ties except exact duplicates).
    """
    X = [list(map(float, row)) for row in np.asarray(X)]
    X_test = [list(map(float, row)) for row in np.asarray(X_test)]
    Y = [list(map(int, row)) for row in np.asarray(Y)]
    m, n_labels = len(Y), len(Y[0])

    def neighbours(x, skip=None):
        candidates = [(math.dist(x, X[i]), i) for i in range(m) if i != skip]
        return [i for _, i in sorted(candidates)[:k]]

    prior = []
    for label in range(n_labels):  # steps 1-2
        prior.append((s + sum(Y[i][label] for i in range(m))) / (s * 2 + m))
    train_neighbours = [neighbours(X[i], skip=i) for i in range(m)]  # step 3
    cond_pos = [[0.0] * n_labels for _ in range(k + 1)]
    cond_neg = [[0.0] * n_labels for _ in range(k + 1)]
    train_counts = [[0] * n_labels for _ in range(m)]
    for label in range(n_labels):  # steps 4-13
        c = [0] * (k + 1)
        c_prime = [0] * (k + 1)
        for i in range(m):
            delta = sum(Y[a][label] for a in train_neighbours[i])
            train_counts[i][label] = delta
            if Y[i][label] == 1:
                c[delta] += 1
            else:
                c_prime[delta] += 1
        for j in range(k + 1):
            cond_pos[j][label] = (s + c[j]) / (s * (k + 1) + sum(c))
            cond_neg[j][label] = (s + c_prime[j]) / (s * (k + 1) + sum(c_prime))
    predictions, posteriors = [], []
    for t in X_test:  # steps 14-18
        neighbours_t = neighbours(t)
        y_row, r_row = [], []
        for label in range(n_labels):
            count = sum(Y[a][label] for a in neighbours_t)
            pos = prior[label] * cond_pos[count][label]
            neg = (1 - prior[label]) * cond_neg[count][label]
            y_row.append(1 if pos >= neg else 0)
            r_row.append(pos / (pos + neg))
        predictions.append(y_row)
        posteriors.append(r_row)
    return {
        "prior": np.array(prior),
        "cond_pos": np.array(cond_pos),
        "cond_neg": np.array(cond_neg),
        "train_counts": np.array(train_counts),
        "predict": np.array(predictions),
        "proba": np.array(posteriors),
    }


def random_problem(seed: int, n_train: int = 60, n_test: int = 25, n_features: int = 4):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(3, n_features)) * 2
    which = rng.integers(0, 3, size=n_train + n_test)
    X = centres[which] + rng.normal(size=(n_train + n_test, n_features))
    # labels depend on the cluster plus noise, with one rare and one very common label
    probs = np.array(
        [[0.8, 0.2, 0.5, 0.05, 0.95], [0.1, 0.7, 0.5, 0.05, 0.95], [0.4, 0.4, 0.1, 0.1, 0.9]]
    )
    Y = (rng.random((n_train + n_test, 5)) < probs[which]).astype(np.uint8)
    return X[:n_train], Y[:n_train], X[n_train:], Y[n_train:]


def assert_matches_reference(model: MLkNN, ref: dict, X_test) -> None:
    np.testing.assert_allclose(model.prior_, ref["prior"], rtol=1e-13)
    np.testing.assert_allclose(model.cond_pos_, ref["cond_pos"], rtol=1e-13)
    np.testing.assert_allclose(model.cond_neg_, ref["cond_neg"], rtol=1e-13)
    np.testing.assert_array_equal(model.train_counts_, ref["train_counts"])
    np.testing.assert_allclose(model.predict_proba(X_test), ref["proba"], rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X_test), ref["predict"])


# ------------------------------------------------------------------ exact small cases
# Four well separated pairs on a line; with k = 1 each point's only neighbour is its partner.
PAIRS_X = np.array([[0.0], [1.0], [10.0], [11.0], [20.0], [21.0], [30.0], [31.0]])
# label 0: pair A both 1, pair B both 0, pairs C and D mixed (1, 0).
# label 1: 1 only at points 0 and 1 (pair A).
PAIRS_Y = np.array([[1, 1], [1, 1], [0, 0], [0, 0], [1, 0], [0, 0], [1, 0], [0, 0]])


def test_hand_worked_tables_k1():
    model = MLkNN(k=1, s=1.0).fit(PAIRS_X, PAIRS_Y)
    # C_x(l) is the partner's label (the point itself is never its own neighbour)
    np.testing.assert_array_equal(model.train_counts_, PAIRS_Y[[1, 0, 3, 2, 5, 4, 7, 6]])
    # label 0: with label -> points 0, 1 (count 1), 4, 6 (count 0): c = [2, 2]
    #          without   -> points 2, 3 (count 0), 5, 7 (count 1): c' = [2, 2]
    # label 1: with -> points 0, 1 (count 1): c = [0, 2]; without -> 6 points, count 0: c' = [6, 0]
    np.testing.assert_array_equal(model.count_pos_, [[2, 0], [2, 2]])
    np.testing.assert_array_equal(model.count_neg_, [[2, 6], [2, 0]])
    # step 2: (1 + 4) / (2 + 8), (1 + 2) / (2 + 8)
    np.testing.assert_allclose(model.prior_, [0.5, 0.3])
    # steps 12-13: (1 + c[j]) / (1 * 2 + sum c)
    np.testing.assert_allclose(model.cond_pos_, [[3 / 6, 1 / 4], [3 / 6, 3 / 4]])
    np.testing.assert_allclose(model.cond_neg_, [[3 / 6, 7 / 8], [3 / 6, 1 / 8]])


def test_hand_worked_prediction_and_tie_goes_positive():
    model = MLkNN(k=1).fit(PAIRS_X, PAIRS_Y)
    queries = np.array([[0.4], [10.4]])  # nearest training points: 0 (labels 1, 1) and 2 (0, 0)
    # label 0: c = c' and P(H1) = 1/2, so P(H1)P(E|H1) == P(H0)P(E|H0) exactly: a tie
    # label 1, query 0: 0.3 * 3/4 = 0.225 vs 0.7 * 1/8 = 0.0875 -> r = 0.225 / 0.3125 = 0.72
    # label 1, query 1: 0.3 * 1/4 = 0.075 vs 0.7 * 7/8 = 0.6125 -> r = 0.075 / 0.6875
    np.testing.assert_allclose(
        model.predict_proba(queries), [[0.5, 0.72], [0.5, 0.075 / 0.6875]], rtol=1e-12
    )
    np.testing.assert_array_equal(model.predict(queries), [[1, 1], [1, 0]])
    # the tie is exact, so predict agrees with proba >= 0.5
    np.testing.assert_array_equal(model.predict(queries), model.predict_proba(queries) >= 0.5)


# ----------------------------------------------------------- Fig. 1 transcription
@pytest.mark.parametrize("k,s", [(1, 1.0), (3, 1.0), (7, 1.0), (5, 0.3), (4, 5.0)])
def test_matches_plain_transcription_of_fig1(k, s):
    X, Y, X_test, _ = random_problem(seed=k)
    model = MLkNN(k=k, s=s).fit(X, Y)
    ref = fig1_reference(X, Y, X_test, k, s)
    assert_matches_reference(model, ref, X_test)
    # the tables are probability distributions over j for every label
    np.testing.assert_allclose(model.cond_pos_.sum(axis=0), 1.0, rtol=1e-12)
    np.testing.assert_allclose(model.cond_neg_.sum(axis=0), 1.0, rtol=1e-12)
    assert model.cond_pos_.shape == model.cond_neg_.shape == (k + 1, Y.shape[1])
    np.testing.assert_array_equal(model.count_pos_.sum(axis=0), Y.sum(axis=0))
    np.testing.assert_array_equal(model.count_neg_.sum(axis=0), (1 - Y).sum(axis=0))


def test_sparse_input_gives_the_same_model():
    X, Y, X_test, _ = random_problem(seed=11)
    X[np.abs(X) < 0.8] = 0.0  # make the sparse structure non-trivial
    X_test[np.abs(X_test) < 0.8] = 0.0
    dense = MLkNN(k=5).fit(X, Y)
    sparse = MLkNN(k=5).fit(sp.csr_matrix(X), Y)
    np.testing.assert_array_equal(sparse.train_counts_, dense.train_counts_)
    np.testing.assert_allclose(sparse.cond_pos_, dense.cond_pos_)
    np.testing.assert_allclose(
        sparse.predict_proba(sp.csr_matrix(X_test)), dense.predict_proba(X_test), rtol=1e-12
    )
    assert_matches_reference(sparse, fig1_reference(X, Y, X_test, 5, 1.0), sp.csr_matrix(X_test))


def test_integer_features_with_many_distance_ties_match_the_transcription():
    # small integer features: most distances are shared by several instances, so the k-th
    # place is usually a tie and the lowest-index rule decides the counts
    rng = np.random.default_rng(21)
    X = rng.integers(0, 3, size=(80, 3)).astype(float)
    Y = (rng.random((80, 4)) < [0.5, 0.3, 0.7, 0.1]).astype(np.uint8)
    X_test = rng.integers(0, 3, size=(30, 3)).astype(float)
    distances, _ = MLkNN(k=6).fit(X, Y).kneighbors(X_test)
    assert (distances[:, -1:] == distances[:, :-1]).any(axis=1).mean() > 0.5  # ties happen
    for k in (1, 6, 10):
        model = MLkNN(k=k).fit(X, Y)
        assert_matches_reference(model, fig1_reference(X, Y, X_test, k, 1.0), X_test)


def test_ties_match_the_transcription_when_the_selection_uses_its_row_bound():
    # enough training rows (>= 2 * max(8 k, 64)) for the neighbour selection to take its
    # cheap per-row bound from group minima before sorting the candidates; integer features
    # make the k-th place a tie for most rows, also in the sparse product
    rng = np.random.default_rng(22)
    X = rng.integers(0, 3, size=(400, 4)).astype(float)
    Y = (rng.random((400, 3)) < [0.5, 0.2, 0.7]).astype(np.uint8)
    X_test = rng.integers(0, 3, size=(40, 4)).astype(float)
    for k in (3, 10):
        ref = fig1_reference(X, Y, X_test, k, 1.0)
        assert_matches_reference(MLkNN(k=k).fit(X, Y), ref, X_test)
        assert_matches_reference(MLkNN(k=k).fit(sp.csr_matrix(X), Y), ref, sp.csr_matrix(X_test))


def test_ties_at_the_kth_place_keep_the_lowest_indices():
    X = np.array([[-2.0], [2.0], [-1.0], [1.0], [5.0]])
    Y = np.eye(5, dtype=np.uint8)
    model = MLkNN(k=1).fit(X, Y)
    # from 0, the points 2 and 3 are both at distance 1: the lower index (2) is kept
    assert model.kneighbors([[0.0]])[1].tolist() == [[2]]
    model = MLkNN(k=3).fit(X, Y)
    distances, indices = model.kneighbors([[0.0]])
    assert indices.tolist() == [[2, 3, 0]] and distances.tolist() == [[1.0, 1.0, 2.0]]
    np.testing.assert_array_equal(model.predict_proba([[0.0]]), model.predict_proba([[-0.0]]))
    # training neighbours (self excluded), k = 2: point 1 (at 2) has point 3 at distance 1,
    # then points 2 and 4 both at distance 3 for the one place left: 2 wins
    _, train_indices = MLkNN(k=2).fit(X, Y).kneighbors()
    assert train_indices[1].tolist() == [3, 2]
    assert train_indices[4].tolist() == [1, 3]


def test_parameters_changed_after_fit_do_not_desynchronise_the_model():
    X, Y, X_test, _ = random_problem(seed=13)
    model = MLkNN(k=4).fit(X, Y)
    expected = model.predict_proba(X_test)
    model.set_params(k=9, metric="manhattan")
    np.testing.assert_array_equal(model.predict_proba(X_test), expected)
    assert model.cond_pos_.shape[0] == model.k_ + 1 == 5


def test_precomputed_distances_give_the_euclidean_model_and_stay_untouched():
    from sklearn.metrics import pairwise_distances

    X, Y, X_test, _ = random_problem(seed=14)
    D_train = pairwise_distances(X)
    D_test = pairwise_distances(X_test, X)
    before = D_train.copy()
    precomputed = MLkNN(k=5, metric="precomputed").fit(D_train, Y)
    np.testing.assert_array_equal(D_train, before)
    euclidean = MLkNN(k=5).fit(X, Y)
    np.testing.assert_array_equal(precomputed.train_counts_, euclidean.train_counts_)
    np.testing.assert_allclose(
        precomputed.predict_proba(D_test), euclidean.predict_proba(X_test), rtol=1e-12
    )


# --------------------------------------------------------------------- self-exclusion
def test_training_instance_is_never_its_own_neighbour_but_its_twin_is():
    # three exact duplicates per location, with different labels inside each group
    base = np.array([[0.0, 0.0], [50.0, 0.0], [0.0, 50.0]])
    X = np.repeat(base, 3, axis=0)
    Y = np.array([[1], [0], [0], [1], [1], [0], [0], [0], [1]])
    model = MLkNN(k=2).fit(X, Y)
    # with k = 2 every point's neighbours are exactly its two twins (distance 0), never itself
    group_sums = np.repeat(Y.reshape(3, 3).sum(axis=1), 3)
    np.testing.assert_array_equal(model.train_counts_[:, 0], group_sums - Y[:, 0])
    assert_matches_reference(model, fig1_reference(X, Y, base + 0.1, 2, 1.0), base + 0.1)


def test_self_exclusion_changes_the_counts_where_self_voting_would_not():
    # k = 1 and twin pairs with opposite labels: counting the point itself would give
    # C = y_i (a perfect but fake training signal); excluding it gives the twin's label.
    X = np.repeat(np.array([[0.0], [10.0], [20.0]]), 2, axis=0)
    Y = np.array([[1], [0], [0], [1], [1], [1]])
    model = MLkNN(k=1).fit(X, Y)
    np.testing.assert_array_equal(model.train_counts_[:, 0], [0, 1, 1, 0, 1, 1])
    # positives 0, 3 have count 0 and 4, 5 count 1; negatives 1, 2 both have count 1
    np.testing.assert_array_equal(model.count_pos_[:, 0], [2, 2])
    np.testing.assert_array_equal(model.count_neg_[:, 0], [0, 2])


def test_training_neighbours_never_contain_the_instance_itself():
    X, Y, _, _ = random_problem(seed=15)
    X = np.vstack([X, X[:10]])  # ten exact duplicates
    Y = np.vstack([Y, Y[:10]])
    model = MLkNN(k=4).fit(X, Y)
    distances, indices = model.kneighbors()
    assert not (indices == np.arange(len(X))[:, None]).any()
    # each duplicated row finds its twin first, at distance 0
    twins = np.r_[np.arange(60, 70), np.arange(10)]
    np.testing.assert_array_equal(indices[np.r_[np.arange(10), np.arange(60, 70)], 0], twins)
    # (0 up to the rounding of scikit-learn's |x|^2 - 2 x.y + |y|^2 formula)
    np.testing.assert_allclose(distances[np.r_[np.arange(10), np.arange(60, 70)], 0], 0, atol=1e-6)
    np.testing.assert_array_equal(model.train_counts_, Y[indices].sum(axis=1))


def test_query_equal_to_a_training_row_counts_that_row():
    # at prediction time a query is a new instance: a training row at distance 0 is a neighbour
    model = MLkNN(k=1).fit(PAIRS_X, PAIRS_Y)
    explanation = model.explain(PAIRS_X[4])
    assert explanation.neighbors.tolist() == [4]
    assert explanation.distances.tolist() == [0.0]


# ------------------------------------------------------------------------ smoothing
def test_smoothing_towards_zero_gives_raw_frequencies():
    X, Y, X_test, _ = random_problem(seed=3)
    k, s = 4, 1e-9
    model = MLkNN(k=k, s=s).fit(X, Y)
    n_pos = Y.sum(axis=0)
    np.testing.assert_allclose(model.prior_, n_pos / len(Y), rtol=1e-7)
    np.testing.assert_allclose(model.cond_pos_, model.count_pos_ / n_pos, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(
        model.cond_neg_, model.count_neg_ / (len(Y) - n_pos), rtol=1e-7, atol=1e-8
    )
    assert_matches_reference(model, fig1_reference(X, Y, X_test, k, s), X_test)


def test_large_smoothing_tends_to_uniform():
    X, Y, X_test, _ = random_problem(seed=4)
    k = 4
    model = MLkNN(k=k, s=1e9).fit(X, Y)
    np.testing.assert_allclose(model.prior_, 0.5, atol=1e-7)
    np.testing.assert_allclose(model.cond_pos_, 1 / (k + 1), atol=1e-7)
    np.testing.assert_allclose(model.cond_neg_, 1 / (k + 1), atol=1e-7)
    np.testing.assert_allclose(model.predict_proba(X_test), 0.5, atol=1e-6)
    # with s = 1 the posteriors are far from uniform on the same data
    assert np.abs(MLkNN(k=k).fit(X, Y).predict_proba(X_test) - 0.5).max() > 0.3


def test_label_absent_from_training_is_never_predicted():
    X, Y, X_test, _ = random_problem(seed=5)
    Y = Y.copy()
    Y[:, 3] = 0
    model = MLkNN(k=5).fit(X, Y)
    assert model.prior_[3] == pytest.approx(1 / (2 + len(Y)))
    assert not model.predict(X_test)[:, 3].any()


# ------------------------------------------------------------------ outputs, explain
def test_output_types_and_consistency():
    X, Y, X_test, _ = random_problem(seed=6)
    model = MLkNN(k=5).fit(X, Y)
    predicted = model.predict(X_test)
    proba = model.predict_proba(X_test)
    assert predicted.dtype == np.uint8 and predicted.shape == (len(X_test), Y.shape[1])
    assert proba.dtype == np.float64 and proba.shape == predicted.shape
    # decision_function is the posterior shifted by the MAP threshold: positive where predicted
    np.testing.assert_array_equal(model.decision_function(X_test), proba - 0.5)
    np.testing.assert_array_equal(predicted, (proba >= 0.5).astype(np.uint8))
    np.testing.assert_array_equal(predicted, model.decision_function(X_test) >= 0)
    assert ((proba > 0) & (proba < 1)).all()
    assert model.train_counts_.shape == Y.shape
    assert model.train_labels_.dtype == np.uint8


def test_explain_agrees_with_predict():
    X, Y, X_test, _ = random_problem(seed=7)
    model = MLkNN(k=6).fit(X, Y)
    names = ["a", "b", "c", "d", "e"]
    distances, neighbors = model.kneighbors(X_test)
    for row in range(5):
        explanation = model.explain(X_test[row], label_names=names)
        assert isinstance(explanation, MLkNNExplanation)
        table = explanation.table
        assert isinstance(table, pd.DataFrame) and len(table) == Y.shape[1]
        assert table["label"].tolist() == names
        np.testing.assert_array_equal(explanation.neighbors, neighbors[row])
        np.testing.assert_allclose(explanation.distances, distances[row])
        np.testing.assert_array_equal(table["count"], Y[explanation.neighbors].sum(axis=0))
        np.testing.assert_allclose(table["score_pos"], table["prior_pos"] * table["likelihood_pos"])
        np.testing.assert_allclose(table["score_neg"], table["prior_neg"] * table["likelihood_neg"])
        np.testing.assert_allclose(table["posterior"], model.predict_proba(X_test[[row]])[0])
        np.testing.assert_array_equal(table["decision"], model.predict(X_test[[row]])[0])
    # default labels are column indices; a 1-row matrix is accepted too
    table = model.explain(X_test[:1]).table
    assert table["label"].tolist() == list(range(Y.shape[1]))


def test_explain_rejects_several_rows_and_wrong_names():
    X, Y, X_test, _ = random_problem(seed=8)
    model = MLkNN(k=3).fit(X, Y)
    with pytest.raises(ValueError, match="single instance"):
        model.explain(X_test[:2])
    with pytest.raises(ValueError, match="label_names has 2 names"):
        model.explain(X_test[0], label_names=["a", "b"])


# ------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    "params,message",
    [
        ({"k": 60}, "k=60 is too large for n_samples = 60"),
        ({"k": 0}, r"'k' parameter of MLkNN must be an int in the range \[1, inf\)"),
        ({"k": 2.5}, "'k' parameter of MLkNN must be an int"),
        ({"s": 0.0}, r"'s' parameter of MLkNN must be a float in the range \(0.0, inf\)"),
        ({"s": -1.0}, "'s' parameter of MLkNN must be a float"),
        ({"s": float("nan")}, "'s' parameter of MLkNN must be a float"),
        ({"s": float("inf")}, "'s' parameter of MLkNN must be a float"),
        ({"metric": "no-such-metric"}, "'metric' parameter of pairwise_distances.* must be a str"),
    ],
)
def test_bad_parameters_raise_clear_errors(params, message):
    X, Y, _, _ = random_problem(seed=9)
    with pytest.raises(ValueError, match=message):
        MLkNN(**params).fit(X, Y)


def test_bad_inputs_raise_clear_errors():
    X, Y, X_test, _ = random_problem(seed=10)
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        MLkNN(k=3).fit(X_nan, Y)
    with pytest.raises(ValueError, match="only 0 and 1"):
        MLkNN(k=3).fit(X, Y * 2)
    model = MLkNN(k=3).fit(X, Y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X_test[:, :2])
    largest_valid = MLkNN(k=len(X) - 1).fit(X, Y)  # k = m - 1 is allowed: everyone else
    assert largest_valid.train_counts_.max() <= len(X) - 1


# ---------------------------------------------------------- scikit-learn behaviour
def test_clone_and_grid_search_over_k():
    X, Y, X_test, _ = random_problem(seed=12, n_train=90)
    model = MLkNN(k=4, s=0.5)
    copy = clone(model)
    assert copy.get_params() == {"k": 4, "s": 0.5, "metric": "euclidean"}
    search = GridSearchCV(
        MLkNN(),
        {"k": [1, 3, 5, 9]},
        scoring=make_scorer(hamming_loss, greater_is_better=False),
        cv=3,
    ).fit(X, Y)
    assert search.best_params_["k"] in {1, 3, 5, 9}
    direct = MLkNN(k=search.best_params_["k"]).fit(X, Y)
    np.testing.assert_array_equal(search.predict(X_test), direct.predict(X_test))
    # the CV scores really differ with k (the search had something to choose from)
    assert np.ptp(search.cv_results_["mean_test_score"]) > 0


def test_scikit_learn_estimator_checks():
    # k = 3 because some checks fit on 10 samples
    assert_passes_estimator_checks(MLkNN(k=3))


# --------------------------------------------------------------- paper reproduction
# Table 1 of paper 003: mean and standard deviation over ten-fold cross-validation on yeast.
PAPER_TABLE_1 = {
    8: {"hamming": (0.195, 0.010), "one_error": (0.233, 0.032), "coverage": (6.291, 0.238),
        "ranking_loss": (0.169, 0.016), "average_precision": (0.763, 0.021)},
    9: {"hamming": (0.193, 0.009), "one_error": (0.230, 0.041), "coverage": (6.297, 0.223),
        "ranking_loss": (0.168, 0.016), "average_precision": (0.764, 0.022)},
    10: {"hamming": (0.194, 0.010), "one_error": (0.230, 0.030), "coverage": (6.275, 0.240),
         "ranking_loss": (0.167, 0.016), "average_precision": (0.765, 0.021)},
    11: {"hamming": (0.193, 0.008), "one_error": (0.225, 0.036), "coverage": (6.285, 0.208),
         "ranking_loss": (0.167, 0.015), "average_precision": (0.766, 0.021)},
    12: {"hamming": (0.192, 0.010), "one_error": (0.232, 0.032), "coverage": (6.283, 0.228),
         "ranking_loss": (0.167, 0.015), "average_precision": (0.765, 0.020)},
}  # fmt: skip


def paper_metrics(Y_true, Y_pred, Y_score) -> dict[str, float]:
    """Eq. (1)-(5) of paper 003 via scikit-learn, which implements the same definitions.

    coverage_error counts ranks from 1 (Eq. 3 subtracts 1) and gives tied scores the worst
    rank; label_ranking_loss counts ties as mis-ordered, as Eq. (4) does with <=.
    """
    top = Y_score.argmax(axis=1)
    return {
        "hamming": hamming_loss(Y_true, Y_pred),
        "one_error": float(np.mean(Y_true[np.arange(len(Y_true)), top] == 0)),
        "coverage": coverage_error(Y_true, Y_score) - 1,
        "ranking_loss": label_ranking_loss(Y_true, Y_score),
        "average_precision": label_ranking_average_precision_score(Y_true, Y_score),
    }


@pytest.fixture(scope="module")
def yeast_ten_fold():
    """Mean metrics over ten-fold cross-validation on yeast, for k = 8..12 (full protocol)."""
    data = mlviz.load_arff(mulan_path("yeast.arff"))
    X, Y = data.X, data.Y
    folds = list(KFold(n_splits=10, shuffle=True, random_state=0).split(X))
    results = {}
    for k in PAPER_TABLE_1:
        per_fold = []
        for train, test in folds:
            model = MLkNN(k=k).fit(X[train], Y[train])
            scores = model.predict_proba(X[test])
            per_fold.append(paper_metrics(Y[test], model.predict(X[test]), scores))
        results[k] = pd.DataFrame(per_fold).mean()
    return results


@pytest.mark.slow
def test_reproduces_table_1_on_yeast_k10(yeast_ten_fold):
    ours = yeast_ten_fold[10]
    for metric, (mean, std) in PAPER_TABLE_1[10].items():
        assert abs(ours[metric] - mean) <= std, (
            f"{metric}: ours {ours[metric]:.4f}, paper {mean}±{std}"
        )


@pytest.mark.slow
def test_k_from_8_to_12_barely_matters_on_yeast(yeast_ten_fold):
    for k, row in PAPER_TABLE_1.items():
        for metric, (mean, std) in row.items():
            ours = yeast_ten_fold[k][metric]
            assert abs(ours - mean) <= std, f"k={k} {metric}: ours {ours:.4f}, paper {mean}±{std}"
    # the paper's observation: changing k within 8..12 moves every metric by less than the
    # smallest fold-to-fold standard deviation the paper reports for it
    for metric in PAPER_TABLE_1[10]:
        spread = np.ptp([yeast_ten_fold[k][metric] for k in PAPER_TABLE_1])
        smallest_std = min(PAPER_TABLE_1[k][metric][1] for k in PAPER_TABLE_1)
        assert spread < smallest_std, f"{metric} varies by {spread:.4f} over k = 8..12"


# ------------------------------------------- neighbours computed once for every k and s


@pytest.mark.parametrize("integer_features", [False, True])
@pytest.mark.parametrize("sparse_X", [False, True])
def test_neighbour_graphs_for_k_max_give_the_model_of_every_smaller_k(integer_features, sparse_X):
    from mlviz.mlknn import neighbors_graph

    rng = np.random.default_rng(21)
    X = rng.normal(size=(160, 6))
    if integer_features:  # many exactly tied distances: the tie rule must carry over
        X = np.round(X)
    Y = (X[:, :4] + rng.normal(scale=0.8, size=(160, 4)) > 0).astype(np.uint8)
    if sparse_X:
        X = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0))
    X_train, Y_train, X_test = X[:120], Y[:120], X[120:]
    k_max = 12
    G_train = neighbors_graph(X_train, X_train, k_max, exclude_self=True)
    G_test = neighbors_graph(X_test, X_train, k_max)
    assert G_train.shape == (120, 120) and G_test.shape == (40, 120)
    assert np.all(np.diff(G_train.indptr) == k_max)
    for k in (1, 5, 12):
        for s in (1.0, 0.3):
            direct = MLkNN(k=k, s=s).fit(X_train, Y_train)
            cached = MLkNN(k=k, s=s, metric="precomputed").fit(G_train, Y_train)
            np.testing.assert_array_equal(cached.train_counts_, direct.train_counts_)
            np.testing.assert_array_equal(cached.count_pos_, direct.count_pos_)
            np.testing.assert_array_equal(cached.predict(G_test), direct.predict(X_test))
            np.testing.assert_array_equal(
                cached.predict_proba(G_test), direct.predict_proba(X_test)
            )
            np.testing.assert_array_equal(
                cached.kneighbors(G_test)[1], direct.kneighbors(X_test)[1]
            )


def test_scikit_learn_neighbour_graph_with_self_entries_is_accepted():
    from sklearn.neighbors import KNeighborsTransformer

    rng = np.random.default_rng(22)
    X = rng.normal(size=(100, 5))  # continuous: no ties, so any tie rule agrees
    Y = (X[:, :3] > 0).astype(np.uint8)
    # scikit-learn's training graph holds each row itself plus n_neighbors others
    transformer = KNeighborsTransformer(n_neighbors=8, mode="distance").fit(X[:70])
    G_train, G_test = transformer.transform(X[:70]), transformer.transform(X[70:])
    direct = MLkNN(k=8).fit(X[:70], Y[:70])
    cached = MLkNN(k=8, metric="precomputed").fit(G_train, Y[:70])
    np.testing.assert_array_equal(cached.train_counts_, direct.train_counts_)
    np.testing.assert_array_equal(cached.predict(G_test), direct.predict(X[70:]))


def test_too_small_a_neighbour_graph_is_a_clear_error():
    from mlviz.mlknn import neighbors_graph

    X = np.random.default_rng(23).normal(size=(30, 3))
    Y = (X > 0).astype(np.uint8)
    G = neighbors_graph(X, X, 4, exclude_self=True)
    with pytest.raises(ValueError, match="only 4 neighbours for row 0 besides the row itself"):
        MLkNN(k=5, metric="precomputed").fit(G, Y)
    with pytest.raises(ValueError, match="n_neighbors must be between 1 and 29"):
        neighbors_graph(X, X, 30, exclude_self=True)


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"n_neighbors": 0}, "'n_neighbors' parameter of neighbors_graph must be an int in the"),
        ({"n_neighbors": 2.5}, "range [1, inf). Got 2.5 instead"),
        ({"exclude_self": "yes"}, "'exclude_self' parameter of neighbors_graph must be an inst"),
        ({"metric": 3}, "'metric' parameter of neighbors_graph must be an instance of 'str' or"),
        # a metric name is checked by scikit-learn's pairwise distances (nested validation)
        ({"metric": "no-such-metric"}, "'metric' parameter of neighbors_graph must be a str among"),
    ],
)
def test_neighbors_graph_names_a_bad_parameter_with_its_valid_range(arguments, message):
    from mlviz._compat import InvalidParameterError
    from mlviz.mlknn import neighbors_graph

    X = np.random.default_rng(23).normal(size=(30, 3))
    arguments = {"n_neighbors": 3} | arguments
    with pytest.raises(InvalidParameterError) as raised:
        neighbors_graph(X, X, **arguments)
    assert isinstance(raised.value, ValueError)  # callers catching ValueError still do
    assert message in str(raised.value)


def test_count_tables_are_small_exact_integers():
    rng = np.random.default_rng(24)
    X = rng.normal(size=(80, 4))
    Y = (X[:, :3] > 0).astype(np.uint8)
    model = MLkNN(k=7).fit(X, Y)
    assert model.train_counts_.dtype == np.uint8 and model.count_pos_.dtype == np.int32
    neighbours = model.kneighbors()[1]
    np.testing.assert_array_equal(model.train_counts_, Y[neighbours].sum(axis=1))


def test_many_labels_with_uint8_counts_give_the_reference_tables():
    """L * (k + 1) far above 255: the uint8 counts must not overflow in the table indices."""
    rng = np.random.default_rng(25)
    X = rng.normal(size=(150, 5))
    Y = (rng.random((150, 300)) < 0.1).astype(np.uint8)
    model = MLkNN(k=10).fit(X[:120], Y[:120])
    reference = fig1_reference(X[:120], Y[:120], X[120:], k=10, s=1.0)
    np.testing.assert_array_equal(model.train_counts_, reference["train_counts"])
    np.testing.assert_allclose(model.cond_pos_, reference["cond_pos"], rtol=1e-12)
    np.testing.assert_allclose(model.cond_neg_, reference["cond_neg"], rtol=1e-12)
    np.testing.assert_array_equal(model.predict(X[120:]), reference["predict"])


# ------------------------------------------------- every k and s from one pass (MLkNNPath)
FITTED_ATTRIBUTES = (
    "k_",
    "metric_",
    "n_features_in_",
    "n_labels_",
    "classes_",
    "prior_",
    "cond_pos_",
    "cond_neg_",
    "count_pos_",
    "count_neg_",
    "train_counts_",
    "train_labels_",
)


def assert_same_model(fast: MLkNN, fresh: MLkNN, X_test) -> None:
    """Attribute for attribute (values and dtypes) and prediction for prediction."""
    for name in FITTED_ATTRIBUTES:
        a, b = getattr(fast, name), getattr(fresh, name)
        assert np.asarray(a).dtype == np.asarray(b).dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    for method in ("predict", "predict_proba", "decision_function"):
        np.testing.assert_array_equal(
            getattr(fast, method)(X_test), getattr(fresh, method)(X_test), err_msg=method
        )
    np.testing.assert_array_equal(fast.kneighbors()[1], fresh.kneighbors()[1])


@pytest.mark.parametrize("metric", ["euclidean", "precomputed", "manhattan"])
def test_path_gives_the_fresh_fit_of_every_k_and_s(metric):
    from mlviz.mlknn import MLkNNPath, neighbors_graph

    rng = np.random.default_rng(31)
    X = np.round(rng.normal(size=(150, 5)))  # integer features: many tied distances
    Y = (rng.random((150, 30)) < 0.15).astype(np.uint8)
    Y[:, 3] = 0  # a label nobody carries
    X_train, Y_train, X_test = X[:110], Y[:110], X[110:]
    k_max = 14
    if metric == "precomputed":
        X_train = neighbors_graph(X[:110], X[:110], k_max, exclude_self=True)
        X_test = neighbors_graph(X[110:], X[:110], k_max)
    path = MLkNNPath(k_max=k_max, metric=metric).fit(X_train, Y_train)
    assert path.count_pos_path_.shape == (k_max + 1, k_max + 1, 30)
    for k in (1, 2, 9, k_max):
        for s in (1.0, 0.25, 7.0):
            fresh = MLkNN(k=k, s=s, metric=metric).fit(X_train, Y_train)
            assert_same_model(path.estimator(k, s), fresh, X_test)


def test_path_tables_count_every_instance_once_for_every_k():
    from mlviz.mlknn import MLkNNPath

    rng = np.random.default_rng(32)
    X = rng.normal(size=(90, 4))
    Y = (rng.random((90, 12)) < 0.3).astype(np.uint8)
    path = MLkNNPath(k_max=10).fit(X, Y)
    n_pos = Y.sum(axis=0)
    for k in range(11):
        np.testing.assert_array_equal(path.count_pos_path_[k].sum(axis=0), n_pos)
        np.testing.assert_array_equal(path.count_neg_path_[k].sum(axis=0), 90 - n_pos)
        assert not path.count_pos_path_[k, k + 1 :].any()  # C(l) <= k
    # with no neighbour every count is 0
    np.testing.assert_array_equal(path.count_pos_path_[0, 0], n_pos)
    # the rank-r neighbours of fig1's counting: the path's table for k is the plain count
    neighbours = path.train_neighbors_
    for k in (1, 4, 10):
        counts = Y[neighbours[:, :k]].sum(axis=1)
        for j in range(k + 1):
            np.testing.assert_array_equal(
                path.count_pos_path_[k, j], ((counts == j) & (Y == 1)).sum(axis=0)
            )
            np.testing.assert_array_equal(
                path.count_neg_path_[k, j], ((counts == j) & (Y == 0)).sum(axis=0)
            )


def test_path_with_a_one_dimensional_target_and_shared_data():
    from mlviz.mlknn import MLkNNPath

    rng = np.random.default_rng(33)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    path = MLkNNPath(k_max=6).fit(X, y)
    fast, fresh = path.estimator(4, 0.5), MLkNN(k=4, s=0.5).fit(X, y)
    assert_same_model(fast, fresh, X[:10])
    assert fast.predict(X[:10]).shape == (10,)
    # two estimators from one path do not share their tables
    other = path.estimator(2)
    assert other.k_ == 2 and fast.k_ == 4 and fast.cond_pos_.shape == (5, 1)


def test_path_bad_parameters_raise_clear_errors():
    from mlviz.mlknn import MLkNNPath

    X = np.random.default_rng(34).normal(size=(20, 3))
    Y = (X > 0).astype(np.uint8)
    path = MLkNNPath(k_max=5).fit(X, Y)
    with pytest.raises(ValueError, match="k=6 is larger than k_max=5"):
        path.estimator(6)
    with pytest.raises(ValueError, match="'k' parameter"):
        path.estimator(0)
    with pytest.raises(ValueError, match="'s' parameter"):
        path.estimator(3, s=0.0)
    with pytest.raises(ValueError, match="k=20 is too large for n_samples = 20"):
        MLkNNPath(k_max=20).fit(X, Y)
    with pytest.raises(ValueError, match="'k_max' parameter"):
        MLkNNPath(k_max=0).fit(X, Y)
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        MLkNNPath().estimator(3)


def test_prediction_is_the_map_rule_per_instance_exactly():
    """Prediction looks the products of Eq. (8) up per count; they equal the per-instance ones."""
    rng = np.random.default_rng(35)
    X = rng.normal(size=(120, 4))
    Y = (rng.random((120, 25)) < 0.2).astype(np.uint8)
    model = MLkNN(k=6, s=0.3).fit(X[:90], Y[:90])
    distances, neighbours = model.kneighbors(X[90:])
    counts = Y[:90][neighbours].sum(axis=1)
    columns = np.arange(25)
    score_pos = model.prior_ * model.cond_pos_[counts, columns]
    score_neg = (1.0 - model.prior_) * model.cond_neg_[counts, columns]
    np.testing.assert_array_equal(model.predict_proba(X[90:]), score_pos / (score_pos + score_neg))
    np.testing.assert_array_equal(model.predict(X[90:]), (score_pos >= score_neg).astype(np.uint8))
    table = model.explain(X[90]).table
    np.testing.assert_array_equal(table["score_pos"], score_pos[0])
    np.testing.assert_array_equal(table["score_neg"], score_neg[0])


@pytest.mark.parametrize("one_dimensional", [False, True])
def test_predict_with_scores_is_predict_and_decision_function_from_one_search(
    one_dimensional, monkeypatch
):
    X, Y, X_test, _ = random_problem(seed=12)
    y = Y[:, 0] if one_dimensional else Y
    model = MLkNN(k=5, s=0.7).fit(X, y)
    searches = []
    k_nearest = mlviz.mlknn._k_nearest
    monkeypatch.setattr(
        mlviz.mlknn, "_k_nearest", lambda *a, **kw: searches.append(1) or k_nearest(*a, **kw)
    )
    labels, scores = model.predict_with_scores(X_test)
    assert len(searches) == 1
    np.testing.assert_array_equal(labels, model.predict(X_test))
    assert labels.dtype == model.predict(X_test).dtype
    np.testing.assert_array_equal(scores, model.decision_function(X_test))


def test_predict_with_scores_keeps_the_map_rule_where_the_posterior_rounds_to_one_half():
    """The labels are not ``posterior >= 0.5``: one ulp below a tie the division can give 0.5."""
    cond_neg = np.random.default_rng(3).uniform(0.2, 0.8, 2000)
    cond_pos = np.nextafter(cond_neg, 0.0)  # P(E|H1) one ulp below P(E|H0): not a tie
    rounds_up = cond_pos / (cond_pos + cond_neg) == 0.5
    assert rounds_up.any()
    below, above = cond_pos[rounds_up][0], cond_neg[rounds_up][0]
    X = np.arange(6.0)[:, None]
    model = MLkNN(k=1).fit(X, np.array([[1], [0], [1], [0], [1], [0]]))
    model.prior_ = np.array([0.5])  # the products of Eq. (8) are then exact halves
    model.cond_pos_ = np.array([[below], [below]])
    model.cond_neg_ = np.array([[above], [above]])
    labels, scores = model.predict_with_scores(X[:1])
    assert model.predict_proba(X[:1])[0, 0] == 0.5 and scores[0, 0] == 0.0
    assert labels[0, 0] == 0 == model.predict(X[:1])[0, 0]  # score_pos < score_neg: negative


def test_graph_rows_in_any_stored_order_give_the_same_neighbours():
    """Rows stored nearest first skip the sort; any other order is sorted, same result."""
    from mlviz.mlknn import neighbors_graph

    rng = np.random.default_rng(36)
    X = np.round(rng.normal(size=(80, 3)))  # ties: the column order decides
    Y = (rng.random((80, 6)) < 0.4).astype(np.uint8)
    G = neighbors_graph(X, X, 9, exclude_self=True)
    shuffled = G.copy()
    for row in range(G.shape[0]):
        part = slice(G.indptr[row], G.indptr[row + 1])
        order = rng.permutation(part.stop - part.start)
        shuffled.indices[part] = G.indices[part][order]
        shuffled.data[part] = G.data[part][order]
    from mlviz.mlknn import _rows_in_order

    def stored(graph):
        rows = np.repeat(np.arange(graph.shape[0]), np.diff(graph.indptr))
        return rows, graph.data, graph.indices

    assert _rows_in_order(*stored(G)) and not _rows_in_order(*stored(shuffled))
    ordered = MLkNN(k=7, metric="precomputed").fit(G, Y)
    unordered = MLkNN(k=7, metric="precomputed").fit(shuffled, Y)
    np.testing.assert_array_equal(ordered.kneighbors()[1], unordered.kneighbors()[1])
    np.testing.assert_array_equal(ordered.kneighbors()[1], MLkNN(k=7).fit(X, Y).kneighbors()[1])
    np.testing.assert_array_equal(ordered.train_counts_, unordered.train_counts_)
