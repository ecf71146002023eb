// Zipf-distributed ranks for the hash join's skewed probe table (issue 17, `--skew z`): rank k in
// {1, ..., n} with probability k^-z / H(n, z), drawn by rejection-inversion (W. Hormann and
// G. Derflinger, "Rejection-inversion to generate variates from monotone discrete distributions",
// ACM TOMACS 6(3), 1996): O(1) time and memory for any n, no table of the CDF, so the GPU draws a
// tuple's key where it needs it from the tuple's own Philox stream. z = 0 is the uniform
// distribution; any z > 0 works (z = 1 included: H below is written with expm1/log1p so that
// 1 - z = 0 is its limit).
#pragma once

#include <cmath>
#include <cstdint>

#include "alloclab/core/hd.hpp"

namespace alloclab::join {

class ZipfSampler {
 public:
  // n >= 1 ranks, exponent z >= 0.
  ALLOCLAB_HD ZipfSampler(std::uint64_t n, double z) : n_(n), z_(z) {
    if (z_ > 0) {
      h_x1_ = H(1.5) - 1.0;
      h_n_ = H(static_cast<double>(n_) + 0.5);
      threshold_ = 2.0 - H_inverse(H(2.5) - h(2.0));
    }
  }

  // A rank in [1, n] from uniform numbers in [0, 1): `uniform(j)` gives the j-th one (j = 0, 1,
  // ...). Expected draws per rank about 1 (at most 1.06 for any z, the paper); bounded at 64,
  // after which the last candidate is returned (probability below 10^-70).
  template <class Uniform>
  ALLOCLAB_HD std::uint64_t operator()(Uniform&& uniform) const {
    if (z_ == 0 || n_ == 1)
      return 1 + static_cast<std::uint64_t>(uniform(0) * static_cast<double>(n_)) % n_;
    std::uint64_t k = 1;
    for (unsigned j = 0; j < 64; ++j) {
      const double u = h_n_ + uniform(j) * (h_x1_ - h_n_);
      const double x = H_inverse(u);
      double kd = std::floor(x + 0.5);
      if (kd < 1) kd = 1;
      if (kd > static_cast<double>(n_)) kd = static_cast<double>(n_);
      k = static_cast<std::uint64_t>(kd);
      if (kd - x <= threshold_ || u >= H(kd + 0.5) - h(kd)) return k;
    }
    return k;
  }

  // P(rank = k), for tests: k^-z / sum_{j <= n} j^-z (O(n)).
  double probability(std::uint64_t k) const {
    double sum = 0;
    for (std::uint64_t j = 1; j <= n_; ++j) sum += std::pow(static_cast<double>(j), -z_);
    return std::pow(static_cast<double>(k), -z_) / sum;
  }

 private:
  // h(x) = x^-z, and H, an antiderivative: (x^(1-z) - 1) / (1 - z), log x at z = 1.
  ALLOCLAB_HD double h(double x) const { return std::exp(-z_ * std::log(x)); }
  ALLOCLAB_HD double H(double x) const {
    const double log_x = std::log(x);
    return expm1_over_x((1.0 - z_) * log_x) * log_x;
  }
  ALLOCLAB_HD double H_inverse(double x) const {
    double t = x * (1.0 - z_);
    if (t < -1.0) t = -1.0;  // rounding at the lower end
    return std::exp(log1p_over_x(t) * x);
  }
  ALLOCLAB_HD static double expm1_over_x(double x) {
    return std::fabs(x) > 1e-8 ? std::expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x / 3.0);
  }
  ALLOCLAB_HD static double log1p_over_x(double x) {
    return std::fabs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x * (0.5 - x / 3.0);
  }

  std::uint64_t n_;
  double z_;
  double h_x1_ = 0, h_n_ = 0, threshold_ = 0;
};

}  // namespace alloclab::join
