"""PLST page figures: spectrum shares, encoding error vs M, loss vs M, decoding one instance."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mlviz.figures._style import WIDE_TITLE_CHARS, title_height
from mlviz.figures.linear import (
    decoding_figure,
    decoding_steps_table,
    encoding_error_figure,
    loss_vs_m_figure,
    spectrum_figure,
)
from mlviz.linear import PLST


def _labels(seed: int = 0, n: int = 120, k: int = 6) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random((n, k)) < np.linspace(0.1, 0.6, k)).astype(float)


def test_spectrum_shares_hand_worked():
    # σ = (3, 2, 1): σ² = 9, 4, 1 of 14
    fig = spectrum_figure(np.array([1.0, 3.0, 2.0]))
    bars, cumulative = fig.data
    assert list(bars.x) == [1, 2, 3]
    np.testing.assert_allclose(bars.y, [9 / 14, 4 / 14, 1 / 14])
    np.testing.assert_allclose(cumulative.y, [9 / 14, 13 / 14, 1.0])
    np.testing.assert_allclose(bars.customdata, [3, 2, 1])


def test_spectrum_matches_numpy_svd_and_plst():
    Y = _labels()
    sigma = np.linalg.svd(Y - Y.mean(axis=0), compute_uv=False)
    model = PLST(n_components=2, regressor=None).fit(np.random.default_rng(0).random((120, 3)), Y)
    fig = spectrum_figure(model.singular_values_)
    np.testing.assert_allclose(fig.data[0].y, sigma**2 / np.sum(sigma**2))


def test_spectrum_rejects_constant_labels():
    with pytest.raises(ValueError, match="all singular values are zero"):
        spectrum_figure(np.zeros(4))


def test_encoding_error_default_index_is_m_minus_one():
    fig = encoding_error_figure(np.array([0.5, 0.2, 0.0]), np.array([0.6, 0.3, 0.1]))
    train, test = fig.data
    assert list(train.x) == list(test.x) == [1, 2, 3]
    np.testing.assert_array_equal(train.y, [0.5, 0.2, 0.0])
    np.testing.assert_array_equal(test.y, [0.6, 0.3, 0.1])
    assert test.line.dash == "dash"


def test_encoding_error_of_plst_equals_tail_energy():
    """Section 3.3: the mean training encoding error at M is Σ_{m>M} σ_m² / N."""
    Y = _labels(seed=3)
    X = np.random.default_rng(3).random((Y.shape[0], 4))
    model = PLST(n_components=2).fit(X, Y)
    train_error = model.encoding_error(Y).mean(axis=0)  # M = 0..K
    K = Y.shape[1]
    fig = encoding_error_figure(train_error, m_values=np.arange(K + 1))
    sigma = np.linalg.svd(Y - Y.mean(axis=0), compute_uv=False)
    tail = np.array([np.sum(sigma[m:] ** 2) for m in range(K + 1)]) / Y.shape[0]
    assert list(fig.data[0].x) == list(range(K + 1))
    np.testing.assert_allclose(fig.data[0].y, tail, atol=1e-12)


def test_encoding_error_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="same M values"):
        encoding_error_figure(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="m_values"):
        encoding_error_figure(np.ones(3), m_values=np.arange(4))


def test_loss_vs_m_one_line_per_method_and_kind():
    df = pd.DataFrame(
        {
            "method": ["PLST", "PLST", "PBR", "PBR", "PLST", "PLST"],
            "M": [2, 1, 1, 2, 1, 2],
            "hamming_loss": [0.20, 0.25, 0.30, 0.27, 0.10, 0.05],
            "kind": ["learned", "learned", "learned", "learned", "ideal", "ideal"],
        }
    )
    fig = loss_vs_m_figure(df)
    assert [t.name for t in fig.data] == ["PLST", "PBR", "PLST (ideal learner)"]
    plst, pbr, ideal = fig.data
    assert list(plst.x) == [1, 2]
    np.testing.assert_array_equal(plst.y, [0.25, 0.20])  # sorted by M
    np.testing.assert_array_equal(pbr.y, [0.30, 0.27])
    np.testing.assert_array_equal(ideal.y, [0.10, 0.05])
    assert ideal.line.dash == "dash" and plst.line.dash == "solid"
    assert ideal.line.color == plst.line.color != pbr.line.color


def test_loss_vs_m_without_kind_and_with_sd():
    df = pd.DataFrame({"method": ["BR"] * 2, "M": [3, 3], "hamming_loss": [0.2, 0.2]})
    df = df.iloc[:1].assign(sd=[0.01])
    fig = loss_vs_m_figure(df)
    assert fig.data[0].line.dash == "solid"
    np.testing.assert_array_equal(fig.data[0].error_y.array, [0.01])


def test_loss_vs_m_rejects_bad_tables():
    with pytest.raises(ValueError, match="lacks column"):
        loss_vs_m_figure(pd.DataFrame({"method": ["a"], "M": [1]}))
    bad = pd.DataFrame({"method": ["a"], "M": [1], "hamming_loss": [0.1], "kind": ["oracle"]})
    with pytest.raises(ValueError, match="kind"):
        loss_vs_m_figure(bad)


def test_decoding_steps_table_is_consistent_with_plst():
    Y = _labels(seed=5)
    X = Y @ np.random.default_rng(5).random((6, 6)) + 0.1 * np.random.default_rng(6).random(
        (Y.shape[0], 6)
    )
    model = PLST(n_components=3).fit(X, Y)
    x = X[:1]
    h = model.regressor_.predict(x)[0]
    y_tilde = model.offset_ + h @ model.components_  # Algorithm 8
    y_hat = model.predict(x)[0]
    names = [f"label {j}" for j in range(6)]
    table = decoding_steps_table(y_tilde, y_hat, Y[0], names)
    assert list(table.columns) == ["label", "y_tilde", "y_hat", "y_true", "correct"]
    assert table["label"].tolist() == names
    np.testing.assert_allclose(table["y_tilde"], y_tilde)
    # round-based decoding (Eq. 2): ŷ[k] = [ỹ[k] ≥ 1/2]
    np.testing.assert_array_equal(table["y_hat"], (y_tilde >= 0.5).astype(int))
    np.testing.assert_array_equal(table["correct"], y_hat == Y[0])
    assert not table.attrs  # Streamlit cannot serialise DataFrame.attrs


def test_decoding_steps_table_rejects_bad_vectors():
    with pytest.raises(ValueError, match="one value per label"):
        decoding_steps_table([0.2, 0.7], [0, 1, 1], [0, 1], ["a", "b"])
    with pytest.raises(ValueError, match="only 0 and 1"):
        decoding_steps_table([0.2, 0.7], [0, 2], [0, 1], ["a", "b"])


def test_decoding_figure_bars_threshold_and_truth():
    y_tilde = np.array([0.9, 0.5, 0.49, -0.2])
    y_true = np.array([1, 0, 1, 0])
    fig = decoding_figure(y_tilde, y_true, ["w", "x", "y", "z"])
    bars, truth = fig.data
    assert list(bars.x) == ["w", "x", "y", "z"]
    np.testing.assert_array_equal(bars.y, y_tilde)
    # 0.5 is predicted (≥), 0.49 is not
    np.testing.assert_array_equal(bars.customdata, [1, 1, 0, 0])
    np.testing.assert_array_equal(truth.y, y_true)
    assert any(s.y0 == s.y1 == 0.5 for s in fig.layout.shapes)
    # x and y are on the wrong side
    assert "2 of 4 labels wrong" in fig.layout.title.text.replace("<br>", " ")


def test_decoding_figure_with_h_panel():
    fig = decoding_figure(np.array([0.7, 0.1]), np.array([1, 0]), ["a", "b"], h=[0.3, -0.1, 2.0])
    assert list(fig.data[0].x) == [1, 2, 3]
    np.testing.assert_array_equal(fig.data[0].y, [0.3, -0.1, 2.0])
    assert fig.data[1].xaxis == "x2"
    fig.to_json()  # serialisable for st.plotly_chart


def test_decoding_figure_panel_titles_clear_the_top_tick_and_the_title():
    names = [f"Class-{j}-786_{j:02d}" for j in range(45)]
    y_tilde, y_true = np.linspace(-0.2, 0.9, 45), (np.arange(45) % 7 == 0).astype(int)
    fig = decoding_figure(y_tilde, y_true, names, h=[0.4, -0.1], max_labels=30)
    panels = [a for a in fig.layout.annotations if a.yref == "paper" and a.y == 1.0]
    assert len(panels) == 2
    # lifted off the plot's top edge, where the top tick label ("0.4") reaches up ~6 px
    assert all(a.yanchor == "bottom" and a.yshift >= 8 for a in panels)
    # under the title's lines (title + "shown" subtitle) with room for themselves
    assert fig.layout.margin.t >= title_height(fig.layout.title.text) + panels[0].yshift + 20
    narrow = fig.layout.title.text
    wide = decoding_figure(
        y_tilde, y_true, names, h=[0.4, -0.1], max_labels=30, title_width=WIDE_TITLE_CHARS
    ).layout.title.text
    assert narrow.count("<br>") > wide.count("<br>") == 1  # title and subtitle, one line each


def test_loss_vs_m_title_wraps_by_the_width_it_gets():
    df = pd.DataFrame({"method": "PLST", "M": [1, 2], "hamming_loss": [0.2, 0.1]})
    # "Test hamming loss against the number of regressors M": 52 characters
    assert loss_vs_m_figure(df).layout.title.text.count("<br>") == 1
    wide = loss_vs_m_figure(df, title_width=WIDE_TITLE_CHARS).layout.title.text
    assert "<br>" not in wide and "number of regressors M" in wide


def _current_markers(fig):
    """(x, label) of each "you are here" line: the vline shapes and their annotations."""
    lines = [s.x0 for s in fig.layout.shapes if s.line.dash == "dash"]
    labels = [a.text for a in fig.layout.annotations if a.text.startswith("you are here")]
    return lines, labels


@pytest.mark.parametrize("current", [1, 3])
def test_plst_curves_mark_the_current_m(current):
    Y = _labels()
    model = PLST(n_components=2, regressor=None).fit(np.random.default_rng(0).random((120, 3)), Y)
    errors = model.encoding_error(Y).mean(axis=0)
    df = pd.DataFrame({"method": "PLST", "M": [1, 2, 3, 4], "hamming_loss": [0.4, 0.3, 0.2, 0.1]})
    figures = [
        spectrum_figure(model.singular_values_, current=current),
        encoding_error_figure(errors, m_values=np.arange(errors.size), current=current),
        loss_vs_m_figure(df, current=current),
    ]
    for fig in figures:
        assert _current_markers(fig) == ([current], [f"you are here: M = {current}"])
    unmarked = [spectrum_figure(model.singular_values_), loss_vs_m_figure(df)]
    assert all(_current_markers(fig) == ([], []) for fig in unmarked)


@pytest.mark.parametrize("bad", ["four", float("nan"), None])
def test_current_marker_rejects_non_numbers(bad):
    from mlviz.figures._current import mark_current

    with pytest.raises(ValueError, match="spectrum_figure: current="):
        mark_current(spectrum_figure(np.array([2.0, 1.0])), bad, "M", where="spectrum_figure")


def test_decoding_figure_beyond_max_labels_shows_a_stated_top_n():
    y_tilde = np.array([0.1, 0.9, 0.3, 0.2, 0.45, 0.05])
    y_true = np.array([1, 0, 0, 0, 0, 0])
    names = ["a", "b", "c", "d", "e", "f"]
    fig = decoding_figure(y_tilde, y_true, names, max_labels=3)
    # truth a and prediction b first, then the highest remaining ỹ (e), in label order
    assert list(fig.data[0].x) == ["a", "b", "e"]
    assert list(fig.layout.xaxis.tickvals) == ["a", "b", "e"]
    title = fig.layout.title.text.replace("<br>", " ")
    assert "2 of 6 labels wrong" in title  # counted over every label
    assert "3 of 6 labels shown" in title
    assert "shown" not in decoding_figure(y_tilde, y_true, names).layout.title.text
