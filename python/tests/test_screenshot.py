"""haloex-lab screenshot's errors, without ParaView: each names what is
missing. (The rendering itself is tested with ParaView in
tests/paraview/run.sh.)"""

from pathlib import Path

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
    with pytest.raises(FieldError, match=r"no display .* and no Xvfb"):
        shot.screenshot(tmp_path / "f.xmf", tmp_path / "a.png")


def test_paraview_failure_is_reported(tmp_path, monkeypatch):
    (tmp_path / "f.xmf").write_text('<Time Value="3"/>')
    monkeypatch.setattr(shot, "_command", lambda: ["python3", "-c", "import sys; sys.exit('broken xmf')"])
    with pytest.raises(FieldError, match=r"ParaView could not render .*broken xmf"):
        shot.screenshot(tmp_path / "f.xmf", tmp_path / "a.png")


@pytest.mark.skipif(shot.shutil.which("Xvfb") is None, reason="Xvfb is not installed (Debian: xvfb)")
def test_displays_taken_at_once_are_distinct(monkeypatch):
    """Three screens made at the same time get three display numbers, and
    each is gone once its screenshot is done."""
    monkeypatch.delenv("DISPLAY", raising=False)
    with shot._display() as a, shot._display() as b, shot._display() as c:
        numbers = {a["DISPLAY"], b["DISPLAY"], c["DISPLAY"]}
        assert len(numbers) == 3, numbers
        sockets = [Path(f"/tmp/.X11-unix/X{n[1:]}") for n in numbers]
        assert all(s.exists() for s in sockets)
    assert not any(s.exists() for s in sockets)
