"""Lesson page: seven short steps from the label hypercube to the tail, for a class.

Each step shows the paper's key formula, one figure of a live model on the loaded data set,
a "try this" button that sets the step's own widgets for the class, and what to notice:
sentences computed from the figure's data (``mlviz.figures.lesson``), so that they hold on
whatever data set is loaded. Widgets keep their values across steps (``persist_state``);
a value that does not fit the loaded data set falls back to the step's default. The step and
its widgets are bound to the URL (``links.bound``), so a link reopens the same step with the
same settings; the other steps' settings are not in the link and open at their defaults.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from sklearn.metrics import adjusted_rand_score

from mlviz import datasets, hypercube, stats
from mlviz.clems import CLEMS
from mlviz.costs import cost_matrix
from mlviz.figures import clems as clems_figures
from mlviz.figures import compare as compare_figures
from mlviz.figures import grople as grople_figures
from mlviz.figures import hypercube as cube_figures
from mlviz.figures import label_clusters as cluster_figures
from mlviz.figures import lesson as facts
from mlviz.figures import linear as linear_figures
from mlviz.figures import mlknn as mlknn_figures
from mlviz.figures._style import WIDE_TITLE_CHARS, legible
from mlviz.grople import GroPLE
from mlviz.label_clustering import LabelClustering, group_diagnostics
from mlviz.linear import PLST
from mlviz.methods import METHODS as REGISTRY
from mlviz.metrics import hamming_loss, per_label_f1
from mlviz.mlknn import MLkNN
from pages._app import experiment, export, fitting, links, source

ds = source.current_dataset()
st.title("Lesson: label embedding in seven steps")
split = experiment.model_split(needs="The lesson")
L = ds.n_labels
names = [str(n) for n in ds.label_names]
n_train, n_test = len(split.Y_train), len(split.Y_test)
planted_groups = datasets.known_groups(ds)  # None unless the embedded planted sample is loaded

MAX_DRAWN_SETS = 300  # label sets drawn in step 1 (the most frequent ones)
MAX_AXES = 12  # label axes drawn in step 1's biplot (the longest ones) ...
AXIS_SHARE = 0.25  # ... of those at least this share of the longest axis
MAX_BARS = cluster_figures.MAX_NAMED_LABELS  # labels named in a per-label figure
MAX_LISTED = 8  # label names listed in a sentence
LAMBDA2_GRID = [0.0, 0.1, 1.0, 10.0, 30.0, 100.0]
COSTS = {
    "f1": "F1 (1 − F1)",
    "accuracy": "Accuracy (1 − Jaccard)",
    "hamming": "Hamming",
    "rank_loss": "Rank loss (asymmetric)",
}
AFFINITY_NAMES = {
    "heat": "heat kernel (paper)",
    "cooccurrence": "co-occurrence (Jaccard)",
    "correlation": "correlation",
}
METHODS = ["BR", "PLST", "GroPLE", "CLEMS", "ML-KNN"]
# PLST's basis of the label space and the label affinity of steps 3-4 are K x K matrices
# (8 K^2 bytes, 800 MB at 10,000 labels): above this those steps say so, as the PLST page does.
MAX_LABELS_SQUARE = 2_000
SQUARE_IN_LABELS = ("BR", "PLST", "GroPLE")

STEPS = ["hypercube", "plst", "groups", "grople", "clems", "mlknn", "compare"]
SHORT_TITLES = {
    "hypercube": "1 · Hypercube",
    "plst": "2 · PLST",
    "groups": "3 · Label groups",
    "grople": "4 · GroPLE",
    "clems": "5 · CLEMS",
    "mlknn": "6 · ML-KNN",
    "compare": "7 · Compare & tail",
}
TITLES = {
    "hypercube": "1 · The label hypercube",
    "plst": "2 · PLST and round-based decoding",
    "groups": "3 · Label groups",
    "grople": "4 · GroPLE's $V^k$",
    "clems": "5 · CLEMS: embedding costs",
    "mlknn": "6 · ML-KNN's MAP rule",
    "compare": "7 · Compare, and the tail",
}


def _groups_k_max() -> int:
    return min(30, L)


def _grople_d_max() -> int:
    return min(L, 100)


def _clems_m_max() -> int:
    return max(2, min(L, 10))


def _mlknn_k_max() -> int:
    return min(30, n_train - 1)


# every widget of the lesson and its default on the loaded data set
DEFAULTS: dict[str, Any] = {
    "lesson_step": STEPS[0],
    "lesson_cube_axes": False,
    "lesson_cube_directions": False,
    "lesson_plst_m": min(2, L),
    "lesson_plst_instance": 0,
    "lesson_groups_affinity": "heat",
    "lesson_groups_k": min(10, _groups_k_max()),
    "lesson_grople_d": _grople_d_max(),
    "lesson_grople_lambda2": 1.0,
    "lesson_clems_cost": "f1",
    "lesson_clems_m": 2,
    "lesson_clems_instance": 0,
    "lesson_mlknn_k": min(10, max(_mlknn_k_max(), 1)),
    "lesson_mlknn_instance": 0,
    "lesson_compare_methods": ["PLST", "CLEMS", "ML-KNN"],
}


# ----------------------------------------------------------------------------- helpers
def _reset_widgets_for_new_data() -> None:
    """Another data set was loaded: every step starts from its defaults for this one.

    A value kept from another data set may still be in range (d = 14 of yeast's 14 labels
    on medical's 45) but is not what the step's label and notes promise (d = L).
    """
    if st.session_state.get("lesson_data") != ds.digest:
        if "lesson_data" in st.session_state:  # the first data set opens at DEFAULTS anyway
            st.session_state.update({k: v for k, v in DEFAULTS.items() if k != "lesson_step"})
        st.session_state["lesson_data"] = ds.digest


def _ensure(key: str, valid: Callable[[Any], bool]) -> None:
    """Give widget ``key`` its default unless it holds a value valid for this data set.

    Runs before the widget is created, which is when Streamlit allows writing its state.
    A widget not yet in the session opens at ``DEFAULTS[key]`` (see :func:`_bound`) or at
    the link's value, so only a kept value that no longer fits is replaced.
    """
    if key in st.session_state and not valid(st.session_state[key]):
        st.session_state[key] = DEFAULTS[key]


def _bound(widget: Callable[..., Any], *args: Any, key: str, **kwargs: Any) -> Any:
    """A lesson widget bound to the URL (``links.bound``) that opens at ``DEFAULTS[key]``.

    Streamlit leaves a bound value out of the URL when it equals the widget's own default and
    reads a link value equal to that default as no value at all, so the widget's default must
    be the step's default (not the slider's minimum): otherwise a link with M = 1 would reopen
    at the step's M = 2. ``persist_state`` keeps the value while another step is shown.
    """
    default = DEFAULTS[key]
    kind = getattr(widget, "__name__", "")
    if kind in ("selectbox", "radio"):
        kwargs["index"] = list(args[1]).index(default)
    elif kind == "multiselect":
        kwargs["default"] = default
    else:
        kwargs["value"] = default
    return links.bound(widget, *args, key=key, persist_state="session", **kwargs)


def _in_range(low: int, high: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, int | np.integer) and low <= v <= high


def _setting(key: str, valid: Callable[[Any], bool]) -> Any:
    """Another step's widget value (kept across steps), or its default when not valid."""
    value = st.session_state.get(key, DEFAULTS[key])
    return value if valid(value) else DEFAULTS[key]


