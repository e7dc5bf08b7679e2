#!/usr/bin/env bash
# stencil_bindings.sh HALOEX DIR EXAMPLES_DIR PYTHON MPIEXEC [FLAGS...]: the
# 2-D stencil written against each binding (C, and Fortran and Python where
# they are built) gives the field of `haloex stencil --serial` to the last
# bit at 1, 2 and 4 ranks; bad arguments are errors, not crashes.
set -eu
(($# >= 5)) || { echo "usage: stencil_bindings.sh HALOEX DIR EXAMPLES_DIR PYTHON MPIEXEC [FLAGS...]" >&2; exit 2; }
haloex=$1 dir=$2 examples=$3 py=$4 mpiexec=$5
shift 5
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dir" && mkdir -p "$dir"
size=(--nx 30 --ny 22 --nz 5 -i 12)
"$haloex" stencil --serial "${size[@]}" -o "$dir/serial.npy" -q >/dev/null
runs=("c:$examples/stencil2d_c")
[[ -x $examples/stencil2d_f ]] && runs+=("fortran:$examples/stencil2d_f")
"$py" -c 'import haloex' 2>/dev/null && runs+=("python:$py $root/examples/stencil2d.py")
for run in "${runs[@]}"; do
  lang=${run%%:*} cmd=${run#*:}
  for n in 1 2 4; do
    # shellcheck disable=SC2086  # $cmd is a program and its script
    "$mpiexec" -np "$n" "$@" $cmd "${size[@]}" -o "$dir/$lang-$n.npy" >/dev/null
    "$py" -m haloex_lab compare "$dir/$lang-$n.npy" "$dir/serial.npy" --rtol 0 --atol 0 | grep -q "bit-identical" ||
      { echo "the $lang stencil on $n ranks differs from haloex stencil --serial" >&2; exit 1; }
  done
  echo "$lang: bit-identical to haloex stencil --serial at 1, 2 and 4 ranks"
  # shellcheck disable=SC2086
  if $cmd --nx 0 >"$dir/bad.txt" 2>&1; then echo "$lang: --nx 0 was accepted" >&2; exit 1; fi
  grep -q ">= 1" "$dir/bad.txt" || { cat "$dir/bad.txt" >&2; exit 1; }
done
[[ ${#runs[@]} -eq 3 ]] || echo "(not every binding is built here: ${runs[*]%%:*})"
