"""One label grouping across the app (issue 25): the same affinity, K and groups on Label
clusters, the Hypercube's colouring, the Lesson's groups step and GroPLE's stage 1.

Runs ``app.py`` through the router and switches pages in one session, as a user would; each
page notes the grouping it showed (``pages/_app/grouping.py``'s ``record``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import mulan_path
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.label_clustering import LabelClustering
from pages._app.grouping import AFFINITY_KEY, K_KEY, SHOWN_KEY

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 180


def _clean(at: AppTest, where: str) -> None:
    assert not at.exception, f"{where}: {[e.message for e in at.exception]}"
    assert not [e.value for e in at.error], f"{where}: {[e.value for e in at.error]}"


def _shown(at: AppTest, page: str) -> tuple:
    return at.session_state[SHOWN_KEY][page]


def _visit(at: AppTest, page: str) -> AppTest:
    at.switch_page(f"pages/{page}.py").run()
    _clean(at, page)
    if page == "hypercube":
        at.radio(key="cube_colour").set_value("label cluster").run()
        _clean(at, "hypercube coloured by groups")
    if page == "lesson":
        at.radio(key="lesson_step").set_value("groups").run()
        _clean(at, "lesson step 3")
    return at


@pytest.mark.parametrize("source", ["sample:planted", "mulan:yeast"])
def test_the_same_k_and_groups_on_every_page(source):
    if source.startswith("mulan:"):
        mulan_path("yeast.arff")
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.session_state["source_choice"] = source
    at.run()
    ds = datasets.load_source(source)
    # the default: one rule, the same everywhere, and the groups LabelClustering gives
    _visit(at, "label_clusters")
    affinity, k, groups = _shown(at, "label_clusters")
    assert affinity == "heat"
    spectrum = LabelClustering(min(30, ds.n_labels), affinity="heat", random_state=0).fit(ds.Y)
    assert k == spectrum.default_n_groups(min(30, ds.n_labels - 1))  # the default rule's K
    expected = LabelClustering(k, affinity="heat", random_state=0).fit(ds.Y).labels_
    assert groups == tuple(expected)
    for page in ("hypercube", "lesson"):
        _visit(at, page)
        assert _shown(at, page) == (affinity, k, groups), page
    # a change on one page is the setting of every page. AppTest plays no browser: a slider
    # moved by set_value does not reach the URL, whose bound value wins on the next page, so
    # the test writes it there as the browser does
    at.selectbox(key=AFFINITY_KEY).set_value("cooccurrence").run()
    assert _shown(at, "lesson")[:2] == ("cooccurrence", k)  # K stays where it was
    at.slider(key=K_KEY).set_value(3)
    at.query_params[K_KEY] = "3"
    at.run()
    _clean(at, "lesson after the change")
    changed = _shown(at, "lesson")
    assert changed[:2] == ("cooccurrence", 3)
    for page in ("label_clusters", "hypercube"):
        _visit(at, page)
        assert at.slider(key=K_KEY).value == 3 and at.selectbox(key=AFFINITY_KEY).value == (
            "cooccurrence"
        )
        assert _shown(at, page) == changed, page
    # GroPLE groups the training rows with the same settings, says so and gives the ARI
    at.switch_page("pages/grople.py").run()
    assert at.slider(key=K_KEY).value == 3
    at.button(key="grople_fit").click().run()
    _clean(at, "grople")
    assert _shown(at, "grople")[:2] == ("cooccurrence", 3)
    notes = [c.value for c in at.caption if "training split only" in c.value]
    assert len(notes) == 1 and "adjusted Rand index" in notes[0]
