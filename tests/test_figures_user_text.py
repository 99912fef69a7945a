"""User text in figures is shown as text, never rendered as HTML (issue 24, item 2).

plotly renders a subset of HTML in every text it draws: a label named
``<a href="http://evil.example">x</a>`` in an upload would be a link on the axis, in the hover
label and in the legend. Every figure builder of ``mlviz.figures`` that takes label names
(directly, as label-set texts, or in a table's ``label`` column) is built here with hostile
names; no tag of theirs may reach the figure's JSON, and each name must be there escaped
(``&lt;b&gt;``, which plotly shows as ``<b>``). ``test_every_builder_that_takes_names_is_covered``
fails when a new builder with such a parameter is not added to :data:`BUILDERS`.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

import mlviz.figures
from mlviz.figures._style import plain

HOSTILE = (
    '<a href="http://evil.example">x1</a>',
    "<b>bold2</b>",
    "x3<br>y3",
    "&amp;4",  # must show as typed, not as "&"
    "<img src=x onerror=alert(5)>",
    '<span style="font-size:99px">big6</span>',
)
# what any of HOSTILE would leave in the JSON if it were not escaped ("&amp;4" is not a
# substring of its escaped "&amp;amp;4")
RAW_MARKUP = ("<a ", "<b>bold2", "x3<br>y3", "&amp;4", "<img", '<span style="font-size')

# the parameters through which user text (names) enters a builder
NAME_PARAMETERS = {"label_names", "names", "feature_names", "labelset_text", "table"}


def _strings(value, found: list[str]) -> list[str]:
    if isinstance(value, str):
        found.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key != "template":  # plotly's theme: no user text, thousands of strings
                _strings(item, found)
    elif isinstance(value, list):
        for item in value:
            _strings(item, found)
    return found


def figure_strings(fig: go.Figure) -> list[str]:
    """Every string of the figure's JSON: texts, hover texts, customdata, ticks, titles."""
    return _strings(json.loads(fig.to_json()), [])


@pytest.fixture(scope="module")
def data():
    """A planted data set (22 labels) whose first six labels carry the hostile names."""
    from mlviz.synthetic import make_planted

    ds, groups = make_planted(n_samples=90, random_state=0)
    names = list(HOSTILE) + [f"l{j}" for j in range(len(HOSTILE), ds.n_labels)]
    X, Y = ds.X, ds.Y
    return dict(
        X_train=X[:60], X_test=X[60:], Y_train=Y[:60], Y_test=Y[60:], Y=Y, names=names,
        groups=groups,
    )  # fmt: skip


def _frequency_figure(d):
    from mlviz.figures.data import label_frequency_figure

    return label_frequency_figure(d["Y"].mean(axis=0), d["names"], tail_threshold=0.05)


def _cooccurrence_figure(d):
    from mlviz.figures.data import cooccurrence_figure
    from mlviz.stats import cooccurrence

    return cooccurrence_figure(cooccurrence(d["Y"]), d["names"])


def _upset_figure(d):
    from mlviz.figures.data import labelset_upset_figure
    from mlviz.stats import label_frequencies, labelset_counts

    Y = d["Y"].copy()
    Y[:30] = 0
    Y[:30, : len(HOSTILE)] = 1  # the hostile names form the most common label set
    return labelset_upset_figure(labelset_counts(Y), label_frequencies(Y), d["names"], top=3)


def _bins_figure(d):
    # method names are user text too: an external model's scores come under a typed name
    from mlviz.figures.bins import frequency_bin_figure
    from mlviz.metrics import frequency_bin_contributions

    scores = np.random.default_rng(0).normal(size=d["Y_test"].shape)
    table = frequency_bin_contributions(d["Y_test"], scores, Y_train=d["Y_train"], n_bins=3)
    return frequency_bin_figure(dict.fromkeys(HOSTILE, table)), HOSTILE


def _vk_heatmap(d):
    from mlviz.figures.grople import vk_heatmap

    V = np.random.default_rng(0).normal(size=(3, len(d["names"])))
    return vk_heatmap(V, d["groups"], d["names"])


def _vertices(d):
    vertices, counts = np.unique(d["Y"], axis=0, return_counts=True)
    return vertices, counts


