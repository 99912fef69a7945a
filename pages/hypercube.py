"""Hypercube page: the label sets a data set occupies, as vertices of {0,1}^L."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import streamlit as st

from mlviz import hypercube
from mlviz.figures import hypercube as figures
from mlviz.methods import AFFINITY_LABELS, METHODS
from mlviz.stats import distinct_labelsets
from pages._app import (
    experiment,
    export,
    fitting,
    grouping,
    links,
    plain,
    presentation,
    source,
)

# UMAP compiles its numba code on its first call in a process (about a minute). This page (the
# only one offering UMAP) starts mlviz.hypercube.warm_up_umap once per server process, after
# its first run has drawn. Not at app start: numba holds the GIL while it compiles, and
# started after the first page it delayed that page's first chart from 4.6 s to 7.3 s and the
# next pages' first visits by ~1-2 s (benchmarks/bench_app.py, idle machine).
UMAP_WARM_UP_ENV = "MLVIZ_UMAP_WARM_UP"  # "0" turns the warm-up off (the tests do)


@st.cache_resource(show_spinner=False)
def umap_warm_up_holder() -> dict:
    """This server process's warm-up: {"thread": UmapWarmUp or None, "lock": Lock}."""
    return {"lock": threading.Lock()}


def start_umap_warm_up() -> None:
    """Start the UMAP warm-up thread unless already started, umap-learn is missing, or
    ``MLVIZ_UMAP_WARM_UP=0``. Returns at once: the compilation runs in a daemon thread."""
    holder = umap_warm_up_holder()
    with holder["lock"]:
        if "thread" in holder:
            return
        holder["thread"] = None
        if os.environ.get(UMAP_WARM_UP_ENV, "1") != "0":
            holder["thread"] = hypercube.warm_up_umap()


def umap_warm_up():
    """The started warm-up thread (``mlviz.hypercube.UmapWarmUp``), or None if none runs."""
    return umap_warm_up_holder().get("thread")


ds = source.current_dataset()
st.title("The label hypercube")
presentation.intro(
    r"Each label set is a corner (vertex) of the hypercube $\{0,1\}^L$. A data set occupies "
    r"only a few of its $2^L$ corners; label-embedding methods look for a low-dimensional "
    "space in which those occupied corners stay apart (PLST paper, §2–3)."
)


def count_label_sets() -> int:
    return distinct_labelsets(ds.Y)


n_label_sets = fitting.compute(
    count_label_sets,
    label="Counting the label sets",
    uses_split=False,
)
if n_label_sets is None:
    st.stop()
max_vertices = n_label_sets
if ds.n_labels != 3:  # the literal cube below has at most 8 corners
    max_vertices = int(
        links.bound(
            st.number_input,
            "Label sets drawn (most frequent first)",
            min_value=1,
            max_value=n_label_sets,
            value=min(hypercube.DEFAULT_MAX_VERTICES, n_label_sets),
            step=500,
            key="cube_max_vertices",
            help=f"This data set occupies {n_label_sets:,} vertices. The figure, its edges and "
            "its projection use the most frequent ones only; more vertices take longer to "
            "project and to draw in the browser.",
        )
    )


