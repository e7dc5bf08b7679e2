"""`haloex-lab compare`: are two .npy fields the same to a tolerance?

The stencil paper validates each strategy's output against the serial run
element by element; this is that check, with numpy's allclose rule
|a - b| <= atol + rtol |b| (b is the reference) and the paper-style
defaults rtol = 1e-5, atol = 1e-8."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np


class CompareError(Exception):
    """Files that cannot be compared: unreadable, not .npy, or of different shapes."""


@dataclass
class Comparison:
    shape: tuple
    dtypes: tuple[str, str]
    max_abs: float
    max_rel: float  # over elements where the reference is not zero
    outside: int  # elements that break the tolerance
    nonfinite: int  # elements where either side is NaN or infinite
    size: int
    rtol: float
    atol: float
    identical: bool  # same dtype and the same bytes

    @property
    def ok(self) -> bool:
        return self.outside == 0 and self.nonfinite == 0


def load_npy(path: Path) -> np.ndarray:
    try:
        return np.load(Path(path), allow_pickle=False)
    except FileNotFoundError:
        raise CompareError(f"{path}: no such file") from None
    except (OSError, ValueError, EOFError) as e:
        raise CompareError(f"{path}: not a readable .npy array ({e})") from None


def compare_arrays(a: np.ndarray, b: np.ndarray, rtol: float = 1e-5, atol: float = 1e-8) -> Comparison:
    """Compare a against the reference b (same shape required)."""
    if a.shape != b.shape:
        raise CompareError(f"the shapes differ: {a.shape} against {b.shape}")
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    finite = np.isfinite(a64) & np.isfinite(b64)
    diff = np.abs(a64 - b64)
    diff[~finite] = 0.0
    ref = np.abs(b64)
    nonzero = finite & (ref > 0)
    rel = diff[nonzero] / ref[nonzero]
    outside = int(np.count_nonzero(finite & (diff > atol + rtol * ref)))
    return Comparison(
        shape=a.shape,
        dtypes=(str(a.dtype), str(b.dtype)),
        max_abs=float(diff.max(initial=0.0)),
        max_rel=float(rel.max(initial=0.0)),
        outside=outside,
        nonfinite=int(np.count_nonzero(~finite)),
        size=int(a.size),
        rtol=rtol,
        atol=atol,
        identical=a.dtype == b.dtype and a.tobytes() == b.tobytes(),
    )


def compare_files(a: Path, b: Path, rtol: float = 1e-5, atol: float = 1e-8) -> Comparison:
    try:
        return compare_arrays(load_npy(a), load_npy(b), rtol, atol)
    except CompareError as e:
        if str(e).startswith("the shapes differ"):
            raise CompareError(f"{a} and {b}: {e}") from None
        raise


def format_comparison(a: Path, b: Path, c: Comparison) -> str:
    lines = [
        f"a: {a}  shape {c.shape}  {c.dtypes[0]}",
        f"b: {b}  shape {c.shape}  {c.dtypes[1]}  (reference)",
        f"max abs difference      {c.max_abs:.6g}",
        f"max relative difference {c.max_rel:.6g}  (|a - b| / |b| where b != 0)",
        f"outside tolerance       {c.outside} of {c.size}  (|a - b| > atol + rtol |b|)",
    ]
    if c.nonfinite:
        lines.append(f"not finite              {c.nonfinite} elements (NaN or inf on either side)")
    verdict = "PASS" if c.ok else "FAIL"
    lines.append(
        f"{verdict}: allclose(a, b, rtol={c.rtol:g}, atol={c.atol:g})"
        + ("; bit-identical" if c.identical else "")
    )
    return "\n".join(lines)
