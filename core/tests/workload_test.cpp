#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>

#include "alloclab/core/errors.hpp"
#include "alloclab/core/workload.hpp"

using namespace alloclab;

namespace {
// The parameter an InputError names, or "" when `f` does not throw one.
template <class F>
std::string rejected_parameter(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.parameter();
  }
  return "";
}
}  // namespace

TEST_CASE("byte quantities: plain numbers and binary suffixes", "[core][workload]") {
  CHECK(parse_bytes("--pool", "4096") == 4096);
  CHECK(parse_bytes("--pool", "100B") == 100);
  CHECK(parse_bytes("--pool", "64KiB") == 65536);
  CHECK(parse_bytes("--pool", "512MiB") == 536870912ULL);
  CHECK(parse_bytes("--pool", "8GiB") == 8589934592ULL);
  CHECK(parse_bytes("--pool", "1TiB") == 1099511627776ULL);
  for (const char* bad : {"", "0", "0MiB", "abc", "12 MiB", "5MB", "1.5GiB", "-4", "8gib",
                          "20000000000TiB", "99999999999999999999"})
    CHECK(rejected_parameter([&] { parse_bytes("--pool", bad); }) == "--pool");
}

TEST_CASE("size ranges: powers of two, lo <= hi", "[core][workload]") {
  const SizeSpec one = parse_size("--size", "4KiB");
  CHECK(one.lo == 4096);
  CHECK(one.hi == 4096);
  CHECK_FALSE(one.is_range());
  const SizeSpec r = parse_size("--size", "16..4096");
  CHECK(r.lo == 16);
  CHECK(r.hi == 4096);
  CHECK(r.text() == "16..4096");
  const auto list = parse_size_list("--size", "16,256..1KiB");
  REQUIRE(list.size() == 2);
  CHECK(list[1].lo == 256);
  CHECK(list[1].hi == 1024);
  for (const char* bad : {"0", "4096..16", "16..100", "24..64", "16..", "..64", "16,,32"})
    CHECK(rejected_parameter([&] { parse_size_list("--size", bad); }) == "--size");
}

TEST_CASE("mixed sizes are powers of two covering lo..hi about uniformly", "[core][workload]") {
  const SizeSpec r{16, 4096};  // 9 powers of two: 16, 32, ..., 4096
  std::map<std::uint64_t, int> seen;
  const int n = 90000;
  for (int i = 0; i < n; ++i) ++seen[request_bytes(r, 7, static_cast<std::uint64_t>(i))];
  REQUIRE(seen.size() == 9);
  for (const auto& [bytes, count] : seen) {
    CHECK(is_power_of_two(bytes));
    CHECK(bytes >= 16);
    CHECK(bytes <= 4096);
    // Binomial(90000, 1/9): mean 10000, sd 94; 6 sd either side.
    CHECK(count > 10000 - 564);
    CHECK(count < 10000 + 564);
  }
  CHECK(request_bytes(SizeSpec{300, 300}, 7, 5) == 300);
}

TEST_CASE("a byte request becomes pages as the registry's request kind says", "[core][workload]") {
  // one_page (queue, rw, rwbm, corw): anything up to one page is one page.
  for (auto a : {Algorithm::queue, Algorithm::rw, Algorithm::rwbm, Algorithm::corw}) {
    CHECK(pages_for_request(a, 1, 256) == 1);
    CHECK(pages_for_request(a, 256, 256) == 1);
    CHECK(rejected_parameter([&] { pages_for_request(a, 257, 256); }) == "--size");
  }
  // The message names the allocator that cannot serve it.
  try {
    pages_for_request(Algorithm::rwbm, 4096, 256);
    FAIL("no InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("rwbm") != std::string::npos);
  }
  // pages (rwmalloc): ceil(size / page).
  CHECK(pages_for_request(Algorithm::rwmalloc, 1, 256) == 1);
  CHECK(pages_for_request(Algorithm::rwmalloc, 256, 256) == 1);
  CHECK(pages_for_request(Algorithm::rwmalloc, 257, 256) == 2);
  CHECK(pages_for_request(Algorithm::rwmalloc, 4096, 256) == 16);
  CHECK(pages_for_request(Algorithm::rwmalloc, 4097, 256) == 17);
  CHECK(pages_for_request(Algorithm::rwmalloc, 1000, 16) == 63);
  CHECK(rejected_parameter([] { pages_for_request(Algorithm::rwmalloc, 0, 256); }) == "--size");
}

TEST_CASE("workload checks name the parameter", "[core][workload]") {
  Workload w;
  w.N = 10;
  w.size = {64, 64};
  w.pool_bytes = 1 << 20;
  CHECK(rejected_parameter([&] { check_workload(w); }).empty());
  CHECK(w.pages_total() == 4096);
  auto bad = [&](auto change) {
    Workload v = w;
    change(v);
    return rejected_parameter([&] { check_workload(v); });
  };
  CHECK(bad([](Workload& v) { v.N = 0; }) == "--N");
  CHECK(bad([](Workload& v) { v.size = {0, 0}; }) == "--size");
  CHECK(bad([](Workload& v) { v.size = {16, 64}; }) == "--size");   // a range needs mixed
  CHECK(bad([](Workload& v) { v.pool_bytes = 32; }) == "--pool");   // below one object
  CHECK(bad([](Workload& v) { v.pool_bytes = 128; }) == "--pool");  // below one page
  CHECK(bad([](Workload& v) { v.free_fraction = 1.5; }) == "--free-fraction");
  CHECK(bad([](Workload& v) { v.free_fraction = -0.1; }) == "--free-fraction");
  CHECK(bad([](Workload& v) { v.page_bytes = 0; }) == "--page-bytes");
  CHECK(bad([](Workload& v) {
          v.family = WorkloadFamily::oom;
          v.batch = 0;
        }) == "--batch");
  CHECK(bad([](Workload& v) {
          v.family = WorkloadFamily::mixed;
          v.size = {16, 64};
        }).empty());
  CHECK(parse_workload_family("churn") == WorkloadFamily::churn);
  CHECK(rejected_parameter([] { parse_workload_family("sprint"); }) == "--workload");
  CHECK(parse_workload_family("scaling") == WorkloadFamily::scaling);
}
