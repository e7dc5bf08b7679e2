"""The field reader on outputs built here by hand: blocks of an I/O grid
assembled in global order, byte order from the metadata, truncated and
corrupted files refused, components picked by name."""

import json

import numpy as np
import pytest

from haloex_lab.fields import FieldError, block_checksum, component, read_field


def write_output(tmp_path, data, grid_x, dtype="<f8", name="q", legacy=False):
    """data: (nx, ny, nz, nc); split along x into grid_x files, stored x
    fastest (or x slowest with haloex 0.1.0's metadata when legacy)."""
    nx, ny, nz, nc = data.shape
    files = []
    edges = np.linspace(0, nx, grid_x + 1).astype(int)
    for f in range(grid_x):
        block = data[edges[f] : edges[f + 1]].astype(dtype)
        path = f"{name}.{f}.bin" if grid_x > 1 else f"{name}.bin"
        stored = block if legacy else block.transpose(2, 1, 0, 3)
        np.ascontiguousarray(stored).tofile(tmp_path / path)
        order = "x_slowest" if legacy else "x_fastest"
        files.append(
            {
                "path": path,
                "extent": [int(edges[f + 1] - edges[f]), ny, nz],
                "offset": [int(edges[f]), 0, 0],
                "bytes": block.nbytes,
                "checksum": f"0x{block_checksum(block, [int(edges[f]), 0, 0], [nx, ny, nz], order):016x}",
            }
        )
    meta = {
        "haloex_io": 1,
        "name": name,
        "step": 3,
        "format": "binary",
        "type": {"<f8": "float64", ">f8": "float64", "<f4": "float32"}[dtype],
        "ncomp": nc,
        "components": ["a", "b", "c"][:nc],
        "endianness": "big" if dtype[0] == ">" else "little",
        "size": [nx, ny, nz],
        "periodic": [True] * 3,
        "io_grid": [grid_x, 1, 1],
        "process_grid": [grid_x, 1, 1],
        "files": files,
        "version": "test",
    }
    if legacy:
        meta["order"] = "C: x slowest, then y, z; the components of a site together"
    else:
        meta["site_order"] = "x_fastest"
    (tmp_path / f"{name}.json").write_text(json.dumps(meta))
    return tmp_path / f"{name}.json"


def encoding(shape):
    return np.arange(np.prod(shape), dtype=float).reshape(shape) + 0.25


@pytest.mark.parametrize("grid_x", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["<f8", ">f8", "<f4"])
def test_blocks_assemble_in_global_order(tmp_path, grid_x, dtype):
    data = encoding((6, 4, 3, 3))
    got = read_field(write_output(tmp_path, data, grid_x, dtype))
    assert got.shape == data.shape
    assert np.array_equal(np.asarray(got, dtype=float), data)


@pytest.mark.parametrize("grid_x", [1, 3])
def test_legacy_x_slowest_files_are_read(tmp_path, grid_x):
    data = encoding((6, 4, 3, 2))
    got = read_field(write_output(tmp_path, data, grid_x, legacy=True))
    assert np.array_equal(np.asarray(got), data)


def test_unknown_site_order_is_refused(tmp_path):
    meta = write_output(tmp_path, encoding((2, 2, 2, 1)), 1)
    m = json.loads(meta.read_text())
    m["site_order"] = "z_fastest"
    meta.write_text(json.dumps(m))
    with pytest.raises(FieldError, match="unknown site order 'z_fastest'"):
        read_field(meta)


def test_one_file_is_a_memory_map(tmp_path):
    assert isinstance(read_field(write_output(tmp_path, encoding((4, 4, 2, 1)), 1)), np.memmap)


def test_truncated_and_corrupted_files_are_refused(tmp_path):
    meta = write_output(tmp_path, encoding((6, 4, 3, 3)), 2)
    data = tmp_path / "q.1.bin"
    raw = bytearray(data.read_bytes())
    raw[17] ^= 0x04
    data.write_bytes(raw)
    with pytest.raises(FieldError, match=r"q\.1\.bin is corrupted"):
        read_field(meta)
    data.write_bytes(raw[:-1])
    with pytest.raises(FieldError, match=r"q\.1\.bin is truncated: 863 bytes, the metadata says 864"):
        read_field(meta)


def test_bad_metadata(tmp_path):
    (tmp_path / "x.json").write_text('{"name": "x", "step"')
    with pytest.raises(FieldError, match="not valid JSON"):
        read_field(tmp_path / "x.json")
    (tmp_path / "y.json").write_text('{"name": "y"}')
    with pytest.raises(FieldError, match="missing step"):
        read_field(tmp_path / "y.json")


def test_checksum_depends_on_place_and_value():
    v = encoding((2, 2, 1, 1))
    c = block_checksum(v, [0, 0, 0], [2, 2, 1])
    swapped = v.copy()
    swapped[0, 0, 0, 0], swapped[0, 1, 0, 0] = v[0, 1, 0, 0], v[0, 0, 0, 0]
    assert block_checksum(swapped, [0, 0, 0], [2, 2, 1]) != c
    # Split into two blocks, the parts add up to the whole (mod 2^64).
    parts = block_checksum(v[:1], [0, 0, 0], [2, 2, 1]) + block_checksum(v[1:], [1, 0, 0], [2, 2, 1])
    assert parts % 2**64 == c


def test_component_by_name_index_and_magnitude():
    meta = {"name": "velocity", "ncomp": 3, "components": ["ux", "uy", "uz"]}
    u = np.zeros((2, 2, 1, 3))
    u[..., 0], u[..., 1] = 3.0, 4.0
    assert np.allclose(component(meta, u, None)[0], 5.0)
    assert np.allclose(component(meta, u, "uy")[0], 4.0)
    assert np.allclose(component(meta, u, "0")[0], 3.0)
    with pytest.raises(FieldError, match="no component 'w'"):
        component(meta, u, "w")
