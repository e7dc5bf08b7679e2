// See field_checksum.hpp.
#include "haloex/field/field_checksum.hpp"

#include "haloex/core/mpi.hpp"

namespace haloex {

uint64_t sum_over_ranks(uint64_t local, MPI_Comm comm) {
  uint64_t all = 0;
  mpi_check(MPI_Allreduce(&local, &all, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
  return all;
}

uint64_t field_checksum(const Decomposition& dec, const FieldView& field) {
  const FieldShape& s = field.shape;
  const size_t bytes = element_size(s.type);
  return lattice_checksum(dec, s.ncomp, bytes, [&](long i, long j, long k, int c) {
    return field.data + static_cast<size_t>(s.element(i, j, k, c)) * bytes;
  });
}

}  // namespace haloex
