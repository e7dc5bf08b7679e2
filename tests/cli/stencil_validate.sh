#!/usr/bin/env bash
# stencil_validate.sh PYTHON HALOEX DIR MPIEXEC [FLAGS...]: the stencil
# program end to end: parallel runs write .npy files byte-identical to the
# serial reference's, numpy reads them and agrees with its own evaluation of
# the scheme, and `haloex-lab compare` passes and fails where it should.
set -eu
(($# >= 4)) || { echo "usage: stencil_validate.sh PYTHON HALOEX DIR MPIEXEC [FLAGS...]" >&2; exit 2; }
python=$1 haloex=$2 dir=$3
shift 3
mpi() { local n=$1; shift; "$mpiexec" -n "$n" "${flags[@]}" "$haloex" "$@"; }
mpiexec=$1
shift
flags=("$@")
rm -rf "$dir" && mkdir -p "$dir"
size=(--nx 42 --ny 38 --nz 9 --iters 7 -q)

"$haloex" stencil --serial "${size[@]}" -o "$dir/serial.npy" | tee "$dir/serial.txt"
grep -Eq "^ +1 +42 +38 +9 +7 +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$dir/serial.txt"
mpi 3 stencil "${size[@]}" -s direct -o "$dir/direct3.npy" >/dev/null
mpi 4 stencil "${size[@]}" -s irecv-send -o "$dir/irecv-send4.npy" >/dev/null
mpi 6 stencil "${size[@]}" -s red-black --procs 6,1 -o "$dir/red-black6.npy" >/dev/null
mpi 4 stencil "${size[@]}" -s prepost --precision float -o "$dir/float4.npy" >/dev/null
for f in direct3 irecv-send4 red-black6; do
  cmp "$dir/serial.npy" "$dir/$f.npy" || { echo "FAIL: $f.npy differs from the serial reference"; exit 1; }
done
ls "$dir" | grep -q '\.part$' && { echo "FAIL: a temporary .part file was left behind"; exit 1; }

# numpy's own evaluation of the scheme from the same initial condition.
"$python" - "$dir" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
nx, ny, nz = 42, 38, 9
u = np.zeros((nx, ny, nz))
# The 2022 paper's initial condition: ones on [n // 4, 3 * n // 4) in every
# dimension. 42 and 38 are 2 modulo 4, 9 is 1: sizes where [n // 4, n - n // 4)
# would differ.
u[nx // 4:3 * nx // 4, ny // 4:3 * ny // 4, nz // 4:3 * nz // 4] = 1.0
lap = lambda a: -4 * a + np.roll(a, 1, 0) + np.roll(a, -1, 0) + np.roll(a, 1, 1) + np.roll(a, -1, 1)
for _ in range(7):
    u = u - lap(lap(u)) / 32
got = np.load(f"{d}/serial.npy")
assert got.shape == (nx, ny, nz) and got.dtype == np.float64, (got.shape, got.dtype)
assert np.allclose(got, u, rtol=1e-12, atol=1e-14), abs(got - u).max()
f = np.load(f"{d}/float4.npy")
assert f.dtype == np.float32
bad = u.copy()
bad[3, 4, 2] += 1e-3
np.save(f"{d}/perturbed.npy", bad)
print("numpy agrees with the serial reference")
PY

"$python" -m haloex_lab compare "$dir/direct3.npy" "$dir/serial.npy" | tee "$dir/cmp1.txt"
grep -q "PASS: allclose.*bit-identical" "$dir/cmp1.txt"
"$python" -m haloex_lab compare "$dir/float4.npy" "$dir/serial.npy" | tee "$dir/cmp2.txt"
grep -q "^PASS" "$dir/cmp2.txt"
set +e
"$python" -m haloex_lab compare "$dir/perturbed.npy" "$dir/serial.npy" >"$dir/cmp3.txt"
code=$?
set -e
cat "$dir/cmp3.txt"
((code == 1)) || { echo "FAIL: a perturbed field gave exit code $code, not 1"; exit 1; }
grep -q "outside tolerance *1 of 14364" "$dir/cmp3.txt"
echo "PASS"
