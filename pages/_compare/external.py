"""A model trained elsewhere on Compare: its scores for every row as one more method.

Compare's per-label views are out of fold over every row, so an external model joins them
with its own out-of-fold scores for every row (a k-fold run of napkinXC, a deep model, ...):
the per-label table, the loss reasons (those that need the model's internals, "not
represented", are unknown for it) and the contribution by frequency bin. Scores for the
sidebar split's test rows only go to a section of their own (:mod:`pages._compare.test_split`):
there each chosen method is fitted once on the split's training rows, so that every model
is judged on the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from mlviz.evaluation import external_predictions, per_label_comparison
from mlviz.io import DataFormatError, load_scores
from mlviz.methods import METHODS
from mlviz.metrics import label_contributions, precision_at_k
from mlviz.per_label import loss_reasons
from pages._app import budget, experiment, export, fitting, plain, source
from pages._compare.bins import BIN_KS, BIN_METRICS
from pages._compare.context import Compare

#: Longest name an external model may have (it heads a column and a legend entry).
MAX_NAME_CHARS = 40
NAME_KEY = "compare_external_name"
THRESHOLD_KEY = "compare_external_threshold"
UPLOAD_KEY = "compare_external_file"
PARSED_KEY = "_compare_external_parsed"


@dataclass(frozen=True)
class External:
    """An uploaded model's scores, parsed: what the views add for it."""

    name: str
    threshold: float
    scores: np.ndarray  # (rows, L), -inf for a label the model did not score
    #: "all": out-of-fold scores for every row; "test": the sidebar split's test rows
    rows: str = "all"


def _parse_name(text: str) -> tuple[str | None, str | None]:
    """(name, None) for a usable model name, else (None, what is wrong)."""
    name = " ".join(str(text).split())
    if not name:
        return None, "Type a name for the model (it heads its column and legend entry)."
    if len(name) > MAX_NAME_CHARS:
        return None, f"The model's name has {len(name)} characters; at most {MAX_NAME_CHARS}."
    if name in METHODS:
        return None, (
            f"{name} is one of mlviz's methods: give the external model another name "
            "(e.g. its library's)."
        )
    return name, None


def row_order() -> str:
    """The order of the loaded data set's rows, as the score file must follow it (with a
    published split the app holds the training file's rows, then the test file's)."""
    n_train = st.session_state.get(source.OFFICIAL_TRAIN_KEY)
    if n_train is None:
        return "in the order of the data set's file"
    return (
        f"in the order the app holds them: the published split's {n_train:,} training rows "
        "first (the training file's order), then its test rows (the test file's order)"
    )


def read(page: Compare) -> External | None:
    """The expander where a user adds a model's scores; the parsed scores, or None."""
    ds = page.ds
    N, L = ds.n_samples, ds.n_labels
    try:
        test_index = experiment.current_split().test_index
    except ValueError:  # too few rows for the sidebar's split: all-row scores only
        test_index = None
    n_test = -1 if test_index is None else len(test_index)
    with st.expander("Add a model trained elsewhere (its scores)"):
        st.caption(
            f"Either scores for every one of the {N:,} rows, {row_order()}, each from a "
            "model that did not train on that row (your model's own k-fold out-of-fold "
            "scores)"
            + (
                ""
                if test_index is None
                else f", or scores for the {n_test:,} test rows of the sidebar's split, in the "
                "order of the test-row list below (a model trained on its training rows)"
            )
            + ". As a top-k text file (one line per row: label:score …, 0-based label indices, "
            "as napkinXC and pyxclib write), a CSV with one column per label (headed by the "
            f"{L:,} label names) or a .npy array. A label a top-k file leaves out ranks below "
            "every listed one."
        )
        if test_index is not None:
            export.csv_button(
                "Download the split's test rows (CSV)",
                pd.DataFrame({"row": test_index + 1}),
                name=(ds.name, "test_rows"),
                help="The data set's row numbers (from 1, in the order above) of the test "
                "rows, in the order the scores for them must follow.",
            )
        c1, c2 = st.columns([2, 1])
        typed = c1.text_input("Model name", value="external", key=NAME_KEY)
        threshold = c2.number_input(
            "Predict a label at score ≥",
            value=0.5,
            step=0.05,
            format="%g",
            key=THRESHOLD_KEY,
            help="0.5 suits probabilities; 0 suits a decision function.",
        )
        upload = st.file_uploader(
            "Scores (.txt, .csv or .npy)", type=["txt", "csv", "npy"], key=UPLOAD_KEY
        )
        if upload is None:
            return None
        name, problem = _parse_name(typed)
        if problem:
            st.error(problem)
            return None
        if N * L > budget.OOF_SCORES_CELLS:
            st.error(
                f"Scores for {N:,} rows × {L:,} labels are {N * L:,} cells, over the "
                f"{budget.OOF_SCORES_CELLS:,} this server keeps for one model's out-of-fold "
                "scores: load a sample of the rows (both the data set and the scores)."
            )
            return None
        # parsed once per upload (a rerun must not parse N x L scores again): the session
        # keeps the last upload's scores, within the budget checked above
        parsed = st.session_state.get(PARSED_KEY)
        if parsed is None or parsed[0] != (upload.file_id, ds.digest):
            try:
                scores = load_scores(upload.getvalue(), n_labels=L, label_names=ds.label_names)
                parsed = ((upload.file_id, ds.digest), scores, None)
            except (DataFormatError, ValueError) as err:
                parsed = ((upload.file_id, ds.digest), None, str(err))
            st.session_state[PARSED_KEY] = parsed
        _, scores, error = parsed
        if error is not None:
            st.error(
                f"The scores in {plain.markdown(upload.name)} cannot be used: "
                f"{plain.markdown(error)}"
            )
            return None
        if scores.shape[0] not in (N, n_test):
            st.error(
                f"{plain.markdown(upload.name)} has scores for {scores.shape[0]:,} rows; "
                f"{plain.markdown(ds.name)} has {N:,} rows"
                + ("" if test_index is None else f" and the sidebar's split {n_test:,} test rows")
                + f". Give one score row per data row ({row_order()})"
                + (
                    ""
                    if test_index is None
                    else " or per test row (in the order of the test-row list), or change the "
                    "split to the one your model was tested on"
                )
                + "."
            )
            return None
        return External(
            name=name,
            threshold=float(threshold),
            scores=scores,
            rows="all" if scores.shape[0] == N else "test",
        )


