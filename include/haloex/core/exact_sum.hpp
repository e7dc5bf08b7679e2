#pragma once
// Exact summation of doubles: a fixed-point accumulator wide enough for the
// whole double range, so a total does not depend on the order of the terms
// and is the same to the last bit for any number of ranks and threads.
#include <mpi.h>

#include <array>
#include <cstdint>

namespace haloex {

/// An exact running sum of doubles (the strongest form of compensated sum).
class ExactSum {
 public:
  /// Add one term (NaN and infinities are counted and poison the value).
  void add(double x);
  /// Add another accumulator (exact, so threads may merge in any order).
  ExactSum& operator+=(const ExactSum& o);
  /// The sum rounded to a double; deterministic for a given exact total.
  double value() const;
  /// Replace this rank's sum by the total over `comm` (collective).
  void allreduce(MPI_Comm comm);

 private:
  // 32 value bits per limb from 2^-1074 up; int64 limbs leave room for 2^30
  // additions between carry propagations.
  static constexpr int limbs = 68;
  void normalise();
  std::array<int64_t, limbs> limb_{};
  int64_t pending_ = 0;
  int64_t nonfinite_ = 0;
  double nonfinite_sum_ = 0;  // carries the sign/NaN of non-finite terms
};

}  // namespace haloex
