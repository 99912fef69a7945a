"""CLEMS page: label sets embedded so that distances mimic a cost, and nearest-point decoding."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st
from scipy.spatial.distance import cdist
from sklearn.ensemble import RandomForestRegressor

from mlviz.clems import EXACT_MAX_CANDIDATES, compute_candidate_costs
from mlviz.costs import cost_matrix
from mlviz.figures import clems as figures
from mlviz.figures import tail as tail_figures
from mlviz.figures.hypercube import labelset_text
from mlviz.methods import COST_LABELS, METHODS
from mlviz.metrics import METRICS, evaluate
from mlviz.per_label import clems_label_table, tail_summary
from mlviz.stats import distinct_labelsets
from mlviz.wording import counted, percent_text
from pages._app import (
    budget,
    experiment,
    export,
    fitting,
    links,
    plain,
    presentation,
    source,
    tables,
)

ds = source.current_dataset()
L = ds.n_labels
st.title("CLEMS: cost-sensitive label embedding")
presentation.intro(
    "CLEMS (Huang & Lin) embeds the distinct training label sets by weighted multidimensional "
    "scaling so that the distance from a *truth* point to a *prediction* point approximates "
    "the cost of that prediction. A regressor maps x to the truth-role point of its label set; "
    "decoding picks the nearest prediction-role point, i.e. the candidate the embedding thinks "
    "is cheapest."
)

split = experiment.model_split(needs="CLEMS")
# The page draws the embedding: it opens at the registry's "picture" preset (M = 2, the whole
# embedding in the picture), as the Lesson's step 5 does; Compare runs the default M (~L / 2)
PRESET = "picture"
OPENING = METHODS["CLEMS"].default_settings(L, len(split.Y_train), preset=PRESET)
c1, c2, c3 = st.columns(3)
cost = links.bound(
    c1.selectbox,
    "Cost",
    list(COST_LABELS),
    index=list(COST_LABELS).index(OPENING["cost"]),
    format_func=COST_LABELS.get,
    key="clems_cost",
    persist_state="session",
)
# Budget: CLEMS in M = L dimensions at 10,000 labels took 41 s and 5.4 GB (issue 24), so M
# goes up to MAX_LABELS_SQUARE (the registry's cap for L x L work); the page says so below.
M_max = min(L, budget.MAX_LABELS_SQUARE)
with c2:
    M = links.int_slider(
        "Embedding dimension M",
        1,
        M_max,
        OPENING["M"],
        key="clems_m",
        why_fixed="with a single label the embedding has one dimension.",
        help="Opens at M = 2, so the picture below is the whole embedding (the paper's M is "
        "the number of labels L); the test metrics at M = L are shown beside for comparison.",
    )
st.caption(METHODS["CLEMS"].caption({**OPENING, "M": M, "cost": cost}, PRESET))
regressor_name = links.bound(
    c3.radio,
    "Regressor",
    ["ridge (fast)", "random forest (paper)"],
    key="clems_regressor",
    persist_state="session",
)


def count_training_label_sets() -> int:
    return distinct_labelsets(split.Y_train)


# cached with the split: counting 16k rows of 983 labels is ~0.3 s, on every rerun otherwise
n_label_sets = fitting.compute(count_training_label_sets, label="Counting the label sets")
if n_label_sets is None:
    st.stop()
kept_sets = int(
    links.bound(
        st.number_input,
        "Label sets kept as candidates (most frequent first)",
        min_value=1,
        max_value=n_label_sets,
        value=n_label_sets,
        step=100,
        key="clems_max_candidates",
        help=f"The paper embeds every distinct training label set ({n_label_sets:,} here), the "
        f"default. Above {EXACT_MAX_CANDIDATES:,} candidates CLEMS embeds landmark sets exactly "
        "and places the others against them (landmark CLEMS), so time and memory grow "
        "linearly, not with the square. A smaller number drops the rarest sets: the training "
        "rows of a dropped set are regressed towards its lowest-cost kept candidate, and only "
        "kept sets can be predicted.",
    )
)
# None: no cap (the library's default), so the cached candidate costs match a default CLEMS
max_candidates = None if kept_sets >= n_label_sets else kept_sets


def candidate_costs_of(cost: str, max_candidates: int):
    return compute_candidate_costs(split.Y_train, cost, max_candidates=max_candidates)


# The candidates and their cost matrix depend on the cost and the cap only: computed once
# and reused for every M and regressor.
candidate_costs = fitting.compute(
    candidate_costs_of,
    {"cost": cost, "max_candidates": max_candidates},
    label="Candidate costs",
    spinner=f"Costs between the {kept_sets:,} candidate label sets (once per cost and cap; "
    "every M and regressor reuses them)…",
)
if candidate_costs is None:
    st.stop()


def fitted_clems(m: int, label: str, spinner: str, **button):
    """CLEMS at M = m with the page's settings, on the candidates above (a cached fit);
    ``button``: :func:`pages._app.fitting.fit`'s ``on``, ``key``, ``first_fit_automatic``."""
    regressor = None
    if regressor_name.startswith("random forest"):
        regressor = RandomForestRegressor(n_estimators=50, max_depth=10, random_state=0, n_jobs=1)
    return fitting.fit(
        METHODS["CLEMS"].make(M=m, cost=cost, regressor=regressor, max_candidates=max_candidates),
        fit_params={"candidate_costs": candidate_costs},
        label=label,
        spinner=spinner,
        **button,
    )


