"""ML-KNN page: why a test instance gets the labels it gets (Zhang & Zhou, Fig. 1)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from mlviz.figures import mlknn as figures
from mlviz.figures import tail as tail_figures
from mlviz.figures._style import WIDE_TITLE_CHARS, legible
from mlviz.methods import METHODS
from mlviz.metrics import METRICS, Evaluator
from mlviz.mlknn import MLkNN, MLkNNPath, neighbors_graph
from mlviz.per_label import label_frequency_table, mlknn_label_table, tail_summary
from mlviz.wording import percent_text
from pages._app import experiment, export, fitting, links, presentation, source, tables

ds = source.current_dataset()
st.title("ML-KNN")
presentation.intro(
    "For each label l, ML-KNN counts how many of an instance's k nearest training neighbours "
    "carry l (C_t(l)) and compares P(H₁)·P(C_t(l) | H₁) with P(H₀)·P(C_t(l) | H₀): the prior "
    "and the likelihood of that count, both estimated from the training set with Laplace "
    "smoothing s (Eq. 6–8)."
)

# a training instance is not its own neighbour, so k counts from the other training rows
split = experiment.model_split(min_train=2, needs="ML-KNN")
n_train = len(split.Y_train)
# Every k on the slider is a prefix of the k_max nearest (same order, same ties): one neighbour
# search and one counting pass (MLkNNPath) serve every k and s, which then cost only the tables.
k_max = min(50, n_train - 1)

# opens at the registry's k and s (the paper's k = 10, s = 1), as Compare and the Lesson do
OPENING = METHODS["ML-KNN"].default_settings(ds.n_labels, n_train)
c1, c2 = st.columns(2)
with c1:
    k = links.int_slider(
        "Neighbours k",
        1,
        k_max,
        OPENING["k"],
        key="mlknn_k",
        why_fixed=f"the training split has {n_train} instances, and an instance is not its own "
        "neighbour.",
    )
s = links.bound(
    c2.select_slider,
    "Smoothing s",
    options=[0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0],
    value=OPENING["s"],
    key="mlknn_s",
    persist_state="session",
)
st.caption(METHODS["ML-KNN"].caption({**OPENING, "k": k, "s": s}))


def neighbour_search(k_max: int) -> tuple[MLkNNPath, object, Evaluator]:
    """The k_max nearest training rows of every training and test row, the count tables of
    every k and the test split's evaluator, once per split (the evaluator checks the truth
    and finds its relevant pairs once, not once per k and s)."""
    graph_train = neighbors_graph(split.X_train, split.X_train, k_max, exclude_self=True)
    path = MLkNNPath(k_max=k_max, metric="precomputed").fit(graph_train, split.Y_train)
    return path, neighbors_graph(split.X_test, split.X_train, k_max), Evaluator(split.Y_test)


search = fitting.compute(
    neighbour_search,
    {"k_max": k_max},
    label="Neighbour search",
    spinner=f"Finding the {k_max} nearest training neighbours of every instance and counting "
    "their labels for every k (once per split; every k and s reuses them)…",
)
if search is None:
    st.stop()
path, graph_test, evaluator = search


#: Table 1 of the ML-KNN paper, in its order
PAPER_METRICS = ("hamming_loss", "one_error", "coverage", "ranking_loss", "average_precision")


def mlknn_on_the_path(k: int, s: float, k_max: int) -> tuple[MLkNN, dict, np.ndarray]:
    del k_max  # the key of the neighbour search the path holds
    model = path.estimator(k, s)  # = MLkNN(k, s).fit(...), tables only
    # only the five metrics shown below: the full evaluation would add macro AUC (a ROC
    # curve per label) and the top-k measures, seconds more with ~1,000 labels; the three
    # ranking ones share one sort of the scores
    Y_score = model.predict_proba(graph_test)
    predicted = model.predict(graph_test)
    scores = evaluator.score(predicted, Y_score, only=PAPER_METRICS)
    return model, scores, predicted


result = fitting.compute(
    mlknn_on_the_path,
    {"k": k, "s": s, "k_max": k_max},
    label="ML-KNN",
    spinner="Counting neighbour labels and scoring the test split…",
)
if result is None:
    st.stop()
model, scores, predicted = result
cols = st.columns(5)
for col, name in zip(cols, PAPER_METRICS, strict=True):
    info = METRICS[name]
    col.metric(f"{info.label} {info.arrow}", info.format(scores[name]))
st.caption("Test-split metrics of the paper's Table 1 for this k and s.")

st.subheader("Tail labels: a small prior needs many neighbours")
threshold = experiment.tail_threshold()


def label_frequencies(threshold: float):
    return label_frequency_table(split.Y_train, threshold, label_names=ds.label_names)


frequencies = fitting.compute(  # independent of k and s: once per split and threshold
    label_frequencies,
    {"threshold": threshold},
    label="Label frequencies",
)
if frequencies is None:
    st.stop()


def label_table_of(model, predicted, frequencies, threshold: float):
    """The per-label table of this k and s, cached: every rerun recomputed it (the page's
    instance box and the sidebar rerun the page too)."""
    return mlknn_label_table(
        model,
        graph_test,
        split.Y_test,
        split.Y_train,
        threshold,
        label_names=ds.label_names,
        Y_pred=predicted,
        frequencies=frequencies,
    )


label_table = fitting.compute(
    label_table_of,
    {"model": model, "predicted": predicted, "frequencies": frequencies, "threshold": threshold},
    label="Per-label table",
)
if label_table is None:
    st.stop()
export.chart(
    fitting.figure(tail_figures.mlknn_tail_figure, label_table, threshold), key="mlknn_tail"
)
tail = tail_summary(label_table)
percent = percent_text(threshold)
if tail["tail"]:
    st.caption(
        f"{tail['tail']} of {tail['labels']} labels are in the tail (in fewer than {percent} of "
        f"the {split.n_train:,} training instances; {experiment.tail_rule_name()}, "
        "set in the sidebar's Experiment settings). Their "
        "prior P(H₁) is small, so the MAP rule predicts them only when many of the k = "
        f"{model.k_} neighbours carry them: ML-KNN never predicts {tail['tail_never_predicted']} "
        f"of the tail labels on the test split, and of the {tail['tail_with_test_positive']} "
        f"with a positive test instance it finds at least one for {tail['tail_found']}."
    )
else:
    st.caption(
        f"No label is in the tail: every label is in at least {percent} of the training "
        f"instances ({experiment.tail_rule_name()}, set in the sidebar's Experiment settings)."
    )

# per-label bars and columns stay readable (names apart at 1280 px); the rest is summarised
MAX_LABELS_SHOWN = figures.MAX_NAMED_LABELS
MAX_LABEL_COLUMNS = 6  # one 0/1 column per label in the neighbours table up to this many


def posterior_view(table, n_labels: int, n_predicted: int):
    """The posterior figure of the ``table``'s labels (of ``n_labels``), built once per table
    (:func:`pages._app.fitting.figure`)."""
    figure = figures.posterior_figure(table, title_width=WIDE_TITLE_CHARS)  # across the page
    if len(table) < n_labels:
        figure.update_layout(
            title=f"The {len(table)} of {n_labels:,} labels with the highest posterior "
            f"({n_predicted} of {n_labels:,} labels predicted)"
        )
        legible(figure, title_width=WIDE_TITLE_CHARS, legend=False)  # wrap the new title
    return figure


#: the paper's notation as headers: the column names would be cut at a number's width
HEADERS = {
    "count": ("C_t(l)", "C_t(l): neighbours among the k that carry the label"),
    "posterior": ("posterior", "P(H₁|E), used for ranking"),
    "decision": ("decision", "1 when score H₁ ≥ score H₀ (the MAP rule)"),
    "truth": ("truth", "1 when the test instance carries the label"),
    "prior_pos": ("P(H₁)", "prior of having the label (training share, smoothed by s)"),
    "likelihood_pos": ("P(E|H₁)", "likelihood of this count if the label is on"),
    "score_pos": ("score H₁", "P(H₁)·P(E|H₁), the green bar above"),
    "prior_neg": ("P(H₀)", "prior of lacking the label, 1 − P(H₁)"),
    "likelihood_neg": ("P(E|H₀)", "likelihood of this count if the label is off"),
    "score_neg": ("score H₀", "P(H₀)·P(E|H₀), the grey bar above"),
}
# Two tables rather than one of ten number columns: with ten, the label column kept ~100 px
# and cut names over ~14 characters at 1280 px (issue 23); each table leaves the label at
# least MAIN_AREA_PX - 6 number columns.
PARTS = {
    "**Count, posterior and decision**": ["count", "posterior", "decision", "truth"],
    "**The MAP rule term by term**: predicted when score H₁ ≥ score H₀": [
        "prior_pos",
        "likelihood_pos",
        "score_pos",
        "prior_neg",
        "likelihood_neg",
        "score_neg",
    ],
}


class InstanceTables(NamedTuple):
    """What the instance view shows of one test instance (a tuple: the cache keys each part
    by the computation that made it, so the figure built from ``table`` hashes nothing)."""

    n_labels: int
    n_predicted: int
    #: the shown labels' rows of the explanation, with the instance's truth
    table: pd.DataFrame
    neighbours: pd.DataFrame
    set_px: int
    row_height: int | None
    #: one 0/1 column per shown label in ``neighbours`` (few labels) or only ``label_set``
    one_column_each: bool
    #: the ``PARTS`` of ``table``, in order
    parts: tuple[pd.DataFrame, ...]
    label_px: int


def instance_tables(model, index: int, k_max: int) -> InstanceTables:
    """The explanation of test instance ``index`` and its tables, once per model and instance
    (on every rerun they were half of the page's)."""
    del k_max  # the key of the neighbour search that graph_test comes from
    explanation = model.explain(graph_test[index : index + 1], label_names=ds.label_names)
    full = explanation.table.assign(truth=split.Y_test[index])
    shown = np.sort(np.argsort(-full["posterior"].to_numpy(), kind="stable")[:MAX_LABELS_SHOWN])
    table = full.iloc[shown]
    names = [ds.label_names[i] for i in shown]
    neighbour_sets = split.Y_train[explanation.neighbors][:, shown]
    neighbours = figures.neighbors_table(
        explanation.neighbors, explanation.distances, neighbour_sets, names
    )
    one_column_each = len(names) <= MAX_LABEL_COLUMNS
    if not one_column_each:  # a column per label would not fit the page: label_set lists them
        neighbours = neighbours.drop(columns=names)
    # the label set gets what the number columns leave of the page and wraps onto up to four
    # lines; names that do not fit are counted, never cut mid-name
    neighbours["label_set"], set_px, row_height = tables.label_set_column(
        [[names[j] for j in np.flatnonzero(row)] for row in neighbour_sets],
        taken_px=tables.NUMBER_COLUMN_PX * (neighbours.shape[1] - 1),
    )
    return InstanceTables(
        n_labels=len(full),
        n_predicted=int(full["decision"].sum()),
        table=table,
        neighbours=neighbours,
        set_px=set_px,
        row_height=row_height,
        one_column_each=one_column_each,
        parts=tuple(table[["label", *columns]] for columns in PARTS.values()),
        label_px=tables.label_width(table["label"], taken_px=tables.NUMBER_COLUMN_PX * 6),
    )


@st.fragment
def instance_view() -> None:
    """Reruns alone when the instance changes: the fitted model and metrics stay untouched."""
    st.subheader("One test instance")
    index = links.bound(
        st.number_input, "Test instance", 0, len(split.Y_test) - 1, 0, key="mlknn_instance"
    )
    view = fitting.compute(
        instance_tables,
        {"model": model, "index": int(index), "k_max": k_max},
        label="Test instance",
        small=True,
    )
    if view is None:
        return
    figure = fitting.figure(posterior_view, view.table, view.n_labels, view.n_predicted)
    export.chart(figure, key="mlknn_posterior")
    st.caption(
        "Per label, the two prior × likelihood products (log scale): the label is predicted when "
        "the H₁ bar is at least as tall as the H₀ bar (ties go positive, as in the authors' code). "
        "Markers give the posterior r_t(l) used for ranking. Rare labels start with a tiny prior, "
        "so many neighbours must carry them before the H₁ bar wins."
    )
    n_shown = len(view.table)
    st.markdown(
        "**Neighbours and their labels** (training rows, nearest first"
        + (
            f"; the {n_shown} labels above"
            if view.one_column_each and n_shown < view.n_labels
            else ""
        )
        + ")"
    )
    tables.fitted_table(
        view.neighbours,
        hide_index=True,
        column_config={"label_set": st.column_config.TextColumn(width=view.set_px)},
        row_height=view.row_height,
    )
    for (heading, columns), part in zip(PARTS.items(), view.parts, strict=True):
        st.markdown(heading)
        tables.fitted_table(
            part,
            hide_index=True,
            column_config={
                "label": st.column_config.TextColumn(width=view.label_px),
                **{
                    column: st.column_config.NumberColumn(
                        HEADERS[column][0],
                        help=HEADERS[column][1],
                        format="%.4g",
                        width=tables.NUMBER_COLUMN_PX,
                    )
                    for column in columns
                },
            },
        )


instance_view()

export.report_button("ML-KNN")
