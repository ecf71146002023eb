// Linear least squares for the kernel-time fit (and anything else that needs one): ordinary or
// weighted, solved with Eigen's column-pivoting Householder QR, with the goodness-of-fit numbers
// the report prints. Bad input (fewer points than parameters, a rank-deficient design, non-finite
// values, negative weights) throws LeastSquaresError with a message that says what is wrong.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace alloclab::validation {

class LeastSquaresError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The design matrix as rows (one per observation, one column per parameter), so callers need no
// Eigen in their headers.
struct LinearProblem {
  std::vector<std::vector<double>> rows;  // X, n x p
  std::vector<double> y;                  // n observations
  std::vector<double> weights;  // empty: all 1; else n weights >= 0 (on squared residuals)
  std::vector<std::string> column_names;  // optional, p names: used in error messages
};

struct LinearFit {
  std::vector<double> coefficients;  // p values, in column order
  std::vector<double> fitted;        // X * coefficients, n values
  double r_squared = 0;     // 1 - sum (y - fitted)^2 / sum (y - mean y)^2, UNweighted, on this data
  double weighted_rss = 0;  // sum w_i (y_i - fitted_i)^2 (equals the RSS when unweighted)
  int rank = 0;
};

// Minimises sum_i w_i (y_i - x_i . beta)^2. Columns are scaled to unit max-norm before the QR
// (kernel-time features span 1 to 1e9), so the rank decision is made on comparable columns;
// a column is dependent when QR's pivot falls below 1e-10 of the largest (relative threshold).
LinearFit least_squares(const LinearProblem& problem);

// 1 - sum (y - yhat)^2 / sum (y - mean y)^2. Throws LeastSquaresError if sizes differ, there are
// fewer than 2 values or y is constant (R^2 undefined).
double r_squared(const std::vector<double>& y, const std::vector<double>& predicted);

}  // namespace alloclab::validation