def _apply(preset: dict[str, Any]) -> None:
    """ "Try this" callback: set the step's widgets before the next run creates them."""
    st.session_state.update(preset)


def _try_this(step: str, text: str, preset: dict[str, Any], *, why_disabled: str = "") -> None:
    """The step's "try this" button; disabled, with the reason, when it would change nothing."""
    st.button(
        f"Try this: {text}",
        key=f"lesson_try_{step}",
        on_click=_apply,
        args=(preset,),
        disabled=bool(why_disabled),
        help=why_disabled or "Sets this step's widgets to the values in the button's text.",
    )


def _notice(points: list[str]) -> None:
    st.info("**What to notice**\n\n" + "\n".join(f"- {p}" for p in points if p))


def _listing(indices, limit: int = MAX_LISTED) -> str:
    shown = ", ".join(names[j] for j in list(indices)[:limit])
    extra = len(indices) - limit
    return shown + (f" and {extra} more" if extra > 0 else "")


def _count(n: int, singular: str, plural: str) -> str:
    return f"{n:,} {singular if n == 1 else plural}"


def _f1_text(value: float) -> str:
    return f"{value:.2f}" if np.isfinite(value) else "undefined"


def _labelset(vector: np.ndarray) -> str:
    return cube_figures.labelset_text(np.asarray(vector)[None, :], names)[0]


def _legend_at_bottom(fig: Any) -> Any:
    """Put a figure's horizontal legend at its lower edge, below the axis title."""
    fig.update_layout(
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left")
    )
    return fig


def _per_label_legible(fig: Any, n_labels: int, **axis: Any) -> Any:
    """Per-label bar figures made legible for many or long label names.

    The builders rotate names by 45° and put the legend a fixed share of the plot height
    under the axis; with medical's 45 names ("Class-12-V13_09") the names overlap each other
    and the legend. Here the names stand upright from 20 labels on (one name per bar width)
    and the legend sits at the figure's lower edge, below them. ``axis`` selects the label
    axis of a figure with subplots (e.g. ``col=2``).
    """
    _legend_at_bottom(fig)
    if n_labels > 20:
        fig.update_xaxes(tickangle=-90, **axis)
        fig.update_layout(height=560)
    return fig


def _fit(label: str, method: str, **settings: Any) -> Any:
    """Fit a registry method through the shared cache (the pages' fits when the settings
    match); on a library error it is shown and None returned."""
    return fitting.fit(REGISTRY[method].make(**settings), label=label)


def _too_many_labels(what: str) -> bool:
    """True, with a note, when ``what`` (a K x K matrix) is too large for the loaded data."""
    if L <= MAX_LABELS_SQUARE:
        return False
    st.warning(
        f"{what} is a {L:,} × {L:,} matrix, too large for {ds.name}: this step works with up "
        f"to {MAX_LABELS_SQUARE:,} labels. Steps 1, 5 and 6 work at this size."
    )
    return True


def _fits_this_data(model: Any) -> bool:
    """False when there is no model: :func:`fitting.fit` never returns another data set's."""
    return model is not None


def _instance_picker(key: str) -> int:
    _ensure(key, _in_range(0, n_test - 1))
    if n_test == 1:
        st.caption("The test split has one instance; it is the one shown.")
        return 0
    return int(_bound(st.number_input, f"Test instance (0–{n_test - 1})", 0, n_test - 1, key=key))


def _groups_settings() -> tuple[int, str]:
    """Step 3's K and affinity (step 4 uses the same groups); one group below 3 labels."""
    if L < 3:
        return 1, "heat"
    k = _setting("lesson_groups_k", _in_range(2, _groups_k_max()))
    affinity = _setting("lesson_groups_affinity", lambda v: v in AFFINITY_NAMES)
    return int(k), affinity


# ----------------------------------------------------------------------------- models
def fit_plst(m: int) -> PLST | None:
    return _fit("PLST", "PLST", M=m)


def fit_clustering(k: int, affinity: str) -> LabelClustering | None:
    return fitting.fit(LabelClustering(n_groups=k, affinity=affinity), label="Label clustering")


