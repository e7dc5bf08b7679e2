#!/usr/bin/env python3
"""peers/pingpong.py: `haloex bench pingpong` in both buffer modes beside
OSU's osu_latency (when given), 2 ranks, interleaved (`make peers` runs it).

A round runs each once, as its own mpirun, in an order rotated from round to
round; both sides use osu_latency's own counts (10000 timed round trips
after 100 untimed up to 8 KiB, 1000 after 10 above) and give the mean half
round trip of one run per size. Writes OUT/pingpong.jsonl (one record per
tool, mode and size: the per-round latencies) for `haloex-lab report`'s
"Ping-pong beside OSU" section. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from pathlib import Path

from common import add_common_options, check_programs, metadata, run, write_records

# osu_latency's counts, in haloex's options (OSU's large messages: size > 8192)
OSU_COUNTS = ["-r", "1", "-i", "10000", "--iterations-large", "1000", "-x", "100", "--warmup-large", "10",
              "--large-bytes", "8193"]  # fmt: skip
TOOLS = ("haloex osu", "haloex one", "osu_latency")


def osu_latencies(text: str) -> dict[int, float]:
    """{bytes: seconds} from osu_latency's two columns (size, microseconds)."""
    got = {}
    for line in text.splitlines():
        w = line.split()
        if len(w) >= 2 and re.fullmatch(r"\d+", w[0]):
            got[int(w[0])] = float(w[1]) * 1e-6
    return got


def command(a, tool: str, raw: Path) -> list[str]:
    launch = [*shlex.split(a.mpirun), "-np", "2"]
    if tool == "osu_latency":
        return [*launch, a.osu, "-m", f"1:{a.max_bytes}"]
    return [*launch, a.haloex, "bench", "pingpong", "-q", "-m", f"1:{a.max_bytes}", *OSU_COUNTS,
            "--buffers", tool.split()[1], "-o", str(raw)]  # fmt: skip


def one_run(a, tool: str, raw: Path) -> tuple[dict[int, float], dict, str]:
    """{bytes: seconds} of one run, a haloex record (metadata), and why the
    run gave nothing (empty when it gave something)."""
    got = run(command(a, tool, raw), a.timeout)
    if not got.ok:
        return {}, {}, f"status {got.status}: {got.why}"
    try:
        if tool == "osu_latency":
            raw.write_text(got.stdout)
            lat = osu_latencies(got.stdout)
            return lat, {}, "" if lat else "no latency table in osu_latency's output"
        recs = [json.loads(x) for x in raw.read_text().splitlines() if x.strip()]
        return {r["message_bytes"]: r["latency_s"][0] for r in recs}, recs[0], ""
    except (OSError, ValueError, KeyError, IndexError) as e:
        return {}, {}, f"unreadable output ({e})"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_options(p)
    p.add_argument("--osu", help="osu_latency (make peers builds it from OSU_SRC); none: haloex alone")
    p.add_argument("-m", "--max-bytes", type=int, default=1 << 20, help="sizes 1 to this, powers of two")
    p.add_argument("--osu-version", default="?", help="where osu_latency came from (recorded)")
    a = p.parse_args()
    check_programs(p, a, ("haloex", "osu"))
    if a.max_bytes < 1:
        p.error("--max-bytes must be at least 1")
    out = Path(a.out)
    (out / "raw").mkdir(parents=True, exist_ok=True)
    tools = [t for t in TOOLS if a.osu or t != "osu_latency"]
    series: dict[tuple[str, int], dict[int, float]] = {}  # (tool, bytes): {round: seconds}
    failed: dict[str, list[dict]] = {}
    meta: dict = {}
    for rnd in range(a.rounds):
        k = rnd % len(tools)
        print(f"[peers] ping-pong round {rnd + 1}/{a.rounds}", file=sys.stderr)
        for tool in tools[k:] + tools[:k]:
            raw = (
                out
                / "raw"
                / f"pingpong-{tool.replace(' ', '-')}-r{rnd}.{'txt' if 'osu_' in tool else 'jsonl'}"
            )
            got, rec, why = one_run(a, tool, raw)
            if why:
                print(f"[peers] ping-pong {tool} failed: {why}", file=sys.stderr)
                failed.setdefault(tool, []).append({"round": rnd, "why": why})
            meta = meta or rec
            for b, t in got.items():
                series.setdefault((tool, b), {})[rnd] = t
    records = []
    for (tool, b), ts in sorted(series.items()):
        r = metadata(meta)
        r.update(
            benchmark="peers_pingpong", ranks=2, threads_per_rank=1, tool=tool, message_bytes=b,
            latency_s=list(ts.values()), round_index=list(ts), rounds=a.rounds,
            failed_rounds=failed.get(tool, []), command=shlex.join(command(a, tool, Path("OUT"))),
            peer_version=a.osu_version if tool == "osu_latency" else meta.get("haloex_version", "?"),
        )  # fmt: skip
        records.append(r)
    for tool in tools:  # (a tool without a timed run: a record of its failures alone)
        if not any(k[0] == tool for k in series):
            r = metadata(meta)
            r.update(benchmark="peers_pingpong", ranks=2, threads_per_rank=1, tool=tool, message_bytes=None,
                     latency_s=[], round_index=[], rounds=a.rounds, failed_rounds=failed.get(tool, []),
                     command=shlex.join(command(a, tool, Path("OUT"))))  # fmt: skip
            records.append(r)
    write_records(out / "pingpong.jsonl", records)
    print(f"[peers] wrote {len(records)} ping-pong records to {out / 'pingpong.jsonl'}", file=sys.stderr)
    missing = [t for t in tools if not any(k[0] == t for k in series)]
    for t in missing:
        print(f"[peers] ping-pong: no timed run of {t}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