def test_scores(model) -> dict[str, float]:
    return evaluate(split.Y_test, model.predict(split.X_test))


def embedded_distances(model) -> np.ndarray:
    """Every truth-to-prediction distance between the candidates of ``cost_matrix_`` (all of
    them, or the landmarks of landmark CLEMS), for the Shepard diagram (once per fit)."""
    shown = model.landmark_indices_
    return cdist(
        model.embedding_truth_[shown],
        (model.embedding_pred_ if model.mirrored_ else model.embedding_truth_)[shown],
    )


def shepard(model, distances: np.ndarray, landmark_texts: list[str]):
    """The Shepard diagram of a fit, built from the model (a cached result, keyed by where it
    came from) rather than from its cost matrix, which a figure's key would hash on every move
    of the test instance (8 MB at 1,000 landmarks)."""
    landmarks_only = model.embedding_method_ == "landmark"
    return figures.shepard_figure(
        model.cost_matrix_,
        distances,
        model.landmark_stress1_ if landmarks_only else model.stress1_,
        dissimilarity=model.dissimilarity,
        mirrored=model.mirrored_,
        labelset_text=landmark_texts,
        stress_name="stress-1",
    )


def candidate_texts(model) -> tuple[list[str], list[str]]:
    """Every candidate label set as text, and the landmarks' (once per fit, not on every move
    of the test instance: 0.35 s for 16,105 sets of 983 labels)."""
    texts = labelset_text(model.candidates_, ds.label_names)
    return texts, [texts[i] for i in model.landmark_indices_]


model = fitted_clems(M, "CLEMS", "Embedding the candidate label sets and fitting the regressor…")
if model is None:
    st.stop()
scores = fitting.compute(test_scores, {"model": model}, label="Test-split metrics")
distances = fitting.compute(embedded_distances, {"model": model}, label="Embedded distances")
if scores is None or distances is None:
    st.stop()

full = None
if M_max < L:
    st.caption(
        f"M goes up to {M_max:,}, not L = {L:,}, and the paper's M = L comparison is not "
        f"fitted: this server fits CLEMS in at most {budget.MAX_LABELS_SQUARE:,} dimensions "
        "(a budget per session; at 10,000 labels M = L took 41 s and 5.4 GB)."
    )
