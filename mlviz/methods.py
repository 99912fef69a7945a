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

Every page opens a method at :meth:`Method.default_settings`: the method's default
:class:`Preset` (the same on Compare, the method's page and the Lesson unless a page states why
it runs another) with the dimensions sized to the loaded data by one rule per method.

>>> grople = METHODS["GroPLE"]
>>> grople.default_preset, list(grople.presets)
('teaching', ['teaching', 'paper'])
>>> grople.default_settings(n_labels=22, n_samples=420, n_groups=5)
{'d': 11, 'K': 5, 'affinity': 'heat', 'lambda1': 1.0, 'lambda2': 10.0, 'alpha': 0.01, 'beta': 1.0}
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
    "PAPER_D",
    "SELECTIONS",
    "VARIANTS",
    "Method",
    "Preset",
    "Variant",
    "half_of_labels",
]

#: Methods that hold an L x L matrix of the label space (a basis, or GroPLE's label affinity:
#: 8 L^2 bytes each, 32 MB at 2,000 labels, 800 MB at 10,000) run up to this many labels; the
#: app says so above it instead of filling memory.
MAX_LABELS_SQUARE = 2_000

#: A two-fold run's time scaled to k folds (the Compare page's estimate; measured on the
#: delicious shape, issue 31): a fixed part (predicting every instance once, the per-label
#: table) and a part per fold (one fit on (k - 1)/k of the data), 0.17 + 0.097 k.
CV_FIXED_SHARE, CV_PER_FOLD_SHARE = 0.17, 0.097

#: Threads a fit in the app may run its independent blocks on (CLEMS's ``n_jobs``): the two
#: cores of the server the app is sized for. Memory grows with it (CLEMS: ~20 arrays of
#: 512 x 1,000 numbers per thread), so it is a number, not -1 (every core of a large host).
APP_THREADS = 2

#: GroPLE's latent dimension in the paper, for every data set (Kumar et al., Table 2); also the
#: cap of the default d: an APG step of Eq. (4) costs d^2 L, so d = L / 2 is too slow for a
#: first fit at ~1,000 labels (docs/GROPLE.md).
PAPER_D = 100

#: How the settings read in a caption (:meth:`Method.describe`); settings not named here
#: (PLST's centring, CLEMS's regressor and candidate cap) are the pages' own widgets.
SETTING_SYMBOLS: Mapping[str, str] = MappingProxyType(
    {
        "M": "M",
        "d": "d",
        "K": "K",
        "k": "k",
        "s": "s",
        "cost": "cost",
        "affinity": "affinity",
        "lambda1": "λ1",
        "lambda2": "λ2",
        "alpha": "α",
        "beta": "β",
    }
)

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


