// The single-threaded atomics policy (single_thread_atomics.hpp), which the explorer page's
// WebAssembly build runs every step machine over: each operation against hand-worked values
// (old value returned, the word after, unsigned wrap), the same as HostAtomics on one thread,
// and a step machine (Gelado & Garland's Fig. 1(b)) giving the same words under both policies.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "alloclab/core/gelado/bulk_semaphore.hpp"
#include "alloclab/core/ouroboros/host_atomics.hpp"
#include "alloclab/core/ouroboros/single_thread_atomics.hpp"

using alloclab::ouro::HostAtomics;
using alloclab::ouro::SingleThreadAtomics;
using S = SingleThreadAtomics;

TEST_CASE("single-threaded atomics: each operation by hand", "[core][ouro][atomics]") {
  std::uint32_t w = 5;
  CHECK(S::load(w) == 5);
  CHECK(S::fetch_add(w, 3u) == 5);
  CHECK(w == 8);
  CHECK(S::fetch_add(w, 0xffffffffu) == 8);  // -1 as the two's complement: wraps to 7
  CHECK(w == 7);
  CHECK(S::cas(w, 6u, 9u) == 7);  // expected 6, found 7: unchanged
  CHECK(w == 7);
  CHECK(S::cas(w, 7u, 9u) == 7);
  CHECK(w == 9);
  CHECK(S::exchange(w, 2u) == 9);
  CHECK(w == 2);
  CHECK(S::fetch_or(w, 5u) == 2);
  CHECK(w == 7);
  CHECK(S::fetch_and(w, 6u) == 7);
  CHECK(w == 6);
  CHECK(S::fetch_max(w, 4u) == 6);
  CHECK(w == 6);
  CHECK(S::fetch_max(w, 11u) == 6);
  CHECK(w == 11);
  std::uint64_t big = 0;
  CHECK(S::fetch_add(big, ~std::uint64_t{0}) == 0);
  CHECK(big == ~std::uint64_t{0});
}

#if !defined(__EMSCRIPTEN__)
TEST_CASE("single-threaded atomics: the same as HostAtomics on one thread",
          "[core][ouro][atomics]") {
  std::uint64_t a = 0x1234, b = 0x1234;
  const std::uint64_t vals[] = {7, 0xff00, ~std::uint64_t{0} - 3, 0x1234, 1};
  for (const std::uint64_t v : vals) {
    CHECK(S::fetch_add(a, v) == HostAtomics::fetch_add(b, v));
    CHECK(S::fetch_or(a, v) == HostAtomics::fetch_or(b, v));
    CHECK(S::cas(a, v, v + 1) == HostAtomics::cas(b, v, v + 1));
    CHECK(S::fetch_and(a, ~v) == HostAtomics::fetch_and(b, ~v));
    CHECK(S::fetch_max(a, v) == HostAtomics::fetch_max(b, v));
    CHECK(S::exchange(a, v ^ 0x55) == HostAtomics::exchange(b, v ^ 0x55));
    CHECK(a == b);
  }
}

TEST_CASE("single-threaded atomics: Fig. 1(b) word for word as under HostAtomics",
          "[core][ouro][atomics]") {
  using namespace alloclab::gelado;
  // T0 grows, T1-T3 reserve, T4 grows, T5-T7 reserve, both batches arrive, all take.
  const std::vector<int> script = {0, 0, 1, 1,  1, 2, 2, 2,  3, 3, 3, 4, 4, 5, 5,
                                   5, 6, 6, 6,  7, 7, 7, -1, 1, 1, 1, 2, 2, 2, 3,
                                   3, 3, 5, -2, 5, 5, 5, 6,  6, 6, 7, 7, 7};
  std::uint64_t ws = 0, wh = 0;
  std::vector<BulkWait<S>> ts(8, BulkWait<S>(1, 4));
  std::vector<BulkWait<HostAtomics>> th(8, BulkWait<HostAtomics>(1, 4));
  for (const int i : script) {
    if (i < 0) {
      bulk_grow_delivered<S>(ws, 1, 4);
      bulk_grow_delivered<HostAtomics>(wh, 1, 4);
    } else {
      CHECK(ts[i].step(ws) == th[i].step(wh));
    }
    REQUIRE(ws == wh);
  }
  CHECK(BulkWord::unpack(ws) == SemCounters{0, 0, 0});  // 8 units: 2 kept by growers, 6 taken
}
#endif
