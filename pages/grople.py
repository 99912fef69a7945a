"""GroPLE page: label groups, the group-sparse decoding matrix V^k, and how it predicts.

The page's parts live in ``pages/_grople/`` (the context, the sliders, the paper's Figure 1
search, what the fit learned, how it predicts); this script runs them in order.
"""

from __future__ import annotations

import streamlit as st

from pages._app import export, fitting, presentation
from pages._grople import context, figure1, performance, settings, structure

st.title("GroPLE: group-preserving label embedding")
presentation.intro(
    "GroPLE (Kumar et al.) groups the labels, then factorises Y ≈ U V with an ℓ2,1 penalty on "
    "each group's block V^k (Eq. 4): a latent row is either used by *all* labels of a group or "
    "by none, so each group picks its own few latent dimensions. A sparse linear map Z then "
    "predicts U from the features (Eq. 5); scores are X Z V."
)
page = context.start()  # stops with the reason where GroPLE cannot run
figure1.apply_pending()  # before the sliders exist
chosen = settings.controls(page)
figure1.button(page, chosen.params)

model = fitting.fit(
    chosen.estimator(),
    on="button",
    key="grople",
    label="Fit GroPLE",
    spinner="Fitting GroPLE: label groups, then U and V^k, then Z…",
    # BR and PLST, compared with GroPLE below, fit on the other core meanwhile
    alongside=lambda grople: list(performance.baseline_estimators(grople, page.n_labels).values()),
)
st.caption(
    "GroPLE is fitted at the opening settings when a data set is loaded, and again each time "
    "you press the button (a fit takes seconds); fits are cached, so going back to earlier "
    "settings is instant."
)
if model is None:
    st.stop()
if model.degenerate_:
    # a fit that predicts nothing is not shown as a result (issue 22): cause and fix instead
    st.error(f"This GroPLE fit is degenerate. {model.degenerate_}", icon=":material/error:")
    st.stop()
structure.decoding_matrix(page, model)
# beside the figure: whether this fit beats binary relevance on this data (filled below, once
# the baselines are fitted; issue 31: below BR on bibtex at the defaults, and nothing said so)
versus_br = st.container()
structure.label_groups(page, chosen, model)
structure.absent_labels(page, model)
structure.against_chance(chosen, model)

compared = performance.baselines(page, model, versus_br)
if compared is None:
    st.stop()
binary_relevance, predictions = compared
performance.tail_labels(page, model, binary_relevance, predictions)
performance.objective(model)

export.report_button("GroPLE")
