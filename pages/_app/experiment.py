"""Experiment settings (split, feature scaling, tail rule) and the train/test split.

Every model page uses the sidebar's split, or says in words why the data cannot support one
(:func:`model_split`, :func:`explain_and_stop`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np
import streamlit as st

from mlviz import stats
from mlviz.io import Dataset
from mlviz.wording import percent_text
from pages._app import links, plain, source

SPLIT_LABELS = {
    source.SPLIT_OFFICIAL: "the data set's own train/test split",
    source.SPLIT_RANDOM: "random split (test fraction, seed)",
}
TAIL_RULE_KEY = "tail_rule"
TAIL_ADAPTIVE, TAIL_FIXED = "adaptive", "fixed"
TAIL_RULE_LABELS = {
    TAIL_ADAPTIVE: "adaptive: the rarest labels holding a share of all label occurrences",
    TAIL_FIXED: "fixed: labels on fewer than a share of the instances",
}
TAIL_SHARE_KEY = "tail_share"
TAIL_THRESHOLD_KEY = "tail_threshold"
DEFAULT_TAIL_THRESHOLD = 0.05


def tail_rule() -> str:
    """The sidebar's tail rule: ``"adaptive"`` (the default) or ``"fixed"``."""
    rule = st.session_state.get(TAIL_RULE_KEY, TAIL_ADAPTIVE)
    return rule if rule in TAIL_RULE_LABELS else TAIL_ADAPTIVE


def tail_share() -> float:
    """The adaptive rule's share of label occurrences (``mlviz.stats.tail_cutoff``)."""
    return float(st.session_state.get(TAIL_SHARE_KEY, stats.DEFAULT_TAIL_SHARE))


@st.cache_resource(show_spinner=False, max_entries=16)
def _adaptive_cutoff(digest: str, share: float, _ds: Dataset) -> float:
    """The adaptive rule's frequency cut-off on the whole data set; ``digest`` is the key."""
    del digest  # only the cache key
    cutoff = stats.tail_cutoff(stats.label_frequencies(_ds.Y, relative=True), share)
    # inf only when no label occurs at all: every frequency is 0, and 1.0 (a valid fixed
    # threshold for every caller) makes exactly the same labels tail
    return min(cutoff, 1.0)


def tail_threshold() -> float:
    """The relative-frequency cut-off of the sidebar's tail rule, which every page uses.

    Fixed rule: the sidebar's threshold. Adaptive rule (the default):
    ``mlviz.stats.tail_cutoff`` of the loaded data set's label frequencies (all rows), so that
    every page, whatever rows it uses (a training split, each fold's training part), compares
    frequencies with one cut-off through ``mlviz.stats.is_tail``.
    """
    if tail_rule() == TAIL_FIXED:
        return float(st.session_state.get(TAIL_THRESHOLD_KEY, DEFAULT_TAIL_THRESHOLD))
    ds = source.loaded_dataset()
    return _adaptive_cutoff(source.dataset_digest(ds), tail_share(), ds)


def tail_rule_text() -> str:
    """The rule in force, in plain words with its cut-off, for every caption that says "tail".

    No markdown: a caption renders it as is.
    """
    if tail_rule() == TAIL_FIXED:
        return stats.tail_rule_description(tail_threshold())
    return (
        f"{stats.tail_rule_description(share=tail_share())} in the whole data set, here "
        f"labels on fewer than {percent_text(tail_threshold())} of the instances"
    )


def tail_rule_name() -> str:
    """The rule in force, without its cut-off (captions that state the cut-off themselves)."""
    if tail_rule() == TAIL_FIXED:
        return "fixed tail rule"
    return f"{stats.tail_rule_description(share=tail_share())} in the whole data set"


def relative_label_frequencies(ds: Dataset) -> np.ndarray:
    """Each label's share of the instances, on all rows (:func:`source.of_dataset` keeps it per
    data set: the sidebar counts the tail labels on every rerun of every page)."""
    return stats.label_frequencies(ds.Y, relative=True)