elif M != L:
    # the paper embeds in M = L dimensions: its metrics beside the 2-D teaching view; with
    # many label sets that second fit takes seconds, so it waits for a press
    if model.n_label_sets_ <= budget.CLEMS_AUTO_FULL_LABEL_SETS:
        full_model = fitted_clems(
            L, f"CLEMS at M = L = {L:,}", f"Fitting CLEMS at M = L = {L:,} for comparison…"
        )
    else:
        st.caption(
            f"The paper embeds in M = L = {L:,} dimensions. With "
            f"{model.n_label_sets_:,} distinct training label sets (more than "
            f"{budget.CLEMS_AUTO_FULL_LABEL_SETS:,}) that second fit takes seconds, longer than "
            "the one above, so it waits for the button: its test metrics then stand beside "
            "this fit's."
        )
        full_model = fitted_clems(
            L,
            f"Fit CLEMS at M = L = {L:,} for comparison",
            f"Fitting CLEMS at M = L = {L:,} for comparison…",
            on="button",
            key="clems_full",
            first_fit_automatic=False,
        )
    if full_model is not None:
        full = fitting.compute(test_scores, {"model": full_model}, label="Test-split metrics")

cols = st.columns(4)
cols[0].metric(
    "Candidate label sets",
    # the value alone: "1,000 of 2,856" was cut to "1,000 of 2,…" in a quarter of 1280 px
    f"{len(model.candidates_):,}",
    delta=f"of {model.n_label_sets_:,}",
    delta_color="off",
    delta_arrow="off",
    help="Distinct training label sets embedded as candidates (most frequent "
    "first), of all distinct training label sets.",
)
cols[1].metric(
    "Stress-1 (Kruskal)",
    f"{model.stress1_:.3f}",
    help="sqrt(Σ w(δ − d)² / Σ w d²) over the embedded pairs: the mismatch between embedded "
    "distances d and target dissimilarities δ relative to the distances, so it compares data "
    "sets and M. 0 = the cost is embedded exactly; Kruskal's rule of thumb: 0.2 poor, 0.1 "
    f"fair, 0.05 good, 0.025 excellent. Raw weighted stress: {model.stress_:.4g}.",
)
for col, name in zip(cols[2:], ["example_f1", "accuracy"], strict=True):
    delta = None
    if full is not None:
        delta = f"{METRICS[name].format(full[name])} at M = L = {L:,}"
    col.metric(
        f"Test {METRICS[name].label} {METRICS[name].arrow} (M = {M})",
        METRICS[name].format(scores[name]),
        delta=delta,
        delta_color="off",
        delta_arrow="off",  # a reference value, not a change: no ↑ in front of it
    )

if model.n_dropped_candidates_:
    st.caption(
        f"Candidates: the {len(model.candidates_):,} most frequent of the "
        f"{model.n_label_sets_:,} distinct training label sets. The "
        f"{model.n_dropped_candidates_:,} dropped sets carry {model.dropped_share_:.1%} of the "
        "training rows; those rows are regressed towards their lowest-cost kept candidate, and "
        "a dropped set can never be predicted. Raise the number of candidates above to keep "
        "more."
    )
else:
    st.caption(
        f"Candidates: all {model.n_label_sets_:,} distinct training label sets, as in the paper."
    )
if model.embedding_method_ == "landmark":
    st.caption(
        f"Landmark CLEMS (a scalable approximation, not the paper's exact MDS): "
        f"{model.n_landmarks_:,} landmark sets (the most frequent quarter, the rest spread "
        f"out in cost space) are embedded by weighted SMACOF; the other "
        f"{len(model.candidates_) - model.n_landmarks_:,} are each placed against the fixed "
        "landmarks by minimising their own stress, so they fit the landmarks better than each "
        "other (in few dimensions much worse than an exact embedding). Every candidate can be "
        "predicted. Stress-1 "
        + (
            "is over all pairs of candidates."
            if model.stress_sample_size_ == len(model.candidates_)
            else f"is estimated from the pairs of {model.stress_sample_size_:,} random candidates "
            "with all candidates."
        )
    )
    if model.stress1_ > 0.2:
        st.warning(
            f"Stress-1 is {model.stress1_:.2f} for the whole embedding (0.2 is poor): in M = "
            f"{M} dimensions the placed label sets fit the landmarks but not each other, so "
            "distances between placed sets in this picture are unreliable. A larger M (the "
            "paper uses M = L) embeds them far better."
        )