def fit_grople(d: int, lambda2: float) -> GroPLE | None:
    k, affinity = _groups_settings()
    return _fit("GroPLE", "GroPLE", d=d, lambda2=lambda2, K=k, affinity=affinity)


def fit_clems(m: int, cost: str) -> CLEMS | None:
    return _fit("CLEMS", "CLEMS", M=m, cost=cost)


def fit_mlknn(k: int) -> MLkNN | None:
    return _fit("ML-KNN", "ML-KNN", k=k)


def _occupied_vertices():
    return hypercube.occupied_vertices(ds.Y)


def _vertex_pca(occupied: tuple[np.ndarray, np.ndarray]):
    vertices, counts = occupied
    return hypercube.project_vertices(vertices, counts, method="pca", n_components=2)


# ------------------------------------------------------------------------------- steps
def step_hypercube() -> None:
    st.latex(
        r"\mathbf{y}\in\{0,1\}^{L}\ \text{(a vertex of the hypercube)},\qquad "
        r"\Delta(\hat{\mathbf{y}},\mathbf{y})=\frac{1}{L}\sum_{l=1}^{L}"
        r"[\![\hat{y}_l\neq y_l]\!]\ \text{(Hamming loss)}"
    )
    st.markdown(
        "Every label set is a corner of the cube $\\{0,1\\}^L$, and the Hamming loss counts "
        "the labels in which two corners differ. A data set occupies only a few of the $2^L$ "
        "corners (PLST paper, §2): the sparsity every label embedding exploits."
    )
    occupied = fitting.compute(
        _occupied_vertices,
        label="Occupied label sets",
        uses_split=False,
    )
    if occupied is None:
        return
    vertices, counts = occupied
    n_sets = len(vertices)
    possible = (
        f"$2^{{{L}}}$ = {2**L:,}"
        if L <= 40
        else f"$2^{{{L}}} \\approx 10^{{{L * np.log10(2):.0f}}}$"
    )
    points = [
        f"**{n_sets:,}** of the {possible} possible label sets occur in the "
        f"{ds.n_samples:,} instances.",
        f"The most frequent set, {_labelset(vertices[0])}, holds "
        f"{counts[0] / counts.sum():.0%} of the instances; "
        + (
            _count(int((counts == 1).sum()), "set occurs", "sets occur") + " only once."
            if (counts == 1).any()
            else "every set occurs at least twice."
        ),
    ]
    if L == 3:
        key = "lesson_cube_directions"
        _ensure(key, lambda v: isinstance(v, bool))
        draw = _bound(st.checkbox, "Draw PLST's two principal directions through o", key=key)
        _try_this(
            "hypercube",
            "draw PLST's principal directions",
            {key: True},
            why_disabled="They are drawn." if draw else "",
        )
        plst = fit_plst(2)
        if not _fits_this_data(plst):
            return
        export.chart(
            cube_figures.cube_figure(
                vertices,
                counts,
                names,
                offset=plst.offset_,
                directions=plst.components_[:2] if draw else None,
            ),
            key="lesson_cube",
        )
        empty = 8 - n_sets
        points.append(
            f"{_count(empty, 'of the 8 corners is', 'of the 8 corners are')} empty (hollow)."
            if empty
            else "All 8 corners are occupied."
        )
        if draw:
            kept = facts.variance_kept(plst.singular_values_, 2)
            points.append(
                "The lines are the plane PLST keeps with M = 2 through the mean o (×): "
                + (
                    f"it keeps {kept:.0%} of the label variance."
                    if np.isfinite(kept)
                    else "every instance has the same label set, so there is no variance to keep."
                )
            )
        _notice(points)
        return

    key = "lesson_cube_axes"
    _ensure(key, lambda v: isinstance(v, bool))
    axes = _bound(st.checkbox, "Draw each label's axis (biplot)", key=key)
    _try_this(
        "hypercube",
        "draw each label's axis",
        {key: True},
        why_disabled="The axes are drawn." if axes else "",
    )
    projection = fitting.compute(
        _vertex_pca,
        {"occupied": occupied},
        label="Projection of the label sets",
        uses_split=False,
    )
    if projection is None:
        return
    coords, loadings = projection
    shown = min(n_sets, MAX_DRAWN_SETS)
    edges = hypercube.hamming_edges(vertices[:shown])
    title = "Occupied label sets along PLST's first two principal directions"
    if shown < n_sets:
        title += f"<br><sup>the {shown} most frequent of {n_sets:,} label sets</sup>"
    arrows, arrow_names = None, []
    if axes:
        length = np.linalg.norm(loadings, axis=1)
        # short axes pile up unreadably at the origin: draw the long ones only
        long_enough = np.flatnonzero(length >= AXIS_SHARE * length.max())
        longest = np.sort(long_enough[np.argsort(-length[long_enough], kind="stable")][:MAX_AXES])
        # a biplot's arrows are drawn to the cloud's scale, so their names spread out
        reach = np.abs(coords[:shown]).max()
        scale = 0.9 * reach / length.max() if reach > 0 and length.max() > 0 else 1.0
        arrows, arrow_names = scale * loadings[longest], [names[j] for j in longest]
        title += (
            f"<br><sup>label axes × {scale:.2g}"
            + (
                f"; the {len(longest)} of {L} labels whose axis is at least "
                f"{AXIS_SHARE:.0%} of the longest"
                if len(longest) < L
                else ""
            )
            + "</sup>"
        )
        top = int(np.argmax(length))
        points.append(
            f"The longest axis is **{names[top]}**: the two directions follow it most. Short "
            "axes are labels this 2-D view (PLST with M = 2) hardly sees."
        )
    fig = cube_figures.hypercube_figure(
        coords[:shown],
        vertices[:shown],
        counts[:shown],
        edges,
        names,
        loadings=arrows,
        title=title,
    )
    if arrows is not None:
        # the builder names the arrows after label_names in order: name the drawn ones
        fig.update_traces(text=arrow_names, selector=dict(mode="text"))
    fig.update_layout(xaxis_title="principal direction 1", yaxis_title="principal direction 2")
    export.chart(_legend_at_bottom(fig), key="lesson_hypercube")
    points.append(
        (
            _count(len(edges), "pair of the drawn sets is", "pairs of the drawn sets are")
            + " one label apart (grey lines). "
            if len(edges)
            else "No two drawn sets are one label apart. "
        )
        + "Sets drawn on top of each other differ only along directions this view leaves out."
    )
    _notice(points)


