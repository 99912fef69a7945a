"""Step 6: ML-KNN's MAP rule (paper 003, Eqs. 6-8)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from mlviz import stats
from mlviz.figures import mlknn as mlknn_figures
from mlviz.figures._style import WIDE_TITLE_CHARS, legible
from pages._lesson import fits
from pages._lesson.state import (
    Lesson,
    chart,
    explain,
    formula,
    in_range,
    try_this,
    user_text,
)
from pages._lesson.text import MAX_BARS, count, listing, notice, per_label_legible


def show(c: Lesson) -> None:
    split, L, names, n_train, n_test = c.split, c.L, c.names, c.n_train, c.n_test
    formula(
        r"\vec{C}_t(l)=\sum_{a\in N(t)}\vec{y}_a(l)\quad(6),\qquad "
        r"\vec{y}_t(l)=\arg\max_{b\in\{0,1\}}P\big(H_b^l\mid E^l_{\vec{C}_t(l)}\big)\quad(7)"
    )
    formula(
        r"=\arg\max_{b\in\{0,1\}}P(H_b^l)\,P\big(E^l_{\vec{C}_t(l)}\mid H_b^l\big)\quad(8),"
        r"\qquad P(H_1^l)=\frac{s+\sum_{i=1}^{m}\vec{y}_{x_i}(l)}{2s+m}"
    )
    explain(
        "ML-KNN counts how many of an instance's k nearest training neighbours carry each "
        "label, then predicts the label when the prior times the likelihood of that count "
        "is larger for 'has it' than for 'lacks it' (both estimated on the training set with "
        "Laplace smoothing s = 1)."
    )
    k_max = c.mlknn_k_max()
    if k_max < 1:
        st.warning(
            f"The training split has {n_train} instance{'s' if n_train != 1 else ''}: "
            "ML-KNN needs at least two (each needs a neighbour other than itself). "
            "Lower the test fraction in the sidebar."
        )
        return
    c1, c2 = st.columns(2)
    if k_max >= 2:
        c.ensure("lesson_mlknn_k", in_range(1, k_max))
        with c1:
            k = int(c.bound(st.slider, "Neighbours k", 1, k_max, key="lesson_mlknn_k"))
        try_this(
            "mlknn",
            "set k = 1 (one neighbour decides)",
            {"lesson_mlknn_k": 1},
            why_disabled="k is 1 already." if k == 1 else "",
        )
    else:
        k = 1
        c1.caption(f"{n_train} training instances: k = 1 is the only choice.")
    with c2:
        index = c.instance_picker("lesson_mlknn_instance")
    c.preset_caption("ML-KNN", {**c.opening("ML-KNN"), "k": k})
    model = fits.mlknn(c, k)
    if not fits.fits_this_data(model):
        return
    explanation = model.explain(split.X_test[index : index + 1], label_names=names)
    table = explanation.table.assign(truth=split.Y_test[index])
    shown = stats.labels_to_show(
        table["posterior"].to_numpy(),
        (table["decision"] == 1).to_numpy() | (table["truth"] == 1).to_numpy(),
        MAX_BARS,
    )
    fig = mlknn_figures.posterior_figure(table.iloc[shown], title_width=WIDE_TITLE_CHARS)
    if len(shown) < L:
        fig.update_layout(
            title=f"ML-KNN per label: predicted when green ≥ grey "
            f"({int(table['decision'].sum())} of {L:,} labels predicted)<br>"
            f"<sup>{len(shown)} of {L:,} labels shown: the instance's true and "
            "predicted ones, then the highest posterior</sup>"
        )
        legible(fig, title_width=WIDE_TITLE_CHARS, legend=False)  # wrap the new title
    chart(per_label_legible(fig, len(shown)), key="lesson_mlknn_posterior")
    predictions = model.predict(split.X_test)
    never, missed = stats.never_predicted(predictions, split.Y_test)
    needed = stats.votes_needed(model.prior_, model.cond_pos_, model.cond_neg_)
    hopeless = np.flatnonzero(needed < 0)  # never predicted, so a subset of `never`
    points = [
        (
            f"On the {count(n_test, 'test instance', 'test instances')} ML-KNN never predicts "
            f"**{len(never):,}** of {L:,} labels; {len(missed)} of them occur in the test split"
            + (f" ({listing(names, missed)})." if len(missed) else ".")
            if len(never)
            else "Every label is predicted for at least one of the "
            f"{count(n_test, 'test instance', 'test instances')}."
        ),
    ]
    if len(hopeless):
        points.append(
            (
                "None of them"
                if len(hopeless) == len(never)
                else f"{len(hopeless)} of them ({listing(names, hopeless)})"
            )
            + f" can be predicted with k = {k} whatever the neighbours carry: for every count "
            "0..k the grey bar P(H₀)·P(E|H₀) beats the green one."
        )
    predictable = np.flatnonzero(needed >= 0)
    if len(predictable):
        rarest = predictable[np.argmin(model.prior_[predictable])]
        points.append(
            "The rarest label that can be predicted, "
            f"{user_text(names[rarest])} (prior P(H₁) = "
            f"{model.prior_[rarest]:.3f}), needs at least **{needed[rarest]}** of the "
            f"k = {k} neighbours to carry it."
        )
    correct = int((table["decision"] == table["truth"]).sum())
    points.append(
        f"Test instance {index}: "
        f"{count(int(table['decision'].sum()), 'label', 'labels')} predicted, "
        f"{int(table['truth'].sum())} true; {correct} of {L} decisions right."
    )
    notice(points)