st.subheader("Tail labels: how often CLEMS decodes each label, against the truth")
threshold = experiment.tail_threshold()


def label_table_of(model, threshold: float):
    """The per-label table of this fit and tail rule, cached as the other pages' are: every
    rerun of the page (a sidebar setting, a widget elsewhere) decoded the test split again."""
    return clems_label_table(
        model, split.X_test, split.Y_test, split.Y_train, threshold, label_names=ds.label_names
    )


label_table = fitting.compute(
    label_table_of, {"model": model, "threshold": threshold}, label="Per-label table"
)
if label_table is None:
    st.stop()
export.chart(
    fitting.figure(tail_figures.clems_tail_figure, label_table, threshold), key="clems_tail"
)
tail = tail_summary(label_table)
percent = percent_text(threshold)
if tail["tail"]:
    st.caption(
        f"{tail['tail']} of {counted(tail['labels'], 'label')} "
        f"{'is' if tail['tail'] == 1 else 'are'} in the tail (in fewer than {percent} of "
        f"the {split.n_train:,} training instances; {experiment.tail_rule_name()}, "
        "set in the sidebar's Experiment settings). CLEMS "
        f"predicts only its {len(model.candidates_):,} candidate label sets (the "
        + ("most frequent " if model.n_dropped_candidates_ else "")
        + "distinct training label sets): "
        f"{counted(tail['tail_in_no_candidate'], 'tail label is', plural='tail labels are')} in "
        "none of them and can never be predicted, and on the test split "
        f"{counted(tail['tail_never_predicted'], 'tail label is', plural='tail labels are')} in no "
        f"decoded set. Of the {counted(tail['tail_with_test_positive'], 'tail label')} with a "
        "positive test "
        f"instance, CLEMS finds at least one for {tail['tail_found']}. A rare label sits in few "
        "candidate sets, so it is decoded only when the regressed point lands next to one of "
        "them (hover a point for its number of candidate sets)."
    )
else:
    st.caption(
        f"No label is in the tail: every label is in at least {percent} of the training "
        f"instances ({experiment.tail_rule_name()}, set in the sidebar's Experiment settings)."
    )


class InstanceTables(NamedTuple):
    """What the instance view shows of one test instance (a tuple: the cache keys each part
    by the computation that made it, so the figures built from them hash nothing)."""

    #: where the regressor puts the instance, shape (1, M)
    embedding: np.ndarray
    #: the nearest prediction-role candidates and their costs against the truth
    nearest: np.ndarray
    nearest_costs: np.ndarray
    table: pd.DataFrame
    set_px: int
    row_height: int | None
    truth_text: str
    decoded_text: str
    decoded_cost: float


def instance_tables(model, index: int, cost: str) -> InstanceTables:
    """The explanation of test instance ``index``, once per model and instance (on every
    rerun it and its table were a sixth of the page's)."""
    explanation = model.explain(split.X_test[index : index + 1], n=5)
    nearest = explanation.candidates["candidate"].to_numpy()
    truth = split.Y_test[index]
    nearest_costs = cost_matrix(truth[None, :], model.candidates_[nearest], cost)[0]
    decoded = explanation.prediction
    # whole names on up to four lines, the rest counted (a long set was cut at the column)
    set_texts, set_px, row_height = tables.label_set_column(
        [[ds.label_names[j] for j in np.flatnonzero(model.candidates_[i])] for i in nearest],
        taken_px=3 * tables.NUMBER_COLUMN_PX,
    )
    table = explanation.candidates.assign(label_set=set_texts, cost_vs_truth=nearest_costs)[
        ["label_set", "count", "distance", "cost_vs_truth"]
    ]
    return InstanceTables(
        embedding=explanation.embedding,
        nearest=nearest,
        nearest_costs=nearest_costs,
        table=table,
        set_px=set_px,
        row_height=row_height,
        truth_text=labelset_text(truth[None, :], ds.label_names)[0],
        decoded_text=labelset_text(decoded[None, :], ds.label_names)[0],
        decoded_cost=float(cost_matrix(truth[None, :], decoded[None, :], cost)[0, 0]),
    )


