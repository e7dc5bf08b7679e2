"""Run by pvpython: what ParaView itself makes of a haloex XDMF file.

    pvpython probe.py READER FIELDS.xmf OUT.npz X Y Z

Opens the file with one of ParaView's two XDMF readers (READER: xdmf2, the
"XDMF Reader", or xdmf3, "Xdmf3ReaderS"; ParaView asks which when a user
opens an .xmf file), merges the blocks of a spatial
collection, and saves what ParaView sees: the bounds, the centre of every
cell (one cell per site), every cell array, and the values that ParaView's
own probe filter finds at the point (X, Y, Z). The checks live in check.py, run with
the project's Python, so that this script needs nothing but ParaView."""

import sys

import numpy as np
from paraview import servermanager
from paraview.simple import CellCenters, MergeBlocks, ProbeLocation, Xdmf3ReaderS, XDMFReader
from vtk.numpy_interface import dataset_adapter as dsa

kind, xmf, out = sys.argv[1:4]
point = [float(v) for v in sys.argv[4:7]]

reader = XDMFReader(FileNames=[xmf]) if kind == "xdmf2" else Xdmf3ReaderS(FileName=[xmf])
reader.UpdatePipeline()
merged = MergeBlocks(Input=reader)
merged.UpdatePipeline()
bounds = servermanager.Fetch(merged).GetBounds()
centres = CellCenters(Input=merged)  # a point per cell, carrying the cell's values
data = dsa.WrapDataObject(servermanager.Fetch(centres))
saved = {
    "bounds": np.array(bounds),
    "points": np.array(data.Points),
    "names": np.array(list(data.PointData.keys())),
}
for name in data.PointData.keys():  # noqa: SIM118 (not a dict: no plain iteration)
    saved["array_" + name] = np.array(data.PointData[name])
probe = ProbeLocation(Input=reader, ProbeType="Fixed Radius Point Source")
probe.ProbeType.Center = point
probe.UpdatePipeline()
found = dsa.WrapDataObject(servermanager.Fetch(probe))
for name in found.PointData.keys():  # noqa: SIM118 (the probe's point takes the cell's values)
    saved["probe_" + name] = np.array(found.PointData[name])
np.savez(out, **saved)
print(f"probe ({kind}): {xmf}: {len(saved['points'])} cells, bounds {saved['bounds'].tolist()}")
