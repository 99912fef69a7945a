"""The facts behind the Lesson page's "what to notice" texts, on cases worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from mlviz.figures import lesson
from mlviz.linear import PLST
from mlviz.mlknn import MLkNN


def test_variance_kept_by_hand():
    # σ = 3, 2, 1: energies 9, 4, 1 of 14
    assert lesson.variance_kept(np.array([1.0, 3.0, 2.0]), 1) == pytest.approx(9 / 14)
    assert lesson.variance_kept(np.array([3.0, 2.0, 1.0]), 2) == pytest.approx(13 / 14)
    assert lesson.variance_kept(np.array([3.0, 2.0, 1.0]), 0) == 0.0
    assert lesson.variance_kept(np.array([3.0, 2.0, 1.0]), 7) == 1.0


def test_variance_kept_is_nan_without_variance_and_rejects_negative_m():
    assert np.isnan(lesson.variance_kept(np.zeros(3), 1))
    with pytest.raises(ValueError, match="at least 0"):
        lesson.variance_kept(np.ones(3), -1)


def test_variance_kept_matches_plst_training_encoding_error():
    # PLST §3.3: the training encoding error is the variance the M directions leave out
    rng = np.random.default_rng(0)
    Y = (rng.random((80, 6)) < 0.4).astype(int)
    X = rng.standard_normal((80, 3))
    model = PLST(n_components=2).fit(X, Y)
    error = model.encoding_error(Y).mean(axis=0)  # M = 0..L
    assert 1 - error[2] / error[0] == pytest.approx(lesson.variance_kept(model.singular_values_, 2))


def test_unseen_labelset_share_by_hand():
    train = np.array([[1, 0, 0], [0, 1, 1], [1, 0, 0]])
    test = np.array([[1, 0, 0], [1, 1, 1], [0, 0, 0], [0, 1, 1]])
    assert lesson.unseen_labelset_share(train, test) == 0.5
    assert lesson.unseen_labelset_share(train, train) == 0.0
    assert np.isnan(lesson.unseen_labelset_share(train, np.empty((0, 3))))


def test_unseen_labelset_share_wide_labels_and_shape_check():
    # more than 8 labels: rows that differ only after the first packed byte
    a = np.zeros((1, 12), dtype=int)
    b = a.copy()
    b[0, 11] = 1
    assert lesson.unseen_labelset_share(a, b) == 1.0
    with pytest.raises(ValueError, match="same number of columns"):
        lesson.unseen_labelset_share(a, np.zeros((1, 3)))


def test_rows_per_group_by_hand():
    support = np.array(
        [
            [1, 1, 0, 0],  # rows 0, 1; row 1 shared with group 1
            [0, 1, 1, 0],  # rows 1, 2; row 2 private
            [0, 0, 0, 1],  # row 3, private: this group shares nothing
        ],
        dtype=bool,
    )
    table = lesson.rows_per_group(support)
    assert table["rows_used"].tolist() == [2, 2, 1]
    assert table["private_rows"].tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="n_groups, d"):
        lesson.rows_per_group(np.ones(3, dtype=bool))


def test_never_predicted_by_hand():
    pred = np.array([[1, 0, 0, 0], [1, 0, 1, 0]])
    true = np.array([[0, 1, 0, 0], [1, 0, 0, 0]])
    never, missed = lesson.never_predicted(pred, true)
    assert never.tolist() == [1, 3]
    assert missed.tolist() == [1]  # label 3 never occurs, so never predicting it costs nothing
    with pytest.raises(ValueError, match="same shape"):
        lesson.never_predicted(pred, true[:, :3])


def test_votes_needed_by_hand():
    prior = np.array([0.5, 0.1, 0.5])
    # label 0: equal likelihoods -> ties win at j = 0; label 1: wins only at j = 2;
    # label 2: never wins
    cond_pos = np.array([[0.2, 0.1, 0.1], [0.3, 0.2, 0.1], [0.5, 0.7, 0.1]])
    cond_neg = np.array([[0.2, 0.8, 0.5], [0.3, 0.15, 0.3], [0.5, 0.05, 0.2]])
    assert lesson.votes_needed(prior, cond_pos, cond_neg).tolist() == [0, 2, -1]
    with pytest.raises(ValueError, match="k \\+ 1, L"):
        lesson.votes_needed(prior, cond_pos[:, :2], cond_neg)


def test_votes_needed_agrees_with_mlknn_predictions():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((120, 4))
    Y = (rng.random((120, 5)) < [0.5, 0.3, 0.1, 0.04, 0.6]).astype(int)
    model = MLkNN(k=6).fit(X, Y)
    needed = lesson.votes_needed(model.prior_, model.cond_pos_, model.cond_neg_)
    counts, _, _ = model._query_counts(X)
    predicted = model.predict(X).astype(bool)
    for label in range(Y.shape[1]):
        if needed[label] < 0:
            assert not predicted[:, label].any()
        else:
            # fewer votes than needed never predicts the label
            assert not predicted[counts[:, label] < needed[label], label].any()
            at_threshold = counts[:, label] == needed[label]
            assert predicted[at_threshold, label].all()


def test_tail_head_f1_by_hand():
    frequencies = np.array([0.5, 0.01, 0.02, 0.3])
    f1 = {"A": np.array([0.8, 0.0, np.nan, 0.6]), "B": np.array([1.0, 0.5, 0.5, 0.0])}
    table = lesson.tail_head_f1(frequencies, f1, threshold=0.05)
    assert table.loc["A", "tail_f1"] == 0.0  # NaN skipped
    assert table.loc["A", "head_f1"] == pytest.approx(0.7)
    assert table.loc["B", "tail_f1"] == 0.5
    assert table.loc["B", "head_f1"] == 0.5
    assert table["n_tail"].tolist() == [2, 2]
    no_tail = lesson.tail_head_f1(frequencies, f1, threshold=0.001)
    assert no_tail["tail_f1"].isna().all()
    with pytest.raises(ValueError, match="3 F1 values for 4 labels"):
        lesson.tail_head_f1(frequencies, {"C": np.ones(3)}, 0.05)


def test_labels_to_show_keeps_flagged_then_highest():
    priority = np.array([0.9, 0.1, 0.5, 0.8, 0.2])
    keep = np.array([False, True, False, False, False])
    assert lesson.labels_to_show(priority, keep, 3).tolist() == [0, 1, 3]
    assert lesson.labels_to_show(priority, keep, 5).tolist() == [0, 1, 2, 3, 4]
    # more flagged labels than room: the flagged ones with the highest priority
    assert lesson.labels_to_show(priority, np.ones(5, bool), 2).tolist() == [0, 3]
    with pytest.raises(ValueError, match="at least 1"):
        lesson.labels_to_show(priority, keep, 0)
