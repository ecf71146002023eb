// What the Ouroboros models of a sequential schedule (ouro_p_*.cpp, ouro_c_*.cpp) share: the
// scenario they cover (one class on an empty pool), its class and growers, tas and was from the
// steps of each request in service order, and for variant C its steps over a standard ring
// (ouro_c_s.cpp's comment counts them), which C over VA and VL adds to, its domain and its record.
#pragma once

#include <cstdint>

#include "alloclab/core/ouroboros/chunk_queue_chunks.hpp"
#include "alloclab/core/ouroboros/chunk_state.hpp"
#include "alloclab/core/ouroboros/config.hpp"
#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/model/model.hpp"

namespace alloclab::model {

inline unsigned ouro_class_of(const Scenario& s) {
  return ouro::page_class_of_units(s.pages);
}

// What every model here assumes: an empty pool (A = T) of at least one chunk, and requests of
// 1 .. 512 units (one class).
inline bool ouro_one_class_empty_pool(const Scenario& s) {
  return s.A == s.T && s.T >= ouro::kUnitsPerChunk && s.pages >= 1 &&
         s.pages <= ouro::kUnitsPerChunk;
}

// Requests that grow their class by a chunk: ceil(N / p).
inline std::uint64_t ouro_growers(const Scenario& s) {
  const std::uint64_t p = ouro::pages_per_chunk(ouro_class_of(s));
  return (s.N + p - 1) / p;
}

// ouro-c-s: the steps of the request served r-th, with p pages per chunk and W mask words.
inline std::uint64_t ouro_c_s_steps(std::uint64_t r, std::uint64_t p, std::uint64_t W) {
  const std::uint64_t j = r % p;
  return (j == 0 ? 27 + W : 8 + j / 64) + (j == p - 1 ? 6 : 0);
}

// Variant C's domain: one class on an empty pool with a chunk for every grower beside the `kept`
// chunks its queue keeps, within the class's 2^20 pages.
inline bool ouro_c_applies(const Scenario& s, std::uint64_t kept) {
  if (!ouro_one_class_empty_pool(s)) return false;
  const std::uint64_t p = ouro::pages_per_chunk(ouro_class_of(s));
  return ouro_growers(s) + kept <= ouro::chunk_count_of_units(s.T) &&
         ouro_growers(s) * p <= ouro::kDefaultQueueCapacity;
}

// Variant C over VA or VL: the Queue-Chunks a class keeps in the pool, for ouro-c-s's ring.
inline std::uint64_t ouro_c_queue_reserve(const Scenario& s, std::uint32_t trail) {
  return ouro::chunk_queue_reserve(ouro::chunk_ring_capacity(ouro::chunk_count_of_units(s.T)),
                                   trail);
}

// tas = the mean of steps_of(r) over the N requests, was = the mean over warps of `lanes`
// consecutive requests of their max.
template <class StepsOf>
void set_sequential_tas_was(Record& r, const Scenario& s, StepsOf steps_of) {
  std::uint64_t total = 0, warp_max_sum = 0, warp_max = 0;
  const std::uint64_t L = s.lanes;
  for (std::uint64_t i = 0; i < s.N; ++i) {
    const std::uint64_t x = steps_of(i);
    total += x;
    warp_max = x > warp_max ? x : warp_max;
    if ((i + 1) % L == 0 || i + 1 == s.N) {
      warp_max_sum += warp_max;
      warp_max = 0;
    }
  }
  const std::uint64_t warps = (s.N + L - 1) / L;
  r.set("tas", static_cast<double>(total) / static_cast<double>(s.N));
  r.set("was", static_cast<double>(warp_max_sum) / static_cast<double>(warps));
}

// Variant C's record: tas and was from steps_of(r, p, W) (p pages per chunk, W mask words), and
// the chunks typed.
template <class StepsOf>
Record ouro_c_record(const Scenario& s, StepsOf steps_of) {
  Record r = scenario_record(s);
  const unsigned k = ouro_class_of(s);
  const std::uint64_t p = ouro::pages_per_chunk(k), W = ouro::mask_words(k);
  set_sequential_tas_was(r, s, [&](std::uint64_t i) { return steps_of(i, p, W); });
  r.set_int("chunks", ouro_growers(s));
  return r;
}

}  // namespace alloclab::model
