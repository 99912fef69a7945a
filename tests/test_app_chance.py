"""App test of the grouping-against-chance panel on the Label clusters page (issue 32 item 5)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from mlviz import datasets

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 240


def test_label_clusters_compares_the_groups_with_random_groupings():
    dataset = datasets.load_source("sample:planted")
    at = AppTest.from_file(str(REPO / "pages" / "label_clusters.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    # nothing is fitted before the button: a caption says what it would do
    assert any("Szymański" in c.value for c in at.caption)
    charts_before = len(at.get("plotly_chart"))
    at.select_slider(key="clusters_chance_n_random").set_value(5).run()
    at.button(key="clusters_chance_fit").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert not [e.value for e in at.error], [e.value for e in at.error]
    assert len(at.get("plotly_chart")) == charts_before + 1
    sentence = next(m.value for m in at.markdown if "random groupings of the same group" in m.value)
    assert "Only 5 random groupings" in sentence  # the warning for a small n
    assert any(phrase in sentence for phrase in ("nearly every", "spread of chance", "hurt"))


def test_too_many_labels_say_why_and_offer_no_button():
    from mlviz.io import Dataset

    rng = np.random.default_rng(0)
    Y = (rng.random((120, 600)) < 0.02).astype(np.uint8)
    Y[np.arange(600) % 120, np.arange(600)] = 1  # every label occurs
    dataset = Dataset(
        "wide",
        rng.standard_normal((120, 4)),
        Y,
        feature_names=tuple(f"x{i}" for i in range(4)),
        label_names=tuple(f"label {j}" for j in range(600)),
    )
    at = AppTest.from_file(str(REPO / "pages" / "label_clusters.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not [b for b in at.button if b.key == "clusters_chance_fit"]
    assert any("with 600 labels (more than 500)" in c.value for c in at.caption)


def test_grople_page_compares_its_fits_groups_with_random_groupings():
    dataset = datasets.load_source("sample:planted")
    at = AppTest.from_file(str(REPO / "pages" / "grople.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("Szymański" in c.value for c in at.caption)
    at.select_slider(key="grople_chance_n_random").set_value(5).run()
    at.button(key="grople_chance_fit").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert not [e.value for e in at.error], [e.value for e in at.error]
    assert "grople_chance_figure" in " ".join(c.proto.id for c in at.get("plotly_chart"))
    # the random groupings keep the sizes of the groups this fit used (its group table)
    groups = next(d.value for d in at.dataframe if "n_labels" in d.value.columns)
    sizes = ", ".join(str(n) for n in groups["n_labels"])
    kept = "Random groupings keep the group sizes"
    caption = next(c.value for c in at.caption if kept in c.value)
    assert f"({sizes} labels)" in caption
    assert "training rows of the split" in caption
