"""GroPLE page: the latent dimension it opens with and says so (issue 14), and the V^k caption
states what the fitted model shown does, on any data set (issue 15).

Above 200 labels the page opens at the paper's d = 100 instead of about half the labels,
states it under the slider, and keeps half the labels within the slider's reach; up to 200
labels it opens at about half the labels, as before. The page is run as its own script with
the data set the router would have put in the session (see tests/test_app.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.grople import GroPLE
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


def _open(source: str, params: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / "grople.py"), default_timeout=180)
    at.session_state["dataset"] = datasets.load_source(source)
    at.session_state["dataset_label"] = source
    for name, value in (params or {}).items():
        at.query_params[name] = value
    return at.run()


def _fitted_model(at: AppTest) -> GroPLE:
    """The GroPLE the page shows: the page's last good fit (pages/_app/fitting.py)."""
    shown = [v for _, v in at.session_state["_fit_last_good"].values() if isinstance(v, GroPLE)]
    assert shown, "no fitted GroPLE in the session"
    return shown[-1]


def _vk_caption(at: AppTest) -> str:
    return next(c.value for c in at.caption if "paper Figure 1" in c.value)


@pytest.mark.parametrize("lambda2", ["1.0", "100.0"])
def test_vk_caption_counts_the_rows_of_the_model_shown(lambda2):
    at = _open("sample:planted", {"grople_d": "22", "grople_lambda2": lambda2})
    assert not at.exception and not at.error
    support = _fitted_model(at).row_support_
    users = support.sum(axis=0)
    per_group = support.sum(axis=1)
    caption = _vk_caption(at)
    fewest, most = per_group.min(), per_group.max()
    used_range = f"{fewest}" if fewest == most else f"{fewest}–{most}"
    assert (
        f"use {used_range} rows each; {(users > 1).sum()} row(s) are "
        f"used by two or more groups, {(users == 1).sum()} by one group only" in caption
    ), caption
    assert ((users == 0).sum() == 0) == ("by none" not in caption)
    own = int((support & (users == 1)[None, :]).any(axis=1).sum())
    if own:
        assert re.search(rf"{own} of the {support.shape[0]} groups have rows of their own", caption)
    else:
        assert "No group has a row of its own" in caption
    assert "λ2 = 10" not in caption  # no remembered number


def test_opening_d_is_at_most_l_and_lambda2_stays_1():
    # measured on the planted sample at the opening d = 11 and the eigengap's K = 5: no λ2 of
    # the grid gives a group a latent row of its own (rows switch off for every group at once)
    at = _open("sample:planted")
    assert not at.exception and not at.error
    assert at.slider(key="grople_d").value <= at.session_state["dataset"].n_labels
    assert at.select_slider(key="grople_lambda2").value == 1.0
    assert np.all(_fitted_model(at).row_support_.sum(axis=1) >= 1)
