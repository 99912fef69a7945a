"""GroPLE page: label groups, the group-sparse decoding matrix V^k, and how it predicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from mlviz import stats
from mlviz.figures import grople as figures
from mlviz.figures import label_clusters as cluster_figures
from mlviz.figures import tail as tail_figures
from mlviz.figures._style import WIDE_TITLE_CHARS
from mlviz.grople import lambda1_max, lambda2_max
from mlviz.label_clustering import (
    AFFINITIES,
    LabelClustering,
    group_diagnostics,
    verdict_counts,
)
from mlviz.methods import METHODS, half_of_labels
from mlviz.metrics import METRICS, evaluate
from mlviz.per_label import grople_label_table, tail_summary
from mlviz.reproduce import (
    GROPLE_FIGURE1_FOLDS,
    GROPLE_FIGURE1_GRID,
    GROPLE_FIGURE1_K,
    grople_figure1,
    grople_figure1_unsupported,
)
from mlviz.wording import percent_text
from pages._app import (
    experiment,
    export,
    fitting,
    grouping,
    links,
    plain,
    presentation,
    source,
    tables,
)

GROPLE = METHODS["GroPLE"]

ds = source.current_dataset()
L = ds.n_labels
st.title("GroPLE: group-preserving label embedding")
presentation.intro(
    "GroPLE (Kumar et al.) groups the labels, then factorises Y ≈ U V with an ℓ2,1 penalty on "
    "each group's block V^k (Eq. 4): a latent row is either used by *all* labels of a group or "
    "by none, so each group picks its own few latent dimensions. A sparse linear map Z then "
    "predicts U from the features (Eq. 5); scores are X Z V."
)
# Stage 1 holds several L x L matrices (8 L^2 bytes each); beyond the registry's cap the page
# says so instead of filling memory, as the PLST page does.
if not GROPLE.runs_on(L):
    experiment.explain_and_stop(
        f"GroPLE's first stage compares every pair of labels (a {L:,} × {L:,} affinity and its "
        f"eigenvectors), and V holds d × {L:,} entries: too large for "
        f"{plain.markdown(ds.name)}. This page "
        f"fits data sets with up to {GROPLE.max_labels:,} labels; the Data, Hypercube and ML-KNN "
        "pages work at this size."
    )
# stage 1 and the latent factors need two training instances (GroPLE says so)
split = experiment.model_split(min_train=2, needs="GroPLE")

# "Paper's Figure 1" chose K and the λs in the previous run; they are set here, before the
# widgets exist (Streamlit forbids changing a widget's value after it is drawn), and the fit
# request of fitting.fit is dropped so that the new settings are fitted without a second press
FIGURE1_PENDING = "_grople_figure1_pending"
_pending = st.session_state.pop(FIGURE1_PENDING, None)
if _pending is not None:
    st.session_state.update(_pending)
    st.session_state.pop("_fit_requested:grople", None)


def lambda2_bound(d: int, K: int, affinity: str) -> float:
    """λ2_max of the training labels at the page's label groups (seed 0, as the page's GroPLE
    fits: the same U_0)."""
    groups = LabelClustering(n_groups=min(K, L), affinity=affinity, random_state=0)
    return lambda2_max(split.Y_train, groups.fit(split.Y_train).labels_, d, random_state=0)


def lambda1_bound(d: int, K: int, affinity: str, lambda2: float) -> float:
    """λ1_max of the training labels at the page's label groups and λ2 (seed 0, as the page's
    GroPLE fits): above it Algorithm 1's second V step is zero (:func:`lambda1_max`)."""
    groups = LabelClustering(n_groups=min(K, L), affinity=affinity, random_state=0)
    return lambda1_max(split.Y_train, groups.fit(split.Y_train).labels_, d, lambda2, random_state=0)


