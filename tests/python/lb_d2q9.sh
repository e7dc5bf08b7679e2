#!/usr/bin/env bash
# lb_d2q9.sh PYTHON DIR MPIEXEC [FLAGS...]: examples/lb_d2q9.py (NumPy D2Q9,
# the populations' halo by `auto` with a reduced plan) follows the
# Navier-Stokes decay of a shear wave within 1% (its own exit status) and
# gives the same field to the last bit on 1 and 4 ranks.
set -eu
(($# >= 3)) || { echo "usage: lb_d2q9.sh PYTHON DIR MPIEXEC [FLAGS...]" >&2; exit 2; }
py=$1 dir=$2 mpiexec=$3
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dir" && mkdir -p "$dir"
for n in 1 4; do
  "$mpiexec" -np "$n" "$@" "$py" "$root/examples/lb_d2q9.py" --nx 24 --ny 32 --steps 300 -o "$dir/u-$n.npy"
done
"$py" -m haloex_lab compare "$dir/u-4.npy" "$dir/u-1.npy" --rtol 0 --atol 0 | grep -q "bit-identical" ||
  { echo "lb_d2q9 on 4 ranks differs from 1 rank" >&2; exit 1; }
echo "1 and 4 ranks: bit-identical"
