"""Any model's scores: mlviz.load_scores, metrics.finite_scores, evaluation.external_predictions."""

from __future__ import annotations

import io

import numpy as np
import pytest

import mlviz
from mlviz import metrics
from mlviz.evaluation import (
    OutOfFoldPredictions,
    external_predictions,
    per_label_comparison,
)
from mlviz.io import DataFormatError, load_scores
from mlviz.per_label import loss_reasons
from mlviz.synthetic import make_long_tailed


def test_top_k_text_worked_by_hand(tmp_path):
    path = tmp_path / "scores.txt"
    path.write_text("2:0.9 0:0.25\n\n1:-3e-1 3:-inf\n")
    scores = load_scores(path, n_labels=4)
    inf = -np.inf
    assert scores.tolist() == [[0.25, inf, 0.9, inf], [inf] * 4, [inf, -0.3, inf, inf]]
    assert scores.dtype == np.float64


def test_dense_csv_is_put_in_the_data_sets_label_order():
    text = "b,a,c\n1,2,3\n4,5,-inf\n"
    assert load_scores(text, label_names=["a", "b", "c"]).tolist() == [
        [2, 1, 3],
        [5, 4, -np.inf],
    ]
    assert load_scores(io.BytesIO(text.encode()), n_labels=3).tolist()[0] == [1, 2, 3]


def test_npy_is_read_without_unpickling(tmp_path):
    array = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.save(tmp_path / "s.npy", array)
    assert load_scores(tmp_path / "s.npy", n_labels=2, n_rows=3).tolist() == array.tolist()
    np.save(tmp_path / "o.npy", np.array([[{"a": 1}]], dtype=object), allow_pickle=True)
    with pytest.raises(DataFormatError, match="object arrays .* are never loaded"):
        load_scores(tmp_path / "o.npy")
    np.save(tmp_path / "v.npy", np.arange(3.0))
    with pytest.raises(DataFormatError, match=r"shape \(3,\)"):
        load_scores(tmp_path / "v.npy")


@pytest.mark.parametrize(
    ("text", "kwargs", "pattern"),
    [
        ("0:1 5:2\n", {"n_labels": 4}, r"line 1: label 5 is beyond the data set's 4 labels"),
        ("0:1\n1:0.5 1:0.2\n", {"n_labels": 4}, r"line 2: label 1 is listed twice"),
        ("0:1\n1:x\n", {"n_labels": 4}, r"line 2: '1:x' is not a label:score pair"),
        ("0:1\n1:nan\n", {"n_labels": 4}, r"line 2: '1:nan' is not a label:score pair"),
        ("0:1\n1:0.5\n", {"n_labels": 4, "n_rows": 3}, r"scores for 2 instances, 3 expected"),
        ("a,b\n1,2\n", {"n_labels": 3}, r"2 score columns for a data set of 3 labels"),
        ("a,b\n1,\n", {}, r"line 2: column 'b' is '', not a number"),
        ("a,b\n1,nan\n", {}, r"row 1, label 1 is NaN \(missing\)"),
        ("a,b\n1,inf\n", {}, r"row 1, label 1 is \+inf"),
    ],
)
def test_errors_say_where_and_what_to_do(text, kwargs, pattern):
    with pytest.raises(DataFormatError, match=pattern):
        load_scores(text, **kwargs)


def test_top_k_with_pyxclibs_header():
    text = "2 3\n0:0.5\n2:0.1 1:0.2\n"
    assert load_scores(text).tolist() == [[0.5, -np.inf, -np.inf], [-np.inf, 0.2, 0.1]]
    with pytest.raises(DataFormatError, match="line 1: the header declares 3 labels, the data"):
        load_scores(text, n_labels=4)
    with pytest.raises(DataFormatError, match="line 1: the header declares 2 instances, but 1"):
        load_scores("2 3\n0:0.5\n")
    with pytest.raises(DataFormatError, match="line 3: label 3 is beyond"):
        load_scores("2 3\n0:0.5\n3:0.1\n")


def test_blank_lines_are_instances_with_no_score_and_an_empty_file_is_refused():
    assert load_scores("\n\n1:0.5\n", n_labels=2).tolist() == [
        [-np.inf, -np.inf],
        [-np.inf, -np.inf],
        [-np.inf, 0.5],
    ]
    with pytest.raises(DataFormatError, match="the score file is empty"):
        load_scores("\n\n", n_labels=2)


def test_top_k_needs_n_labels():
    with pytest.raises(ValueError, match="pass n_labels"):
        load_scores("0:1\n")


def test_csv_header_mismatch_names_missing_and_extra_labels_capped():
    names = [f"label {j}" for j in range(30)]
    header = ",".join(names[2:] + [f"other {j}" for j in range(12)])
    text = header + "\n" + ",".join(["0"] * 40) + "\n"
    with pytest.raises(DataFormatError) as err:
        load_scores(text, label_names=names)
    message = str(err.value)
    assert "no column for 2 labels: 'label 0', 'label 1'" in message
    assert "12 columns that are not labels: 'other 0'" in message
    assert "and 4 more" in message and "'other 11'" not in message


