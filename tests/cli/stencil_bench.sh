#!/usr/bin/env bash
# stencil_bench.sh "LAUNCH" HALOEX DIR: a tiny `bench stencil` on 2 ranks;
# every record parses, carries its metadata and samples, and its derived
# numbers follow from its own samples and the analytic halo size.
set -eu
(($# == 3)) || { echo "usage: stencil_bench.sh LAUNCH HALOEX DIR" >&2; exit 2; }
launch=$1 haloex=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
$launch "$haloex" bench stencil --nx 32 --ny 24 --nz 2,4 --iters 3 -r 3 -x 0 -o "$dir/stencil.jsonl" -q |
  tee "$dir/table.txt"
grep -Eq "^serial +[0-9.]+ " "$dir/table.txt"
grep -Eq "^prepost +[0-9.]+ " "$dir/table.txt"
# Every registered strategy, as `haloex info` lists them.
strategies=$("$haloex" info | sed -n 's/^Strategies: *//p' | wc -w)
python3 - "$dir/stencil.jsonl" "$strategies" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
n = int(sys.argv[2])
assert n >= 15 and len(rows) == 2 * (n + 1), f"expected 2 nz x (serial + {n} strategies), got {len(rows)}"
keys = ["benchmark", "haloex_version", "git_commit", "mpi_library", "ranks", "threads_per_rank", "strategy",
        "nx", "ny", "nz", "precision", "iterations_per_sample", "process_grid", "local_extent", "halo_bytes",
        "total_time_s", "halo_time_s", "work_time_s", "median_halo_time_s", "copy_bandwidth_bytes_per_s",
        "work_updates_per_s", "roofline_updates_per_s", "roofline_fraction", "bytes_per_update"]
for r in rows:
    missing = [k for k in keys if k not in r]
    assert not missing, f"record lacks {missing}"
    assert r["benchmark"] == "stencil" and r["ranks"] == 2 and r["nx"] == 32 and r["ny"] == 24
    for q in ["total_time_s", "halo_time_s", "work_time_s"]:
        assert len(r[q]) == 3 and all(t >= 0 for t in r[q]), q
        assert abs(r["median_" + q] - sorted(r[q])[1]) < 1e-15, q
    # Each is the slowest rank's: the run's total covers its own halo and work.
    assert all(t >= h and t >= w for t, h, w in zip(r["total_time_s"], r["halo_time_s"], r["work_time_s"]))
    nz = r["nz"]
    assert abs(r["work_updates_per_s"] - 32 * 24 * nz * 3 / r["median_work_time_s"]) <= 1e-9 * r["work_updates_per_s"]
    bw = sorted(r["copy_bandwidth_bytes_per_s"])[1]
    assert abs(r["roofline_updates_per_s"] - bw / 16) <= 1e-9 * bw
    if r["strategy"] == "serial":
        assert r["process_grid"] == [1, 1] and r["halo_bytes"] == 0 and r["speedup_vs_serial"] == 1.0
        assert r["roofline_fraction"] is None  # one rank working beside the bandwidth of two
    else:
        # 2x1 ranks, each 16x24: the halo of 2 around it holds 20*28 - 16*24 = 176 sites of nz doubles.
        assert r["process_grid"] == [2, 1] and r["local_extent"] == [16, 24, nz]
        assert r["halo_bytes"] == 176 * nz * 8, r["halo_bytes"]
        assert r["roofline_fraction"] > 0
        # The halo time split per exchange: every phase sampled, none longer
        # than the whole halo time of an exchange on the slowest rank.
        for q in ["pack", "mpi", "unpack"]:
            v = r[q + "_time_per_call_s"]
            assert len(v) == 3 and all(t >= 0 for t in v), q
            assert abs(r[q + "_s"] - sorted(v)[1]) < 1e-15, q
            assert all(t <= h / 3 * (1 + 1e-9) for t, h in zip(v, r["halo_time_s"])), q
        assert abs(r["total_s"] - r["median_halo_time_s"] / 3) < 1e-15
        assert r["resolved_strategy"] == r["strategy"] or r["strategy"] == "auto"
    if r["strategy"] == "staged":
        assert r["halo_ratio_to_staged"] == 1.0
print(f"{len(rows)} records OK")
PY
