"""Seeded synthetic multi-label data built for teaching, and the embedded sample files.

* :func:`make_planted`: labels in planted groups driven by latent factors that the features
  also carry (so features predict labels, and label clustering / GroPLE's group sparsity have
  a known right answer), a long tail of rare labels, and an inclusive child ⇒ parent pair (the
  hierarchy of the PLST paper's hypercube view, ``004_e362ca4c9100d29e.txt`` §2: examples with
  the child label are a subset of those with the parent, so only the vertices [0, 0], [0, 1]
  and [1, 1] of that pair's square are occupied).
* :func:`make_cube`: three labels occupying seven of the eight vertices of the 3-cube, so the
  hypercube view is a literal cube.

``python -m mlviz.synthetic`` regenerates the embedded sample files in ``mlviz/sample_data/``
(package data; ``sample_data/`` at the top of a checkout links to it; see its README.md); a
test checks that the shipped files equal a fresh generation.
"""

from __future__ import annotations

import argparse
import csv
import io
import string
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.special import ndtri

from mlviz.io import Dataset, save_arff

__all__ = [
    "LONG_TAILED_SHAPES",
    "PLANTED_ROLES",
    "SAMPLE_CUBE",
    "SAMPLE_PLANTED",
    "main",
    "make_cube",
    "make_long_tailed",
    "make_planted",
    "write_samples",
]

#: Values of the ``role`` column of ``planted_groups.csv``.
PLANTED_ROLES: tuple[str, ...] = ("core", "parent", "child", "tail")

# Features are rounded so that the ARFF text stays small and loads back bit-identical.
_DECIMALS = 3
# Activation rate of each planted group, drawn uniformly from this range.
_GROUP_RATE = (0.2, 0.4)
# P(label on | its group on) for core labels, drawn per label from this range.
_CORE_RECALL = (0.7, 0.95)
# Shift of a group's features when the group is on.
_STATE_JUMP = 1.5
# P(child on | parent on) for the inclusive pair.
_CHILD_GIVEN_PARENT = 0.5


def _check_int(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}.")
    return int(value)


def _group_letter(g: int) -> str:
    letters = string.ascii_uppercase
    # past Z, "G26_" keeps "G26_1" (group 26, label 1) apart from group 2's "G261"
    return letters[g] if g < len(letters) else f"G{g}_"


def _planted_layout(
    n_groups: int, labels_per_group: int, n_tail: int, hierarchical: bool
) -> tuple[list[str], list[int], list[str]]:
    """Label names, group ids and roles in column order; depends on the sizes only, not the seed.

    Group by group: core labels ``A1, A2, ...`` then that group's tail labels ``A_rare1, ...``
    (tail t belongs to group t mod n_groups). With ``hierarchical`` the first two core labels of
    group 0 are the parent and the child.
    """
    names: list[str] = []
    groups: list[int] = []
    roles: list[str] = []
    for g in range(n_groups):
        letter = _group_letter(g)
        for k in range(labels_per_group):
            names.append(f"{letter}{k + 1}")
            groups.append(g)
            roles.append("core")
        for t, _ in enumerate(range(g, n_tail, n_groups)):
            names.append(f"{letter}_rare{t + 1}")
            groups.append(g)
            roles.append("tail")
    if hierarchical:
        roles[0], roles[1] = "parent", "child"
    return names, groups, roles


