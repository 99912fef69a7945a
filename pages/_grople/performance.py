"""How a GroPLE fit predicts: against binary relevance and PLST, on tail labels, its objective."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from mlviz.figures import grople as figures
from mlviz.figures import tail as tail_figures
from mlviz.methods import METHODS
from mlviz.metrics import METRICS, evaluate
from mlviz.per_label import grople_label_table, tail_summary
from mlviz.wording import percent_text
from pages._app import experiment, export, fitting, source, tables
from pages._grople.context import GroPLEPage


def test_prediction(model):
    """One fitted model's predictions of the test split, cached per fit: the metrics table
    and the per-label table both use GroPLE's and binary relevance's."""
    return model.predict(experiment.current_split().X_test)


def test_scores(predictions: dict) -> dict[str, dict[str, float]]:
    """Bipartition metrics of every model's test predictions (the table shows no ranking
    metric; those cost seconds at ~1,000 labels)."""
    Y_test = experiment.current_split().Y_test
    return {name: evaluate(Y_test, Y_pred) for name, Y_pred in predictions.items()}


def baseline_estimators(grople, n_labels: int) -> dict[str, object]:
    """The baselines of a GroPLE estimator (fitted or not), by the table's names: binary
    relevance, and PLST at its d (at most L). The page starts fitting them while GroPLE fits
    (:func:`pages._app.fitting.fit`'s ``alongside``) and reads them in :func:`baselines`."""
    m = min(int(grople.n_components), n_labels)
    return {"BR": METHODS["BR"].make(), f"PLST (M={m})": METHODS["PLST"].make(M=m)}


def baselines(page: GroPLEPage, model, verdict_slot) -> tuple[object, dict] | None:
    """GroPLE beside BR and PLST at its d; the verdict against BR goes to ``verdict_slot``
    (beside the figure). Returns the binary relevance fit and every model's test predictions
    (by the table's names), or None if a fit failed."""
    # at the fitted model's d (the last press's, not the widgets'); fitted after the figures of
    # GroPLE itself, so their warnings stand next to the table that uses them
    labels = {"BR": "Binary relevance"}
    models = {"GroPLE": model} | {
        name: fitting.fit(estimator, label=labels.get(name, name))
        for name, estimator in baseline_estimators(model, page.n_labels).items()
    }
    binary_relevance = models["BR"]
    if any(b is None for b in models.values()):
        return None
    predictions = {
        name: fitting.compute(test_prediction, {"model": est}, label=f"{name}: test predictions")
        for name, est in models.items()
    }
    if any(p is None for p in predictions.values()):
        return None
    scores = fitting.compute(test_scores, {"predictions": predictions}, label="Test-split metrics")
    if scores is None:
        return None
    below, numbers = figures.versus_baseline(scores, method="GroPLE", baseline="BR")
    with verdict_slot:
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
    st.subheader("GroPLE beside binary relevance and PLST")
    table = pd.DataFrame(scores).T
    shown = ["accuracy", "example_f1", "micro_f1", "macro_f1", "hamming_loss"]
    table = table[shown].rename(
        columns={m: f"{METRICS[m].label} {METRICS[m].arrow}" for m in shown}
    )
    tables.fitted_table(table, number_format="%.4f")
    st.caption(
        "Test-split metrics of GroPLE beside binary relevance and PLST on the same "
        "split (the paper's Table 2 metrics)."
    )
    return binary_relevance, predictions


def per_label_table(model, baseline, threshold, Y_pred, baseline_pred):
    """:func:`grople_label_table` on the test split from both models' test predictions,
    cached per fit, baseline and tail rule: the page recomputed it on every rerun (~0.3 s at
    983 labels)."""
    split = experiment.current_split()
    return grople_label_table(
        model,
        baseline,
        split.X_test,
        split.Y_test,
        split.Y_train,
        threshold,
        label_names=source.current_dataset().label_names,
        Y_pred=Y_pred,
        baseline_pred=baseline_pred,
    )


def tail_labels(page: GroPLEPage, model, binary_relevance, predictions: dict) -> None:
    """Per-label F1 of GroPLE and BR, the tail marked, and what the tail gets
    (``predictions``: :func:`baselines`'s test predictions)."""
    st.subheader("Tail labels: does sharing a group help or hurt rare labels?")
    split = page.split
    threshold = experiment.tail_threshold()
    label_table = fitting.compute(
        per_label_table,
        {
            "model": model,
            "baseline": binary_relevance,
            "threshold": threshold,
            "Y_pred": predictions["GroPLE"],
            "baseline_pred": predictions["BR"],
        },
        label="Per-label scores",
    )
    if label_table is None:
        return
    export.chart(
        fitting.figure(tail_figures.grople_tail_figure, label_table, threshold),
        key="grople_tail",
    )
    tail = tail_summary(label_table)
    percent = percent_text(threshold)
    if tail["tail"]:
        st.caption(
            f"{tail['tail']} of {tail['labels']} labels are in the tail (in fewer than "
            f"{percent} of the {split.n_train:,} training instances; "
            f"{experiment.tail_rule_name()}, set in the sidebar's Experiment settings). "
            f"On the test split GroPLE never predicts {tail['tail_never_predicted']} of them, "
            f"binary relevance {tail['tail_never_predicted_baseline']}; of the "
            f"{tail['tail_with_test_positive']} tail labels with a positive test instance, "
            f"GroPLE finds at least one for {tail['tail_found']}, binary relevance for "
            f"{tail['tail_found_baseline']}. A rare label shares its group's latent rows (the "
            "axis names each label's group, · gK): compare its F1 with its group mates'."
        )
    else:
        st.caption(
            f"No label is in the tail: every label is in at least {percent} of the training "
            f"instances ({experiment.tail_rule_name()}, set in the sidebar's Experiment "
            "settings)."
        )


def objective(model) -> None:
    """Eq. 4's objective per iteration of its solver, and Eq. 5's."""
    export.chart(
        fitting.figure(
            figures.objective_figure, model.objective_history_, model.feature_objective_history_
        ),
        key="grople_objective",
    )
    st.caption(
        "Objective of Eq. 4 per iteration of its solver (it must never increase) and of the "
        "feature embedding (Eq. 5). "
        + (
            "Eq. 4 is solved by variable projection (proximal gradient steps with U "
            "eliminated) between Algorithm 1's first two and last iterations."
            if model.solver == "varpro"
            else "Eq. 4 is solved by the paper's Algorithm 1 (alternating V and U steps)."
        )
        + (
            " Eq. 5's accelerated gradient takes a step per entry of Z (rare features move "
            "further), not LLSF's one step for all."
            if model.feature_step == "diagonal"
            else " Eq. 5's accelerated gradient takes LLSF's one step for every entry of Z."
        )
    )