LOG_GRID = [0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0]
POSITIVE_GRID = LOG_GRID[1:]  # λ1 > 0 keeps V Vᵀ + λ1 I invertible (Eq. A.2)
# Both λ sliders run up to their bound on the loaded data (figures.lambda_options: the grid,
# continued log-spaced beyond 100 when the bound is larger, then the bound itself, where V
# becomes zero): λ2_max is 964 on delicious (the grid used to stop at 100, where 367 of 400
# group rows were still used), λ1_max 10^3-10^7 on planted, yeast and medical at λ2 = 10 to
# 0.01 (docs/GROPLE.md). At λ2 = 0 no λ1 zeroes V and λ1 keeps the grid, up to 100, from where
# the fits of yeast and medical no longer change (measured).
WIDE_GRID = [0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3, 1e4]
# The page opens at the registry's default preset (teaching: λ1 = 1, λ2 = 10, α = 0.01, β = 1),
# as Compare and the Lesson do, with d sized by the registry's rule (about half the labels, at
# most the paper's 100): mlviz.methods.Method.default_settings.
PRESET = GROPLE.default_preset
OPENING = GROPLE.default_settings(L, len(split.Y_train), preset=PRESET)
PAPER_D = GROPLE.presets["paper"].settings["d"]  # the paper's d for every data set (Table 2)
controls = st.container(border=True)
# while presenting, the notes under the sliders (their ranges and why) fold into one expander
# below the controls, so that the first figure starts on the first screen (1280 × 720)
notes = st.expander("Slider ranges") if presentation.is_on() else None


def note_slot(slot):
    """Where a slider's note goes: under the slider, or in the expander while presenting."""
    return slot if notes is None else notes


