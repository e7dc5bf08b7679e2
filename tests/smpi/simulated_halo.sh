#!/usr/bin/env bash
# simulated_halo.sh PYTHON HALOEX_SMPI DIR: haloex built for SMPI, run by
# haloex-lab simulate at 64 simulated ranks (32 nodes x 2) on the machine
# networks/this-machine.toml describes: every strategy SMPI runs fills every
# halo exactly (--check), the records say they were simulated and where, and
# a strategy SMPI cannot run is refused with one line and exit 2.
set -eu
(($# == 3)) || { echo "usage: simulated_halo.sh PYTHON HALOEX_SMPI DIR" >&2; exit 2; }
python=$1 haloex=$2 dir=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dir" && mkdir -p "$dir"
sim=("$python" -m haloex_lab simulate "$root/networks/this-machine.toml" --haloex "$haloex" --timeout 300)
supported=staged,direct,direct-waitany,persistent,sendrecv,irecv-send,isend-recv,irecv-isend,irecv-issend,red-black,prepost
"${sim[@]}" --ranks 64 -o "$dir/halo.jsonl" --keep "$dir/run" -- \
  bench halo -L 5 -i 3 -r 2 --warmup 1 -q --check -s $supported
"$python" - "$dir/halo.jsonl" "$supported" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
want = sys.argv[2].split(",")
got = [r["strategy"] for r in recs]
assert got == want, f"strategies {got}, want {want}"
for r in recs:
    assert r["simulated"] is True and r["ranks"] == 64, r
    assert r["platform"]["nodes"] == 32 and r["platform"]["ranks_per_node"] == 2, r["platform"]
    assert r["simulator"]["version"].startswith("SimGrid"), r["simulator"]
    assert r["process_grid"] == [4, 4, 4], r["process_grid"]
    c = r["check"]
    assert c["wrong_elements"] == 0 and c["wrong_elements_after_timing"] == 0, (r["strategy"], c)
    assert c["elements_per_exchange"] == 64 * 7 ** 3 * 19, c
    assert r["median_time_per_call_s"] > 0, r["median_time_per_call_s"]
print(f"simulated_halo: {len(recs)} strategies exact at 64 simulated ranks")
PY
# What SMPI lacks is refused by name, in one line, with exit 2.
set +e
"${sim[@]}" --ranks 8 -- bench halo -L 4 -i 2 -r 1 -q -s neighbor >"$dir/refused.out" 2>&1
rc=$?
set -e
grep -q "neighbor is not available in a build for SimGrid's SMPI" "$dir/refused.out" ||
  { cat "$dir/refused.out"; echo "simulated_halo: no refusal for neighbor" >&2; exit 1; }
((rc != 0)) || { echo "simulated_halo: neighbor's refusal exited 0" >&2; exit 1; }
echo "simulated_halo: neighbor refused (exit $rc)"
# A campaign on the simulated machine (launcher = "simulate"): 1 and 2 nodes
# of 4 ranks, its records tagged by the simulator and by the campaign.
cat >"$dir/campaign.toml" <<TOML
[campaign]
name = "simulated"
results = "$dir/campaign/results.jsonl"
haloex = "$haloex"
launcher = "simulate"
network = "$root/networks/this-machine.toml"
timeout_s = 300

[[points]]
benchmark = "halo"
nodes = [1, 2]
tasks_per_node = 4
sizes = 5
args = ["-i", "1", "-r", "1", "--warmup", "0", "--check", "-s", "direct,staged"]
TOML
"$python" -m haloex_lab run "$dir/campaign.toml" >"$dir/campaign.out" 2>&1 ||
  { cat "$dir/campaign.out"; echo "simulated_halo: the simulated campaign failed" >&2; exit 1; }
"$python" - "$dir/campaign/results.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert [(r["ranks"], r["strategy"]) for r in recs] == [(4, "direct"), (4, "staged"), (8, "direct"), (8, "staged")], recs
for r in recs:
    assert r["simulated"] is True and r["platform"]["ranks_per_node"] == 4, r["platform"]
    assert r["platform"]["nodes"] == r["ranks"] // 4 and r["check"]["wrong_elements"] == 0, r
    assert r["campaign"] == "simulated" and r["placement"]["launcher"].startswith("haloex-lab simulate"), r
print(f"simulated_halo: a campaign of {len(recs)} records on the simulated machine")
PY