def tail_sidebar_caption(ds: Dataset) -> str:
    """The sidebar's count: how many of the data set's labels the rule makes tail (all rows)."""
    frequencies = source.of_dataset(ds, relative_label_frequencies)
    n_tail = int(stats.is_tail(frequencies, tail_threshold()).sum())
    return (
        f"{n_tail} of {ds.n_labels} labels are tail labels on the whole data set "
        f"({tail_rule_text()}). Pages count them on the rows they use, with the same cut-off."
    )


def experiment_settings() -> None:
    """Sidebar: the train/test split, feature scaling and tail threshold every page shares.

    A data set that ships its own train/test files offers that split, as the papers use it
    (the default), or a random split.
    """
    with st.sidebar.expander("Experiment settings"):
        mode = source.SPLIT_RANDOM
        if st.session_state.get(source.HAS_OFFICIAL_SPLIT_KEY):
            mode = links.bound(
                st.radio,
                "Split",
                [source.SPLIT_OFFICIAL, source.SPLIT_RANDOM],
                format_func=SPLIT_LABELS.__getitem__,
                key=source.SPLIT_MODE_KEY,
                persist_state="session",
                help="The published train/test files (as in the papers), or a random split of "
                "the whole data set.",
            )
        n_train = st.session_state.get(source.OFFICIAL_TRAIN_KEY)
        loaded = source.DATASET_KEY in st.session_state
        if mode == source.SPLIT_OFFICIAL and n_train is not None and loaded:
            n_test = source.loaded_dataset().n_samples - n_train
            st.caption(f"{n_train:,} training and {n_test:,} test instances, as published.")
        else:
            links.bound(
                st.slider,
                "Test fraction",
                0.1,
                0.5,
                0.3,
                0.05,
                key="test_size",
                persist_state="session",
            )
            links.bound(
                st.number_input,
                "Split seed",
                0,
                10_000,
                0,
                key="split_seed",
                persist_state="session",
            )
        links.bound(
            st.selectbox,
            "Feature scaling",
            list(FEATURE_SCALING_LABELS),
            key=FEATURE_SCALING_KEY,
            persist_state="session",
            format_func=FEATURE_SCALING_LABELS.get,
            help="Fitted on training rows only (in each fold on the Compare page). Unit rows "
            "suit bag-of-words features, where long documents otherwise get every label.",
        )
        rule = links.bound(
            st.radio,
            "Tail rule",
            list(TAIL_RULE_LABELS),
            format_func=TAIL_RULE_LABELS.__getitem__,
            key=TAIL_RULE_KEY,
            persist_state="session",
            help="Adaptive (default): the rarest labels that together hold at most the chosen "
            "share of all label occurrences, so a model that never predicts any of them loses "
            "at most that share of micro recall; it adapts to the data set. Fixed: labels on "
            "fewer than a share of the instances (on data with many rare labels it can call "
            "almost every label tail).",
        )
        if rule == TAIL_FIXED:
            links.bound(
                st.slider,
                "Tail threshold (share of training instances)",
                0.005,
                0.5,
                DEFAULT_TAIL_THRESHOLD,
                0.005,
                format="%.3f",
                key=TAIL_THRESHOLD_KEY,
                persist_state="session",
                help="Labels carried by a smaller share of the training instances count as "
                "tail labels on every page.",
            )
        else:
            links.bound(
                st.slider,
                "Tail share of label occurrences",
                0.01,
                0.2,
                stats.DEFAULT_TAIL_SHARE,
                0.01,
                format="%.2f",
                key=TAIL_SHARE_KEY,
                persist_state="session",
                help="The tail is the rarest labels that together hold at most this share of "
                "all label occurrences (5% by default: a minority of the labels on every "
                "shared data set).",
            )
        if loaded:
            st.caption(tail_sidebar_caption(source.loaded_dataset()))


@dataclass(frozen=True)
class Split:
    """The train/test split every model page uses; the index arrays are rows of the data set."""

    X_train: Any
    X_test: Any
    Y_train: np.ndarray
    Y_test: np.ndarray
    train_index: np.ndarray
    test_index: np.ndarray

    @property
    def n_train(self) -> int:
        """The number of training rows (the rows the model pages count tail labels on)."""
        return int(len(self.train_index))


