#include "alloclab/model/ouro_walk.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace alloclab::model {

double walk_of_lanes_together(std::span<const std::uint32_t> free_per_entry, std::uint64_t lanes) {
  if (lanes == 0) throw std::invalid_argument("walk_of_lanes_together: no lanes");
  std::uint64_t left = lanes;
  long double sum = 0;
  for (std::size_t position = 0; position < free_per_entry.size() && left > 0; ++position) {
    const std::uint64_t served = std::min<std::uint64_t>(left, free_per_entry[position]);
    sum += static_cast<long double>(served) * static_cast<long double>(position);
    left -= served;
  }
  if (left > 0)
    throw std::invalid_argument("walk_of_lanes_together: the entries hold fewer free pages than " +
                                std::to_string(lanes) + " lanes take");
  return static_cast<double>(sum / static_cast<long double>(lanes));
}

double walk_uniform(std::uint64_t lanes, std::uint32_t free_per_chunk, std::uint64_t dead_ahead) {
  if (lanes == 0 || free_per_chunk == 0)
    throw std::invalid_argument("walk_uniform: lanes and free pages per chunk must be positive");
  // Lanes 0 .. f-1 are served at the first live entry, f .. 2f-1 at the next, ...: q full
  // entries contribute f (0 + 1 + ... + q-1), the last r lanes q each.
  const long double f = free_per_chunk;
  const std::uint64_t q = lanes / free_per_chunk;
  const std::uint64_t r = lanes % free_per_chunk;
  const long double qd = static_cast<long double>(q);
  const long double sum = f * qd * (qd - 1) / 2 + static_cast<long double>(r) * qd;
  return static_cast<double>(static_cast<long double>(dead_ahead) +
                             sum / static_cast<long double>(lanes));
}

double walk_after_refill(std::uint64_t queued_chunks) {
  if (queued_chunks == 0) throw std::invalid_argument("walk_after_refill: no queued chunk");
  return (static_cast<double>(queued_chunks) - 1) / 2;
}

std::uint64_t lanes_walking_together(double walk, std::uint32_t free_per_chunk) {
  if (free_per_chunk == 0)
    throw std::invalid_argument("lanes_walking_together: free pages per chunk must be positive");
  if (!(walk > 0)) return 1;
  // walk_uniform grows with c (each added lane walks at least as far as the mean): bisection on
  // c between 1 and a bound where c / (2f) - 1/2 already exceeds the walk.
  std::uint64_t lo = 1;
  std::uint64_t hi = static_cast<std::uint64_t>(2 * (walk + 1) * free_per_chunk) + 2;
  while (walk_uniform(hi, free_per_chunk, 0) < walk) hi *= 2;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (walk_uniform(mid, free_per_chunk, 0) < walk)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace alloclab::model
