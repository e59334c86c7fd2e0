#pragma once
// Robust straight-line fits for the OOM forecast (forecast.h): the Theil-Sen estimator (the median of the
// slopes of all pairs of points), with Sen's confidence interval for the slope, and quantiles. A few
// outliers (a checkpoint spike, an evaluation pass) move neither the slope nor the intercept: up to about
// 29 % of the points can be anywhere.

#include <cstddef>
#include <vector>

namespace oomscope::live {

struct LineFit {
  int points = 0;  // 0: no fit (fewer than two points with distinct x)
  double slope = 0, intercept = 0;
  double slope_lo = 0, slope_hi = 0;  // Sen's two-sided 95 % interval for the slope
  double at(double x) const { return intercept + slope * x; }
};

// x and y of equal size. Pairs with equal x are skipped. O(n^2 log n): meant for tens of points.
LineFit theil_sen(const std::vector<double>& x, const std::vector<double>& y);

// The q-quantile (0..1) of v, by linear interpolation between order statistics; 0 for an empty v.
double quantile(std::vector<double> v, double q);

}  // namespace oomscope::live
