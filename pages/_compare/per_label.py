"""Compare's per-label view: which labels each method loses, and why."""

from __future__ import annotations

import numpy as np
import streamlit as st

from mlviz.figures import compare as figures
from mlviz.methods import METHODS
from mlviz.per_label import LOSS_RULE_DEFAULTS, reason_counts
from mlviz.stats import is_tail, label_frequencies
from pages._app import budget, export, fitting, links, plain, tables
from pages._compare.context import Compare


def plain_list(names: list[str]) -> str:
    """Method names (an external model's is user text) joined for a caption."""
    return " and ".join(plain.markdown(n) for n in names)


def tail_rows(page: Compare, run_tail: float | None) -> np.ndarray:
    """The rows of the labels the run counts as tail labels (every label when there is no tail
    rule: the reasons then cover every label)."""
    if run_tail is None:
        return np.arange(page.n_labels)
    return np.flatnonzero(is_tail(label_frequencies(page.ds.Y, relative=True), run_tail))


def reasons_caption(
    what: str, lines: str, unmeasured: list[str], scores_kept: bool, external: list[str]
) -> str:
    """The rules under the loss reasons' chart, with the counts of ``what`` (``lines``);
    ``external``: uploaded models, whose label space is unknown."""
    rule = LOSS_RULE_DEFAULTS
    return (
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
        + (f"; unknown for {plain_list(external)}, an external model" if external else "")
        + f"); ranked but not predicted = out-of-fold AUC ≥ {rule['auc_ranked']:g} and F1 ≥ "
        f"{rule['best_f1_min']:g} at the best out-of-fold threshold (the method's threshold "
        "never fires: a per-label threshold is the fix to try); too rare to judge = fewer "
        f"than {rule['min_support']:g} positives (the AUC is too noisy); not learnable = AUC "
        f"≤ {rule['auc_chance']:g} (near ½); weakly ranked = lost, none of these; no scores "
        "= lost, and the scores were not kept"
        + (
            f" (over {budget.OOF_SCORES_CELLS:,} out-of-fold score cells per method at this size)."
            if not scores_kept
            else "."
        )
    )


def show(page: Compare, outcome: dict) -> None:
    """The per-label chart, the loss reasons' chart and the two per-label tables of a run."""
    ds, L = page.ds, page.n_labels
    run_params = outcome["params"]
    run_tail = run_params["tail"]
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
        rows = tail_rows(page, run_tail)
        what = f"{len(rows)} tail labels" if run_tail is not None else f"{L:,} labels"
        if len(rows):
            export.chart(
                fitting.figure(
                    figures.loss_reasons_figure, reasons, rows if run_tail is not None else None
                ),
                key="compare_loss_reasons",
            )
            by_reason = {m: reason_counts(reasons[m], rows) for m in shown_methods}
            lines = "; ".join(
                f"{plain.markdown(m)}: "
                + ", ".join(f"{n} {reason}" for reason, n in counts.items())
                for m, counts in by_reason.items()
            )
            unmeasured = (
                []
                if outcome.get("refitted", outcome.get("scores_kept", True))
                else [m for m in shown_methods if METHODS[m].representation == "fitted"]
            )
            st.caption(
                reasons_caption(
                    what,
                    lines,
                    unmeasured,
                    outcome.get("scores_kept", True),
                    outcome.get("external", []),
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
                        help=f"out-of-fold {metric} of "
                        + plain.markdown(c.removeprefix(f"{metric} ")),
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
                        width=reason_px,
                        help=f"why {plain.markdown(c[len('why lost ') :])} loses the label",
                    )
                    for c in why
                },
                row_height=tables.TWO_LINE_ROW_PX if wraps else None,
            )
            st.caption(
                "Why each method loses each label (kept: not lost), by the rules "
                + (
                    "stated under the chart of the reasons above."
                    if len(rows)
                    else "of mlviz.per_label.loss_reasons (no tail label here, so no chart of "
                    "them)."
                )
            )
        export.csv_button("Download per-label table (CSV)", per_label, name=(ds.name, "per_label"))
