"""Run by ParaView's pvpython, not imported by haloex-lab: one screenshot of
an LB output as ParaView draws it.

    pvpython pv_render.py FIELDS.xmf OUT.png QUANTITY TITLE

A slice normal to Z through the middle of the lattice, coloured by the
magnitude of QUANTITY's cell values, the solid sites drawn grey on top of
it, seen from +Z with X to the right and Y up, and ParaView's orientation
axes in the corner: a reader sees at a glance which way the lattice lies."""

import sys

from paraview.simple import (
    ColorBy,
    GetActiveCamera,
    GetActiveViewOrCreate,
    GetColorTransferFunction,
    GetScalarBar,
    Render,
    SaveScreenshot,
    Show,
    Slice,
    Text,
    Threshold,
    XDMFReader,
)

xmf, png, quantity, title = sys.argv[1:5]
reader = XDMFReader(FileNames=[xmf])
reader.UpdatePipeline()
(x0, x1, y0, y1, z0, z1) = reader.GetDataInformation().GetBounds()
names = reader.CellData.keys()
if quantity not in names:
    sys.exit(f"pv_render: {xmf} has no cell array {quantity!r} (it has {', '.join(names)})")

view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [1000, 560]
view.UseColorPaletteForBackground = 0
view.Background = [1, 1, 1]
view.OrientationAxesVisibility = 1
view.OrientationAxesLabelColor = [0, 0, 0]

cut = Slice(Input=reader)
cut.SliceType = "Plane"
cut.SliceType.Origin = [0.5 * (x0 + x1), 0.5 * (y0 + y1), 0.5 * (z0 + z1)]
cut.SliceType.Normal = [0, 0, 1]
shown = Show(cut, view)
ColorBy(shown, ("CELLS", quantity, "Magnitude"))
shown.SetScalarBarVisibility(view, True)
lut = GetColorTransferFunction(quantity)
lut.ApplyPreset("Viridis (matplotlib)", True)
bar = GetScalarBar(lut, view)
bar.Title = f"{quantity} magnitude"
bar.ComponentTitle = ""
bar.TitleColor = bar.LabelColor = [0, 0, 0]

if "mask" in names:
    solid = Threshold(Input=cut, Scalars=["CELLS", "mask"])
    solid.LowerThreshold, solid.UpperThreshold = 0.5, 1.5
    s = Show(solid, view)
    ColorBy(s, None)
    s.DiffuseColor = s.AmbientColor = [0.55, 0.55, 0.55]

label = Text(Text=title)
t = Show(label, view)
t.Color = [0, 0, 0]
t.FontSize = 14
t.WindowLocation = "Upper Center"

view.CameraPosition = [0.5 * (x0 + x1), 0.5 * (y0 + y1), z1 + 4 * (x1 - x0)]
view.CameraFocalPoint = [0.5 * (x0 + x1), 0.5 * (y0 + y1), 0.5 * (z0 + z1)]
view.CameraViewUp = [0, 1, 0]
view.ResetCamera()
GetActiveCamera().Dolly(1.5)
Render(view)
SaveScreenshot(png, view, ImageResolution=[1000, 560])
print(f"wrote {png}")
