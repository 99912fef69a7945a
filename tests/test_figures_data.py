"""The Data page's co-occurrence heatmap: the diagonal does not set the colour scale (issue 23)."""

from __future__ import annotations

import numpy as np

from mlviz.figures.data import cooccurrence_figure
from mlviz.stats import cooccurrence


def _long_tailed_counts() -> np.ndarray:
    # label 0 on every row, the others rare: the diagonal (300, 40, ...) dwarfs the pairs
    rng = np.random.default_rng(0)
    Y = np.zeros((300, 4), dtype=np.uint8)
    Y[:, 0] = 1
    Y[:40, 1] = 1
    Y[rng.choice(300, 12, replace=False), 2] = 1
    Y[:5, 3] = 1
    return cooccurrence(Y)


def test_counts_heatmap_scales_to_the_largest_pair_and_blanks_the_diagonal():
    matrix = _long_tailed_counts()
    fig = cooccurrence_figure(matrix, list("abcd"))
    heat = fig.data[0]
    z = np.array(heat.z, dtype=float)
    assert np.isnan(np.diag(z)).all()
    off = matrix[~np.eye(4, dtype=bool)]
    assert heat.zmin == 0 and heat.zmax == off.max() == 40  # a & b share 40 rows
    assert heat.zmax < np.diag(matrix).max()  # the diagonal (300) is not the scale
    np.testing.assert_array_equal(np.array(heat.customdata, dtype=float), matrix)  # hover
    assert "diagonal (each label with itself) left blank" in fig.layout.title.text
    assert "largest pair, 40" in fig.layout.title.text


def test_the_diagonal_can_be_kept():
    matrix = _long_tailed_counts()
    heat = cooccurrence_figure(matrix, list("abcd"), hide_diagonal=False).data[0]
    np.testing.assert_array_equal(np.array(heat.z, dtype=float), matrix)
    assert heat.zmax is None


def test_no_pair_at_all_keeps_a_valid_scale():
    matrix = np.diag([3.0, 2.0])
    heat = cooccurrence_figure(matrix, ["a", "b"]).data[0]
    assert heat.zmin == 0 and heat.zmax == 1.0
