"""haloex-lab compare's points: what makes two records the same point."""

from haloex_lab.sidebyside import _point


def test_pingpong_before_buffers_is_the_bounced_buffer():
    old = {"benchmark": "pingpong", "message_bytes": 8}
    assert _point(old) == _point({**old, "buffers": "one"})
    assert _point(old) != _point({**old, "buffers": "osu"})
