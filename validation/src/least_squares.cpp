#include "alloclab/validation/least_squares.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <cmath>

namespace alloclab::validation {

namespace {
std::string column_name(const LinearProblem& p, std::size_t j) {
  return j < p.column_names.size() ? p.column_names[j] : fmt::format("column {}", j);
}
}  // namespace

LinearFit least_squares(const LinearProblem& p) {
  const std::size_t n = p.rows.size();
  const std::size_t cols = n ? p.rows[0].size() : p.column_names.size();
  if (cols == 0) throw LeastSquaresError("least squares: no parameters (the design has 0 columns)");
  if (p.y.size() != n)
    throw LeastSquaresError(
        fmt::format("least squares: {} design rows but {} observations", n, p.y.size()));
  if (!p.weights.empty() && p.weights.size() != n)
    throw LeastSquaresError(
        fmt::format("least squares: {} observations but {} weights", n, p.weights.size()));
  if (n < cols)
    throw LeastSquaresError(fmt::format(
        "least squares: {} points for {} parameters; need at least as many points as parameters", n,
        cols));

  Eigen::MatrixXd X(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(cols));
  Eigen::VectorXd b(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) {
    if (p.rows[i].size() != cols)
      throw LeastSquaresError(fmt::format("least squares: row {} has {} values, expected {}", i,
                                          p.rows[i].size(), cols));
    const double wt = p.weights.empty() ? 1.0 : p.weights[i];
    if (!std::isfinite(wt) || wt < 0)
      throw LeastSquaresError(fmt::format("least squares: weight {} of row {} is not >= 0", wt, i));
    if (!std::isfinite(p.y[i]))
      throw LeastSquaresError(fmt::format("least squares: observation {} is not finite", i));
    // Weighted least squares = ordinary least squares on rows scaled by sqrt(w).
    const double s = std::sqrt(wt);
    for (std::size_t j = 0; j < cols; ++j) {
      if (!std::isfinite(p.rows[i][j]))
        throw LeastSquaresError(
            fmt::format("least squares: {} of row {} is not finite", column_name(p, j), i));
      X(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = s * p.rows[i][j];
    }
    b(static_cast<Eigen::Index>(i)) = s * p.y[i];
  }
  // Column equilibration: kernel-time features range from 1 (intercept) to ~1e9 (total probes);
  // unscaled, QR's relative rank threshold would compare incomparable columns.
  Eigen::VectorXd scale(static_cast<Eigen::Index>(cols));
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    const double m = X.col(j).cwiseAbs().maxCoeff();
    if (m == 0)
      throw LeastSquaresError(
          fmt::format("least squares: singular design: {} is zero at every (weighted) point",
                      column_name(p, static_cast<std::size_t>(j))));
    scale(j) = m;
    X.col(j) /= m;
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(X);
  qr.setThreshold(1e-10);
  if (qr.rank() < X.cols()) {
    // The last pivoted columns are the ones QR found dependent on the others.
    std::string dependent;
    for (Eigen::Index k = qr.rank(); k < X.cols(); ++k)
      dependent += (dependent.empty() ? "" : ", ") +
                   column_name(p, static_cast<std::size_t>(qr.colsPermutation().indices()(k)));
    throw LeastSquaresError(fmt::format(
        "least squares: singular design: rank {} < {} parameters ({} linearly dependent on the "
        "other columns at these points)",
        qr.rank(), X.cols(), dependent));
  }
  const Eigen::VectorXd scaled_beta = qr.solve(b);

  LinearFit fit;
  fit.rank = static_cast<int>(qr.rank());
  fit.coefficients.resize(cols);
  for (std::size_t j = 0; j < cols; ++j)
    fit.coefficients[j] =
        scaled_beta(static_cast<Eigen::Index>(j)) / scale(static_cast<Eigen::Index>(j));
  fit.fitted.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    double v = 0;
    for (std::size_t j = 0; j < cols; ++j) v += p.rows[i][j] * fit.coefficients[j];
    fit.fitted[i] = v;
    const double wt = p.weights.empty() ? 1.0 : p.weights[i];
    fit.weighted_rss += wt * (p.y[i] - v) * (p.y[i] - v);
  }
  // R^2 needs a non-constant y; with fewer than 2 points or constant y it is left at 0 rather
  // than failing the whole fit (an exact fit through 1 point is still a fit).
  double mean = 0;
  for (double v : p.y) mean += v;
  mean /= static_cast<double>(n);
  double ss_tot = 0;
  for (double v : p.y) ss_tot += (v - mean) * (v - mean);
  if (n >= 2 && ss_tot > 0) fit.r_squared = r_squared(p.y, fit.fitted);
  return fit;
}

double r_squared(const std::vector<double>& y, const std::vector<double>& predicted) {
  if (y.size() != predicted.size())
    throw LeastSquaresError(
        fmt::format("R^2: {} observations but {} predictions", y.size(), predicted.size()));
  if (y.size() < 2) throw LeastSquaresError("R^2: needs at least 2 observations");
  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(y.size());
  double ss_res = 0, ss_tot = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    ss_res += (y[i] - predicted[i]) * (y[i] - predicted[i]);
    ss_tot += (y[i] - mean) * (y[i] - mean);
  }
  if (ss_tot == 0) throw LeastSquaresError("R^2: undefined, the observations are all equal");
  return 1.0 - ss_res / ss_tot;
}

}  // namespace alloclab::validation