def step_plst() -> None:
    st.latex(
        r"\min_{\mathbf{o},\,\mathbf{P}:\ \mathbf{P}\mathbf{P}^{\top}=\mathbf{I}}\ "
        r"\frac{1}{N}\sum_{n=1}^{N}\big\|\mathbf{y}_n-\mathbf{o}-\mathbf{P}^{\top}\mathbf{P}"
        r"(\mathbf{y}_n-\mathbf{o})\big\|^{2}\quad(6)"
    )
    st.latex(
        r"\mathbf{Z}=[\mathbf{y}_1-\mathbf{o},\dots,\mathbf{y}_N-\mathbf{o}]="
        r"\mathbf{U}\boldsymbol{\Sigma}\mathbf{V}^{\top}\quad(7),\qquad "
        r"\mathbf{o}=\tfrac{1}{N}\textstyle\sum_n\mathbf{y}_n,\quad\mathbf{P}=\mathbf{U}_M^{\top}"
    )
    st.latex(
        r"\tilde{\mathbf{y}}=\mathbf{o}+\mathbf{P}^{\top}\mathbf{r}(\mathbf{x})"
        r"\ \ \text{(Alg. 8)},\qquad \hat{y}_l=[\![\tilde{y}_l\geq\tfrac12]\!]\quad(2)"
    )
    st.markdown(
        "PLST keeps the M principal directions of the centred label vectors, learns M "
        "regressors r(x) for their coordinates, maps the prediction back to ỹ and rounds each "
        "label at ½ (round-based decoding)."
    )
    if _too_many_labels("PLST's basis of the label space"):
        return
    left, right = st.columns(2)
    key = "lesson_plst_m"
    if L >= 2:
        _ensure(key, _in_range(1, L))
        with left:
            m = int(_bound(st.slider, "Embedding dimension M", 1, L, key=key))
    else:
        m = 1
        left.caption("One label: M = 1 is the only choice.")
    with right:
        index = _instance_picker("lesson_plst_instance")
    if L >= 2:
        _try_this(
            "plst",
            "set M = 1 (one direction)",
            {key: 1},
            why_disabled="M is 1 already." if m == 1 else "",
        )
    model = fit_plst(m)
    if not _fits_this_data(model):
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
    export.chart(_per_label_legible(fig, shown, col=2), key="lesson_plst_decoding")
    kept = facts.variance_kept(model.singular_values_, m)
    loss = hamming_loss(split.Y_test, model.predict(split.X_test))
    _notice(
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
            f"Over the {_count(n_test, 'test instance', 'test instances')} the Hamming loss is "
            f"**{loss:.3f}** "
            + (
                f"with {_count(m, 'regressor', 'regressors')} instead of {L}."
                if m < L
                else "with all L directions: no compression at all."
            ),
        ]
    )


def step_groups() -> None:
    st.latex(
        r"A_{ij}=\exp\!\Big(-\frac{\|\mathbf{s}_i-\mathbf{s}_j\|^{2}}{\sigma_i\sigma_j}\Big),"
        r"\ \mathbf{s}_l=2\mathbf{y}_{\cdot l}-\mathbf{1}\ \text{(heat)},\qquad "
        r"A_{ij}=\frac{C_{ij}}{n_i+n_j-C_{ij}}\ \text{(co-occurrence)}"
    )
    st.latex(
        r"\hat{\mathbf{A}}=\mathbf{D}^{-1/2}\mathbf{A}\mathbf{D}^{-1/2},\qquad "
        r"K^{\star}=\arg\max_{K}\ (\lambda_K-\lambda_{K+1})"
    )
    st.markdown(
        "GroPLE's first stage (§3) compares label columns by an affinity A, embeds them with "
        "the leading eigenvectors of Â and clusters them into K groups by k-means. The "
        "largest gap between consecutive eigenvalues suggests K."
    )
    if L < 3:
        st.warning(
            f"This data set has {L} label{'s' if L != 1 else ''}: with fewer than 3 labels "
            "there is no choice of groups to make and no eigengap to read, so this step has "
            "no figure. Step 4 treats all labels as one group."
        )
        return
    if _too_many_labels("The affinity between the labels"):
        return
    k_max = _groups_k_max()
    c1, c2 = st.columns(2)
    _ensure("lesson_groups_affinity", lambda v: v in AFFINITY_NAMES)
    affinity = _bound(
        c1.selectbox,
        "Affinity",
        list(AFFINITY_NAMES),
        format_func=AFFINITY_NAMES.get,
        key="lesson_groups_affinity",
    )
    _ensure("lesson_groups_k", _in_range(2, k_max))
    with c2:
        k = int(_bound(st.slider, "Number of groups K", 2, k_max, key="lesson_groups_k"))
    model = fit_clustering(k, affinity)
    if model is None or model.labels_.shape != (L,):
        return
    suggested = model.suggest_n_groups(max_groups=k_max)
    _try_this(
        "groups",
        f"use K = {suggested}, the eigengap's suggestion",
        {"lesson_groups_k": suggested},
        why_disabled=f"K is {suggested} already." if suggested == k else "",
    )
    frequencies = stats.label_frequencies(split.Y_train, relative=True)
    if L <= MAX_BARS:
        fig = cluster_figures.affinity_heatmap(model.affinity_, model.labels_, names, frequencies)
    else:
        fig = cluster_figures.group_affinity_heatmap(model.affinity_, model.labels_)
    export.chart(fig, key="lesson_groups_heatmap")
    diagnostics = group_diagnostics(
        split.Y_train, model.labels_, label_names=names, tail_threshold=experiment.tail_threshold()
    )
    never = cluster_figures.never_cooccurring_groups(diagnostics)
    gap = model.eigenvalues_[suggested - 1] - model.eigenvalues_[suggested]
    points = [
        f"The eigengap suggests **K = {suggested}** "
        f"($\\lambda_{{{suggested}}} - \\lambda_{{{suggested + 1}}}$ = {gap:.3f}, the largest "
        f"drop for K = 2..{min(k_max, model.eigenvalues_.size - 1)}).",
        (
            f"With K = {k} the {AFFINITY_NAMES[affinity]} gives {model.n_groups_} groups; "
            + (
                f"**{len(never)}** of them hold labels that never appear together in a training "
                f"instance (sizes {', '.join(str(n) for n in never['n_labels'])}): held together "
                "by the affinity, not by co-occurrence."
                if len(never)
                else "every group of two or more labels has a pair that co-occurs in training."
            )
        ),
    ]
    if L > MAX_BARS:
        points.append(
            f"{L} labels are too many to name: each cell is the mean affinity between two groups."
        )
    if planted_groups is not None:
        ari = adjusted_rand_score(planted_groups, model.labels_)
        points.append(
            f"Planted sample: agreement with the four planted groups is ARI = **{ari:.2f}** "
            "(1 = exactly the planted groups)."
        )
    _notice(points)


