// A decomposition from every rank's own box: the client split the lattice,
// haloex learns the split from the boxes and checks it is a process grid.
#include <algorithm>
#include <map>

#include "haloex/grid/decomposition.hpp"

namespace haloex {

namespace {

// What each rank tells every other: ndim, global sizes, periodicity, first
// site and extent (past ndim: 1, 0, 0, 1).
constexpr int record_size = 13;

std::array<long, record_size> record_of(const OwnedBoxSpec& s) {
  std::array<long, record_size> r{};
  r[0] = s.ndim;
  for (int d = 0; d < max_dims; ++d) {
    const bool used = d < s.ndim;
    r[1 + d] = used ? s.global[d] : 1;
    r[4 + d] = used && s.periodic[d] ? 1 : 0;
    r[7 + d] = used ? s.first[d] : 0;
    r[10 + d] = used ? s.extent[d] : 1;
  }
  return r;
}

// Entry k of rank r's record in the gathered records.
long field(const std::vector<long>& all, int r, int k) {
  return all[static_cast<size_t>(r) * record_size + static_cast<size_t>(k)];
}

std::string range_text(long first, long extent) {
  std::string s(1, '[');  // (not "[" + std::string: GCC 12 warns falsely on it)
  s += std::to_string(first);
  s += ", ";
  s += std::to_string(first + extent);
  s += ')';
  return s;
}

// Every rank must describe the same lattice.
void check_same_lattice(const std::vector<long>& all, int nranks) {
  for (int r = 1; r < nranks; ++r)
    for (int k = 0; k < 7; ++k)
      if (field(all, r, k) != field(all, 0, k))
        throw InputError("rank " + std::to_string(r) + " describes another lattice than rank 0 (" +
                         (k == 0  ? std::string("dimensions")
                          : k < 4 ? std::string("global size along ") + axis_name(k - 1)
                                  : std::string("periodicity along ") + axis_name(k - 4)) +
                         " differ); every rank must give the same dimensions, global size and periodicity");
}

// The range starts along d that the boxes make, and each rank's coordinate
// there; InputError unless the ranges tile [0, n) without gap or overlap and
// ranks starting at the same site agree on the extent.
std::vector<long> axis_ranges(const std::vector<long>& all, int nranks, int d, long n,
                              std::vector<int>& coord) {
  std::map<long, std::pair<long, int>> by_first;  // first -> (extent, a rank that has it)
  for (int r = 0; r < nranks; ++r) {
    const long f = field(all, r, 7 + d);
    const long e = field(all, r, 10 + d);
    if (f < 0 || e < 1 || f + e > n)
      throw InputError("rank " + std::to_string(r) + "'s box along " + axis_name(d) + " is " +
                       range_text(f, e) + ", which is empty or reaches outside the lattice's " +
                       range_text(0, n));
    auto [it, fresh] = by_first.try_emplace(f, e, r);
    if (!fresh && it->second.first != e)
      throw InputError("ranks " + std::to_string(it->second.second) + " and " + std::to_string(r) +
                       " both start at " + axis_name(d) + " = " + std::to_string(f) + " but own " +
                       std::to_string(it->second.first) + " and " + std::to_string(e) +
                       " sites there; the boxes must form a process grid, in which ranks that share a range "
                       "along a dimension agree on it");
  }
  std::vector<long> starts;
  long end = 0;
  int prev = -1;
  for (const auto& [f, er] : by_first) {
    if (f > end)
      throw InputError("no rank owns " + std::string(axis_name(d)) + " sites " + range_text(end, f - end));
    if (f < end)
      throw InputError("ranks " + std::to_string(prev) + " and " + std::to_string(er.second) +
                       " overlap along " + axis_name(d) + ": sites " + range_text(f, end - f) +
                       " are in both boxes");
    starts.push_back(f);
    end = f + er.first;
    prev = er.second;
  }
  if (end != n)
    throw InputError("no rank owns " + std::string(axis_name(d)) + " sites " + range_text(end, n - end));
  starts.push_back(n);
  coord.assign(static_cast<size_t>(nranks), 0);
  for (int r = 0; r < nranks; ++r) {
    const long f = field(all, r, 7 + d);
    coord[static_cast<size_t>(r)] =
        static_cast<int>(std::lower_bound(starts.begin(), starts.end(), f) - starts.begin());
  }
  return starts;
}

}  // namespace

Decomposition::Decomposition(MPI_Comm comm, const OwnedBoxSpec& spec) : ndim_(spec.ndim) {
  check_global(spec.global);
  const int nranks = comm_size(comm);
  const std::array<long, record_size> mine = record_of(spec);
  std::vector<long> all(static_cast<size_t>(nranks) * record_size);
  mpi_check(MPI_Allgather(mine.data(), record_size, MPI_LONG, all.data(), record_size, MPI_LONG, comm),
            "MPI_Allgather");
  // Every rank checks the same gathered boxes, so all throw the same error.
  check_same_lattice(all, nranks);
  std::array<std::vector<long>, max_dims> bounds;
  std::array<std::vector<int>, max_dims> coord;
  for (int d = 0; d < max_dims; ++d) {
    periodic_[d] = d < ndim_ && spec.periodic[d];
    bounds[d] = d < ndim_ ? axis_ranges(all, nranks, d, global_[d], coord[d]) : std::vector<long>{0, 1};
    if (d >= ndim_) coord[d].assign(static_cast<size_t>(nranks), 0);
    procs_[d] = static_cast<int>(bounds[d].size()) - 1;
  }
  rank_at_.assign(static_cast<size_t>(procs_[0]) * procs_[1] * procs_[2], -1);
  for (int r = 0; r < nranks; ++r) {
    const auto u = static_cast<size_t>(r);
    const long pos = (static_cast<long>(coord[0][u]) * procs_[1] + coord[1][u]) * procs_[2] + coord[2][u];
    int& at = rank_at_[static_cast<size_t>(pos)];
    if (at >= 0)
      throw InputError("ranks " + std::to_string(at) + " and " + std::to_string(r) + " own the same box");
    at = r;
  }
  const auto hole = std::find(rank_at_.begin(), rank_at_.end(), -1);
  if (hole != rank_at_.end()) {
    const long p = hole - rank_at_.begin();
    const long c[3] = {p / (procs_[1] * procs_[2]), (p / procs_[2]) % procs_[1], p % procs_[2]};
    std::string box;
    for (int d = 0; d < ndim_; ++d)
      box += (d ? " x " : "") +
             range_text(bounds[d][static_cast<size_t>(c[d])],
                        bounds[d][static_cast<size_t>(c[d]) + 1] - bounds[d][static_cast<size_t>(c[d])]);
    throw InputError("no rank owns the box " + box + " (the " + std::to_string(nranks) +
                     " boxes do not cover the lattice's " + extents_text(procs_, ndim_) + " grid of ranges)");
  }
  // Ranks keep their numbers: a duplicate of comm, no Cartesian reordering.
  mpi_check(MPI_Comm_dup(comm, cart_.out()), "MPI_Comm_dup");
  rank_ = comm_rank(cart_.get());
  size_ = nranks;
  for (int d = 0; d < max_dims; ++d) coords_[d] = coord[d][static_cast<size_t>(rank_)];
  place(bounds);
}

}  // namespace haloex
