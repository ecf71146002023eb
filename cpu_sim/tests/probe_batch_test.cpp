#include <catch2/catch.hpp>

#include "alloclab/core/probe_sequence.hpp"
#include "detail.hpp"

using namespace alloclab;

TEST_CASE("batched probe numbers equal core/probe_sequence.hpp", "[cpu_sim][probe]") {
  for (std::uint64_t seed : {0ULL, 1ULL, 0xdeadbeefcafef00dULL})
    for (std::uint64_t thread : {0ULL, 5ULL, 4000000000ULL})
      for (std::uint64_t k0 : {0ULL, 16ULL, 1ULL << 33}) {
        std::uint64_t buf[sim::detail::kProbeBatch];
        sim::detail::probe_bits_batch(seed, thread, k0, buf);
        for (unsigned j = 0; j < sim::detail::kProbeBatch; ++j)
          CHECK(buf[j] == probe_bits(seed, thread, k0 + j));
      }
  // Even probes are the stream's plain numbers: probe 2j == bits(j).
  const PhiloxStream st(3, StreamDomain::probe, 9);
  for (std::uint64_t j = 0; j < 10; ++j) CHECK(probe_bits(3, 9, 2 * j) == st.bits(j));
  CHECK(rw_probe_page(3, 9, 5, 1000) == mul_high_u64(probe_bits(3, 9, 5), 1000));
}
