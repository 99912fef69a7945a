"""Compare page: cross-validated metrics of every method on the loaded data set, per label too."""

from __future__ import annotations

import contextlib
import os

import numpy as np
import pandas as pd
import scipy.sparse as sp
import streamlit as st

from mlviz.evaluation import (
    aggregate,
    cross_validate,
    dask_backend,
    per_label_comparison,
    summarize,
)
from mlviz.figures import compare as figures
from mlviz.methods import COST_LABELS, METHODS
from mlviz.metrics import METRICS
from mlviz.preprocessing import has_missing, with_feature_steps
from pages._app import experiment, export, fitting, links, source, tables

DASK_SCHEDULER_VARIABLE = "MLVIZ_DASK_SCHEDULER"
# Cross-validating BR, PLST, ML-KNN and CLEMS on the delicious-shaped set (16,105 instances x
# 983 labels; benchmarks/bench_scale.py, compare_cv; CPU time, one BLAS thread, load 2-4) took
# 41 s with 5 folds, 30 s with 3 and 23 s with 2, per-label table included: per method and
# instance-label cell, a fixed part (predicting every instance once, the per-label table) and a
# part per fold (one fit on (k-1)/k of the data). The page estimates a run from these rates
# and, when the default 5 folds would exceed BUTTON_SECONDS, opens the folds slider at the most
# that fit.
SECONDS_PER_CELL = 0.17e-6
SECONDS_PER_CELL_AND_FOLD = 0.097e-6
# issue 14's budget for a button is 30 s; the margin covers the page's own work and the
# estimate's error (3 folds, estimated 29 s, took 33 s through AppTest at load 2)
BUTTON_SECONDS = 25

ds = source.current_dataset()
L = ds.n_labels
threshold = experiment.tail_threshold()
tail = threshold if threshold > 0 else None  # 0: no label is a tail label
scheduler = os.environ.get(DASK_SCHEDULER_VARIABLE, "").strip()
st.title("Compare methods")
st.markdown(
    "k-fold cross-validation of the chosen methods on the whole data set (the sidebar's split "
    "is not used here; its feature scaling is, fitted inside each fold): every metric as "
    "mean ± sd over folds, and, from the same folds, which labels each method gets right."
)
if scheduler:
    st.caption(
        f"Cross-validation runs on the Dask scheduler at `{scheduler}` ({DASK_SCHEDULER_VARIABLE})."
    )

c1, c2 = st.columns([3, 1])
methods = links.bound(
    c1.multiselect,
    "Methods",
    list(METHODS),
    default=["BR", "PLST", "ML-KNN", "CLEMS"],
    key="compare_methods",
    persist_state="session",
)


def runnable(chosen: list[str]) -> list[str]:
    """The chosen methods that run on this data set; the others are named in a warning.

    BR, PBR, PLST and CPLST hold an L x L basis of the label space and GroPLE an L x L label
    affinity (8 L^2 bytes each, 800 MB at 10,000 labels): above the registry's cap they are
    left out with a note, as the PLST page stops there.
    """
    left_out = [m for m in chosen if not METHODS[m].runs_on(L)]
    if left_out:
        cap = min(METHODS[m].max_labels for m in left_out)
        at_any_size = [n for n, m in METHODS.items() if m.max_labels is None]
        st.warning(
            f"{', '.join(left_out)} left out: each holds a {L:,} × {L:,} matrix of the label "
            f"space (a basis, or GroPLE's label affinity), too large for {ds.name}; they run "
            f"on data sets with up to {cap:,} labels. {', '.join(at_any_size[:-1])} and "
            f"{at_any_size[-1]} run at this size."
        )
    return [m for m in chosen if m not in left_out]


methods = runnable(methods)
max_folds = min(10, ds.n_samples)


def estimated_seconds(n_methods: int, folds: int) -> float:
    """Rough run time from the measured rates (BR, PLST, ML-KNN, CLEMS; CS, GroPLE are slower)."""
    cells = n_methods * ds.n_samples * L
    return cells * (SECONDS_PER_CELL + SECONDS_PER_CELL_AND_FOLD * folds)


