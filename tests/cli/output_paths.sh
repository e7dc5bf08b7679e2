#!/usr/bin/env bash
# output_paths.sh HALOEX CASE DIR: every command checks its output paths
# before any work starts: a folder, or a file where a folder should be, is an
# input error (exit 2, one line naming the path) that leaves nothing behind;
# missing folders are created, by every command alike.
set -u
(($# == 3)) || { echo "usage: output_paths.sh HALOEX CASE DIR" >&2; exit 2; }
haloex=$1 case=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir/taken" && cd "$dir" || exit 1
touch plain-file
fail() { echo "FAIL: $*"; exit 1; }
# expect CODE REGEX COMMAND...: exit code and one-line message.
expect() {
  local want=$1 pattern=$2
  shift 2
  local out code
  out=$("$@" 2>&1)
  code=$?
  ((code == want)) || { echo "$out"; fail "'$*' exited $code, not $want"; }
  grep -Eq -- "$pattern" <<<"$out" || { echo "$out"; fail "'$*' does not say: $pattern"; }
  echo "ok ($code): $*"
}
lb=("$haloex" lb "$case" -q --set "lattice.size=[8,8,4]" run.steps=2 run.progress=0)

expect 2 "haloex bench halo: .*'taken' is a folder; give a file name" "$haloex" bench halo -m 8 -i 1 -r 1 -o taken
expect 2 "haloex bench lb: .*'taken' is a folder" "$haloex" bench lb -L 8 -i 1 -r 1 -o taken
expect 2 "'$PWD/plain-file' is not a folder" "$haloex" bench lb -L 8 -i 1 -r 1 --output-every 1 --dir plain-file
expect 2 "--output-every entries must be >= 0" "$haloex" bench lb -L 8 -i 1 -r 1 --output-every 2,-1
expect 2 "haloex stencil: .*'taken' is a folder" "$haloex" stencil --nx 8 --ny 8 --nz 1 -o taken
expect 2 "haloex lb: .*'taken' is a folder" "${lb[@]}" -o taken
expect 2 "'$PWD/plain-file' is not a folder" "$haloex" bench halo -m 8 -i 1 -r 1 -o plain-file/r.jsonl
expect 2 "'/dev/null' exists and is not a regular file" "$haloex" bench stream -n 1024 -r 1 -o /dev/null
expect 2 "output.dir: 'plain-file' exists and is not a folder" "${lb[@]}" output.every=1 output.dir=plain-file
expect 2 "checkpoint.dir: '$PWD/plain-file' is not a folder" "${lb[@]}" checkpoint.every=1 checkpoint.dir=plain-file/c
expect 2 "output.summary: 'taken' is a folder" "${lb[@]}" output.summary=taken
# Nothing was left behind by any of them.
leftover=$(find . -mindepth 1 ! -path ./taken ! -path ./plain-file)
[[ -z $leftover ]] || fail "failed runs left files behind: $leftover"

# Missing folders are created, by every command alike.
expect 0 "" "$haloex" bench halo -m 8 -i 1 -r 1 -q -o new/halo/r.jsonl
expect 0 "" "$haloex" stencil --nx 8 --ny 8 --nz 1 -q -o new/stencil/u.npy
expect 0 "" "${lb[@]}" -o new/lb/summary.json
for f in new/halo/r.jsonl new/stencil/u.npy new/lb/summary.json; do [[ -s $f ]] || fail "$f was not written"; done
find . -name '*.part' -o -name '*.tmp' | grep -q . && fail "temporary files left: $(find . -name '*.part' -o -name '*.tmp')"
echo PASS