def make_planted(
    n_samples: int = 600,
    n_features: int = 40,
    *,
    n_groups: int = 4,
    labels_per_group: int = 4,
    n_tail: int = 6,
    tail_frequency: float = 0.02,
    hierarchical: bool = True,
    noise: float = 0.1,
    random_state: int | np.random.Generator | None = None,
) -> tuple[Dataset, np.ndarray]:
    """A multi-label data set with planted label groups, rare tail labels and a hierarchy.

    Generative model, per instance i:

    1. each group g has a latent factor ``s_ig ~ N(0, 1)``; the group is *on* when
       ``s_ig > τ_g``, with ``τ_g`` set so that group g is on for a fraction ``ρ_g ~ U(0.2,
       0.4)`` of the instances;
    2. core label j of group g is on with probability ``r_j ~ U(0.7, 0.95)`` when its group is
       on, never otherwise; so the labels of a group switch on together;
    3. tail labels are attached to groups round-robin (tail t to group t mod n_groups); each
       is on for exactly ``max(1, round(tail_frequency * n_samples))`` instances drawn among
       those where its group is on, preferring instances where no other group is on (a
       specialised label of that group; this keeps a rare label's group identifiable from its
       few instances);
    4. label noise: each entry is, with probability ``noise``, replaced by an independent
       Bernoulli draw at that label's planted frequency (so frequencies are kept and ``noise =
       1`` makes labels independent of groups and features);
    5. if ``hierarchical``, the first two core labels of group 0 become an inclusive pair: the
       child is drawn as ``parent ∧ Bernoulli(0.5)`` after the noise step, so child ⇒ parent
       holds on every instance. The coin is independent of the features, so
       P(child | x) = P(parent | x) / 2 <= 1/2: a classifier thresholded at 1/2 rarely predicts
       the child (its F1 is near 0 for every method), while its scores still rank instances
       by the parent's;
    6. features ``X = (S + 1.5 Z) A + E`` with ``Z`` the 0/1 group states: each group loads
       (weights ~ U(0.8, 1.2)) on its own block of ``n_features // (2 n_groups)`` features (at
       least one), the remaining features are pure noise; ``E ~ N(0, 0.5²)``; values rounded
       to 3 decimals. The 1.5 jump makes a group's on/off state (not only its factor) visible
       in its features, so a linear model separates it.

    Parameters
    ----------
    n_samples, n_features : int
        Shape of X. ``n_features`` must be at least ``n_groups``.
    n_groups : int
        Number of planted label groups (>= 1).
    labels_per_group : int
        Core labels per group (>= 2 when ``hierarchical``).
    n_tail : int
        Rare labels, attached to the groups round-robin.
    tail_frequency : float
        Target fraction of instances carrying each tail label, below every group's rate
        (``0 < tail_frequency < 0.2``).
    hierarchical : bool
        Plant the child ⇒ parent pair in group 0.
    noise : float in [0, 1]
        Label noise rate (step 4).
    random_state : int, Generator or None, default=None
        Seed; the same int gives identical output.

    Returns
    -------
    dataset : Dataset
        Named ``"planted"``; labels ordered group by group (core labels ``A1, A2, ...`` then
        tail labels ``A_rare1, ...`` for group A, then group B, ...); ``notes`` record the
        parameters and the planted structure.
    groups : ndarray of int, shape (n_labels,)
        Planted group id (0 for A, 1 for B, ...) of each label column. The role of each label
        (core / parent / child / tail) is written to ``planted_groups.csv`` and recorded in
        ``notes``; tail labels are the ``*_rare*`` names.

    Examples
    --------
    >>> ds, groups = make_planted(n_samples=100, random_state=1)
    >>> ds.Y.shape, groups[:5].tolist()
    ((100, 22), [0, 0, 0, 0, 0])
    """
    n_samples = _check_int(n_samples, "n_samples", 2)
    n_groups = _check_int(n_groups, "n_groups", 1)
    n_features = _check_int(n_features, "n_features", n_groups)
    labels_per_group = _check_int(labels_per_group, "labels_per_group", 2 if hierarchical else 1)
    n_tail = _check_int(n_tail, "n_tail", 0)
    if not 0.0 < float(tail_frequency) < _GROUP_RATE[0]:
        raise ValueError(
            f"tail_frequency must be in (0, {_GROUP_RATE[0]}) so tail labels stay rarer than "
            f"every group; got {tail_frequency!r}."
        )
    if not 0.0 <= float(noise) <= 1.0:
        raise ValueError(f"noise is a probability in [0, 1]; got {noise!r}.")
    rng = np.random.default_rng(random_state)

    group_rate = rng.uniform(*_GROUP_RATE, size=n_groups)
    latent = rng.standard_normal((n_samples, n_groups))
    group_on = latent > ndtri(1.0 - group_rate)  # N(0,1) quantile: P(s > τ_g) = ρ_g

    names, groups, roles = _planted_layout(n_groups, labels_per_group, n_tail, hierarchical)
    columns: list[np.ndarray] = []
    frequency: list[float] = []
    for g in range(n_groups):
        recall = rng.uniform(*_CORE_RECALL, size=labels_per_group)
        for k in range(labels_per_group):
            columns.append(group_on[:, g] & (rng.random(n_samples) < recall[k]))
            frequency.append(group_rate[g] * recall[k])
        on_rows = np.flatnonzero(group_on[:, g])
        other_groups_on = group_on[on_rows].sum(axis=1) - 1
        # An exact count rather than Bernoulli draws: with ~12 expected positives a binomial
        # draw can leave a tail label with 3 or 4. And the rows are those where the fewest
        # other groups are on: 12 rows drawn at random among group-g rows carry other groups by
        # chance as strongly as group g's, and the label's group could not be told.
        n_positive = min(len(on_rows), max(1, round(tail_frequency * n_samples)))
        for _ in range(g, n_tail, n_groups):
            priority = other_groups_on + rng.random(len(on_rows))  # random among equals
            column = np.zeros(n_samples, dtype=bool)
            column[on_rows[np.argsort(priority)[:n_positive]]] = True
            columns.append(column)
            frequency.append(tail_frequency)

    Y = np.column_stack(columns)
    resampled = rng.random(Y.shape) < noise
    independent = rng.random(Y.shape) < np.asarray(frequency)[None, :]
    Y = np.where(resampled, independent, Y)
    if hierarchical:
        parent, child = roles.index("parent"), roles.index("child")
        Y[:, child] = Y[:, parent] & (rng.random(n_samples) < _CHILD_GIVEN_PARENT)

    block = max(1, n_features // (2 * n_groups))
    loadings = np.zeros((n_groups, n_features))
    for g in range(n_groups):
        loadings[g, g * block : (g + 1) * block] = rng.uniform(0.8, 1.2, size=block)
    carried = latent + _STATE_JUMP * group_on
    X = carried @ loadings + 0.5 * rng.standard_normal((n_samples, n_features))
    X = np.round(X, _DECIMALS) + 0.0  # + 0.0 turns -0.0 into 0.0 for a stable text form

    notes = [
        f"make_planted(n_samples={n_samples}, n_features={n_features}, n_groups={n_groups}, "
        f"labels_per_group={labels_per_group}, n_tail={n_tail}, "
        f"tail_frequency={tail_frequency}, hierarchical={hierarchical}, noise={noise}, "
        f"random_state={random_state!r})",
        "planted groups: "
        + "; ".join(
            f"{_group_letter(g)} = "
            + ", ".join(n for n, gg in zip(names, groups, strict=True) if gg == g)
            for g in range(n_groups)
        ),
        f"features x01-x{n_groups * block:02d} carry the group factors ({block} per group); "
        "the rest are noise",
    ]
    if hierarchical:
        notes.append(f"inclusive pair: {names[1]} ⇒ {names[0]} (child ⇒ parent)")
    dataset = Dataset(
        name="planted",
        X=X,
        Y=Y.astype(np.uint8),
        feature_names=tuple(f"x{j + 1:02d}" for j in range(n_features)),
        label_names=tuple(names),
        notes=tuple(notes),
    )
    return dataset, np.asarray(groups, dtype=np.int64)


def make_cube(
    n_samples: int = 200, random_state: int | np.random.Generator | None = None
) -> Dataset:
    """Three labels on seven of the eight vertices of the 3-cube, predicted by 4 features.

    Each label k is ``[u_k > t_k]`` for a latent ``u ~ N(0, I_3)`` with thresholds
    ``t = (-0.3, 0.0, 0.4)``; the vertex (1, 1, 1) is forbidden (label ``c`` is switched off
    when ``a`` and ``b`` are on; frequencies about 0.62, 0.5 and 0.27), so the label sets fill
    the cube but one corner, a structure a 2-D embedding has to bend around. Features: the
    three latent values plus N(0, 0.4²) noise, and one pure-noise feature; rounded to 3
    decimals.

    Returns
    -------
    Dataset
        Named ``"cube"``, labels ``a``, ``b``, ``c``, features ``u_a``, ``u_b``, ``u_c``,
        ``noise``.

    Examples
    --------
    >>> from mlviz.synthetic import make_cube
    >>> ds = make_cube(n_samples=40, random_state=0)
    >>> ds.X.shape, ds.Y.shape, ds.label_names
    ((40, 4), (40, 3), ('a', 'b', 'c'))
    """
    n_samples = _check_int(n_samples, "n_samples", 8)
    rng = np.random.default_rng(random_state)
    latent = rng.standard_normal((n_samples, 3))
    Y = latent > np.array([-0.3, 0.0, 0.4])
    Y[:, 2] &= ~(Y[:, 0] & Y[:, 1])
    X = np.column_stack(
        [latent + 0.4 * rng.standard_normal((n_samples, 3)), rng.standard_normal(n_samples)]
    )
    X = np.round(X, _DECIMALS) + 0.0
    return Dataset(
        name="cube",
        X=X,
        Y=Y.astype(np.uint8),
        feature_names=("u_a", "u_b", "u_c", "noise"),
        label_names=("a", "b", "c"),
        notes=(
            f"make_cube(n_samples={n_samples}, random_state={random_state!r})",
            "vertex (1, 1, 1) is never occupied: c is off whenever a and b are on",
        ),
    )


# --------------------------------------------------------------------------- at scale

#: Shapes of the papers' larger benchmark sets (MULAN statistics): instances, features, labels,
#: label cardinality. ``make_long_tailed(**LONG_TAILED_SHAPES["delicious"])`` gives a set of
#: that shape; pass smaller ``n_samples``/``n_labels`` to scale it down for tests.
LONG_TAILED_SHAPES: dict[str, dict[str, float]] = {
    "delicious": dict(
        n_samples=16105, n_features=500, n_labels=983, cardinality=19.02, tail_exponent=0.7
    ),
    "bibtex": dict(
        n_samples=7395, n_features=1836, n_labels=159, cardinality=2.40, tail_exponent=1.0
    ),
    "corel5k": dict(
        n_samples=5000, n_features=499, n_labels=374, cardinality=3.52, tail_exponent=1.0
    ),
}

# Label weight of the instance's own topic relative to the others (topic concentration).
_TOPIC_BOOST = 12.0
# Features (words) tied to each label, and P(word present | one of its labels present).
_WORDS_PER_LABEL = 3
_WORD_GIVEN_LABEL = 0.5


def make_long_tailed(
    n_samples: int = 16105,
    n_features: int = 500,
    *,
    n_labels: int = 983,
    cardinality: float = 19.02,
    n_topics: int = 30,
    tail_exponent: float = 0.7,
    feature_noise: float = 0.005,
    random_state: int | np.random.Generator | None = None,
) -> Dataset:
    """A long-tailed multi-label set shaped like delicious, bibtex or corel5k, in seconds.

    Built for benchmarks and scale tests (issue 14): the defaults are delicious' shape (16,105
    instances, 500 sparse binary features, 983 labels, cardinality 19; almost every instance
    has its own label set, ~15,000 distinct sets). :data:`LONG_TAILED_SHAPES` holds the
    bibtex and corel5k shapes. Generative model, per instance i:

    1. label l has base weight ``(l + 1)^(-tail_exponent)`` (a Zipf long tail) and a topic
       (labels dealt to ``n_topics`` topics in a random order); instance i has one topic and
       multiplies the weights of that topic's labels by 12, so labels co-occur by topic;
    2. its number of labels is ``1 + Poisson(cardinality - 1)`` (capped at ``n_labels``), and
       that many distinct labels are drawn with probability proportional to the weights
       (Gumbel top-k sampling, without replacement);
    3. each label owns 3 random words (features); each word of each present label is on with
       probability 0.5, and every word is also on with probability ``feature_noise``. X is a
       0/1 CSR matrix (a bag of words), so the features predict the labels.

    Parameters
    ----------
    n_samples, n_features, n_labels : int
    cardinality : float
        Target mean number of labels per instance (>= 1).
    n_topics : int, default=30
    tail_exponent : float, default=0.7
        Exponent of the label-frequency power law; larger means a heavier head (with the
        delicious shape, 0.7 puts the most frequent label on about half of the instances).
    feature_noise : float, default=0.005
        Probability that a word is on regardless of the labels.
    random_state : int, Generator or None, default=None
        Seed; the same int gives identical output, None a fresh draw.

    Returns
    -------
    Dataset
        Named ``"long-tailed"``, labels ``l000``..., features ``w000``...; X is CSR.

    Examples
    --------
    >>> from mlviz.synthetic import make_long_tailed
    >>> ds = make_long_tailed(n_samples=200, n_features=30, n_labels=50, cardinality=3.0,
    ...                       random_state=0)
    >>> ds.X.shape, ds.Y.shape, ds.is_sparse
    ((200, 30), (200, 50), True)
    """
    n_samples = _check_int(n_samples, "n_samples", 1)
    n_features = _check_int(n_features, "n_features", 1)
    n_labels = _check_int(n_labels, "n_labels", 1)
    n_topics = _check_int(n_topics, "n_topics", 1)
    if not 1.0 <= float(cardinality) <= n_labels:
        raise ValueError(
            f"cardinality must be between 1 and n_labels ({n_labels}); got {cardinality!r}."
        )
    if not 0.0 <= float(feature_noise) <= 1.0:
        raise ValueError(f"feature_noise must be in [0, 1]; got {feature_noise!r}.")
    if not float(tail_exponent) >= 0.0:
        raise ValueError(f"tail_exponent must be >= 0; got {tail_exponent!r}.")
    rng = np.random.default_rng(random_state)

    log_weight = -float(tail_exponent) * np.log1p(np.arange(n_labels))
    label_topic = rng.permutation(n_labels) % n_topics
    instance_topic = rng.integers(0, n_topics, size=n_samples)
    sizes = np.minimum(1 + rng.poisson(float(cardinality) - 1.0, size=n_samples), n_labels)
    rows, cols = [], []
    # Gumbel top-k in blocks of rows bounds the n x L working arrays
    block = max(1, 2_000_000 // n_labels)
    for start in range(0, n_samples, block):
        stop = min(start + block, n_samples)
        keys = log_weight + np.log(_TOPIC_BOOST) * (
            label_topic[None, :] == instance_topic[start:stop, None]
        )
        keys = keys - np.log(-np.log(rng.random((stop - start, n_labels))))
        ranked = np.argsort(-keys, axis=1)
        taken = np.arange(n_labels)[None, :] < sizes[start:stop, None]
        local_rows, positions = np.nonzero(taken)
        rows.append(local_rows + start)
        cols.append(ranked[local_rows, positions])
    rows_all, cols_all = np.concatenate(rows), np.concatenate(cols)
    Y = np.zeros((n_samples, n_labels), dtype=np.uint8)
    Y[rows_all, cols_all] = 1

    words = rng.integers(0, n_features, size=(n_labels, _WORDS_PER_LABEL))
    # one candidate word occurrence per (instance, label, word), kept with probability 0.5
    word_rows = np.repeat(rows_all, _WORDS_PER_LABEL)
    word_cols = words[cols_all].ravel()
    keep = rng.random(word_rows.size) < _WORD_GIVEN_LABEL
    n_noise = rng.binomial(n_samples * n_features, float(feature_noise))
    noise_cells = rng.integers(0, n_samples * n_features, size=n_noise)
    X = sp.csr_matrix(
        (
            np.ones(int(keep.sum()) + n_noise),
            (
                np.concatenate([word_rows[keep], noise_cells // n_features]),
                np.concatenate([word_cols[keep], noise_cells % n_features]),
            ),
        ),
        shape=(n_samples, n_features),
    )
    X.sum_duplicates()
    X.data[:] = 1.0
    return Dataset(
        name="long-tailed",
        X=X,
        Y=Y,
        feature_names=tuple(f"w{j:03d}" for j in range(n_features)),
        label_names=tuple(f"l{k:03d}" for k in range(n_labels)),
        notes=(
            f"make_long_tailed(n_samples={n_samples}, n_features={n_features}, "
            f"n_labels={n_labels}, cardinality={cardinality}, n_topics={n_topics}, "
            f"tail_exponent={tail_exponent}, feature_noise={feature_noise}, "
            f"random_state={random_state!r})",
        ),
    )


# --------------------------------------------------------------------------- sample files

#: Parameters of the shipped samples (documented in mlviz/sample_data/README.md).
SAMPLE_PLANTED = dict(
    n_samples=600,
    n_features=40,
    n_groups=4,
    labels_per_group=4,
    n_tail=6,
    tail_frequency=0.02,
    hierarchical=True,
    noise=0.1,
    random_state=0,
)
SAMPLE_CUBE = dict(n_samples=200, random_state=0)

# The ARFF header comment; mlviz.datasets shows it as the sample's description in the app.
_PLANTED_COMMENT = (
    "Synthetic teaching set: 600 instances, 40 features, 22 labels in 4 planted groups (A-D) "
    "with 6 rare tail labels (*_rare*) and an inclusive pair A2 => A1. Ground-truth groups in "
    "planted_groups.csv.\n"
    "Generated by python -m mlviz.synthetic (mlviz.make_planted; parameters in README.md)."
)
_CUBE_COMMENT = (
    "Synthetic 3-label set: labels a, b, c occupy 7 of the 8 vertices of the 3-cube (never all "
    "three); 200 instances, 4 features.\n"
    "Generated by python -m mlviz.synthetic (mlviz.make_cube; parameters in README.md)."
)


def _groups_csv(names: list[str], groups: list[int], roles: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["label", "group", "role"])
    writer.writerows(zip(names, groups, roles, strict=True))
    return buffer.getvalue()


def write_samples(directory: str | Path) -> list[Path]:
    """Write the embedded sample files into ``directory`` and return their paths.

    ``planted.arff`` / ``planted.xml`` (:func:`make_planted` with :data:`SAMPLE_PLANTED`),
    ``planted_groups.csv`` (columns ``label``, ``group``, ``role``) and ``cube.arff`` /
    ``cube.xml`` (:func:`make_cube` with :data:`SAMPLE_CUBE`).

    Examples
    --------
    >>> import tempfile
    >>> from mlviz.synthetic import write_samples
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     print(sorted(path.name for path in write_samples(folder)))
    ['cube.arff', 'cube.xml', 'planted.arff', 'planted.xml', 'planted_groups.csv']
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    planted, groups = make_planted(**SAMPLE_PLANTED)
    _, _, roles = _planted_layout(
        SAMPLE_PLANTED["n_groups"],
        SAMPLE_PLANTED["labels_per_group"],
        SAMPLE_PLANTED["n_tail"],
        SAMPLE_PLANTED["hierarchical"],
    )
    written = list(save_arff(planted, directory / "planted.arff", comment=_PLANTED_COMMENT))
    groups_path = directory / "planted_groups.csv"
    groups_path.write_text(
        _groups_csv(list(planted.label_names), groups.tolist(), roles), encoding="utf-8"
    )
    written.append(groups_path)
    cube = make_cube(**SAMPLE_CUBE)
    written += list(save_arff(cube, directory / "cube.arff", comment=_CUBE_COMMENT))
    return written


def main(argv: list[str] | None = None) -> None:
    """``python -m mlviz.synthetic [--out DIR]``: regenerate the embedded sample data.

    Examples
    --------
    >>> import tempfile
    >>> from mlviz.synthetic import main
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     main(["--out", folder])  # doctest: +ELLIPSIS
    wrote ...
    """
    from mlviz.datasets import SAMPLE_DIR as default

    parser = argparse.ArgumentParser(
        prog="python -m mlviz.synthetic", description="Regenerate mlviz's sample_data files."
    )
    parser.add_argument("--out", type=Path, default=default, help=f"folder (default {default})")
    args = parser.parse_args(argv)
    for path in write_samples(args.out):
        print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
