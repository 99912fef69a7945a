"""The methods Compare runs and their settings: every list and default from the registry.

Every method opens at the registry's settings (:meth:`mlviz.methods.Method.default_settings`),
as its page and the Lesson do: M and d about half the labels, ML-KNN's k and s, CLEMS's cost,
GroPLE's preset; GroPLE groups the labels by the app's grouping (K and affinity, the GroPLE
page's and the Lesson's). A method with several presets gets a menu; a preset that fixes a
setting (CLEMS's picture: M = 2, GroPLE's paper: d = 100) wins over the shared slider.
"""

from __future__ import annotations

import contextlib
from typing import Any

import scipy.sparse as sp
import streamlit as st

from mlviz.evaluation import dask_backend
from mlviz.io import Dataset
from mlviz.methods import COST_LABELS, METHODS, PAPER_D, SELECTIONS
from mlviz.preprocessing import has_missing, with_feature_steps
from mlviz.wording import counted
from pages._app import experiment, grouping, links, plain
from pages._compare.context import DASK_SCHEDULER_VARIABLE, Compare

# The page estimates a run before it starts from each method's measured rates, every step
# included (the registry's Method.cv_seconds: per instance-label cell, and for ML-KNN per
# pair of instances; benchmarks/bench_compare_estimate.py). (Issue 31: one rate for every
# method said ~23 s for a run of 106 s, CLEMS alone 90 s.)
# issue 14's budget for a button is 30 s; the margin covers the page's own work and the
# estimate's error (3 folds, estimated 29 s, took 33 s through AppTest at load 2)
BUTTON_SECONDS = 25
#: Session key: what Compare fits each chosen method with ({method: settings}), as the
#: caption states it (tests compare it with the method pages and the Lesson).
SETTINGS_KEY = "_compare_settings"
#: The methods with a measured rate (the others count as the slowest of these).
MEASURED = [m for m in METHODS.values() if m.cv_measured]


def runnable(page: Compare, chosen: list[str]) -> list[str]:
    """The chosen methods that run on this data set; the others are named in a warning.

    BR, PBR, PLST and CPLST hold an L x L basis of the label space and GroPLE an L x L label
    affinity (8 L^2 bytes each, 800 MB at 10,000 labels): above the registry's cap they are
    left out with a note, as the PLST page stops there.
    """
    L = page.n_labels
    left_out = [m for m in chosen if not METHODS[m].runs_on(L)]
    if left_out:
        cap = min(METHODS[m].max_labels for m in left_out)
        at_any_size = [n for n, m in METHODS.items() if m.max_labels is None]
        st.warning(
            f"{', '.join(left_out)} left out: each holds a {L:,} × {L:,} matrix of the label "
            "space (a basis, or GroPLE's label affinity), too large for "
            f"{plain.markdown(page.ds.name)}; they run "
            f"on data sets with up to {cap:,} labels. {', '.join(at_any_size[:-1])} and "
            f"{at_any_size[-1]} run at this size."
        )
    return [m for m in chosen if m not in left_out]


def estimated_seconds(ds: Dataset, chosen: list[str], folds: int) -> float:
    """Rough run time of ``chosen`` at ``folds`` from each method's measured rate; a method
    without one counts as the slowest measured (its own time is unknown: the caption says)."""
    seconds = {m.name: m.cv_seconds(ds.n_samples, ds.n_labels, folds) for m in MEASURED}
    slowest = max(seconds.values())
    return sum(seconds.get(m, slowest) for m in chosen)


