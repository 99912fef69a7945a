"""Label clusters page: which labels belong together, how many groups, and how sure we are."""

from __future__ import annotations

import numpy as np
import streamlit as st
from sklearn.metrics import adjusted_rand_score

from mlviz import stats
from mlviz.figures import label_clusters as figures
from mlviz.figures._style import TITLE_CHARS, WIDE_TITLE_CHARS
from mlviz.label_clustering import (
    AFFINITIES,
    MIN_ADJUSTED_STABILITY,
    VERDICT_THRESHOLDS,
    LabelClustering,
    clustering_stability,
    group_diagnostics,
    label_coassignment,
    stable_n_groups,
    verdict_counts,
)
from mlviz.methods import AFFINITY_LABELS, METHODS
from mlviz.wording import counted, percent_text
from pages._app import (
    budget,
    chance,
    columns,
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

MIN_LABELS = grouping.MIN_LABELS  # below this there is no eigengap and no partition
# up to this many labels the shown grouping's bootstrap co-assignment (10 regroupings at K)
# is computed with the page; above, the verdicts use the co-occurrence rules only
AUTO_COASSIGN_MAX_LABELS = 400
N_RESAMPLES = 10
MAX_LISTED_GROUPS = 12  # doubtful groups explained in words under the table

ds = source.current_dataset()
st.title("Label clusters")
presentation.intro(
    "GroPLE's first stage (Kumar et al., §3) groups labels by spectral clustering: an "
    "affinity between label columns, the leading eigenvectors of the normalised affinity "
    "D^-1/2 A D^-1/2, then k-means. Each group later gets its own sparse latent rows."
)
# A label that never occurs carries no evidence about groups: every such column is the same
# all-zero column (the heat kernel sees them as identical, co-occurrence and correlation as
# unconnected), so grouping them would only report the data's gaps. The page groups the rest.
occurring = grouping.occurring_columns()
L = occurring.size
names = [ds.label_names[j] for j in occurring]
never_occurring = [ds.label_names[j] for j in np.setdiff1d(np.arange(ds.n_labels), occurring)]
if never_occurring:
    listed = ", ".join(plain.markdown(n, 40) for n in never_occurring[:5])
    more = f" and {len(never_occurring) - 5:,} more" if len(never_occurring) > 5 else ""
    st.info(
        f"{len(never_occurring):,} of the {ds.n_labels:,} labels never "
        + ("occurs" if len(never_occurring) == 1 else "occur")
        + f" in {plain.markdown(ds.name)} "
        f"({listed}{more}). A label that never occurs carries no evidence about groups (an "
        "all-zero column: the heat kernel sees all of them as identical, co-occurrence and "
        f"correlation as unconnected), so this page groups the {L:,} labels that occur."
    )

if L < MIN_LABELS:
    st.warning(
        f"Label clusters needs at least {MIN_LABELS} labels; this data set has {L}"
        + (" that occur" if never_occurring else "")
        + ". With fewer there is no choice of groups to make (and no eigengap to read)."
    )
    Y = grouping.occurring_labels()
    if L == 2 and Y is not None:
        both = int((Y[:, 0].astype(bool) & Y[:, 1].astype(bool)).sum())
        jaccard = stats.cooccurrence(Y, normalize="jaccard")[0, 1]
        st.markdown(
            f"What the data does say: **{plain.markdown(names[0])}** and **"
            f"{plain.markdown(names[1])}** occur together on "
            f"{both} of {ds.n_samples} instances (Jaccard co-occurrence {jaccard:.3f})."
        )
    st.stop()
too_many = budget.labels_refusal(L, "Label clusters")
if too_many is not None:  # the affinity, its eigenvectors and the K sweep are all L x L
    st.warning(too_many)
    st.stop()
# after the refusal: a copy of the labels that occur (none when all do) is kept by the cache
Y = grouping.occurring_labels()
if Y is None:
    st.stop()

with st.container(border=True):
    c1, c2 = st.columns([1, 2])
    current = grouping.controls(c1, c2)
if current is None:
    st.stop()
affinity, n_groups, k_max = current.affinity, current.k, current.k_max
model, spectrum_model = current.model, current.spectrum
suggested = current.eigengap_k
tail = experiment.tail_threshold()


def coassignment(model: LabelClustering, affinity: str, B: int):
    """Per-label bootstrap co-assignment of the shown grouping (cached with the model)."""
    return label_coassignment(Y, model.labels_, affinity=affinity, n_resamples=B, random_state=0)


together = None
if L <= AUTO_COASSIGN_MAX_LABELS:
    together = fitting.compute(
        coassignment,
        {"model": model, "affinity": affinity, "B": N_RESAMPLES},
        label="Bootstrap co-assignment",
        spinner=f"Regrouping {N_RESAMPLES} bootstrap samples at K = {n_groups}…",
        uses_split=False,
    )


def label_pair_counts():
    """Yᵀ Y of the labels shown, once per data set: the diagnostics of every K read it (it
    was counted again on every move of K, ~60 ms at 983 labels)."""
    return stats.cooccurrence(Y)


pair_counts = fitting.compute(label_pair_counts, label="Label pair counts", uses_split=False)


def label_groups(model: LabelClustering, tail: float, together):
    return group_diagnostics(
        Y,
        model.labels_,
        label_names=names,
        tail_threshold=tail,
        coassignment=together,
        cooccurrence=pair_counts,
    )


# keyed by the model itself: after a failed fit ``model`` is the last one that worked
diagnostics = fitting.compute(
    label_groups,
    {"model": model, "tail": tail, "together": together},
    label="Group diagnostics",
    uses_split=False,
)
if diagnostics is None:
    st.stop()
grouping.record("label_clusters", affinity, n_groups, model.labels_)
truth = source.known_groups(ds)
if truth is not None:
    truth = truth[occurring]

st.markdown(f"**{AFFINITY_LABELS[affinity].capitalize()}**: {AFFINITIES[affinity]}.")


def header_numbers(diagnostics, labels: np.ndarray, truth: np.ndarray | None):
    """The groups' verdict counts and, on the planted sample, the ARI against its groups
    (computed once per grouping: on every rerun they were a twentieth of the page's)."""
    ari = None if truth is None else float(adjusted_rand_score(truth, labels))
    return verdict_counts(diagnostics), ari


numbers = fitting.compute(
    header_numbers,
    {"diagnostics": diagnostics, "labels": model.labels_, "truth": truth},
    label="Group verdicts",
    uses_split=False,
    small=True,
)
if numbers is None:
    st.stop()
counts, planted_ari = numbers
cols = st.columns(3 if truth is not None else 2)
cols[0].metric(
    "Groups found",
    model.n_groups_,
    help="k-means can return fewer groups than K when labels coincide.",
)
# one suggested K (issue 31: the eigengap, the default rule and the stability sweep each gave
# their own answer on its own line); filled once the sweep below is known, if it runs
suggested_slot = cols[1].container()
if truth is not None:
    cols[2].metric(
        "ARI vs planted groups",
        f"{planted_ari:.3f}",
        help="Adjusted Rand index against the groups planted in this sample: 1 = exactly the "
        "planted groups, 0 = chance.",
    )

summary = ", ".join(f"{n} {verdict}" for verdict, n in counts.items())
doubtful = {v: n for v, n in counts.items() if v in ("never co-occur", "tail bucket", "weak")}
stability_note = (
    ""
    if together is not None
    else f" Stability per group is not computed at {L:,} labels, so the verdicts use the "
    "co-occurrence rules only."
)
if doubtful:
    st.warning(
        f"K = {n_groups} ({AFFINITY_LABELS[affinity]}): {summary}. "
        f"{sum(doubtful.values())} of the {model.n_groups_} groups "
        + ("is" if sum(doubtful.values()) == 1 else "are")
        + " not evidence that their labels belong together; the reasons are listed under the "
        "group table." + stability_note
    )
else:
    st.success(
        f"K = {n_groups} ({AFFINITY_LABELS[affinity]}): {summary}. Every group of two or more "
        "labels passes the verdict rules." + stability_note
    )

frequencies = stats.label_frequencies(Y, relative=True)
# a 3/5-width heatmap names every column legibly (its names at an angle) only while its columns
# keep ~14 px beside the longest name (pages/_app/columns.py: medical's 45 labels and birds'
# 19 long names overlapped): else the heatmap and the spectrum stand one below the other
side_by_side = columns.names_fit_beside(names, 0.6, reserved_px=104, min_column_px=14)
left, right = st.columns([3, 2]) if side_by_side else (st.container(), st.container())
with left:
    if L <= figures.MAX_NAMED_LABELS:
        export.chart(
            fitting.figure(
                figures.affinity_heatmap,
                model.affinity_,
                model.labels_,
                names,
                frequencies=frequencies,
            ),
            key="clusters_affinity_heatmap",
            wide=not side_by_side,
        )
        st.caption(
            "Affinity between labels, rows and columns ordered by group (label names and the "
            "outline of each group's block in the group's colour, most frequent label first). "
            "A dark block on the diagonal is a group whose labels are alike under this "
            "affinity; a pale block is a group the affinity does not support."
        )
    else:
        export.chart(
            fitting.figure(figures.group_affinity_heatmap, model.affinity_, model.labels_),
            key="clusters_group_heatmap",
            wide=not side_by_side,
        )
        st.caption(
            f"{L} labels are too many to name on one heatmap: each cell is the mean affinity "
            "between two groups (the diagonal: within a group). Pick a group below to see its "
            "labels."
        )
        group_sizes = diagnostics.set_index("group")["n_labels"]
        chosen_group = links.bound(
            st.selectbox,
            "Drill down into group",
            list(group_sizes.index),
            format_func=lambda g: f"group {g} ({counted(group_sizes[g], 'label')})",
            key="clusters_drill_group",
        )
        members = (model.labels_ == chosen_group).nonzero()[0]
        if members.size > figures.MAX_NAMED_LABELS:
            members = members[(-frequencies[members]).argsort(kind="stable")]
            members = members[: figures.MAX_NAMED_LABELS]
            shown_note = (
                f"the {figures.MAX_NAMED_LABELS} most frequent of its "
                f"{int(group_sizes[chosen_group])} labels"
            )
        else:
            shown_note = f"all {members.size} labels"
        members.sort()
        export.chart(
            fitting.figure(
                figures.affinity_heatmap,
                model.affinity_[members][:, members],
                model.labels_[members],
                [names[j] for j in members],
                frequencies=frequencies[members],
                title=f"Group {chosen_group}: affinity between {shown_note}",
            ),
            key="clusters_drill_heatmap",
            wide=not side_by_side,
        )
with right:
    shown = min(grouping.MAX_K + 1, spectrum_model.eigenvalues_.size)
    export.chart(
        fitting.figure(
            figures.eigenvalue_figure,
            spectrum_model.eigenvalues_,
            suggested,
            chosen_k=n_groups,
            max_shown=shown,
            n_labels=L,
            title_width=TITLE_CHARS if side_by_side else WIDE_TITLE_CHARS,
        ),
        key="clusters_eigen",
        wide=not side_by_side,
    )
    gap = spectrum_model.eigenvalues_[suggested - 1] - spectrum_model.eigenvalues_[suggested]
    st.caption(
        f"Eigenvalues of the normalised affinity, largest first; the grey line marks the chosen "
        f"K = {n_groups}. The largest drop within K = 2.."
        f"{min(k_max, spectrum_model.eigenvalues_.size - 1)} "
        f"is after λ_{suggested} "
        f"({gap:.3f}): the eigengap's K = {suggested}, one of the candidates weighed under "
        "'Choosing K from evidence'. A clear gap means K well-separated groups; a smooth "
        "decline means the spectrum does not settle K."
    )

st.subheader("Choosing K from evidence")
advice_slot = st.container()  # the suggested K and its candidates, once the sweep is known
# K = L (every label alone) is trivially stable, so the sweep stops at L - 1
sweep_ks = list(range(2, k_max + 1))
SWEEP_REQUESTS = "_clusters_sweep_requested"  # (data set, affinity) pairs asked for


def stability_sweep(affinity: str, ks: tuple[int, int], B: int, progress):
    return clustering_stability(
        Y,
        list(range(ks[0], ks[1] + 1)),
        affinity=affinity,
        n_resamples=B,
        n_null=1,
        random_state=0,
        progress=progress,
    )


sweep_id = (source.dataset_digest(), affinity)
requested = st.session_state.setdefault(SWEEP_REQUESTS, set())
if sweep_id not in requested:
    # the sweep (the data and a shuffled null, each with bootstrap samples, at every K) takes
    # seconds, so it runs on request; once run it is kept per data set and affinity
    if st.button(
        f"Compute the K sweep ({AFFINITY_LABELS[affinity]})",
        key="clusters_sweep_fit",
        type="primary",
    ):
        requested.add(sweep_id)
    else:
        st.caption(
            f"The sweep clusters {N_RESAMPLES} bootstrap samples of the data and of a null (each "
            f"label column shuffled on its own: frequencies kept, co-occurrence left to chance) "
            f"at K = 2..{sweep_ks[-1]}, and suggests the K most stable *beyond* the null. It "
            "runs on request and is kept for this data set and affinity."
        )
sweep = None
if sweep_id in requested:
    sweep = fitting.compute(
        stability_sweep,
        {"affinity": affinity, "ks": (sweep_ks[0], sweep_ks[-1]), "B": N_RESAMPLES},
        progress=True,
        label="K sweep",
        spinner=f"Clustering {N_RESAMPLES} bootstrap samples of the data and of the null at "
        f"K = 2..{sweep_ks[-1]}…",
        uses_split=False,
    )
if sweep is not None:
    stable_k = stable_n_groups(sweep)
    by_k = sweep.set_index("n_groups")
    raw_best = int(sweep.loc[sweep["stability"].idxmax(), "n_groups"])
    export.chart(
        fitting.figure(figures.stability_figure, sweep, chosen_k=n_groups, suggested_k=stable_k),
        key="clusters_sweep_figure",
    )
    row = by_k.loc[stable_k]
    supported = row["adjusted_stability"] >= MIN_ADJUSTED_STABILITY
    if not supported:
        st.warning(
            f"No K is clearly more stable than on shuffled labels: the largest adjusted "
            f"stability is {row['adjusted_stability']:.2f} (K = {stable_k}), below "
            f"{MIN_ADJUSTED_STABILITY:g}. With the {AFFINITY_LABELS[affinity]} the groups of "
            "this data are as reproducible when which labels occur together is left to chance, "
            "so the sweep supports no K; the groups reflect label frequencies more than "
            "co-occurrence."
        )
    st.caption(
        f"Top: how reproducible the groups are when the instances are resampled "
        f"({N_RESAMPLES} bootstrap samples; mean adjusted Rand index with the full-data "
        f"groups, bars ± 1 sd), the same on the null (grey, dashed) and their difference "
        f"(purple). Bottom: share of label pairs inside groups that occur together at least "
        f"once; red crosses mark K with groups whose labels never co-occur. Against the null, "
        f"the most stable K that neither puts more than half the labels into one group nor "
        f"leaves more than half alone is **K = {stable_k}** (stability {row['stability']:.2f}, "
        f"null {row['null_stability']:.2f}, adjusted {row['adjusted_stability']:.2f}), "
        "one of the candidates weighed above."
        + (
            f" The raw stability alone would pick K = {raw_best} "
            f"({by_k.loc[raw_best, 'stability']:.2f}), but the null is as stable there "
            f"({by_k.loc[raw_best, 'null_stability']:.2f}): "
            + (
                "near-singleton groups are reproducible whatever the labels do."
                if by_k.loc[raw_best, "singleton_share"] > 0.5
                else "that reproducibility is owed to the label frequencies, not to which "
                "labels occur together."
            )
            if raw_best != stable_k
            else ""
        )
        + (
            f" At the chosen K = {n_groups}: stability {by_k.loc[n_groups, 'stability']:.2f}, "
            f"adjusted {by_k.loc[n_groups, 'adjusted_stability']:.2f}, "
            f"{by_k.loc[n_groups, 'cooccurrence_rate']:.0%} of within-group pairs co-occur."
            if n_groups in by_k.index
            else ""
        )
    )


grouping.k_advice(
    current, Y, sweep=sweep, tail=tail, metric_slot=suggested_slot, text_slot=advice_slot
)

st.subheader("The groups")
# without the co-assignment every group's stability is unknown: no column of empty cells
tables.group_table(diagnostics, stability=together is not None)
thresholds = VERDICT_THRESHOLDS
if together is not None:
    stability_text = (
        f"stability = how often its labels stay with their group mates across {N_RESAMPLES} "
        "bootstrap samples"
    )
    weak_rule = f"either of those two, or stability below {thresholds['min_stability']:.0%}"
else:
    stability_text = (
        f"stability is not measured with more than {AUTO_COASSIGN_MAX_LABELS} labels "
        f"({L:,} here), so the table has no stability column and no verdict uses it"
    )
    weak_rule = "either of those two"
st.caption(
    "One row per group: support = instances carrying any of its labels; co-occurring pairs = "
    "share of its label pairs that occur together at least once (None for a single label); "
    f"tail share = share of its labels on fewer than {percent_text(tail)} of the instances (the "
    f"sidebar's {experiment.tail_rule_name()}: {int(stats.is_tail(frequencies, tail).sum())} of "
    f"{L:,} labels); {stability_text}. Verdicts, first rule that holds: *singleton*; "
    "*never co-occur* (no pair together); *tail bucket* (at least "
    f"{thresholds['tail_bucket_share']:.0%} tail labels and fewer than "
    f"{thresholds['min_pair_share']:.0%} of pairs co-occurring or mean Jaccard below "
    f"{thresholds['min_jaccard']:g}); *weak* ({weak_rule}); *coherent* otherwise."
)
flagged = diagnostics[diagnostics["verdict"].isin(["never co-occur", "tail bucket", "weak"])]
for _, row in flagged.head(MAX_LISTED_GROUPS).iterrows():
    listed = ", ".join(str(n) for n in row["labels"][:10])
    more = f" and {row['n_labels'] - 10} more" if row["n_labels"] > 10 else ""
    # the reason holds numbers only; label names are user text: shown as plain text
    st.markdown(
        f"- **Group {row['group']}** ({row['verdict']}, {counted(row['n_labels'], 'label')}): "
        f"{row['reason']}."
    )
    st.text(f"    {listed}{more}")
if len(flagged) > MAX_LISTED_GROUPS:
    st.caption(f"… and {len(flagged) - MAX_LISTED_GROUPS} more such groups in the table.")

if together is not None:
    export.chart(
        fitting.figure(
            figures.coassignment_figure,
            together,
            model.labels_,
            names,
            verdicts=diagnostics["verdict"].tolist(),
        ),
        key="clusters_coassignment",
    )
    st.caption(
        f"Each point is a label: the share of its group mates it is grouped with again, over "
        f"{N_RESAMPLES} bootstrap samples of the instances (dashed: the group's mean, its "
        "stability). Low points are labels whose membership is an accident of the sample; "
        "labels alone in their group are not drawn."
    )

st.subheader("The groups against chance")
# GroPLE at the registry's opening settings for these labels, given the shown groups
gro = METHODS["GroPLE"]
settings = gro.default_settings(L, ds.n_samples, n_groups=n_groups)
chance.panel(gro.make(**settings), model.labels_, key="clusters_chance", columns=occurring)

with st.expander("Every label with its group"):
    table = figures.cluster_table(model.labels_, names, frequencies, tail)
    if together is not None:
        table["kept with group"] = together[table.index.to_numpy()]
    if truth is not None:
        table["planted group"] = truth[table.index.to_numpy()]
    # headers whole: two words do not fit a number's 70 px
    tables.fitted_table(
        table,
        hide_index=True,
        column_config={
            "kept with group": st.column_config.NumberColumn(
                width=115, format="%.2f", help="share of its group mates it is grouped with"
            ),
            "planted group": st.column_config.NumberColumn(width=105, help="planted group id"),
        },
    )

export.report_button("Label clusters")
