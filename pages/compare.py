"""Compare page: cross-validated metrics of every method on the loaded data set."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from mlviz import stats
from mlviz.clems import CLEMS
from mlviz.evaluation import aggregate, cross_validate, summarize
from mlviz.figures import compare as figures
from mlviz.grople import GroPLE
from mlviz.linear import CPLST, PBR, PLST, BinaryRelevance, CompressedSensing
from mlviz.metrics import METRICS, per_label_f1
from mlviz.mlknn import MLkNN
from pages import _shared as shared

ds = shared.current_dataset()
K = ds.n_labels
st.title("Compare methods")
st.markdown(
    "k-fold cross-validation of the chosen methods on the whole data set (the sidebar's split "
    "is not used here): every metric as mean ± sd over folds, and which labels each method "
    "gets right."
)

ALL = ["BR", "PLST", "PBR", "CPLST", "CS", "ML-KNN", "CLEMS", "GroPLE"]
c1, c2 = st.columns([3, 1])
methods = c1.multiselect("Methods", ALL, default=["BR", "PLST", "ML-KNN", "CLEMS"],
                         key="compare_methods", persist_state="session")
n_splits = c2.slider("Folds", 2, 10, 5, key="compare_folds", persist_state="session")
with st.expander("Method parameters"):
    p1, p2, p3, p4 = st.columns(4)
    M = p1.slider("M (PLST, PBR, CPLST, CS, CLEMS)", 1, K, min(K, max(1, K // 2)),
                  key="compare_m", persist_state="session")
    k = p2.slider("k (ML-KNN)", 1, 30, 10, key="compare_k", persist_state="session")
    cost = p3.selectbox("CLEMS cost", ["f1", "accuracy", "hamming", "rank_loss"],
                        key="compare_cost", persist_state="session")
    d = p4.slider("d (GroPLE)", 1, 200, 100, key="compare_d", persist_state="session")


def make(name: str, dimension: int | None = None):
    """A fresh estimator for a method name; ``dimension`` overrides M (or d for GroPLE)."""
    m = M if dimension is None else min(dimension, K)
    return {
        "BR": lambda: BinaryRelevance(),
        "PLST": lambda: PLST(n_components=m),
        "PBR": lambda: PBR(n_components=m),
        "CPLST": lambda: CPLST(n_components=m),
        "CS": lambda: CompressedSensing(n_components=m, random_state=0),
        "ML-KNN": lambda: MLkNN(k=k),
        "CLEMS": lambda: CLEMS(n_components=m, cost=cost, random_state=0),
        "GroPLE": lambda: GroPLE(n_components=d if dimension is None else dimension,
                                 n_groups=min(10, K)),
    }[name]()


params = {"methods": tuple(methods), "folds": n_splits, "M": M, "k": k, "cost": cost, "d": d}
run = st.button("Run cross-validation", key="compare_fit", type="primary",
                disabled=not methods)


def _cross_validate():
    bar = st.progress(0.0, text="Starting…")

    def progress(done, total, message):
        bar.progress(done / max(total, 1), text=f"{done}/{total} fits — {message}")

    result = cross_validate({m: make(m) for m in methods}, ds.X, ds.Y, cv=n_splits,
                            progress=progress)
    bar.empty()
    return result


if run:
    results = shared.run_or_error(
        "Cross-validation", lambda: shared.cached("compare-cv", params, _cross_validate),
        state_key="compare_results",
    )
    if results is not None:
        st.session_state["compare_for"] = (ds.digest, params)
results = st.session_state.get("compare_results")
if results is None or st.session_state.get("compare_for", ("",))[0] != ds.digest:
    st.info("Choose methods and press **Run cross-validation**.")
    st.stop()
if st.session_state["compare_for"][1] != params:
    st.caption("Showing the last run; press the button to run with the current settings.")

table = summarize(results)
table.columns = [f"{METRICS[c].label} {METRICS[c].arrow}" if c in METRICS else c
                 for c in table.columns]
st.dataframe(table)
st.caption("Mean ± standard deviation over folds; ↑ higher is better, ↓ lower is better.")
st.plotly_chart(figures.metric_bars(aggregate(results)), key="compare_bars")
st.download_button("Download fold results (CSV)", results.to_csv(index=False),
                   file_name=f"{ds.name}_cv_results.csv", mime="text/csv")

st.subheader("Tail labels: per-label F1 against label frequency")
split = shared.current_split()


def _per_label():
    return {m: per_label_f1(split.Y_test, make(m).fit(split.X_train, split.Y_train)
                            .predict(split.X_test))
            for m in st.session_state["compare_for"][1]["methods"]}


f1_by_method = shared.run_or_error(
    "Per-label F1",
    lambda: shared.cached("compare-per-label", st.session_state["compare_for"][1], _per_label),
    state_key="compare_per_label",
)
if f1_by_method is not None and all(len(v) == K for v in f1_by_method.values()):
    frequencies = stats.label_frequencies(split.Y_train, relative=True)
    st.plotly_chart(figures.per_label_f1_figure(frequencies, f1_by_method, ds.label_names,
                                                tail_threshold=0.05), key="compare_per_label")
    st.caption(
        "Each point is one label on the sidebar's train/test split: x its training frequency "
        "(log scale), y its test F1. Rare labels sit on the left; methods that compress the "
        "label space to a few directions tend to lose them first."
    )
    per_label = pd.DataFrame({"label": ds.label_names, "frequency": frequencies,
                              **{f"F1 {m}": v for m, v in f1_by_method.items()}})
    st.download_button("Download per-label table (CSV)", per_label.to_csv(index=False),
                       file_name=f"{ds.name}_per_label_f1.csv", mime="text/csv")

st.subheader("A metric against the embedding dimension")
s1, s2 = st.columns([3, 1])
sweep_methods = s1.multiselect("Methods", ["PLST", "CPLST", "CLEMS", "GroPLE"],
                               default=["PLST", "CLEMS"], key="compare_sweep_methods",
                               persist_state="session")
sweep_metric = s2.selectbox("Metric", ["example_f1", "accuracy", "micro_f1", "macro_f1",
                                       "hamming_loss"],
                            format_func=lambda m: f"{METRICS[m].label} {METRICS[m].arrow}",
                            key="compare_sweep_metric", persist_state="session")
SWEEP_FOLDS = 3  # a curve needs many fits: three folds per point keep it interactive
dims = np.unique(np.round(np.linspace(1, K, num=min(K, 6))).astype(int))


def _dimension_sweep():
    bar = st.progress(0.0, text="Starting…")
    parts = []
    for i, dim in enumerate(dims):
        part = cross_validate({m: make(m, int(dim)) for m in sweep_methods}, ds.X, ds.Y,
                              cv=SWEEP_FOLDS, metrics=[sweep_metric])
        parts.append(part.assign(dimension=int(dim)))
        bar.progress((i + 1) / len(dims), text=f"dimension {dim}")
    bar.empty()
    return pd.concat(parts, ignore_index=True)


if st.button("Run the dimension sweep", key="compare_sweep_fit", disabled=not sweep_methods):
    sweep = shared.run_or_error(
        "Dimension sweep",
        lambda: shared.cached("compare-sweep", {**params, "sweep": tuple(sweep_methods),
                                                "metric": sweep_metric}, _dimension_sweep),
        state_key="compare_sweep",
    )
    if sweep is not None:
        st.session_state["compare_sweep_for"] = ds.digest
sweep = st.session_state.get("compare_sweep")
if sweep is not None and st.session_state.get("compare_sweep_for") == ds.digest:
    shown = sweep["metric"].iloc[0]
    st.plotly_chart(figures.metric_vs_param_figure(sweep, "dimension", shown),
                    key="compare_sweep_chart")
    st.caption(
        f"{SWEEP_FOLDS}-fold cross-validated mean ± sd against the embedding dimension (M, or d "
        "for GroPLE), in the style of the GroPLE paper's Fig. 5: where does adding dimensions "
        "stop helping?"
    )
