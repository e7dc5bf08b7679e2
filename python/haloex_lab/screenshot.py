"""ParaView from haloex-lab: a screenshot of an output's XDMF file, drawn by
ParaView itself (pvpython, under Xvfb when there is no display), so that a
person sees which way the lattice lies."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from pathlib import Path

from .fields import FieldError

_INSTALL = "Debian: apt-get install paraview python3-paraview xvfb (scripts/install-deps.sh does)"


def _command() -> list[str]:
    pv = shutil.which("pvpython")
    if pv is None:
        raise FieldError(f"haloex-lab screenshot needs ParaView's pvpython, not on PATH ({_INSTALL})")
    return [pv]


@contextlib.contextmanager
def _display():
    """The environment to render in: this one where DISPLAY is set, else
    that of an Xvfb of our own. Xvfb picks a free display number itself and
    tells it through -displayfd, so screenshots taken at the same time each
    get their own screen (xvfb-run -a can hand two of them the same number,
    and ParaView then aborts)."""
    if os.environ.get("DISPLAY"):
        yield dict(os.environ)
        return
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        raise FieldError(f"there is no display (DISPLAY is unset) and no Xvfb to make one ({_INSTALL})")
    read, write = os.pipe()
    # A 24-bit screen: Xvfb's default is 8-bit, where OpenGL may find no visual.
    # -noreset: an X server resets when its last client leaves, and ParaView
    # connects twice (an OpenGL probe, then the window); on a busy machine the
    # second connection came during the reset, was refused, and ParaView
    # aborted ("bad X server connection").
    cmd = [xvfb, "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp", "-noreset"]
    server = subprocess.Popen(cmd, pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        with os.fdopen(read) as told:
            number = told.readline().strip()  # empty if Xvfb ended without a display
        if not number.isdigit():
            raise FieldError(f"Xvfb did not start (exit status {server.wait(timeout=10)})")
        yield {**os.environ, "DISPLAY": f":{number}"}
    finally:
        server.terminate()
        server.wait(timeout=10)


def screenshot(xmf, out, quantity: str = "velocity") -> Path:
    """Render the slice z = middle of `xmf`, coloured by |quantity|, to the PNG `out`."""
    xmf, out = Path(xmf), Path(out)
    try:
        text = xmf.read_text()
    except OSError as e:
        raise FieldError(f"{xmf}: cannot read the XDMF file: {e.strerror}") from None
    step = re.search(r'<Time Value="(\d+)"', text)
    at = f"step {step.group(1)}" if step else "step ?"
    title = f"{quantity} magnitude on the slice z = middle, {at}  ({xmf.name})"
    cmd = [*_command(), str(Path(__file__).with_name("pv_render.py")), str(xmf), str(out), quantity, title]
    with _display() as env:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0 or not out.exists():
        last = (done.stderr.strip() or done.stdout.strip()).splitlines()[-3:]
        raise FieldError(f"ParaView could not render {xmf}: " + " / ".join(last))
    return out
