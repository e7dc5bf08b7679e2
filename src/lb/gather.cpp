// See gather.hpp.
#include "gather.hpp"

#include <algorithm>
#include <cstdint>

#include "haloex/core/exact_sum.hpp"
#include "haloex/core/large_count.hpp"
#include "haloex/core/mpi.hpp"
#include "haloex/field/field_checksum.hpp"

namespace haloex::lb::detail {

namespace {

// Every rank's populations at the root, in the order the ranks hold them
// (displs: where each rank's begin). Point to point with large counts
// rather than MPI_Gatherv, whose int counts and displacements stop at
// 2^31 - 1 doubles for the whole lattice.
std::vector<double> collect(const Decomposition& dec, const std::vector<double>& local, int root,
                            std::vector<size_t>& displs) {
  MPI_Comm comm = dec.comm();
  const int p = dec.size();
  const auto count = static_cast<uint64_t>(local.size());
  std::vector<uint64_t> counts(static_cast<size_t>(p));
  displs.assign(static_cast<size_t>(p), 0);
  mpi_check(MPI_Gather(&count, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, root, comm), "MPI_Gather");
  Comm own;  // a tag space of its own: no other message of comm can match
  mpi_check(MPI_Comm_dup(comm, own.out()), "MPI_Comm_dup");
  std::vector<double> all;
  if (dec.rank() == root) {
    size_t total = 0;
    for (int r = 0; r < p; ++r) displs[r] = total, total += counts[r];
    all.resize(total);
    std::copy(local.begin(), local.end(), all.begin() + static_cast<long>(displs[root]));
    std::vector<LargeCount> sizes;
    std::vector<MPI_Request> reqs;
    sizes.reserve(static_cast<size_t>(p));
    reqs.reserve(static_cast<size_t>(p));
    for (int r = 0; r < p; ++r) {
      if (r == root || counts[r] == 0) continue;
      sizes.emplace_back(counts[r], MPI_DOUBLE);
      reqs.push_back(MPI_REQUEST_NULL);
      mpi_check(large_irecv(all.data() + displs[r], sizes.back(), r, 0, own.get(), &reqs.back()),
                "MPI_Irecv");
    }
    mpi_check(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  } else if (count > 0) {
    mpi_check(large_send(local.data(), LargeCount(count, MPI_DOUBLE), root, 0, own.get()), "MPI_Send");
  }
  return all;
}

}  // namespace

uint64_t checksum_of(const Decomposition& dec, const std::vector<double>& local, int q) {
  // Interior sites x slowest, q populations each.
  const long ny = dec.local_size(1), nz = dec.local_size(2);
  return lattice_checksum(dec, q, sizeof(double), [&](long i, long j, long k, int c) {
    return reinterpret_cast<const std::byte*>(&local[static_cast<size_t>(((i * ny + j) * nz + k) * q + c)]);
  });
}

std::vector<double> gather_populations(const Decomposition& dec, const std::vector<double>& local, int q,
                                       int root) {
  const int p = dec.size();
  long box[6] = {dec.offset(0),     dec.offset(1),     dec.offset(2),
                 dec.local_size(0), dec.local_size(1), dec.local_size(2)};
  std::vector<long> boxes(static_cast<size_t>(6 * p));
  mpi_check(MPI_Gather(box, 6, MPI_LONG, boxes.data(), 6, MPI_LONG, root, dec.comm()), "MPI_Gather");
  std::vector<size_t> displs;
  const std::vector<double> all = collect(dec, local, root, displs);
  if (dec.rank() != root) return {};
  const long ny = dec.global_size(1), nz = dec.global_size(2);
  std::vector<double> out(all.size());
  for (int r = 0; r < p; ++r) {
    const long* b = &boxes[6 * static_cast<size_t>(r)];
    size_t n = static_cast<size_t>(displs[r]);
    for (long i = 0; i < b[3]; ++i)
      for (long j = 0; j < b[4]; ++j)
        for (long l = 0; l < b[5]; ++l, n += static_cast<size_t>(q)) {
          const size_t g =
              static_cast<size_t>(((b[0] + i) * ny + (b[1] + j)) * nz + (b[2] + l)) * static_cast<size_t>(q);
          std::copy_n(all.begin() + static_cast<long>(n), q, out.begin() + static_cast<long>(g));
        }
  }
  return out;
}

Totals totals_of(const std::vector<double>& f, const VelocitySet& vs, MPI_Comm comm) {
  ExactSum mass, mom[3];
  for (size_t s = 0; s < f.size(); s += static_cast<size_t>(vs.q))
    for (int c = 0; c < vs.q; ++c) {
      const double v = f[s + static_cast<size_t>(c)];
      mass.add(v);
      for (int d = 0; d < 3; ++d)
        if (vs.c[c][d] != 0) mom[d].add(vs.c[c][d] > 0 ? v : -v);
    }
  mass.allreduce(comm);
  Totals t;
  t.mass = mass.value();
  for (int d = 0; d < 3; ++d) {
    mom[d].allreduce(comm);
    t.momentum[d] = mom[d].value();
  }
  return t;
}

}  // namespace haloex::lb::detail
