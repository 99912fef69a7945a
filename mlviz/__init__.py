"""mlviz: see, tune and trust label embedding for multi-label classification.

The package is importable without Streamlit. Public names are resolved lazily so that
``import mlviz`` stays cheap (no plotly, no umap, no estimator modules until used).

Layers, each importing only from the ones before it::

    data (io, synthetic, datasets, stats, metrics, costs)
      -> models (linear, mlknn, label_clustering, grople, mds, clems, thresholds)
      -> evaluation (evaluation, reproduce)
      -> figures
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> submodule that defines it
_EXPORTS: dict[str, str] = {
    # data layer
    "Dataset": "io",
    "DataFormatError": "io",
    "load_arff": "io",
    "load_csv": "io",
    "load_scores": "io",
    "load_xc": "io",
    "write_xc": "io",
    "save_arff": "io",
    "make_planted": "synthetic",
    "make_cube": "synthetic",
    "datasets": "datasets",
    "cost_matrix": "costs",
    "evaluate": "metrics",
    "metrics": "metrics",
    "stats": "stats",
    # models
    "BinaryRelevance": "linear",
    "PLST": "linear",
    "PBR": "linear",
    "CompressedSensing": "linear",
    "CPLST": "linear",
    "paper_ridge": "linear",
    "MLkNN": "mlknn",
    "LabelClustering": "label_clustering",
    "GroPLE": "grople",
    "CLEMS": "clems",
    "weighted_smacof": "mds",
    "PerLabelThreshold": "thresholds",
    # evaluation
    "cross_validate": "evaluation",
    "repeated_splits": "evaluation",
    "friedman_nemenyi": "evaluation",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    try:
        module_name = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'mlviz' has no attribute {name!r}") from None
    module = importlib.import_module(f"mlviz.{module_name}")
    value = module if module_name == name else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
