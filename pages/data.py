"""Data page: what the loaded data set looks like before any model touches it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from mlviz import stats
from mlviz.figures import data as figures
from mlviz.wording import counted, percent_text
from pages._app import (
    columns,
    experiment,
    export,
    fitting,
    links,
    plain,
    source,
    tables,
)

MAX_COOCCURRENCE_LABELS = 50  # a readable heatmap; more labels are cut to the most frequent
TOP_LABEL_SETS = 20
MAX_UPSET_SETS = 50  # columns of the UpSet view a user can ask for

ds = source.current_dataset()
st.title(f"Data: {plain.markdown(ds.name)}")


threshold = experiment.tail_threshold()


def statistics(tail_threshold: float) -> tuple[dict, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    return (
        stats.summary(ds, tail_threshold=tail_threshold),
        stats.labelset_counts(ds.Y, label_names=ds.label_names),
        stats.label_table(ds.Y, ds.label_names, tail_threshold=tail_threshold),
        stats.summary_table(ds, tail_threshold=tail_threshold),  # the download's row
    )


result = fitting.compute(
    statistics,
    {"tail_threshold": threshold},
    label="Statistics",
    uses_split=False,
)
if result is None:
    st.stop()
summary, labelset_counts, label_table, summary_row = result
cols = st.columns(5)
cols[0].metric("Instances", f"{ds.n_samples:,}")
cols[1].metric("Features", f"{ds.n_features:,}", help="sparse" if ds.is_sparse else "dense")
cols[2].metric("Labels", ds.n_labels)
cols[3].metric("Cardinality", f"{summary['cardinality']:.3f}", help="Mean labels per instance.")
cols[4].metric(
    "Distinct label sets",
    f"{summary['distinct']:,}",
    help=r"Occupied vertices of the label hypercube $\{0,1\}^L$; log10 of their share of all $2^L$ "
    f"vertices is {summary['log10_sparsity']:.1f}.",
)


def _number(value: float, spec: str) -> str:
    return "—" if np.isnan(value) else format(value, spec)


imbalance = st.columns(4)
imbalance[0].metric(
    "Mean imbalance ratio",
    _number(summary["mean_ir"], ".2f"),
    help="meanIR (mldr): the mean over labels of IRLbl = (count of the most frequent label) / "
    "(count of this label); labels that never occur are left out.",
)
imbalance[1].metric(
    "Max imbalance ratio", _number(summary["max_ir"], ".1f"), help="The rarest label's IRLbl."
)
imbalance[2].metric(
    "SCUMBLE",
    f"{summary['scumble']:.3f}",
    help="Mean over instances of 1 - (geometric mean) / (arithmetic mean) of the IRLbl of the "
    "instance's labels: 0 when each instance's labels are equally frequent.",
)
cv = summary["scumble_cv"]  # NaN when no instance mixes frequencies (mean SCUMBLE 0)
imbalance[3].metric(
    "SCUMBLE CV",
    _number(cv, ".2f"),
    help="Standard deviation of the instances' SCUMBLE over its mean.",
)
if np.isnan(summary["mean_ir"]):
    st.caption("Imbalance: no label occurs in this data set, so no label is rarer than another.")
else:
    st.caption(
        f"Imbalance: the average label is {summary['mean_ir']:.1f} times rarer than the most "
        f"frequent one, the rarest {summary['max_ir']:,.0f} times. "
        + (
            "No instance carries labels of different frequencies (SCUMBLE 0): rare labels never "
            "share an instance with frequent ones."
            if summary["scumble"] == 0
            else f"SCUMBLE {summary['scumble']:.3f}: the share by which the geometric mean of an "
            "instance's label imbalance falls below its arithmetic mean, averaged over instances "
            "(0 when each instance's labels are equally frequent; larger the more rare labels "
            "sit beside frequent ones on the same instances)."
        )
    )
if ds.notes:
    with st.expander("What the loader did"):
        for note in ds.notes:
            st.markdown(f"- {note}")

st.subheader("The long tail")
frequencies = stats.label_frequencies(ds.Y, relative=True)
n_tail = int(stats.is_tail(frequencies, threshold).sum())
export.chart(
    fitting.figure(figures.label_frequency_figure, frequencies, ds.label_names, threshold),
    key="label_frequency_chart",
)
st.caption(
    f"Each bar is one label's share of all {ds.n_samples:,} instances; the {n_tail} red bars "
    f"of {ds.n_labels} fall below the tail cut-off of {percent_text(threshold)} "
    f"({experiment.tail_rule_name()}; set under Experiment settings in the sidebar; the model "
    "pages apply the same cut-off to the training split). Embeddings that "
    "keep the directions of largest label variance (PLST) spend little of their budget on "
    "rare labels — watch how they fare on the Compare page."
)

# most frequent first (ties: lower index), the order the title states
shown = np.argsort(-frequencies, kind="stable")[:MAX_COOCCURRENCE_LABELS]


def shown_cooccurrence(shown: np.ndarray, normalize: str) -> np.ndarray:
    """The co-occurrence of the ``shown`` labels, once per choice (a rerun recomputed it and
    hashed it again for the heatmap's key)."""
    return stats.cooccurrence(
        ds.Y[:, shown], normalize=None if normalize == "counts" else normalize
    )


# a half-width heatmap names every row and column legibly only while its columns keep ~12 px
# beside the longest name (pages/_app/columns.py: birds' 19 long names overlapped): else both
# charts span the page, and their titles are wrapped to its width, not a column's
side_by_side = columns.names_fit_beside(
    [ds.label_names[i] for i in shown], 0.5, reserved_px=92, min_column_px=12
)
left, right = st.columns(2) if side_by_side else (st.container(), st.container())
with left:
    normalize = links.bound(
        st.radio,
        "Co-occurrence",
        ["counts", "jaccard", "conditional"],
        horizontal=True,
        key="cooc_norm",
        persist_state="session",
        help="conditional: row label's share of instances that also carry the column label.",
    )
    names = [ds.label_names[i] for i in shown]
    matrix = fitting.compute(
        shown_cooccurrence,
        {"shown": shown, "normalize": normalize},
        label="Label co-occurrence",
        uses_split=False,
        small=True,
    )
    if matrix is None:
        st.stop()
    title = "Label co-occurrence"
    if len(shown) < ds.n_labels:
        title += f" (the {len(shown)} most frequent of {ds.n_labels} labels, most frequent first)"
    export.chart(
        fitting.figure(figures.cooccurrence_figure, matrix, names, title=title),
        key="cooc_chart",
        wide=not side_by_side,
    )
    off_diagonal = np.where(np.eye(len(shown), dtype=bool), -np.inf, matrix.astype(float))
    if len(shown) < 2:
        st.caption("With a single label there are no pairs: the one cell is its own count.")
    elif off_diagonal.max() <= 0:
        st.caption("No two of these labels ever occur on the same instance.")
    else:
        i, j = np.unravel_index(np.argmax(off_diagonal), off_diagonal.shape)
        st.caption(
            "Darker off-diagonal cells are labels that occur together more: the groups GroPLE "
            "and the label-cluster view try to find. The darkest here is "
            f"{plain.markdown(names[i])} & "
            f"{plain.markdown(names[j])} ({off_diagonal[i, j]:.3g})."
        )
with right:
    export.chart(
        fitting.figure(figures.cardinality_figure, ds.Y),
        key="cardinality_chart",
        wide=not side_by_side,
    )
    st.caption(
        f"How many labels an instance carries; their mean, the label cardinality, is "
        f"{summary['cardinality']:.2f}. "
        + counted(summary["empty_instances"], "instance carries", plural="instances carry")
        + " no label."
    )

st.subheader("Most common label sets")
if len(labelset_counts) > 1:  # a slider needs two values to choose from
    n_sets = st.slider(
        "Label sets shown",
        min_value=1,
        max_value=min(MAX_UPSET_SETS, len(labelset_counts)),
        value=min(TOP_LABEL_SETS, len(labelset_counts)),
        key="data_upset_sets",
        help=f"At most {MAX_UPSET_SETS}, and no more than fit {figures.UPSET_MAX_LABELS} "
        "label rows.",
    )
else:
    n_sets = 1
upset = fitting.figure(
    figures.labelset_upset_figure,
    labelset_counts,
    stats.label_frequencies(ds.Y),
    ds.label_names,
    top=int(n_sets),
)
export.chart(upset, key="data_upset_chart")
n_columns = upset.layout.meta["shown_sets"]
st.caption(
    f"UpSet view: each column is one of the {counted(n_columns, 'most common label set')}, "
    "its bar the instances that carry exactly that set; dots mark the set's labels (rows: only "
    "the labels of these sets, most frequent on top), the bars on the right each label's "
    "instances in the whole data set. "
    + (
        f"{counted(upset.layout.meta['not_shown_sets'], 'more label set')} on "
        f"{counted(upset.layout.meta['not_shown_instances'], 'instance')} not shown"
        if upset.layout.meta["not_shown_sets"]
        else "Every label set is shown"
    )
    + (
        f" ({n_sets} asked for; the next set would need more than {figures.UPSET_MAX_LABELS} "
        "label rows)"
        if n_columns < n_sets
        else ""
    )
    + f"; {summary['unique_labelsets']:,} of the {len(labelset_counts):,} distinct label sets "
    "occur on a single instance."
)
with st.expander("The label sets as a table"):
    st.dataframe(labelset_counts.head(int(n_sets)), hide_index=True)

st.subheader("Every label")
search = st.text_input(
    "Find labels (part of the name; upper/lower case alike)",
    key="data_label_search",
    max_chars=200,
)
# plain-text matching: a name with regex characters such as "a+b" or "(x)" is found as typed
shown_labels = label_table
if search.strip():
    shown_labels = label_table[
        label_table["label"].str.contains(search.strip(), case=False, regex=False)
    ]
tables.fitted_table(
    shown_labels,
    hide_index=True,
    column_config={
        "label": st.column_config.TextColumn("label", width="medium"),
        "count": st.column_config.NumberColumn(
            "instances", width=tables.NUMBER_COLUMN_PX, help="Instances that carry the label."
        ),
        "frequency": st.column_config.NumberColumn(
            "frequency",
            format="percent",
            width=tables.NUMBER_COLUMN_PX,
            help="The label's share of all instances.",
        ),
        "tail": st.column_config.CheckboxColumn(
            "tail",
            width=tables.NUMBER_COLUMN_PX,
            help=f"Frequency below the tail threshold of {percent_text(threshold)} (sidebar).",
        ),
        "co_occurring_labels": st.column_config.NumberColumn(
            "co-occurring labels",
            width=140,  # the header whole (19 characters)
            help="How many other labels share at least one instance with this one.",
        ),
        "imbalance_ratio": st.column_config.NumberColumn(
            "IRLbl",
            format="%.2f",
            width=tables.NUMBER_COLUMN_PX,
            help="Instances of the most frequent label over this label's (1 = the most "
            "frequent; empty for a label that never occurs).",
        ),
        "scumble": st.column_config.NumberColumn(
            "SCUMBLE",
            format="%.3f",
            width=tables.NUMBER_COLUMN_PX,
            help="Mean SCUMBLE of the instances carrying the label: high when it mostly "
            "appears beside labels of very different frequency.",
        ),
    },
)
n_tail_labels = int(label_table["tail"].sum())
found = (
    f"{len(shown_labels):,} of {ds.n_labels:,} labels contain the text you typed. "
    if search.strip()
    else f"All {ds.n_labels:,} labels, in column order. "
)
st.caption(
    found + counted(n_tail_labels, "is a tail label", plural="are tail labels") + " (on fewer than "
    f"{percent_text(threshold)} of all {ds.n_samples:,} instances). "
    "Co-occurring labels: how many other labels appear on at least one instance together with "
    "this one. IRLbl: how many times rarer than the most frequent label; SCUMBLE: the mean "
    "SCUMBLE of the instances that carry it. Click a column header to sort; the download has "
    "every label."
)

left, right = st.columns(2)
with left:
    export.csv_button(
        "Download the label table (CSV)",
        label_table,
        name=(ds.name, "labels"),
        key="data_labels_csv",
        help="One row per label: name, instances, frequency, tail flag, co-occurring labels, "
        "IRLbl, SCUMBLE.",
    )
with right:
    export.csv_button(
        "Download the summary (CSV)",
        summary_row,
        name=(ds.name, "summary"),
        key="data_summary_csv",
        help="One row: the numbers above. distinct_label_sets counts the different label "
        "sets; label_sets_on_one_instance_only counts those that occur on a single instance.",
    )

export.report_button("Data")
