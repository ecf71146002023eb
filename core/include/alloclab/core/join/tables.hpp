// The hash join case study's tables (issue 17; paper 000 §5.2.3), generated where they are needed
// (host or device) from counter-based streams, so a tuple is a pure function of (spec, index):
//   R (build), `build` tuples: key = a keyed permutation of 0 .. build - 1 (unique keys, shuffled;
//     core/pool.hpp's PagePermutation), payload from mix64;
//   S (probe), `probe` tuples: key = a rank in 0 .. key_range - 1, uniform (skew 0) or Zipf with
//     exponent `skew` (zipf.hpp: rank 0 the most frequent); payload from mix64.
// An S tuple matches exactly when its key < build (R holds every key below it once), so the
// selectivity is build / key_range under the uniform draw, and under skew the hottest keys are the
// smallest ranks, all present in R: hot keys make hot output, the allocator's stress.
// Keys and payloads are 32-bit, as the paper's join.
#pragma once

#include <cstdint>
#include <string>

#include "alloclab/core/hd.hpp"
#include "alloclab/core/join/zipf.hpp"
#include "alloclab/core/pool.hpp"
#include "alloclab/core/random_stream.hpp"

namespace alloclab::join {

struct JoinTables {
  std::uint64_t build = 0;      // |R|
  std::uint64_t probe = 0;      // |S|
  std::uint64_t key_range = 0;  // S keys in [0, key_range); key_range >= build
  double skew = 0;              // Zipf exponent of S's keys; 0: uniform
  std::uint64_t seed = 1;
};

inline constexpr std::uint64_t kMaxJoinTuples = std::uint64_t{1} << 32;  // 32-bit keys
inline constexpr double kMaxJoinSkew = 4.0;

// "" when the spec is valid, else one line naming the parameter.
inline std::string join_tables_error(const JoinTables& t) {
  if (t.build == 0) return "--tuples: a build table of 0 tuples";
  if (t.probe == 0) return "--tuples: a probe table of 0 tuples";
  if (t.build > kMaxJoinTuples || t.probe > kMaxJoinTuples)
    return "--tuples: more than 2^32 tuples (keys are 32-bit)";
  if (t.key_range < t.build || t.key_range > kMaxJoinTuples)
    return "--key-range: " + std::to_string(t.key_range) + " must lie in [build tuples " +
           std::to_string(t.build) + ", 2^32]";
  if (!(t.skew >= 0 && t.skew <= kMaxJoinSkew))
    return "--skew: " + std::to_string(t.skew) + " outside [0, 4]";
  return {};
}

ALLOCLAB_HD std::uint32_t build_key(const JoinTables& t, std::uint64_t i) {
  return static_cast<std::uint32_t>(PagePermutation(t.build, t.seed)(i));
}
ALLOCLAB_HD std::uint32_t build_payload(const JoinTables& t, std::uint64_t i) {
  return static_cast<std::uint32_t>(mix64(t.seed ^ (i * 0x9e3779b97f4a7c15ull) ^ 0x5215ull));
}
ALLOCLAB_HD std::uint32_t probe_key(const JoinTables& t, std::uint64_t i) {
  const PhiloxStream stream(t.seed, StreamDomain::workload, i);
  const ZipfSampler zipf(t.key_range, t.skew);
  return static_cast<std::uint32_t>(zipf([&](unsigned j) { return stream.uniform01(j); }) - 1);
}
ALLOCLAB_HD std::uint32_t probe_payload(const JoinTables& t, std::uint64_t i) {
  return static_cast<std::uint32_t>(mix64(~t.seed ^ (i * 0xc2b2ae3d27d4eb4full) ^ 0x5u));
}
// Whether S's tuple with this key finds a partner in R.
ALLOCLAB_HD bool matches(const JoinTables& t, std::uint32_t probe_key) {
  return probe_key < t.build;
}
// One result tuple's contribution to the order-independent checksum of a join's output.
ALLOCLAB_HD std::uint64_t result_hash(std::uint32_t build_payload, std::uint32_t probe_payload) {
  return mix64((static_cast<std::uint64_t>(build_payload) << 32) | probe_payload);
}

}  // namespace alloclab::join
