#!/usr/bin/env bash
# pack_bench.sh "LAUNCH" HALOEX DIR: a tiny `bench pack`; every record's byte
# counts follow from the box it names (analytic), and its ratios from its own
# samples.
set -eu
(($# == 3)) || { echo "usage: pack_bench.sh LAUNCH HALOEX DIR" >&2; exit 2; }
launch=$1 haloex=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
$launch "$haloex" bench pack -m 6 --ncomp 3 --layout aos,soa -i 50 -r 3 -x 1 -o "$dir/pack.jsonl" -q |
  tee "$dir/table.txt"
grep -Eq "^6 +soa +z\+ +face " "$dir/table.txt"
python3 - "$dir/pack.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
# 3-D: 3 faces, 3 edges, 1 corner per layout (one of each kind per dimension set).
kinds = {(r["layout"], r["box_kind"]) for r in rows}
assert kinds == {(l, k) for l in ("aos", "soa") for k in ("face", "edge", "corner")}, kinds
for r in rows:
    assert r["benchmark"] == "pack" and r["local_size"] == 6 and r["ncomp"] == 3
    nonzero = r["box"].count("+") + r["box"].count("-")
    sites = 6 ** (3 - nonzero)  # halo 1: a face is 6x6 sites, an edge 6, the corner 1
    assert r["bytes"] == sites * 3 * 8, (r["box"], r["bytes"])
    # Whole 64-byte lines, at least the bytes themselves, at most one line per value.
    assert r["touched_bytes"] % 64 == 0 and r["bytes"] <= r["touched_bytes"] <= sites * 3 * 64 + 64, r
    med = {k: statistics.median(r[k]) for k in ("pack_s", "unpack_s", "local_copy_s", "plain_copy_s", "lines_copy_s")}
    assert len(r["lines_copy_s"]) == 3, r["lines_copy_s"]
    assert abs(r["ratio_to_copy"] - med["plain_copy_s"] / med["pack_s"]) <= 1e-9 * r["ratio_to_copy"]
    # The lines bound is its own timed copy of touched_bytes.
    for a, b in (("lines_ratio_to_copy", "pack_s"), ("unpack_lines_ratio_to_copy", "unpack_s"),
                 ("local_lines_ratio_to_copy", "local_copy_s")):
        assert abs(r[a] - med["lines_copy_s"] / med[b]) <= 1e-9 * r[a], (a, r[a], b)
print(f"{len(rows)} records OK")
PY
# The summary names the region furthest from its lines among those of 64 KiB
# or more: none at 6^3; at 24^3 x 19 the faces are 85 KiB.
grep -q "^# worst of the regions of at least 64 KiB against their lines: none that large" "$dir/table.txt"
$launch "$haloex" bench pack -m 24 --ncomp 19 --layout soa -i 3 -r 1 -x 0 -q -o "$dir/big.jsonl" > "$dir/big.txt"
python3 - "$dir/big.jsonl" "$dir/big.txt" <<'PY'
import json, re, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if json.loads(line)["bytes"] >= 64 * 1024]
worst = min((r[k], k, r["box"]) for r in rows for k in ("lines_ratio_to_copy", "unpack_lines_ratio_to_copy",
                                                           "local_lines_ratio_to_copy"))
line = [l for l in open(sys.argv[2]) if l.startswith("# worst")][0]
m = re.search(r": ([0-9.]+) \((pack|unpack|local), L=24 soa ([xyz][+-]),", line)
assert m, line
op = {"lines_ratio_to_copy": "pack", "unpack_lines_ratio_to_copy": "unpack", "local_lines_ratio_to_copy": "local"}
assert abs(float(m.group(1)) - worst[0]) < 0.006 and m.group(2) == op[worst[1]] and m.group(3) == worst[2], (line, worst)
print("summary OK:", line.strip())
PY
