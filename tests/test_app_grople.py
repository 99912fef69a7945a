"""GroPLE page: the V^k caption states what the fitted model shown does, on any data set."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.grople import GroPLE

REPO = Path(__file__).resolve().parents[1]


def _open(source: str, params: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / "grople.py"), default_timeout=180)
    at.session_state["dataset"] = datasets.load_source(source)
    at.session_state["dataset_label"] = source
    for name, value in (params or {}).items():
        at.query_params[name] = value
    return at.run()


def _fitted_model(at: AppTest) -> GroPLE:
    """The GroPLE the page shows, wherever the page keeps it in the session."""
    def find(value, depth=0):
        if isinstance(value, GroPLE):
            return value
        if isinstance(value, tuple) and depth < 2:
            return next((m for m in (find(v, depth + 1) for v in value) if m is not None), None)
        return None

    models = [m for m in (find(at.session_state[key]) for key in at.session_state) if m is not None]
    assert models, "no fitted GroPLE in the session"
    return models[0]


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
    assert (
        f"use {per_group.min()}–{per_group.max()} rows each; {(users > 1).sum()} row(s) are "
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
