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
    return make_long_tailed(n_samples=N_SAMPLES, n_features=500, n_labels=N_LABELS,
                            cardinality=19.02, random_state=0)


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
        titles.append(title.get("text", "") if isinstance(title, dict) else str(title))
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