def test_finite_scores_keeps_every_order():
    scores = np.array([[0.9, -np.inf, 0.1], [-np.inf, -np.inf, -5.0]])
    finite = metrics.finite_scores(scores)
    assert np.isfinite(finite).all()
    assert finite[0, 1] == finite[1, 0] == finite[1, 1] < -5.0
    assert metrics.finite_scores(np.full((1, 2), -np.inf)).tolist() == [[-1.0, -1.0]]
    with pytest.raises(ValueError, match="NaN or \\+inf"):
        metrics.finite_scores(np.array([[np.nan]]))
    with pytest.raises(ValueError, match="finite_scores"):  # the metrics say what to do
        metrics.precision_at_k(np.array([[1, 0]]), scores[:1, :2])


def _top_k_file(scores: np.ndarray, k: int) -> str:
    """The top-k text napkinXC writes: each row's k best labels, best first."""
    lines = []
    for row in scores:
        best = np.argsort(-row, kind="stable")[:k]
        lines.append(" ".join(f"{j}:{row.tolist()[j]!r}" for j in best.tolist()))
    return "\n".join(lines) + "\n"


def test_metrics_from_a_loaded_top_k_file_equal_those_of_the_matrix_in_memory():
    ds = make_long_tailed(200, 40, n_labels=30, cardinality=3, random_state=0)
    rng = np.random.default_rng(0)
    dense = rng.random(ds.Y.shape) + ds.Y  # informative scores
    k = 5
    loaded = load_scores(_top_k_file(dense, k), n_labels=ds.n_labels, n_rows=ds.n_samples)
    # in memory: the same top k kept, every other label below all of them
    kept = np.full(dense.shape, -np.inf)
    top = np.argsort(-dense, axis=1, kind="stable")[:, :k]
    np.put_along_axis(kept, top, np.take_along_axis(dense, top, axis=1), axis=1)
    np.testing.assert_array_equal(loaded, kept)
    from_file = external_predictions(loaded, threshold=1.0)
    in_memory = metrics.finite_scores(kept)
    for k_metric in (1, 3, 5):
        assert metrics.precision_at_k(ds.Y, from_file.Y_score, k=k_metric) == pytest.approx(
            metrics.precision_at_k(ds.Y, dense, k=k_metric)  # top k unchanged by the cut
        )
    assert metrics.evaluate(ds.Y, from_file.Y_pred, Y_score=from_file.Y_score) == pytest.approx(
        metrics.evaluate(ds.Y, (kept >= 1.0).astype(int), Y_score=in_memory), nan_ok=True
    )
    assert not np.isnan(metrics.macro_auc(ds.Y, from_file.Y_score))


def test_external_scores_build_the_same_per_label_table_as_an_estimators():
    ds = make_long_tailed(150, 30, n_labels=12, cardinality=2, random_state=1)
    rng = np.random.default_rng(1)
    scores = rng.normal(size=ds.Y.shape) + 2 * ds.Y
    scores[rng.random(scores.shape) < 0.3] = -np.inf
    external = external_predictions(scores, threshold=1.0)
    as_estimator = OutOfFoldPredictions(
        Y_pred=(scores >= 1.0).astype(np.int8), Y_score=metrics.finite_scores(scores)
    )
    names = list(ds.label_names)
    kwargs = {"label_names": names, "metrics": ("f1", "recall", "auc")}
    table = per_label_comparison({"mine": external}, ds.Y, **kwargs)
    expected = per_label_comparison({"mine": as_estimator}, ds.Y, **kwargs)
    assert table.equals(expected)
    assert not table[["F1 mine", "recall mine"]].isna().any().any()
    reasons = loss_reasons(ds.Y, external.Y_pred, Y_score=external.Y_score, label_names=names)
    assert "no scores" not in set(reasons["reason"]) and not reasons["auc"].isna().all()


def test_external_predictions_threshold_and_top_k():
    scores = np.array([[0.4, 0.8, -np.inf], [0.9, 0.9, 0.1]])
    assert external_predictions(scores).Y_pred.tolist() == [[0, 1, 0], [1, 1, 0]]
    assert external_predictions(scores, threshold=0.0).Y_pred.tolist() == [[1, 1, 0], [1, 1, 1]]
    assert external_predictions(scores, top_k=1).Y_pred.tolist() == [[0, 1, 0], [1, 0, 0]]
    # a -inf label is never predicted, even when k asks for more than were listed
    assert external_predictions(scores, top_k=3).Y_pred.tolist() == [[1, 1, 0], [1, 1, 1]]
    with pytest.raises(ValueError, match="top_k"):
        external_predictions(scores, top_k=0)


def test_top_level_export():
    assert mlviz.load_scores is load_scores
