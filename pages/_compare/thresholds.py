"""Compare's per-label thresholds: what tuning one threshold per label would give."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from mlviz.methods import METHODS
from mlviz.per_label import LOSS_RULE_DEFAULTS, loss_reasons
from mlviz.thresholds import PerLabelThreshold
from mlviz.wording import counted
from pages._app import fitting, source, tables
from pages._compare.context import Compare
from pages._compare.per_label import tail_rows as tail_rows_of
from pages._compare.runs import run_cross_validation, show_failures
from pages._compare.settings import make

INNER_FOLDS = 3  # PerLabelThreshold's inner folds: each outer fold fits 1 + 3 models


def threshold_fix(progress, **params) -> dict:
    """Out-of-fold per-label F1 of every method wrapped in PerLabelThreshold, same folds."""
    ds = source.loaded_dataset()
    result = run_cross_validation(
        ds,
        {
            m: PerLabelThreshold(make(ds, m, params), cv=INNER_FOLDS, random_state=0)
            for m in params["fix"]
        },
        params["scheduler"],
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


def show(page: Compare, outcome: dict) -> None:
    """The section, for a run whose loss reasons are known: which methods a per-label
    threshold could help, and, behind a button, what it gives."""
    if outcome["per_label"] is None or outcome["reasons"] is None:
        return
    run_params = outcome["params"]
    tail_rows = tail_rows_of(page, run_params["tail"])
    st.subheader("What a per-label threshold would give")
    # an uploaded model cannot be refitted with tuned thresholds: mlviz's methods only
    methods = [m for m in outcome["methods"] if m in METHODS]
    ranked = {
        m: np.flatnonzero(outcome["reasons"][m]["reason"].to_numpy() == "ranked but not predicted")
        for m in methods
    }
    fixable = [m for m in methods if len(np.intersect1d(ranked[m], tail_rows))]
    # tail labels whose scores are missing: whether a threshold would help them is unknown
    unscored_tail = {
        m: int((outcome["reasons"][m]["reason"].to_numpy()[tail_rows] == "no scores").sum())
        for m in methods
    }
    unscored_tail = {m: n for m, n in unscored_tail.items() if n}
    st.markdown(
        "Each method wrapped in a per-label threshold (mlviz.thresholds.PerLabelThreshold): one "
        f"F1-optimal threshold per label, tuned on {INNER_FOLDS} inner folds of each training "
        "part, then the same outer folds as above, so the gain is measured on instances neither "
        f"tuning nor training saw. Costs {INNER_FOLDS + 1}× the fits of the run above."
        + (
            " Not for the uploaded model (mlviz cannot refit it): tune its thresholds where it "
            "was trained."
            if outcome.get("external")
            else ""
        )
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
