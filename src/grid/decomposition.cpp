#include "haloex/grid/decomposition.hpp"

#include <algorithm>
#include <sstream>

namespace haloex {

namespace {

std::string grid_text(const std::array<int, max_dims>& p, int ndim) { return extents_text(p, ndim); }

}  // namespace

void Decomposition::check_global(const std::array<long, max_dims>& global) {
  if (ndim_ != 2 && ndim_ != 3)
    throw InputError("the lattice must have 2 or 3 dimensions, not " + std::to_string(ndim_));
  for (int d = 0; d < ndim_; ++d) {
    if (global[d] < 1)
      throw InputError(std::string("global size along ") + axis_name(d) + " must be at least 1, not " +
                       std::to_string(global[d]));
    global_[d] = global[d];
  }
}

namespace {

// The range starts along d from a client's extents (checked), or haloex's
// even split (the remainder to the lowest coordinates, one site each).
std::vector<long> range_starts(long n, int p, const std::vector<long>& extents, int d) {
  std::vector<long> b(static_cast<size_t>(p) + 1, 0);
  if (extents.empty()) {
    for (int c = 0; c <= p; ++c)
      b[static_cast<size_t>(c)] = c == p ? n : Decomposition::block_offset(n, p, c);
    return b;
  }
  if (static_cast<long>(extents.size()) != p)
    throw InputError(std::string("the extents along ") + axis_name(d) + " list " +
                     std::to_string(extents.size()) + " ranks but the process grid has " + std::to_string(p) +
                     " there");
  for (int c = 0; c < p; ++c) {
    const long e = extents[static_cast<size_t>(c)];
    if (e < 1)
      throw InputError(std::string("the extents along ") + axis_name(d) + " give coordinate " +
                       std::to_string(c) + " " + std::to_string(e) + " sites; every rank needs at least 1");
    b[static_cast<size_t>(c) + 1] = b[static_cast<size_t>(c)] + e;
  }
  if (b.back() != n)
    throw InputError(std::string("the extents along ") + axis_name(d) + " add up to " +
                     std::to_string(b.back()) + " sites but the lattice has " + std::to_string(n) + " there");
  return b;
}

}  // namespace

Decomposition::Decomposition(MPI_Comm comm, const DecompositionSpec& spec) : ndim_(spec.ndim) {
  check_global(spec.global);
  const int nranks = comm_size(comm);
  for (int d = 0; d < ndim_; ++d) {
    periodic_[d] = spec.periodic[d];
    procs_[d] = spec.procs[d];
    if (procs_[d] == 0 && !spec.extents[d].empty()) procs_[d] = static_cast<int>(spec.extents[d].size());
  }
  for (int d = ndim_; d < max_dims; ++d)
    if (!spec.extents[d].empty())
      throw InputError(std::string("extents given along ") + axis_name(d) + " of a " + std::to_string(ndim_) +
                       "-D lattice");

  procs_ = resolve_process_grid(nranks, ndim_, procs_);

  for (int d = 0; d < ndim_; ++d)
    if (procs_[d] > global_[d])
      throw InputError("process grid " + grid_text(procs_, ndim_) + " puts " + std::to_string(procs_[d]) +
                       " ranks along " + axis_name(d) + " but the lattice has only " +
                       std::to_string(global_[d]) + " sites there; use fewer ranks or a larger lattice");
  std::array<std::vector<long>, max_dims> bounds;
  for (int d = 0; d < max_dims; ++d)
    bounds[d] = d < ndim_ ? range_starts(global_[d], procs_[d], spec.extents[d], d) : std::vector<long>{0, 1};

  // No reordering: rank r of comm is rank r here, at row-major coordinates.
  std::array<int, max_dims> periods{};
  for (int d = 0; d < ndim_; ++d) periods[d] = periodic_[d] ? 1 : 0;
  mpi_check(MPI_Cart_create(comm, ndim_, procs_.data(), periods.data(), 0, cart_.out()), "MPI_Cart_create");
  rank_ = comm_rank(cart_.get());
  size_ = nranks;
  mpi_check(MPI_Cart_coords(cart_.get(), rank_, ndim_, coords_.data()), "MPI_Cart_coords");
  place(bounds);
}

void Decomposition::place(const std::array<std::vector<long>, max_dims>& bounds) {
  bounds_ = bounds;
  for (int d = 0; d < max_dims; ++d) {
    const auto c = static_cast<size_t>(coords_[d]);
    offset_[d] = bounds_[d][c];
    local_[d] = bounds_[d][c + 1] - bounds_[d][c];
  }
  // Neighbour ranks for every offset, wrapping periodic dimensions ourselves
  // so the result does not depend on how an MPI library treats shifts.
  offsets_ = neighbour_offsets(ndim_);
  neighbours_.fill(MPI_PROC_NULL);
  neighbours_[offset_index({0, 0, 0})] = rank_;
  for (const Offset& o : offsets_) {
    std::array<int, max_dims> c{};
    bool inside = true;
    for (int d = 0; d < ndim_; ++d) {
      c[d] = coords_[d] + o[d];
      if (c[d] < 0 || c[d] >= procs_[d]) {
        if (!periodic_[d]) inside = false;
        c[d] = (c[d] + procs_[d]) % procs_[d];
      }
    }
    if (!inside) continue;
    int& r = neighbours_[offset_index(o)];
    if (rank_at_.empty())
      mpi_check(MPI_Cart_rank(cart_.get(), c.data(), &r), "MPI_Cart_rank");
    else
      r = rank_at_[static_cast<size_t>((static_cast<long>(c[0]) * procs_[1] + c[1]) * procs_[2] + c[2])];
  }
}

long Decomposition::min_local_size(int d) const {
  long m = global_[d];
  for (size_t c = 0; c + 1 < bounds_[d].size(); ++c) m = std::min(m, bounds_[d][c + 1] - bounds_[d][c]);
  return m;
}

void Decomposition::require_thickness(long width, const std::string& what, int only) const {
  for (int d = 0; d < ndim_; ++d)
    if ((only < 0 || d == only) && min_local_size(d) < width)
      throw InputError(what + " is " + std::to_string(width) +
                       " sites wide but the thinnest subdomain has only " +
                       std::to_string(min_local_size(d)) + " sites along " + axis_name(d) + " (" +
                       std::to_string(global_[d]) + " sites over " + std::to_string(procs_[d]) +
                       " ranks); use fewer ranks along " + axis_name(d) + " or a larger lattice");
}

std::string Decomposition::describe() const {
  std::ostringstream s;
  for (int d = 0; d < ndim_; ++d) s << (d ? "x" : "") << global_[d];
  s << " on " << grid_text(procs_, ndim_) << " ranks (periodic ";
  for (int d = 0; d < ndim_; ++d) s << (periodic_[d] ? 'p' : 'n');
  s << ")";
  return s.str();
}

std::array<int, max_dims> resolve_process_grid(int nranks, int ndim, std::array<int, max_dims> procs) {
  // Validate a user-given grid ourselves: MPI_Dims_create reports a bad one
  // as an MPI error (or aborts), which is no help to the user.
  long fixed = 1;
  bool any_free = false;
  for (int d = 0; d < ndim; ++d) {
    if (procs[d] < 0)
      throw InputError(std::string("process grid entry along ") + axis_name(d) + " is negative");
    if (procs[d] > 0)
      fixed *= procs[d];
    else
      any_free = true;
  }
  if (!any_free && fixed != nranks)
    throw InputError("process grid " + grid_text(procs, ndim) + " has " + std::to_string(fixed) +
                     " ranks but the run has " + std::to_string(nranks) +
                     "; give a grid whose product is the number of ranks, or 0 entries to let MPI choose");
  if (any_free && nranks % fixed != 0)
    throw InputError("the fixed entries of process grid " + grid_text(procs, ndim) + " (product " +
                     std::to_string(fixed) + ") do not divide the " + std::to_string(nranks) + " ranks");
  if (any_free) mpi_check(MPI_Dims_create(nranks, ndim, procs.data()), "MPI_Dims_create");
  for (int d = ndim; d < max_dims; ++d) procs[d] = 1;
  return procs;
}

std::vector<long> parse_long_list(const std::string& text, const std::string& what) {
  const std::string expected = " is not a comma-separated list of integers or ranges first:last[:step]";
  auto number = [&](const std::string& item) {
    size_t used = 0;
    long v = 0;
    try {
      v = std::stol(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size()) throw InputError(what + ": '" + text + "'" + expected);
    return v;
  };
  std::vector<long> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::vector<std::string> parts;
    std::stringstream is(item);
    for (std::string p; std::getline(is, p, ':');) parts.push_back(p);
    if (parts.size() == 1 && item.find(':') == std::string::npos) {
      out.push_back(number(item));
      continue;
    }
    if (parts.size() < 2 || parts.size() > 3) throw InputError(what + ": '" + text + "'" + expected);
    const long first = number(parts[0]), last = number(parts[1]),
               step = parts.size() == 3 ? number(parts[2]) : 1;
    if (step < 1 || last < first)
      throw InputError(what + ": range '" + item + "' needs first <= last and a step of at least 1");
    if ((last - first) / step >= 100000)
      throw InputError(what + ": range '" + item + "' has too many entries");
    for (long v = first; v <= last; v += step) out.push_back(v);
  }
  if (out.empty()) throw InputError(what + ": empty list");
  return out;
}

std::array<int, 2> parse_grid_2d(const std::string& text) {
  const std::vector<long> p = parse_long_list(text, "--procs");
  if (p.size() != 2) throw InputError("--procs takes 2 entries (x,y), got '" + text + "'");
  return {static_cast<int>(p[0]), static_cast<int>(p[1])};
}

}  // namespace haloex
