#pragma once
// The checksum (core/checksum.hpp) of values over a whole decomposed
// lattice: two runs agree exactly when their values are bit-identical,
// whatever their decompositions.
#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "haloex/core/checksum.hpp"
#include "haloex/field/field.hpp"
#include "haloex/grid/decomposition.hpp"

namespace haloex {

/// The sum of `local` over the ranks of `comm`, modulo 2^64, at every rank.
uint64_t sum_over_ranks(uint64_t local, MPI_Comm comm);

/// Sum over every rank's interior sites (i, j, k) (local coordinates) and
/// components c < ncomp of element_checksum of the `bytes` at at(i, j, k, c),
/// the site's index taken x slowest over the global lattice and the
/// element's as site x ncomp + c; the same at every rank. Collective.
template <class At>
uint64_t lattice_checksum(const Decomposition& dec, int ncomp, size_t bytes, At at) {
  const long ny = dec.global_size(1), nz = dec.global_size(2);
  const auto nc = static_cast<uint64_t>(ncomp);
  uint64_t sum = 0;  // modulo 2^64: the order of the terms does not matter
  for (long i = 0; i < dec.local_size(0); ++i)
    for (long j = 0; j < dec.local_size(1); ++j)
      for (long k = 0; k < dec.local_size(2); ++k) {
        const auto site =
            static_cast<uint64_t>(((dec.offset(0) + i) * ny + dec.offset(1) + j) * nz + dec.offset(2) + k);
        for (int c = 0; c < ncomp; ++c)
          sum += element_checksum(site * nc + static_cast<uint64_t>(c), at(i, j, k, c), bytes);
      }
  return sum_over_ranks(sum, dec.comm());
}

/// lattice_checksum of a field's interior.
uint64_t field_checksum(const Decomposition& dec, const FieldView& field);

}  // namespace haloex
