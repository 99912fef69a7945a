"""The GroPLE page's context for one run: the data set, its split and the registry's opening."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mlviz.io import Dataset
from mlviz.methods import METHODS
from pages._app import experiment, plain, source

GROPLE = METHODS["GroPLE"]
# The page opens at the registry's default preset (teaching: λ1 = 1, λ2 = 10, α = 0.01, β = 1),
# as Compare and the Lesson do, with d sized by the registry's rule (about half the labels, at
# most the paper's 100): mlviz.methods.Method.default_settings.
PRESET = GROPLE.default_preset
PAPER_D = GROPLE.presets["paper"].settings["d"]  # the paper's d for every data set (Table 2)


@dataclass(frozen=True)
class GroPLEPage:
    """One run of the page: built by :func:`start` on every run, never kept between runs."""

    ds: Dataset
    split: experiment.Split
    #: the registry's opening settings at this data set's shape
    opening: dict[str, Any]

    @property
    def n_labels(self) -> int:
        return self.ds.n_labels


def start() -> GroPLEPage:
    """The context of this run; stops the page with the reason when GroPLE cannot run here."""
    ds = source.current_dataset()
    L = ds.n_labels
    # Stage 1 holds several L x L matrices (8 L^2 bytes each); beyond the registry's cap the
    # page says so instead of filling memory, as the PLST page does.
    if not GROPLE.runs_on(L):
        experiment.explain_and_stop(
            f"GroPLE's first stage compares every pair of labels (a {L:,} × {L:,} affinity and "
            f"its eigenvectors), and V holds d × {L:,} entries: too large for "
            f"{plain.markdown(ds.name)}. This page "
            f"fits data sets with up to {GROPLE.max_labels:,} labels; the Data, Hypercube and "
            "ML-KNN pages work at this size."
        )
    # stage 1 and the latent factors need two training instances (GroPLE says so)
    split = experiment.model_split(min_train=2, needs="GroPLE")
    opening = GROPLE.default_settings(L, len(split.Y_train), preset=PRESET)
    return GroPLEPage(ds=ds, split=split, opening=opening)
