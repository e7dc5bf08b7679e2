#include "haloex/core/timers.hpp"

#include <cstdio>

#include "haloex/core/mpi.hpp"

namespace haloex {

Timers::Timers(std::vector<std::string> sections)
    : names_(std::move(sections)), time_(names_.size(), 0.0), calls_(names_.size(), 0) {}

void Timers::add(int section, double seconds, long calls) {
  time_[section] += seconds;
  calls_[section] += calls;
}

void Timers::set(int section, double seconds, long calls) {
  time_[section] = seconds;
  calls_[section] = calls;
}

void Timers::reset() {
  std::fill(time_.begin(), time_.end(), 0.0);
  std::fill(calls_.begin(), calls_.end(), 0);
}

std::vector<Timers::Row> Timers::reduce(MPI_Comm comm) const {
  const int n = static_cast<int>(time_.size());
  std::vector<double> mn(n), mx(n), sum(n);
  mpi_check(MPI_Allreduce(time_.data(), mn.data(), n, MPI_DOUBLE, MPI_MIN, comm), "MPI_Allreduce");
  mpi_check(MPI_Allreduce(time_.data(), mx.data(), n, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  mpi_check(MPI_Allreduce(time_.data(), sum.data(), n, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
  const int p = comm_size(comm);
  std::vector<Row> rows;
  rows.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) rows.push_back({names_[i], mn[i], mx[i], sum[i] / p, calls_[i]});
  return rows;
}

std::string Timers::format(const std::vector<Row>& rows) {
  std::string out;
  char line[160];
  std::snprintf(line, sizeof line, "%-22s %12s %12s %12s %10s\n", "section", "min (s)", "max (s)", "mean (s)",
                "calls");
  out += line;
  for (const Row& r : rows) {
    std::snprintf(line, sizeof line, "%-22s %12.4f %12.4f %12.4f %10ld\n", r.name.c_str(), r.min_s, r.max_s,
                  r.mean_s, r.calls);
    out += line;
  }
  return out;
}

}  // namespace haloex
