"""The Data page's tables (issue 23 item 5): the per-label table and the named summary row.

``stats.label_table`` against a hand-worked example and a brute-force reference; the page
shows it (sortable, with a plain-text search) and offers both as CSV.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from mlviz import datasets, stats
from mlviz.io import Dataset
from mlviz.synthetic import make_planted

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 180


def test_label_table_by_hand():
    # a b c d over 6 instances: a&b together twice, a&c once, d alone, c never with b
    Y = np.array(
        [
            [1, 1, 0, 0],
            [1, 1, 0, 0],
            [1, 0, 1, 0],
            [0, 0, 0, 1],
            [1, 0, 0, 0],
            [0, 0, 0, 0],
        ]
    )
    table = stats.label_table(Y, ["a", "b", "c", "d"], tail_threshold=0.2)
    assert table["label"].tolist() == ["a", "b", "c", "d"]
    assert table["count"].tolist() == [4, 2, 1, 1]
    assert np.allclose(table["frequency"], [4 / 6, 2 / 6, 1 / 6, 1 / 6])
    assert table["tail"].tolist() == [False, False, True, True]  # 1/6 < 0.2 <= 2/6
    # a meets b and c; b meets a; c meets a; d meets nobody
    assert table["co_occurring_labels"].tolist() == [2, 1, 1, 0]


def test_label_table_matches_brute_force_and_the_tail_rule():
    ds, _ = make_planted(n_samples=200, random_state=3)
    threshold = 0.05
    table = stats.label_table(ds, tail_threshold=threshold)
    assert table["label"].tolist() == list(ds.label_names)
    frequencies = stats.label_frequencies(ds.Y, relative=True)
    # the tail column is the project's rule, whatever it is
    assert table["tail"].tolist() == stats.is_tail(frequencies, threshold).tolist()
    counts = stats.cooccurrence(ds.Y)
    expected = [
        sum(1 for j in range(ds.n_labels) if j != i and counts[i, j] > 0)
        for i in range(ds.n_labels)
    ]
    assert table["co_occurring_labels"].tolist() == expected
    assert table["count"].tolist() == np.diag(counts).tolist()


@pytest.mark.parametrize("density", [0.0, 2.0], ids=["dense-product", "sparse-product"])
@pytest.mark.parametrize("block", [2**22, 300 * 7])
def test_label_table_paths_and_blocks_give_the_same_degrees(monkeypatch, density, block):
    """Dense or sparse product, one block or many (7 labels each): the same degrees."""
    monkeypatch.setattr(stats, "_LABEL_TABLE_DENSITY", density)
    monkeypatch.setattr(stats, "_LABEL_TABLE_BLOCK", block)
    rng = np.random.default_rng(0)
    Y = (rng.random((40, 300)) < 0.02).astype(np.uint8)
    whole = stats.label_table(Y, tail_threshold=0.1)["co_occurring_labels"].to_numpy()
    pairs = {(i, j) for row in Y for i, j in itertools.permutations(np.flatnonzero(row), 2)}
    brute = np.bincount([i for i, _ in pairs], minlength=300)
    assert whole.tolist() == brute.tolist()


def test_label_table_rejects_wrong_names():
    with pytest.raises(ValueError, match="2 names but Y has 3"):
        stats.label_table(np.eye(3), ["a", "b"], tail_threshold=0.1)


def test_summary_table_names_say_what_they_count():
    ds, _ = make_planted(n_samples=120, random_state=0)
    numbers = stats.summary(ds, tail_threshold=0.05)
    row = stats.summary_table(ds, tail_threshold=0.05).iloc[0]
    assert len(row) == len(numbers)  # every number, renamed
    assert row["distinct_label_sets"] == stats.distinct_labelsets(ds.Y)
    _, counts = stats.unique_rows(ds.Y)
    assert row["label_sets_on_one_instance_only"] == int((counts == 1).sum())
    assert "distinct" not in row.index and "unique_labelsets" not in row.index


def _data_page(dataset: Dataset) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / "data.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    return at.run()


def _label_frame(at: AppTest):
    frames = [f.value for f in at.dataframe if "co_occurring_labels" in f.value.columns]
    assert len(frames) == 1
    return frames[0]


def test_data_page_shows_every_label_and_searches_names_as_plain_text():
    rng = np.random.default_rng(0)
    names = ("a+b", "(x)", "apple", "Pineapple", "[z]", "a.b")
    Y = (rng.random((50, len(names))) < 0.3).astype(np.uint8)
    ds = Dataset("t", rng.normal(size=(50, 3)), Y, ("f1", "f2", "f3"), names)
    at = _data_page(ds)
    assert not at.exception, [e.message for e in at.exception]
    assert _label_frame(at)["label"].tolist() == list(names)
    search = at.text_input(key="data_label_search")
    for typed, found in [
        ("a+b", ["a+b"]),  # a regex would match "ab" only
        ("(x)", ["(x)"]),
        ("APPLE", ["apple", "Pineapple"]),
        ("a.b", ["a.b"]),  # a regex "." would match "a+b" too
        ("nothing like it", []),
    ]:
        search.set_value(typed).run()
        assert not at.exception
        assert _label_frame(at)["label"].tolist() == found, typed
        assert any(f"{len(found)} of {len(names)} labels" in c.value for c in at.caption)
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download the label table (CSV)" in labels and "Download the summary (CSV)" in labels


def test_data_page_label_table_tail_column_agrees_with_the_chart_caption():
    ds = datasets.load_source("sample:planted")
    at = _data_page(ds)
    at.session_state["tail_threshold"] = 0.05
    at.run()
    assert not at.exception
    table = _label_frame(at)
    n_tail = int(table["tail"].sum())
    assert any(f"the {n_tail} red bars" in c.value for c in at.caption)
    assert any(f"{n_tail:,} are tail labels" in c.value for c in at.caption)
