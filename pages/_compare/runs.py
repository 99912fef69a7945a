"""Compare's cross-validation: one method after another, and what failed where.

The functions :func:`pages._app.fitting.compute` caches (:func:`cross_validation`) read the data
set from the session (see the package docstring).
"""

from __future__ import annotations

import pandas as pd
import scipy.sparse as sp
import streamlit as st

from mlviz.evaluation import OutOfFoldPredictions, cross_validate, per_label_comparison
from mlviz.io import Dataset
from mlviz.methods import METHODS
from mlviz.metrics import label_contributions
from mlviz.per_label import (
    clems_unrepresented_share,
    loss_reasons,
    plst_unrepresented_share,
    unrepresented_share,
)
from pages._app import budget, source
from pages._compare.bins import BIN_KS, BIN_METRICS
from pages._compare.settings import backend, make, scheduler_error


def run_cross_validation(ds: Dataset, estimators: dict, scheduler: str, **options):
    """:func:`mlviz.evaluation.cross_validate` on the whole data set, failures collected,
    seeded folds (``random_state=0``), on the Dask scheduler when one is named."""
    try:
        with backend(scheduler):
            return cross_validate(
                estimators, ds.X, ds.Y, on_error="collect", random_state=0, **options
            )
    except (OSError, ImportError) as err:  # no Dask, or no scheduler at that address
        raise scheduler_error(scheduler, err) from err


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
                f"**{method}** failed in fold{'s' if len(part) > 1 else ''} {folds} of "
                f"{n_folds}{where} {errors}. "
                "Its means are over the other folds only and it has no per-label view."
            )


def show_sweep_failures(failures: pd.DataFrame, n_folds: int, n_dims: int) -> None:
    """One message per failed method over the whole sweep, naming the dimensions and folds.

    A method failing the same way at every dimension used to give one near-identical message
    per dimension (three copies at the default sweep).
    """
    for method, part in failures.groupby("method", sort=False):
        where = "; ".join(
            f"dimension {dim}: fold{'s' if len(rows) > 1 else ''} "
            f"{', '.join(str(f + 1) for f in rows['fold'])}"
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


def representation(ds: Dataset, name: str, params: dict, refit: bool):
    """The method's unrepresented share of each label (mlviz.per_label), on all rows: what
    its label space can express, not a prediction.

    PLST and CLEMS from the labels alone (their basis / candidate sets depend on Y only);
    CPLST and GroPLE need a fit on all rows, done only when ``refit`` (the run is within the
    scores budget; at larger sizes it would add a fit as long as a fold's), else None and the
    caption says so. None also for methods that represent every label (BR, PBR, ML-KNN, CS).
    """
    estimator = make(ds, name, params)
    if name == "PLST":
        return plst_unrepresented_share(ds.Y, min(params["M"], ds.n_labels))
    if name == "CLEMS":
        model = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
        return clems_unrepresented_share(ds.Y, model.max_candidates)
    if METHODS[name].representation == "fitted" and refit:
        return unrepresented_share(estimator.fit(ds.X, ds.Y), ds.Y)
    return None


def cross_validation(progress, **params) -> dict:
    """The page's run: every chosen method's fold metrics, its out-of-fold predictions' per-label
    table and why it loses each label (cached by :func:`pages._app.fitting.compute`)."""
    ds = source.loaded_dataset()
    L = ds.n_labels
    names = list(params["methods"])
    folds = params["folds"]
    keep_scores = ds.n_samples * L <= budget.OOF_SCORES_CELLS
    refit = len(names) * ds.n_samples * L <= budget.REFIT_CELLS
    total = len(names) * folds
    parts, failed, unscored = [], [], {}
    predictions: dict[str, OutOfFoldPredictions] = {}
    contributions: dict[str, pd.DataFrame] = {}
    reasons: dict[str, pd.DataFrame] = {}
    # one method at a time: its scores live only until its reasons are computed (see
    # budget.OOF_SCORES_CELLS); the folds are the same for every method (cv=int, seed 0)
    for position, name in enumerate(names):
        offset = position * folds
        result = run_cross_validation(
            ds,
            {name: make(ds, name, params)},
            params["scheduler"],
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
            if oof.Y_score is not None:  # every label's share of P@k, R@k, PSP@k (bins.py)
                contributions[method] = label_contributions(
                    ds.Y, oof.Y_score, Y_train=ds.Y, ks=BIN_KS, metrics=BIN_METRICS
                )
            reasons[method] = loss_reasons(
                ds.Y,
                oof.Y_pred,
                Y_score=oof.Y_score,
                unrepresented=representation(ds, method, params, refit=refit),
                label_names=ds.label_names,
            )
            # kept as a sparse 0/1 matrix (a few labels per row): an external model's upload
            # rebuilds the per-label table with it, without a new run
            predictions[method] = OutOfFoldPredictions(
                Y_pred=sp.csr_matrix(oof.Y_pred), Y_score=None
            )
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
    # the out-of-fold scores are not kept (n × L floats per method), the 0/1 predictions are
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
        "predictions": predictions,
        "contributions": contributions,
        # out-of-fold F1 per label at the method's threshold (zero_division 0), from counts
        "oof_f1": {method: table["f1"].to_numpy() for method, table in (reasons or {}).items()},
    }