def step_grople() -> None:
    st.latex(
        r"\min_{\mathbf{U},\mathbf{V}^1,\dots,\mathbf{V}^K}\ \sum_{k=1}^{K}"
        r"\|\mathbf{Y}^k-\mathbf{U}\mathbf{V}^k\|_F^2+\lambda_1\|\mathbf{U}\|_F^2+"
        r"\lambda_2\sum_{k=1}^{K}\|\mathbf{V}^k\|_{2,1}\quad(4)"
    )
    st.latex(
        r"\|\mathbf{A}\|_{2,1}=\sum_{i}\sqrt{\textstyle\sum_j A_{ij}^2}"
        r"\quad\text{(a sum of row norms: whole rows become zero)}"
    )
    k, affinity = _groups_settings()
    st.markdown(
        "GroPLE factorises each group's label columns $Y^k \\approx U V^k$ with one shared "
        "latent matrix $U$ ($d$ columns). The $\\ell_{2,1}$ penalty switches off whole rows of "
        "$V^k$, so the labels of a group use the same few latent dimensions. "
        + (
            f"The groups are step 3's: K = {k}, {AFFINITY_NAMES[affinity]}."
            if L >= 3
            else "With fewer than 3 labels all labels form one group."
        )
    )
    if _too_many_labels("GroPLE's affinity between the labels (stage 1)"):
        return
    c1, c2 = st.columns(2)
    d_max = _grople_d_max()
    if d_max >= 2:
        _ensure("lesson_grople_d", _in_range(1, d_max))
        with c1:
            d = int(_bound(st.slider, "Latent dimension d (≤ L)", 1, d_max, key="lesson_grople_d"))
    else:
        d = 1
        c1.caption("One label: d = 1 is the only choice.")
    _ensure("lesson_grople_lambda2", lambda v: v in LAMBDA2_GRID)
    with c2:
        lambda2 = float(
            _bound(
                st.select_slider,
                "λ2 (group sparsity of $V^k$)",
                LAMBDA2_GRID,
                key="lesson_grople_lambda2",
            )
        )
    _try_this(
        "grople",
        "raise λ2 to 10",
        {"lesson_grople_lambda2": 10.0},
        why_disabled="λ2 is 10 already." if lambda2 == 10.0 else "",
    )
    with st.spinner("Fitting GroPLE…"):
        model = fit_grople(d, lambda2)
    if not _fits_this_data(model):
        return
    if L <= MAX_BARS:
        fig = grople_figures.vk_heatmap(
            model.V_, model.groups_, names, row_support=model.row_support_
        )
        if L > 20:
            fig.update_xaxes(tickangle=-90)  # many names at -60° overlap each other
    else:  # too many labels to name: one column per group (the GroPLE page drills down)
        fig = grople_figures.vk_group_heatmap(
            model.V_, model.groups_, row_support=model.row_support_
        )
    export.chart(fig, key="lesson_grople_vk")
    rows = facts.rows_per_group(model.row_support_)
    n_groups = len(rows)
    unused = int((rows["rows_used"] == 0).sum())
    alone = int(((rows["rows_used"] > 0) & (rows["private_rows"] == rows["rows_used"])).sum())
    points = [
        f"The {_count(n_groups, 'group uses', 'groups use')} "
        f"**{int(rows['rows_used'].sum())}** of {n_groups * d} group rows (d = {d} each); "
        "blank rows are exactly zero. Rows per group: "
        f"{', '.join(str(r) for r in rows['rows_used'])}.",
    ]
    if unused:
        points.append(
            f"{unused} group{'s use' if unused != 1 else ' uses'} no latent row at "
            "all: their labels get the same score for every instance."
        )
    if n_groups > 1:
        points.append(
            f"{alone} group{'s share' if alone != 1 else ' shares'} no latent row with any "
            "other group: GroPLE models such a group independently of the rest."
            if alone
            else "Every group that uses a row shares one with another group."
        )
    if lambda2 == 0:
        points.append("With λ2 = 0 nothing pushes rows to zero: every row is used.")
    _notice(points)


