"""Reading plotly JSON as the browser receives it."""

from __future__ import annotations

import base64

import numpy as np


def values(array) -> np.ndarray:
    """A plotly JSON array: a list, or a typed array ``{"dtype", "bdata"}`` in base64."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
    return np.asarray(array)