def occupied_vertices(max_vertices: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    vertices, counts = hypercube.occupied_vertices(ds.Y, max_vertices=max_vertices)
    return vertices, counts, hypercube.hamming_edges(vertices)


occupied = fitting.compute(
    occupied_vertices,
    {"max_vertices": max_vertices},
    label="Finding the occupied vertices",
    uses_split=False,
)
if occupied is None:
    st.stop()
vertices, counts, edges = occupied
n_drawn = len(vertices)
drawn_note = (
    f"The figure draws the {n_drawn:,} most frequent, which carry "
    f"{counts.sum() / ds.n_samples:.1%} of the instances; "
    if n_drawn < n_label_sets
    else "All are drawn; "
)
st.caption(
    # maths as maths: only numbers go into the formula, never user text
    f"{n_label_sets:,} occupied vertices out of $2^{{{ds.n_labels}}}$ "
    f"(log10 share {np.log10(n_label_sets) - ds.n_labels * np.log10(2):.1f}). "
    f"{drawn_note}{len(edges):,} pairs of drawn vertices are one label apart."
)

if ds.n_labels == 3:
    n_dirs = links.bound(
        st.slider, "PLST directions to draw (M)", 0, 3, 1, key="cube_m", persist_state="session"
    )
    plst = None
    if n_dirs and ds.n_samples < 2:
        st.info(
            f"PLST's directions need a training split, so at least 2 instances; "
            f"{plain.markdown(ds.name)} has {ds.n_samples}. The cube is drawn without them."
        )
    elif n_dirs:
        experiment.model_split(needs="PLST's directions")
        plst = fitting.fit(METHODS["PLST"].make(M=n_dirs), label="PLST")
    fig = figures.cube_figure(
        vertices,
        counts,
        ds.label_names,
        offset=plst.offset_ if plst is not None else None,
        directions=plst.components_[:n_dirs] if plst is not None else None,
    )
    export.chart(fig, key="cube_chart")
    st.caption(
        "The literal cube: filled corners carry instances (bigger = more), hollow ones none. "
        + (
            "The black × is PLST's reference point o (the mean label vector of the training "
            "split); coloured lines are its principal directions. PLST keeps the coordinates of "
            "y − o along the first M lines and rounds back to the nearest corner: corners far "
            "from these lines are the ones it confuses."
            if plst is not None
            else "Raise M to draw PLST's principal directions."
        )
    )
    st.stop()

c1, c2, c3 = st.columns(3)
dim = links.bound(
    c2.radio, "Dimensions", [2, 3], horizontal=True, key="cube_dim", persist_state="session"
)
# UMAP on 2,000 label sets of 983 labels (delicious-shaped), benchmarks/bench_scale.py step
# "umap" on a busy 2-core machine: the first call in a process (import + numba compilation)
# and a call once compiled. The warm-up thread of start_umap_warm_up (above), started when this
# page has first drawn, compiles meanwhile.
UMAP_MEASURED = (
    "measured by benchmarks/bench_scale.py on a busy 2-core machine: 67 s for a first UMAP of "
    "2,000 label sets of 983 labels in a fresh process, 16 s once compiled"
)


@st.cache_resource(show_spinner=False)
def _umap_timings() -> dict[str, tuple[int, float]]:
    """The last UMAP projection measured in this server process: (vertices, seconds)."""
    return {}


def _umap_compiled() -> bool:
    warm_up = umap_warm_up()
    finished = warm_up is not None and warm_up.seconds is not None and warm_up.error is None
    return finished or "last" in _umap_timings()


methods = {
    "pca": "PCA (PLST's view)",
    "mds": "classical MDS",
    "umap": "UMAP (slow: seconds per thousand label sets)"
    if _umap_compiled()
    else "UMAP (slow: about a minute the first time)",
}
umap_missing = not hypercube.umap_available()
if umap_missing or len(vertices) <= dim + 2:  # UMAP needs a neighbourhood graph
    del methods["umap"]
method = links.bound(
    c1.selectbox,
    "Projection",
    list(methods),
    key="cube_projection",
    persist_state="session",
    format_func=methods.get,
)
colour_by = links.bound(
    c3.radio,
    "Colour by",
    ["label count", "label cluster"],
    key="cube_colour",
    persist_state="session",
)
# the app's one label grouping (pages/_app/grouping.py): the same affinity, K and groups as
# the Label clusters page; its widgets are drawn below the figure's settings
colour_by_groups = colour_by == "label cluster"
if umap_missing:
    st.caption(
        "The UMAP projection needs the optional package umap-learn: "
        "`pip install 'mlviz[umap]'`, then restart the app."
    )
elif "umap" not in methods:
    st.caption(f"UMAP is offered from {dim + 3} drawn vertices on; the figure draws {n_drawn}.")


def _umap_spinner() -> str:
    """What this UMAP will cost, from what this server has measured or the benchmark."""
    head = f"UMAP of {n_drawn:,} label sets…"
    last = _umap_timings().get("last")
    if last is not None:
        return (
            f"{head} (the last UMAP on this server took {last[1]:.0f} s for {last[0]:,} label sets)"
        )
    warm_up = umap_warm_up()
    if _umap_compiled():  # by the warm-up: no UMAP has run on this server yet
        return (
            f"{head} Its code was compiled in the background after this page first opened (in "
            f"{warm_up.seconds:.0f} s); {UMAP_MEASURED}."
        )
    if warm_up is not None and warm_up.is_alive() and warm_up.started_at is not None:
        return (
            f"{head} Its code is still being compiled in the background (for "
            f"{time.perf_counter() - warm_up.started_at:.0f} s so far), and this waits for "
            f"it: {UMAP_MEASURED}."
        )
    return f"{head} The first UMAP on this server also compiles its code: {UMAP_MEASURED}."


def projection(method: str, dim: int, max_vertices: int) -> tuple[np.ndarray, np.ndarray | None]:
    del max_vertices  # the key of the drawn vertices
    start = time.perf_counter()
    projected = hypercube.project_vertices(
        vertices, counts, method=method, n_components=dim, random_state=0
    )
    if method == "umap":
        _umap_timings()["last"] = (len(vertices), time.perf_counter() - start)
    return projected


# cached per data set, number of drawn vertices, method and dimension
result = fitting.compute(
    projection,
    {"method": method, "dim": dim, "max_vertices": max_vertices},
    label="Projection",
    uses_split=False,
    spinner=_umap_spinner() if method == "umap" else f"Projecting {n_drawn:,} label sets…",
)
if result is None:
    st.stop()
coords, loadings = result
colour, colour_title = None, "labels in set"
if colour_by_groups:
    with st.container(border=True):
        g1, g2 = st.columns(2)
        shared = grouping.controls(g1, g2)
    if shared is not None:
        colour = hypercube.dominant_group(vertices, shared.full_labels(ds.n_labels))
        colour_title = "dominant group"
        grouping.record("hypercube", shared.affinity, shared.k, shared.labels_)
        st.caption(
            f"Colour: the label group holding most of each set's labels — the app's grouping "
            f"(K = {shared.k}, {AFFINITY_LABELS[shared.affinity]}, all rows), the same groups "
            "as on the Label clusters page."
        )
show_axes = method == "pca" and links.bound(
    st.checkbox,
    "Draw the label axes (biplot)",
    value=ds.n_labels <= 20,
    key="cube_axes",
    persist_state="session",
)
export.chart(
    fitting.figure(
        figures.hypercube_figure,
        coords,
        vertices,
        counts,
        edges,
        ds.label_names,
        color=colour,
        color_title=colour_title,
        loadings=loadings if show_axes else None,
        title=(
            f"Showing {n_drawn:,} of {n_label_sets:,} label sets (the most frequent)"
            if n_drawn < n_label_sets
            else f"All {n_label_sets:,} occupied vertices of the label hypercube"
        ),
    ),
    key="hypercube_chart",
)
st.caption(
    "Nodes are occupied label sets (size ~ √instances); grey lines join sets one label apart. "
    + (
        (
            "With PCA the axes are PLST's first principal directions, so this is what PLST "
            f"with M = {dim} keeps"
            if n_drawn == n_label_sets
            else "With PCA the axes are the principal directions of the instances on the drawn "
            "label sets (PLST's directions when every set is drawn)"
        )
        + (
            "; red arrows show where each label's axis points"
            + (
                " (a name that would cover a longer arrow's is left off: hover an arrow's tip "
                "for its label). "
                if dim == 2
                else ". "
            )
            if show_axes
            else ". "
        )
        if method == "pca"
        else f"Classical MDS keeps the Hamming distances as well as {dim} dimensions allow. "
        if method == "mds" and n_drawn <= hypercube.DEFAULT_N_LANDMARKS
        else f"Landmark MDS: classical MDS of {hypercube.DEFAULT_N_LANDMARKS} MaxMin landmark "
        "sets, every other set placed by its Hamming distances to them. "
        if method == "mds"
        else "UMAP keeps each label set's Hamming neighbours close; distances between far "
        "groups mean little. "
    )
    + "Sets that overlap here are the ones a low-dimensional embedding cannot tell apart."
)

export.report_button("Hypercube")
start_umap_warm_up()  # after this page has drawn: UMAP may be chosen next
