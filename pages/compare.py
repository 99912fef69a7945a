"""Compare page: cross-validated metrics of every method on the loaded data set, per label too.

The page's parts live in ``pages/_compare/`` (one module per concern: the settings, the runs,
an external model's scores, the metrics, the per-label view, the contribution by frequency bin,
an external model's test-split scores beside the methods fitted on that split,
the per-label thresholds, the dimension sweep); this script runs them in order.
"""

from __future__ import annotations

import streamlit as st

from pages._app import export, fitting, presentation
from pages._compare import (
    bins,
    context,
    external,
    per_label,
    results,
    runs,
    settings,
    sweep,
    test_split,
    thresholds,
)

page = context.start()
st.title("Compare methods")
presentation.intro(
    "k-fold cross-validation of the chosen methods on the whole data set (the sidebar's split "
    "is not used here; its feature scaling is, fitted inside each fold): every metric as "
    "mean ± sd over folds, and, from the same folds, which labels each method gets right."
)
if page.scheduler:
    st.caption(
        f"Cross-validation runs on the Dask scheduler at `{page.scheduler}` "
        f"({context.DASK_SCHEDULER_VARIABLE})."
    )

methods, n_splits, default_folds = settings.choose(page)
params = settings.run_parameters(page, methods, n_splits)
settings.describe(page, params, default_folds)
uploaded = external.read(page)

if not methods:
    st.info("Choose at least one method to run the cross-validation.")
    st.stop()
# the whole data set in folds, not the sidebar's split
outcome = fitting.compute(
    runs.cross_validation,
    params,
    on="button",
    key="compare",
    label="Run cross-validation",
    progress=True,
    uses_split=False,
    label_names=page.ds.label_names,  # every method fits all label columns
    first_fit_automatic=False,
)
if outcome is None:
    st.stop()

runs.show_failures(outcome["failures"], outcome["params"]["folds"])
for reason in outcome.get("unscored", {}).values():
    st.warning(reason)
if outcome["results"].empty:
    st.stop()

results.show(page, outcome)
outcome = external.merged(page, outcome, uploaded)
external.note(outcome)
per_label.show(page, outcome)
bins.show(page, outcome)
test_split.show(page, outcome["params"], uploaded)
thresholds.show(page, outcome)
sweep.show(page, params)

export.report_button("Compare")
