"""The :class:`Dataset` container and :class:`DataFormatError`."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import scipy.sparse as sp


class DataFormatError(ValueError):
    """A file is not a valid multi-label data set; the message says what, where and what to do.

    Examples
    --------
    >>> import io
    >>> from mlviz.io import DataFormatError, load_csv
    >>> try:
    ...     load_csv(io.StringIO("x,a\\n1,2\\n"), label_columns=["a"])
    ... except DataFormatError:
    ...     print("rejected")
    rejected
    """


class LabelsUnknownError(DataFormatError):
    """The file does not say which of its columns are labels, and the caller did not either.

    A MULAN ARFF without its XML and without MEKA's ``-C n``, or a CSV without
    ``label_columns``: nothing is wrong with the file, one fact is missing. An app catches
    this to ask for that fact (the label count, or the label file) where the user looks.

    Examples
    --------
    >>> import io
    >>> from mlviz.io import LabelsUnknownError, load_arff
    >>> text = "@relation r\\n@attribute a numeric\\n@attribute l {0,1}\\n@data\\n1,0\\n"
    >>> try:
    ...     load_arff(io.StringIO(text))
    ... except LabelsUnknownError:
    ...     print("which columns are labels?")
    which columns are labels?
    """


@dataclass(frozen=True, eq=False)
class Dataset:
    """A multi-label data set.

    Attributes
    ----------
    name : str
        Display name (file stem for loaded files).
    X : ndarray of float64, shape (n_samples, n_features), or scipy.sparse CSR
        Features; CSR when the source file was sparse.
    Y : ndarray of uint8, shape (n_samples, n_labels)
        Labels, 0/1.
    feature_names, label_names : tuple of str
    notes : tuple of str
        What the loader did to the data (dropped id columns, imputed values, ...).

    Notes
    -----
    A Dataset is immutable, so that :attr:`content_digest` and :attr:`digest` can be
    computed once: the fields cannot be reassigned (a frozen dataclass) and ``X`` and ``Y``
    are read-only views of the arrays passed in (no copy; for CSR, of its ``data``,
    ``indices`` and ``indptr``). Writing into them raises ``ValueError: assignment
    destination is read-only``; make a new Dataset (e.g. ``dataclasses.replace(ds,
    Y=new_Y)``) to change the data. Arrays passed in are not frozen themselves: changing them
    in place afterwards would make the digests stale.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.io import Dataset
    >>> ds = Dataset(name="toy", X=np.zeros((3, 2)), Y=np.array([[1, 0], [0, 1], [1, 1]]),
    ...              feature_names=("x1", "x2"), label_names=("a", "b"))
    >>> ds.n_samples, ds.n_features, ds.n_labels, ds.is_sparse
    (3, 2, 2, False)
    """

    name: str
    X: np.ndarray | sp.csr_matrix
    Y: np.ndarray
    feature_names: tuple[str, ...]
    label_names: tuple[str, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        object.__setattr__(self, "X", _read_only(self.X))
        object.__setattr__(self, "Y", _read_only(self.Y))

    @property
    def n_samples(self) -> int:
        return int(self.Y.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_labels(self) -> int:
        return int(self.Y.shape[1])

    @property
    def is_sparse(self) -> bool:
        return sp.issparse(self.X)

    @cached_property
    def content_digest(self) -> str:
        """sha256 over the exact bytes of X and Y (and their shapes): the numbers only.

        Computed on first access and kept (the data are read-only, see Notes): hashing
        reads every byte of X and Y, which pages used to repeat on every rerun. Two data sets
        with the same numbers and other names share it: use :attr:`digest` to key anything
        that shows a name.
        """
        h = hashlib.sha256()
        h.update(repr((self.X.shape, self.Y.shape, self.is_sparse)).encode())
        if sp.issparse(self.X):
            X = sp.csr_matrix(self.X)
            for part in (X.indptr, X.indices, X.data):
                h.update(np.ascontiguousarray(part).tobytes())
        else:
            h.update(np.ascontiguousarray(self.X, dtype=np.float64).tobytes())
        h.update(np.ascontiguousarray(self.Y, dtype=np.uint8).tobytes())
        return h.hexdigest()

    @cached_property
    def digest(self) -> str:
        """sha256 over everything the data set is: its numbers (:attr:`content_digest`), its
        name, feature and label names and notes. The key for every cache whose results
        may show any of them.

        A key of the numbers alone let one user's upload of the same numbers under other
        label names replace the names every other session saw (issue 29). The names are
        JSON-encoded, so no two different lists of names give the same bytes.

        Examples
        --------
        >>> import dataclasses
        >>> import numpy as np
        >>> from mlviz.io import Dataset
        >>> ds = Dataset("d", np.eye(2), np.eye(2, dtype=np.uint8), ("x1", "x2"), ("a", "b"))
        >>> renamed = dataclasses.replace(ds, label_names=("a", "PWNED"))
        >>> renamed.content_digest == ds.content_digest, renamed.digest == ds.digest
        (True, False)
        """
        names = json.dumps(
            [self.name, list(self.feature_names), list(self.label_names), list(self.notes)],
            ensure_ascii=True,
        )
        h = hashlib.sha256(self.content_digest.encode())
        h.update(names.encode())
        return h.hexdigest()


def _read_only(array):
    """A read-only view (no copy) of a dense array or of the buffers of a CSR/CSC matrix."""
    if sp.issparse(array):
        if array.format not in ("csr", "csc"):
            return array  # loaders only produce CSR; other formats are left as given
        parts = []
        for part in (array.data, array.indices, array.indptr):
            view = part.view()
            view.flags.writeable = False
            parts.append(view)
        frozen = type(array)(tuple(parts), shape=array.shape, copy=False)
        # the flags are properties of the matrix, not of the buffers: keep what was known
        frozen.has_sorted_indices = array.has_sorted_indices
        return frozen
    if isinstance(array, np.ndarray):
        view = array.view()
        view.flags.writeable = False
        return view
    return array
