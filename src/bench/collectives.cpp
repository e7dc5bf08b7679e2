#include "haloex/bench/collectives.hpp"

#include <cmath>
#include <sstream>

#include "haloex/core/error.hpp"
#include "haloex/core/mpi.hpp"

namespace haloex {

namespace {

constexpr double poison_value = -7.25;  // no sent value is negative

const char* kind_name(CollKind k) {
  switch (k) {
    case CollKind::barrier: return "barrier";
    case CollKind::bcast: return "bcast";
    case CollKind::reduce: return "reduce";
    case CollKind::allreduce: return "allreduce";
    case CollKind::alltoall: return "alltoall";
  }
  return "?";
}

}  // namespace

std::string CollectiveSpec::mpi_name() const {
  static const char* const names[2][5] = {
      {"MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Alltoall"},
      {"MPI_Ibarrier", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iallreduce", "MPI_Ialltoall"}};
  return names[nonblocking ? 1 : 0][static_cast<int>(kind)];
}

std::string CollectiveSpec::counterpart() const {
  return nonblocking ? name.substr(1) : std::string("i").append(name);
}

const std::vector<CollectiveSpec>& collectives() {
  static const std::vector<CollectiveSpec> table = [] {
    std::vector<CollectiveSpec> t;
    for (bool nb : {false, true})
      for (CollKind k :
           {CollKind::barrier, CollKind::bcast, CollKind::reduce, CollKind::allreduce, CollKind::alltoall})
        t.push_back({std::string(nb ? "i" : "").append(kind_name(k)), k, nb});
    return t;
  }();
  return table;
}

std::vector<CollectiveSpec> find_collectives(const std::vector<std::string>& names) {
  std::vector<CollectiveSpec> out;
  auto add = [&](const CollectiveSpec& c) {
    for (const auto& o : out)
      if (o.name == c.name) return;
    out.push_back(c);
  };
  for (const std::string& n : names) {
    bool found = false;
    for (const CollectiveSpec& c : collectives()) {
      if (n == c.name || n == "all" || (n == "blocking" && !c.nonblocking) ||
          (n == "nonblocking" && c.nonblocking)) {
        add(c);
        found = true;
      }
    }
    if (!found) {
      std::string valid;
      for (const CollectiveSpec& c : collectives()) valid += (valid.empty() ? "" : ", ") + c.name;
      throw InputError("unknown collective '" + n + "'. valid: " + valid +
                       " (or all, blocking, nonblocking)");
    }
  }
  if (out.empty()) throw InputError("no collective given");
  return out;
}

CollectiveRun::CollectiveRun(const CollectiveSpec& spec, MPI_Comm comm, size_t bytes)
    : spec_(spec), comm_(comm), rank_(comm_rank(comm)), size_(comm_size(comm)) {
  if (spec_.kind != CollKind::barrier) count_ = std::max<size_t>(1, bytes / sizeof(double));
  const size_t blocks = spec_.kind == CollKind::alltoall ? static_cast<size_t>(size_) : 1;
  send_.resize(count_ * blocks);
  recv_.resize(count_ * blocks);
  for (size_t d = 0; d < blocks; ++d)
    for (size_t k = 0; k < count_; ++k) send_[d * count_ + k] = sent_value(rank_, static_cast<int>(d), k);
  poison();
}

CollectiveRun::~CollectiveRun() {
  if (req_ != MPI_REQUEST_NULL) MPI_Wait(&req_, MPI_STATUS_IGNORE);
}

size_t CollectiveRun::bytes() const { return count_ * sizeof(double); }

// Small integers, exact in double and in every partial sum of a reduction,
// different for every (rank, destination, element).
double CollectiveRun::sent_value(int rank, int dest, size_t k) const {
  return (static_cast<double>(rank) * size_ + dest) * static_cast<double>(count_) + static_cast<double>(k);
}

void CollectiveRun::poison() {
  for (double& x : recv_) x = poison_value;
  // A broadcast works in place: non-roots start from poison too.
  if (spec_.kind == CollKind::bcast && rank_ != 0)
    for (double& x : send_) x = poison_value;
}

void CollectiveRun::start() {
  const int n = static_cast<int>(count_);
  double* s = send_.data();
  double* r = recv_.data();
  MPI_Request* q = &req_;
  if (!spec_.nonblocking) {
    switch (spec_.kind) {
      case CollKind::barrier: mpi_check(MPI_Barrier(comm_), "MPI_Barrier"); break;
      case CollKind::bcast: mpi_check(MPI_Bcast(s, n, MPI_DOUBLE, 0, comm_), "MPI_Bcast"); break;
      case CollKind::reduce:
        mpi_check(MPI_Reduce(s, r, n, MPI_DOUBLE, MPI_SUM, 0, comm_), "MPI_Reduce");
        break;
      case CollKind::allreduce:
        mpi_check(MPI_Allreduce(s, r, n, MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
        break;
      case CollKind::alltoall:
        mpi_check(MPI_Alltoall(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, comm_), "MPI_Alltoall");
        break;
    }
    return;
  }
  switch (spec_.kind) {
    case CollKind::barrier: mpi_check(MPI_Ibarrier(comm_, q), "MPI_Ibarrier"); break;
    case CollKind::bcast: mpi_check(MPI_Ibcast(s, n, MPI_DOUBLE, 0, comm_, q), "MPI_Ibcast"); break;
    case CollKind::reduce:
      mpi_check(MPI_Ireduce(s, r, n, MPI_DOUBLE, MPI_SUM, 0, comm_, q), "MPI_Ireduce");
      break;
    case CollKind::allreduce:
      mpi_check(MPI_Iallreduce(s, r, n, MPI_DOUBLE, MPI_SUM, comm_, q), "MPI_Iallreduce");
      break;
    case CollKind::alltoall:
      mpi_check(MPI_Ialltoall(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, comm_, q), "MPI_Ialltoall");
      break;
  }
}

void CollectiveRun::wait() {
  if (req_ != MPI_REQUEST_NULL) mpi_check(MPI_Wait(&req_, MPI_STATUS_IGNORE), "MPI_Wait");
}

bool CollectiveRun::test() {
  if (req_ == MPI_REQUEST_NULL) return true;
  int done = 0;
  mpi_check(MPI_Test(&req_, &done, MPI_STATUS_IGNORE), "MPI_Test");
  return done != 0;
}

long CollectiveRun::check(std::string* what) const {
  long wrong = 0;
  auto expect = [&](const std::vector<double>& got, size_t i, double want) {
    if (got[i] == want) return;
    if (wrong++ == 0 && what) {
      std::ostringstream os;
      os << spec_.mpi_name() << " on " << size_ << " ranks, " << bytes() << " B: rank " << rank_
         << " element " << i << " is " << got[i] << ", expected " << want;
      *what = os.str();
    }
  };
  const double p = size_;
  switch (spec_.kind) {
    case CollKind::barrier: break;
    case CollKind::bcast:
      for (size_t k = 0; k < count_; ++k) expect(send_, k, sent_value(0, 0, k));
      break;
    case CollKind::reduce:
    case CollKind::allreduce:
      if (spec_.kind == CollKind::reduce && rank_ != 0) {
        for (size_t k = 0; k < count_; ++k) expect(recv_, k, poison_value);  // untouched off the root
        break;
      }
      // sum over r of (r p) count + k = count p^2 (p-1)/2 + p k
      for (size_t k = 0; k < count_; ++k)
        expect(recv_, k, static_cast<double>(count_) * p * p * (p - 1) / 2 + p * static_cast<double>(k));
      break;
    case CollKind::alltoall:
      for (int s = 0; s < size_; ++s)
        for (size_t k = 0; k < count_; ++k) expect(recv_, s * count_ + k, sent_value(s, rank_, k));
      break;
  }
  return wrong;
}

}  // namespace haloex
