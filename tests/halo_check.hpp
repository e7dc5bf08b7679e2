#pragma once
// The independent expectation for halo tests: every (global site, component)
// gets a unique value from its global index; every halo element starts as a
// unique negative sentinel. After an exchange, an element holds the value of
// its periodic image if that image exists and the component was asked for,
// and its own sentinel otherwise.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <type_traits>

#include "haloex/field/field.hpp"

namespace haloex::test {

/// Which components the test expects in halo region o (empty: all).
/// The lattices of the halo tests, which every rank count from 1 to 8 splits
/// unevenly, leaving every subdomain at least 2 sites thick. Above 8 ranks
/// (27 and 64 in the suite: 26 distinct neighbours) each dimension gets
/// 3p - 1 sites for its p ranks, still uneven (3, ..., 3, 2). Mixed: x is a
/// wall (non-periodic), the rest periodic; an odd number of ranks then lands
/// on the non-periodic x, where red-black still works.
inline DecompositionSpec spec_of(int ndim, bool mixed) {
  DecompositionSpec s;
  s.ndim = ndim;
  s.global = ndim == 3 ? std::array<long, 3>{11, 9, 7} : std::array<long, 3>{13, 10, 1};
  s.periodic = {!mixed, true, true};
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n > 8) {
    int p[3] = {0, 0, 0};
    MPI_Dims_create(n, ndim, p);
    for (int d = 0; d < ndim; ++d) s.global[static_cast<size_t>(d)] = 3L * p[d] - 1;
  }
  return s;
}

using Expect = std::function<bool(const Offset&, int)>;

inline double global_value(const Decomposition& dec, const std::array<long, 3>& g, int c, int ncomp) {
  const long lin = (g[0] * dec.global_size(1) + g[1]) * dec.global_size(2) + g[2];
  return 1.0 + c + static_cast<double>(ncomp) * static_cast<double>(lin);
}

/// The element a test stores for value v > 0 (a global value), and the
/// sentinel of halo element e: distinct from every value. Bytes cannot hold
/// a unique value per element: theirs cycle through 1..97 and their
/// sentinels are 200..249, so a halo left unfilled or filled where it must
/// not be is always seen, and a value from a wrong site almost always.
/// @{
template <class T>
T encoded(double v) {
  if constexpr (std::is_same_v<T, std::uint8_t>)
    return static_cast<T>(static_cast<long>(v) % 97 + 1);
  else if constexpr (requires { typename T::value_type; })
    return T(static_cast<typename T::value_type>(v), static_cast<typename T::value_type>(-v));
  else
    return static_cast<T>(v);
}
template <class T>
T sentinel(long e) {
  if constexpr (std::is_same_v<T, std::uint8_t>)
    return static_cast<T>(200 + e % 50);
  else
    return encoded<T>(-1.0 - static_cast<double>(e));
}
template <class T>
double printable(const T& x) {
  if constexpr (requires { x.real(); })
    return static_cast<double>(x.real());
  else
    return static_cast<double>(x);
}
/// @}

/// Interior gets global values (plus `shift`, so that successive exchanges
/// carry different data), halo gets sentinels.
template <class T>
void initialise(Field<T>& f, const Decomposition& dec, double shift = 0) {
  const FieldShape& s = f.shape();
  const Box all = s.allocated();
  for (long i = all.lo[0]; i < all.hi[0]; ++i)
    for (long j = all.lo[1]; j < all.hi[1]; ++j)
      for (long k = all.lo[2]; k < all.hi[2]; ++k)
        for (int c = 0; c < s.ncomp; ++c) {
          const long e = s.element(i, j, k, c);
          if (s.interior().contains(i, j, k))
            f.data()[e] = encoded<T>(
                shift +
                global_value(dec, {dec.offset(0) + i, dec.offset(1) + j, dec.offset(2) + k}, c, s.ncomp));
          else
            f.data()[e] = sentinel<T>(e);
        }
}

/// Which halo regions to check (empty: all).
using Regions = std::function<bool(const Offset&)>;

/// Number of elements that differ from the expectation on this rank (the
/// first few are printed with their coordinates).
template <class T>
long count_wrong(const Field<T>& f, const Decomposition& dec, const Expect& expect, const char* label,
                 const Regions& regions = {}, double shift = 0) {
  const FieldShape& s = f.shape();
  const Box all = s.allocated();
  long wrong = 0;
  for (long i = all.lo[0]; i < all.hi[0]; ++i)
    for (long j = all.lo[1]; j < all.hi[1]; ++j)
      for (long k = all.lo[2]; k < all.hi[2]; ++k) {
        const long loc[3] = {i, j, k};
        Offset o{0, 0, 0};
        std::array<long, 3> g{};
        bool exists = true, reached = true;
        for (int d = 0; d < 3; ++d) {
          o[d] = loc[d] < 0 ? -1 : (loc[d] >= s.local[d] ? 1 : 0);
          // Deeper than the exchanged width (or off a 2-D lattice's plane): untouched.
          reached = reached && loc[d] >= -s.exchanged[d] && loc[d] < s.local[d] + s.exchanged[d];
          g[d] = dec.offset(d) + loc[d];
          if (g[d] < 0 || g[d] >= dec.global_size(d)) {
            if (!dec.periodic(d)) exists = false;
            g[d] = (g[d] % dec.global_size(d) + dec.global_size(d)) % dec.global_size(d);
          }
        }
        const bool halo = o != Offset{0, 0, 0};
        if (halo && regions && !regions(o)) continue;
        for (int c = 0; c < s.ncomp; ++c) {
          const long e = s.element(i, j, k, c);
          const bool filled = !halo || (reached && exists && (!expect || expect(o, c)));
          const T want = filled ? encoded<T>(shift + global_value(dec, g, c, s.ncomp)) : sentinel<T>(e);
          const T got = f.data()[e];
          // Bit for bit on purpose (tells -0.0 from 0.0 and compares NaNs).
          if (std::memcmp(&got, &want, sizeof(T)) != 0) {  // NOLINT(bugprone-suspicious-memory-comparison)
            if (wrong < 5)
              std::fprintf(stderr, "[%s] rank %d site (%ld,%ld,%ld) comp %d: got %.9g, want %.9g\n", label,
                           dec.rank(), i, j, k, c, printable(got), printable(want));
            ++wrong;
          }
        }
      }
  return wrong;
}

/// Sum over all ranks of comm.
inline long global_sum(long v, MPI_Comm comm) {
  long out = 0;
  MPI_Allreduce(&v, &out, 1, MPI_LONG, MPI_SUM, comm);
  return out;
}

}  // namespace haloex::test
