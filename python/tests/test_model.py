"""The latency-bandwidth model: the fit recovers known parameters, and the
prediction follows its formula, by hand."""

import pytest

from haloex_lab.model import Hockney, fit_hockney, model_rows, predict


def test_fit_recovers_two_regimes():
    sizes = [2**k for k in range(3, 23)]
    small, large = Hockney(0.5e-6, 4e9, 0, 8192), Hockney(3e-6, 10e9, 8192, float("inf"))
    times = [small.time(m) if m < 8192 else large.time(m) for m in sizes]
    fit = fit_hockney(sizes, times)
    assert len(fit) == 2 and fit[0].hi == 8192
    assert fit[0].alpha == pytest.approx(0.5e-6, rel=1e-6) and fit[0].beta == pytest.approx(4e9, rel=1e-6)
    assert fit[1].alpha == pytest.approx(3e-6, rel=1e-6) and fit[1].beta == pytest.approx(10e9, rel=1e-6)


def test_prediction_by_hand():
    fit = [Hockney(1e-6, 1e9, 0, float("inf"))]
    # staged in 3-D: 6 messages in sequence; 6e5 bytes; copies at 1e10 B/s, twice
    assert predict("staged", 26, 3, 6e5, 1e10, fit) == pytest.approx(6e-6 + 6e-4 + 1.2e-4)
    # direct: its 26 messages
    assert predict("direct", 26, 3, 6e5, 1e10, fit) == pytest.approx(26e-6 + 6e-4 + 1.2e-4)
    # shm: one copy, no message
    assert predict("shm", 26, 3, 6e5, 1e10, fit) == pytest.approx(6e-5)


def test_rows_need_a_pingpong():
    with pytest.raises(ValueError, match="no ping-pong records"):
        model_rows([{"benchmark": "halo"}])
