"""ML-KNN page figures: the MAP products per label and the neighbour table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_multilabel_classification

from mlviz.figures._style import WIDE_TITLE_CHARS
from mlviz.figures.mlknn import neighbors_table, posterior_figure
from mlviz.mlknn import MLkNN


def _table() -> pd.DataFrame:
    pos = np.array([0.30, 0.002, 0.10])
    neg = np.array([0.10, 0.500, 0.10])
    return pd.DataFrame(
        {
            "label": ["rock", "jazz", "pop"],
            "count": [8, 0, 5],
            "score_pos": pos,
            "score_neg": neg,
            "posterior": pos / (pos + neg),
            "decision": (pos >= neg).astype(np.uint8),  # the tie (pop) is positive
        }
    )


def test_posterior_figure_plots_the_table():
    table = _table()
    fig = posterior_figure(table)
    has, lacks, posterior = fig.data
    np.testing.assert_array_equal(has.y, table["score_pos"])
    np.testing.assert_array_equal(lacks.y, table["score_neg"])
    np.testing.assert_array_equal(posterior.y, table["posterior"])
    assert posterior.yaxis == "y2"
    assert list(fig.layout.xaxis.ticktext) == ["<b>rock</b>", "jazz", "<b>pop</b>"]
    assert list(posterior.marker.symbol) == ["diamond", "diamond-open", "diamond"]
    shaded = sorted(s.x0 for s in fig.layout.shapes if s.type == "rect")
    assert shaded == [-0.5, 1.5]  # rock and pop
    assert "jazz: 0 of k neighbours" in has.customdata[1]
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.yaxis.dtick == 1  # powers of ten only, not "5, 2, 0.1, 5, 2"
    # under the names, at the figure's lower edge: at the right it took the names' width
    assert fig.layout.legend.yref == "container" and fig.layout.legend.y == 0
    assert fig.layout.barmode == "group"
    assert "2 of 3 labels predicted" in fig.layout.title.text.replace("<br>", " ")


def test_posterior_figure_right_axis_title_fits_and_title_wraps_by_width():
    fig = posterior_figure(_table())
    # the right margin holds the right axis's ticks ("0.75") and its title (cut at 80 px)
    assert fig.layout.yaxis2.title.text == "posterior P(H₁|E)" and fig.layout.margin.r >= 100
    # "ML-KNN per label: predicted when green ≥ grey (2 of 3 labels predicted)": 70 characters
    assert fig.layout.title.text.count("<br>") == 1  # two lines in a half-width column
    wide = posterior_figure(_table(), title_width=WIDE_TITLE_CHARS)
    assert "<br>" not in wide.layout.title.text  # one line across the page


def test_posterior_figure_linear_scale_option():
    assert posterior_figure(_table(), log_y=False).layout.yaxis.type == "linear"


def test_posterior_figure_missing_columns():
    with pytest.raises(ValueError, match="posterior"):
        posterior_figure(_table().drop(columns="posterior"))


def test_posterior_figure_from_mlknn_explain():
    X, Y = make_multilabel_classification(150, 8, n_classes=5, n_labels=2, random_state=1)
    model = MLkNN(k=7).fit(X[:120], Y[:120])
    names = ["a", "b", "c", "d", "e"]
    explanation = model.explain(X[130], label_names=names)
    fig = posterior_figure(explanation.table)  # score_pos / score_neg are accepted
    np.testing.assert_allclose(fig.data[0].y, explanation.table["score_pos"])
    np.testing.assert_allclose(fig.data[2].y, model.predict_proba(X[130:131])[0])
    predicted = model.predict(X[130:131])[0].astype(bool)
    bold = [t.startswith("<b>") for t in fig.layout.xaxis.ticktext]
    assert bold == predicted.tolist()
    fig.to_json()  # serialisable for st.plotly_chart


def test_neighbors_table_content_and_counts():
    X, Y = make_multilabel_classification(150, 8, n_classes=5, n_labels=2, random_state=1)
    model = MLkNN(k=6).fit(X[:120], Y[:120])
    names = ["a", "b", "c", "d", "e"]
    explanation = model.explain(X[125], label_names=names)
    idx = explanation.neighbors
    table = neighbors_table(idx, explanation.distances, Y[:120][idx], names)
    assert list(table.columns[:5]) == ["rank", "train_row", "distance", "n_labels", "label_set"]
    assert table["rank"].tolist() == [1, 2, 3, 4, 5, 6]
    np.testing.assert_array_equal(table["train_row"], idx)
    np.testing.assert_allclose(table["distance"], np.linalg.norm(X[:120][idx] - X[125], axis=1))
    np.testing.assert_array_equal(table[names].to_numpy(), Y[:120][idx])
    # the label columns sum to C_t(l) of Eq. (6), as in the explanation
    np.testing.assert_array_equal(table[names].sum(axis=0), explanation.table["count"])
    first = Y[:120][idx[0]]
    expected = ", ".join(n for n, v in zip(names, first, strict=True) if v) or "∅"
    assert table["label_set"].iloc[0] == expected


def test_neighbors_table_empty_set_and_errors():
    table = neighbors_table([4, 2], [0.0, 1.5], np.array([[0, 0], [1, 1]]), ["x", "y"])
    assert table["label_set"].tolist() == ["∅", "x, y"]
    assert table["n_labels"].tolist() == [0, 2]
    with pytest.raises(ValueError, match="shape"):
        neighbors_table([4, 2], [0.0, 1.5], np.array([[0, 0, 1]]), ["x", "y"])
    with pytest.raises(ValueError, match="distances"):
        neighbors_table([4, 2], [0.0], np.zeros((2, 2)), ["x", "y"])
    with pytest.raises(ValueError, match="only 0 and 1"):
        neighbors_table([4, 2], [0.0, 1.0], np.full((2, 2), 2), ["x", "y"])
    with pytest.raises(ValueError, match="collide"):
        neighbors_table([4, 2], [0.0, 1.0], np.zeros((2, 2)), ["rank", "y"])


def test_posterior_figure_beyond_max_labels_shows_a_stated_top_n():
    import pandas as pd

    from mlviz.figures.mlknn import posterior_figure

    table = pd.DataFrame(
        {
            "label": list("abcde"),
            "count": [0, 3, 1, 0, 2],
            "score_pos": [0.01, 0.3, 0.05, 0.02, 0.2],
            "score_neg": [0.5, 0.1, 0.3, 0.4, 0.25],
            "posterior": [0.02, 0.75, 0.14, 0.05, 0.44],
            "decision": [0, 1, 0, 0, 0],
        }
    )
    fig = posterior_figure(table, max_labels=2)
    # the predicted label b first, then the highest posterior (e), in label order
    assert list(fig.layout.xaxis.ticktext) == ["<b>b</b>", "e"]
    title = fig.layout.title.text.replace("<br>", " ")
    assert "(1 of 5 labels predicted)" in title and "2 of 5 labels shown" in title
    assert "shown" not in posterior_figure(table).layout.title.text
