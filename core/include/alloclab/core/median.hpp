// The median of a list of measured times: what `measure` reports over its timed repeats and
// `workload --repeats` over a trial's repeats (one definition for every backend).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace alloclab {

// The median of `values` (not empty): the middle value of an odd count, the mean of the two middle
// values of an even count.
inline double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace alloclab
