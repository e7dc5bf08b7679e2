#include "haloex/lb/monitor.hpp"

#include <cmath>
#include <cstddef>
#include <sstream>

#include "haloex/lb/velocity_set.hpp"

namespace haloex::lb {

namespace {

// The user-defined reduction: element-wise min, max, max, sum; step is equal
// on every rank.
void reduce_stats(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<const MonitorStats*>(in);
  auto* b = static_cast<MonitorStats*>(inout);
  for (int k = 0; k < *len; ++k) {
    b[k].rho_min = std::fmin(a[k].rho_min, b[k].rho_min);
    b[k].rho_max = std::fmax(a[k].rho_max, b[k].rho_max);
    b[k].u2_max = std::fmax(a[k].u2_max, b[k].u2_max);
    b[k].nan_sites += a[k].nan_sites;
  }
}

MPI_Datatype stats_type() {
  int lengths[2] = {4, 1};
  MPI_Aint displs[2] = {offsetof(MonitorStats, rho_min), offsetof(MonitorStats, step)};
  MPI_Datatype types[2] = {MPI_DOUBLE, MPI_LONG_LONG};
  MPI_Datatype t = MPI_DATATYPE_NULL, resized = MPI_DATATYPE_NULL;
  mpi_check(MPI_Type_create_struct(2, lengths, displs, types, &t), "MPI_Type_create_struct");
  mpi_check(MPI_Type_create_resized(t, 0, sizeof(MonitorStats), &resized), "MPI_Type_create_resized");
  MPI_Type_free(&t);
  mpi_check(MPI_Type_commit(&resized), "MPI_Type_commit");
  return resized;
}

}  // namespace

Monitor::Mode parse_monitor_mode(const std::string& s) {
  if (s == "nonblocking") return Monitor::Mode::nonblocking;
  if (s == "blocking") return Monitor::Mode::blocking;
  if (s == "off") return Monitor::Mode::off;
  throw InputError("monitor mode must be nonblocking, blocking or off, got '" + s + "'");
}

Monitor::Monitor(MPI_Comm comm, Mode mode, double mach_limit)
    : type_(stats_type()), op_(reduce_stats, true), mode_(mode), mach_limit_(mach_limit) {
  mpi_check(MPI_Comm_dup(comm, comm_.out()), "MPI_Comm_dup");
}

void Monitor::complete() {
  if (req_ == MPI_REQUEST_NULL) return;
  mpi_check(MPI_Wait(&req_, MPI_STATUS_IGNORE), "MPI_Wait");
  check(recv_);
}

void Monitor::submit(const MonitorStats& local) {
  if (mode_ == Mode::off) return;
  complete();
  send_ = local;
  ++reductions_;
  if (mode_ == Mode::blocking) {
    mpi_check(MPI_Allreduce(&send_, &recv_, 1, type_.get(), op_.get(), comm_.get()), "MPI_Allreduce");
    check(recv_);
  } else {
    mpi_check(MPI_Iallreduce(&send_, &recv_, 1, type_.get(), op_.get(), comm_.get(), &req_),
              "MPI_Iallreduce");
  }
}

void Monitor::check(const MonitorStats& g) {
  last_ = g;
  std::ostringstream os;
  if (g.nan_sites > 0) {
    os << "step " << g.step << ": density or velocity is NaN at " << static_cast<long long>(g.nan_sites)
       << " sites; the run is unstable (raise tau, lower the velocity or the force)";
    throw UnstableRun(os.str());
  }
  const double mach = std::sqrt(g.u2_max / cs2);
  if (mach > mach_limit_) {
    os << "step " << g.step << ": Mach number " << mach << " (max |u| = " << std::sqrt(g.u2_max)
       << ") exceeds monitor.mach_limit = " << mach_limit_ << "; lower the velocity or the force";
    throw UnstableRun(os.str());
  }
}

}  // namespace haloex::lb
