// What the Ouroboros models of a sequential schedule (ouro_c_s.cpp, ouro_c_va.cpp, ouro_c_vl.cpp,
// ouro_p_va.cpp, ouro_p_vl.cpp) share: the class and the growers of a one-class scenario, tas and
// was from the steps of each request in service order, and variant C's steps over a standard
// ring (ouro_c_s.cpp's comment counts them), which C over VA and VL adds to.
#pragma once

#include <cstdint>

#include "alloclab/core/ouroboros/layout.hpp"
#include "alloclab/model/model.hpp"

namespace alloclab::model {

inline unsigned ouro_class_of(const Scenario& s) {
  return ouro::page_class_of_units(s.pages);
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

}  // namespace alloclab::model