def _hypercube_figure(d):
    from mlviz.figures.hypercube import hypercube_figure

    vertices, counts = _vertices(d)
    coords = np.random.default_rng(0).normal(size=(len(vertices), 2))
    loadings = np.random.default_rng(1).normal(size=(len(d["names"]), 2))
    return hypercube_figure(
        coords, vertices, counts, np.zeros((0, 2), dtype=int), d["names"],
        loadings=loadings, max_arrow_names=len(d["names"]),
    )  # fmt: skip


def _cube_figure(d):
    from mlviz.figures.hypercube import cube_figure

    vertices, counts = np.unique(d["Y"][:, :3], axis=0, return_counts=True)
    return cube_figure(vertices, counts, d["names"][:3])


def _cube_figure_rest(d):
    """The cube takes three labels: the other three hostile names."""
    from mlviz.figures.hypercube import cube_figure

    vertices = np.array([[1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    return cube_figure(vertices, np.array([3, 2, 1, 1]), d["names"][3:6])


def _affinity_heatmap(d):
    from mlviz.figures.label_clusters import affinity_heatmap
    from mlviz.label_clustering import label_affinity

    return affinity_heatmap(label_affinity(d["Y"]), d["groups"], d["names"])


def _coassignment_figure(d):
    from mlviz.figures.label_clusters import coassignment_figure

    share = np.linspace(0.2, 1.0, len(d["names"]))
    return coassignment_figure(share, d["groups"], d["names"])


def _decoding_figure(d):
    from mlviz.figures.linear import decoding_figure

    L = len(d["names"])
    y_tilde = np.linspace(0.0, 1.0, L)
    return decoding_figure(y_tilde, d["Y"][0], d["names"], h=np.array([0.5, -0.2]))


def _posterior_figure(d):
    from mlviz.figures.mlknn import posterior_figure
    from mlviz.mlknn import MLkNN

    model = MLkNN(k=5).fit(d["X_train"], d["Y_train"])
    return posterior_figure(model.explain(d["X_test"][0], label_names=d["names"]).table)


def _per_label_figure(d):
    from mlviz.evaluation import OutOfFoldPredictions, per_label_comparison
    from mlviz.figures.compare import per_label_figure

    Y = d["Y"]
    predictions = {"PLST": OutOfFoldPredictions(Y_pred=np.roll(Y, 1, axis=0), Y_score=None)}
    table = per_label_comparison(predictions, Y, label_names=d["names"])
    return per_label_figure(table, ["PLST"], tail_threshold=0.05)


def _plst_tail_figure(d):
    from mlviz.figures.tail import plst_tail_figure
    from mlviz.linear import PLST
    from mlviz.per_label import plst_label_table

    model = PLST(3).fit(d["X_train"], d["Y_train"])
    table = plst_label_table(
        model, d["X_test"], d["Y_test"], d["Y_train"], 0.05, label_names=d["names"]
    )
    return plst_tail_figure(table, 0.05, n_components=3)


def _clems_model(d):
    from mlviz.clems import CLEMS

    return CLEMS(n_components=2, random_state=0).fit(d["X_train"], d["Y_train"])


def _clems_tail_figure(d):
    from mlviz.figures.tail import clems_tail_figure
    from mlviz.per_label import clems_label_table

    table = clems_label_table(
        _clems_model(d), d["X_test"], d["Y_test"], d["Y_train"], 0.05, label_names=d["names"]
    )
    return clems_tail_figure(table, 0.05)


def _mlknn_tail_figure(d):
    from mlviz.figures.tail import mlknn_tail_figure
    from mlviz.mlknn import MLkNN
    from mlviz.per_label import mlknn_label_table

    model = MLkNN(k=5).fit(d["X_train"], d["Y_train"])
    table = mlknn_label_table(
        model, d["X_test"], d["Y_test"], d["Y_train"], 0.05, label_names=d["names"]
    )
    return mlknn_tail_figure(table, 0.05)


def _grople_tail_figure(d):
    from mlviz.figures.tail import grople_tail_figure
    from mlviz.grople import GroPLE
    from mlviz.linear import BinaryRelevance
    from mlviz.per_label import grople_label_table

    model = GroPLE(n_components=4, n_groups=4, random_state=0).fit(d["X_train"], d["Y_train"])
    baseline = BinaryRelevance().fit(d["X_train"], d["Y_train"])
    table = grople_label_table(
        model, baseline, d["X_test"], d["Y_test"], d["Y_train"], 0.05, label_names=d["names"]
    )
    return grople_tail_figure(table, 0.05)


def _one_name_sets(d):
    """Label sets of one hostile name each, so that every name is in some hover text."""
    from mlviz.figures.hypercube import labelset_text

    return labelset_text(np.eye(len(d["names"]), dtype=int), d["names"])


def _embedding_figure(d):
    from mlviz.figures.clems import embedding_figure

    text = _one_name_sets(d)
    n = len(text)
    points = np.random.default_rng(0).normal(size=(n, 2))
    return embedding_figure(
        points, None, np.ones(n, dtype=int), np.ones(n, dtype=int), text, True,
        predicted=points[0], nearest=[0, 1, 2], nearest_costs=[0.0, 1.0, 2.0],
    )  # fmt: skip


def _fitted_embedding_figure(d):
    from mlviz.figures.clems import fitted_embedding_figure
    from mlviz.figures.hypercube import labelset_text

    model = _clems_model(d)
    text = labelset_text(model.candidates_, d["names"])
    # a label set's text lists names up to 160 characters: the names it lists must show
    listed = [name for name in HOSTILE if any(name in t for t in text)]
    assert len(listed) >= 3, listed
    return fitted_embedding_figure(model, text), listed


def _shepard_figure(d):
    from mlviz.figures.clems import shepard_figure

    text = _one_name_sets(d)
    n = len(text)
    cost = np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(float)
    return shepard_figure(cost, np.sqrt(cost), stress=0.0, labelset_text=text)


#: builder -> how to build it with hostile names (several for a builder that shows only some);
#: a build returns the figure, or the figure and the hostile names it must show
BUILDERS = {
    "mlviz.figures.data.label_frequency_figure": [_frequency_figure],
    "mlviz.figures.data.cooccurrence_figure": [_cooccurrence_figure],
    "mlviz.figures.data.labelset_upset_figure": [_upset_figure],
    "mlviz.figures.bins.frequency_bin_figure": [_bins_figure],
    "mlviz.figures.grople.vk_heatmap": [_vk_heatmap],
    "mlviz.figures.hypercube.hypercube_figure": [_hypercube_figure],
    "mlviz.figures.hypercube.cube_figure": [_cube_figure, _cube_figure_rest],
    "mlviz.figures.label_clusters.affinity_heatmap": [_affinity_heatmap],
    "mlviz.figures.label_clusters.coassignment_figure": [_coassignment_figure],
    "mlviz.figures.linear.decoding_figure": [_decoding_figure],
    "mlviz.figures.mlknn.posterior_figure": [_posterior_figure],
    "mlviz.figures.compare.per_label_figure": [_per_label_figure],
    "mlviz.figures.tail.plst_tail_figure": [_plst_tail_figure],
    "mlviz.figures.tail.clems_tail_figure": [_clems_tail_figure],
    "mlviz.figures.tail.mlknn_tail_figure": [_mlknn_tail_figure],
    "mlviz.figures.tail.grople_tail_figure": [_grople_tail_figure],
    "mlviz.figures.clems.embedding_figure": [_embedding_figure],
    "mlviz.figures.clems.fitted_embedding_figure": [_fitted_embedding_figure],
    "mlviz.figures.clems.shepard_figure": [_shepard_figure],
}

#: functions with a name parameter that draw no plotly text (their output is escaped, or shown
#: as text, by whoever shows it): checked in test_non_figures_return_raw_text
NOT_FIGURES = {
    # raw text: the CLEMS page shows it in markdown (pages._app.plain.markdown), the figure
    # builders escape it for plotly (escaping here would show "&lt;" in markdown)
    "mlviz.figures.hypercube.labelset_text",
    # DataFrames: st.dataframe shows cells as text, never parsed
    "mlviz.figures.label_clusters.cluster_table",
    "mlviz.figures.linear.decoding_steps_table",
    "mlviz.figures.mlknn.neighbors_table",
}


def _public_functions():
    for info in pkgutil.iter_modules(mlviz.figures.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"mlviz.figures.{info.name}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if function.__module__ == module.__name__ and not name.startswith("_"):
                yield f"{module.__name__}.{name}", function


def test_every_builder_that_takes_names_is_covered():
    takes_names = {
        qualified
        for qualified, function in _public_functions()
        if NAME_PARAMETERS & set(inspect.signature(function).parameters)
    }
    assert takes_names, "introspection found no builder: the test would check nothing"
    missing = takes_names - set(BUILDERS) - NOT_FIGURES
    assert not missing, f"builders taking names with no user-text test: {sorted(missing)}"
    # and the lists name only what exists
    assert set(BUILDERS) | NOT_FIGURES <= dict(_public_functions()).keys()


@pytest.mark.parametrize("builder", sorted(BUILDERS))
def test_names_are_shown_escaped_never_as_markup(data, builder):
    texts, expected = [], set()
    for build in BUILDERS[builder]:
        built = build(data)
        fig, names = built if isinstance(built, tuple) else (built, HOSTILE)
        assert isinstance(fig, go.Figure)
        texts += figure_strings(fig)
        expected |= set(names)
    for raw in RAW_MARKUP:
        leaked = [t for t in texts if raw in t]
        assert not leaked, f"{builder}: user markup {raw!r} unescaped in {leaked[:3]}"
    everything = "\n".join(texts)
    missing = sorted(name for name in expected if plain(name) not in everything)
    assert not missing, f"{builder}: names not found escaped: {missing}"


def test_the_builders_own_markup_is_kept(data):
    """Escaping user text must not escape the builder's markup around it (bold predicted names,
    the coloured group ticks, line breaks in hover texts)."""
    texts = figure_strings(_posterior_figure(data)) + figure_strings(_affinity_heatmap(data))
    everything = "\n".join(texts)
    assert "<b>" in everything and "<br>" in everything and '<span style="color:' in everything
    assert "&lt;br&gt;" not in everything.replace(plain("x3<br>y3"), "")


def test_non_figures_return_raw_text(data):
    """What NOT_FIGURES holds is raw: escaping is for the medium that shows it."""
    from mlviz.figures.hypercube import labelset_text
    from mlviz.figures.label_clusters import cluster_table
    from mlviz.figures.linear import decoding_steps_table

    names = data["names"]
    assert labelset_text(np.eye(len(names), dtype=int)[:1], names) == ["{" + names[0] + "}"]
    table = cluster_table(data["groups"], names, data["Y"].mean(axis=0), 0.05)
    assert isinstance(table, pd.DataFrame) and set(table["label"]) == set(names)
    L = len(names)
    steps = decoding_steps_table(np.full(L, 0.7), np.ones(L), np.ones(L), names)
    assert isinstance(steps, pd.DataFrame) and steps["label"].tolist() == names


def test_plain_text_round_trips_through_plotly_entities():
    """plotly turns &lt; &gt; &amp; back into characters for display; html.unescape does the
    same, so the shown text is the name exactly, "&amp;" included."""
    import html

    for name in HOSTILE:
        assert html.unescape(plain(name)) == name
        assert "<" not in plain(name) and ">" not in plain(name)


def test_plotly_decodes_the_entities_plain_writes_and_not_quot():
    """The choice of :func:`plain` (``& < >`` only, quotes kept) rests on plotly.js's entity
    table (``convertEntities``): read it from the bundled plotly.js."""
    import re
    from pathlib import Path

    import plotly

    bundle = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    source = bundle.read_text(encoding="utf-8")
    table = re.search(r"\{mu:\"[^\"]*\",amp:\"&\"[^}]*\}", source)
    assert table, "plotly.js's entity table not found: re-check what plotly decodes"
    decoded = set(re.findall(r"(\w+):", table.group(0)))
    assert {"amp", "lt", "gt"} <= decoded
    assert "quot" not in decoded  # html.escape(quote=True)'s &quot; would show literally
    assert plain('"q"') == '"q"'


def test_a_100k_character_label_name_keeps_label_set_texts_bounded():
    """The CLEMS page pairs label-set texts for every candidate pair (Shepard hover): one
    100,000-character name asked numpy for 4.7 GB; each text now keeps its bound."""
    from mlviz.figures.hypercube import MAX_LABELSET_CHARS, labelset_text

    names = ["x" * 100_000, "b" * 100_000, "c"]
    sets = np.array([[1, 0, 0], [1, 1, 1], [0, 1, 1], [0, 0, 0]])
    texts = labelset_text(sets, names)
    assert all(len(t) <= MAX_LABELSET_CHARS + len("{, … +99 more}") for t in texts), texts
    assert texts[0].startswith("{xxx") and texts[0].endswith("…}")
    assert texts[3] == "∅"
