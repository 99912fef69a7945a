"""Compare page: cross-validated metrics of every method on the loaded data set, per label too."""

from __future__ import annotations

import contextlib
import os

import numpy as np
import pandas as pd
import scipy.sparse as sp
import streamlit as st

from mlviz.evaluation import (
    OutOfFoldPredictions,
    aggregate,
    cross_validate,
    dask_backend,
    per_label_comparison,
    summarize,
)
from mlviz.figures import compare as figures
from mlviz.methods import COST_LABELS, METHODS, PAPER_D
from mlviz.metrics import AT_K_METRICS, METRICS
from mlviz.per_label import (
    LOSS_RULE_DEFAULTS,
    clems_unrepresented_share,
    loss_reasons,
    plst_unrepresented_share,
    reason_counts,
    unrepresented_share,
)
from mlviz.preprocessing import has_missing, with_feature_steps
from mlviz.stats import (
    is_tail,
    label_frequencies,
)
from mlviz.thresholds import (
    PerLabelThreshold,
)
from mlviz.wording import counted, percent_text
from pages._app import (
    budget,
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

DASK_SCHEDULER_VARIABLE = "MLVIZ_DASK_SCHEDULER"
# The page estimates a run before it starts from each method's measured seconds per
# instance-label cell of a two-fold run, every step included (the registry's
# cv_seconds_per_cell, benchmarks/bench_compare_estimate.py), scaled to k folds by the shape
# measured earlier on the same set: a fixed part (predicting every instance once, the
# per-label table) and a part per fold (one fit on (k-1)/k of the data), 0.17 + 0.097 k.
# (Issue 31: one rate for every method said ~23 s for a run of 106 s, CLEMS alone 90 s.)
FIXED_SHARE, PER_FOLD_SHARE = 0.17, 0.097
# issue 14's budget for a button is 30 s; the margin covers the page's own work and the
# estimate's error (3 folds, estimated 29 s, took 33 s through AppTest at load 2)
BUTTON_SECONDS = 25

ds = source.current_dataset()
L = ds.n_labels
threshold = experiment.tail_threshold()
tail = threshold if threshold > 0 else None  # 0: no label is a tail label
scheduler = os.environ.get(DASK_SCHEDULER_VARIABLE, "").strip()
st.title("Compare methods")
presentation.intro(
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
            "space (a basis, or GroPLE's label affinity), too large for "
            f"{plain.markdown(ds.name)}; they run "
            f"on data sets with up to {cap:,} labels. {', '.join(at_any_size[:-1])} and "
            f"{at_any_size[-1]} run at this size."
        )
    return [m for m in chosen if m not in left_out]


methods = runnable(methods)
max_folds = min(10, ds.n_samples)


MEASURED = [m for m in METHODS.values() if m.cv_seconds_per_cell is not None]


def estimated_seconds(chosen: list[str], folds: int) -> float:
    """Rough run time of ``chosen`` at ``folds`` from each method's measured rate; a method
    without one counts as the slowest measured (its own time is unknown: the caption says)."""
    slowest = max(m.cv_seconds_per_cell for m in MEASURED)
    rate = sum(METHODS[m].cv_seconds_per_cell or slowest for m in chosen)
    scale = (FIXED_SHARE + PER_FOLD_SHARE * folds) / (FIXED_SHARE + PER_FOLD_SHARE * 2)
    return ds.n_samples * L * rate * scale


default_folds = max(
    [f for f in range(2, 6) if estimated_seconds(methods or ["BR"], f) <= BUTTON_SECONDS] or [2]
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
# Every method opens at the registry's settings (mlviz.methods.Method.default_settings), as
# its page and the Lesson do: M and d about half the labels, ML-KNN's k and s, CLEMS's cost,
# GroPLE's preset; GroPLE groups the labels by the app's grouping (K and affinity, the GroPLE
# page's and the Lesson's). A method with several presets gets a menu; a preset that fixes a
# setting (CLEMS's picture: M = 2, GroPLE's paper: d = 100) wins over the shared slider.
with_m = [n for n, m in METHODS.items() if m.symbol == "M"]
OPENING = {name: method.default_settings(L, ds.n_samples) for name, method in METHODS.items()}
assert len({OPENING[n]["M"] for n in with_m}) == 1  # one M rule for every M-method
with st.expander("Method parameters"):
    p1, p2, p3, p4 = st.columns(4)
    if L > 1:
        M = links.bound(
            p1.slider,
            f"M ({', '.join(with_m)})",
            1,
            L,
            OPENING[with_m[0]]["M"],
            key="compare_m",
            persist_state="session",
            help="Opens at about half the labels (the registry's M, as on the method pages).",
        )
    else:
        M = 1
        p1.caption(f"M = 1 ({', '.join(with_m)}): the data set has one label.")
    k = links.bound(
        p2.slider,
        "k (ML-KNN)",
        1,
        30,
        min(OPENING["ML-KNN"]["k"], 30),
        key="compare_k",
        persist_state="session",
    )
    cost = links.bound(
        p3.selectbox,
        "CLEMS cost",
        list(COST_LABELS),
        index=list(COST_LABELS).index(OPENING["CLEMS"]["cost"]),
        key="compare_cost",
        persist_state="session",
    )
    d = links.bound(
        p4.slider,
        "d (GroPLE)",
        1,
        max(200, L),
        OPENING["GroPLE"]["d"],
        key="compare_d",
        persist_state="session",
        help="Opens at the registry's d, as the GroPLE page and the Lesson do: about half the "
        f"labels, at most the paper's {PAPER_D}.",
    )
    with_presets = [n for n, m in METHODS.items() if len(m.presets) > 1]
    preset_columns = st.columns(len(with_presets))
    presets = {
        name: links.bound(
            slot.selectbox,
            f"{name} preset",
            list(METHODS[name].presets),
            key=f"compare_preset_{name.lower().replace('-', '')}",
            persist_state="session",
            help="; ".join(f"{p.name}: {p.why}" for p in METHODS[name].presets.values()) + ".",
        )
        for name, slot in zip(with_presets, preset_columns, strict=True)
    }


def grople_grouping() -> tuple[int, str]:
    """GroPLE's K and affinity: the app's label grouping (one group below 3 labels)."""
    shared = grouping.settings()
    if shared is None:
        return 1, "heat"
    affinity, n_groups = shared
    return int(n_groups), affinity


def settings_of(name: str, params: dict, dimension: int | None = None) -> dict:
    """The settings Compare fits ``name`` with: the registry's at the chosen preset, the page's
    shared M, d, k and cost where the preset does not fix them, and ``dimension`` (the sweep)
    over M (at most L) and d."""
    method = METHODS[name]
    preset = dict(params["presets"]).get(name, method.default_preset)
    settings = method.default_settings(L, ds.n_samples, preset=preset, n_groups=params["K"])
    shared = {
        "M": params["M"],
        "d": params["d"],
        "k": params["k"],
        "cost": params["cost"],
        "affinity": params["affinity"],
    }
    fixed = method.presets[preset].fixed(L)
    settings.update({key: v for key, v in shared.items() if key in settings and key not in fixed})
    if dimension is not None:
        settings.update({key: v for key, v in (("M", min(dimension, L)), ("d", dimension))})
    return {key: v for key, v in settings.items() if key in method.settings}


def make(name: str, params: dict, dimension: int | None = None):
    """A fresh estimator for a method name, from the registry, at :func:`settings_of`."""
    estimator = METHODS[name].make(**settings_of(name, params, dimension))
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


# the app's grouping is fitted only when GroPLE runs (a spectrum of the labels)
n_groups, affinity = grople_grouping() if "GroPLE" in methods else (None, "heat")
params = {
    "scaling": experiment.feature_scaling(),
    "impute": has_missing(ds.X),
    "methods": tuple(methods),
    "folds": n_splits,
    "M": M,
    "k": k,
    "cost": cost,
    "d": d,
    "K": n_groups,
    "affinity": affinity,
    "presets": tuple(presets.items()),
    "tail": tail,
    "tail_rule": experiment.tail_rule_text(),
    "scheduler": scheduler,
}
#: Session key: what Compare fits each chosen method with ({method: settings}), as the
#: caption below states it (tests compare it with the method pages and the Lesson).
SETTINGS_KEY = "_compare_settings"
st.session_state[SETTINGS_KEY] = {name: settings_of(name, params) for name in methods}
if methods:
    st.caption(
        "Settings: "
        + "; ".join(
            METHODS[name].describe(settings, presets.get(name))
            for name, settings in st.session_state[SETTINGS_KEY].items()
        )
        + "."
    )
if methods and estimated_seconds(methods, n_splits) > 10:
    five = f"; 5 folds ~{estimated_seconds(methods, 5):.0f} s" if n_splits != 5 else ""
    unmeasured = [m for m in methods if METHODS[m].cv_seconds_per_cell is None]
    st.caption(
        f"Rough estimate at this size ({ds.n_samples:,} instances × {L:,} labels): "
        f"~{estimated_seconds(methods, n_splits):.0f} s for {len(methods)} method(s) × "
        f"{n_splits} folds{five} (each method's rate measured at its default settings on a "
        "delicious-shaped set, 2 cores"
        + (
            f"; {', '.join(unmeasured)} not measured, counted as the slowest measured"
            if unmeasured
            else ""
        )
        + ")."
        + (
            f" The folds slider opened at {default_folds}, the most estimated to finish within "
            f"~{BUTTON_SECONDS} s."
            if default_folds < 5
            else ""
        )
    )


def representation(name: str, params: dict, refit: bool):
    """The method's unrepresented share of each label (mlviz.per_label), on all rows: what
    its label space can express, not a prediction.

    PLST and CLEMS from the labels alone (their basis / candidate sets depend on Y only);
    CPLST and GroPLE need a fit on all rows, done only when ``refit`` (the run is within the
    scores budget; at larger sizes it would add a fit as long as a fold's), else None and the
    caption says so. None also for methods that represent every label (BR, PBR, ML-KNN, CS).
    """
    estimator = make(name, params)
    if name == "PLST":
        return plst_unrepresented_share(ds.Y, min(params["M"], L))
    if name == "CLEMS":
        model = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
        return clems_unrepresented_share(ds.Y, model.max_candidates)
    if METHODS[name].representation == "fitted" and refit:
        return unrepresented_share(estimator.fit(ds.X, ds.Y), ds.Y)
    return None


def cross_validation(progress, **params) -> dict:
    names = list(params["methods"])
    folds = params["folds"]
    keep_scores = ds.n_samples * L <= budget.OOF_SCORES_CELLS
    refit = len(names) * ds.n_samples * L <= budget.REFIT_CELLS
    total = len(names) * folds
    parts, failed, unscored = [], [], {}
    predictions: dict[str, OutOfFoldPredictions] = {}
    reasons: dict[str, pd.DataFrame] = {}
    # one method at a time: its scores live only until its reasons are computed (see
    # budget.OOF_SCORES_CELLS); the folds are the same for every method (cv=int, seed 0)
    for position, name in enumerate(names):
        offset = position * folds
        result = run_cross_validation(
            {name: make(name, params)},
            cv=folds,
            progress=lambda done, _total, message, offset=offset: progress(
                offset + done, total, f"{offset + done}/{total} fits — {message}"
            ),
            tail_threshold=params["tail"],
            # scores for the reasons' AUC and best threshold; labels only above the budget
            return_predictions=True if keep_scores else "labels",
        )
        parts.append(result.results)
        failed.append(result.failures)
        unscored.update(result.unscored)
        for method, oof in result.predictions.items():
            reasons[method] = loss_reasons(
                ds.Y,
                oof.Y_pred,
                Y_score=oof.Y_score,
                unrepresented=representation(method, params, refit=refit),
                label_names=ds.label_names,
            )
            predictions[method] = OutOfFoldPredictions(Y_pred=oof.Y_pred, Y_score=None)
        del result  # the scores: n × L float64
    results = pd.concat(parts, ignore_index=True)
    failures = pd.concat(failed, ignore_index=True)
    per_label = None
    if predictions:
        progress(total, total, "why each label is lost")
        per_label = per_label_comparison(
            predictions,
            ds.Y,
            label_names=ds.label_names,
            tail_threshold=params["tail"],
            reasons=reasons,
        )
    # the out-of-fold predictions themselves are not kept: n × L per method
    return {
        "params": params,
        "results": results,
        "failures": failures,
        "unscored": unscored,
        "per_label": per_label,
        "reasons": reasons or None,
        "scores_kept": keep_scores,
        "refitted": refit,
        "methods": list(predictions),
        # out-of-fold F1 per label at the method's threshold (zero_division 0), from counts
        "oof_f1": {method: table["f1"].to_numpy() for method, table in (reasons or {}).items()},
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
for reason in outcome.get("unscored", {}).values():
    st.warning(reason)
if results.empty:
    st.stop()

table = summarize(results)
table.columns = [
    f"{METRICS[c].label} {METRICS[c].arrow}" if c in METRICS else c for c in table.columns
]
run_tail = run_params["tail"]
n_tail_all = (
    int(is_tail(label_frequencies(ds.Y, relative=True), run_tail).sum())
    if run_tail is not None
    else 0
)
tail_caption = (
    f" Tail / head macro F1: macro F1 over the tail labels and the others, the tail being the "
    f"labels carried by fewer than {percent_text(run_tail)} of each fold's training instances "
    f"({run_params['tail_rule']}; {n_tail_all} of {L} labels on all rows); tail recall: the "
    "share of tail-label occurrences found. — : undefined in every fold (no label on that side "
    "of the cut-off)."
    if run_tail is not None
    else " Tail threshold 0: no label counts as a tail label, so there are no tail columns."
)
at_k = [METRICS[m].label for m in AT_K_METRICS]
# while presenting the table folds away, so that the chart starts on the first screen
with st.expander("Every metric (table)") if presentation.is_on() else st.container():
    # metrics as rows, methods as columns: a dozen metrics side by side would not fit the page
    tables.fitted_table(table.T.rename_axis("metric"), text_width=95)
    st.caption(
        "Mean ± standard deviation over folds; ↑ higher is better, ↓ lower is better."
        + tail_caption
        + f" {', '.join(at_k)}: precision and nDCG of each instance's top-scored labels and "
        "their propensity-scored versions (Jain, Prabhu & Varma, KDD 2016), which weigh a hit "
        "on a label by its inverse propensity 1 + C (N_l + 1.5)^-0.55 estimated on each fold's "
        "training labels, so finding rare labels counts more; PSP and PSnDCG are divided by the "
        "best achievable value (1 = every instance's rarest relevant labels ranked first). Tied "
        "scores count in expectation over a random tie-break."
    )
export.chart(fitting.figure(figures.metric_bars, aggregate(results)), key="compare_bars")
export.csv_button("Download fold results (CSV)", results, name=(ds.name, "cv_results"))

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
        fitting.figure(
            figures.per_label_figure,
            per_label,
            shown_methods,
            metric=metric,
            tail_threshold=run_tail,
        ),
        key="compare_per_label",
    )
    reasons = outcome["reasons"]
    tail_rows = (
        np.flatnonzero(is_tail(label_frequencies(ds.Y, relative=True), run_tail))
        if run_tail is not None
        else np.arange(L)
    )
    what = f"{len(tail_rows)} tail labels" if run_tail is not None else f"{L} labels"
    if len(tail_rows):
        export.chart(
            fitting.figure(
                figures.loss_reasons_figure, reasons, tail_rows if run_tail is not None else None
            ),
            key="compare_loss_reasons",
        )
        by_reason = {m: reason_counts(reasons[m], tail_rows) for m in shown_methods}
        lines = "; ".join(
            f"{m}: " + ", ".join(f"{n} {reason}" for reason, n in counts.items())
            for m, counts in by_reason.items()
        )
        rule = LOSS_RULE_DEFAULTS
        unmeasured = (
            []
            if outcome.get("refitted", outcome.get("scores_kept", True))
            else [m for m in shown_methods if METHODS[m].representation == "fitted"]
        )
        st.caption(
            f"Why each of the {what} is lost, per method, from the out-of-fold predictions: "
            f"{lines}. Rules, in order: kept = out-of-fold F1 ≥ {rule['f1_kept']:g} at the "
            "method's own threshold; not represented = the method's label space leaves ≥ "
            f"{rule['unrepresented_min']:.0%} of the label out (PLST/CPLST: unrepresented share "
            "at M; CLEMS: in no kept candidate set; GroPLE: its V^k column is zero; on all "
            "rows"
            + (
                f", not measured for {' and '.join(unmeasured)} at this size (a refit on all rows)"
                if unmeasured
                else ""
            )
            + f"); ranked but not predicted = out-of-fold AUC ≥ {rule['auc_ranked']:g} and F1 ≥ "
            f"{rule['best_f1_min']:g} at the best out-of-fold threshold (the method's threshold "
            "never fires: a per-label threshold is the fix to try); too rare to judge = fewer "
            f"than {rule['min_support']:g} positives (the AUC is too noisy); not learnable = AUC "
            f"≤ {rule['auc_chance']:g} (near ½); weakly ranked = lost, none of these; no scores "
            "= lost, and the scores were not kept"
            + (
                f" (over {budget.OOF_SCORES_CELLS:,} out-of-fold score cells per method at "
                "this size)."
                if not outcome.get("scores_kept", True)
                else "."
            )
        )
    else:
        st.caption(f"No tail label ({run_params['tail_rule']}): no loss reasons to count.")
    st.caption(
        f"Out-of-fold {metric} of every label over the whole data set: each instance is "
        f"predicted by the model of the fold that did not train on it ({run_params['folds']} "
        "folds, the run above). Labels are sorted by frequency, rarest at the top; the shaded "
        "rows are tail labels. Methods that compress the label space to a few directions tend "
        "to lose the rare labels first."
    )
    other = {"F1": "recall", "recall": "F1"}[metric]  # the table follows the chosen score
    why = [c for c in per_label.columns if str(c).startswith("why lost ")]
    best = [c for c in per_label.columns if str(c).startswith("best ")]
    scored = [c for c in per_label.columns if str(c).startswith(f"{metric} ")]
    with_tail = "tail" in per_label.columns
    # two views of the one table (the download has all of it), each fitting the main area at
    # 1280 × 720: the scores, then why each label is lost; a row is a label in both, in the
    # same order (rarest first)
    # score columns are headed by the method alone ("F1 ML-KNN" was cut at a score's width);
    # the score is named in the caption, the tooltip and the CSV's column names
    tail_px, best_px, least_score_px = 50, 110, 60
    # the label column gets its longest name where the other columns leave room for it
    label_px = tables.label_width(
        per_label["label"],
        taken_px=2 * tables.NUMBER_COLUMN_PX
        + tail_px * with_tail
        + best_px * len(best)
        + least_score_px * len(scored),
    )

    def label_columns(width: int) -> dict:
        return {
            "label": st.column_config.TextColumn(width=width, help="label"),
            "tail": st.column_config.CheckboxColumn(
                width=tail_px, help="tail label (the tail rule of the run above)"
            ),
        }

    taken = label_px + 2 * tables.NUMBER_COLUMN_PX + tail_px * with_tail + best_px * len(best)
    score_px = tables.shared_width(len(scored), taken, least=least_score_px, most=80)
    tables.fitted_table(
        per_label,
        column_order=["label", "frequency", "support"] + ["tail"] * with_tail + scored + best,
        hide_index=True,
        column_config=label_columns(label_px)
        | {
            "frequency": st.column_config.NumberColumn(
                format="percent", width=tables.NUMBER_COLUMN_PX, help="frequency"
            ),
            **{
                c: st.column_config.NumberColumn(
                    c.removeprefix(f"{metric} "),
                    width=score_px,
                    format="%.4g",
                    help=f"out-of-fold {metric} of {c.removeprefix(f'{metric} ')}",
                )
                for c in scored
            },
            **{
                c: st.column_config.TextColumn(
                    width=best_px, help=f"{c}: the method(s) with the highest {c[5:]}"
                )
                for c in best
            },
        },
    )
    st.caption(
        f"Each method's column is its out-of-fold {metric} (the download has both scores, "
        f"as '{metric} <method>'). "
        "Click a column header to sort. F1 and recall are 0 for a label that is never "
        "predicted or never present (zero_division = 0)."
        + (
            f" The {best[0]} column names the method(s) with the highest out-of-fold "
            f"{best[0][5:]} (all tied: every method scores the same)."
            if best
            else ""
        )
    )
    if why:
        # a reason may wrap onto two lines (at spaces: "ranked but not / predicted"), a label
        # name cannot: the names get their width first, the reasons share what is left
        reasons_label_px = tables.label_width(
            per_label["label"], taken_px=tail_px * with_tail + tables.MIN_REASON_PX * len(why)
        )
        reason_px = tables.shared_width(
            len(why),
            reasons_label_px + tail_px * with_tail,
            least=tables.MIN_REASON_PX,
            most=185,
        )
        # LABEL_CHAR_PX over-estimates a character (~6.3 px at 14 px), so two characters
        # cover the cell's padding (8 px a side) with room to spare
        longest = max((len(str(v)) for c in why for v in per_label[c]), default=0)
        wraps = (longest + 2) * tables.LABEL_CHAR_PX > reason_px
        tables.fitted_table(
            per_label,
            column_order=["label"] + ["tail"] * with_tail + why,
            hide_index=True,
            column_config=label_columns(reasons_label_px)
            | {
                c: st.column_config.TextColumn(
                    width=reason_px, help=f"why {c[len('why lost ') :]} loses the label"
                )
                for c in why
            },
            row_height=tables.TWO_LINE_ROW_PX if wraps else None,
        )
        st.caption(
            "Why each method loses each label (kept: not lost), by the rules "
            + (
                "stated under the chart of the reasons above."
                if len(tail_rows)
                else "of mlviz.per_label.loss_reasons (no tail label here, so no chart of them)."
            )
        )
    export.csv_button("Download per-label table (CSV)", per_label, name=(ds.name, "per_label"))

INNER_FOLDS = 3  # PerLabelThreshold's inner folds: each outer fold fits 1 + 3 models


def threshold_fix(progress, **params) -> dict:
    """Out-of-fold per-label F1 of every method wrapped in PerLabelThreshold, same folds."""
    result = run_cross_validation(
        {
            m: PerLabelThreshold(make(m, params), cv=INNER_FOLDS, random_state=0)
            for m in params["fix"]
        },
        cv=params["folds"],
        metrics=["macro_f1"] + (["tail_macro_f1"] if params["tail"] is not None else []),
        progress=lambda done, total, message: progress(
            done, total, f"{done}/{total} fits — {message}"
        ),
        tail_threshold=params["tail"],
        return_predictions="labels",
    )
    return {
        "results": result.results,
        "failures": result.failures,
        "oof_f1": {
            m: loss_reasons(ds.Y, oof.Y_pred)["f1"].to_numpy()
            for m, oof in result.predictions.items()
        },
    }


if per_label is not None and outcome["reasons"] is not None:
    st.subheader("What a per-label threshold would give")
    ranked = {
        m: np.flatnonzero(outcome["reasons"][m]["reason"].to_numpy() == "ranked but not predicted")
        for m in outcome["methods"]
    }
    fixable = [m for m in outcome["methods"] if len(np.intersect1d(ranked[m], tail_rows))]
    # tail labels whose scores are missing: whether a threshold would help them is unknown
    unscored_tail = {
        m: int((outcome["reasons"][m]["reason"].to_numpy()[tail_rows] == "no scores").sum())
        for m in outcome["methods"]
    }
    unscored_tail = {m: n for m, n in unscored_tail.items() if n}
    st.markdown(
        "Each method wrapped in a per-label threshold (mlviz.thresholds.PerLabelThreshold): one "
        f"F1-optimal threshold per label, tuned on {INNER_FOLDS} inner folds of each training "
        "part, then the same outer folds as above, so the gain is measured on instances neither "
        f"tuning nor training saw. Costs {INNER_FOLDS + 1}× the fits of the run above."
    )
    if unscored_tail:
        st.warning(
            "No scores for "
            + "; ".join(f"{counted(n, 'tail label')} of {m}" for m, n in unscored_tail.items())
            + f" (of {counted(len(tail_rows), 'tail label')}): whether a per-label threshold "
            "would find them is unknown, so nothing is concluded about them."
        )
    if not fixable and not unscored_tail:
        st.caption(
            "No method has a tail label that is ranked but not predicted: a per-label threshold "
            "is not the fix for this data set's tail."
        )
    elif not fixable:
        st.caption(
            "No tail label with scores is ranked but not predicted; the tail labels without "
            "scores (above) are not judged."
        )
    else:
        fix = fitting.compute(
            threshold_fix,
            {**run_params, "fix": tuple(fixable)},
            on="button",
            key="compare_threshold_fix",
            label="Try per-label thresholds",
            progress=True,
            uses_split=False,
            first_fit_automatic=False,
        )
        if fix is not None:
            show_failures(fix["failures"], run_params["folds"], where=" with tuned thresholds")
            rows = []
            kept = LOSS_RULE_DEFAULTS["f1_kept"]
            for m, tuned in fix["oof_f1"].items():
                before = outcome["oof_f1"][m]
                targets = np.intersect1d(ranked[m], tail_rows)
                rows.append(
                    {
                        "method": m,
                        "tail labels ranked but not predicted": len(targets),
                        f"of them now F1 ≥ {kept:g}": int((tuned[targets] >= kept).sum()),
                        "their mean F1 before": float(before[targets].mean()),
                        "their mean F1 after": float(tuned[targets].mean()),
                        "macro F1 before": float(before.mean()),
                        "macro F1 after": float(tuned.mean()),
                    }
                )
            fixed = pd.DataFrame(rows)
            tables.fitted_table(fixed, hide_index=True)
            st.caption(
                "Out-of-fold F1 over the whole data set before (the method's own threshold) "
                "and after (thresholds tuned per label on inner folds): "
                + "; ".join(
                    f"{r['method']}: {r[f'of them now F1 ≥ {kept:g}']} of its "
                    f"{r['tail labels ranked but not predicted']} ranked-but-not-predicted tail "
                    f"labels reach F1 ≥ {kept:g}, macro F1 {r['macro F1 before']:.3f} → "
                    f"{r['macro F1 after']:.3f}"
                    for r in rows
                )
                + ". Tuned thresholds can also cost precision on the head labels: the macro F1 "
                "says whether the trade pays."
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
            **(
                dict(zip(("K", "affinity"), grople_grouping(), strict=True))
                if "GroPLE" in sweep_methods
                else {}
            ),
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
            fitting.figure(
                figures.metric_vs_param_figure,
                curves,
                "dimension",
                shown,
                current=M,
                current_name="M" if gro_d else "M/d",
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
