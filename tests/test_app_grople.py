"""GroPLE page: the latent dimension it opens with, and that it says so (issue 14).

Above 200 labels the page opens at the paper's d = 100 instead of about half the labels,
states it under the slider, and keeps half the labels within the slider's reach; up to 200
labels it opens at about half the labels, as before. The page is run as its own script with
the data set the router would have put in the session (see tests/test_app.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from mlviz.synthetic import make_long_tailed

REPO = Path(__file__).resolve().parents[1]


def _page(n_labels: int) -> AppTest:
    dataset = make_long_tailed(
        n_samples=300, n_features=40, n_labels=n_labels, cardinality=4.0, random_state=0
    )
    at = AppTest.from_file(str(REPO / "pages" / "grople.py"), default_timeout=300)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = "long-tailed (test)"
    return at.run()


@pytest.mark.parametrize("n_labels", [60, 201, 260])
def test_opening_latent_dimension_and_its_caption(n_labels):
    at = _page(n_labels)
    assert not at.exception, [e.message for e in at.exception]
    assert not [e.value for e in at.error]
    slider = at.slider(key="grople_d")
    half = (n_labels + 1) // 2
    captions = " ".join(c.value for c in at.caption)
    if half <= 100:
        assert slider.value == half
        assert "the paper's value" not in captions
    else:
        assert slider.value == 100
        assert f"about half the {n_labels} labels ({half})" in captions
        assert slider.max >= half  # the larger fit stays one press away
    assert slider.min <= slider.value <= slider.max
