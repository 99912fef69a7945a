"""The app's work budgets, in one place (issue 24: bounded work per session).

A class shares one server (2 cores): one session's upload must not stall it. Three layers:

1. **Upload size**: ``server.maxUploadSize`` in ``.streamlit/config.toml`` (MB), which
   Streamlit enforces before the file reaches the app; :data:`MAX_UPLOAD_MB` is the same
   number (a test checks that they agree).
2. **Upload shape**, checked right after parsing (:func:`upload_refusal`): at most
   :data:`MAX_UPLOAD_LABELS` label columns and :data:`MAX_UPLOAD_CELLS` values (rows ×
   (features + labels)). A dense float64 X of 50 M cells is 400 MB; every page makes a few
   copies (split, scaling, imputation), so more would break the ~2 GB a session may use.
   The loaders check the columns (:data:`MAX_UPLOAD_COLUMNS`), the cells and, for ARFF, the
   values written (:data:`MAX_UPLOAD_ARFF_VALUES`) from the header and a count of the lines
   *before* parsing (:func:`loader_budgets`), so that a file over budget is refused in well
   under a second instead of being parsed first (issue 29: a 1 M-column CSV took 135 s).
3. **Per page**, what it is about to compute:

   * rows: above :data:`MAX_ROWS` rows every page computes on a seeded random sample of
     :data:`MAX_ROWS` rows (:func:`sample_rows`), and says so at the top of the page. The
     largest real data sets the users bring have ~16k rows, so they are never sampled; the
     cost of every model grows at least linearly with N (ML-KNN's neighbour search
     quadratically), and at 330k rows single pages took minutes.
   * labels: methods that hold an L × L matrix run up to :data:`MAX_LABELS_SQUARE` labels
     (the registry's cap, :data:`mlviz.methods.MAX_LABELS_SQUARE`, reused); pages whose own
     views are quadratic in L (Label clusters' affinity and eigenvectors, the Data page's
     co-occurrence counts, the Hypercube's label axes) refuse above it with the reason
     (:func:`labels_refusal`).

Tests set these module constants (``monkeypatch``) to exercise the statements on small data.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from mlviz.clems import EXACT_MAX_CANDIDATES
from mlviz.io import Dataset
from mlviz.methods import MAX_LABELS_SQUARE

__all__ = [
    "MAX_LABELS_SQUARE",
    "MAX_ROWS",
    "MAX_UPLOAD_ARFF_VALUES",
    "MAX_UPLOAD_CELLS",
    "MAX_UPLOAD_COLUMNS",
    "MAX_UPLOAD_LABELS",
    "MAX_UPLOAD_MB",
    "OOF_SCORES_CELLS",
    "REFIT_CELLS",
    "labels_refusal",
    "loader_budgets",
    "sample_rows",
    "upload_refusal",
]

#: ``server.maxUploadSize`` of ``.streamlit/config.toml`` (MB): the largest file Streamlit
#: accepts. The largest MULAN sets are ~6 MB as ARFF; a 330k-row CSV of 30 columns is ~50 MB.
MAX_UPLOAD_MB = 100
#: The most label columns an upload may have (the users' real data: up to ~1,000).
MAX_UPLOAD_LABELS = 10_000
#: The most values (rows × (features + labels)) an upload may have.
MAX_UPLOAD_CELLS = 50_000_000
#: The most columns (features + labels; ARFF: attributes, and the columns nominal ones one-hot
#: encode to) an upload may have. The widest real sets users bring have ~50,000 features (rcv1
#: subsets); a wider table has fewer than 1,000 rows under the cells budget. A table numpy
#: cannot read (a text cell) goes to pandas at ~100 µs a column: 50,000 columns stay ~5 s.
MAX_UPLOAD_COLUMNS = 50_000
#: The most values written in an uploaded ARFF file's data section (rows × attributes; sparse:
#: the ``index value`` entries): liac-arff parses ~1 million values a second, value by value
#: (35 rows × 1 M values took 46 s). Larger tables read fast as CSV (numpy/pandas C readers).
MAX_UPLOAD_ARFF_VALUES = 8_000_000
#: Above this many rows, pages compute on a random sample of this many rows.
MAX_ROWS = 20_000
#: Seed of the row sample (fixed: the same upload gives the same sample on every rerun, in
#: every session, so cached results are shared).
SAMPLE_SEED = 0
#: Compare keeps a method's out-of-fold scores (float64, n x L: 160 MB at this budget) for the
#: per-label loss reasons (AUC, the best threshold) up to this many cells *per method*: the
#: methods are cross-validated one after the other and each one's scores are dropped once its
#: reasons are computed, so the peak holds one method's scores, whatever the number of methods.
#: A budget over all methods gave "no scores" for 303 of 305 tail labels at delicious's shape
#: (16,105 x 983 = 15.8 M cells per method, 4 methods) while the page still concluded on them
#: (issue 31). Above it (e.g. a 10,000-label upload) the reasons say "no scores" and the page
#: draws no conclusion over those labels.
OOF_SCORES_CELLS = 20_000_000
#: The CLEMS page fits the paper's M = L beside its chosen M without a press up to this many
#: distinct training label sets (the candidates, whose embedding is most of a fit): as many
#: as CLEMS embeds exactly (:data:`mlviz.clems.EXACT_MAX_CANDIDATES`; the MULAN sets and
#: bibtex's shape stay automatic). Beyond, CLEMS embeds landmarks and places the rest, seconds
#: a fit: at delicious's shape (~11k training label sets) the page fitted CLEMS twice on every
#: visit (issue 33), so there the comparison waits for a button.
CLEMS_AUTO_FULL_LABEL_SETS = EXACT_MAX_CANDIDATES
#: CPLST's and GroPLE's label space is measured by one more fit on all rows (as long as a
#: fold's); Compare does it while the whole run stays within this many cells over all methods.
REFIT_CELLS = 20_000_000


def loader_budgets(kind: str) -> dict[str, int]:
    """The budget keywords of :func:`mlviz.io.load_csv` (``kind="csv"``),
    :func:`mlviz.io.load_arff` (``"arff"``) or :func:`mlviz.io.load_xc` (``"xc"``: columns are
    features + labels, cells rows x columns, as for the others) for an upload, read when
    called (tests lower the constants)."""
    budgets = {"max_columns": MAX_UPLOAD_COLUMNS, "max_cells": MAX_UPLOAD_CELLS}
    if kind == "arff":
        budgets["max_values"] = MAX_UPLOAD_ARFF_VALUES
    return budgets


def upload_refusal(ds: Dataset) -> str | None:
    """Why the parsed upload ``ds`` is refused (what, the limits, what to do), or None."""
    cells = ds.n_samples * (ds.n_features + ds.n_labels)
    if ds.n_labels > MAX_UPLOAD_LABELS:
        return (
            f"it has {ds.n_labels:,} label columns; this server accepts up to "
            f"{MAX_UPLOAD_LABELS:,}. Keep the most frequent labels (or merge rare ones) and "
            "upload again."
        )
    if cells > MAX_UPLOAD_CELLS:
        return (
            f"it has {ds.n_samples:,} rows × {ds.n_features + ds.n_labels:,} columns = "
            f"{cells:,} values; this server accepts up to {MAX_UPLOAD_CELLS:,} values "
            f"(rows × (features + labels)). Upload a random sample of the rows (about "
            f"{max(MAX_UPLOAD_CELLS // max(ds.n_features + ds.n_labels, 1), 1):,} rows fit) "
            "or fewer feature columns."
        )
    return None


def sample_rows(ds: Dataset) -> tuple[Dataset, str | None]:
    """``ds`` itself, or a seeded random sample of :data:`MAX_ROWS` of its rows with the
    statement the page shows about it.

    The sample keeps the rows' order and all columns; its name says it is a sample (so that
    exports and titles do not pass it off as the whole data set).
    """
    if ds.n_samples <= MAX_ROWS:
        return ds, None
    rng = np.random.default_rng(SAMPLE_SEED)
    rows = np.sort(rng.choice(ds.n_samples, size=MAX_ROWS, replace=False))
    X = ds.X[rows] if sp.issparse(ds.X) else np.asarray(ds.X)[rows]
    sample = dataclasses.replace(
        ds,
        name=f"{ds.name} (sample of {MAX_ROWS:,} rows)",
        X=X,
        Y=np.asarray(ds.Y)[rows],
        notes=(*ds.notes, f"a random sample of {MAX_ROWS:,} of {ds.n_samples:,} rows"),
    )
    statement = (
        f"This data set has {ds.n_samples:,} rows: every page computes on a random sample of "
        f"{MAX_ROWS:,} rows (seed {SAMPLE_SEED}), so that one session cannot stall the server "
        "the class shares. Results describe the sample; to use other rows, upload your own "
        f"sample of at most {MAX_ROWS:,} rows."
    )
    return sample, statement


def labels_refusal(n_labels: int, what: str) -> str | None:
    """Why a view quadratic in the number of labels is not computed, or None."""
    if n_labels <= MAX_LABELS_SQUARE:
        return None
    return (
        f"{what} needs a {n_labels:,} × {n_labels:,} label-by-label matrix; this server "
        f"computes it up to {MAX_LABELS_SQUARE:,} labels (a budget per session, so that one "
        "data set cannot stall the server). Upload the most frequent labels only to see it; "
        "the ML-KNN and CS views work at any number of labels."
    )
