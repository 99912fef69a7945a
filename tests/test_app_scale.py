"""Every page on a generated delicious-shaped set (issue 14), with the caps the pages state.

The set is :func:`mlviz.synthetic.make_long_tailed` scaled down to keep CI time: 4,000
instances x 500 sparse features x 1,000 labels, cardinality 19, so almost every instance has
its own label set (~4,000 distinct sets; delicious has 16,105 x 983 and ~15,000). That is
enough for every cap to bite: the Hypercube page draws 2,000 of the ~4,000 occupied vertices,
CLEMS keeps 1,000 of the ~2,800 distinct training label sets. The full-size times and memory
are measured by ``benchmarks/bench_app_scale.py`` (docs/BENCHMARKS.md), not here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from mlviz.stats import unique_rows
from mlviz.synthetic import make_long_tailed

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted(p.name for p in (REPO / "pages").glob("*.py") if not p.name.startswith("_"))
TIMEOUT = 240
N_SAMPLES, N_LABELS = 4_000, 1_000

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def long_tailed():
    return make_long_tailed(
        n_samples=N_SAMPLES, n_features=500, n_labels=N_LABELS, cardinality=19.02, random_state=0
    )


def page_app(page: str, dataset) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = "long-tailed (test)"
    return at.run()


def assert_clean(at: AppTest, where: str) -> None:
    assert not at.exception, f"{where}: exception shown: {[e.message for e in at.exception]}"
    errors = [e.value for e in at.error]
    assert not errors, f"{where}: st.error shown: {errors}"


def figure_titles(at: AppTest) -> list[str]:
    titles = []
    for chart in at.get("plotly_chart"):
        title = json.loads(chart.proto.spec).get("layout", {}).get("title", {})
        text = title.get("text", "") if isinstance(title, dict) else str(title)
        titles.append(text.replace("<br>", " "))  # long titles are wrapped for 1280 px
    return titles


def page_text(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [m.label + " " + str(m.value) for m in at.metric]
    return "\n".join(parts)


def test_the_generated_set_has_the_shape_the_docstring_states(long_tailed):
    assert long_tailed.Y.shape == (N_SAMPLES, N_LABELS)
    n_sets = len(unique_rows(long_tailed.Y)[0])
    assert n_sets > 3_000  # thousands of distinct label sets, above both caps below


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_on_a_delicious_shaped_set(page, long_tailed):
    at = page_app(page, long_tailed)
    assert_clean(at, page)


# --------------------------------------------------------------- caps stated on the page
def test_hypercube_draws_the_capped_vertices_and_says_so_on_the_figure(long_tailed):
    n_sets = len(unique_rows(long_tailed.Y)[0])
    at = page_app("hypercube.py", long_tailed)
    assert_clean(at, "hypercube")
    assert at.number_input(key="cube_max_vertices").value == 2_000
    assert figure_titles(at) == [f"Showing 2,000 of {n_sets:,} label sets (the most frequent)"]
    at.number_input(key="cube_max_vertices").set_value(300).run()
    assert_clean(at, "hypercube, 300 vertices")
    assert figure_titles(at) == [f"Showing 300 of {n_sets:,} label sets (the most frequent)"]
    at.selectbox(key="cube_projection").set_value("mds").run()
    assert_clean(at, "hypercube, MDS of 300 vertices")
    assert "most frequent" in figure_titles(at)[0]


def test_clems_keeps_every_label_set_states_landmarks_and_an_optional_cap(long_tailed):
    # issue 22: no cap by default; above EXACT_MAX_CANDIDATES the landmark approximation runs
    # and the page says so; a cap typed in is stated with what it drops
    from mlviz.clems import EXACT_MAX_CANDIDATES

    at = page_app("clems.py", long_tailed)
    assert_clean(at, "clems")
    cap = at.number_input(key="clems_max_candidates")
    assert cap.label == "Label sets kept as candidates (most frequent first)"
    metric = next(m for m in at.metric if m.label == "Candidate label sets")
    kept = int(metric.value.replace(",", ""))
    total = int(metric.delta.removeprefix("of ").replace(",", ""))
    assert kept == total == cap.value > EXACT_MAX_CANDIDATES
    assert f"Candidates: all {total:,} distinct training label sets" in page_text(at)
    assert "Landmark CLEMS (a scalable approximation" in page_text(at)
    assert "dropped" not in page_text(at)
    cap.set_value(1_000).run()
    assert_clean(at, "clems, 1,000 candidates")
    assert f"The {total - 1_000:,} dropped sets carry" in page_text(at)
    assert "Landmark CLEMS" not in page_text(at)  # 1,000 candidates: the exact path


# ------------------------------------------------- what is computed once and reused
@pytest.fixture
def small_long_tailed():
    """A set no other test has fitted yet (the fit caches are shared by the process)."""
    return make_long_tailed(
        n_samples=1_200, n_features=200, n_labels=300, cardinality=8.0, random_state=7
    )


def counting(monkeypatch, owner, name: str) -> list[int]:
    """Replace ``owner.name`` by a wrapper that counts its calls (pages import it per run)."""
    calls: list[int] = []
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)
    return calls


def test_mlknn_searches_neighbours_once_for_every_k_and_s(small_long_tailed, monkeypatch):
    import mlviz.mlknn

    searches = counting(monkeypatch, mlviz.mlknn, "neighbors_graph")
    at = page_app("mlknn.py", small_long_tailed)
    assert_clean(at, "mlknn")
    assert len(searches) == 2  # training graph and test graph for the largest k
    before = [m.value for m in at.metric]
    at.slider(key="mlknn_k").set_value(3).run()
    at.select_slider(key="mlknn_s").set_value(0.1).run()
    assert_clean(at, "mlknn after k and s")
    assert len(searches) == 2
    assert [m.value for m in at.metric] != before  # the counts were refitted for k = 3


def test_clems_reuses_the_candidate_costs_across_m(small_long_tailed, monkeypatch):
    import mlviz.clems

    costs = counting(monkeypatch, mlviz.clems, "compute_candidate_costs")
    at = page_app("clems.py", small_long_tailed)
    assert_clean(at, "clems")
    assert len(costs) == 1
    stress = next(m.value for m in at.metric if m.label.startswith("Stress"))
    at.slider(key="clems_m").set_value(3).run()  # the page opens at M = 2
    assert_clean(at, "clems at M = 3")
    assert len(costs) == 1
    assert next(m.value for m in at.metric if m.label.startswith("Stress")) != stress
    at.selectbox(key="clems_cost").set_value("hamming").run()
    assert_clean(at, "clems with the Hamming cost")
    assert len(costs) == 2


def test_plst_moves_m_without_refitting(small_long_tailed, monkeypatch):
    from mlviz.linear import PLST

    fits = counting(monkeypatch, PLST, "fit")
    at = page_app("plst.py", small_long_tailed)
    assert_clean(at, "plst")
    n_fits = len(fits)
    assert n_fits >= 1
    at.slider(key="plst_m").set_value(2).run()
    assert_clean(at, "plst at M = 2")
    assert len(fits) == n_fits