def step_clems() -> None:
    st.latex(
        r"\min_{\mathbf{u}}\sum_{i,j}\big(c(\mathbf{y}_i,\mathbf{y}_j)-"
        r"d(\mathbf{u}_i,\mathbf{u}_j)\big)^2\ \ (1),\qquad "
        r"\min_{\mathbf{u}^{(t)},\mathbf{u}^{(p)}}\sum_{i,j}\big(c(\mathbf{y}_i,\mathbf{y}_j)-"
        r"d(\mathbf{u}^{(t)}_i,\mathbf{u}^{(p)}_j)\big)^2\ \ (2)"
    )
    st.latex(
        r"\tilde{\mathbf{z}}=g(\mathbf{x}),\qquad \hat{\mathbf{y}}=\mathbf{y}_q,\quad "
        r"q=\arg\min_{j}\ d\big(\tilde{\mathbf{z}},\mathbf{u}^{(p)}_j\big)"
    )
    st.markdown(
        "CLEMS embeds the distinct training label sets by multidimensional scaling so that "
        "distances mimic the cost c (Eq. 1; for an asymmetric cost each set is embedded "
        "twice, as truth and as prediction, Eq. 2). A regressor g maps x into the embedding "
        "and decoding returns the nearest label set. mlviz embeds √c with frequency weights, "
        "as the authors' code does."
    )
    c1, c2, c3 = st.columns(3)
    _ensure("lesson_clems_cost", lambda v: v in COSTS)
    cost = _bound(
        c1.selectbox, "Cost c", list(COSTS), format_func=COSTS.get, key="lesson_clems_cost"
    )
    m_max = _clems_m_max()
    _ensure("lesson_clems_m", _in_range(1, m_max))
    with c2:
        m = int(_bound(st.slider, "Embedding dimension M", 1, m_max, key="lesson_clems_m"))
    with c3:
        index = _instance_picker("lesson_clems_instance")
    _try_this(
        "clems",
        "use the asymmetric rank-loss cost",
        {"lesson_clems_cost": "rank_loss"},
        why_disabled="The cost is rank loss already." if cost == "rank_loss" else "",
    )
    with st.spinner("Embedding the label sets…"):
        model = fit_clems(m, cost)
    if not _fits_this_data(model):
        return
    explanation = model.explain(split.X_test[index : index + 1], n=5)
    nearest = explanation["candidates"]["candidate"].to_numpy()
    truth = split.Y_test[index]
    nearest_costs = cost_matrix(truth[None, :], model.candidates_[nearest], cost)[0]
    texts = cube_figures.labelset_text(model.candidates_, names)
    export.chart(
        _legend_at_bottom(
            clems_figures.fitted_embedding_figure(
                model,
                texts,
                predicted=explanation["embedding"],
                nearest=nearest,
                nearest_costs=nearest_costs,
            )
        ),
        key="lesson_clems_embedding",
    )
    unseen = facts.unseen_labelset_share(split.Y_train, split.Y_test)
    n_cand = len(model.candidates_)
    points = [
        f"CLEMS can only answer with one of the **{n_cand:,}** training label "
        f"set{'s' if n_cand != 1 else ''}; "
        + (
            f"**{unseen:.0%}** of the test instances carry a label set never seen in "
            "training, so CLEMS cannot predict them exactly."
            if unseen > 0
            else "every test instance's label set occurs in training."
        ),
        f"Test instance {index} (truth {_labelset(truth)}) is decoded as "
        f"{_labelset(explanation['prediction'])} at cost **{nearest_costs[0]:.3f}**; "
        + (
            f"the cheapest of the {len(nearest)} nearest sets (red rings) costs "
            f"{nearest_costs.min():.3f}."
            if len(nearest) > 1
            else "it is the only set."
        ),
    ]
    if model.mirrored_:
        points.append(
            "The cost is asymmetric: every set appears twice, as truth (circle) and "
            "as prediction (cross); decoding searches the crosses."
        )
    if m > 2:
        points.append(
            f"The picture shows coordinates 1–2 of M = {m}; the nearest sets are "
            "nearest in all M coordinates, so a ring may look far from the star."
        )
    if n_cand == 1:
        points.append("There is a single training label set: CLEMS predicts it for everyone.")
    _notice(points)