with controls:
    c1, c2, c3 = st.columns(3)
    # the app's one label grouping (pages/_app/grouping.py): affinity and K shared with Label
    # clusters, Hypercube and the Lesson; GroPLE's stage 1 applies them to the training rows
    # (drawn in the page's order: affinity, d, then K)
    affinity_box = c1.container()
    half_d = half_of_labels(L)
    default_d = OPENING["d"]
    d = links.bound(
        c1.slider,
        "Latent dimension d",
        1,
        max(200, half_d),
        default_d,
        key="grople_d",
        persist_state="session",
        help=f"Opens at d = {default_d}, "
        + (
            f"about half the {L} labels: d ≥ L would not compress "
            "(PLST at d ≥ L is binary relevance)."
            if default_d == half_d
            else f"the paper's value for every data set, rather than about half the {L} "
            f"labels ({half_d}), to keep the first fit short."
        ),
    )
    if default_d < half_d:
        note_slot(c1).caption(
            f"d opens at {default_d} (the paper's value) rather than about half the {L} labels "
            f"({half_d}), to keep the first fit short: set a larger d and press **Fit GroPLE** "
            "(slower)."
        )
    shared = grouping.controls(affinity_box, c1)
    if shared is not None:
        affinity, n_groups = shared.affinity, shared.k
    else:  # fewer than 3 labels occur: one group, the paper's affinity
        affinity, n_groups = "heat", 1
    # drawn above λ2 but filled after it: λ1's range depends on the chosen λ2 (λ1_max)
    lambda1_slot = c2.container()
    # every V^k is zero from λ2_max on (first V step, Eq. A.3): the slider ends there
    bound = fitting.compute(
        lambda2_bound, {"d": d, "K": n_groups, "affinity": affinity}, label="λ2 range"
    )
    lambda2_grid = figures.lambda_options(LOG_GRID, bound)
    lambda2_default = figures.lambda2_opening(lambda2_grid, bound, OPENING["lambda2"])
    if st.session_state.get("grople_lambda2", lambda2_default) not in lambda2_grid:
        st.session_state.pop("grople_lambda2", None)  # beyond this data's range: the default
    lambda2 = links.bound(
        c2.select_slider,
        "λ2 (group sparsity of V^k)",
        lambda2_grid,
        value=lambda2_default,
        key="grople_lambda2",
        persist_state="session",
    )
    if bound is not None:
        note_slot(c2).caption(
            f"λ2 ≥ {bound:.3g} makes every V^k zero on this training split (λ2_max: the first "
            "V step of Algorithm 1 is then exactly zero), so the slider ends at "
            f"{max(lambda2_grid):g}, the first of its values where V is zero."
        )
    # every V^k is zero above λ1_max at this λ2 (second V step, Eq. A.2-A.3): λ1 ends there
    bound1 = fitting.compute(
        lambda1_bound,
        {"d": d, "K": n_groups, "affinity": affinity, "lambda2": float(lambda2)},
        label="λ1 range",
    )
    # None (failed) or inf (λ2 = 0: no λ1 makes V zero): the grid
    lambda1_grid = figures.lambda_options(POSITIVE_GRID, bound1)
    # opens at the preset's λ1, or the largest option below the bound (the last option, at
    # the bound, is where V is zero)
    below1 = [v for v in lambda1_grid if bound1 is None or v < bound1] or lambda1_grid[:1]
    lambda1_default = max([v for v in below1 if v <= OPENING["lambda1"]] or below1[:1])
    if st.session_state.get("grople_lambda1", lambda1_default) not in lambda1_grid:
        st.session_state.pop("grople_lambda1", None)  # beyond this λ2's range: the default
    lambda1 = links.bound(
        lambda1_slot.select_slider,
        "λ1 (‖U‖² weight)",
        lambda1_grid,
        value=lambda1_default,
        key="grople_lambda1",
        persist_state="session",
        help=f"Opens at λ1 = {OPENING['lambda1']:g} (GroPLE's {PRESET} preset), not the "
        f"paper's {GROPLE.presets['paper'].settings['lambda1']:g}: only λ1^(1/3) λ2^(2/3) "
        "matters for how many rows switch off (U and V trade scale), and at the paper's pair "
        "every group of the planted sample uses every row (docs/GROPLE.md).",
    )
    if bound1 is not None:
        note_slot(lambda1_slot).caption(
            figures.lambda1_range_caption(bound1, float(lambda2), lambda1_grid)
        )
    alpha = links.bound(
        c3.select_slider,
        "α (latent-correlation term)",
        WIDE_GRID,
        value=OPENING["alpha"],
        key="grople_alpha",
        persist_state="session",
    )
    beta = links.bound(
        c3.select_slider,
        "β (ℓ1 sparsity of Z)",
        WIDE_GRID,
        value=OPENING["beta"],
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
# which preset of the registry the page runs, and what the user changed of it
st.caption(GROPLE.caption(params, PRESET))


def test_scores(models: dict) -> dict[str, dict[str, float]]:
    # bipartition metrics only (the table shows no ranking metric; those cost seconds at
    # ~1,000 labels)
    return {name: evaluate(split.Y_test, est.predict(split.X_test)) for name, est in models.items()}


def figure1_search(d: int, affinity: str, alpha: float, beta: float, progress):
    return grople_figure1(
        split.X_train,
        split.Y_train,
        n_components=d,
        label_affinity=affinity,
        alpha=alpha,
        beta=beta,
        progress=progress,
        random_state=0,
    )


n_cells = len(GROPLE_FIGURE1_GRID["lambda1"]) * len(GROPLE_FIGURE1_GRID["lambda2"])
figure1_reason = grople_figure1_unsupported(len(split.Y_train), L, n_groups=GROPLE_FIGURE1_K)
# the paper's d = 100 (every data set, §4.2) and the page's affinity, α and β
figure1_settings = {"d": PAPER_D, "affinity": affinity, "alpha": alpha, "beta": beta}
figure1_request_key = "grople_figure1_request"
data_key = (source.dataset_digest(), experiment.split_settings())
if st.button(
    "Paper's Figure 1",
    key="grople_figure1",
    disabled=bool(figure1_reason),
    help=figure1_reason
    or f"Sets d = {PAPER_D}, K = {GROPLE_FIGURE1_K} and the λ1, λ2 that "
    f"{GROPLE_FIGURE1_FOLDS}-fold "
    f"cross-validated accuracy on the training split prefers among the paper's grid "
    f"({n_cells} pairs, {n_cells * GROPLE_FIGURE1_FOLDS} fits; minutes on medical), then fits.",
):
    st.session_state[figure1_request_key] = (data_key, figure1_settings)
if figure1_reason:
    st.caption(f"Paper's Figure 1 is not available here: {figure1_reason}")
figure1_request = st.session_state.get(figure1_request_key)
if figure1_request is not None and figure1_request[0] == data_key and not figure1_reason:
    figure1 = fitting.compute(
        figure1_search,
        figure1_request[1],
        progress=True,
        label="Paper's Figure 1",
        spinner=f"Cross-validating λ1 × λ2 at K = {GROPLE_FIGURE1_K}…",
    )
    if figure1 is not None:
        chosen = {
            "grople_d": figure1_request[1]["d"],
            **grouping.k_choice(GROPLE_FIGURE1_K),
            "grople_lambda1": figure1.lambda1,
            "grople_lambda2": figure1.lambda2,
        }
        applied_key = "grople_figure1_applied"
        if st.session_state.get(applied_key) != (figure1_request, chosen):
            st.session_state[applied_key] = (figure1_request, chosen)
            st.session_state[FIGURE1_PENDING] = chosen
            st.rerun()
        st.caption(
            f"Paper's Figure 1: {GROPLE_FIGURE1_FOLDS}-fold cross-validated accuracy on the "
            f"training split chose λ1 = {figure1.lambda1:g}, λ2 = {figure1.lambda2:g} "
            f"(accuracy {figure1.search.best_score:.3f}) at K = {GROPLE_FIGURE1_K}, "
            f"d = {figure1.model.n_components}; its refit "
            f"uses {', '.join(map(str, figure1.rows_used))} latent rows per group "
            f"({figure1.distinct_patterns} different row sets). Fit below with these settings. "
            "Iteration-cap warnings above this line, if any, come from single cross-validation "
            "fits of the grid; the fit below reports its own."
        )
        with st.expander("Cross-validation of λ1 × λ2"):
            tables.fitted_table(figure1.search.table, number_format="%.4g")

model = fitting.fit(
    GROPLE.make(**params),
    on="button",
    key="grople",
    label="Fit GroPLE",
    spinner="Fitting GroPLE: label groups, then U and V^k, then Z…",
)
st.caption(
    "GroPLE is fitted at the opening settings when a data set is loaded, and again each time "
    "you press the button (a fit takes seconds); fits are cached, so going back to earlier "
    "settings is instant."
)
if model is None:
    st.stop()
if model.degenerate_:
    # a fit that predicts nothing is not shown as a result (issue 22): cause and fix instead
    st.error(f"This GroPLE fit is degenerate. {model.degenerate_}", icon=":material/error:")
    st.stop()
if L <= figures.MAX_NAMED_LABELS:
    export.chart(
        fitting.figure(
            figures.vk_heatmap,
            model.V_,
            model.groups_,
            ds.label_names,
            row_support=model.row_support_,
            title_width=WIDE_TITLE_CHARS,  # drawn across the page
        ),
        key="grople_vk",
    )
else:  # too many labels to name: one column per group, and one group's labels on request
    export.chart(
        fitting.figure(
            figures.vk_group_heatmap, model.V_, model.groups_, row_support=model.row_support_
        ),
        key="grople_vk_groups",
    )
    group_ids, group_sizes = np.unique(model.groups_, return_counts=True)
    position = links.bound(
        st.selectbox,
        "Drill down into group",
        range(len(group_ids)),
        format_func=lambda p: f"V^{group_ids[p]} ({group_sizes[p]} labels)",
        key="grople_drill_group",
    )
    members, shown_note = cluster_figures.drill_down_members(
        model.groups_,
        group_ids[position],
        stats.label_frequencies(split.Y_train),
        max_labels=figures.MAX_NAMED_LABELS,
    )
    export.chart(
        fitting.figure(
            figures.vk_heatmap,
            model.V_[:, members],
            model.groups_[members],
            [ds.label_names[j] for j in members],
            row_support=model.row_support_[[position]],
            title=f"V<sup>{group_ids[position]}</sup>: {shown_note}",
            title_width=WIDE_TITLE_CHARS,
        ),
        key="grople_vk_drill",
    )
# the fitted model's own λ2: after a widget change without a press the view is the last fit
st.caption(figures.row_pattern_caption(model.row_support_, model.lambda2, model.lambda2_max_))
# beside the figure: whether this fit beats binary relevance on this data (filled below, once
# the baselines are fitted; issue 31: below BR on bibtex at the defaults, and nothing said so)
versus_br = st.container()

st.subheader("The label groups GroPLE used")
groups_used = group_diagnostics(
    split.Y_train,
    model.groups_,
    label_names=ds.label_names,
    tail_threshold=experiment.tail_threshold(),
)
# no bootstrap here: the stability column would be empty (the caption says so)
tables.group_table(groups_used, latent_rows_used=model.row_support_.sum(axis=1), stability=False)
never_used = cluster_figures.never_cooccurring_groups(groups_used)
affinity_used = model.label_affinity
st.caption(
    f"Stage 1 grouped the training labels with the {affinity_used} affinity "
    f"({AFFINITIES[affinity_used]}) into {model.n_groups_} groups; each row lists a group's "
    "labels (training split), the latent rows its V^k uses out of d, and how often its labels "
    "co-occur. Verdicts on the training split: "
    + ", ".join(f"{n} {v}" for v, n in verdict_counts(groups_used).items())
    + " (without the stability rule: the groups' stability under resampling is not measured "
    "here)."
    + (
        f" {len(never_used)} group(s) hold labels that never appear together on the training "
        "split: GroPLE shares latent rows between labels with no evidence that they belong "
        "together."
        if len(never_used)
        else ""
    )
)
if shared is not None and model.groups_.shape == (L,):
    grouping.training_note(shared, model.groups_, "GroPLE")
    grouping.record("grople", model.label_affinity, model.n_groups, model.groups_[shared.columns])
absent = np.flatnonzero(~split.Y_train.astype(bool).any(axis=0))
if absent.size:
    n_predicted = int(model.predict(split.X_test)[:, absent].any(axis=0).sum())
    st.caption(
        f"Labels that never occur in the training split: {absent.size} of {L}. Their columns "
        "of Y are constant, so GroPLE learns nothing about them ("
        + (
            "the heat kernel makes all such labels identical and puts them in one group"
            if affinity_used == "heat"
            else "this affinity leaves them unconnected to every other label"
        )
        + f"). On the test split GroPLE predicts {n_predicted} of them for at least one instance."
    )

# the baselines beside it, at the fitted model's d (the last press's, not the widgets'); fitted
# after the figures of GroPLE itself, so their warnings stand next to the table that uses them
m = min(model.n_components, L)
binary_relevance = fitting.fit(METHODS["BR"].make(), label="Binary relevance")
plst = fitting.fit(METHODS["PLST"].make(M=m), label=f"PLST (M={m})")
baselines = {"GroPLE": model, "BR": binary_relevance, f"PLST (M={m})": plst}
if any(b is None for b in baselines.values()):
    st.stop()
scores = fitting.compute(test_scores, {"models": baselines}, label="Test-split metrics")
if scores is None:
    st.stop()

below, numbers = figures.versus_baseline(scores, method="GroPLE", baseline="BR")
with versus_br:
    if below:
        st.warning(
            f"At these settings GroPLE scores below binary relevance on this test split on "
            f"{len(below)} of {len(figures.VERSUS_METRICS)} scores "
            f"({', '.join(METRICS[m].label for m in below)}): {numbers} (GroPLE vs BR). "
            "The groups and V^k above are what this fit learned, not a better model; the "
            "metrics table below has every score."
        )
    else:
        st.caption(f"On this test split GroPLE is at or above binary relevance: {numbers}.")

table = pd.DataFrame(scores).T
shown = ["accuracy", "example_f1", "micro_f1", "macro_f1", "hamming_loss"]
table = table[shown].rename(columns={m: f"{METRICS[m].label} {METRICS[m].arrow}" for m in shown})
tables.fitted_table(table, number_format="%.4f")
st.caption(
    "Test-split metrics of GroPLE beside binary relevance and PLST on the same "
    "split (the paper's Table 2 metrics)."
)

st.subheader("Tail labels: does sharing a group help or hurt rare labels?")
threshold = experiment.tail_threshold()
label_table = grople_label_table(
    model,
    binary_relevance,
    split.X_test,
    split.Y_test,
    split.Y_train,
    threshold,
    label_names=ds.label_names,
)
export.chart(
    fitting.figure(tail_figures.grople_tail_figure, label_table, threshold), key="grople_tail"
)
tail = tail_summary(label_table)
percent = percent_text(threshold)
if tail["tail"]:
    st.caption(
        f"{tail['tail']} of {tail['labels']} labels are in the tail (in fewer than {percent} "
        f"of the {split.n_train:,} training instances; {experiment.tail_rule_name()}, "
        "set in the sidebar's Experiment settings). "
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
        f"instances ({experiment.tail_rule_name()}, set in the sidebar's Experiment settings)."
    )
export.chart(
    fitting.figure(
        figures.objective_figure, model.objective_history_, model.feature_objective_history_
    ),
    key="grople_objective",
)
st.caption(
    "Objective of Eq. 4 per outer iteration (it must never increase) and of the "
    "feature embedding (Eq. 5)."
)

export.report_button("GroPLE")
