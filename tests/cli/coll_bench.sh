#!/usr/bin/env bash
# coll_bench.sh "MPIEXEC -n" HALOEX DIR [FLAGS...]: tiny `bench clock`, `bench
# coll` (3 ranks, delays, window sync), `bench overlap` and `bench monitor`
# runs; every record carries its metadata, and every derived number is
# recomputed here from the record's own raw times.
set -eu
# (FLAGS last: with MPICH there are none, and ctest drops an empty argument.)
(($# >= 3)) || { echo "usage: coll_bench.sh 'MPIEXEC -n' HALOEX DIR [FLAGS...]" >&2; exit 2; }
mpiexec=$1 haloex=$2 dir=$3
shift 3
flags="$*"
rm -rf "$dir" && mkdir -p "$dir"
$mpiexec 3 $flags "$haloex" bench clock -n 20 --drift-after 0.2 -o "$dir/clock.jsonl" | tee "$dir/clock.txt"
grep -Eq "^ +2 +[-+][0-9.]+ .* [-+][0-9.]+ \+- [0-9.]+$" "$dir/clock.txt"
$mpiexec 3 $flags "$haloex" bench coll -c allreduce,iallreduce,ibarrier -m 8,64 -d 0,100 -x 5 -i 5 \
  --sync window --window-us 300 -q -o "$dir/coll.jsonl" | tee "$dir/coll.txt"
grep -Eq "^MPI_Iallreduce +3 +64 +100.0 .* [-+][0-9.]+$" "$dir/coll.txt"
$mpiexec 2 $flags "$haloex" bench overlap -c ialltoall -m 8,16K -x 2 --test-calls 2 -q -o "$dir/overlap.jsonl" | tee "$dir/overlap.txt"
$mpiexec 2 $flags "$haloex" bench monitor -L 16 --steps 6 -r 2 -x 2 --configs blocking,nonblocking/3 -q \
  -o "$dir/monitor.jsonl" | tee "$dir/monitor.txt"
python3 - "$dir" <<'PY'
import json, statistics, sys
d = sys.argv[1]
load = lambda name: [json.loads(line) for line in open(f"{d}/{name}")]
meta = ["benchmark", "haloex_version", "git_commit", "mpi_library", "ranks", "date_utc"]

clock = load("clock.jsonl")
assert [r["rank"] for r in clock] == [0, 1, 2]
for r in clock:
    assert all(k in r for k in meta) and r["benchmark"] == "clock"
    assert abs(r["bound_s"] - 0.5 * (r["min_round_trip_s"] + r["timer_delay_s"])) < 1e-15
    assert r["rank"] == 0 or ("drift_s_per_s" in r and r["drift_bound_s_per_s"] > 0)

coll = load("coll.jsonl")
clocks = [r for r in coll if r["benchmark"] == "clock"]
res = [r for r in coll if r["benchmark"] == "coll"]
assert len(clocks) == 3
# communicators of 1, 2 and 3 ranks; 2 collectives at 2 sizes and a barrier; delays from 2 ranks
assert len(res) == (2 * 2 + 1) * (1 + 2 + 2), len(res)
for r in res:
    assert all(k in r for k in meta) and r["sync"] == "window" and r["window_s"] == 3e-4
    n, p = len(r["time_s"]), r["procs"]
    assert n == 5 and all(len(x) == p for x in r["start_s"] + r["end_s"] + r["local_time_s"])
    for t, s, e, loc in zip(r["time_s"], r["start_s"], r["end_s"], r["local_time_s"]):
        assert abs(t - (max(e) - min(s))) < 1e-12          # latest end - earliest start
        assert all(abs(l - (b - a)) < 1e-9 for l, a, b in zip(loc, s, e))  # skew cancels within a rank
    assert abs(r["median_time_s"] - statistics.median(r["time_s"])) < 1e-15
    same = [x for x in res if (x["collective"], x["procs"], x["message_bytes"]) ==
            (r["collective"], r["procs"], r["message_bytes"])]
    t0 = [x for x in same if x["delay_s"] == 0][0]["median_time_s"]
    assert r["t0_median_s"] == t0
    if r["delay_s"] > 0:
        assert p > 1 and all(a >= r["delay_s"] for a in r["delay_actual_s"])
        b = (t0 + r["delay_s"] - r["median_time_s"]) / r["median_time_s"]
        assert abs(r["delay_benefit"] - b) < 1e-12
    else:
        assert "delay_benefit" not in r
    assert r["message_bytes"] == (0 if r["collective"] == "ibarrier" else int(r["message_bytes"]))

ov = load("overlap.jsonl")
assert len(ov) == 2 and all(r["procs"] == 2 for r in ov)  # from 2 ranks by default; 2 sizes
for r in ov:
    assert all(k in r for k in meta) and r["test_calls"] == 2
    assert r["iterations"] == (100 if r["message_bytes"] < 8192 else 10)
    mean = lambda q: statistics.fmean(v for row in r[q] for v in row)
    c, w, o = mean("coll_s"), mean("comp_s"), mean("overlap_s")
    assert abs(r["mean_coll_s"] - c) <= 1e-12 * c and abs(r["mean_overlap_s"] - o) <= 1e-12 * o
    assert abs(r["beta"] - (c + w - o) / o) < 1e-9
    assert abs(r["osu_overlap_percent"] - 100 * max(0, 1 - (o - w) / c)) < 1e-7
    assert abs(r["imb_overlap_percent"] - 100 * max(0, min(1, (c + w - o) / min(c, w)))) < 1e-7

mon = load("monitor.jsonl")
assert [r["config"] for r in mon] == ["off", "blocking", "nonblocking/3"]
off = mon[0]
for r in mon:
    assert all(k in r for k in meta) and r["size"] == 16 and r["steps_per_sample"] == 6
    for s, sups in zip(r["sim_s_per_step"], r["sups"]):
        assert abs(sups - 16 ** 3 / s) <= 1e-9 * sups
    assert all(abs(m - (l - l0)) < 1e-15 for m, l, l0 in zip(r["mon_s_per_step"], r["lb_s_per_step"], off["lb_s_per_step"]))
    assert abs(r["ratio_to_off"] - r["median_sim_s_per_step"] / off["median_sim_s_per_step"]) < 1e-12
# steps 8..13 of the second sample: every step, and 9 and 12 for every 3rd
assert mon[0]["reductions_per_sample"] == 0 and mon[1]["reductions_per_sample"] == 6
assert mon[2]["reductions_per_sample"] == 2
print(f"clock {len(clock)}, coll {len(res)}, overlap {len(ov)}, monitor {len(mon)} records OK")
PY
