#!/usr/bin/env bash
# bench_records.sh "LAUNCH" HALOEX DIR: run a tiny halo benchmark and check
# that every JSON record parses and carries the metadata and the raw samples;
# then every other benchmark and `haloex lb` once, briefly, and every record
# of them all against the schema (python/haloex_lab/records.toml).
set -eu
(($# == 3)) || { echo "usage: bench_records.sh LAUNCH HALOEX DIR" >&2; exit 2; }
launch=$1 haloex=$2 dir=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
[[ -x $haloex && ! -d $haloex ]] || { echo "not an executable: $haloex" >&2; exit 2; }
rm -rf "$dir" && mkdir -p "$dir"
# (MPI settings in the environment, Open MPI's and MPICH's, which every
# record must list whichever MPI runs.)
OMPI_MCA_btl_base_warn_component_unused=0 MPIR_CVAR_COMM_SPLIT_USE_QSORT=1 \
  $launch "$haloex" bench halo -m 6,8 -i 20 -r 3 -x 2 -s staged,direct,neighbor -o "$dir/halo.jsonl" -q |
  tee "$dir/table.txt"
grep -q "^staged " "$dir/table.txt"
test ! -e "$dir/halo.jsonl.tmp"
python3 - "$dir/halo.jsonl" "${HALOEX_TEST_MPI:-openmpi}" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
family = sys.argv[2]
assert len(rows) == 6, f"expected 2 sizes x 3 strategies, got {len(rows)} records"
keys = ["benchmark", "haloex_version", "git_commit", "mpi_library", "mpi_standard", "host", "date_utc",
        "ranks", "threads_per_rank", "strategy", "process_grid", "global_size", "local_size", "ncomp",
        "halo_width", "dtype", "layout", "calls_per_sample", "time_per_call_s", "median_time_per_call_s",
        "halo_bytes", "beff_bytes_per_s", "updates_per_core_per_s", "ratio_to_staged"]
for r in rows:
    missing = [k for k in keys if k not in r]
    assert not missing, f"record lacks {missing}"
    assert r["benchmark"] == "halo" and r["ranks"] == 2
    assert len(r["time_per_call_s"]) == 3 and all(t > 0 for t in r["time_per_call_s"])
    L = r["local_size"]
    # 2 ranks on a 2x1x1 grid, periodic: every rank's full halo of L^3 sites.
    assert r["global_size"] == [2 * L, L, L]
    assert r["halo_bytes"] == (6 * L * L + 12 * L + 8) * 19 * 8, r["halo_bytes"]
    # The other rank gets what crosses x: 2 faces, 8 edges and 8 corners.
    d = r["message_list"]["direct"]
    assert sorted(d["message_bytes"]) == [152] * 8 + [152 * L] * 8 + [152 * L * L] * 2, d
    assert d["messages"] == 18 and d["remote_bytes"] == sum(d["message_bytes"]), d
    med = sorted(r["time_per_call_s"])[1]
    assert abs(r["median_time_per_call_s"] - med) < 1e-15
    assert abs(r["beff_bytes_per_s"] - r["halo_bytes"] / med) <= 1e-9 * r["beff_bytes_per_s"]
    if r["strategy"] == "staged":
        assert r["ratio_to_staged"] == 1.0
    # The memory bound: the lines written hold at least the halo's bytes (the
    # halo boxes are disjoint; the boxes read overlap, so no such floor for
    # them), and a 152-byte site spans at most 4 lines on either side.
    sites = 6 * L * L + 12 * L + 8
    assert r["halo_bytes"] < r["line_bytes"] <= 2 * sites * 4 * 64, (r["line_bytes"], r["halo_bytes"])
    bw = sorted(r["copy_bandwidth_bytes_per_s"])[1]
    assert len(r["copy_bandwidth_bytes_per_s"]) == 3 and bw > 0
    # The link probe: one 64 KiB round trip per round, at least the time
    # 128 KiB take at 100 GB/s (a probe that never ran would be 0).
    assert len(r["link_probe_s"]) == 3 and min(r["link_probe_s"]) > 131072 / 100e9, r["link_probe_s"]
    assert abs(r["line_bound_s"] - r["line_bytes"] / (bw / 2)) <= 1e-9 * r["line_bound_s"]
    assert abs(r["bound_fraction"] - r["line_bound_s"] / med) <= 1e-9 * r["bound_fraction"]
    assert r["field_memory"] == "heap", r["field_memory"]
    # Where it ran: every rank's host and CPUs, the launcher, the MPI settings
    # (and not the launchers' own wiring).
    p = r["placement"]
    assert p["hosts"] == [r["host"]] * 2 and p["ranks_per_host"] == {r["host"]: 2}, p
    assert len(p["cpus"]) == 2 and all(c and set(c) <= set("0123456789,-") for c in p["cpus"]), p["cpus"]
    assert p["launcher"] == ("mpirun (Open MPI)" if family == "openmpi" else "mpiexec (Hydra)"), p["launcher"]
    assert {"OMPI_MCA_btl_base_warn_component_unused", "MPIR_CVAR_COMM_SPLIT_USE_QSORT"} <= p["mpi_env"].keys(), p
    wiring = ("OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_num_procs", "MPIR_CVAR_CH3_INTERFACE_HOSTNAME",
              "I_MPI_HYDRA_UUID", "I_MPI_INFO_")
    assert not [k for k in p["mpi_env"] if k.startswith(wiring)], p["mpi_env"]
    # (haloex sets Open MPI's sharedfp for Open MPI alone: no other MPI's record carries it)
    assert ("OMPI_MCA_sharedfp" in p["mpi_env"]) == (family == "openmpi"), p["mpi_env"]
print(f"{len(rows)} records OK")
PY

# Fields in node memory: shm reads straight from the neighbour; the table and
# the records say where the field lived. A place that is not one is refused.
$launch "$haloex" bench halo -m 6 -i 20 -r 2 -x 2 -s shm --field-memory node -o "$dir/node.jsonl" -q |
  tee "$dir/node.txt"
grep -q "fields in node memory" "$dir/node.txt"
grep -q "^shm " "$dir/node.txt"
python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; assert len(r)==1 and r[0]["field_memory"]=="node", r' \
  "$dir/node.jsonl"
if $launch "$haloex" bench halo -m 6 -s shm --field-memory disk -q >"$dir/bad.txt" 2>&1; then
  echo "--field-memory disk was accepted" >&2; exit 1
fi
grep -q "field-memory" "$dir/bad.txt" || { cat "$dir/bad.txt" >&2; exit 1; }
# Folded memory exists only in a build for SMPI, and --check cannot check it.
refused() {  # refused PATTERN ARGS...: bench halo ARGS fails with PATTERN
  local want=$1
  shift
  if $launch "$haloex" bench halo -m 6 -i 2 -r 1 -x 0 -s direct -q "$@" >"$dir/bad.txt" 2>&1; then
    echo "bench halo $* was accepted" >&2; exit 1
  fi
  grep -q "$want" "$dir/bad.txt" || { cat "$dir/bad.txt" >&2; exit 1; }
}
refused "exists only in a build for SimGrid's SMPI" --field-memory folded
refused "cannot check a field in folded memory" --field-memory folded --check
echo "node memory OK"

# The step rate with and without output: every 2 steps over 2 samples of 5
# steps after 1 warm-up step writes at steps 2, 4, 6, 8 and 10; each output
# is density, velocity (3 float64) and the mask (1 byte) of 12^3 sites. The
# bench deletes what it wrote, and the folder it made.
$launch "$haloex" bench lb -L 12 -k aa -i 5 -r 2 -x 1 --output-every 0,2 --dir "$dir/lb-out" -o "$dir/lb.jsonl" -q |
  tee "$dir/lb.txt"
grep -q "/box/out2 " "$dir/lb.txt"
test ! -e "$dir/lb-out" || { echo "bench lb left $dir/lb-out behind" >&2; exit 1; }
python3 - "$dir/lb.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if '"config":"aa' in line]
assert [r["output_every"] for r in rows] == [0, 2], rows
plain, out = rows
assert "output_writes" not in plain
assert out["output_writes"] == 5, out["output_writes"]
assert out["output_bytes_per_write"] == 12**3 * (4 * 8 + 1), out["output_bytes_per_write"]
assert len(out["output_time_s_samples"]) == 5 and out["output_format"] == "binary" and out["hints"] == "none"
print("lb output records OK")
PY

# Every record type against the schema: each benchmark once more, with the
# options that add optional fields (auto, --check, --work-us, --ci, the
# reduced plan, delays, the window, drift, output), and `haloex lb`'s
# summary. A field a writer adds, renames or retypes without the schema
# fails here with the file, line, record type and field.
$launch "$haloex" bench halo -m 6 -i 5 -r 2 -x 1 -s staged,auto --plan reduced --check --work-us 1 --ci 50% \
  --budget 1 -q -o "$dir/halo-options.jsonl" >/dev/null
$launch "$haloex" bench pack -m 6 --ncomp 3 --layout aos -i 20 -r 2 -x 1 -q -o "$dir/pack.jsonl" >/dev/null
$launch "$haloex" bench pingpong -m 1,1K -i 20 -r 2 --ci 50% --budget 1 -q -o "$dir/pingpong.jsonl" >/dev/null
$launch "$haloex" bench stream -n 4096 -r 2 -q -o "$dir/stream.jsonl" >/dev/null
$launch "$haloex" bench stencil --nx 16 --ny 12 --nz 2 --iters 2 -r 2 -x 0 -s serial,staged,auto --ci 50% \
  --budget 1 -q -o "$dir/stencil.jsonl" >/dev/null
$launch "$haloex" bench clock -n 10 --drift-after 0.05 -o "$dir/clock.jsonl" >/dev/null
$launch "$haloex" bench coll -c allreduce,iallreduce -m 8 -d 0,50 -x 2 -i 3 --sync window --window-us 300 \
  -q -o "$dir/coll.jsonl" >/dev/null
$launch "$haloex" bench overlap -c iallreduce -m 8 -i 5 -x 1 -q -o "$dir/overlap.jsonl" >/dev/null
$launch "$haloex" bench monitor -L 8 --steps 4 -r 2 -x 1 --configs off,nonblocking/2 \
  -q -o "$dir/monitor.jsonl" >/dev/null
$launch "$haloex" bench io -L 8 -i 2 -x 0 --dir "$dir/bench-io" -q -o "$dir/io.jsonl" >/dev/null
$launch "$haloex" lb "$root/examples/periodic_box.toml" -q --set "lattice.size=[8,8,4]" run.steps=2 \
  run.strategy=auto output.every=1 "output.dir=$dir/lb-run-out" -o "$dir/lb-run.jsonl" >/dev/null
python3 "$root/python/haloex_lab/schema.py" check --every-type "$dir"/*.jsonl