def step_mlknn() -> None:
    st.latex(
        r"\vec{C}_t(l)=\sum_{a\in N(t)}\vec{y}_a(l)\quad(6),\qquad "
        r"\vec{y}_t(l)=\arg\max_{b\in\{0,1\}}P\big(H_b^l\mid E^l_{\vec{C}_t(l)}\big)\quad(7)"
    )
    st.latex(
        r"=\arg\max_{b\in\{0,1\}}P(H_b^l)\,P\big(E^l_{\vec{C}_t(l)}\mid H_b^l\big)\quad(8),"
        r"\qquad P(H_1^l)=\frac{s+\sum_{i=1}^{m}\vec{y}_{x_i}(l)}{2s+m}"
    )
    st.markdown(
        "ML-KNN counts how many of an instance's k nearest training neighbours carry each "
        "label, then predicts the label when the prior times the likelihood of that count "
        "is larger for 'has it' than for 'lacks it' (both estimated on the training set with "
        "Laplace smoothing s = 1)."
    )
    k_max = _mlknn_k_max()
    if k_max < 1:
        st.warning(
            f"The training split has {n_train} instance{'s' if n_train != 1 else ''}: "
            "ML-KNN needs at least two (each needs a neighbour other than itself). "
            "Lower the test fraction in the sidebar."
        )
        return
    c1, c2 = st.columns(2)
    if k_max >= 2:
        _ensure("lesson_mlknn_k", _in_range(1, k_max))
        with c1:
            k = int(_bound(st.slider, "Neighbours k", 1, k_max, key="lesson_mlknn_k"))
        _try_this(
            "mlknn",
            "set k = 1 (one neighbour decides)",
            {"lesson_mlknn_k": 1},
            why_disabled="k is 1 already." if k == 1 else "",
        )
    else:
        k = 1
        c1.caption(f"{n_train} training instances: k = 1 is the only choice.")
    with c2:
        index = _instance_picker("lesson_mlknn_instance")
    model = fit_mlknn(k)
    if not _fits_this_data(model):
        return
    explanation = model.explain(split.X_test[index : index + 1], label_names=names)
    table = explanation.table.assign(truth=split.Y_test[index])
    shown = facts.labels_to_show(
        table["posterior"].to_numpy(),
        (table["decision"] == 1).to_numpy() | (table["truth"] == 1).to_numpy(),
        MAX_BARS,
    )
    fig = mlknn_figures.posterior_figure(table.iloc[shown], title_width=WIDE_TITLE_CHARS)
    if len(shown) < L:
        fig.update_layout(
            title=f"ML-KNN per label: predicted when green ≥ grey "
            f"({int(table['decision'].sum())} of {L} labels predicted)<br>"
            f"<sup>{len(shown)} of {L} labels shown: the instance's true and "
            "predicted ones, then the highest posterior</sup>"
        )
        legible(fig, title_width=WIDE_TITLE_CHARS, legend=False)  # wrap the new title
    export.chart(_per_label_legible(fig, len(shown)), key="lesson_mlknn_posterior")
    predictions = model.predict(split.X_test)
    never, missed = facts.never_predicted(predictions, split.Y_test)
    needed = facts.votes_needed(model.prior_, model.cond_pos_, model.cond_neg_)
    hopeless = np.flatnonzero(needed < 0)  # never predicted, so a subset of `never`
    points = [
        (
            f"On the {_count(n_test, 'test instance', 'test instances')} ML-KNN never predicts "
            f"**{len(never)}** of {L} labels; {len(missed)} of them occur in the test split"
            + (f" ({_listing(missed)})." if len(missed) else ".")
            if len(never)
            else "Every label is predicted for at least one of the "
            f"{_count(n_test, 'test instance', 'test instances')}."
        ),
    ]
    if len(hopeless):
        points.append(
            (
                "None of them"
                if len(hopeless) == len(never)
                else f"{len(hopeless)} of them ({_listing(hopeless)})"
            )
            + f" can be predicted with k = {k} whatever the neighbours carry: for every count "
            "0..k the grey bar P(H₀)·P(E|H₀) beats the green one."
        )
    predictable = np.flatnonzero(needed >= 0)
    if len(predictable):
        rarest = predictable[np.argmin(model.prior_[predictable])]
        points.append(
            f"The rarest label that can be predicted, {names[rarest]} (prior P(H₁) = "
            f"{model.prior_[rarest]:.3f}), needs at least **{needed[rarest]}** of the "
            f"k = {k} neighbours to carry it."
        )
    correct = int((table["decision"] == table["truth"]).sum())
    points.append(
        f"Test instance {index}: "
        f"{_count(int(table['decision'].sum()), 'label', 'labels')} predicted, "
        f"{int(table['truth'].sum())} true; {correct} of {L} decisions right."
    )
    _notice(points)


def _compare_settings() -> dict[str, dict[str, Any]]:
    """Each method with the settings of its step (their defaults when a step was not shown)."""
    k, affinity = _groups_settings()
    return {
        "BR": {},
        "PLST": {"M": _setting("lesson_plst_m", _in_range(1, L))},
        "GroPLE": {
            "d": _setting("lesson_grople_d", _in_range(1, _grople_d_max())),
            "lambda2": _setting("lesson_grople_lambda2", lambda v: v in LAMBDA2_GRID),
            "K": k,
            "affinity": affinity,
        },
        "CLEMS": {
            "M": _setting("lesson_clems_m", _in_range(1, _clems_m_max())),
            "cost": _setting("lesson_clems_cost", lambda v: v in COSTS),
        },
        "ML-KNN": {"k": _setting("lesson_mlknn_k", _in_range(1, max(_mlknn_k_max(), 1)))},
    }


def _test_f1(method: str, model: Any) -> np.ndarray:
    del method  # what the result is (see fitting.compute's identity)
    predictions = model.predict(split.X_test)
    # nan: a label neither present nor predicted has no F1 (not a perfect 1, not a 0)
    return per_label_f1(split.Y_test, predictions, zero_division=np.nan)


def _per_label_f1(method: str, params: dict[str, Any]) -> np.ndarray | None:
    model = _fit(method, method, **params)
    if model is None:
        return None
    # after a failure the last good result is the same method's
    return fitting.compute(
        _test_f1, {"method": method, "model": model}, label=f"{method} (F1)", identity=("method",)
    )


