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
    med = {k: statistics.median(r[k]) for k in ("pack_s", "unpack_s", "local_copy_s", "plain_copy_s")}
    assert abs(r["ratio_to_copy"] - med["plain_copy_s"] / med["pack_s"]) <= 1e-9 * r["ratio_to_copy"]
    lines = r["touched_bytes"] / r["bytes"]
    for a, b in (("lines_ratio_to_copy", "ratio_to_copy"), ("unpack_lines_ratio_to_copy", "unpack_ratio_to_copy"),
                 ("local_lines_ratio_to_copy", "local_ratio_to_copy")):
        assert abs(r[a] - lines * r[b]) <= 1e-9 * r[a], (a, r[a], r[b])
print(f"{len(rows)} records OK")
PY
