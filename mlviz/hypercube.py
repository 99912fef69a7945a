"""The label hypercube {0,1}^L seen through the data (PLST paper 004, §2–3).

Every label set is a vertex of the hypercube; a data set occupies only a few of its 2^L
vertices. These functions find the occupied vertices, the edges between vertices one label
apart, and low-dimensional coordinates to draw them.

Scale: with ~1,000 labels and ~15,000 occupied vertices nothing here is quadratic in the number
of vertices. Vertices are counted on packed bits (:func:`mlviz.stats.unique_rows`), edges are
found by looking up each vertex with one of its labels removed (O(nnz), never an n x n matrix),
and the MDS projection uses landmarks above ``n_landmarks`` vertices. Drawing ~15,000 points is
still too much for a figure: ``occupied_vertices(Y, max_vertices=...)`` keeps the most frequent
ones, and :data:`DEFAULT_MAX_VERTICES` is the cap the app is meant to show and let users change.
"""

from __future__ import annotations

import importlib.util
import threading
import time
import warnings
from numbers import Integral
from typing import Literal

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp

from mlviz._compat import Interval, StrOptions, validate_params
from mlviz._validation import check_label_matrix
from mlviz.mds import classical_mds, landmark_mds
from mlviz.stats import unique_rows

Projection = Literal["pca", "mds", "umap"]

#: Suggested cap on the vertices drawn in one figure (most frequent first).
DEFAULT_MAX_VERTICES = 2000

#: Above this many vertices the MDS projection is landmark MDS on this many landmarks.
DEFAULT_N_LANDMARKS = 500

# Edge look-ups are done for this many (vertex, label) pairs at a time to bound memory.
_EDGE_CHUNK = 1 << 16

# scikit-learn's parameter validation (as for the estimators' _parameter_constraints) for the
# public functions' parameters; checks on array contents stay hand-written below.
_POSITIVE_INT = Interval(Integral, 1, None, closed="left")


