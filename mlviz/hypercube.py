"""The label hypercube {0,1}^L seen through the data (PLST paper 004, §2–3).

Every label set is a vertex of the hypercube; a data set occupies only a few of its 2^L
vertices. These functions find the occupied vertices, the edges between vertices one label
apart, and low-dimensional coordinates to draw them.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from mlviz._validation import check_label_matrix
from mlviz.mds import classical_mds

Projection = Literal["pca", "mds", "umap"]


def occupied_vertices(Y) -> tuple[np.ndarray, np.ndarray]:
    """Distinct label sets and how many instances sit on each.

    Returns
    -------
    vertices : ndarray of uint8, shape (n_vertices, n_labels)
        Sorted by decreasing count (ties: lexicographic order of the label vector).
    counts : ndarray of int, shape (n_vertices,)
    """
    Y = check_label_matrix(Y).astype(np.uint8)
    vertices, counts = np.unique(Y, axis=0, return_counts=True)
    order = np.argsort(-counts, kind="stable")
    return vertices[order], counts[order]


def hamming_distances(vertices: np.ndarray) -> np.ndarray:
    """Pairwise Hamming distance (number of differing labels) between 0/1 rows."""
    V = np.asarray(vertices, dtype=np.float64)
    return V @ (1.0 - V).T + (1.0 - V) @ V.T


def hamming_edges(vertices: np.ndarray) -> np.ndarray:
    """Pairs (i, j), i < j, of vertices that differ in exactly one label: the cube's edges."""
    D = hamming_distances(vertices)
    i, j = np.nonzero(np.triu(np.isclose(D, 1.0), k=1))
    return np.column_stack([i, j])


def project_vertices(
    vertices: np.ndarray,
    counts: np.ndarray,
    *,
    method: Projection = "pca",
    n_components: int = 2,
    random_state: int = 0,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Coordinates of the occupied vertices in 2-D or 3-D.

    ``"pca"`` projects onto the principal directions of the *instances* (each vertex
    weighted by its count), i.e. the top PLST directions of Y: the picture is exactly how
    PLST with M = ``n_components`` sees the label space. It also returns the loadings
    (n_labels, n_components): where each label axis e_l points in the projection.
    ``"mds"`` is classical (Torgerson) MDS of the Hamming distances between vertices;
    ``"umap"`` uses umap-learn with the Hamming metric (imported only here: it compiles for
    ~15 s in a fresh process).

    Returns
    -------
    coords : ndarray, shape (n_vertices, n_components)
    loadings : ndarray, shape (n_labels, n_components), or None for "mds" and "umap"
    """
    V = np.asarray(vertices, dtype=np.float64)
    w = np.asarray(counts, dtype=np.float64)
    n_vertices, n_labels = V.shape
    if n_components not in (2, 3):
        raise ValueError(f"n_components must be 2 or 3; got {n_components}.")
    if method == "pca":
        mean = w @ V / w.sum()
        centred = (V - mean) * np.sqrt(w)[:, None]
        _, _, Vt = np.linalg.svd(centred, full_matrices=False)
        directions = np.zeros((n_components, n_labels))
        k = min(n_components, Vt.shape[0])
        directions[:k] = Vt[:k]
        return (V - mean) @ directions.T, directions.T
    if method == "mds":
        if n_vertices == 1:
            return np.zeros((1, n_components)), None
        # squared Euclidean distance between 0/1 vectors is the Hamming distance
        return classical_mds(np.sqrt(hamming_distances(V)), n_components), None
    if method == "umap":
        if n_vertices <= n_components + 2:
            raise ValueError(
                f"UMAP needs more than {n_components + 2} occupied vertices; this data set has "
                f"{n_vertices}. Use PCA or MDS."
            )
        import umap  # lazy: numba compilation costs ~15 s in a fresh process

        reducer = umap.UMAP(
            n_components=n_components,
            metric="hamming",
            n_neighbors=min(15, n_vertices - 1),
            random_state=random_state,
        )
        return reducer.fit_transform(V), None
    raise ValueError(f"unknown projection {method!r}; choose 'pca', 'mds' or 'umap'.")


def dominant_group(vertices: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """For each vertex, the label group holding most of its labels (-1 for the empty set).

    Ties go to the lowest group id, so the colouring is deterministic.
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