def choose(page: Compare) -> tuple[list[str], int, int]:
    """The methods menu and the folds slider: (the runnable chosen methods, folds, the folds
    slider's opening value)."""
    ds = page.ds
    c1, c2 = st.columns([3, 1])
    methods = links.bound(
        c1.multiselect,
        "Methods",
        list(METHODS),
        default=list(SELECTIONS["compare"]),
        key="compare_methods",
        persist_state="session",
    )
    methods = runnable(page, methods)
    max_folds = min(10, ds.n_samples)
    default_folds = max(
        [
            f
            for f in range(2, 6)
            if estimated_seconds(ds, methods or list(SELECTIONS["compare"])[:1], f)
            <= BUTTON_SECONDS
        ]
        or [2]
    )
    if max_folds > 2:
        n_splits = links.bound(
            c2.slider,
            "Folds",
            2,
            max_folds,
            min(default_folds, max_folds),
            key="compare_folds",
            persist_state="session",
        )
    else:
        n_splits = 2
        c2.caption(f"2 folds (the data set has {ds.n_samples} instances).")
    return methods, n_splits, default_folds


def method_parameters(page: Compare) -> dict[str, Any]:
    """The "Method parameters" expander: the shared M, k, cost, d and each method's preset."""
    L = page.n_labels
    with_m = [n for n, m in METHODS.items() if m.symbol == "M"]
    opening = {
        name: method.default_settings(L, page.ds.n_samples) for name, method in METHODS.items()
    }
    assert len({opening[n]["M"] for n in with_m}) == 1  # one M rule for every M-method
    with st.expander("Method parameters"):
        p1, p2, p3, p4 = st.columns(4)
        if L > 1:
            M = links.bound(
                p1.slider,
                f"M ({', '.join(with_m)})",
                1,
                L,
                opening[with_m[0]]["M"],
                key="compare_m",
                persist_state="session",
                help="Opens at about half the labels (the registry's M, as on the method pages).",
            )
        else:
            M = 1
            p1.caption(f"M = 1 ({', '.join(with_m)}): the data set has one label.")
        k = links.bound(
            p2.slider,
            "k (ML-KNN)",
            1,
            30,
            min(opening["ML-KNN"]["k"], 30),
            key="compare_k",
            persist_state="session",
        )
        cost = links.bound(
            p3.selectbox,
            "CLEMS cost",
            list(COST_LABELS),
            index=list(COST_LABELS).index(opening["CLEMS"]["cost"]),
            key="compare_cost",
            persist_state="session",
        )
        d = links.bound(
            p4.slider,
            "d (GroPLE)",
            1,
            max(200, L),
            opening["GroPLE"]["d"],
            key="compare_d",
            persist_state="session",
            help="Opens at the registry's d, as the GroPLE page and the Lesson do: about half "
            f"the labels, at most the paper's {PAPER_D}.",
        )
        with_presets = [n for n, m in METHODS.items() if len(m.presets) > 1]
        preset_columns = st.columns(len(with_presets))
        presets = {
            name: links.bound(
                slot.selectbox,
                f"{name} preset",
                list(METHODS[name].presets),
                key=f"compare_preset_{name.lower().replace('-', '')}",
                persist_state="session",
                help="; ".join(f"{p.name}: {p.why}" for p in METHODS[name].presets.values()) + ".",
            )
            for name, slot in zip(with_presets, preset_columns, strict=True)
        }
    return {"M": M, "k": k, "cost": cost, "d": d, "presets": tuple(presets.items())}


def grople_grouping() -> tuple[int, str]:
    """GroPLE's K and affinity: the app's label grouping (one group below 3 labels)."""
    shared = grouping.settings()
    if shared is None:
        return 1, "heat"
    affinity, n_groups = shared
    return int(n_groups), affinity


def run_parameters(page: Compare, methods: list[str], n_splits: int) -> dict[str, Any]:
    """Everything a cross-validation run depends on besides the data set: its cache key."""
    shared = method_parameters(page)
    # the app's grouping is fitted only when GroPLE runs (a spectrum of the labels)
    n_groups, affinity = grople_grouping() if "GroPLE" in methods else (None, "heat")
    return {
        "scaling": experiment.feature_scaling(),
        "impute": has_missing(page.ds.X),
        "methods": tuple(methods),
        "folds": n_splits,
        **shared,
        "K": n_groups,
        "affinity": affinity,
        "tail": page.tail,
        "tail_rule": experiment.tail_rule_text(),
        "scheduler": page.scheduler,
    }


