"""The methods mlviz offers, in one place: how to build each, its colour, symbol and limits.

Every list of methods in the app (the Compare page's menus, the method pages, the colours of
:mod:`mlviz.figures._style`, the per-label tables, the Lesson) reads :data:`METHODS`, so that
adding a method means one :class:`Method` entry here, its estimator and its page.

Importing this module loads no estimator (nor scikit-learn): each factory imports its class
when called, so the figures' style module can read the colours while the app's first page
renders without scikit-learn.

Examples
--------
>>> from mlviz.methods import METHODS
>>> list(METHODS)
['BR', 'PLST', 'PBR', 'CPLST', 'CS', 'ML-KNN', 'CLEMS', 'GroPLE']
>>> METHODS["PLST"].make(M=3)
PLST(n_components=3)
>>> METHODS["GroPLE"].symbol, METHODS["GroPLE"].max_labels
('d', 2000)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

__all__ = [
    "AFFINITY_LABELS",
    "COST_LABELS",
    "MAX_LABELS_SQUARE",
    "METHODS",
    "Method",
]

#: Methods that hold an L x L matrix of the label space (a basis, or GroPLE's label affinity:
#: 8 L^2 bytes each, 32 MB at 2,000 labels, 800 MB at 10,000) run up to this many labels; the
#: app says so above it instead of filling memory.
MAX_LABELS_SQUARE = 2_000

#: Display names of CLEMS's costs (the names of :data:`mlviz.costs.COSTS`).
COST_LABELS: Mapping[str, str] = MappingProxyType(
    {
        "f1": "F1 (1 − F1)",
        "accuracy": "Accuracy (1 − Jaccard)",
        "hamming": "Hamming",
        "rank_loss": "Rank loss (asymmetric)",
    }
)

#: Display names of the label affinities of GroPLE's stage 1 and of the Label clusters page
#: (the names of :data:`mlviz.label_clustering.AFFINITIES`).
AFFINITY_LABELS: Mapping[str, str] = MappingProxyType(
    {
        "heat": "heat kernel (paper)",
        "cooccurrence": "co-occurrence (Jaccard)",
        "correlation": "correlation",
    }
)


@dataclass(frozen=True)
class Method:
    """One method of mlviz as the app offers it.

    Parameters
    ----------
    name : str
        Display name, e.g. ``"PLST"``; the key in :data:`METHODS`.
    factory : callable
        ``factory(**settings)``: a fresh, unfitted estimator from the app's settings, named as
        in the maths (``M``/``d`` embedding dimensions, ``k`` neighbours, ``K`` label groups)
        with the pages' defaults.
    estimator : str
        ``"module.Class"`` of the estimator the factory returns.
    color : str
        Hex colour of the method on every chart.
    dimension : str or None
        The factory's setting that sizes the model (``"M"``, ``"d"`` or ``"k"``), None if none.
    symbol : str or None
        Its maths symbol as pages print it (the same letter).
    max_labels : int or None
        Label count above which the method is not run (it holds an L x L matrix), None: any.
    tail_table : str or None
        Name of the :mod:`mlviz.per_label` function that puts this method's reason for losing
        tail labels beside each label; None when there is none.
    option_labels : mapping
        Display labels of the factory's categorical settings, e.g. ``{"cost": COST_LABELS}``.
    in_dimension_sweep : bool
        Offered in the Compare page's metric-against-dimension sweep (a cross-validation per
        dimension: the methods whose fit is quick enough to repeat, and CLEMS).
    representation : {"labels", "fitted"} or None
        How :mod:`mlviz.per_label` measures the share of a label the method's label space
        leaves out: ``"labels"`` from the labels alone (PLST's principal directions, CLEMS's
        candidate sets), ``"fitted"`` from a model fitted on all rows (CPLST, GroPLE's V^k),
        None when the method keeps every label.

    Examples
    --------
    >>> from mlviz.methods import METHODS
    >>> plst = METHODS["PLST"]
    >>> plst.symbol, plst.runs_on(500), plst.runs_on(5000)
    ('M', True, False)
    >>> plst.make(M=3, k=10).n_components  # settings PLST does not take are ignored
    3
    """

    name: str
    factory: Callable[..., Any]
    estimator: str
    color: str
    dimension: str | None = None
    symbol: str | None = None
    max_labels: int | None = None
    tail_table: str | None = None
    option_labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    in_dimension_sweep: bool = False
    representation: Literal["labels", "fitted"] | None = None

    @property
    def tail_reasons(self) -> bool:
        """Whether a per-label table explains which tail labels this method loses and why."""
        return self.tail_table is not None

    @property
    def settings(self) -> tuple[str, ...]:
        """The settings :meth:`make` accepts."""
        return tuple(inspect.signature(self.factory).parameters)

    def make(self, **settings: Any):
        """A fresh estimator; settings the method does not take are ignored.

        So one dict of a page's settings (``{"M": 4, "k": 10, "cost": "f1"}``) builds every
        method it offers.
        """
        known = self.settings
        return self.factory(**{k: v for k, v in settings.items() if k in known})

    def runs_on(self, n_labels: int) -> bool:
        """Whether the method runs with ``n_labels`` labels (see ``max_labels``)."""
        return self.max_labels is None or n_labels <= self.max_labels


# The factories import their estimator when called: see the module docstring. Settings and
# defaults are the pages' (CS and CLEMS are seeded as every page seeds them; GroPLE's seed is
# written out so that every page's GroPLE is the same model).
def _br():
    from mlviz.linear import BinaryRelevance

    return BinaryRelevance()


def _plst(M: int = 4, center: bool = True):
    from mlviz.linear import PLST

    return PLST(n_components=M, center=center)


def _pbr(M: int = 4):
    from mlviz.linear import PBR

    return PBR(n_components=M)


def _cplst(M: int = 4):
    from mlviz.linear import CPLST

    return CPLST(n_components=M)


def _cs(M: int = 4):
    from mlviz.linear import CompressedSensing

    return CompressedSensing(n_components=M, random_state=0)


def _mlknn(k: int = 10, s: float = 1.0):
    from mlviz.mlknn import MLkNN

    return MLkNN(k=k, s=s)


def _clems(M: int = 2, cost: str = "f1", regressor=None, max_candidates: int | None = None):
    from mlviz.clems import CLEMS

    options: dict[str, Any] = {"regressor": regressor} if regressor is not None else {}
    if max_candidates is not None:  # None: CLEMS's own default (every label set)
        options["max_candidates"] = max_candidates
    return CLEMS(n_components=M, cost=cost, random_state=0, **options)


def _grople(
    d: int = 100,
    K: int = 10,
    affinity: str = "heat",
    lambda1: float = 1e-3,
    lambda2: float = 1.0,
    alpha: float = 1e-2,
    beta: float = 1.0,
):
    from mlviz.grople import GroPLE

    return GroPLE(
        n_components=d,
        n_groups=K,
        label_affinity=affinity,
        lambda1=lambda1,
        lambda2=lambda2,
        alpha=alpha,
        beta=beta,
        random_state=0,
    )


#: Every method, in the order the app offers them (the Compare page's menu).
METHODS: Mapping[str, Method] = MappingProxyType(
    {
        method.name: method
        for method in (
            Method(
                "BR",
                _br,
                "mlviz.linear.BinaryRelevance",
                "#1f77b4",  # blue
                max_labels=MAX_LABELS_SQUARE,
            ),
            Method(
                "PLST",
                _plst,
                "mlviz.linear.PLST",
                "#ff7f0e",  # orange
                dimension="M",
                symbol="M",
                max_labels=MAX_LABELS_SQUARE,
                tail_table="plst_label_table",
                in_dimension_sweep=True,
                representation="labels",
            ),
            Method(
                "PBR",
                _pbr,
                "mlviz.linear.PBR",
                "#9467bd",  # purple
                dimension="M",
                symbol="M",
                max_labels=MAX_LABELS_SQUARE,
            ),
            Method(
                "CPLST",
                _cplst,
                "mlviz.linear.CPLST",
                "#8c564b",  # brown
                dimension="M",
                symbol="M",
                max_labels=MAX_LABELS_SQUARE,
                in_dimension_sweep=True,
                representation="fitted",
            ),
            Method(
                "CS",
                _cs,
                "mlviz.linear.CompressedSensing",
                "#e377c2",  # pink
                dimension="M",
                symbol="M",
            ),
            Method(
                "ML-KNN",
                _mlknn,
                "mlviz.mlknn.MLkNN",
                "#2ca02c",  # green
                dimension="k",
                symbol="k",
                tail_table="mlknn_label_table",
            ),
            Method(
                "CLEMS",
                _clems,
                "mlviz.clems.CLEMS",
                "#17becf",  # cyan
                dimension="M",
                symbol="M",
                tail_table="clems_label_table",
                option_labels=MappingProxyType({"cost": COST_LABELS}),
                in_dimension_sweep=True,
                representation="labels",
            ),
            Method(
                "GroPLE",
                _grople,
                "mlviz.grople.GroPLE",
                "#d62728",  # red
                dimension="d",
                symbol="d",
                max_labels=MAX_LABELS_SQUARE,
                tail_table="grople_label_table",
                option_labels=MappingProxyType({"affinity": AFFINITY_LABELS}),
                in_dimension_sweep=True,
                representation="fitted",
            ),
        )
    }
)