def half_of_labels(n_labels: int) -> int:
    """The default embedding dimension: about half the labels, at least 1.

    One rule for every method that compresses the label space (M of PLST, PBR, CPLST, CS and
    CLEMS, GroPLE's d below :data:`PAPER_D`): half the labels compresses (M >= L would not: PLST
    at M = L is binary relevance) and keeps most of the label variance on the MULAN sets.

    Examples
    --------
    >>> from mlviz.methods import half_of_labels
    >>> half_of_labels(22), half_of_labels(45), half_of_labels(1)
    (11, 23, 1)
    """
    return max(1, (int(n_labels) + 1) // 2)


@dataclass(frozen=True)
class Preset:
    """Named settings of a method: the ones a page runs when it does not run the default.

    Parameters
    ----------
    name : str
        Short name, as captions print it ("teaching", "paper", "picture").
    why : str
        One sentence: what the preset is for, and why it differs from the method's others.
    settings : mapping
        Settings the preset fixes whatever the data (they override the method's sizing rule).
    sized : callable or None
        ``sized(n_labels)``: settings the preset sizes from the data (e.g. ``M = min(2, L)``).

    Examples
    --------
    >>> from mlviz.methods import METHODS
    >>> paper = METHODS["GroPLE"].presets["paper"]
    >>> paper.settings["lambda1"], paper.settings["lambda2"], paper.settings["d"]
    (0.001, 1.0, 100)
    """

    name: str
    why: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    sized: Callable[[int], Mapping[str, Any]] | None = None

    def fixed(self, n_labels: int) -> dict[str, Any]:
        """Every setting this preset sets on data with ``n_labels`` labels."""
        return {**self.settings, **(self.sized(n_labels) if self.sized is not None else {})}


#: The preset of a method that has no reason to differ anywhere.
DEFAULT_PRESET = Preset("default", "the registry's settings, the same on every page")


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
    sizing : callable or None
        ``sizing(n_labels, n_samples, n_groups)``: the settings that depend on the data (M, d,
        K, k), the one rule every page opens at (see :meth:`default_settings`).
    presets : mapping
        The method's named :class:`Preset` s, the default first; pages run the default
        unless they state why they run another (and say which in a caption).
    cv_seconds_per_cell : float or None
        Seconds per instance-label cell of a two-fold cross-validation on the Compare page,
        every step included (fits, scores, loss reasons), at the default settings on the
        delicious shape (16,105 x 983), one BLAS thread on a 2-core machine
        (``benchmarks/bench_compare_estimate.py``, docs/BENCHMARKS.md); None when not measured.
        See :meth:`cv_seconds`.
    cv_seconds_per_pair : float or None
        For a method whose time grows with the square of the instances (ML-KNN's neighbour
        search compares every training row with every training and test row): seconds per
        pair of instances compared, beside its time per cell; None for the others.

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
    sizing: Callable[[int, int | None, int | None], Mapping[str, Any]] | None = None
    cv_seconds_per_cell: float | None = None
    cv_seconds_per_pair: float | None = None
    presets: Mapping[str, Preset] = field(
        default_factory=lambda: MappingProxyType({"default": DEFAULT_PRESET})
    )

    @property
    def default_preset(self) -> str:
        """Name of the preset every page runs unless it states a reason (the first)."""
        return next(iter(self.presets))

    @property
    def cv_measured(self) -> bool:
        """Whether the method's Compare rates were measured (:meth:`cv_seconds` is not None)."""
        return self.cv_seconds_per_cell is not None or self.cv_seconds_per_pair is not None

    def cv_seconds(self, n_samples: int, n_labels: int, n_splits: int) -> float | None:
        """Rough seconds of the Compare page's ``n_splits``-fold cross-validation of this
        method on N = ``n_samples`` instances and L = ``n_labels`` labels, or None when its
        rates were not measured.

        N L cells at :attr:`cv_seconds_per_cell`, scaled from two folds to k by
        :data:`CV_FIXED_SHARE` + :data:`CV_PER_FOLD_SHARE` k, plus N² (k - 1) pairs at
        :attr:`cv_seconds_per_pair`: over k folds a neighbour search compares each fold's
        (k - 1) N / k training rows with themselves and its N / k test rows with them. A
        model in cells alone said ~8 s for ML-KNN's 80 s on tmc2007-500 (28,596 instances,
        22 labels, 5 folds).

        Examples
        --------
        >>> from mlviz.methods import METHODS
        >>> mlknn = METHODS["ML-KNN"]
        >>> more_rows = mlknn.cv_seconds(20_000, 20, 2) / mlknn.cv_seconds(10_000, 20, 2)
        >>> 3 < more_rows <= 4  # mostly the pairs: twice the rows, about four times the time
        True
        >>> METHODS["GroPLE"].cv_seconds(1_000, 20, 2) is None  # not measured
        True
        """
        if not self.cv_measured:
            return None
        scale = (CV_FIXED_SHARE + CV_PER_FOLD_SHARE * n_splits) / (
            CV_FIXED_SHARE + CV_PER_FOLD_SHARE * 2
        )
        cells = float(n_samples) * n_labels * (self.cv_seconds_per_cell or 0.0) * scale
        pairs = float(n_samples) ** 2 * (n_splits - 1) * (self.cv_seconds_per_pair or 0.0)
        return cells + pairs

    def default_settings(
        self,
        n_labels: int,
        n_samples: int | None = None,
        *,
        preset: str | None = None,
        n_groups: int | None = None,
    ) -> dict[str, Any]:
        """The settings a page opens the method at, on data of this shape: the one place.

        The factory's keyword defaults, then the method's ``sizing`` rule on the data (M, d,
        K, k), then the preset's settings (which win: a preset that fixes d fixes it).

        Parameters
        ----------
        n_labels : int
            L of the loaded data set.
        n_samples : int, optional
            Training instances (ML-KNN's k stays below it); None: not bounded by them.
        preset : str, optional
            A name of :attr:`presets`; None: :attr:`default_preset`.
        n_groups : int, optional
            GroPLE's K: the app's label grouping's K (its one rule,
            :meth:`mlviz.label_clustering.LabelClustering.default_n_groups`, needs the labels,
            not only their number); None: ``min(10, L)``, the estimator's K at most L.

        Returns
        -------
        dict
            ``{setting: value}`` for every setting :meth:`make` takes that has a default.

        Examples
        --------
        >>> from mlviz.methods import METHODS
        >>> METHODS["PLST"].default_settings(n_labels=22)
        {'M': 11, 'center': True}
        >>> METHODS["CLEMS"].default_settings(n_labels=22, preset="picture")["M"]
        2
        >>> METHODS["ML-KNN"].default_settings(n_labels=22, n_samples=6)
        {'k': 5, 's': 1.0}
        >>> METHODS["GroPLE"].default_settings(n_labels=983, preset="paper")["d"]
        100
        """
        chosen = self.presets[self.default_preset if preset is None else preset]
        values = {
            name: p.default
            for name, p in inspect.signature(self.factory).parameters.items()
            if p.default is not inspect.Parameter.empty
        }
        if self.sizing is not None:
            values.update(self.sizing(int(n_labels), n_samples, n_groups))
        values.update(chosen.fixed(int(n_labels)))
        # settings that only select an implementation (None: the estimator's own) say nothing
        return {k: v for k, v in values.items() if v is not None}

    def describe(self, settings: Mapping[str, Any], preset: str | None = None) -> str:
        """One short caption: the method, its preset (when it has several) and its settings.

        Examples
        --------
        >>> from mlviz.methods import METHODS
        >>> METHODS["ML-KNN"].describe({"k": 10, "s": 1.0})
        'ML-KNN: k = 10, s = 1'
        >>> METHODS["CLEMS"].describe({"M": 2, "cost": "f1"}, "picture")
        'CLEMS, picture preset: M = 2, cost = F1 (1 − F1)'
        """
        shown = []
        for key, symbol in SETTING_SYMBOLS.items():
            if key not in settings or key not in self.settings:
                continue
            value = settings[key]
            if key in self.option_labels:
                value = self.option_labels[key].get(value, value)
            elif isinstance(value, float):
                value = f"{value:g}"
            shown.append(f"{symbol} = {value}")
        head = self.name
        if len(self.presets) > 1:
            head += f", {self.default_preset if preset is None else preset} preset"
        return f"{head}: {', '.join(shown)}" if shown else head

    def caption(self, settings: Mapping[str, Any], preset: str | None = None) -> str:
        """What a page runs, in one sentence: :meth:`describe`, and when the user changed a
        setting the preset fixes, which one and the preset's value; a method with several
        presets adds why this one.

        Examples
        --------
        >>> from mlviz.methods import METHODS
        >>> grople = METHODS["GroPLE"]
        >>> settings = grople.default_settings(n_labels=22, n_groups=5)
        >>> grople.caption(settings)[:63]
        'Runs GroPLE, teaching preset: d = 11, K = 5, affinity = heat ke'
        >>> grople.caption({**settings, "lambda2": 30.0}).split(";")[1][:48]
        ' opened at the teaching preset (λ2 = 10), change'
        """
        name = self.default_preset if preset is None else preset
        chosen = self.presets[name]
        changed = {
            k: v
            for k, v in chosen.settings.items()
            if k in settings and k in SETTING_SYMBOLS and settings[k] != v
        }
        if not changed:
            text = f"Runs {self.describe(settings, name)}"
        else:
            was = ", ".join(
                f"{SETTING_SYMBOLS[k]} = {v:g}"
                if isinstance(v, float)
                else f"{SETTING_SYMBOLS[k]} = {v}"
                for k, v in changed.items()
            )
            text = (
                f"Runs {self.name} at {self.describe(settings, name).split(': ', 1)[-1]}; "
                f"opened at the {name} preset ({was}), changed here"
            )
        if len(self.presets) > 1:
            text += f". The {name} preset: {chosen.why}"
        return text + "."

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


# The factories import their estimator when called: see the module docstring. Their keyword
# defaults are the estimators' own (GroPLE's: the paper's); the pages open at
# Method.default_settings, which sizes them to the data and applies the preset. CS and CLEMS are
# seeded as every page seeds them; GroPLE's seed is written out so that every page's GroPLE is
# the same model.
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
    # the landmark path's blocks on APP_THREADS threads; the fit is the same on one
    return CLEMS(n_components=M, cost=cost, random_state=0, n_jobs=APP_THREADS, **options)


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


def _size_m(n_labels: int, n_samples: int | None, n_groups: int | None) -> dict[str, Any]:
    del n_samples, n_groups
    return {"M": half_of_labels(n_labels)}


def _size_k(n_labels: int, n_samples: int | None, n_groups: int | None) -> dict[str, Any]:
    # the paper's k = 10, below the training instances (an instance is not its own neighbour)
    del n_labels, n_groups
    return {"k": 10 if n_samples is None else max(1, min(10, int(n_samples) - 1))}


def _size_grople(n_labels: int, n_samples: int | None, n_groups: int | None) -> dict[str, Any]:
    del n_samples
    return {
        "d": min(half_of_labels(n_labels), PAPER_D),
        "K": min(10, n_labels) if n_groups is None else int(n_groups),
    }


#: CLEMS at M = 2: its page and the Lesson draw the embedding, whole only in two dimensions.
_CLEMS_PICTURE = Preset(
    "picture",
    "M = 2, so the picture of the embedding is the whole embedding (the paper's M is L; "
    "Compare runs the default M, about half the labels)",
    sized=lambda n_labels: {"M": min(2, n_labels)},
)
_GROPLE_TEACHING = Preset(
    "teaching",
    "λ1 = 1, λ2 = 10 rather than the paper's 0.001 and 1: at the paper's pair every group of "
    "the planted sample uses every latent row, at this pair each group picks its own few "
    "(docs/GROPLE.md)",
    settings=MappingProxyType({"lambda1": 1.0, "lambda2": 10.0, "alpha": 1e-2, "beta": 1.0}),
)
_GROPLE_PAPER = Preset(
    "paper",
    "Kumar et al.'s settings: d = 100 for every data set, λ1 = 0.001, λ2 = 1, α = 0.01, β = 1",
    settings=MappingProxyType(
        {"d": PAPER_D, "lambda1": 1e-3, "lambda2": 1.0, "alpha": 1e-2, "beta": 1.0}
    ),
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
                cv_seconds_per_cell=0.77e-6,
            ),
            Method(
                "PLST",
                _plst,
                "mlviz.linear.PLST",
                "#ff7f0e",  # orange
                dimension="M",
                symbol="M",
                sizing=_size_m,
                max_labels=MAX_LABELS_SQUARE,
                tail_table="plst_label_table",
                in_dimension_sweep=True,
                representation="labels",
                cv_seconds_per_cell=0.83e-6,
            ),
            Method(
                "PBR",
                _pbr,
                "mlviz.linear.PBR",
                "#9467bd",  # purple
                dimension="M",
                symbol="M",
                sizing=_size_m,
                max_labels=MAX_LABELS_SQUARE,
            ),
            Method(
                "CPLST",
                _cplst,
                "mlviz.linear.CPLST",
                "#8c564b",  # brown
                dimension="M",
                symbol="M",
                sizing=_size_m,
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
                sizing=_size_m,
            ),
            Method(
                "ML-KNN",
                _mlknn,
                "mlviz.mlknn.MLkNN",
                "#2ca02c",  # green
                dimension="k",
                symbol="k",
                sizing=_size_k,
                tail_table="mlknn_label_table",
                cv_seconds_per_cell=0.41e-6,
                cv_seconds_per_pair=1.96e-8,
            ),
            Method(
                "CLEMS",
                _clems,
                "mlviz.clems.CLEMS",
                "#17becf",  # cyan
                dimension="M",
                symbol="M",
                sizing=_size_m,
                tail_table="clems_label_table",
                option_labels=MappingProxyType({"cost": COST_LABELS}),
                in_dimension_sweep=True,
                representation="labels",
                presets=MappingProxyType({"default": DEFAULT_PRESET, "picture": _CLEMS_PICTURE}),
                cv_seconds_per_cell=5.7e-6,
            ),
            Method(
                "GroPLE",
                _grople,
                "mlviz.grople.GroPLE",
                "#d62728",  # red
                dimension="d",
                symbol="d",
                sizing=_size_grople,
                max_labels=MAX_LABELS_SQUARE,
                tail_table="grople_label_table",
                option_labels=MappingProxyType({"affinity": AFFINITY_LABELS}),
                in_dimension_sweep=True,
                representation="fitted",
                presets=MappingProxyType({"teaching": _GROPLE_TEACHING, "paper": _GROPLE_PAPER}),
            ),
        )
    }
)


