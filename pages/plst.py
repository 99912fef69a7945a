"""PLST page: the label spectrum, encoding error, loss against M, one decoded instance."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import streamlit as st

from mlviz.figures import linear as figures
from mlviz.figures import tail as tail_figures
from mlviz.figures._style import WIDE_TITLE_CHARS
from mlviz.methods import METHODS, SELECTIONS, VARIANTS
from mlviz.metrics import METRICS
from mlviz.per_label import plst_label_table, tail_summary
from mlviz.sweeps import parameter_sweep
from mlviz.wording import percent_text
from pages._app import (
    experiment,
    export,
    fitting,
    links,
    plain,
    presentation,
    source,
)

ds = source.current_dataset()
L = ds.n_labels
st.title("PLST and the linear label-space transformations")
presentation.intro(
    "PLST (Tai & Lin) encodes each label vector y as h = P(y − o) with the M leading principal "
    "directions P of the training labels, learns x → h by ridge regression, and decodes "
    "ỹ = o + Pᵀh, rounded at ½ (Algorithm 8, Eq. 2)."
)
# The model's encoding error uses a full L x L basis of the label space (all M at once):
# beyond the registry's cap the page says so instead of filling memory.
if not METHODS["PLST"].runs_on(L):
    experiment.explain_and_stop(
        f"This page works with a full {L:,} × {L:,} basis of the label space, too large to "
        "hold for "
        f"{plain.markdown(ds.name)}; it shows data sets with up to {METHODS['PLST'].max_labels:,} "
        "labels. The Data, Hypercube and ML-KNN pages work at this size."
    )
split = experiment.model_split(needs="PLST")

# opens at the registry's M (about half the labels), as Compare and the Lesson do
OPENING = METHODS["PLST"].default_settings(L, len(split.Y_train))
M = links.int_slider(
    "Embedding dimension M",
    1,
    L,
    OPENING["M"],
    key="plst_m",
    why_fixed="with a single label there is a single direction.",
)
st.caption(METHODS["PLST"].caption({**OPENING, "M": M}))
# One fit with all L directions; every M on the slider is its truncation (the basis does not
# depend on M and ridge is fitted output by output), so moving M never refits.
full_model = fitting.fit(
    METHODS["PLST"].make(M=L),
    label="PLST",
    spinner=f"Fitting PLST with all {L} directions (once per split)…",
)
if full_model is None:
    st.stop()
model = full_model.truncate(M)

if not np.any(full_model.singular_values_ > 0):
    st.info(
        "Every training instance has the same label set, so the training labels have no "
        "variance: there is no spectrum and no encoding error to show, and PLST predicts that "
        "label set for every instance."
    )
else:
    left, right = st.columns(2)
    with left:
        export.chart(
            fitting.figure(figures.spectrum_figure, full_model.singular_values_, current=M),
            key="plst_spectrum",
            wide=False,
        )
        st.caption(
            "Share of label variance along each principal direction of the training labels. "
            f"PLST with M = {M} (dashed line) keeps the first {M} bars, "
            f"{model.explained_variance_ratio_.sum():.0%} of the variance; a steep drop "
            "means a small M loses little."
        )
    with right:
        m_values = np.arange(L + 1)

        def encoding_errors_of(model) -> tuple[np.ndarray, np.ndarray]:
            return (
                model.encoding_error(split.Y_train).mean(axis=0),
                model.encoding_error(split.Y_test).mean(axis=0),
            )

        # all M at once, from the full basis; cached so that moving M does not recompute it
        encoding_errors = fitting.compute(
            encoding_errors_of,
            {"model": full_model},
            label="Encoding error",
            spinner="Encoding error for every M…",
        )
        if encoding_errors is not None:
            export.chart(
                fitting.figure(
                    figures.encoding_error_figure, *encoding_errors, m_values=m_values, current=M
                ),
                key="plst_encoding_error",
                wide=False,
            )
        st.caption(
            "Encoding error ‖(I − PᵀP)(y − o)‖² averaged over instances (paper Fig. 10): the "
            "part of y that M directions cannot express. On the training split it equals the "
            "sum of the squared singular values left out, divided by N; the test curve shows "
            "how well the directions generalise. By Theorem 1 it bounds the Hamming loss "
            "together with the regression error."
        )

threshold = experiment.tail_threshold()
label_table = None
if np.any(model.singular_values_ > 0):
    # cached per M and threshold: moving M back and forth redraws without predicting again
    def label_table_of(model, threshold: float):
        return plst_label_table(
            model, split.X_test, split.Y_test, split.Y_train, threshold, label_names=ds.label_names
        )

    label_table = fitting.compute(
        label_table_of,
        {"model": model, "threshold": threshold},
        label="Per-label encoding error",
        spinner="Per-label errors on the test split…",
    )
if label_table is not None:
    st.subheader(f"Tail labels: what M = {model.n_components_} directions cannot represent")
    export.chart(
        fitting.figure(
            tail_figures.plst_tail_figure, label_table, threshold, n_components=model.n_components_
        ),
        key="plst_tail",
    )
    tail = tail_summary(label_table)
    percent = percent_text(threshold)
    medians = {side: tail[f"{side}_unrepresented_median"] for side in ("tail", "head")}
    shares = " ".join(
        f"The median {side} label keeps {100 * value:.0f}% of its training variance "
        f"unrepresented at M = {model.n_components_}."
        for side, value in medians.items()
        if not np.isnan(value)
    )
    if tail["tail"]:
        st.caption(
            f"{tail['tail']} of {tail['labels']} labels are in the tail (in fewer than "
            f"{percent} of the {split.n_train:,} training instances; "
            f"{experiment.tail_rule_name()}, set in the "
            f"sidebar's Experiment settings). {shares} The principal directions follow the "
            "frequent labels; a label "
            "they miss is decoded near its training mean and rounded to 0. PLST never predicts "
            f"{tail['tail_never_predicted']} of the tail labels on the test split; of the "
            f"{tail['tail_with_test_positive']} with a positive test instance it finds at least "
            f"one for {tail['tail_found']}."
        )
    else:
        st.caption(
            f"No label is in the tail: every label is in at least {percent} of the training "
            f"instances ({experiment.tail_rule_name()}, set in the sidebar's Experiment settings)."
        )

st.subheader("Test loss against M")


def at_dimension(name: str, m: int):
    """A fresh estimator of a linear method at M = m (BR has all L labels: only at M = L)."""
    if name in VARIANTS:  # PLST-origin: PLST without centring, the reference point o = 0
        return VARIANTS[name].make(M=m)
    method = METHODS[name]
    if method.dimension is None:
        return method.make() if m == L else None
    return method.make(M=m)


# the registry's linear label-space transformations, their variants after their method (PLST's
# without centring after PLST), BR (no compression) last
LINEAR = [n for n, m in METHODS.items() if m.estimator.startswith("mlviz.linear.")]
SWEPT = []
for name in [n for n in LINEAR if METHODS[n].dimension is not None]:
    SWEPT += [name, *(v for v, variant in VARIANTS.items() if variant.method == name)]
SWEPT += [n for n in LINEAR if n not in SWEPT]
FACTORIES = {name: functools.partial(at_dimension, name) for name in SWEPT}
c1, c2, c3 = st.columns([3, 2, 1])
methods = links.bound(
    c1.multiselect,
    "Methods",
    list(FACTORIES),
    default=list(SELECTIONS["linear_sweep"]),
    key="plst_methods",
    persist_state="session",
    help="CS decodes each instance by a sparse reconstruction (CoSaMP, the paper's decoder): "
    "noticeably slower.",
)
metric = links.bound(
    c2.selectbox,
    "Metric",
    ["hamming_loss", "example_f1", "accuracy", "micro_f1", "macro_f1"],
    format_func=lambda m: f"{METRICS[m].label} {METRICS[m].arrow}",
    key="plst_metric",
    persist_state="session",
)
ideal = links.bound(
    c3.checkbox,
    "Ideal learner",
    value=True,
    key="plst_ideal",
    persist_state="session",
    help="Also decode the exact codes of the test labels: what is left is the "
    "encoding error alone (paper Fig. 2).",
)
grid = np.unique(np.round(np.geomspace(1, L, num=min(L, 12))).astype(int))


def loss_sweep(
    methods: tuple[str, ...], ideal: bool, grid: tuple[int, ...], progress
) -> pd.DataFrame:
    return parameter_sweep(
        {m: FACTORIES[m] for m in methods},
        np.asarray(grid),
        split.X_train,
        split.Y_train,
        split.X_test,
        split.Y_test,
        ideal=ideal,
        ranking=False,  # the metric menu holds bipartition metrics only
        progress=lambda done, total, message: progress(done, total, f"Fitting {message}"),
    )


def loss_vs_m(sweep: pd.DataFrame, metric: str, current: int):
    """The sweep's curves of one metric (built from the cached sweep, keyed by where it came
    from: the metric's rows taken on every rerun were hashed again for the figure's key)."""
    wide = sweep.query("metric == @metric").rename(columns={"value": metric})
    return figures.loss_vs_m_figure(
        wide, metric=metric, current=current, title_width=WIDE_TITLE_CHARS
    )


# The sweep fits each method once and predicts and scores every M (test rows x labels each):
# ~9 s of CPU on the delicious-shaped set (benchmarks/bench_scale.py, plst_sweep), too much to
# add to the first render, so on large sets it waits for a press.
SWEEP_AUTOMATIC_SIZE = 500_000
sweep_automatic = len(split.Y_test) * L <= SWEEP_AUTOMATIC_SIZE


if methods:
    sweep = fitting.compute(
        loss_sweep,
        {"methods": tuple(methods), "ideal": ideal, "grid": tuple(grid.tolist())},
        label="The sweep over M",
        key="plst-sweep",
        progress=True,
        label_names=ds.label_names,  # every method fits all label columns
        on="change" if sweep_automatic else "button",
        first_fit_automatic=False,
    )
    if not sweep_automatic and sweep is None:
        st.caption(
            f"With {len(split.Y_test):,} test instances × {L:,} labels the sweep fits each "
            f"method once and predicts and scores {len(grid)} values of M: seconds rather than "
            "a moment, so it runs when you press the button."
        )
    if sweep is not None and not sweep.empty:
        export.chart(
            fitting.figure(loss_vs_m, sweep, metric, M),  # drawn across the page
            key="plst_loss_vs_m",
        )
        st.caption(
            "Solid lines: learned regressors; dashed: the ideal learner that predicts the code "
            "exactly. The gap between them is the regression (prediction) error; the dashed "
            "line alone is the price of compressing to M dimensions. BR uses all L labels and "
            "appears at M = L."
        )


@st.fragment
def instance_view() -> None:
    """Reruns alone when the instance changes: the fitted model and sweep stay untouched."""
    st.subheader("One test instance, step by step")
    index = links.bound(
        st.number_input, "Test instance", 0, len(split.Y_test) - 1, 0, key="plst_instance"
    )
    x_row = split.X_test[index : index + 1]
    h = model.regressor_.predict(x_row).reshape(1, -1)[0]
    y_tilde = model.predict_decoded(x_row)[0]
    y_hat = model.predict(x_row)[0]
    y_true = split.Y_test[index]
    export.chart(
        fitting.figure(
            figures.decoding_figure,
            y_tilde,
            y_true,
            ds.label_names,
            h=h,
            title_width=WIDE_TITLE_CHARS,
        ),  # drawn across the page
        key="plst_decoding",
    )
    st.caption(
        "Left: the M regressor outputs h. Right: the decoded point ỹ = o + Pᵀh per label; labels "
        "above the ½ line are predicted. Markers show the truth: a bar on the wrong side of the "
        "line is a Hamming error."
    )
    st.dataframe(
        figures.decoding_steps_table(y_tilde, y_hat, y_true, ds.label_names), hide_index=True
    )


instance_view()

export.report_button("PLST")
