"""haloex-lab screenshot's errors, without ParaView: each names what is
missing. (The rendering itself is tested with ParaView in
tests/paraview/run.sh.)"""

import time
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


def _xlib():
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("X11")
    if name is None:
        return None
    x11 = ctypes.CDLL(name)
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    return x11


@pytest.mark.skipif(shot.shutil.which("Xvfb") is None, reason="Xvfb is not installed (Debian: xvfb)")
def test_display_does_not_reset_between_clients(monkeypatch):
    """ParaView connects twice (an OpenGL probe, then the window). An X
    server that resets when its last client leaves refuses a connection made
    during the reset, and ParaView aborts: on a busy machine 3 of 10
    screenshots did. Reset or not shows in an atom: a reset forgets it."""
    x11 = _xlib()
    if x11 is None:
        pytest.skip("libX11 is not installed (Debian: libx11-6)")
    monkeypatch.delenv("DISPLAY", raising=False)
    with shot._display() as env:
        name = env["DISPLAY"].encode()
        first = x11.XOpenDisplay(name)
        made = x11.XInternAtom(first, b"HALOEX_RESET_PROBE", 0)
        x11.XCloseDisplay(first)  # the last client leaves
        time.sleep(0.5)  # a reset, if there is one, is over by now
        second = x11.XOpenDisplay(name)
        assert second, "the display refused the second client"
        kept = x11.XInternAtom(second, b"HALOEX_RESET_PROBE", 1)  # only if it exists
        x11.XCloseDisplay(second)
    assert made and kept == made, "the X server reset when its last client left (Xvfb needs -noreset)"