def external_views(name: str, threshold: float, scores: np.ndarray) -> dict:
    """What the per-label views need of an external model (cached by
    :func:`pages._app.fitting.compute`): its predictions and loss reasons over every row."""
    ds = source.loaded_dataset()
    predictions = external_predictions(scores, threshold=threshold)
    reasons = loss_reasons(
        ds.Y,
        predictions.Y_pred,
        Y_score=predictions.Y_score,
        unrepresented=None,  # unknown: the model's internals are not uploaded
        label_names=ds.label_names,
    )
    contributions = label_contributions(ds.Y, scores, Y_train=ds.Y, ks=BIN_KS, metrics=BIN_METRICS)
    # a check that rows and labels line up: P@1 against ranking the labels by frequency for
    # every row (no model); scores in another row order fall to about chance, below it
    Y = np.asarray(ds.Y)
    popularity = np.broadcast_to(Y.mean(axis=0), Y.shape)
    return {
        "predictions": predictions,
        "reasons": reasons,
        "contributions": contributions,
        "p_at_1": float(contributions["P@1"].sum()),
        "popularity_p_at_1": precision_at_k(Y, popularity, k=1),
    }


def merged(page: Compare, outcome: dict, external: External | None) -> dict:
    """``outcome`` with the external model added to every per-label view, or as it was."""
    if (
        external is None
        or external.rows != "all"
        or outcome["per_label"] is None
        or external.name in outcome["methods"]
    ):
        return outcome
    views = fitting.compute(
        external_views,
        {"name": external.name, "threshold": external.threshold, "scores": external.scores},
        label=f"Per-label view of {external.name}",
        uses_split=False,
    )
    if views is None:
        return outcome
    ds = page.ds
    reasons = {**outcome["reasons"], external.name: views["reasons"]}
    predictions = {**outcome["predictions"], external.name: views["predictions"]}
    per_label = per_label_comparison(
        predictions,
        ds.Y,
        label_names=ds.label_names,
        tail_threshold=outcome["params"]["tail"],
        reasons=reasons,
    )
    return {
        **outcome,
        "alignment": (views["p_at_1"], views["popularity_p_at_1"]),
        "per_label": per_label,
        "reasons": reasons,
        "predictions": predictions,
        "methods": [*outcome["methods"], external.name],
        "external": [external.name],
        "oof_f1": {**outcome["oof_f1"], external.name: views["reasons"]["f1"].to_numpy()},
        "contributions": {
            **outcome.get("contributions", {}),
            external.name: views["contributions"],
        },
    }


def note(outcome: dict) -> None:
    """Where the external model is and is not shown; a warning when its scores rank worse than
    label frequency alone (their rows or labels may be in another order)."""
    names = outcome.get("external", [])
    if names:
        p_at_1, popularity = outcome["alignment"]
        if p_at_1 <= popularity:
            st.warning(
                f"{plain.markdown(names[0])}'s P@1 over all rows is {p_at_1:.3f}, no better "
                f"than ranking the labels by their frequency for every row ({popularity:.3f}, "
                "no model at all). Its scores may be in another row or label order than the "
                f"data set's: rows must come {row_order()}, labels in the data set's column "
                "order. Check before reading its per-label views."
            )
        st.caption(
            f"{plain.markdown(names[0])} (uploaded scores) is in every per-label view below, "
            "not in the fold table and chart above: its scores are one set over every row, "
            "with no folds of mlviz's."
        )
