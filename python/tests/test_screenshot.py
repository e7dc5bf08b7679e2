"""haloex-lab screenshot's errors, without ParaView: each names what is
missing. (The rendering itself is tested with ParaView in
tests/paraview/run.sh.)"""

import pytest

from haloex_lab import screenshot as shot
from haloex_lab.fields import FieldError


def test_missing_file(tmp_path):
    with pytest.raises(FieldError, match="cannot read the XDMF file"):
        shot.screenshot(tmp_path / "none.xmf", tmp_path / "a.png")


def test_no_pvpython(tmp_path, monkeypatch):
    (tmp_path / "f.xmf").write_text('<Time Value="3"/>')
    monkeypatch.setattr(shot.shutil, "which", lambda name: None)
    with pytest.raises(FieldError, match=r"pvpython, not on PATH .*apt-get install paraview"):
        shot.screenshot(tmp_path / "f.xmf", tmp_path / "a.png")


def test_no_display_and_no_xvfb(tmp_path, monkeypatch):
    (tmp_path / "f.xmf").write_text('<Time Value="3"/>')
    found = {"pvpython": "/usr/bin/pvpython"}
    monkeypatch.setattr(shot.shutil, "which", found.get)
    monkeypatch.delenv("DISPLAY", raising=False)
    with pytest.raises(FieldError, match=r"no display .* and no xvfb-run"):
        shot.screenshot(tmp_path / "f.xmf", tmp_path / "a.png")


def test_paraview_failure_is_reported(tmp_path, monkeypatch):
    (tmp_path / "f.xmf").write_text('<Time Value="3"/>')
    monkeypatch.setattr(shot, "_command", lambda: ["python3", "-c", "import sys; sys.exit('broken xmf')"])
    with pytest.raises(FieldError, match=r"ParaView could not render .*broken xmf"):
        shot.screenshot(tmp_path / "f.xmf", tmp_path / "a.png")
