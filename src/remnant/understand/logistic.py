"""The arithmetic the project's small logistic readers share (the pair judge, the forget matcher,
the claim gate, the expiry reader): one standardised row to a probability, and weights written
to their JSON files at a fixed precision. Each reader keeps its own features, thresholds and file."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt


def probability(
    x: npt.ArrayLike, mean: npt.ArrayLike, scale: npt.ArrayLike, w: npt.ArrayLike, bias: float
) -> float:
    """``sigmoid(((x - mean) / scale) · w + bias)`` of one row, the logit clamped to ±50 (no
    overflow for an outlying row)."""
    row = np.asarray(x, dtype=np.float64)
    z = float(((row - np.asarray(mean)) / np.asarray(scale)) @ np.asarray(w)) + bias
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def rounded(values: Iterable[float], digits: int = 6) -> list[float]:
    """An array as a weights file stores it: plain floats at ``digits`` decimals."""
    return [round(float(v), digits) for v in values]
