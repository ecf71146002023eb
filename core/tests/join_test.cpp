// The hash join case study's tables and reference (core/join/): Zipf ranks against the exact
// probabilities (a chi-square test at the 0.9999 quantile, Boost.Math), the build keys a
// permutation, the reference join against a nested loop over the tuples, the selectivity of the
// uniform draw, and the input errors.
#include <catch2/catch.hpp>

#include <boost/math/distributions/chi_squared.hpp>
#include <set>
#include <string>
#include <vector>

#include "alloclab/core/join/reference.hpp"
#include "alloclab/core/join/tables.hpp"
#include "alloclab/core/join/zipf.hpp"

using namespace alloclab;
using namespace alloclab::join;

TEST_CASE("Zipf ranks follow k^-z / H(n, z)") {
  const std::uint64_t n = 50, draws = 100000;
  for (double z : {0.0, 0.5, 1.0, 1.5, 2.5}) {
    INFO("z = " << z);
    const ZipfSampler zipf(n, z);
    std::vector<double> seen(n + 1, 0);
    for (std::uint64_t i = 0; i < draws; ++i) {
      const PhiloxStream s(11, StreamDomain::workload, i);
      const std::uint64_t k = zipf([&](unsigned j) { return s.uniform01(j); });
      REQUIRE(k >= 1);
      REQUIRE(k <= n);
      ++seen[k];
    }
    // Pool the tail so every bin expects at least 5 draws.
    double chi2 = 0, expected_bin = 0, seen_bin = 0;
    unsigned bins = 0;
    for (std::uint64_t k = 1; k <= n; ++k) {
      expected_bin += zipf.probability(k) * static_cast<double>(draws);
      seen_bin += seen[k];
      if (expected_bin >= 5 || k == n) {
        chi2 += (seen_bin - expected_bin) * (seen_bin - expected_bin) / expected_bin;
        ++bins;
        expected_bin = seen_bin = 0;
      }
    }
    REQUIRE(bins >= 10);
    const boost::math::chi_squared dist(bins - 1);
    CHECK(chi2 < boost::math::quantile(dist, 0.9999));
  }
}

TEST_CASE("Zipf: one rank, and a range of 2^32 ranks stays inside it") {
  const ZipfSampler one(1, 1.3);
  CHECK(one([](unsigned) { return 0.7; }) == 1);
  const ZipfSampler wide(std::uint64_t{1} << 32, 0.9);
  for (std::uint64_t i = 0; i < 2000; ++i) {
    const PhiloxStream s(3, StreamDomain::workload, i);
    const std::uint64_t k = wide([&](unsigned j) { return s.uniform01(j); });
    CHECK(k >= 1);
    CHECK(k <= (std::uint64_t{1} << 32));
  }
}

TEST_CASE("join tables: R's keys are 0 .. build - 1 once each") {
  JoinTables t{.build = 1000, .probe = 1, .key_range = 1000, .skew = 0, .seed = 5};
  std::set<std::uint32_t> keys;
  for (std::uint64_t i = 0; i < t.build; ++i) keys.insert(build_key(t, i));
  CHECK(keys.size() == 1000);
  CHECK(*keys.rbegin() == 999);
}

TEST_CASE("join reference: equals a nested loop over the tuples") {
  for (double skew : {0.0, 1.2}) {
    JoinTables t{.build = 300, .probe = 500, .key_range = 600, .skew = skew, .seed = 9};
    JoinOutput nested;
    for (std::uint64_t j = 0; j < t.probe; ++j)
      for (std::uint64_t i = 0; i < t.build; ++i)
        if (build_key(t, i) == probe_key(t, j)) {
          ++nested.tuples;
          nested.checksum += result_hash(build_payload(t, i), probe_payload(t, j));
        }
    INFO("skew " << skew);
    CHECK(nested.tuples > 0);
    CHECK(reference_join(t) == nested);
  }
}

TEST_CASE("join tables: uniform keys match with probability build / key_range") {
  JoinTables t{.build = 10000, .probe = 100000, .key_range = 40000, .skew = 0, .seed = 2};
  const double mean = 100000.0 * 0.25, sd = std::sqrt(100000.0 * 0.25 * 0.75);
  const double got = static_cast<double>(reference_join(t).tuples);
  CHECK(std::abs(got - mean) < 5 * sd);
  // Under skew 1.5 the small ranks dominate, all of them in R: more matches than uniform.
  t.skew = 1.5;
  CHECK(static_cast<double>(reference_join(t).tuples) > mean + 5 * sd);
}

TEST_CASE("join tables: input errors name the parameter") {
  auto error = [](JoinTables t) { return join_tables_error(t); };
  CHECK(error({.build = 0, .probe = 5, .key_range = 5}).find("--tuples") == 0);
  CHECK(error({.build = 5, .probe = 0, .key_range = 5}).find("--tuples") == 0);
  CHECK(error({.build = 5, .probe = 5, .key_range = 4}).find("--key-range") == 0);
  CHECK(error({.build = 5, .probe = 5, .key_range = 5, .skew = -0.1}).find("--skew") == 0);
  CHECK(error({.build = 5, .probe = 5, .key_range = 5, .skew = 4.5}).find("--skew") == 0);
  CHECK(error({.build = 5, .probe = 5, .key_range = 5, .skew = 4.0}).empty());
}
