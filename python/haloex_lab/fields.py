"""Read haloex field outputs and checkpoints from their JSON metadata.

A binary output in one file is returned as a read-only numpy memory map (no
copy, any size); several files (an I/O grid) are assembled block by block;
ASCII files are parsed; HDF5 files are read with h5py. Arrays have the shape
(nx, ny, nz, ncomp), indexed [x, y, z, component], whatever decomposition
wrote them. Files store x fastest (the metadata's "site_order", as XDMF and
ParaView read them); files of haloex 0.1.0 store x slowest and are read too.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


class FieldError(Exception):
    """A metadata or data file that cannot be read as it claims."""


_TYPES = {"float64": "f8", "float32": "f4", "uint8": "u1"}
_KEYS = ("name", "step", "format", "type", "ncomp", "endianness", "size", "io_grid", "files")


def load_metadata(path) -> dict:
    """The metadata of an output, checked for the entries a reader needs."""
    path = Path(path)
    try:
        meta = json.loads(path.read_text())
    except FileNotFoundError:
        raise FieldError(f"{path}: no such metadata file") from None
    except json.JSONDecodeError as e:
        raise FieldError(f"{path}: not valid JSON (truncated or corrupted?): {e}") from None
    missing = [k for k in _KEYS if k not in meta]
    if missing:
        raise FieldError(f"{path}: not haloex output metadata (missing {', '.join(missing)})")
    if meta["type"] not in _TYPES:
        raise FieldError(f"{path}: unknown element type {meta['type']!r}")
    return meta


_LEGACY_ORDER = "C: x slowest, then y, z; the components of a site together"


def site_order(meta: dict) -> str:
    """'x_fastest' (haloex's files) or 'x_slowest' (haloex 0.1.0's, which
    said so only in their "order" words)."""
    order = meta.get("site_order")
    if order in ("x_fastest", "x_slowest"):
        return order
    if order is None and meta.get("order") == _LEGACY_ORDER:
        return "x_slowest"
    raise FieldError(f"{meta.get('name', '?')}: unknown site order {order!r} (not a file haloex wrote?)")


def dtype_of(meta: dict) -> np.dtype:
    """The numpy dtype of the values on file, with the recorded byte order."""
    return np.dtype(("<" if meta["endianness"] == "little" else ">") + _TYPES[meta["type"]])


def _splitmix64(x: np.ndarray) -> np.ndarray:
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def block_checksum(values: np.ndarray, offset, size, order: str = "x_fastest") -> int:
    """haloex's checksum of a block of values (shape (ex, ey, ez, ncomp)) at
    `offset` in a lattice of `size`: the sum mod 2^64 of
    splitmix64(index ^ splitmix64(bits)) over elements, index = site * ncomp + c,
    the site numbered in the file's order over the whole lattice."""
    ex, ey, ez, nc = values.shape
    i, j, k = np.meshgrid(
        np.arange(ex) + offset[0], np.arange(ey) + offset[1], np.arange(ez) + offset[2], indexing="ij"
    )
    if order == "x_fastest":
        site = ((k * size[1] + j) * size[0] + i).astype(np.uint64)
    else:
        site = ((i * size[1] + j) * size[2] + k).astype(np.uint64)
    index = site[..., None] * np.uint64(nc) + np.arange(nc, dtype=np.uint64)
    raw = np.ascontiguousarray(values)
    bits = raw.view(f"u{raw.dtype.itemsize}").astype(np.uint64)
    with np.errstate(over="ignore"):
        h = _splitmix64(index ^ _splitmix64(bits))
        return int(np.sum(h, dtype=np.uint64))