@st.fragment
def instance_view() -> None:
    """Reruns alone when the instance changes: the embedding and regressor stay untouched."""
    named = fitting.compute(candidate_texts, {"model": model}, label="Candidate label sets")
    if named is None:
        return
    texts, landmark_texts = named
    st.subheader("One test instance")
    index = links.bound(
        st.number_input, "Test instance", 0, len(split.Y_test) - 1, 0, key="clems_instance"
    )
    view = fitting.compute(
        instance_tables,
        {"model": model, "index": int(index), "cost": cost},
        label="Test instance",
        small=True,
    )
    if view is None:
        return

    left, right = st.columns(2)
    with left:
        export.chart(
            fitting.figure(
                figures.fitted_embedding_figure,
                model,
                texts,
                predicted=view.embedding,
                nearest=view.nearest,
                nearest_costs=view.nearest_costs,
            ),
            key="clems_embedding",
            wide=False,
        )
        st.caption(
            "Each marker is a training label set (size ~ how often it occurs, colour = number of "
            "labels). For an asymmetric cost every set appears twice: as a truth (circle) and as a "
            "prediction (cross). The star is where the regressor put the chosen test instance; "
            "red rings are the nearest prediction-role points, the first one is the decoded set."
        )
    with right:
        landmarks_only = model.embedding_method_ == "landmark"
        export.chart(
            fitting.figure(shepard, model, distances, landmark_texts),
            key="clems_shepard",
            wide=False,
        )
        st.caption(
            (
                f"Shepard diagram: pairs of the {model.n_landmarks_:,} landmark candidates "
                "(the title says how many are drawn; stress-1 "
                f"{model.landmark_stress1_:.3f} among them; the n × n costs of all candidates "
                "are never computed), "
                if landmarks_only
                else "Shepard diagram: pairs of candidates (the title says how many are drawn), "
            )
            + "target dissimilarity against embedded "
            f"distance in M = {M} dimensions. Points on the diagonal are embedded faithfully; "
            f"Kruskal stress-1 = {model.stress1_:.3f} "
            + ("for the whole embedding " if landmarks_only else "here ")
            + "(0 is exact, 0.1 fair, 0.2 poor)."
            + (
                " With the Hamming cost and M = L the square-root dissimilarity embeds exactly."
                if cost == "hamming" and M == L
                else ""
            )
        )

    tables.fitted_table(
        view.table,
        hide_index=True,
        column_config={
            "label_set": st.column_config.TextColumn(width=view.set_px),
            # "cost_vs_truth" is cut at a number's width: a short header, the meaning on hover
            "cost_vs_truth": st.column_config.NumberColumn(
                "cost",
                help="cost of this label set against the instance's true label set",
                format="%.4g",
                width=tables.NUMBER_COLUMN_PX,
            ),
        },
        row_height=view.row_height,
    )
    st.markdown(
        f"**Truth:** {plain.markdown(view.truth_text, 200)}  \n"
        f"**Decoded:** {plain.markdown(view.decoded_text, 200)} — cost {view.decoded_cost:.3f}"
    )
    st.caption(
        "The nearest candidates with their embedded distance and their true cost against "
        "this instance's label set: decoding is good when small distance means small cost."
    )
    if not np.isfinite(model.stress_):
        st.warning("The embedding did not converge to a finite stress.")


instance_view()

export.report_button("CLEMS")
