// Theil-Sen fits and quantiles (see robust_fit.h).

#include "core/live/client/robust_fit.h"

#include <algorithm>
#include <cmath>

namespace oomscope::live {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

LineFit theil_sen(const std::vector<double>& x, const std::vector<double>& y) {
  LineFit fit;
  const std::size_t n = std::min(x.size(), y.size());
  std::vector<double> slopes;
  slopes.reserve(n * (n - (n > 0 ? 1 : 0)) / 2);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (x[j] != x[i]) slopes.push_back((y[j] - y[i]) / (x[j] - x[i]));
  if (slopes.empty()) return fit;
  std::sort(slopes.begin(), slopes.end());
  const auto m = static_cast<double>(slopes.size());
  auto at_rank = [&](double r) {  // r: 1-based rank, clamped and interpolated
    r = std::clamp(r, 1.0, m);
    const auto lo = static_cast<std::size_t>(std::floor(r)) - 1;
    const std::size_t hi = std::min(lo + 1, slopes.size() - 1);
    return slopes[lo] + (slopes[hi] - slopes[lo]) * (r - std::floor(r));
  };
  fit.slope = at_rank((m + 1) / 2);
  // Sen (1968): C = z * sqrt(n (n - 1) (2n + 5) / 18); the interval is the slopes of rank (M - C) / 2 and
  // (M + C) / 2 + 1.
  const auto dn = static_cast<double>(n);
  const double c = 1.96 * std::sqrt(dn * (dn - 1) * (2 * dn + 5) / 18);
  fit.slope_lo = at_rank((m - c) / 2);
  fit.slope_hi = at_rank((m + c) / 2 + 1);
  std::vector<double> rest(n);
  for (std::size_t i = 0; i < n; ++i) rest[i] = y[i] - fit.slope * x[i];
  fit.intercept = quantile(std::move(rest), 0.5);
  fit.points = static_cast<int>(n);
  return fit;
}

}  // namespace oomscope::live
