"""Multi-label data in and out: the :class:`Dataset` container, ARFF and CSV loaders, the writer.

Modules: :mod:`~mlviz.io.arff` (ARFF parsing, MULAN/MEKA, dense/sparse, error diagnosis),
:mod:`~mlviz.io.labels` (which attributes are labels: XML, MEKA ``-C``, a count),
:mod:`~mlviz.io.csv` (CSV tables),
:mod:`~mlviz.io.xc` (Extreme Classification Repository / LIBSVM text files),
:mod:`~mlviz.io.scores` (any model's score file),
:mod:`~mlviz.io.write` (ARFF + XML via liac-arff) and
:mod:`~mlviz.io.export` (tables as CSV safe to open in a spreadsheet, safe file names).
Loaders never impute: missing feature values are an error by default, or NaN with
``missing="keep"`` (impute inside the model, on the training rows).
"""

from mlviz.io._dataset import DataFormatError, Dataset, LabelsUnknownError
from mlviz.io.arff import load_arff
from mlviz.io.csv import load_csv
from mlviz.io.scores import load_scores
from mlviz.io.write import save_arff
from mlviz.io.xc import load_xc, write_xc

__all__ = [
    "DataFormatError",
    "Dataset",
    "LabelsUnknownError",
    "load_arff",
    "load_csv",
    "load_scores",
    "load_xc",
    "save_arff",
    "write_xc",
]
