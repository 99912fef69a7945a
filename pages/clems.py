"""CLEMS page: label sets embedded so that distances mimic a cost, and nearest-point decoding."""

from __future__ import annotations

import numpy as np
import streamlit as st
from scipy.spatial.distance import cdist
from sklearn.ensemble import RandomForestRegressor

from mlviz.clems import CLEMS
from mlviz.costs import cost_matrix
from mlviz.figures import clems as figures
from mlviz.figures.hypercube import labelset_text
from mlviz.metrics import METRICS, evaluate
from pages import _shared as shared

ds = shared.current_dataset()
K = ds.n_labels
st.title("CLEMS: cost-sensitive label embedding")
st.markdown(
    "CLEMS (Huang & Lin) embeds the distinct training label sets by weighted multidimensional "
    "scaling so that the distance from a *truth* point to a *prediction* point approximates "
    "the cost of that prediction. A regressor maps x to the truth-role point of its label set; "
    "decoding picks the nearest prediction-role point, i.e. the candidate the embedding thinks "
    "is cheapest."
)

split = shared.model_split(needs="CLEMS")

COSTS = {"f1": "F1 (1 − F1)", "accuracy": "Accuracy (1 − Jaccard)", "hamming": "Hamming",
         "rank_loss": "Rank loss (asymmetric)"}
c1, c2, c3 = st.columns(3)
cost = c1.selectbox("Cost", list(COSTS), format_func=COSTS.get, key="clems_cost",
                    persist_state="session")
with c2:
    M = shared.int_slider("Embedding dimension M", 1, K, K, key="clems_m",
                          why_fixed="with a single label the embedding has one dimension.")
regressor_name = c3.radio("Regressor", ["ridge (fast)", "random forest (paper)"],
                          key="clems_regressor", persist_state="session")


def _fit(params: dict) -> tuple[CLEMS, dict]:
    regressor = None
    if params["regressor"].startswith("random forest"):
        regressor = RandomForestRegressor(n_estimators=50, max_depth=10, random_state=0,
                                          n_jobs=1)
    model = CLEMS(n_components=params["M"], cost=params["cost"], regressor=regressor,
                  random_state=0)
    model.fit(split.X_train, split.Y_train)
    return model, evaluate(split.Y_test, model.predict(split.X_test))


result = shared.fit(
    "clems", {"cost": cost, "M": M, "regressor": regressor_name}, _fit, label="CLEMS",
    spinner="Embedding the candidate label sets and fitting the regressor…",
)
if result is None:
    st.stop()
model, scores = result

cols = st.columns(4)
cols[0].metric("Candidate label sets", len(model.candidates_))
cols[1].metric("Stress", f"{model.stress_:.4g}",
               help="Weighted squared mismatch between embedded distances and target "
                    "dissimilarities; 0 = the cost is embedded exactly.")
for col, name in zip(cols[2:], ["example_f1", "accuracy"], strict=True):
    col.metric(f"Test {METRICS[name].label} {METRICS[name].arrow}", f"{scores[name]:.4f}")

@st.fragment
def instance_view() -> None:
    """Reruns alone when the instance changes: the embedding and regressor stay untouched."""
    texts = labelset_text(model.candidates_, ds.label_names)
    st.subheader("One test instance")
    index = st.number_input("Test instance", 0, len(split.Y_test) - 1, 0, key="clems_instance")
    explanation = model.explain(split.X_test[index : index + 1], n=5)
    nearest = explanation["candidates"]["candidate"].to_numpy()
    truth = split.Y_test[index]
    nearest_costs = cost_matrix(truth[None, :], model.candidates_[nearest], cost)[0]

    left, right = st.columns(2)
    with left:
        st.plotly_chart(
            figures.embedding_figure(
                model.embedding_truth_, model.embedding_pred_, model.candidate_counts_,
                model.candidates_.sum(axis=1), texts, not model.mirrored_,
                predicted=explanation["embedding"], nearest=nearest, nearest_costs=nearest_costs,
            ),
            key="clems_embedding",
        )
        st.caption(
            "Each marker is a training label set (size ~ how often it occurs, colour = number of "
            "labels). For an asymmetric cost every set appears twice: as a truth (circle) and as a "
            "prediction (cross). The star is where the regressor put the chosen test instance; "
            "red rings are the nearest prediction-role points, the first one is the decoded set."
        )
    with right:
        distances = cdist(model.embedding_truth_,
                          model.embedding_pred_ if model.mirrored_ else model.embedding_truth_)
        st.plotly_chart(
            figures.shepard_figure(model.cost_matrix_, distances, model.stress_,
                                   dissimilarity=model.dissimilarity, mirrored=model.mirrored_,
                                   labelset_text=texts),
            key="clems_shepard",
        )
        st.caption(
            "Shepard diagram: every pair of candidates, target dissimilarity against embedded "
            "distance. Points on the diagonal are embedded faithfully; with the Hamming cost and "
            "M = K the square-root dissimilarity embeds exactly."
        )

    decoded = explanation["prediction"]
    table = explanation["candidates"].assign(
        label_set=[texts[i] for i in nearest], cost_vs_truth=nearest_costs
    )[["label_set", "count", "distance", "cost_vs_truth"]]
    st.dataframe(table, hide_index=True)
    st.markdown(
        f"**Truth:** {labelset_text(truth[None, :], ds.label_names)[0]}  \n"
        f"**Decoded:** {labelset_text(decoded[None, :], ds.label_names)[0]} — cost "
        f"{cost_matrix(truth[None, :], decoded[None, :], cost)[0, 0]:.3f}"
    )
    st.caption("The nearest candidates with their embedded distance and their true cost against "
               "this instance's label set: decoding is good when small distance means small cost.")
    if not np.isfinite(model.stress_):
        st.warning("The embedding did not converge to a finite stress.")


instance_view()
