#include <catch2/catch.hpp>

#include <cstdint>
#include <tuple>
#include <vector>

#include "alloclab/model/model.hpp"
#include "reference.hpp"

using namespace alloclab::model;

namespace {
// (N, A, T): A = N, A = N+1, A/T from 0.5 to 0.001, T from 1e3 to 2^32.
std::vector<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> grid() {
  std::vector<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> g;
  for (std::uint64_t T : {1000ull, 1000000ull, 4294967296ull})
    for (std::uint64_t N : {1ull, 7ull, 300ull, 5000ull, 20000ull}) {
      for (double f : {0.5, 0.1, 0.01, 0.001}) {
        const auto A = static_cast<std::uint64_t>(f * static_cast<double>(T));
        if (A >= N) g.emplace_back(N, A, T);
      }
      if (N <= T) g.emplace_back(N, N, T);
      if (N + 1 <= T) g.emplace_back(N, N + 1, T);
    }
  return g;
}
}  // namespace

TEST_CASE("RW TAS exact harmonic form vs 50-digit sums", "[model][tas]") {
  for (auto [N, A, T] : grid()) {
    INFO("N=" << N << " A=" << A << " T=" << T);
    const ref::mp want = ref::mp(T) / N * ref::harmonic_difference(A, A - N);
    CHECK(ref::rel(rw_tas_exact(N, A, T), want) < 1e-12);
    if (A > N)
      CHECK(ref::rel(*rw_tas_log_approx(N, A, T), ref::mp(T) / N * log(ref::mp(A) / (A - N))) <
            1e-12);
  }
  CHECK_FALSE(rw_tas_log_approx(10, 10, 100).has_value());
}

TEST_CASE("RW-BM TAS Eq. (4) vs 50-digit direct sums, w in {1, 32, 64}", "[model][tas]") {
  for (unsigned w : {1u, 32u, 64u, 7u})
    for (auto [N, A, T] : grid()) {
      if (N > 5000) continue;  // keep the 50-digit reference quick
      INFO("w=" << w << " N=" << N << " A=" << A << " T=" << T);
      CHECK(ref::rel(rwbm_tas(N, A, T, w), ref::rwbm_tas(N, A, T, w)) < 1e-11);
    }
}

TEST_CASE("RW-BM TAS with w = 1 is the exact RW harmonic form", "[model][tas]") {
  CHECK(rwbm_tas(5000, 5000, 1000000, 1) ==
        Approx(rw_tas_exact(5000, 5000, 1000000)).epsilon(1e-15));
}