@dataclass(frozen=True)
class Variant:
    """A registered method at fixed settings that a view draws as a method of its own.

    Parameters
    ----------
    name : str
        Display name, e.g. ``"PLST-origin"``; the key in :data:`VARIANTS`.
    method : str
        The name in :data:`METHODS` it is a setting of.
    settings : mapping
        The settings that make it the variant (they win over a page's).
    color : str
        Hex colour on every chart: a lighter shade of the method's own.
    why : str
        What the variant shows, in one phrase.

    Examples
    --------
    >>> from mlviz.methods import VARIANTS
    >>> origin = VARIANTS["PLST-origin"]
    >>> origin.method, origin.make(M=3)
    ('PLST', PLST(center=False, n_components=3))
    """

    name: str
    method: str
    settings: Mapping[str, Any]
    color: str
    why: str

    def make(self, **settings: Any):
        """A fresh estimator of :attr:`method` at ``settings`` and the variant's own."""
        return METHODS[self.method].make(**{**settings, **self.settings})


#: Methods drawn as methods of their own at fixed settings (PLST's page sweeps PLST without
#: centring beside PLST: the reference point o = 0 of the paper's Eq. (2)).
VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {
        "PLST-origin": Variant(
            "PLST-origin",
            "PLST",
            MappingProxyType({"center": False}),
            "#ffbb78",  # light orange: a lighter PLST
            "PLST without centring: the reference point o = 0",
        )
    }
)

#: The methods each multi-method view opens with (the user may choose others): Compare's
#: cross-validation (the baseline, the linear embedding, the neighbours and the cost-sensitive
#: embedding: each quick enough for the first run's budget) and its dimension sweep, the PLST
#: page's test loss against M (every linear method with an M, BR at M = L), the GroPLE page's
#: baselines and the Lesson's last step (the baseline, then each taught method in step order).
SELECTIONS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "compare": ("BR", "PLST", "ML-KNN", "CLEMS"),
        "compare_sweep": ("PLST", "CLEMS"),
        "linear_sweep": ("PLST", "PBR", "CPLST", "BR"),
        "grople_baselines": ("BR", "PLST"),
        "lesson": ("BR", "PLST", "GroPLE", "CLEMS", "ML-KNN"),
    }
)
