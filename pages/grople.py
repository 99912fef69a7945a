"""GroPLE page: label groups, the group-sparse decoding matrix V^k, and how it predicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from mlviz import stats
from mlviz.figures import grople as figures
from mlviz.figures import label_clusters as cluster_figures
from mlviz.figures import tail as tail_figures
from mlviz.figures.lesson import rows_per_group
from mlviz.grople import GroPLE
from mlviz.label_clustering import AFFINITIES, LabelClustering, group_diagnostics
from mlviz.linear import PLST, BinaryRelevance
from mlviz.metrics import METRICS, evaluate
from mlviz.per_label import grople_label_table, tail_summary
from pages import _shared as shared

ds = shared.current_dataset()
split = shared.current_split()
L = ds.n_labels
st.title("GroPLE: group-preserving label embedding")
st.markdown(
    "GroPLE (Kumar et al.) groups the labels, then factorises Y ≈ U V with an ℓ2,1 penalty on "
    "each group's block V^k (Eq. 4): a latent row is either used by *all* labels of a group or "
    "by none, so each group picks its own few latent dimensions. A sparse linear map Z then "
    "predicts U from the features (Eq. 5); scores are X Z V."
)

LOG_GRID = [0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0]
POSITIVE_GRID = LOG_GRID[1:]  # λ1 > 0 keeps V Vᵀ + λ1 I invertible (Eq. A.2)
WIDE_GRID = [0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3, 1e4]
k_max = L + 2 if L <= 28 else 30
AFFINITY_LABELS = {
    "heat": "heat kernel (paper)",
    "cooccurrence": "co-occurrence (Jaccard)",
    "correlation": "correlation",
}
with st.container(border=True):
    c1, c2, c3 = st.columns(3)
    affinity = shared.bound(
        c1.selectbox,
        "Label affinity of the groups",
        list(AFFINITY_LABELS),
        format_func=AFFINITY_LABELS.__getitem__,
        key="grople_affinity",
        persist_state="session",
        help="How stage 1 compares labels before grouping them (the Label clusters page shows "
        "the groups each choice gives). The paper uses the heat kernel.",
    )
    suggested = (
        shared.run_or_error(
            "Label spectrum",
            lambda: shared.cached(
                "grople-suggested-k",
                {"affinity": affinity, "k_max": k_max},
                lambda: (
                    LabelClustering(n_groups=min(k_max, L), affinity=affinity)
                    .fit(split.Y_train)
                    .suggest_n_groups(max_groups=min(k_max, L))
                ),
            ),
            state_key="grople_suggested_k",
        )
        if L >= 3
        else L
    )
    default_d = max(1, (L + 1) // 2)
    d = shared.bound(
        c1.slider,
        "Latent dimension d",
        1,
        200,
        default_d,
        key="grople_d",
        persist_state="session",
        help=f"Opens at d = {default_d}, about half the {L} labels: d ≥ L would not compress "
        "(PLST at d ≥ L is binary relevance).",
    )
    n_groups = shared.bound(
        c1.slider,
        "Label groups K",
        1,
        k_max,
        suggested or min(10, L),
        key="grople_k",
        persist_state="session",
        help="Opens at the eigengap's suggestion on the training labels"
        + (f" (K = {suggested})." if suggested else "."),
    )
    if suggested and suggested != n_groups:
        c1.button(
            f"Use suggested K = {suggested}",
            key="grople_use_suggested",
            on_click=lambda: st.session_state.update(grople_k=suggested),
        )
    lambda1 = shared.bound(
        c2.select_slider,
        "λ1 (‖U‖² weight)",
        POSITIVE_GRID,
        value=1e-3,
        key="grople_lambda1",
        persist_state="session",
    )
    lambda2 = shared.bound(
        c2.select_slider,
        "λ2 (group sparsity of V^k)",
        LOG_GRID,
        value=1.0,
        key="grople_lambda2",
        persist_state="session",
    )
    alpha = shared.bound(
        c3.select_slider,
        "α (latent-correlation term)",
        WIDE_GRID,
        value=1e-2,
        key="grople_alpha",
        persist_state="session",
    )
    beta = shared.bound(
        c3.select_slider,
        "β (ℓ1 sparsity of Z)",
        WIDE_GRID,
        value=1.0,
        key="grople_beta",
        persist_state="session",
    )
    params = {
        "d": d,
        "K": n_groups,
        "affinity": affinity,
        "lambda1": lambda1,
        "lambda2": lambda2,
        "alpha": alpha,
        "beta": beta,
    }
    fit_clicked = st.button("Fit GroPLE", key="grople_fit", type="primary")
    st.caption(
        "GroPLE is fitted when you press the button (a fit takes seconds); fits are "
        "cached, so going back to earlier settings is instant."
    )

if fit_clicked or "grople_params" not in st.session_state:
    st.session_state["grople_params"] = params
fitted_params = st.session_state["grople_params"]


def _fit():
    p = fitted_params
    model = GroPLE(
        n_components=p["d"],
        n_groups=p["K"],
        label_affinity=p.get("affinity", "heat"),
        lambda1=p["lambda1"],
        lambda2=p["lambda2"],
        alpha=p["alpha"],
        beta=p["beta"],
    )
    model.fit(split.X_train, split.Y_train)
    baselines = {
        "GroPLE": model,
        "BR": BinaryRelevance().fit(split.X_train, split.Y_train),
        f"PLST (M={min(p['d'], L)})": PLST(n_components=min(p["d"], L)).fit(
            split.X_train, split.Y_train
        ),
    }
    scores = {
        name: evaluate(split.Y_test, est.predict(split.X_test), est.decision_function(split.X_test))
        for name, est in baselines.items()
    }
    return model, scores, baselines["BR"]


with st.spinner("Fitting GroPLE: label groups, then U and V^k, then Z…"):
    result = shared.run_or_error(
        "GroPLE", lambda: shared.cached("grople", fitted_params, _fit), state_key="grople_result"
    )
if result is None or result[0].n_labels_ != L:
    st.stop()
model, scores, binary_relevance = result
if fitted_params != params:
    st.info("The figures show the last fitted settings; press **Fit GroPLE** to apply yours.")

if L <= cluster_figures.MAX_NAMED_LABELS:
    shared.chart(
        figures.vk_heatmap(model.V_, model.groups_, ds.label_names, row_support=model.row_support_),
        key="grople_vk",
    )
else:  # too many labels to name: one column per group, and one group's labels on request
    shared.chart(
        figures.vk_group_heatmap(model.V_, model.groups_, row_support=model.row_support_),
        key="grople_vk_groups",
    )
    group_ids, group_sizes = np.unique(model.groups_, return_counts=True)
    position = shared.bound(
        st.selectbox,
        "Drill down into group",
        range(len(group_ids)),
        format_func=lambda p: f"V^{group_ids[p]} ({group_sizes[p]} labels)",
        key="grople_drill_group",
    )
    members, shown_note = cluster_figures.drill_down_members(
        model.groups_, group_ids[position], stats.label_frequencies(split.Y_train)
    )
    shared.chart(
        figures.vk_heatmap(
            model.V_[:, members],
            model.groups_[members],
            [ds.label_names[j] for j in members],
            row_support=model.row_support_[[position]],
            title=f"V<sup>{group_ids[position]}</sup>: {shown_note}",
        ),
        key="grople_vk_drill",
    )
rows = rows_per_group(model.row_support_)
users = model.row_support_.sum(axis=0)
n_latent = model.row_support_.shape[1]
n_dead, n_shared = int((users == 0).sum()), int((users > 1).sum())
with_own = int((rows["private_rows"] > 0).sum())
st.caption(
    f"Each column block is one of the {model.n_groups_} label groups' V^k (paper Figure 1), "
    f"headed by the number of latent rows it uses out of d = {n_latent}; rows are the latent "
    "dimensions, and a blank row is exactly zero for every label of its group (the ℓ2,1 "
    f"penalty switches whole rows off). Here the groups use {rows['rows_used'].min()}–"
    f"{rows['rows_used'].max()} rows each; {n_shared} row(s) are used by two or more groups, "
    f"{int((users == 1).sum())} by one group only"
    + (f", {n_dead} by none" if n_dead else "")
    + ". "
    + (
        f"{with_own} of the {model.n_groups_} groups have rows of their own: the pattern of "
        "the paper's Figure 1."
        if with_own
        else "No group has a row of its own: at these settings the groups share every latent "
        "dimension they use, unlike the paper's Figure 1 (each group its own few rows)."
    )
    + " Raise λ2 to switch more rows off."
)

st.subheader("The label groups GroPLE used")
groups_used = group_diagnostics(
    split.Y_train, model.groups_, label_names=ds.label_names, tail_threshold=shared.tail_threshold()
)
groups_table = cluster_figures.group_table(groups_used)
groups_table.insert(1, "latent rows used", model.row_support_.sum(axis=1))
shared.fitted_table(
    groups_table,
    hide_index=True,
    column_config={
        "co-occurring pairs": st.column_config.NumberColumn(
            format="%.2f", width=shared.NUMBER_COLUMN_PX, help="co-occurring pairs"
        ),
        "mean Jaccard": st.column_config.NumberColumn(
            format="%.3f", width=shared.NUMBER_COLUMN_PX, help="mean Jaccard"
        ),
        "tail share": st.column_config.NumberColumn(
            format="%.2f", width=shared.NUMBER_COLUMN_PX, help="tail share"
        ),
        "verdict": st.column_config.TextColumn(width="small", help="verdict"),
        "labels": st.column_config.TextColumn(width="medium", help="labels"),
    },
)
never_used = cluster_figures.never_cooccurring_groups(groups_used)
affinity_used = fitted_params.get("affinity", "heat")
st.caption(
    f"Stage 1 grouped the training labels with the {affinity_used} affinity "
    f"({AFFINITIES[affinity_used]}) into {model.n_groups_} groups; each row lists a group's "
    "labels (training split), the latent rows its V^k uses out of d, and how often its labels "
    "co-occur. "
    + (
        f"{len(never_used)} group(s) hold labels that never appear together on the training "
        "split: GroPLE shares latent rows between labels with no evidence that they belong "
        "together."
        if len(never_used)
        else "Every group of two or more labels has a pair that co-occurs on the training split."
    )
)

table = pd.DataFrame(scores).T
shown = ["accuracy", "example_f1", "micro_f1", "macro_f1", "hamming_loss"]
table = table[shown].rename(columns={m: f"{METRICS[m].label} {METRICS[m].arrow}" for m in shown})
shared.fitted_table(table, number_format="%.4f")
st.caption(
    "Test-split metrics of GroPLE beside binary relevance and PLST on the same "
    "split (the paper's Table 2 metrics)."
)

st.subheader("Tail labels: does sharing a group help or hurt rare labels?")
threshold = shared.tail_threshold()
label_table = grople_label_table(
    model, binary_relevance, split.X_test, split.Y_test, split.Y_train, threshold, ds.label_names
)
shared.chart(tail_figures.grople_tail_figure(label_table, threshold), key="grople_tail")
tail = tail_summary(label_table)
percent = f"{100 * threshold:.3g}%"
if tail["tail"]:
    st.caption(
        f"{tail['tail']} of {tail['labels']} labels are in the tail (in fewer than {percent} "
        "of the training instances; the threshold is in the sidebar's Experiment settings). "
        f"On the test split GroPLE never predicts {tail['tail_never_predicted']} of them, "
        f"binary relevance {tail['tail_never_predicted_baseline']}; of the "
        f"{tail['tail_with_test_positive']} tail labels with a positive test instance, GroPLE "
        f"finds at least one for {tail['tail_found']}, binary relevance for "
        f"{tail['tail_found_baseline']}. A rare label shares its group's latent rows (the "
        "axis names each label's group, · gK): compare its F1 with its group mates'."
    )
else:
    st.caption(
        f"No label is in the tail: every label is in at least {percent} of the training "
        "instances (the threshold is in the sidebar's Experiment settings)."
    )
shared.chart(
    figures.objective_figure(model.objective_history_, model.feature_objective_history_),
    key="grople_objective",
)
st.caption(
    "Objective of Eq. 4 per outer iteration (it must never increase) and of the "
    "feature embedding (Eq. 5)."
)

shared.report_button("GroPLE")