default_folds = max(
    [f for f in range(2, 6) if estimated_seconds(max(1, len(methods)), f) <= BUTTON_SECONDS] or [2]
)
if max_folds > 2:
    n_splits = links.bound(
        c2.slider,
        "Folds",
        2,
        max_folds,
        min(default_folds, max_folds),
        key="compare_folds",
        persist_state="session",
    )
else:
    n_splits = 2
    c2.caption(f"2 folds (the data set has {ds.n_samples} instances).")
with st.expander("Method parameters"):
    p1, p2, p3, p4 = st.columns(4)
    with_m = [n for n, m in METHODS.items() if m.symbol == "M"]
    if L > 1:
        M = links.bound(
            p1.slider,
            f"M ({', '.join(with_m)})",
            1,
            L,
            min(L, max(1, L // 2)),
            key="compare_m",
            persist_state="session",
        )
    else:
        M = 1
        p1.caption(f"M = 1 ({', '.join(with_m)}): the data set has one label.")
    k = links.bound(p2.slider, "k (ML-KNN)", 1, 30, 10, key="compare_k", persist_state="session")
    cost = links.bound(
        p3.selectbox,
        "CLEMS cost",
        list(COST_LABELS),
        key="compare_cost",
        persist_state="session",
    )
    d = links.bound(
        p4.slider,
        "d (GroPLE)",
        1,
        200,
        M,
        key="compare_d",
        persist_state="session",
        help="Opens at the M of the other methods (≤ L).",
    )


def make(name: str, params: dict, dimension: int | None = None):
    """A fresh estimator for a method name, from the registry.

    ``params`` holds the page's M, k, cost and d; ``dimension`` overrides M (at most L) and
    GroPLE's d. GroPLE groups the labels into K = min(10, L) groups.
    """
    settings = {
        "M": params["M"] if dimension is None else min(dimension, L),
        "d": params["d"] if dimension is None else dimension,
        "k": params["k"],
        "cost": params["cost"],
        "K": min(10, L),
    }
    estimator = METHODS[name].make(**settings)
    # the sidebar's imputation and scaling, fitted inside each fold on its training part
    return with_feature_steps(
        estimator, params["scaling"], sparse=sp.issparse(ds.X), impute=params["impute"]
    )


def backend():
    """The Dask backend when MLVIZ_DASK_SCHEDULER names a scheduler, else joblib's default."""
    return dask_backend(scheduler) if scheduler else contextlib.nullcontext()


def run_cross_validation(estimators: dict, **options):
    try:
        with backend():
            return cross_validate(
                estimators, ds.X, ds.Y, on_error="collect", random_state=0, **options
            )
    except (OSError, ImportError) as err:  # no Dask, or no scheduler at that address
        raise ValueError(
            f"could not use the Dask scheduler {scheduler!r} named by "
            f"{DASK_SCHEDULER_VARIABLE}: {err}"
        ) from err


def show_failures(failures: pd.DataFrame, n_folds: int, where: str = "") -> None:
    """One message per failed method: st.error if it failed in every fold, else st.warning."""
    for method, part in failures.groupby("method", sort=False):
        folds = ", ".join(str(f + 1) for f in part["fold"])
        errors = "; ".join(
            dict.fromkeys(
                f"during {s}: {e}" for s, e in zip(part["stage"], part["error"], strict=True)
            )
        )
        if len(part) == n_folds:
            st.error(
                f"**{method}** failed in every fold{where} ({folds}) {errors}. "
                "The other methods' results are shown."
            )
        else:
            st.warning(
                f"**{method}** failed in fold(s) {folds} of {n_folds}{where} {errors}. "
                "Its means are over the other folds only and it has no per-label view."
            )


def show_sweep_failures(failures: pd.DataFrame, n_folds: int, n_dims: int) -> None:
    """One message per failed method over the whole sweep, naming the dimensions and folds.

    A method failing the same way at every dimension used to give one near-identical message
    per dimension (three copies at the default sweep).
    """
    for method, part in failures.groupby("method", sort=False):
        where = "; ".join(
            f"dimension {dim}: fold(s) {', '.join(str(f + 1) for f in rows['fold'])}"
            for dim, rows in part.groupby("dimension")
        )
        errors = "; ".join(
            dict.fromkeys(
                f"during {s}: {e}" for s, e in zip(part["stage"], part["error"], strict=True)
            )
        )
        if len(part) == n_folds * n_dims:
            st.error(
                f"**{method}** failed at every dimension of the sweep in every fold {errors}. "
                "The other methods' curves are shown."
            )
        else:
            st.warning(
                f"**{method}** failed in part of the sweep ({where}; {n_folds} folds each) "
                f"{errors}. Its points are means over the other folds only."
            )


params = {
    "scaling": experiment.feature_scaling(),
    "impute": has_missing(ds.X),
    "methods": tuple(methods),
    "folds": n_splits,
    "M": M,
    "k": k,
    "cost": cost,
    "d": d,
    "tail": tail,
    "scheduler": scheduler,
}
if methods and estimated_seconds(len(methods), n_splits) > 10:
    five = f"; 5 folds ~{estimated_seconds(len(methods), 5):.0f} s" if n_splits != 5 else ""
    st.caption(
        f"Rough estimate at this size ({ds.n_samples:,} instances × {L:,} labels): "
        f"~{estimated_seconds(len(methods), n_splits):.0f} s for {len(methods)} method(s) × "
        f"{n_splits} folds{five} (rates measured for BR, PLST, ML-KNN and CLEMS on a 2-core "
        "machine; CS and GroPLE are slower)."
        + (
            f" The folds slider opened at {default_folds}, the most estimated to finish within "
            f"~{BUTTON_SECONDS} s."
            if default_folds < 5
            else ""
        )
    )


def cross_validation(progress, **params) -> dict:
    result = run_cross_validation(
        {m: make(m, params) for m in params["methods"]},
        cv=params["folds"],
        progress=lambda done, total, message: progress(
            done, total, f"{done}/{total} fits — {message}"
        ),
        tail_threshold=params["tail"],
        return_predictions="labels",  # the per-label view shows F1 and recall, not AUC
    )
    per_label = None
    if result.predictions:
        per_label = per_label_comparison(
            result.predictions, ds.Y, label_names=ds.label_names, tail_threshold=params["tail"]
        )
    # the out-of-fold predictions themselves are not kept: n × L per method
    return {
        "params": params,
        "results": result.results,
        "failures": result.failures,
        "per_label": per_label,
        "methods": list(result.predictions),
    }


if not methods:
    st.info("Choose at least one method to run the cross-validation.")
    st.stop()
# the whole data set in folds, not the sidebar's split
outcome = fitting.compute(
    cross_validation,
    params,
    on="button",
    key="compare",
    label="Run cross-validation",
    progress=True,
    uses_split=False,
    label_names=ds.label_names,  # every method fits all label columns
    first_fit_automatic=False,
)
if outcome is None:
    st.stop()
run_params = outcome["params"]

results, failures = outcome["results"], outcome["failures"]
show_failures(failures, run_params["folds"])
if results.empty:
    st.stop()

table = summarize(results)
table.columns = [
    f"{METRICS[c].label} {METRICS[c].arrow}" if c in METRICS else c for c in table.columns
]
# metrics as rows, methods as columns: a dozen metrics side by side would not fit the page
tables.fitted_table(table.T.rename_axis("metric"), text_width=95)
run_tail = run_params["tail"]
tail_caption = (
    f" Tail / head macro F1: macro F1 over the labels carried by fewer / at least "
    f"{run_tail:.1%} of each fold's training instances (the sidebar's tail threshold); tail "
    "recall: the share of tail-label occurrences found. — : undefined in every fold (no label "
    "on that side of the threshold)."
    if run_tail is not None
    else " Tail threshold 0: no label counts as a tail label, so there are no tail columns."
)
st.caption(
    "Mean ± standard deviation over folds; ↑ higher is better, ↓ lower is better." + tail_caption
)
export.chart(figures.metric_bars(aggregate(results)), key="compare_bars")
st.download_button(
    "Download fold results (CSV)",
    results.to_csv(index=False),
    file_name=f"{ds.name}_cv_results.csv",
    mime="text/csv",
)

st.subheader("Per label: which labels does each method lose?")
per_label = outcome["per_label"]
if per_label is None:
    st.info("No method ran in every fold, so there are no out-of-fold predictions per label.")
else:
    shown_methods = outcome["methods"]
    metric = links.bound(
        st.radio,
        "Score",
        ["F1", "recall"],
        horizontal=True,
        key="compare_label_metric",
        persist_state="session",
    )
    export.chart(
        figures.per_label_figure(per_label, shown_methods, metric=metric, tail_threshold=run_tail),
        key="compare_per_label",
    )
    st.caption(
        f"Out-of-fold {metric} of every label over the whole data set: each instance is "
        f"predicted by the model of the fold that did not train on it ({run_params['folds']} "
        "folds, the run above). Labels are sorted by frequency, rarest at the top; the shaded "
        "rows are tail labels. Methods that compress the label space to a few directions tend "
        "to lose the rare labels first."
    )
    other = {"F1": "recall", "recall": "F1"}[metric]  # the table follows the chosen score
    tables.fitted_table(
        per_label,
        column_order=[c for c in per_label.columns if not str(c).startswith(f"{other} ")],
        hide_index=True,
        column_config={
            "frequency": st.column_config.NumberColumn(
                format="percent", width=tables.NUMBER_COLUMN_PX
            ),
            "label": st.column_config.TextColumn(width=120),
            f"best {metric}": st.column_config.TextColumn(width=120),
        },
    )
    st.caption(
        f"The {metric} columns (the download has both scores). "
        "Click a column header to sort. F1 and recall are 0 for a label that is never "
        "predicted or never present (zero_division = 0)."
    )
    st.download_button(
        "Download per-label table (CSV)",
        per_label.to_csv(index=False),
        file_name=f"{ds.name}_per_label.csv",
        mime="text/csv",
    )

st.subheader("A metric against the embedding dimension")
s1, s2 = st.columns([3, 1])
sweep_methods = links.bound(
    s1.multiselect,
    "Methods",
    [name for name, method in METHODS.items() if method.in_dimension_sweep],
    default=["PLST", "CLEMS"],
    key="compare_sweep_methods",
    persist_state="session",
)
sweep_metric = links.bound(
    s2.selectbox,
    "Metric",
    ["example_f1", "accuracy", "micro_f1", "macro_f1", "hamming_loss"],
    format_func=lambda m: f"{METRICS[m].label} {METRICS[m].arrow}",
    key="compare_sweep_metric",
    persist_state="session",
)
SWEEP_FOLDS = min(3, ds.n_samples)  # a curve needs many fits: three folds per point
dims = np.unique(np.round(np.linspace(1, L, num=min(L, 6))).astype(int))


def dimension_sweep(progress, **params) -> tuple[pd.DataFrame, pd.DataFrame]:
    parts, failed = [], []
    for i, dim in enumerate(params["dims"]):
        progress(i, len(params["dims"]), f"dimension {dim}")
        result = run_cross_validation(
            {m: make(m, params, int(dim)) for m in params["sweep"]},
            cv=SWEEP_FOLDS,
            metrics=[params["metric"]],
        )
        parts.append(result.results.assign(dimension=int(dim)))
        failed.append(result.failures.assign(dimension=int(dim)))
    return pd.concat(parts, ignore_index=True), pd.concat(failed, ignore_index=True)


sweep = None
sweep_methods = runnable(sweep_methods)
if sweep_methods:
    sweep = fitting.compute(
        dimension_sweep,
        {
            **params,
            "sweep": tuple(sweep_methods),
            "metric": sweep_metric,
            "dims": tuple(dims.tolist()),
        },
        on="button",
        key="compare_sweep",
        label="Run the dimension sweep",
        progress=True,
        uses_split=False,
        first_fit_automatic=False,
    )
if sweep is not None:
    curves, sweep_failures = sweep
    show_sweep_failures(sweep_failures, SWEEP_FOLDS, len(dims))
    if not curves.empty:
        shown = curves["metric"].iloc[0]
        gro_d = "GroPLE" in set(curves["method"]) and d != M
        export.chart(
            figures.metric_vs_param_figure(
                curves, "dimension", shown, current=M, current_name="M" if gro_d else "M/d"
            ),
            key="compare_sweep_chart",
        )
        if gro_d:
            st.caption(
                f"The marker shows the M = {M} of the table above; GroPLE there uses d = {d}."
            )
        st.caption(
            f"{SWEEP_FOLDS}-fold cross-validated mean ± sd against the embedding dimension (M, "
            "or d for GroPLE), in the style of the GroPLE paper's Fig. 5: where does adding "
            "dimensions stop helping?"
        )

export.report_button("Compare")
