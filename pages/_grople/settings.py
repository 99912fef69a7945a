"""GroPLE's sliders: d, the app's label grouping, λ2 and λ1 up to their bounds, α and β."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import streamlit as st

from mlviz.figures import grople as figures
from mlviz.label_clustering import LabelClustering
from mlviz.methods import half_of_labels
from pages._app import experiment, fitting, grople_bounds, grouping, links, presentation
from pages._grople.context import GROPLE, PRESET, GroPLEPage

LOG_GRID = [0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0]
POSITIVE_GRID = LOG_GRID[1:]  # λ1 > 0 keeps V Vᵀ + λ1 I invertible (Eq. A.2)
# Both λ sliders run up to their bound on the loaded data (figures.lambda_options: the grid,
# continued log-spaced beyond 100 when the bound is larger, then the bound itself, where V
# becomes zero): λ2_max is 964 on delicious (the grid used to stop at 100, where 367 of 400
# group rows were still used), λ1_max 10^3-10^7 on planted, yeast and medical at λ2 = 10 to
# 0.01 (docs/GROPLE.md). At λ2 = 0 no λ1 zeroes V and λ1 keeps the grid, up to 100, from where
# the fits of yeast and medical no longer change (measured).
WIDE_GRID = [0.0, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3, 1e4]


@dataclass(frozen=True)
class Settings:
    """What the sliders chose this run."""

    #: GroPLE's parameters (:meth:`mlviz.methods.Method.make`'s names)
    params: dict[str, Any]
    #: the app's shared grouping (None when fewer than 3 labels occur: one group)
    shared: grouping.Grouping | None
    #: stage 1's label groups on the training split at these K and affinity (None when it
    #: failed: the fit then runs stage 1 itself and says why)
    groups: np.ndarray | None = None

    def estimator(self):
        """The page's GroPLE at these settings. Stage 1 already ran for the λ bounds on the
        same training labels, K, affinity and seed (0) as the fit's own stage 1, so the fit is
        given its groups instead of computing them a second time (the same model: tested)."""
        estimator = GROPLE.make(**self.params)
        if self.groups is not None:
            estimator.set_params(groups=self.groups)
        return estimator


def training_groups(K: int, affinity: str):
    """The label groups of the page's GroPLE fits: stage 1 on the training labels (seed 0).
    Computed once per K and affinity for both λ bounds (each refitted it on every d)."""
    Y_train = experiment.current_split().Y_train
    groups = LabelClustering(n_groups=min(K, Y_train.shape[1]), affinity=affinity, random_state=0)
    return groups.fit(Y_train).labels_


def controls(page: GroPLEPage) -> Settings:
    """Draw the sliders (in a bordered box) and return what they chose."""
    L = page.n_labels
    opening = page.opening
    box = st.container(border=True)
    # while presenting, the notes under the sliders (their ranges and why) fold into one
    # expander below the controls, so that the first figure starts on the first screen
    notes = st.expander("Slider ranges") if presentation.is_on() else None

    def note_slot(slot):
        """Where a slider's note goes: under the slider, or in the expander while presenting."""
        return slot if notes is None else notes

    with box:
        c1, c2, c3 = st.columns(3)
        # the app's one label grouping (pages/_app/grouping.py): affinity and K shared with
        # Label clusters, Hypercube and the Lesson; GroPLE's stage 1 applies them to the
        # training rows (drawn in the page's order: affinity, d, then K)
        affinity_box = c1.container()
        half_d = half_of_labels(L)
        default_d = opening["d"]
        d = links.bound(
            c1.slider,
            "Latent dimension d",
            1,
            max(200, half_d),
            default_d,
            key="grople_d",
            persist_state="session",
            help=f"Opens at d = {default_d}, "
            + (
                f"about half the {L:,} labels: d ≥ L would not compress "
                "(PLST at d ≥ L is binary relevance)."
                if default_d == half_d
                else f"the paper's value for every data set, rather than about half the {L:,} "
                f"labels ({half_d}), to keep the first fit short."
            ),
        )
        if default_d < half_d:
            note_slot(c1).caption(
                f"d opens at {default_d} (the paper's value) rather than about half the {L:,} "
                f"labels ({half_d}), to keep the first fit short: set a larger d and press "
                "**Fit GroPLE** (slower)."
            )
        shared = grouping.controls(affinity_box, c1)
        if shared is not None:
            affinity, n_groups = shared.affinity, shared.k
        else:  # fewer than 3 labels occur: one group, the paper's affinity
            affinity, n_groups = "heat", 1
        # drawn above λ2 but filled after it: λ1's range depends on the chosen λ2 (λ1_max)
        lambda1_slot = c2.container()
        # every V^k is zero from λ2_max on (first V step, Eq. A.3): the slider ends there
        groups = fitting.compute(
            training_groups, {"K": n_groups, "affinity": affinity}, label="Label groups"
        )
        bound = bound1 = bounds = None  # without groups: the grids, unbounded
        if groups is not None:
            bounds = grople_bounds.lambda_bounds(d, groups)
        if bounds is not None:
            bound = bounds.lambda2_max()
        lambda2_grid = figures.lambda_options(LOG_GRID, bound)
        lambda2_default = figures.lambda2_opening(lambda2_grid, bound, opening["lambda2"])
        if st.session_state.get("grople_lambda2", lambda2_default) not in lambda2_grid:
            st.session_state.pop("grople_lambda2", None)  # beyond this data's range: default
        lambda2 = links.bound(
            c2.select_slider,
            "λ2 (group sparsity of V^k)",
            lambda2_grid,
            value=lambda2_default,
            key="grople_lambda2",
            persist_state="session",
        )
        if bound is not None:
            note_slot(c2).caption(
                f"λ2 ≥ {bound:.3g} makes every V^k zero on this training split (λ2_max: the "
                "first V step of Algorithm 1 is then exactly zero), so the slider ends at "
                f"{max(lambda2_grid):g}, the first of its values where V is zero."
            )
        # every V^k is zero above λ1_max at this λ2 (second V step, Eq. A.2-A.3): λ1 ends there
        if bounds is not None:
            bound1 = grople_bounds.lambda1_max(bounds, lambda2)
        # None (failed) or inf (λ2 = 0: no λ1 makes V zero): the grid
        lambda1_grid = figures.lambda_options(POSITIVE_GRID, bound1)
        # opens at the preset's λ1, or the largest option below the bound (the last option, at
        # the bound, is where V is zero)
        below1 = [v for v in lambda1_grid if bound1 is None or v < bound1] or lambda1_grid[:1]
        lambda1_default = max([v for v in below1 if v <= opening["lambda1"]] or below1[:1])
        if st.session_state.get("grople_lambda1", lambda1_default) not in lambda1_grid:
            st.session_state.pop("grople_lambda1", None)  # beyond this λ2's range: default
        lambda1 = links.bound(
            lambda1_slot.select_slider,
            "λ1 (‖U‖² weight)",
            lambda1_grid,
            value=lambda1_default,
            key="grople_lambda1",
            persist_state="session",
            help=f"Opens at λ1 = {opening['lambda1']:g} (GroPLE's {PRESET} preset), not the "
            f"paper's {GROPLE.presets['paper'].settings['lambda1']:g}: only λ1^(1/3) λ2^(2/3) "
            "matters for how many rows switch off (U and V trade scale), and at the paper's "
            "pair every group of the planted sample uses every row (docs/GROPLE.md).",
        )
        if bound1 is not None:
            note_slot(lambda1_slot).caption(
                figures.lambda1_range_caption(bound1, float(lambda2), lambda1_grid)
            )
        alpha = links.bound(
            c3.select_slider,
            "α (latent-correlation term)",
            WIDE_GRID,
            value=opening["alpha"],
            key="grople_alpha",
            persist_state="session",
        )
        beta = links.bound(
            c3.select_slider,
            "β (ℓ1 sparsity of Z)",
            WIDE_GRID,
            value=opening["beta"],
            key="grople_beta",
            persist_state="session",
        )
    params = {
        "d": d,
        "K": n_groups,
        "affinity": affinity,
        "lambda1": lambda1,
        "lambda2": lambda2,
        "alpha": alpha,
        "beta": beta,
    }
    # which preset of the registry the page runs, and what the user changed of it
    st.caption(GROPLE.caption(params, PRESET))
    return Settings(params=params, shared=shared, groups=groups)
