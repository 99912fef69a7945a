"""Step 2: PLST and round-based decoding (PLST paper, Eqs. 2, 6, 7 and Algorithm 8)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from mlviz.figures import linear as linear_figures
from mlviz.figures._style import WIDE_TITLE_CHARS
from mlviz.metrics import hamming_loss
from pages._lesson import fits
from pages._lesson.state import Lesson, chart, explain, formula, in_range, try_this
from pages._lesson.text import MAX_BARS, count, notice, per_label_legible


def show(c: Lesson) -> None:
    split, L, names, n_test = c.split, c.L, c.names, c.n_test
    formula(
        r"\min_{\mathbf{o},\,\mathbf{P}:\ \mathbf{P}\mathbf{P}^{\top}=\mathbf{I}}\ "
        r"\frac{1}{N}\sum_{n=1}^{N}\big\|\mathbf{y}_n-\mathbf{o}-\mathbf{P}^{\top}\mathbf{P}"
        r"(\mathbf{y}_n-\mathbf{o})\big\|^{2}\quad(6)"
    )
    formula(
        r"\mathbf{Z}=[\mathbf{y}_1-\mathbf{o},\dots,\mathbf{y}_N-\mathbf{o}]="
        r"\mathbf{U}\boldsymbol{\Sigma}\mathbf{V}^{\top}\quad(7),\qquad "
        r"\mathbf{o}=\tfrac{1}{N}\textstyle\sum_n\mathbf{y}_n,\quad\mathbf{P}=\mathbf{U}_M^{\top}"
    )
    formula(
        r"\tilde{\mathbf{y}}=\mathbf{o}+\mathbf{P}^{\top}\mathbf{r}(\mathbf{x})"
        r"\ \ \text{(Alg. 8)},\qquad \hat{y}_l=[\![\tilde{y}_l\geq\tfrac12]\!]\quad(2)"
    )
    explain(
        "PLST keeps the M principal directions of the centred label vectors, learns M "
        "regressors r(x) for their coordinates, maps the prediction back to ỹ and rounds each "
        "label at ½ (round-based decoding)."
    )
    if c.too_many_labels("PLST's basis of the label space"):
        return
    left, right = st.columns(2)
    key = "lesson_plst_m"
    if L >= 2:
        c.ensure(key, in_range(1, L))
        with left:
            m = int(c.bound(st.slider, "Embedding dimension M", 1, L, key=key))
    else:
        m = 1
        left.caption("One label: M = 1 is the only choice.")
    with right:
        index = c.instance_picker("lesson_plst_instance")
    if L >= 2:
        try_this(
            "plst",
            "set M = 1 (one direction)",
            {key: 1},
            why_disabled="M is 1 already." if m == 1 else "",
        )
    c.preset_caption("PLST", {**c.opening("PLST"), "M": m})
    model = fits.plst(c, m)
    if not fits.fits_this_data(model):
        return
    x_row = split.X_test[index : index + 1]
    h = model.regressor_.predict(x_row).reshape(1, -1)[0]
    y_tilde = model.predict_decoded(x_row)[0]
    y_hat = model.predict(x_row)[0].astype(int)
    y_true = split.Y_test[index].astype(int)
    wrong = int((y_hat != y_true).sum())
    # the builder names the instance's true and predicted labels and the highest ỹ beyond
    # MAX_BARS labels, and says so; the figure spans the page, so its title may too
    fig = linear_figures.decoding_figure(
        y_tilde, y_true, names, h=h, max_labels=MAX_BARS, title_width=WIDE_TITLE_CHARS
    )
    shown = len(fig.data[1].x)
    chart(per_label_legible(fig, shown, col=2), key="lesson_plst_decoding")
    kept = float(model.explained_variance_ratio_.sum())  # NaN without label variance
    loss = hamming_loss(split.Y_test, model.predict(split.X_test))
    notice(
        [
            (
                f"Keeping M = {m} of {L} directions retains **{kept:.0%}** of the training label "
                "variance; the rest is the encoding error, lost before any regressor is trained."
                if np.isfinite(kept)
                else "Every training instance has the same label set: there is no label "
                "variance, so PLST predicts the mean o for every instance."
            ),
            f"For test instance {index}, ỹ lands on the wrong side of ½ for **{wrong}** of {L} "
            "labels (bars on the wrong side of the dashed line from the diamonds).",
            f"Over the {count(n_test, 'test instance', 'test instances')} the Hamming loss is "
            f"**{loss:.3f}** "
            + (
                f"with {count(m, 'regressor', 'regressors')} instead of {L}."
                if m < L
                else "with all L directions: no compression at all."
            ),
        ]
    )
