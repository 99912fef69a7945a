"""The frequency-bin contribution chart and its CSV table (issue 32 item 3)."""

from __future__ import annotations

import numpy as np
import pytest

from mlviz.figures.bins import ALL_LABELS, frequency_bin_figure, frequency_bin_table
from mlviz.metrics import frequency_bin_contributions, precision_at_k


@pytest.fixture(scope="module")
def tables():
    rng = np.random.default_rng(0)
    rates = np.geomspace(0.01, 0.5, 30)
    Y_train = (rng.random((300, 30)) < rates).astype(int)
    Y_true = (rng.random((100, 30)) < rates).astype(int)
    scores = {
        "good": rng.normal(size=Y_true.shape) + 2 * Y_true,
        "<b>weak</b>": rng.normal(size=Y_true.shape) + 0.5 * Y_true,
    }
    out = {
        name: frequency_bin_contributions(Y_true, s, Y_train=Y_train, k=3, n_bins=4)
        for name, s in scores.items()
    }
    return out, {name: precision_at_k(Y_true, s, k=3) for name, s in scores.items()}


def test_bars_run_tail_to_head_then_all_labels(tables):
    bins, totals = tables
    fig = frequency_bin_figure(bins, metric="P", k=3)
    assert [trace.name for trace in fig.data] == ["good", "&lt;b&gt;weak&lt;/b&gt;"]
    for trace, (name, table) in zip(fig.data, bins.items(), strict=True):
        np.testing.assert_allclose(trace.y[:-1], table["contribution"].to_numpy()[::-1])
        assert trace.y[-1] == pytest.approx(totals[name])
        assert trace.x[-1] == ALL_LABELS
    first = next(iter(bins.values()))
    tail = first.iloc[-1]
    assert f"{int(tail['labels'])} labels" in fig.data[0].x[0]
    assert f"mean {tail['mean_train_count']:.3g} train" in fig.data[0].x[0]
    title = fig.layout.title.text.replace("<br>", " ")
    assert "P@3" in title and "4 bins" in title


def test_csv_table_has_every_bin_and_the_whole_metric(tables):
    bins, totals = tables
    table = frequency_bin_table(bins)
    assert len(table) == 2 * (4 + 1)
    whole = table[table["bin"] == ALL_LABELS].set_index("method")["contribution"]
    for name, value in totals.items():
        assert whole[name] == pytest.approx(value)
    assert (table[table["bin"] == ALL_LABELS]["labels"] == 30).all()


def test_tables_with_different_bins_are_refused(tables):
    bins, _ = tables
    first = next(iter(bins.values()))
    with pytest.raises(ValueError, match="different bins"):
        frequency_bin_figure({"a": first, "b": first.iloc[:2]})
