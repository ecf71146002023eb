// Gallatin's speed verdict against the public code under the floor rule
// (validation/speed_floor.hpp): made-up H200 rows far above their design floor are "not
// reproduced ... N×", rows near it "does not hold"; the floors worked by hand from a made-up
// atomic throughput given to the H200 for the test.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "alloclab/studies/gallatin_claims.hpp"
#include "alloclab/testing/floor_fixture.hpp"

using namespace alloclab;
using namespace alloclab::validation;
namespace fs = std::filesystem;

namespace {
// DIR/gallatin/nvidia-h200/alloc.csv with one warm 256 B row of 2^20 requests on 8 GiB.
std::vector<ClaimCheck> claims_with(const std::string& ms, const std::string& atomics) {
  const fs::path root = fs::temp_directory_path() / "alloclab_gallatin_floor_test";
  fs::remove_all(root);
  fs::create_directories(root / "gallatin" / "nvidia-h200");
  std::ofstream(root / "gallatin" / "nvidia-h200" / "alloc.csv")
      << "allocator,mode,workload,N,size,pool_bytes,alloc_ms,requests,atomics_per_op,verified,"
         "device\n"
      << "gallatin,gpu-warm,alloc,1048576,256,8589934592," << ms << ",1048576," << atomics
      << ",true,NVIDIA H200\n";
  auto out = gallatin_claims(read_gallatin_dir(root.string()));
  fs::remove_all(root);
  return out;
}
const ClaimCheck& find(const std::vector<ClaimCheck>& claims, const std::string& where) {
  for (const auto& c : claims)
    if (c.where == where) return c;
  FAIL("no claim " << where);
  return claims.front();
}
}  // namespace

TEST_CASE("gallatin floor: slower than the public code, against the design floor", "[gallatin]") {
  // 1.048576e10 atomics/s; 10 atomics a request x 2^20 requests = 1 ms by hand.
  const testing::AtomicThroughputFixture rate("nvidia-h200", 1.048576e10);
  // Far: 20 ms warm at 256 B (the public code 0.764 ms): 20x its floor.
  const auto far_claims = claims_with("20", "10");
  const ClaimCheck& far = find(far_claims, "issue 14");
  CHECK(far.judgement == Judgement::not_reproduced);
  CHECK(far.verdict.rfind("not reproduced: implementation 20× above its design floor (at 256 B "
                          "warm: 20 ms measured, floor 1 ms",
                          0) == 0);
  CHECK(far.hardware.find("against its design floor where slower: 256 B warm 20× (floor 1 ms)") !=
        std::string::npos);
  // Near: 1.0 ms (slower than 0.764 ms), at its floor: the design is slower than the public code.
  const auto near_claims = claims_with("1.0", "10");
  const ClaimCheck& near = find(near_claims, "issue 14");
  CHECK(near.judgement == Judgement::does_not_hold);
  CHECK(near.verdict.rfind("does not hold: the implementation is within 1× of its design floor",
                           0) == 0);
}