def settings_of(ds: Dataset, name: str, params: dict, dimension: int | None = None) -> dict:
    """The settings Compare fits ``name`` with: the registry's at the chosen preset, the page's
    shared M, d, k and cost where the preset does not fix them, and ``dimension`` (the sweep)
    over M (at most L) and d."""
    L = ds.n_labels
    method = METHODS[name]
    preset = dict(params["presets"]).get(name, method.default_preset)
    settings = method.default_settings(L, ds.n_samples, preset=preset, n_groups=params["K"])
    shared = {
        "M": params["M"],
        "d": params["d"],
        "k": params["k"],
        "cost": params["cost"],
        "affinity": params["affinity"],
    }
    fixed = method.presets[preset].fixed(L)
    settings.update({key: v for key, v in shared.items() if key in settings and key not in fixed})
    if dimension is not None:
        settings.update({key: v for key, v in (("M", min(dimension, L)), ("d", dimension))})
    return {key: v for key, v in settings.items() if key in method.settings}


def make(ds: Dataset, name: str, params: dict, dimension: int | None = None):
    """A fresh estimator for a method name, from the registry, at :func:`settings_of`."""
    estimator = METHODS[name].make(**settings_of(ds, name, params, dimension))
    # the sidebar's imputation and scaling, fitted inside each fold on its training part
    return with_feature_steps(
        estimator, params["scaling"], sparse=sp.issparse(ds.X), impute=params["impute"]
    )


def backend(scheduler: str):
    """The Dask backend when MLVIZ_DASK_SCHEDULER names a scheduler, else joblib's default."""
    return dask_backend(scheduler) if scheduler else contextlib.nullcontext()


def scheduler_error(scheduler: str, err: Exception) -> ValueError:
    """What the page says when the named Dask scheduler cannot be used."""
    return ValueError(
        f"could not use the Dask scheduler {scheduler!r} named by {DASK_SCHEDULER_VARIABLE}: {err}"
    )


def describe(page: Compare, params: dict, default_folds: int) -> None:
    """The captions under the settings: what each method is fitted with, and the estimate."""
    ds, methods, n_splits = page.ds, list(params["methods"]), params["folds"]
    st.session_state[SETTINGS_KEY] = {name: settings_of(ds, name, params) for name in methods}
    presets = dict(params["presets"])
    if methods:
        st.caption(
            "Settings: "
            + "; ".join(
                METHODS[name].describe(settings, presets.get(name))
                for name, settings in st.session_state[SETTINGS_KEY].items()
            )
            + "."
        )
    if methods and estimated_seconds(ds, methods, n_splits) > 10:
        five = f"; 5 folds ~{estimated_seconds(ds, methods, 5):.0f} s" if n_splits != 5 else ""
        unmeasured = [m for m in methods if not METHODS[m].cv_measured]
        st.caption(
            f"Rough estimate at this size ({ds.n_samples:,} instances × {ds.n_labels:,} "
            f"labels): ~{estimated_seconds(ds, methods, n_splits):.0f} s for "
            f"{counted(len(methods), 'method')} × {n_splits} folds{five} (each method's rate "
            "measured at its default settings on a delicious-shaped set"
            + (
                ", ML-KNN's neighbour search also on tmc2007-500's 28,596 rows"
                if any(METHODS[m].cv_seconds_per_pair for m in methods)
                else ""
            )
            + "; 2 cores"
            + (
                f"; {', '.join(unmeasured)} not measured, counted as the slowest measured"
                if unmeasured
                else ""
            )
            + ")."
            + (
                f" The folds slider opened at {default_folds}, the most estimated to finish "
                f"within ~{BUTTON_SECONDS} s."
                if default_folds < 5
                else ""
            )
        )
