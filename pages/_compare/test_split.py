"""An external model's scores for the sidebar split's test rows, beside the chosen methods.

Compare's other views are out of fold over every row; scores a model wrote for one split's
test rows cannot join them. Here every chosen method (at the run's settings) is fitted once
on the split's training rows and predicts its test rows, so all of them, the uploaded model
included, are judged on the same rows: the per-label chart, the loss reasons of the tail
labels and the contribution by frequency bin (bins from the training rows' counts).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from mlviz.evaluation import external_predictions, holdout_predictions, per_label_comparison
from mlviz.figures import compare as figures
from mlviz.figures.bins import frequency_bin_figure, frequency_bin_table
from mlviz.metrics import bin_by_frequency, label_contributions, precision_at_k
from mlviz.per_label import loss_reasons, reason_counts
from mlviz.stats import is_tail, label_frequencies
from pages._app import experiment, export, fitting, plain, source
from pages._compare.bins import BIN_KS, BIN_METRICS
from pages._compare.context import Compare
from pages._compare.external import External
from pages._compare.per_label import plain_list
from pages._compare.settings import make


def test_split_views(params: dict, name: str, threshold: float, scores: np.ndarray) -> dict:
    """Every chosen method fitted on the split's training rows, the uploaded scores beside
    them, judged on its test rows (cached by :func:`pages._app.fitting.compute`)."""
    ds = source.loaded_dataset()
    split = experiment.current_split()
    estimators = {m: make(ds, m, params) for m in params["methods"]}
    predictions, failures = holdout_predictions(
        estimators, split.X_train, split.Y_train, split.X_test
    )
    predictions[name] = external_predictions(scores, threshold=threshold)
    # the label spaces are not measured here (a refit on all rows, as the run above does
    # for PLST/CLEMS): "not represented" is judged for no model, and the caption says so
    reasons = {
        method: loss_reasons(
            split.Y_test,
            p.Y_pred,
            Y_score=p.Y_score,
            unrepresented=None,
            label_names=ds.label_names,
        )
        for method, p in predictions.items()
    }
    per_label = per_label_comparison(
        predictions,
        split.Y_test,
        label_names=ds.label_names,
        tail_threshold=params["tail"],
        reasons=reasons,
    )
    contributions = {
        method: label_contributions(
            split.Y_test, p.Y_score, Y_train=split.Y_train, ks=BIN_KS, metrics=BIN_METRICS
        )
        for method, p in predictions.items()
        if p.Y_score is not None
    }
    # rows out of order fall to chance: P@1 against ranking labels by training frequency
    popularity = np.broadcast_to(np.asarray(split.Y_train).mean(axis=0), split.Y_test.shape)
    tail = params["tail"]
    return {
        # the labels the loss reasons count (tail by the test rows' frequency, as the table)
        "reason_rows": np.arange(ds.n_labels)
        if tail is None
        else np.flatnonzero(is_tail(label_frequencies(split.Y_test, relative=True), tail)),
        "train_counts": np.asarray(label_frequencies(split.Y_train, relative=False), float),
        "p_at_1": precision_at_k(split.Y_test, predictions[name].Y_score, k=1),
        "popularity_p_at_1": precision_at_k(split.Y_test, popularity, k=1),
        "methods": list(predictions),
        "failures": failures,
        "per_label": per_label,
        "reasons": reasons,
        "contributions": contributions,
        "n_train": len(split.train_index),
        "n_test": len(split.test_index),
    }


def show(page: Compare, params: dict, external: External | None) -> None:
    """The section, when the upload holds scores for the split's test rows."""
    if external is None or external.rows != "test":
        return
    name = external.name
    st.subheader(f"On the split's test rows: {plain.markdown(name)} beside the chosen methods")
    views = fitting.compute(
        test_split_views,
        {
            "params": params,
            "name": name,
            "threshold": external.threshold,
            "scores": external.scores,
        },
        label=f"Test-split views with {name}",
        spinner="Fitting each chosen method on the split's training rows…",
        label_names=page.ds.label_names,  # library warnings name the label columns
    )
    if views is None:
        return
    for method, error in views["failures"].items():
        st.warning(
            f"{plain.markdown(method)} failed on the split's training rows ({error}); it is "
            "not in this section, and nothing here is concluded about it."
        )
    if views["p_at_1"] <= views["popularity_p_at_1"]:
        st.warning(
            f"{plain.markdown(name)}'s P@1 on the test rows is {views['p_at_1']:.3f}, no better "
            "than ranking the labels by their training frequency for every row "
            f"({views['popularity_p_at_1']:.3f}, no model at all). Its scores may follow "
            "another row order than the test-row list, another split, or another label order. "
            "Check before reading the views below."
        )
    methods, tail = views["methods"], params["tail"]
    st.caption(
        f"Every chosen method fitted once on the sidebar split's {views['n_train']:,} "
        f"training rows (the run's settings), and {plain.markdown(name)}'s uploaded scores, "
        f"all judged on the same {views['n_test']:,} test rows — not the cross-validation "
        "above, whose folds cover every row."
    )
    export.chart(
        fitting.figure(
            figures.per_label_figure, views["per_label"], methods, metric="F1", tail_threshold=tail
        ),
        key="compare_test_per_label",
    )
    rows = views["reason_rows"]
    if len(rows):
        export.chart(
            fitting.figure(
                figures.loss_reasons_figure, views["reasons"], rows if tail is not None else None
            ),
            key="compare_test_loss_reasons",
        )
        counts = "; ".join(
            f"{plain.markdown(m)}: "
            + ", ".join(f"{n} {reason}" for reason, n in reason_counts(r, rows).items())
            for m, r in views["reasons"].items()
        )
        st.caption(
            f"Why each of the {len(rows)} {'tail ' if tail is not None else ''}labels (by "
            f"their frequency on the test rows) is lost on the test rows: {counts}. The rules "
            "are those under the out-of-fold chart above, with the test rows' predictions; "
            f"'not represented' is judged for no model here (unknown for "
            f"{plain_list([name])}, not measured for the others on a single split)."
        )
    contributions = views["contributions"]
    if contributions:
        train_counts = views["train_counts"]
        k = max(BIN_KS)
        tables = {
            method: bin_by_frequency(values[f"P@{k}"].to_numpy(), train_counts, n_bins=10)
            for method, values in contributions.items()
        }
        export.chart(
            fitting.figure(frequency_bin_figure, tables, metric="P", k=k),
            key="compare_test_bins",
        )
        st.caption(
            f"P@{k} on the test rows, split by where each model's hits fall: labels sorted by "
            "their training-row count and cut into 10 bins of about equal total count "
            "(pyxclib's rule), rarest bin on the left; each model's bars sum to its P@"
            f"{k} on these rows."
            + (
                f" Not shown, no scores: {plain_list([m for m in methods if m not in tables])}."
                if len(tables) < len(methods)
                else ""
            )
        )
        export.csv_button(
            "Download test-split contributions by bin (CSV)",
            frequency_bin_table(tables),
            name=(page.ds.name, f"test_bins_P_at_{k}"),
        )
    export.csv_button(
        "Download test-split per-label table (CSV)",
        views["per_label"],
        name=(page.ds.name, "test_per_label"),
    )
