#!/usr/bin/env bash
# apps.sh PYTHON HALOEX CASE DIR: the applications across nodes against runs
# on one rank. The stencil on 2 nodes x 2 ranks and 4 nodes x 1 rank, with
# several strategies, writes the serial run's .npy to the byte; an LB run
# checkpointed on 2 nodes x 2 ranks and restarted on 3 nodes x 1 rank ends
# with the checkpoint of an uninterrupted serial run, byte for byte.
set -u
(($# == 4)) || { echo "usage: apps.sh PYTHON HALOEX CASE DIR" >&2; exit 2; }
python=$1 haloex=$2 case=$3 dir=$4
. "$(dirname "$0")/common.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1

size=(--nx 42 --ny 38 --nz 5 --iters 6 -q)
"$haloex" stencil --serial "${size[@]}" -o serial.npy > /dev/null || fail "serial stencil"
for run in 2:2:direct 2:2:shm 4:1:staged 4:1:auto 2:2:sendrecv; do
  IFS=: read -r nodes per s <<< "$run"
  on "$nodes" "$per" "$haloex" stencil "${size[@]}" -s "$s" -o "st-$nodes-$per-$s.npy" > "st-$s.log" 2>&1 ||
    { cat "st-$s.log"; fail "stencil $s on $nodes nodes x $per"; }
  cmp serial.npy "st-$nodes-$per-$s.npy" || fail "stencil $s on $nodes nodes x $per ranks differs from the serial run"
  echo "stencil $s, $nodes nodes x $per ranks: identical to serial"
done

lb() {  # NODES PER_NODE (0 0: serial) SETTINGS...: an LB run of the cylinder case, checkpoints every 4 steps
  local nodes=$1 per=$2
  shift 2
  local launch=()
  ((nodes > 0)) && launch=(on "$nodes" "$per")
  "${launch[@]}" "$haloex" lb "$case" -q --set "lattice.size=[32,16,4]" checkpoint.every=4 checkpoint.keep=4 \
    run.progress=0 "geometry.obstacle=[{shape='cylinder',axis='z',center=[10.0,7.5,0.0],radius=3.0}]" "$@"
}
lb 0 0 run.steps=12 checkpoint.dir=serial > lb-serial.log 2>&1 || { cat lb-serial.log; fail "serial LB run"; }
lb 2 2 run.steps=8 checkpoint.dir=split run.strategy=shm > lb-2x2.log 2>&1 ||
  { cat lb-2x2.log; fail "LB on 2 nodes x 2 ranks"; }
lb 3 1 run.steps=12 checkpoint.dir=split run.strategy=direct --restart split > lb-3x1.log 2>&1 ||
  { cat lb-3x1.log; fail "LB restart on 3 nodes x 1 rank"; }
grep -q "restarted from split/checkpoint-000008.json at step 8" lb-3x1.log || { cat lb-3x1.log; fail "not restarted at step 8"; }
cmp serial/checkpoint-000012.bin split/checkpoint-000012.bin ||
  fail "LB 0->8 on 2 nodes x 2 ranks, 8->12 on 3 nodes x 1 rank differs from 0->12 on 1 rank"
echo "LB: 0->8 on 2 nodes x 2 ranks (shm), restarted 8->12 on 3 nodes x 1 rank (direct): identical to serial"
