// The reference the GPU join is checked against (issue 17): the join of R and S computed on the
// host the plain way, by indexing R's payloads by key (R's keys are exactly 0 .. build - 1,
// tables.hpp) and scanning S, independent of the partitioned hash join under test. The output is
// compared by its count and an order-independent checksum (the sum of result_hash over the
// result tuples, modulo 2^64).
#pragma once

#include <cstdint>
#include <vector>

#include "alloclab/core/join/tables.hpp"

namespace alloclab::join {

struct JoinOutput {
  std::uint64_t tuples = 0;
  std::uint64_t checksum = 0;
  friend bool operator==(const JoinOutput&, const JoinOutput&) = default;
};

inline JoinOutput reference_join(const JoinTables& t) {
  std::vector<std::uint32_t> payload_of_key(t.build);
  for (std::uint64_t i = 0; i < t.build; ++i) payload_of_key[build_key(t, i)] = build_payload(t, i);
  JoinOutput out;
  for (std::uint64_t i = 0; i < t.probe; ++i) {
    const std::uint32_t k = probe_key(t, i);
    if (!matches(t, k)) continue;
    ++out.tuples;
    out.checksum += result_hash(payload_of_key[k], probe_payload(t, i));
  }
  return out;
}

}  // namespace alloclab::join
