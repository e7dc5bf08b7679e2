#include "haloex/bench/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace haloex {

double t_quantile_975(size_t dof) {
  static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof == 0) return 0.0;
  if (dof <= 30) return table[dof - 1];
  // Beyond the table, linear in 1/dof between t(30), t(60), t(120) and the
  // normal limit t(inf) = 1.960: the quantile is close to linear in 1/dof,
  // far from linear in dof.
  const double x = 1.0 / static_cast<double>(dof);
  if (dof <= 60) return 2.000 + (2.042 - 2.000) * (x - 1.0 / 60) / (1.0 / 30 - 1.0 / 60);
  if (dof <= 120) return 1.980 + (2.000 - 1.980) * (x - 1.0 / 120) / (1.0 / 60 - 1.0 / 120);
  return 1.960 + (1.980 - 1.960) * x / (1.0 / 120);
}

Summary summarize(std::vector<double> v) {
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  s.min = v.front();
  s.max = v.back();
  s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.stddev = std::sqrt(ss / n);
  s.sample_stddev = v.size() > 1 ? std::sqrt(ss / (n - 1)) : 0.0;
  const double half = t_quantile_975(v.size() - 1) * s.sample_stddev / std::sqrt(n);
  s.ci95_low = s.mean - half;
  s.ci95_high = s.mean + half;
  return s;
}

}  // namespace haloex
