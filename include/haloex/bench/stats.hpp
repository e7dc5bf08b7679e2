#pragma once
// Summary statistics of benchmark samples.
#include <cstddef>
#include <vector>

namespace haloex {

/// Summary of a set of samples. `stddev` is the population standard
/// deviation (1/N, as the 2016 paper's error bars); the 95% confidence
/// interval of the mean uses the sample standard deviation and Student's t.
struct Summary {
  size_t n = 0;  ///< number of samples
  /// Mean, median, population and sample standard deviations, smallest and
  /// largest sample.
  /// @{
  double mean = 0, median = 0, stddev = 0, sample_stddev = 0, min = 0, max = 0;
  /// @}
  /// The 95% confidence interval of the mean.
  /// @{
  double ci95_low = 0, ci95_high = 0;
  /// @}
};

/// Summarise samples (an empty set gives all zeros).
Summary summarize(std::vector<double> samples);

/// Two-sided 95% quantile of Student's t with `dof` degrees of freedom.
double t_quantile_975(size_t dof);

}  // namespace haloex
