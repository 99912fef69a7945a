"""The Compare page's context for one run: the data set and the settings every part reads."""

from __future__ import annotations

import os
from dataclasses import dataclass

from mlviz.io import Dataset
from pages._app import experiment, source

#: Environment variable naming a Dask scheduler for the cross-validation (``host:port``).
DASK_SCHEDULER_VARIABLE = "MLVIZ_DASK_SCHEDULER"


@dataclass(frozen=True)
class Compare:
    """One run of the page: built by :func:`start` on every run, never kept between runs."""

    ds: Dataset
    #: the tail cut-off (a share of the training instances), None when 0: no tail label
    tail: float | None
    #: the Dask scheduler's address, "" for joblib's default backend
    scheduler: str

    @property
    def n_labels(self) -> int:
        return self.ds.n_labels


def start() -> Compare:
    """The context of this run, at the page's top level (it routes a page run alone)."""
    ds = source.current_dataset()
    threshold = experiment.tail_threshold()
    return Compare(
        ds=ds,
        tail=threshold if threshold > 0 else None,  # 0: no label is a tail label
        scheduler=os.environ.get(DASK_SCHEDULER_VARIABLE, "").strip(),
    )
