#pragma once
// Named wall-clock sections summed over a run and reduced over ranks for the
// timer table (min/max/mean over ranks, as load imbalance shows there).
#include <mpi.h>

#include <string>
#include <vector>

namespace haloex {

/// Accumulated time and calls per named section, in a fixed order.
class Timers {
 public:
  /// One section reduced over ranks.
  struct Row {
    std::string name;  ///< the section
    /// Seconds in the section: the least, the most and the mean over ranks.
    /// @{
    double min_s = 0, max_s = 0, mean_s = 0;
    /// @}
    long calls = 0;  ///< calls on rank 0
  };
  /// Declare the sections up front so every rank lists them in one order.
  explicit Timers(std::vector<std::string> sections);
  /// Add time (and calls) to a declared section.
  void add(int section, double seconds, long calls = 1);
  /// Set a section's totals (for times measured elsewhere).
  void set(int section, double seconds, long calls);
  /// Seconds summed in a section on this rank.
  double seconds(int section) const { return time_[section]; }
  /// Calls counted in a section on this rank.
  long calls(int section) const { return calls_[section]; }
  /// Zero every section (after a warm-up, say).
  void reset();
  /// Collective: each section's min, max and mean over the ranks of comm.
  std::vector<Row> reduce(MPI_Comm comm) const;
  /// An aligned table of reduced rows.
  static std::string format(const std::vector<Row>& rows);

 private:
  std::vector<std::string> names_;
  std::vector<double> time_;
  std::vector<long> calls_;
};

/// Adds the time from construction to destruction to a section.
class ScopedTimer {
 public:
  /// Start timing `section` of `t`.
  ScopedTimer(Timers& t, int section) : t_(t), section_(section), t0_(MPI_Wtime()) {}
  ~ScopedTimer() { t_.add(section_, MPI_Wtime() - t0_); }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  Timers& t_;
  int section_;
  double t0_;
};

}  // namespace haloex