def step_compare() -> None:
    st.latex(
        r"F_1^{(l)}=\frac{2\,TP_l}{2\,TP_l+FP_l+FN_l},\qquad "
        r"\text{Macro-}F_1=\frac{1}{L}\sum_{l=1}^{L}F_1^{(l)}"
    )
    st.latex(r"l\ \text{is a tail label}\iff\frac{1}{N}\sum_{n=1}^{N}y_{nl}<\tau")
    tau = experiment.tail_threshold()
    st.markdown(
        "Every method on the same train/test split, one row per label with the rarest at the "
        "top: its training frequency, then each method's test F1. Tail labels, below "
        f"τ = {tau:.1%} of the training instances (the sidebar's tail threshold), are shaded. "
        "Each method uses the settings of its step."
    )
    _ensure("lesson_compare_methods", lambda v: isinstance(v, list) and set(v) <= set(METHODS))
    chosen = _bound(st.multiselect, "Methods", METHODS, key="lesson_compare_methods")
    _try_this(
        "compare",
        "add binary relevance (no compression)",
        {"lesson_compare_methods": ["BR", *chosen]},
        why_disabled="BR is shown." if "BR" in chosen else "",
    )
    settings = _compare_settings()
    if "ML-KNN" in chosen and _mlknn_k_max() < 1:
        st.warning("ML-KNN is left out: the training split has fewer than two instances.")
        chosen = [m for m in chosen if m != "ML-KNN"]
    left_out = [m for m in chosen if m in SQUARE_IN_LABELS] if L > MAX_LABELS_SQUARE else []
    if left_out:
        st.warning(
            f"{', '.join(left_out)} left out: each holds a {L:,} × {L:,} matrix of the label "
            f"space (a basis, or GroPLE's label affinity), too large for {ds.name}; they run "
            f"on data sets with up to {MAX_LABELS_SQUARE:,} labels."
        )
        chosen = [m for m in chosen if m not in left_out]
    if not chosen:
        st.info("Choose at least one method.")
        return
    with st.spinner("Fitting the methods…"):
        fitted = {m: _per_label_f1(m, settings[m]) for m in chosen}
    f1 = {m: scores for m, scores in fitted.items() if scores is not None}
    chosen = list(f1)
    if not chosen:
        return
    frequencies = stats.label_frequencies(split.Y_train, relative=True)
    per_label = pd.DataFrame(
        {
            "label": names,
            "frequency": frequencies,
            **{f"F1 {method}": f1[method] for method in chosen},
        }
    )
    export.chart(
        compare_figures.per_label_figure(
            per_label, chosen, metric="F1", tail_threshold=tau if tau > 0 else None
        ),
        key="lesson_compare_per_label",
    )
    with st.expander("Every label's frequency and test F1 (the table behind the figure)"):
        st.dataframe(
            per_label.sort_values("frequency", kind="stable"),
            hide_index=True,
            column_config={
                "frequency": st.column_config.NumberColumn(format="%.3f"),
                **{f"F1 {m}": st.column_config.NumberColumn(format="%.2f") for m in chosen},
            },
        )
    table = facts.tail_head_f1(frequencies, f1, tau)
    n_tail = int(table["n_tail"].iloc[0])
    described = ", ".join(
        f"{method} (" + ", ".join(f"{k} = {v}" for k, v in settings[method].items()) + ")"
        for method in chosen
        if settings[method]
    )
    points = [f"Settings from the steps: {described}." if described else ""]
    if n_tail == 0:
        points.append(
            f"No label is below τ = {tau:.1%} of the training instances: this data "
            "set has no tail at this threshold (raise it in the sidebar)."
        )
    else:
        means = "; ".join(
            f"{method}: tail **{_f1_text(row.tail_f1)}** vs head {_f1_text(row.head_f1)}"
            for method, row in table.iterrows()
        )
        points.append(
            f"Mean test F1 on the {n_tail} tail and the {L - n_tail} head labels "
            f"(where F1 is defined) — {means}."
        )
        tail_f1 = table["tail_f1"].dropna()
        if len(tail_f1) > 1:
            best = tail_f1[tail_f1 == tail_f1.max()].index.tolist()
            if tail_f1.max() == 0:
                points.append(
                    "No method finds a single tail label in the test split: every tail F1 is 0."
                )
            else:
                points.append(
                    f"On the tail, **{best[0]}** has the highest mean F1 here."
                    if len(best) == 1
                    else f"On the tail, {' and '.join(best)} tie for the highest mean F1."
                )
    absent = int((~split.Y_test.astype(bool).any(axis=0)).sum())
    if absent:
        points.append(
            f"{absent} label{'s do' if absent != 1 else ' does'} not occur in the "
            "test split: F1 is undefined there unless a method predicts the label "
            "(then 0), so those labels have no marker."
        )
    _notice(points)


# -------------------------------------------------------------------------------- page
st.caption(
    "From the label hypercube to the tail: per step the paper's formula, one figure of a live "
    f"model on **{st.session_state.get(source.SOURCE_LABEL_KEY, ds.name)}**, a *try this* "
    "button that sets the step's widgets, and what to notice."
    + (
        " You are on the planted sample (four planted label groups and six tail labels), "
        "where every step shows its point."
        if planted_groups is not None
        else ""
    )
    + " Notation: L labels, N instances, M embedding dimensions, K label groups, k neighbours "
    "(the PLST and CLEMS papers write K for the number of labels)."
)
_reset_widgets_for_new_data()
_ensure("lesson_step", lambda v: v in STEPS)
# a title formats as itself, so a step can also be chosen by its title (as AppTest does)
step = _bound(
    st.radio,
    "Step",
    STEPS,
    format_func=lambda s: SHORT_TITLES.get(s, s),
    horizontal=True,
    key="lesson_step",
    label_visibility="collapsed",
)
st.subheader(TITLES[step])
{
    "hypercube": step_hypercube,
    "plst": step_plst,
    "groups": step_groups,
    "grople": step_grople,
    "clems": step_clems,
    "mlknn": step_mlknn,
    "compare": step_compare,
}[step]()

position = STEPS.index(step)
back, _, forward = st.columns([1, 4, 1])
back.button(
    "← Previous step",
    key="lesson_previous",
    disabled=position == 0,
    on_click=_apply,
    args=({"lesson_step": STEPS[max(position - 1, 0)]},),
)
forward.button(
    "Next step →",
    key="lesson_next",
    disabled=position == len(STEPS) - 1,
    on_click=_apply,
    args=({"lesson_step": STEPS[min(position + 1, len(STEPS) - 1)]},),
)

export.report_button("Lesson")
