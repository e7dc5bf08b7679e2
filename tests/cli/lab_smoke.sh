#!/usr/bin/env bash
# lab_smoke.sh PYTHON HALOEX DIR LAUNCHER...: a tiny campaign of every
# benchmark through haloex-lab with the real program, resumed, then reported.
set -eu
(($# >= 4)) || { echo "usage: lab_smoke.sh PYTHON HALOEX DIR LAUNCHER..." >&2; exit 2; }
python=$1 haloex=$2 dir=$3
shift 3
launcher=$(printf '"%s", ' "$@")
rm -rf "$dir" && mkdir -p "$dir"
cat >"$dir/smoke.toml" <<TOML
[campaign]
name = "smoke"
results = "$dir/results/results.jsonl"
haloex = "$haloex"
mpirun = [${launcher%, }]
timeout_s = 120

[[points]]
benchmark = "halo"
ranks = 2
sizes = [6, 8]
args = ["-i", "20", "-r", "11", "-x", "2", "-s", "staged,direct,staged-types"]

[[points]]
benchmark = "halo"
ranks = [1, 2]
global = 12
args = ["-i", "20", "-r", "3", "-x", "2", "-s", "staged,direct"]

[[points]]
benchmark = "pingpong"
ranks = 2
args = ["-m", "1:64", "-i", "20", "-r", "3"]

[[points]]
benchmark = "stream"
ranks = 2
args = ["-n", "4096", "-r", "3"]

[[points]]
benchmark = "lb"
ranks = 1
threads = 1
sizes = [8]
args = ["-k", "aa", "--schedule", "worksharing,taskloop", "-i", "2", "-r", "2", "-x", "1"]

[[points]]
benchmark = "stencil"
ranks = [1, 2]
args = ["--nx", "16", "--ny", "12", "--nz", "2,4", "--iters", "2", "-r", "2", "-x", "0", "-s", "serial,staged,direct"]

[[points]]
benchmark = "clock"
ranks = 2
args = ["-n", "10"]

[[points]]
benchmark = "coll"
ranks = 2
args = ["-c", "allreduce,iallreduce", "-d", "0,50", "-x", "2", "-i", "3"]

[[points]]
benchmark = "overlap"
ranks = 2
args = ["-c", "iallreduce", "-m", "8,1K", "-i", "5", "-x", "1"]

[[points]]
benchmark = "monitor"
ranks = 2
sizes = [12]
args = ["--steps", "4", "-r", "2", "-x", "1"]

[[points]]
benchmark = "io"
ranks = 2
sizes = [8, 16]
args = ["--io-grid", "1x1x1,2x1x1", "-i", "3", "--dir", "bench-io-smoke"]
TOML
lab=("$python" -m haloex_lab)
"${lab[@]}" run "$dir/smoke.toml" --dry-run | tee "$dir/dry.txt"
grep -q "15 to run" "$dir/dry.txt"
test ! -e "$dir/results/results.jsonl"
"${lab[@]}" run "$dir/smoke.toml"
"${lab[@]}" run "$dir/smoke.toml" | tee "$dir/again.txt"
grep -q "15 already in .*, 0 to run" "$dir/again.txt"
"${lab[@]}" report "$dir/results" | tee "$dir/report.txt"
grep -Eq "^\| 6x6x6 \(cubic, 2 ranks\) \| (staged|direct|staged-types) \|" "$dir/report.txt"
grep -Eq "^\| 6x12x12 \(global 12x12x12, 2 ranks\) \|" "$dir/report.txt"
grep -q "^### message size, 16x12 on 2 ranks" "$dir/results/report.md"
grep -Eq "^\| allreduce \| 2 \| 2 \| 8 \| 50 \| " "$dir/results/report.md"
grep -q "^## Overlap availability" "$dir/results/report.md"
grep -q "^## LB monitoring reductions" "$dir/results/report.md"
grep -Eq "^\| 2 \| binary \| 2x1x1 \| 5 \| none \| [0-9.]+ \| [0-9.]+ \|" "$dir/results/report.md"
# io records: bytes are the lattice's, every bandwidth sample is bytes / time.
"$python" - "$dir/results/results.jsonl" <<'PY'
import json, sys
io = [r for r in map(json.loads, open(sys.argv[1])) if r["benchmark"] == "io"]
assert len(io) == 4, len(io)
for r in io:
    assert r["bytes"] == r["size"] ** 3 * 5 * 8, r["bytes"]
    assert len(r["time_s"]) == 3 and all(abs(b - r["bytes"] / t) <= 1e-9 * b for b, t in zip(r["bandwidth_Bps"], r["time_s"]))
PY
# The C++ side's statistics in every record equal the Python side's on the
# same raw samples: the median and its order-statistic interval.
"$python" - "$dir/results/results.jsonl" <<'PY'
import json, sys
from haloex_lab.stats import summarize
checked = 0
for r in map(json.loads, open(sys.argv[1])):
    for key in [k for k in r if k.startswith("median_ci95_")]:
        q = key[len("median_ci95_"):]
        s = summarize(r[q])
        assert r["median_" + q] == s.median and r[key] == [s.median_low, s.median_high], (r["benchmark"], q)
        checked += 1
assert checked >= 20, checked
PY
for f in report.md figures/pingpong.png figures/comm_work_ratio.png figures/lb_saturation.png figures/lb_schedules.png figures/stencil_nz_0.png \
         figures/coll_delay_allreduce_8_np2.png figures/overlap_beta.png figures/monitor.png figures/io_bandwidth.png; do
  test -s "$dir/results/$f" || { echo "missing $f" >&2; exit 1; }
done
echo "lab smoke OK"
