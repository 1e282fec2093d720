"""Checks that sampled data really fades with the configured half-life.

If examples arrive evenly over the last ``T`` days and are drawn with weight 0.5^(age/h), the
ages of drawn examples follow a truncated exponential: density proportional to 2^(-a/h) on
[0, T]. For any pool (even arrival or not) the half-life can be estimated back from the draws
by maximum likelihood, which is what the tests and the pool benchmark (``bench pool``) compare against.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

LN2 = math.log(2.0)


def truncated_decay_cdf(age: npt.ArrayLike, half_life: float, horizon: float) -> npt.NDArray[np.float64]:
    """CDF of sampled ages when the pool is spread evenly over [0, horizon] days."""
    a = np.clip(np.asarray(age, dtype=np.float64), 0.0, horizon)
    lam = LN2 / half_life
    return (1.0 - np.exp(-lam * a)) / (1.0 - math.exp(-lam * horizon))


def truncated_decay_pdf(age: npt.ArrayLike, half_life: float, horizon: float) -> npt.NDArray[np.float64]:
    """Density matching :func:`truncated_decay_cdf` (zero outside [0, horizon])."""
    a = np.asarray(age, dtype=np.float64)
    lam = LN2 / half_life
    dens = lam * np.exp(-lam * a) / (1.0 - math.exp(-lam * horizon))
    return np.where((a >= 0) & (a <= horizon), dens, 0.0)


def ks_statistic(
    samples: npt.ArrayLike,
    cdf: npt.NDArray[np.float64] | None = None,
    *,
    half_life: float = 0.0,
    horizon: float = 0.0,
) -> float:
    """Kolmogorov-Smirnov distance between the samples' empirical CDF and the theoretical one.

    Pass ``half_life`` and ``horizon`` to compare against the truncated decay law.
    """
    x = np.sort(np.asarray(samples, dtype=np.float64))
    n = len(x)
    if n == 0:
        raise ValueError("no samples")
    theo = cdf if cdf is not None else truncated_decay_cdf(x, half_life, horizon)
    upper = np.arange(1, n + 1) / n - theo
    lower = theo - np.arange(0, n) / n
    return float(max(upper.max(), lower.max()))


def ks_critical(n: int, alpha: float = 0.05) -> float:
    """Asymptotic one-sample KS critical value c(alpha)/sqrt(n)."""
    c = math.sqrt(-0.5 * math.log(alpha / 2.0))
    return c / math.sqrt(n)


def estimate_half_life(sampled_ages: npt.ArrayLike, pool_ages: npt.ArrayLike) -> float:
    """Maximum-likelihood half-life from draws, given the ages of everything in the pool.

    The draws follow p_i proportional to exp(-lambda * a_i) over the pool; the likelihood is
    maximised where the lambda-weighted mean pool age equals the mean drawn age, and that mean
    falls monotonically with lambda, so bisection on log(lambda) finds it.
    """
    s = np.asarray(sampled_ages, dtype=np.float64)
    pool = np.asarray(pool_ages, dtype=np.float64)
    target = float(s.mean())

    def weighted_mean(lam: float) -> float:
        z = -lam * (pool - pool.min())
        w = np.exp(z - z.max())
        return float((w * pool).sum() / w.sum())

    lo, hi = 1e-9, 1e3
    if target >= weighted_mean(lo):
        return math.inf
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if weighted_mean(mid) > target:
            lo = mid
        else:
            hi = mid
    return LN2 / math.sqrt(lo * hi)


@dataclass(frozen=True)
class HalfLifeCheck:
    """Result of comparing drawn ages with the configured half-life."""

    half_life_days: float
    horizon_days: float
    draws: int
    ks: float
    ks_critical_5pct: float
    estimated_half_life_days: float
    ks_pool: float = 0.0

    @property
    def relative_error(self) -> float:
        return abs(self.estimated_half_life_days - self.half_life_days) / self.half_life_days

    @property
    def passes(self) -> bool:
        """Drawn ages are consistent (5 % level) with the continuous decay law."""
        return self.ks <= self.ks_critical_5pct


def pool_decay_cdf(x: npt.ArrayLike, pool_ages: npt.ArrayLike, half_life: float) -> npt.NDArray[np.float64]:
    """The exact law of drawn ages for this pool: the decay-weighted CDF of its ages, at ``x``."""
    ages = np.sort(np.asarray(pool_ages, dtype=np.float64))
    w = np.power(0.5, ages / half_life)
    cum = np.cumsum(w) / w.sum()
    idx = np.searchsorted(ages, np.asarray(x, dtype=np.float64), side="right")
    return np.where(idx > 0, cum[np.maximum(idx - 1, 0)], 0.0)


def check_half_life(sampled_ages: npt.ArrayLike, pool_ages: npt.ArrayLike, half_life: float) -> HalfLifeCheck:
    s = np.asarray(sampled_ages, dtype=np.float64)
    pool = np.asarray(pool_ages, dtype=np.float64)
    horizon = float(pool.max())
    return HalfLifeCheck(
        half_life_days=half_life,
        horizon_days=horizon,
        draws=len(s),
        ks=ks_statistic(s, half_life=half_life, horizon=horizon),
        ks_critical_5pct=ks_critical(len(s)),
        estimated_half_life_days=estimate_half_life(s, pool),
        ks_pool=ks_statistic(s, pool_decay_cdf(np.sort(s), pool, half_life)),
    )


def plot_half_life(
    sampled_ages: npt.ArrayLike,
    pool_ages: npt.ArrayLike,
    half_life: float,
    path: str | Path,
    *,
    title: str | None = None,
) -> HalfLifeCheck:
    """Write a small PNG: histogram of drawn ages, the theoretical density, and pool ages.

    Needs matplotlib (the ``plot`` extra); uses the non-interactive Agg backend.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    check = check_half_life(sampled_ages, pool_ages, half_life)
    s = np.asarray(sampled_ages, dtype=np.float64)
    pool = np.asarray(pool_ages, dtype=np.float64)
    horizon = check.horizon_days
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    bins = [float(b) for b in np.linspace(0.0, horizon, 37)]
    ax.hist(pool, bins=bins, density=True, alpha=0.35, color="#999999", label="ages in pool")
    ax.hist(s, bins=bins, density=True, alpha=0.65, color="#3b75af", label=f"ages drawn (n={len(s):,})")
    grid = np.linspace(0.0, horizon, 400)
    ax.plot(
        grid,
        truncated_decay_pdf(grid, half_life, horizon),
        color="#c0392b",
        lw=2,
        label=f"theory: 0.5^(age/{half_life:g}d)",
    )
    for k in (1, 2, 3, 4):
        if k * half_life < horizon:
            ax.axvline(k * half_life, color="#c0392b", lw=0.6, ls=":")
    ax.set_xlabel("age of example when drawn (days)")
    ax.set_ylabel("density")
    ax.set_title(
        title
        or f"Sampled ages follow the half-life: KS={check.ks:.4f}, "
        f"fitted half-life {check.estimated_half_life_days:.1f}d",
        fontsize=9,
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return check