def _read_block(meta: dict, base: Path, f: dict) -> np.ndarray:
    """One file's block as an array indexed [x, y, z, c] (a transposed view
    of the x-fastest data)."""
    path = base / f["path"]
    ex, ey, ez = f["extent"]
    fastest = site_order(meta) == "x_fastest"
    shape = (ez, ey, ex, meta["ncomp"]) if fastest else (ex, ey, ez, meta["ncomp"])

    def indexed(a):
        return a.transpose(2, 1, 0, 3) if fastest else a

    if not path.exists():
        raise FieldError(f"{path}: data file missing")
    if meta["format"] == "hdf5":
        try:
            import h5py
        except ImportError:
            raise FieldError("reading HDF5 output needs h5py (pip install h5py)") from None
        with h5py.File(path, "r") as h:
            data = h[meta["dataset"]][...]
        if data.shape != shape:
            raise FieldError(f"{path}: dataset shape {data.shape}, the metadata says {shape}")
        return indexed(data)
    size = path.stat().st_size
    if size != f["bytes"]:
        what = "truncated" if size < f["bytes"] else "longer than its metadata says"
        raise FieldError(f"{path} is {what}: {size} bytes, the metadata says {f['bytes']}")
    if meta["format"] == "ascii":
        return indexed(np.loadtxt(path, dtype=dtype_of(meta).newbyteorder("=")).reshape(shape))
    return indexed(np.memmap(path, dtype=dtype_of(meta), mode="r", shape=shape))


def read_field(path, verify: bool = True) -> np.ndarray:
    """The whole lattice of one output, shape (nx, ny, nz, ncomp).

    With verify, every file's checksum is recomputed and compared with the
    metadata (a FieldError names a corrupted file)."""
    path = Path(path)
    meta = load_metadata(path)
    size = meta["size"]
    blocks = [(f, _read_block(meta, path.parent, f)) for f in meta["files"]]
    if verify:
        for f, b in blocks:
            got = block_checksum(np.asarray(b), f["offset"], size, site_order(meta))
            if f"0x{got:016x}" != f["checksum"]:
                raise FieldError(
                    f"{path.parent / f['path']} is corrupted: checksum 0x{got:016x}, "
                    f"the metadata says {f['checksum']}"
                )
    if len(blocks) == 1 and tuple(blocks[0][0]["extent"]) == tuple(size):
        return blocks[0][1]
    out = np.empty((*tuple(size), meta["ncomp"]), dtype=dtype_of(meta).newbyteorder("="))
    for f, b in blocks:
        o, e = f["offset"], f["extent"]
        out[o[0] : o[0] + e[0], o[1] : o[1] + e[1], o[2] : o[2] + e[2]] = b
    return out


def component(meta: dict, data: np.ndarray, which: str | None):
    """One scalar per site: a component by name or index, or 'magnitude'
    (the default for 3 components; otherwise component 0)."""
    names = meta.get("components") or []
    nc = meta["ncomp"]
    if which is None:
        which = "magnitude" if nc == 3 else "0"
    if which == "magnitude":
        return np.sqrt(np.sum(np.asarray(data, dtype=float) ** 2, axis=-1)), f"|{meta['name']}|"
    if which in names:
        c = names.index(which)
    else:
        try:
            c = int(which)
        except ValueError:
            raise FieldError(
                f"no component {which!r} (components: {', '.join(names) or nc}, or magnitude)"
            ) from None
    if not 0 <= c < nc:
        raise FieldError(f"component {c} is outside 0..{nc - 1}")
    return np.asarray(data[..., c], dtype=float), f"{meta['name']}[{names[c] if c < len(names) else c}]"


def show(path, out, which: str | None = None, axis: str = "z", index: int | None = None) -> Path:
    """Render a slice of an output (normal to `axis`, at `index`, default the
    middle) as a PNG with a colour bar."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    meta = load_metadata(path)
    data = read_field(path)
    ax = "xyz".find(axis)
    if ax < 0 or len(axis) != 1:
        raise FieldError(f"--axis must be x, y or z, not {axis!r}")
    n = data.shape[ax]
    if index is None:
        index = n // 2
    if not 0 <= index < n:
        raise FieldError(f"--index {index} is outside 0..{n - 1} along {axis}")
    # The slice first (a memory map reads only it), then the component.
    plane, label = component(meta, np.take(data, index, axis=ax), which)
    rest = [a for a in "xyz" if a != axis]
    fig, axes = plt.subplots(figsize=(6, 5))
    im = axes.imshow(plane.T, origin="lower", cmap="viridis", aspect="equal")
    fig.colorbar(im, ax=axes, label=label)
    axes.set_xlabel(rest[0])
    axes.set_ylabel(rest[1])
    axes.set_title(f"{label}, step {meta['step']}, {axis} = {index}")
    out = Path(out)
    fig.savefig(out, dpi=100, bbox_inches="tight")
    plt.close(fig)
    return out