@validate_params(
    {"Y": ["array-like", "sparse matrix"], "max_vertices": [_POSITIVE_INT, None]},
    prefer_skip_nested_validation=True,
)
def occupied_vertices(Y, *, max_vertices: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Distinct label sets and how many instances sit on each, most frequent first.

    Parameters
    ----------
    Y : array-like of shape (n_samples, n_labels)
        0/1 label matrix.
    max_vertices : int or None, default=None
        Keep only the ``max_vertices`` most frequent label sets (None: all). A figure of the
        result shows a top-N and should say so; :func:`mlviz.stats.distinct_labelsets` gives
        the total to show next to it.

    Returns
    -------
    vertices : ndarray of uint8, shape (n_vertices, n_labels)
        Sorted by decreasing count (ties: lexicographic order of the label vector).
    counts : ndarray of int, shape (n_vertices,)

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.hypercube import occupied_vertices
    >>> vertices, counts = occupied_vertices(np.array([[1, 0], [1, 0], [0, 1]]))
    >>> vertices.tolist(), counts.tolist()
    ([[1, 0], [0, 1]], [2, 1])
    """
    Y = check_label_matrix(Y)
    vertices, counts = unique_rows(Y)
    order = np.argsort(-counts, kind="stable")[:max_vertices]
    return vertices[order], counts[order]


def _label_sparse(vertices) -> sp.csr_matrix:
    return sp.csr_matrix(np.asarray(vertices, dtype=np.float64))


@validate_params(
    {"vertices": ["array-like"], "others": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def hamming_distances(vertices: np.ndarray, others: np.ndarray | None = None) -> np.ndarray:
    """Hamming distance (number of differing labels) between the rows of two 0/1 matrices.

    ``|a| + |b| - 2|a ∧ b|`` with the intersections from one sparse product: exact integer
    counts, O(n m c) for label cardinality c (the same values as
    ``scipy.spatial.distance.cdist(a, b, "hamming") * L``, which is O(n m L)).

    Parameters
    ----------
    vertices : ndarray of shape (n, L)
    others : ndarray of shape (m, L), optional
        Default: ``vertices`` (the square matrix).

    Returns
    -------
    ndarray of float64, shape (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.hypercube import hamming_distances
    >>> hamming_distances(np.array([[1, 0, 0], [0, 1, 1]])).tolist()
    [[0.0, 3.0], [3.0, 0.0]]
    """
    first = _label_sparse(vertices)
    second = first if others is None else _label_sparse(others)
    both = (first @ second.T).toarray()
    sizes_first = np.asarray(first.sum(axis=1)).ravel()
    sizes_second = np.asarray(second.sum(axis=1)).ravel()
    return sizes_first[:, None] + sizes_second[None, :] - 2.0 * both


@validate_params({"vertices": ["array-like"]}, prefer_skip_nested_validation=True)
def hamming_edges(vertices: np.ndarray) -> np.ndarray:
    """Pairs (i, j), i < j, of vertices that differ in exactly one label: the cube's edges.

    Every edge joins a label set S and S ∪ {l}, so each vertex is looked up with one of its own
    labels removed: O(nnz) look-ups of packed bit strings in the sorted vertex keys, never an
    n x n distance matrix. The vertices must be distinct (as from :func:`occupied_vertices`).

    Returns
    -------
    ndarray of int, shape (n_edges, 2)
        Sorted by i, then j.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.hypercube import hamming_edges
    >>> hamming_edges(np.array([[0, 0], [1, 0], [1, 1]])).tolist()  # not (0, 2): two labels differ
    [[0, 1], [1, 2]]
    """
    V = np.ascontiguousarray(vertices, dtype=np.uint8)
    if V.ndim != 2:
        raise ValueError(f"vertices must be a 2-D 0/1 array; got shape {V.shape}.")
    n, n_labels = V.shape
    if n < 2 or n_labels == 0:
        return np.empty((0, 2), dtype=np.intp)
    packed = np.packbits(V, axis=1)
    key_type = np.dtype((np.void, packed.shape[1]))
    keys = packed.view(key_type).ravel()
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    if np.any(sorted_keys[1:] == sorted_keys[:-1]):
        raise ValueError(
            "vertices must be distinct label vectors (use occupied_vertices(Y) to get them)."
        )
    rows, labels = np.nonzero(V)
    found_i, found_j = [], []
    for start in range(0, rows.size, _EDGE_CHUNK):
        r, l = rows[start : start + _EDGE_CHUNK], labels[start : start + _EDGE_CHUNK]
        smaller = packed[r]
        smaller[np.arange(r.size), l // 8] ^= (0x80 >> (l % 8)).astype(np.uint8)
        smaller_keys = smaller.view(key_type).ravel()
        position = np.minimum(np.searchsorted(sorted_keys, smaller_keys), n - 1)
        hit = sorted_keys[position] == smaller_keys
        found_i.append(r[hit])
        found_j.append(order[position[hit]])
    i, j = np.concatenate(found_i), np.concatenate(found_j)
    edges = np.column_stack([np.minimum(i, j), np.maximum(i, j)]).astype(np.intp)
    return edges[np.lexsort((edges[:, 1], edges[:, 0]))]


def _weighted_principal_directions(V: np.ndarray, w: np.ndarray, n_components: int):
    """Mean and top principal directions (rows) of the vertices weighted by their counts.

    From the L x L weighted scatter ``V^T diag(w) V - W m m^T`` (a sparse product and a partial
    ``eigh``), the same directions as the SVD of the count-weighted centred vertices, which is
    used instead when there are fewer vertices than labels.
    """
    mean = w @ V / w.sum()
    n_vertices, n_labels = V.shape
    directions = np.zeros((n_components, n_labels))
    if n_vertices < n_labels:
        # few vertices, many labels (e.g. 20 label sets over 10,000 labels): the thin SVD of
        # the n x L weighted centred vertices avoids forming the L x L scatter
        centred = (V - mean) * np.sqrt(w)[:, None]
        _, _, rows = la.svd(centred, full_matrices=False)
        k = min(n_components, rows.shape[0])
        directions[:k] = rows[:k]
    else:
        labels = _label_sparse(V)
        scatter = (labels.T @ labels.multiply(w[:, None]).tocsr()).toarray()
        scatter -= w.sum() * np.outer(mean, mean)
        k = min(n_components, n_labels)
        _, vectors = la.eigh(
            0.5 * (scatter + scatter.T), subset_by_index=[n_labels - k, n_labels - 1]
        )
        directions[:k] = vectors[:, ::-1].T
    # eigenvector signs are arbitrary: make each direction's largest entry positive
    pivots = np.argmax(np.abs(directions), axis=1)
    signs = np.sign(directions[np.arange(n_components), pivots])
    signs[signs == 0] = 1.0
    return mean, directions * signs[:, None]


def _maxmin_landmarks(V: np.ndarray, n_landmarks: int) -> np.ndarray:
    """MaxMin landmarks (de Silva & Tenenbaum): start at the first (most frequent) vertex, then
    repeatedly add the vertex farthest from all landmarks chosen so far. Deterministic."""
    labels = _label_sparse(V)
    sizes = np.asarray(labels.sum(axis=1)).ravel()
    chosen = [0]
    nearest = np.full(V.shape[0], np.inf)
    for _ in range(n_landmarks - 1):
        newest = labels[chosen[-1]]
        distance = sizes + sizes[chosen[-1]] - 2.0 * (labels @ newest.T).toarray().ravel()
        nearest = np.minimum(nearest, distance)
        chosen.append(int(np.argmax(nearest)))
    return np.asarray(chosen)


@validate_params(
    {
        "vertices": ["array-like"],
        "counts": ["array-like"],
        "method": [StrOptions({"pca", "mds", "umap"})],
        "n_components": [Interval(Integral, 2, 3, closed="both")],
        "random_state": ["random_state"],
        "n_landmarks": [_POSITIVE_INT],
    },
    prefer_skip_nested_validation=True,
)
def project_vertices(
    vertices: np.ndarray,
    counts: np.ndarray,
    *,
    method: Projection = "pca",
    n_components: int = 2,
    random_state=None,
    n_landmarks: int = DEFAULT_N_LANDMARKS,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Coordinates of the given vertices in 2-D or 3-D (pass only the vertices to be drawn).

    ``"pca"`` projects onto the principal directions of the *instances* on these vertices
    (each vertex weighted by its count), i.e. the top PLST directions of Y when all occupied
    vertices are passed; with a capped vertex set they are the directions of the instances on
    the drawn vertices. It also returns the loadings (n_labels, n_components): where each label
    axis e_l points in the projection.
    ``"mds"`` is classical (Torgerson) MDS of the square roots of the Hamming distances between
    vertices (squared Euclidean distance between 0/1 vectors *is* the Hamming distance); above
    ``n_landmarks`` vertices it is landmark MDS (:func:`mlviz.mds.landmark_mds`) on MaxMin
    landmarks, linear in the number of vertices.
    ``"umap"`` uses umap-learn with the Hamming metric (imported only here; the optional extra
    ``mlviz[umap]``, see :func:`umap_available`). Its first call in a process imports umap
    and compiles numba code: on 2,000 delicious-shaped vertices (983 labels) the first call
    took 67 s and a second one 16 s (``benchmarks/bench_scale.py``, busy 2-core machine), so
    a progress message should promise about a minute the first time; :func:`warm_up_umap`
    compiles in the background.

    Returns
    -------
    coords : ndarray, shape (n_vertices, n_components)
    loadings : ndarray, shape (n_labels, n_components), or None for "mds" and "umap"

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.hypercube import project_vertices
    >>> vertices = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 1]])
    >>> coords, loadings = project_vertices(vertices, np.array([4, 3, 2, 1]), method="pca")
    >>> coords.shape, loadings.shape
    ((4, 2), (3, 2))
    """
    V = np.asarray(vertices, dtype=np.float64)
    w = np.asarray(counts, dtype=np.float64)
    n_vertices, n_labels = V.shape
    if method == "pca":
        mean, directions = _weighted_principal_directions(V, w, n_components)
        return (V - mean) @ directions.T, directions.T
    if method == "mds":
        if n_vertices == 1:
            return np.zeros((1, n_components)), None
        if n_vertices <= n_landmarks:
            return classical_mds(np.sqrt(hamming_distances(V)), n_components), None
        landmarks = _maxmin_landmarks(V, n_landmarks)
        to_landmarks = np.sqrt(np.clip(hamming_distances(V, V[landmarks]), 0.0, None))
        return landmark_mds(to_landmarks[landmarks], to_landmarks, n_components), None
    # method == "umap" (validate_params allows no other)
    if n_vertices <= n_components + 2:
        raise ValueError(
            f"UMAP needs more than {n_components + 2} occupied vertices; this data set has "
            f"{n_vertices}. Use PCA or MDS."
        )
    if not umap_available():
        raise ImportError(
            "The UMAP projection needs umap-learn, which is not installed: "
            "pip install 'mlviz[umap]' (or umap-learn), or use PCA or MDS."
        )
    with warnings.catch_warnings():
        # umap-learn warns on every Hamming fit that inverse_transform is unavailable (no
        # gradient for the metric); mlviz never inverts, so the page would show noise
        warnings.filterwarnings(
            "ignore", message="gradient function is not yet implemented", category=UserWarning
        )
        return _umap_embedding(V, n_components, random_state), None


def _umap_embedding(V: np.ndarray, n_components: int, random_state: int) -> np.ndarray:
    import umap  # lazy: import and numba compilation, see warm_up_umap

    reducer = umap.UMAP(
        n_components=n_components,
        metric="hamming",
        n_neighbors=min(15, len(V) - 1),
        random_state=random_state,
        n_jobs=1,  # a seeded UMAP runs single-threaded anyway; said here, it does not warn
    )
    return reducer.fit_transform(V)


def umap_available() -> bool:
    """Whether umap-learn (the optional extra ``mlviz[umap]``) is installed; not imported.

    Examples
    --------
    >>> from mlviz.hypercube import umap_available
    >>> isinstance(umap_available(), bool)  # True with the extra mlviz[umap]
    True
    """
    return importlib.util.find_spec("umap") is not None


class UmapWarmUp(threading.Thread):
    """Daemon thread that imports umap-learn and projects a tiny set once, so numba compiles.

    Started by :func:`warm_up_umap`. ``started_at`` is its start (:func:`time.perf_counter`);
    when it has finished, ``seconds`` holds the time it took and ``error`` the exception it
    raised, if any (the exception also reaches :func:`threading.excepthook`, i.e. the log).

    Examples
    --------
    >>> from mlviz.hypercube import UmapWarmUp
    >>> thread = UmapWarmUp()  # not started: start() compiles UMAP (a minute of CPU)
    >>> thread.daemon, thread.is_alive()
    (True, False)
    """

    def __init__(self) -> None:
        super().__init__(name="mlviz-umap-warm-up", daemon=True)
        self.started_at: float | None = None
        self.seconds: float | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        self.started_at = start = time.perf_counter()
        rng = np.random.default_rng(0)
        tiny = (rng.random((40, 12)) < 0.3).astype(np.float64)
        try:
            # not project_vertices: its catch_warnings would race the page threads' own
            _umap_embedding(tiny, 2, random_state=0)
        except BaseException as err:
            self.error = err
            raise
        finally:
            self.seconds = time.perf_counter() - start


def warm_up_umap() -> UmapWarmUp | None:
    """Start compiling UMAP in the background; None (and nothing done) without umap-learn.

    The first UMAP projection in a process pays the import of umap-learn and the just-in-time
    compilation of its numba code; ``benchmarks/bench_scale.py`` (step ``umap``) measures
    that first call against a call after this warm-up. An app calls this once, when a view
    that offers UMAP has drawn (the Hypercube page does, through its
    ``start_umap_warm_up``), so that a user's first UMAP view pays only the projection.
    The thread is a daemon: it never keeps the process alive. Compiling holds
    Python's global interpreter lock for most of its time, so other Python work in the
    process runs slower until it is done (started at app start, it delayed the first page's
    first chart from 4.6 s to 7.3 s: ``benchmarks/bench_app.py``).

    Returns
    -------
    UmapWarmUp or None
        The started thread (``join()`` waits for it), or None when umap-learn is not
        installed.

    Examples
    --------
    >>> from mlviz.hypercube import warm_up_umap
    >>> warm_up_umap  # doctest: +ELLIPSIS
    <function warm_up_umap at ...>
    >>> # in an app, once a view offering UMAP has drawn (compiles for a minute; not run here):
    >>> # thread = warm_up_umap(); ...; thread is None or thread.join()
    """
    if not umap_available():
        return None
    thread = UmapWarmUp()
    thread.start()
    return thread


@validate_params(
    {"vertices": ["array-like"], "groups": ["array-like"]}, prefer_skip_nested_validation=True
)
def dominant_group(vertices: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """For each vertex, the label group holding most of its labels (-1 for the empty set).

    Ties go to the lowest group id, so the colouring is deterministic.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.hypercube import dominant_group
    >>> vertices = np.array([[1, 1, 0], [0, 0, 1], [0, 0, 0]])
    >>> dominant_group(vertices, np.array([0, 0, 1])).tolist()
    [0, 1, -1]
    """
    V = np.asarray(vertices, dtype=np.float64)
    groups = np.asarray(groups, dtype=int)
    if groups.shape != (V.shape[1],):
        raise ValueError(
            f"groups must give one group id per label ({V.shape[1]}); got shape {groups.shape}."
        )
    membership = np.zeros((V.shape[1], groups.max() + 1))
    membership[np.arange(V.shape[1]), groups] = 1.0
    per_group = V @ membership
    return np.where(V.sum(axis=1) > 0, per_group.argmax(axis=1), -1)