FEATURE_SCALING_KEY = "feature_scaling"
# the names of mlviz.preprocessing.FEATURE_SCALINGS (not imported: it loads scikit-learn,
# which the first page does without; a test checks the two agree)
FEATURE_SCALING_LABELS = {
    "none": "none (as loaded)",
    "standardise": "standardise each feature",
    "unit_rows": "each instance to unit length",
}


def feature_scaling() -> str:
    """The sidebar's feature scaling (a name of ``mlviz.preprocessing.FEATURE_SCALINGS``)."""
    value = st.session_state.get(FEATURE_SCALING_KEY, "none")
    return value if value in FEATURE_SCALING_LABELS else "none"


def split_settings() -> tuple:
    """What the split depends on besides the data set: a cache key part for every result."""
    standardize = feature_scaling()
    n_train = st.session_state.get(source.OFFICIAL_TRAIN_KEY)
    if n_train is not None:
        return (source.SPLIT_OFFICIAL, int(n_train), standardize)
    return (
        source.SPLIT_RANDOM,
        float(st.session_state.get("test_size", 0.3)),
        int(st.session_state.get("split_seed", 0)),
        standardize,
    )


@st.cache_resource(show_spinner=False, max_entries=16)
def _split(digest: str, settings: tuple, _ds: Dataset) -> Split:
    """Split by ``settings`` (:func:`split_settings`); ``digest`` and ``settings`` are the key.

    Missing feature values (NaN, loaded with ``missing="keep"``) are filled with the mean of
    the training rows, then the features are scaled as chosen, every step fitted on the
    training rows only (``mlviz.preprocessing.fit_transform_split``).
    """
    del digest  # only the cache key
    # imported here so that the app's first page renders without loading scikit-learn
    from sklearn.model_selection import train_test_split

    from mlviz.preprocessing import fit_transform_split

    if settings[0] == source.SPLIT_OFFICIAL:
        n_train = settings[1]
        train, test = np.arange(n_train), np.arange(n_train, _ds.n_samples)
    else:
        train, test = train_test_split(
            np.arange(_ds.n_samples), test_size=settings[1], random_state=settings[2]
        )
    X_train, X_test = fit_transform_split(
        _ds.X[train], _ds.X[test], settings[-1], impute=bool(source.n_missing(_ds))
    )
    return Split(X_train, X_test, _ds.Y[train], _ds.Y[test], train, test)


def current_split() -> Split:
    """The split of the current data set: its official one, or random (Experiment settings)."""
    ds = source.loaded_dataset()
    return _split(source.dataset_digest(ds), split_settings(), ds)


# ------------------------------------------------------------------------ degenerate data
def explain_and_stop(message: str) -> NoReturn:
    """Say in words why the rest of the page cannot be drawn on this data, and stop there."""
    st.info(message)
    st.stop()


def model_split(*, min_train: int = 1, needs: str = "this page") -> Split:
    """The sidebar's split, or an explanation (and a stop) when a side would be too small."""
    ds = source.loaded_dataset()
    if ds.n_samples < 2:
        explain_and_stop(
            f"{needs} needs a training and a test split, so at least 2 instances; "
            f"{plain.markdown(ds.name)} has {ds.n_samples}."
        )
    try:
        split = current_split()
    except ValueError as err:
        explain_and_stop(
            f"The sidebar's train/test split cannot be made on {plain.markdown(ds.name)}: {err}"
        )
    n_train, n_test = len(split.Y_train), len(split.Y_test)
    if n_test == 0 or n_train < min_train:
        explain_and_stop(
            f"{needs} needs at least {min_train} training and 1 test instance; the split of "
            f"{plain.markdown(ds.name)} ({ds.n_samples} instances) gives {n_train} and "
            f"{n_test}. Change the "
            "test fraction in Experiment settings."
        )
    return split
