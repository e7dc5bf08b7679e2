#include "haloex/core/exact_sum.hpp"

#include <cmath>
#include <limits>

#include "haloex/core/mpi.hpp"

namespace haloex {

void ExactSum::add(double x) {
  if (x == 0) return;
  if (!std::isfinite(x)) {
    ++nonfinite_;
    nonfinite_sum_ += x;
    return;
  }
  int e = 0;
  const double m = std::frexp(x, &e);                            // x = m * 2^e, 0.5 <= |m| < 1
  const int64_t mant = static_cast<int64_t>(std::ldexp(m, 53));  // exact
  int pos = e - 53 + 1074;                                       // bit position of the mantissa's lowest bit
  uint64_t mag = static_cast<uint64_t>(mant < 0 ? -mant : mant);
  if (pos < 0) {  // subnormal: the low bits are zero, drop them
    mag >>= -pos;
    pos = 0;
  }
  const int bin = pos / 32, shift = pos % 32;
  // mag << shift has at most 85 bits: low 64 bits and the rest.
  const uint64_t low = mag << shift, high = shift ? mag >> (64 - shift) : 0;
  const int64_t sign = mant < 0 ? -1 : 1;
  limb_[bin] += sign * static_cast<int64_t>(low & 0xffffffffu);
  limb_[bin + 1] += sign * static_cast<int64_t>(low >> 32);
  limb_[bin + 2] += sign * static_cast<int64_t>(high);
  if (++pending_ >= (int64_t{1} << 30)) normalise();
}

void ExactSum::normalise() {
  for (int k = 0; k + 1 < limbs; ++k) {
    const int64_t carry = limb_[k] >> 32;  // floor division by 2^32
    limb_[k] -= carry * (int64_t{1} << 32);
    limb_[k + 1] += carry;
  }
  pending_ = 0;
}

ExactSum& ExactSum::operator+=(const ExactSum& o) {
  ExactSum b = o;
  b.normalise();
  normalise();
  for (int k = 0; k < limbs; ++k) limb_[k] += b.limb_[k];
  nonfinite_ += o.nonfinite_;
  nonfinite_sum_ += o.nonfinite_sum_;
  normalise();
  return *this;
}

double ExactSum::value() const {
  if (nonfinite_) return nonfinite_sum_;
  ExactSum n = *this;
  n.normalise();
  // A negative total has all-ones upper limbs: take its magnitude first.
  const bool negative = n.limb_[limbs - 1] < 0;
  if (negative) {
    for (int64_t& l : n.limb_) l = -l;
    n.normalise();
  }
  // Lower limbs are now in [0, 2^32) and only the top one carries the sign;
  // adding from the least significant up keeps the rounding error tiny.
  double r = 0;
  for (int k = 0; k < limbs; ++k)
    if (n.limb_[k] != 0) r += std::ldexp(static_cast<double>(n.limb_[k]), 32 * k - 1074);
  return negative ? -r : r;
}

void ExactSum::allreduce(MPI_Comm comm) {
  normalise();
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, limb_.data(), limbs, MPI_INT64_T, MPI_SUM, comm), "MPI_Allreduce");
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &nonfinite_, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Allreduce");
  if (nonfinite_) {
    // Any NaN anywhere makes the total NaN; otherwise the sum of infinities.
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, &nonfinite_sum_, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
    if (nonfinite_sum_ == 0) nonfinite_sum_ = std::numeric_limits<double>::quiet_NaN();
  }
  normalise();
}

}  // namespace haloex
