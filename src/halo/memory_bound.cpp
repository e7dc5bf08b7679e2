#include "haloex/halo/memory_bound.hpp"

#include <algorithm>
#include <vector>

#include "haloex/core/mpi.hpp"

namespace haloex {

CopySweep::CopySweep(size_t n)
    : n_(static_cast<long>(n)), a_(allocate_aligned<double>(n)), c_(allocate_aligned<double>(n)) {
  double *a = a_.get(), *c = c_.get();
  const long nn = n_;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < nn; ++i) a[i] = c[i] = 1.0;
}

double CopySweep::measure(MPI_Comm comm, int sweeps) {
  const double* a = a_.get();
  double* c = c_.get();
  const long nn = n_;
  mpi_check(MPI_Barrier(comm), "MPI_Barrier");
  const double t0 = MPI_Wtime();
  for (int s = 0; s < sweeps; ++s) {
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < nn; ++i) c[i] = a[i];
  }
  const double tmax = max_over(comm, MPI_Wtime() - t0);
  return 16.0 * static_cast<double>(nn) * sweeps * comm_size(comm) / tmax;
}

namespace {

// Appends the line index of every element part `p` visits in its field of
// shape `s` (the field number tells several fields of one plan apart).
void add_lines(const Part& p, const FieldShape& s, std::vector<std::pair<int, long>>& lines) {
  const long esz = static_cast<long>(element_size(s.type));
  for (const Walk& w : field_walks(s, p.box, p.comps)) {
    // Odometer over the walk's loops.
    std::vector<long> i(w.n.size(), 0);
    const std::vector<long> table = w.table.empty() ? std::vector<long>{0} : w.table;
    for (bool more = !w.n.empty(); more;) {
      long at = w.base;
      for (size_t d = 0; d < i.size(); ++d) at += i[d] * w.stride[d];
      for (long t : table) lines.emplace_back(p.field, (at + t) * esz / 64);
      more = false;
      for (size_t d = i.size(); d-- > 0;) {
        if (++i[d] < w.n[d]) {
          more = true;
          break;
        }
        i[d] = 0;
      }
    }
  }
}

double distinct_bytes(std::vector<std::pair<int, long>>& lines) {
  std::sort(lines.begin(), lines.end());
  return 64.0 * static_cast<double>(std::unique(lines.begin(), lines.end()) - lines.begin());
}

}  // namespace

double touched_bytes(const Message& m, const FieldShape& s) {
  std::vector<std::pair<int, long>> lines;
  for (const Part& p : m.parts) add_lines(p, s, lines);
  return distinct_bytes(lines);
}

double exchange_line_bytes(const Plan& plan) {
  std::vector<std::pair<int, long>> read, written;
  for (const Link& l : plan.direct().links) {
    for (const Part& p : l.send.parts) add_lines(p, plan.fields()[p.field].shape, read);
    for (const Part& p : l.recv.parts) add_lines(p, plan.fields()[p.field].shape, written);
  }
  return distinct_bytes(read) + distinct_bytes(written);
}

}  // namespace haloex
