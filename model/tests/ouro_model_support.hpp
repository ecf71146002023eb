// What the Ouroboros model tests (ouro_p_s_model_test.cpp, ouro_c_s_model_test.cpp) share: the
// model of an allocator at N requests of `units` 16 B units on an empty pool of T units.
#pragma once

#include <cstdint>

#include "alloclab/model/model.hpp"

namespace alloclab::model::test {

inline Record ouro_model_at(Algorithm algo, std::uint64_t N, unsigned units,
                            std::uint64_t T = 1 << 20, unsigned lanes = 32) {
  Scenario s;
  s.algo = algo;
  s.N = N;
  s.A = s.T = T;
  s.pages = units;
  s.lanes = lanes;
  return evaluate(s);
}

}  // namespace alloclab::model::test
